//! Corrupt input never panics: a valid database (made by SQLite, with
//! tables, an index, overflow pages and a freelist) has random bytes
//! overwritten, and every read path and the integrity check must return
//! data or an error, never panic or loop.

use crate::storage_support;

use ringlite::btree::{BtreeOptions, Cursor, SeekOp, TreeKind};
use ringlite::io::memory::MemoryBackend;
use ringlite::io::IoContext;
use ringlite::value::record::KeyInfo;
use std::sync::Arc;
use storage_support::*;

fn base_image() -> (Vec<u8>, Vec<u32>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("base.db");
    let db = Sqlite::open(path.to_str().unwrap());
    db.exec("PRAGMA page_size=1024; CREATE TABLE t(a,b); CREATE INDEX i ON t(b); CREATE TABLE u(x);");
    db.exec("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<400) INSERT INTO t SELECT n, hex(randomblob(n % 700)) FROM c;");
    db.exec("INSERT INTO u SELECT b FROM t; DELETE FROM t WHERE a % 4 = 0; DROP TABLE u;");
    let roots = db
        .query("SELECT rootpage FROM sqlite_schema")
        .into_iter()
        .map(|r| match r[0] {
            V::Int(i) => i as u32,
            _ => 0,
        })
        .collect();
    drop(db);
    (std::fs::read(&path).unwrap(), roots)
}

fn exercise(image: Vec<u8>, roots: &[u32]) {
    let mem = Arc::new(MemoryBackend::new());
    mem.fs().put("c.db", image);
    let io = IoContext::new(mem);
    let Ok(mut bt) = ringlite::btree::Btree::open(&io, "c.db", BtreeOptions::default()) else { return };
    if io.block_on(|| bt.begin_read()).is_err() {
        return;
    }
    let mut all = vec![1];
    all.extend_from_slice(roots);
    let _ = io.block_on(|| bt.integrity_check(&all, 50));
    for &root in &all {
        for ki in [None, Some(Arc::new(KeyInfo::binary(2)))] {
            let mut c = Cursor::new(root, false, ki.clone());
            let mut steps = 0;
            let mut more = io.block_on(|| c.first(&mut bt)).unwrap_or(false);
            while more && steps < 5000 {
                let _ = io.block_on(|| c.payload(&mut bt).map(|p| p.map(|s| s.len())));
                more = io.block_on(|| c.next(&mut bt)).unwrap_or(false);
                steps += 1;
            }
            let _ = io.block_on(|| c.last(&mut bt));
            let _ = io.block_on(|| c.prev(&mut bt));
            let _ = io.block_on(|| c.count(&mut bt));
            if ki.is_some() {
                let key = [ringlite::value::ValueRef::Text(b"41")];
                let _ = io.block_on(|| c.seek_index(&mut bt, &key, SeekOp::Le));
            } else {
                let _ = io.block_on(|| c.seek_rowid(&mut bt, 77));
            }
        }
    }
    let _ = io.block_on(|| bt.commit());
    // Writing into a corrupt file must fail cleanly too.
    if io.block_on(|| bt.begin_write(false)).is_ok() {
        for &root in roots {
            let mut c = Cursor::new(root, true, None);
            let rec = encode(&[V::Int(1), V::Text("x".repeat(3000))]);
            let _ = io.block_on(|| c.insert(&mut bt, ringlite::btree::InsertKey::Rowid(5), &rec));
            if io.block_on(|| c.seek_rowid(&mut bt, 9)).is_ok() && c.is_valid() {
                let _ = io.block_on(|| c.delete(&mut bt));
            }
            let _ = io.block_on(|| bt.clear_tree(root));
        }
        let _ = io.block_on(|| bt.create_tree(TreeKind::Index));
        let _ = io.block_on(|| bt.rollback());
    }
}

#[test]
fn random_corruption_never_panics() {
    let (image, roots) = base_image();
    exercise(image.clone(), &roots);
    let mut rng = Rng(0x5eed);
    for round in 0..120 {
        let mut img = image.clone();
        let hits = 1 + rng.below(8);
        for _ in 0..hits {
            // Aim at structure: page headers and cell pointers are near the
            // start of each page.
            let page = rng.below((img.len() / 1024) as u64) as usize;
            let off = if rng.below(2) == 0 { rng.below(40) as usize } else { rng.below(1024) as usize };
            let pos = page * 1024 + off;
            if pos < img.len() {
                img[pos] = rng.next() as u8;
            }
        }
        let r = std::panic::catch_unwind(|| exercise(img, &roots));
        assert!(r.is_ok(), "panic in round {round}");
    }
}

#[test]
fn integrity_messages_match_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.db");
    let path = p.to_str().unwrap();
    {
        let db = Sqlite::open(path);
        db.exec("CREATE TABLE t(a); INSERT INTO t VALUES(randomblob(5000)); INSERT INTO t VALUES(1);");
    }
    let mut img = std::fs::read(path).unwrap();
    let n = img.len() / 4096;
    img.extend(vec![0u8; 4096]);
    img[28..32].copy_from_slice(&((n + 1) as u32).to_be_bytes());
    img[36..40].copy_from_slice(&3u32.to_be_bytes());
    std::fs::write(path, &img).unwrap();
    let theirs = match &Sqlite::open(path).query("PRAGMA integrity_check")[0][0] {
        V::Text(t) => t.lines().skip(1).map(str::to_string).collect::<Vec<_>>(),
        v => panic!("{v:?}"),
    };
    let io = ringlite::io::IoContext::new(Arc::new(ringlite::io::sync::SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    io.block_on(|| bt.begin_read()).unwrap();
    let ours = io.block_on(|| bt.integrity_check(&[1, 2], 100)).unwrap();
    assert_eq!(ours, theirs);
}

/// A free-list trunk that claims more leaves than its page can hold is
/// damage once a page is freed onto it: `SQLITE_CORRUPT`, as SQLite's
/// `freePage2` reports it (ours started a new trunk in front of it).
#[test]
fn freeing_onto_an_overfull_trunk_is_corrupt_as_in_sqlite() {
    use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("f.db").to_str().unwrap().to_string();
    {
        let r = RefDb::open_path(&base);
        let setup = "PRAGMA page_size=1024; CREATE TABLE t(a); \
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<100) INSERT INTO t SELECT randomblob(3000) FROM c; \
            DELETE FROM t WHERE rowid % 2 = 0;";
        assert!(run_ref(&r, setup).iter().all(|o| !matches!(o, Outcome::Error { .. })));
    }
    let mut img = std::fs::read(&base).unwrap();
    let trunk = u32::from_be_bytes(img[32..36].try_into().unwrap()) as usize;
    assert!(trunk > 0, "the deletes left a free-list trunk");
    // 1024-byte pages hold at most 1024/4 - 2 = 254 leaf numbers.
    img[(trunk - 1) * 1024 + 4..(trunk - 1) * 1024 + 8].copy_from_slice(&255u32.to_be_bytes());
    let (theirs, ours) = (dir.path().join("ref.db"), dir.path().join("ours.db"));
    std::fs::write(&theirs, &img).unwrap();
    std::fs::write(&ours, &img).unwrap();
    let sql = "DELETE FROM t WHERE rowid = 1";
    let want = run_ref(&RefDb::open_path(theirs.to_str().unwrap()), sql);
    assert!(matches!(&want[0], Outcome::Error { code: 11, .. }), "{want:?}");
    let mut c = ringlite::Connection::open(ours.to_str().unwrap(), ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
    assert_eq!(run_ours(&mut c, sql), want);
}
