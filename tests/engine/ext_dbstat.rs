//! `dbstat` (`src/ext/dbstat.rs`) against the reference SQLite: files
//! written by the reference (tables, indexes, WITHOUT ROWID tables,
//! overflow chains, freed space, small and large pages) are described
//! identically by both engines, page by page and aggregated.

use crate::sql_common::{run_ours, run_ref, RefDb};
use ringlite::{Connection, OpenFlags};

fn tmp(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("ringlite-dbstat-{}-{name}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.to_string_lossy().into_owned()
}

const QUERIES: &[&str] = &[
    "SELECT * FROM dbstat",
    "SELECT * FROM dbstat('main', 1)",
    "SELECT * FROM dbstat WHERE name = 'big'",
    "SELECT * FROM dbstat WHERE aggregate = 1 AND name = 'wr'",
    "SELECT name, path FROM dbstat ORDER BY name",
    "SELECT * FROM dbstat('nosuch')",
    "SELECT name, schema, aggregate FROM dbstat LIMIT 3",
    "SELECT sum(pgsize - unused) * 100.0 / sum(pgsize) FROM dbstat WHERE name = 'big'",
    "SELECT * FROM dbstat('aux')",
    "SELECT * FROM dbstat('aux', 1) WHERE name = 'x'",
    "EXPLAIN QUERY PLAN SELECT * FROM dbstat WHERE name = 'big'",
    "EXPLAIN QUERY PLAN SELECT * FROM dbstat('main', 1)",
];

fn compare(path: &str, aux: &str) {
    let attach = format!("ATTACH '{aux}' AS aux");
    let r = RefDb::open_path(path);
    run_ref(&r, &attach);
    let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    run_ours(&mut c, &attach);
    for q in QUERIES {
        let a = run_ours(&mut c, q);
        let b = run_ref(&r, q);
        assert_eq!(a, b, "\n{q}");
    }
}

#[test]
fn pages_of_files_written_by_sqlite() {
    for page_size in [512, 1024, 4096, 65536] {
        let (path, aux) = (tmp(&format!("main{page_size}")), tmp(&format!("aux{page_size}")));
        let setup = format!(
            "PRAGMA page_size = {page_size}; \
             CREATE TABLE big(a INTEGER PRIMARY KEY, b, c); CREATE INDEX big_b ON big(b); CREATE INDEX big_c ON big(c, a); \
             CREATE TABLE wr(k TEXT PRIMARY KEY, v) WITHOUT ROWID; \
             WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 400) \
               INSERT INTO big SELECT i, hex(randomblob(i % 97 * 11)), zeroblob(i * 13 % 3000) FROM s; \
             WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 300) \
               INSERT INTO wr SELECT printf('%0*d', i % 50 + 1, i), randomblob(i * 7 % 900) FROM s; \
             DELETE FROM big WHERE a % 3 = 0; CREATE TABLE empty(x);"
        );
        let r = RefDb::open_path(&path);
        for o in run_ref(&r, &setup) {
            assert!(matches!(o, crate::sql_common::Outcome::Rows { .. }), "{o:?}");
        }
        drop(r);
        run_ref(&RefDb::open_path(&aux), "CREATE TABLE x(a, b); INSERT INTO x VALUES(1, randomblob(5000));");
        compare(&path, &aux);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&aux);
    }
}
