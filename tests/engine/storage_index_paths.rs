//! Index seeks and inserts against real SQLite: index pages searched by a
//! leading integer or text (`btree/index_probe.rs`) with the generic
//! compare only for the cells those cannot settle, an index key inserted
//! between two cells of the cursor's leaf without a descent
//! (`Btree::index_near_spot`), and `Found`/`NotFound`/`NoConflict`
//! answered by the search's own equal compare. REPLACE, INSERT OR IGNORE,
//! unique conflicts, deletes and the integrity check's index lookups run
//! on small pages (deep trees, many leaves) in UTF-8 and UTF-16 files;
//! every outcome is compared, then the tables in each index's order.
use crate::sql_common;
use sql_common::check_each;

/// The tables of speedtest1's REPLACE test, on `page_size` pages.
fn setup(page_size: u32, encoding: &str) -> String {
    format!(
        "PRAGMA page_size={page_size}; PRAGMA encoding='{encoding}';
CREATE TABLE z1(a INTEGER, b INTEGER, c TEXT);
CREATE TABLE z2(a INTEGER, b INTEGER, c TEXT);
CREATE TABLE t3(a INTEGER, b INTEGER, c TEXT);
CREATE UNIQUE INDEX t2b ON z2(b);
CREATE INDEX t2c ON z2(c DESC);
CREATE INDEX t3bc ON t3(b, c);
CREATE TABLE n(x INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1500)
  INSERT INTO n SELECT i, printf('%d %s %s', i % 97, char(97 + i % 26), hex(i * 7919)) FROM k;
INSERT INTO z1 SELECT x, (x * 7919) % 2003, name FROM n;
INSERT INTO z2 SELECT * FROM z1 WHERE a % 3 <> 0;
INSERT INTO t3 SELECT * FROM z1 WHERE a % 2 = 0;"
    )
}

const QUERIES: &[&str] = &[
    "REPLACE INTO z2(a, b, c) SELECT a, b, c FROM z1",
    "REPLACE INTO t3(a, b, c) SELECT a, b, c FROM z1",
    "SELECT count(*), sum(a), sum(b) FROM z2",
    "SELECT b, rowid FROM z2 ORDER BY b",
    "SELECT c, rowid FROM z2 ORDER BY c DESC",
    "SELECT b, c, rowid FROM t3 ORDER BY b, c",
    "DELETE FROM z2 WHERE b BETWEEN 100 AND 400",
    "REPLACE INTO z2(a, b, c) SELECT a + 1, b, c || 'x' FROM z1 WHERE b % 5 = 0",
    "INSERT OR IGNORE INTO z2(a, b, c) SELECT a, b, c FROM z1",
    "INSERT INTO z2(a, b, c) SELECT a, b, c FROM z1 WHERE b = 17",
    "SELECT c, rowid FROM z2 ORDER BY c DESC",
    "SELECT count(*) FROM z1 WHERE b IN (SELECT b FROM z2)",
    "SELECT count(*) FROM z1 WHERE c NOT IN (SELECT c FROM z2)",
    "SELECT count(*) FROM z1 WHERE EXISTS (SELECT 1 FROM t3 WHERE t3.b = z1.b AND t3.c = z1.c)",
    "PRAGMA integrity_check",
    "UPDATE z2 SET c = substr(c, 1, 3) WHERE a % 4 = 1",
    "REPLACE INTO z2(a, b, c) SELECT a, b, c FROM z1 WHERE a % 4 = 1",
    "SELECT b, c, rowid FROM z2 ORDER BY b",
    "SELECT c, rowid FROM z2 ORDER BY c DESC",
    "PRAGMA integrity_check",
];

#[test]
fn index_writes_and_lookups_match_sqlite_on_small_pages() {
    check_each(&setup(512, "UTF-8"), QUERIES);
}

#[test]
fn index_writes_and_lookups_match_sqlite_in_utf16() {
    check_each(&setup(1024, "UTF-16le"), QUERIES);
}

#[test]
fn index_writes_and_lookups_match_sqlite_on_default_pages() {
    check_each(&setup(4096, "UTF-8"), QUERIES);
}

/// Deletes of index entries that sit on interior pages: the entry's
/// predecessor moves up from its leaf, both pages repacked where they are
/// (`Btree::delete_interior_packed`), or, when the interior page would
/// not hold the longer cell, balanced. Small and default pages, keys long
/// enough to overflow the index pages, auto-vacuum (pointer-map entries of
/// the moved chains); checked against SQLite after each step, with the
/// integrity check.
#[test]
fn interior_index_deletes_match_sqlite() {
    for (page_size, vacuum) in [(512, "NONE"), (1024, "FULL"), (4096, "NONE")] {
        let setup = format!(
            "PRAGMA page_size={page_size}; PRAGMA auto_vacuum={vacuum};
CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
CREATE INDEX tb ON t(b);
CREATE INDEX tc ON t(c);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
  INSERT INTO t SELECT i, (i * 7919) % 3001,
    CASE WHEN i % 40 = 0 THEN substr(replace(hex(zeroblob(700)), '0', 'x'), 1, 200 + i % 1100) || i ELSE hex(i * 31) END FROM k;"
        );
        check_each(
            &setup,
            &[
                "DELETE FROM t WHERE b % 7 = 3",
                "PRAGMA integrity_check",
                "DELETE FROM t WHERE a % 5 = 1",
                "SELECT count(*), sum(b), sum(length(c)) FROM t",
                "SELECT b, a FROM t ORDER BY b",
                "SELECT c, a FROM t ORDER BY c",
                "DELETE FROM t WHERE b BETWEEN 500 AND 1500",
                "PRAGMA integrity_check",
                "DELETE FROM t WHERE c > '5'",
                "DELETE FROM t WHERE a % 2 = 0",
                "PRAGMA integrity_check",
                "SELECT count(*), sum(b) FROM t",
                "SELECT c, a FROM t ORDER BY c",
            ],
        );
    }
}

/// `IdxRowid` reads the rowid from the end of an index key (the header's
/// last serial type and the key's last bytes): rowids of every integer
/// size and sign, 0 and 1 (serial types 8 and 9), keys with NULL, text
/// and long headers, through covering-index scans and lookups.
#[test]
fn index_rowids_of_every_size_match_sqlite() {
    let mut rows = Vec::new();
    for (i, r) in [0i64, 1, -1, 2, 127, 128, -128, -129, 32767, -32769, 8_388_608, -8_388_609, 1 << 31, -(1 << 40), 1 << 47, -(1 << 48), i64::MAX, i64::MIN + 1]
        .iter()
        .enumerate()
    {
        rows.push(format!("({r}, {}, 'v{i}')", i % 5));
        rows.push(format!("({}, NULL, NULL)", r.wrapping_add(1000 + i as i64)));
    }
    let setup = format!(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
CREATE INDEX tb ON t(b);
CREATE INDEX tc ON t(c, b);
CREATE INDEX wide ON t(b, c, b + 1, c || 'x'{});
INSERT INTO t VALUES {};",
        ", b * 2, c".repeat(70),
        rows.join(", ")
    );
    check_each(
        &setup,
        &[
            "SELECT b, rowid FROM t INDEXED BY tb WHERE b >= 0 ORDER BY b, rowid",
            "SELECT c, rowid FROM t INDEXED BY tc WHERE c > '' ORDER BY c",
            "SELECT a FROM t INDEXED BY tb WHERE b IS NULL ORDER BY a",
            "SELECT rowid, c FROM t INDEXED BY wide WHERE b BETWEEN 1 AND 3 ORDER BY rowid",
            "SELECT count(*), sum(a) FROM t INDEXED BY tb WHERE b < 5",
            "DELETE FROM t WHERE b = 2",
            "SELECT b, rowid FROM t INDEXED BY tb WHERE b >= 0 ORDER BY b, rowid",
        ],
    );
}
