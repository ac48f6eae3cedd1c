//! WITHOUT ROWID tables at the B-tree level: an index tree whose entries
//! are whole rows (primary key columns first), keyed by the primary key.
//! Inserting a row whose key exists replaces it, wherever it sits (leaf or
//! interior page); deletes and seeks by key work; SQLite reads the result
//! (`integrity_check` ok, the same rows) and we read SQLite's.

use crate::storage_support;

use ringlite::btree::{Cursor, InsertKey, SeekOp};
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use ringlite::value::record::KeyInfo;
use ringlite::value::ValueRef;
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

fn root_of(db: &Sqlite, name: &str) -> u32 {
    match db.query(&format!("SELECT rootpage FROM sqlite_schema WHERE name='{name}'"))[0][0] {
        V::Int(r) => r as u32,
        _ => panic!(),
    }
}

#[test]
fn without_rowid_rows_replace_by_primary_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wr.db").to_str().unwrap().to_string();
    let (root_w, root_m) = {
        let db = Sqlite::open(&path);
        db.exec("PRAGMA page_size=1024; CREATE TABLE w(k TEXT PRIMARY KEY, n INT, v) WITHOUT ROWID; CREATE TABLE m(a INT, b TEXT, c, PRIMARY KEY(a, b)) WITHOUT ROWID;");
        db.exec("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<400) INSERT INTO w SELECT printf('key%05d', i), i, hex(randomblob(i % 90)) FROM c;");
        db.exec("INSERT INTO m SELECT n % 20, k, v FROM w;");
        (root_of(&db, "w"), root_of(&db, "m"))
    };
    // The model: SQLite's rows.
    let mut model_w: BTreeMap<String, Vec<V>> = BTreeMap::new();
    let mut model_m: BTreeMap<(i64, String), Vec<V>> = BTreeMap::new();
    {
        let db = Sqlite::open(&path);
        for r in db.query("SELECT k, n, v FROM w") {
            let V::Text(k) = &r[0] else { panic!() };
            model_w.insert(k.clone(), r);
        }
        for r in db.query("SELECT a, b, c FROM m") {
            let (V::Int(a), V::Text(b)) = (&r[0], &r[1]) else { panic!() };
            model_m.insert((*a, b.clone()), r);
        }
    }
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &path);
    let ki_w = Arc::new(KeyInfo::binary(1));
    let ki_m = Arc::new(KeyInfo::binary(2));
    let mut rng = Rng(77);
    for round in 0..6 {
        io.block_on(|| bt.begin_write(false)).unwrap();
        let mut cw = Cursor::new(root_w, true, Some(ki_w.clone()));
        let mut cm = Cursor::new(root_m, true, Some(ki_m.clone()));
        for _ in 0..150 {
            let i = rng.below(600) as i64;
            let k = format!("key{i:05}");
            match rng.below(3) {
                0 => {
                    // Delete by key.
                    let key = [ValueRef::Text(k.as_bytes())];
                    let found = io.block_on(|| cw.seek_index(&mut bt, &key, SeekOp::Ge)).unwrap();
                    let on_it = found && matches!(decode(&payload(&io, &mut cw, &mut bt)).first(), Some(V::Text(t)) if *t == k);
                    assert_eq!(on_it, model_w.contains_key(&k), "round {round} key {k}");
                    if on_it {
                        io.block_on(|| cw.delete(&mut bt)).unwrap();
                        model_w.remove(&k);
                    }
                }
                _ => {
                    // Insert or replace (new values under the same key).
                    let len = rng.below(700) as usize;
                    let row = vec![V::Text(k.clone()), V::Int(rng.next() as i64 >> 20), V::Text(rng.text(len))];
                    let rec = encode(&row);
                    io.block_on(|| cw.insert(&mut bt, InsertKey::WithoutRowid { record: &rec, key_fields: 1 }, &[])).unwrap();
                    model_w.insert(k.clone(), row);
                    let a = i % 20;
                    let row = vec![V::Int(a), V::Text(k.clone()), V::Blob(vec![round as u8; rng.below(300) as usize])];
                    let rec = encode(&row);
                    io.block_on(|| cm.insert(&mut bt, InsertKey::WithoutRowid { record: &rec, key_fields: 2 }, &[])).unwrap();
                    model_m.insert((a, k), row);
                }
            }
        }
        io.block_on(|| bt.commit()).unwrap();
        let db = Sqlite::open(&path);
        assert_eq!(db.integrity(), "Text(\"ok\")", "round {round}");
        let rows_w: Vec<Vec<V>> = db.query("SELECT k, n, v FROM w ORDER BY k");
        assert_eq!(rows_w, model_w.values().cloned().collect::<Vec<_>>(), "round {round}: w");
        let rows_m: Vec<Vec<V>> = db.query("SELECT a, b, c FROM m ORDER BY a, b");
        assert_eq!(rows_m, model_m.values().cloned().collect::<Vec<_>>(), "round {round}: m");
    }
}
