//! A size smoke test: tens of thousands of rows and index entries in one
//! transaction, checked by SQLite. Guards against accidentally quadratic
//! paths in balancing and cursor movement.

use crate::storage_support;

use ringlite::btree::{Cursor, InsertKey, TreeKind};
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use ringlite::value::record::KeyInfo;
use std::sync::Arc;
use storage_support::*;

#[test]
fn many_rows_in_one_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(&io, &mut bt, TreeKind::Table);
    let iroot = create_tree(&io, &mut bt, TreeKind::Index);
    add_schema_row(&io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    add_schema_row(&io, &mut bt, 2, "index", "i", "t", iroot, "CREATE INDEX i ON t(b)");
    let mut c = Cursor::new(root, true, None);
    let mut ic = Cursor::new(iroot, true, Some(Arc::new(KeyInfo::binary(1))));
    let n = 10_000i64;
    let start = std::time::Instant::now();
    let mut rng = Rng(1);
    for i in 0..n {
        let b = format!("k{:08}", rng.below(1_000_000));
        let rec = encode(&[V::Int(i), V::Text(b.clone())]);
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &rec)).unwrap();
        let key = encode(&[V::Text(b), V::Int(i)]);
        io.block_on(|| ic.insert(&mut bt, InsertKey::Index(&key), &[])).unwrap();
    }
    io.block_on(|| bt.commit()).unwrap();
    let elapsed = start.elapsed();
    drop(bt);
    let db = Sqlite::open(&path);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(db.query("SELECT count(*) FROM t"), vec![vec![V::Int(n)]]);
    eprintln!("{n} rows + index entries in {elapsed:?}");
}
