//! `journal_size_limit` on async connections: the cut of a persistent
//! journal or a restarted WAL is a commit step of its own, which may
//! suspend and resume without redoing anything (simulated disk completing
//! requests in random order, a few at a time).

use crate::async_support;
use async_support::*;
use ringlite::io::IoContext;

const FILL: &str =
    "CREATE TABLE t(a, b); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400) INSERT INTO t SELECT x, randomblob(300) FROM c";

#[test]
fn persist_journal_cut_back_async() {
    for seed in [1u64, 7, 23] {
        let backend = sim(seed, 2);
        let io = IoContext::new(backend.clone());
        let mut c = open(&io, "db", true);
        must(&mut c, "PRAGMA journal_mode = PERSIST");
        must(&mut c, "PRAGMA journal_size_limit = 2048");
        must(&mut c, FILL);
        assert!(must(&mut c, "UPDATE t SET b = zeroblob(300)").ios > 0);
        assert_eq!(backend.fs().get("db-journal").map(|d| d.len()), Some(2048));
        assert_eq!(must(&mut c, "SELECT count(*), sum(length(b)) FROM t").rows, vec![vec![V::Int(400), V::Int(120_000)]]);
        assert_eq!(must(&mut c, "PRAGMA integrity_check").rows, vec![vec![V::Text(b"ok".to_vec())]]);
    }
}

#[test]
fn restarted_wal_cut_back_async() {
    for seed in [2u64, 9, 31] {
        let backend = sim(seed, 2);
        let io = IoContext::new(backend.clone());
        let mut c = open(&io, "db", true);
        must(&mut c, "PRAGMA journal_mode = WAL");
        must(&mut c, "PRAGMA wal_autocheckpoint = 0");
        must(&mut c, "PRAGMA journal_size_limit = 0");
        must(&mut c, FILL);
        must(&mut c, "PRAGMA wal_checkpoint");
        let before = backend.fs().get("db-wal").map(|d| d.len()).unwrap();
        must(&mut c, "INSERT INTO t VALUES(0, 'x')");
        let frames = match must(&mut c, "PRAGMA wal_checkpoint(PASSIVE)").rows[0][1] {
            V::Int(n) => n as u64,
            ref other => panic!("{other:?}"),
        };
        let after = backend.fs().get("db-wal").map(|d| d.len()).unwrap();
        assert!(after < before, "{before} -> {after}");
        assert_eq!(after, 32 + frames * (4096 + 24));
        assert_eq!(must(&mut c, "SELECT count(*) FROM t").rows, vec![vec![V::Int(401)]]);
        assert_eq!(must(&mut c, "PRAGMA integrity_check").rows, vec![vec![V::Text(b"ok".to_vec())]]);
    }
}
