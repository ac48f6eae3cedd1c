//! Differential tests: databases written by our B-tree are read by real
//! SQLite (integrity_check and SELECT), and databases written by real
//! SQLite are read by our cursors.

use crate::storage_support;

use ringlite::btree::{Cursor, InsertKey, TreeKind};
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use ringlite::value::collation::Collation;
use ringlite::value::record::{KeyField, KeyInfo};
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

fn binary_keyinfo(n: usize) -> Arc<KeyInfo> {
    Arc::new(KeyInfo { fields: (0..n).map(|_| KeyField { collation: Collation::binary(), descending: false }).collect() })
}

fn row_value(rng: &mut Rng, page_size: u32) -> V {
    match rng.below(6) {
        0 => V::Null,
        1 => V::Int(rng.next() as i64 >> rng.below(60)),
        2 => V::Real((rng.below(1_000_000) as f64) / 7.0),
        3 => {
            let n = rng.below(40) as usize;
            V::Text(rng.text(n))
        }
        4 => {
            let n = rng.below(page_size as u64 * 3) as usize;
            V::Text(rng.text(n))
        }
        _ => V::Blob((0..rng.below(page_size as u64 / 2)).map(|i| i as u8).collect()),
    }
}

/// Write a table and an index with our B-tree, then check with SQLite.
fn write_then_sqlite_reads(page_size: u32, rows: usize, seed: u64) {
    write_then_sqlite_reads_on(page_size, rows, seed, None);
}

/// With `sim`, our side runs on the delayed, reordering simulation and the
/// resulting file image is handed to SQLite.
fn write_then_sqlite_reads_on(page_size: u32, rows: usize, seed: u64, sim: Option<Arc<SimBackend>>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ours.db");
    let path = path.to_str().unwrap();
    let io = match &sim {
        Some(s) => IoContext::new(s.clone()),
        None => IoContext::new(Arc::new(SyncBackend::new())),
    };
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_page_size(page_size), page_size);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(&io, &mut bt, TreeKind::Table);
    let iroot = create_tree(&io, &mut bt, TreeKind::Index);
    add_schema_row(&io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    add_schema_row(&io, &mut bt, 2, "index", "i", "t", iroot, "CREATE INDEX i ON t(b)");
    let mut rng = Rng(seed);
    let mut model: BTreeMap<i64, (V, V)> = BTreeMap::new();
    let mut tc = Cursor::new(root, true, None);
    let ki = binary_keyinfo(1);
    let mut ic = Cursor::new(iroot, true, Some(ki.clone()));
    for _ in 0..rows {
        let rowid = (rng.below(rows as u64 * 4)) as i64 - 5;
        let (a, b) = (row_value(&mut rng, page_size), row_value(&mut rng, page_size));
        if let Some((_, oldb)) = model.get(&rowid) {
            // Replace: drop the old index entry first.
            let old = encode(&[oldb.clone(), V::Int(rowid)]);
            assert!(io.block_on(|| ic.seek_index(&mut bt, &to_refs(&old), ringlite::btree::SeekOp::Ge)).unwrap());
            assert_eq!(payload(&io, &mut ic, &mut bt), old);
            io.block_on(|| ic.delete(&mut bt)).unwrap();
        }
        let rec = encode(&[a.clone(), b.clone()]);
        io.block_on(|| tc.insert(&mut bt, InsertKey::Rowid(rowid), &rec)).unwrap();
        let ikey = encode(&[b.clone(), V::Int(rowid)]);
        io.block_on(|| ic.insert(&mut bt, InsertKey::Index(&ikey), &[])).unwrap();
        model.insert(rowid, (a, b));
    }
    // Delete about a third of the rows.
    let victims: Vec<i64> = model.keys().copied().filter(|_| rng.below(3) == 0).collect();
    for rowid in victims {
        let (_, b) = model.remove(&rowid).unwrap();
        assert_eq!(io.block_on(|| tc.seek_rowid(&mut bt, rowid)).unwrap(), ringlite::btree::SeekResult::Found);
        io.block_on(|| tc.delete(&mut bt)).unwrap();
        let ikey = encode(&[b, V::Int(rowid)]);
        assert!(io.block_on(|| ic.seek_index(&mut bt, &to_refs(&ikey), ringlite::btree::SeekOp::Ge)).unwrap());
        assert_eq!(payload(&io, &mut ic, &mut bt), ikey);
        io.block_on(|| ic.delete(&mut bt)).unwrap();
    }
    let ours = io.block_on(|| bt.integrity_check(&[1, root, iroot], 100)).unwrap();
    assert!(ours.is_empty(), "our integrity check: {ours:?}");
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    if let Some(s) = &sim {
        assert!(s.submitted() > 0);
        std::fs::write(path, s.fs().get(path).unwrap().snapshot()).unwrap();
    }

    let db = Sqlite::open(path);
    assert_eq!(db.integrity(), "Text(\"ok\")", "page size {page_size}");
    let got = db.query("SELECT rowid, a, b FROM t ORDER BY rowid");
    let want: Vec<Vec<V>> = model.iter().map(|(r, (a, b))| vec![V::Int(*r), a.clone(), b.clone()]).collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    let n = db.query("SELECT count(*) FROM t INDEXED BY i WHERE b IS NOT NULL OR b IS NULL");
    assert_eq!(n, vec![vec![V::Int(model.len() as i64)]]);
}

fn to_refs(rec: &[u8]) -> Vec<ringlite::value::ValueRef<'_>> {
    ringlite::value::record::Record::parse(rec).and_then(|r| r.values()).unwrap()
}

#[test]
fn ours_read_by_sqlite_4096() {
    write_then_sqlite_reads(4096, 600, 7);
}

#[test]
fn ours_read_by_sqlite_under_simulation() {
    let sim = Arc::new(SimBackend::new(SimConfig { seed: 3, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
    write_then_sqlite_reads_on(1024, 300, 23, Some(sim));
}

#[test]
fn ours_read_by_sqlite_512() {
    write_then_sqlite_reads(512, 400, 11);
}

#[test]
fn ours_read_by_sqlite_1024_and_65536() {
    write_then_sqlite_reads(1024, 300, 13);
    write_then_sqlite_reads(65536, 200, 17);
}

/// SQLite writes (tables, an index, overflow, a freelist); our cursors
/// read exactly what SQLite reads.
fn sqlite_writes_we_read(page_size: u32, seed: u64, sim: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db");
    let path = path.to_str().unwrap();
    {
        let db = Sqlite::open(path);
        db.exec(&format!("PRAGMA page_size={page_size}; CREATE TABLE t(a,b); CREATE INDEX i ON t(b, a); CREATE TABLE gone(x);"));
        db.exec("BEGIN");
        let mut rng = Rng(seed);
        for i in 0..500 {
            let big = rng.below(page_size as u64 * 2);
            db.exec(&format!(
                "INSERT INTO t(rowid, a, b) VALUES({}, {}, {}); INSERT INTO gone VALUES(randomblob({}));",
                rng.below(1_000_000),
                if i % 3 == 0 { format!("zeroblob({big})") } else { format!("{}", rng.below(1000)) },
                if i % 4 == 0 { format!("'{}'", rng.text(big as usize)) } else { format!("{}.5", rng.below(100)) },
                big
            ));
        }
        db.exec("COMMIT; DELETE FROM t WHERE rowid % 5 = 0; DROP TABLE gone;");
        assert!(db.query("PRAGMA freelist_count")[0][0] != V::Int(0));
    }
    let db = Sqlite::open(path);
    let roots = db.query("SELECT name, rootpage FROM sqlite_schema");
    let root_of = |n: &str| {
        roots
            .iter()
            .find(|r| r[0] == V::Text(n.into()))
            .map(|r| match r[1] {
                V::Int(i) => i as u32,
                _ => 0,
            })
            .unwrap()
    };
    let (troot, iroot) = (root_of("t"), root_of("i"));
    let want_rows = db.query("SELECT rowid, a, b FROM t ORDER BY rowid");
    let want_index = db.query("SELECT b, a, rowid FROM t ORDER BY b, a, rowid");
    drop(db);

    let io = if sim {
        let s = Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 3, fail_one_in: 0 }));
        s.fs().put(path, std::fs::read(path).unwrap());
        IoContext::new(s)
    } else {
        IoContext::new(Arc::new(SyncBackend::new()))
    };
    let mut bt = open_btree(&io, path);
    // A small cache makes the walks below evict and re-read constantly.
    bt.set_cache_size(12);
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(bt.page_size(), page_size);
    let mut c = Cursor::new(troot, false, None);
    let mut got = Vec::new();
    let mut more = io.block_on(|| c.first(&mut bt)).unwrap();
    while more {
        let mut row = vec![V::Int(c.rowid())];
        row.extend(storage_support::decode(&payload(&io, &mut c, &mut bt)));
        got.push(row);
        more = io.block_on(|| c.next(&mut bt)).unwrap();
    }
    assert_eq!(got, want_rows);
    // Backwards too.
    let mut back = Vec::new();
    let mut more = io.block_on(|| c.last(&mut bt)).unwrap();
    while more {
        back.push(c.rowid());
        more = io.block_on(|| c.prev(&mut bt)).unwrap();
    }
    back.reverse();
    assert_eq!(
        back,
        got.iter()
            .map(|r| match r[0] {
                V::Int(i) => i,
                _ => 0,
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(io.block_on(|| c.count(&mut bt)).unwrap(), want_rows.len() as u64);
    // Point seeks.
    for r in want_rows.iter().step_by(7) {
        let V::Int(rowid) = r[0] else { panic!() };
        assert_eq!(io.block_on(|| c.seek_rowid(&mut bt, rowid)).unwrap(), ringlite::btree::SeekResult::Found);
        assert_eq!(c.rowid(), rowid);
        assert_ne!(io.block_on(|| c.seek_rowid(&mut bt, rowid * 5 + 1_000_000_000)).unwrap(), ringlite::btree::SeekResult::Found);
    }
    // The index, in order, both directions, and prefix seeks.
    let ki = binary_keyinfo(2);
    let mut ic = Cursor::new(iroot, false, Some(ki));
    let mut got = Vec::new();
    let mut more = io.block_on(|| ic.first(&mut bt)).unwrap();
    while more {
        got.push(storage_support::decode(&payload(&io, &mut ic, &mut bt)));
        more = io.block_on(|| ic.next(&mut bt)).unwrap();
    }
    assert_eq!(got, want_index);
    let mut back = Vec::new();
    let mut more = io.block_on(|| ic.last(&mut bt)).unwrap();
    while more {
        back.push(storage_support::decode(&payload(&io, &mut ic, &mut bt)));
        more = io.block_on(|| ic.prev(&mut bt)).unwrap();
    }
    back.reverse();
    assert_eq!(back, want_index);
    for (i, entry) in want_index.iter().enumerate().step_by(5) {
        let rec = encode(&entry[..1]);
        let key = to_refs(&rec);
        let first = want_index.iter().position(|e| e[0] == entry[0]).unwrap();
        let last = want_index.iter().rposition(|e| e[0] == entry[0]).unwrap();
        assert!(io.block_on(|| ic.seek_index(&mut bt, &key, ringlite::btree::SeekOp::Ge)).unwrap());
        assert_eq!(storage_support::decode(&payload(&io, &mut ic, &mut bt)), want_index[first], "Ge at {i}");
        let gt = io.block_on(|| ic.seek_index(&mut bt, &key, ringlite::btree::SeekOp::Gt)).unwrap();
        assert_eq!(gt, last + 1 < want_index.len());
        if gt {
            assert_eq!(storage_support::decode(&payload(&io, &mut ic, &mut bt)), want_index[last + 1]);
        }
        assert!(io.block_on(|| ic.seek_index(&mut bt, &key, ringlite::btree::SeekOp::Le)).unwrap());
        assert_eq!(storage_support::decode(&payload(&io, &mut ic, &mut bt)), want_index[last]);
        let lt = io.block_on(|| ic.seek_index(&mut bt, &key, ringlite::btree::SeekOp::Lt)).unwrap();
        assert_eq!(lt, first > 0);
        if lt {
            assert_eq!(storage_support::decode(&payload(&io, &mut ic, &mut bt)), want_index[first - 1]);
        }
    }
    let errors = io.block_on(|| bt.integrity_check(&[1, troot, iroot], 100)).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    io.block_on(|| bt.commit()).unwrap();
}

#[test]
fn sqlite_written_read_by_us() {
    sqlite_writes_we_read(4096, 3, false);
    sqlite_writes_we_read(1024, 5, false);
}

#[test]
fn sqlite_written_read_by_us_under_simulation() {
    sqlite_writes_we_read(1024, 9, true);
}
