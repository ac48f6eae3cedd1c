//! Helpers shared by the WAL tests: a rowid table `t(a,b)` written through
//! our B-tree, mirrored in a model, and compared with what a reader sees.
#![allow(dead_code)]

#[path = "../storage_support/mod.rs"]
pub mod storage;

use ringlite::btree::{Btree, Cursor, InsertKey, SeekResult, TreeKind};
use ringlite::io::IoContext;
use std::collections::BTreeMap;
pub use storage::*;

pub type Model = BTreeMap<i64, (i64, String)>;

/// Create table `t` (root page returned) in its own transaction.
pub fn create_table(io: &IoContext, bt: &mut Btree) -> u32 {
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(io, bt, TreeKind::Table);
    add_schema_row(io, bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    io.block_on(|| bt.commit()).unwrap();
    root
}

/// One transaction of random inserts/updates/deletes on `t`.
pub fn random_txn(io: &IoContext, bt: &mut Btree, root: u32, model: &mut Model, rng: &mut Rng, ops: usize) {
    io.block_on(|| bt.begin_write(false)).unwrap();
    let mut c = Cursor::new(root, true, None);
    for _ in 0..ops {
        let k = rng.below(500) as i64 + 1;
        if rng.below(4) == 0 {
            if io.block_on(|| c.seek_rowid(bt, k)).unwrap() == SeekResult::Found {
                io.block_on(|| c.delete(bt)).unwrap();
                model.remove(&k);
            }
        } else {
            let n = rng.below(300) as usize;
            let v = (rng.next() as i64 >> 8, rng.text(n));
            let rec = encode(&[V::Int(v.0), V::Text(v.1.clone())]);
            io.block_on(|| c.insert(bt, InsertKey::Rowid(k), &rec)).unwrap();
            model.insert(k, v);
        }
    }
    io.block_on(|| bt.commit()).unwrap();
}

/// Rows of `t` as our B-tree reads them (own read transaction).
pub fn our_rows(io: &IoContext, bt: &mut Btree, root: u32) -> Model {
    io.block_on(|| bt.begin_read()).unwrap();
    let rows = our_rows_in_txn(io, bt, root);
    io.block_on(|| bt.commit()).unwrap();
    rows
}

/// Rows of `t` inside an open transaction.
pub fn our_rows_in_txn(io: &IoContext, bt: &mut Btree, root: u32) -> Model {
    let mut out = Model::new();
    let mut c = Cursor::new(root, false, None);
    let mut more = io.block_on(|| c.first(bt)).unwrap();
    while more {
        let k = c.rowid();
        let rec = decode(&payload(io, &mut c, bt));
        match (&rec[0], &rec[1]) {
            (V::Int(a), V::Text(b)) => out.insert(k, (*a, b.clone())),
            other => panic!("unexpected row {other:?}"),
        };
        more = io.block_on(|| c.next(bt)).unwrap();
    }
    out
}

/// Rows of `t` as real SQLite reads them.
pub fn sqlite_rows(db: &Sqlite) -> Model {
    db.query("SELECT rowid, a, b FROM t ORDER BY rowid")
        .into_iter()
        .map(|r| match (&r[0], &r[1], &r[2]) {
            (V::Int(k), V::Int(a), V::Text(b)) => (*k, (*a, b.clone())),
            other => panic!("unexpected row {other:?}"),
        })
        .collect()
}
