//! One-pass UPDATE and DELETE (`src/sql/codegen/onepass.rs`): the cases
//! that are safe compile without a temporary table of rowids, the others
//! keep the two passes (their results are checked against SQLite by
//! `compat-tests/scripts/update_delete_onepass.test`).
use crate::sql_common;
use sql_common::{ours_open, run_ours, Outcome, V};

const SETUP: &str = "CREATE TABLE z2(a INTEGER, b INTEGER, c TEXT, d INT);
CREATE UNIQUE INDEX z2b ON z2(b); CREATE INDEX z2c ON z2(c);
CREATE TABLE tr(x INTEGER PRIMARY KEY, y INT); CREATE TABLE tlog(v);
CREATE TRIGGER tr_u AFTER UPDATE ON tr BEGIN INSERT INTO tlog VALUES(new.y); END;
CREATE TABLE wr(k TEXT PRIMARY KEY, v INT) WITHOUT ROWID;
CREATE TABLE pi(x INTEGER PRIMARY KEY, y INT, z INT); CREATE INDEX pi_y ON pi(y) WHERE z>0;";

/// The opcodes of `sql`'s program.
fn opcodes(ours: &mut ringlite::Connection, sql: &str) -> Vec<String> {
    match run_ours(ours, &format!("EXPLAIN {sql}")).last() {
        Some(Outcome::Rows { rows, .. }) => rows
            .iter()
            .filter_map(|r| match r.get(1) {
                Some(V::Text(t)) => Some(String::from_utf8_lossy(t).into_owned()),
                _ => None,
            })
            .collect(),
        other => panic!("EXPLAIN {sql}: {other:?}"),
    }
}

#[test]
fn safe_statements_run_in_one_pass() {
    let mut ours = ours_open();
    run_ours(&mut ours, SETUP);
    for sql in [
        "UPDATE z2 SET d=b*2 WHERE b BETWEEN ?1 AND ?2",
        "UPDATE z2 SET d=d+1 WHERE rowid=?",
        "UPDATE z2 SET d=b*4",
        "UPDATE z2 SET a=a+1, d=0 WHERE c='x'",
        "DELETE FROM z2 WHERE b BETWEEN ?1 AND ?2",
        "DELETE FROM z2 WHERE rowid=?",
        "DELETE FROM z2 WHERE b=1 OR c='y'",
        "DELETE FROM pi WHERE y>3 AND z>0",
    ] {
        let ops = opcodes(&mut ours, sql);
        // (One pass: the WHERE loop is a coroutine, or there is none and
        // nothing is collected; a MULTI-INDEX OR loop's ephemeral index of
        // rows seen lives inside the coroutine.)
        let coroutine = ops.iter().any(|o| o == "Yield");
        assert!(coroutine || !ops.iter().any(|o| o == "OpenEphemeral"), "{sql} collects rowids: {ops:?}");
    }
}

#[test]
fn unsafe_statements_keep_two_passes() {
    let mut ours = ours_open();
    run_ours(&mut ours, SETUP);
    for sql in [
        // The assigned column is indexed, or is the rowid.
        "UPDATE z2 SET b=b+1 WHERE b>?",
        "UPDATE z2 SET rowid=rowid+1 WHERE d=1",
        // A subquery, or IN table, may read the target.
        "UPDATE z2 SET d=(SELECT max(d) FROM z2) WHERE b<5",
        "DELETE FROM z2 WHERE d > (SELECT avg(d) FROM z2)",
        "DELETE FROM z2 WHERE a IN tlog",
        // Triggers, OR REPLACE, RETURNING, WITHOUT ROWID, a partial index
        // whose condition reads the assigned column, a WITH clause.
        "UPDATE tr SET y=y+1 WHERE x>1",
        "UPDATE OR REPLACE z2 SET d=1 WHERE a=1",
        "UPDATE z2 SET d=1 WHERE a=1 RETURNING d",
        "DELETE FROM z2 WHERE a=1 RETURNING a",
        "UPDATE wr SET v=1 WHERE v>1",
        "UPDATE pi SET z=1 WHERE x>3",
        "WITH w(v) AS (SELECT 1) DELETE FROM z2 WHERE a=1",
    ] {
        let ops = opcodes(&mut ours, sql);
        assert!(ops.iter().any(|o| o == "OpenEphemeral"), "{sql} runs in one pass: {ops:?}");
    }
}

/// A one-pass write inside a transaction opens no statement savepoint
/// when nothing in it can fail half-way but as SQLite's statement without
/// a statement journal may (`Program::no_statement_savepoint`); one that
/// calls a function or checks a constraint keeps it, and a failure
/// half-way undoes only the statement, as in SQLite.
#[test]
fn statement_failing_half_way_undoes_only_itself() {
    let setup = "CREATE TABLE z2(a INTEGER, b INTEGER NOT NULL, c TEXT, d INT CHECK (d < 100));
        CREATE UNIQUE INDEX z2b ON z2(b); CREATE INDEX z2c ON z2(c);
        INSERT INTO z2 VALUES(1,10,'one',1),(2,20,'two',2),(3,30,'three',3),(4,40,'four',4),(5,50,'five',5);
        BEGIN;
        DELETE FROM z2 WHERE b BETWEEN 45 AND 60;";
    sql_common::check_each(
        setup,
        &[
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            // A function raising an error at the third row (integer
            // overflow: abs() of the smallest integer).
            "DELETE FROM z2 WHERE abs(a - 3 - 9223372036854775807 - 1) > 0",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            "UPDATE z2 SET d=d+1 WHERE abs(a - 3 - 9223372036854775807 - 1) > 0",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            // A NOT NULL and a CHECK constraint failing at the third row.
            "UPDATE z2 SET b=CASE WHEN a=3 THEN NULL ELSE b END, d=d+1",
            "UPDATE z2 SET d=CASE WHEN a=3 THEN 1000 ELSE d+1 END WHERE c>'a'",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            // Writes that cannot fail half-way, then undone by a user
            // savepoint and by the transaction's rollback.
            "SAVEPOINT s1",
            "DELETE FROM z2 WHERE b BETWEEN 15 AND 35",
            "UPDATE z2 SET d=d*7 WHERE c<'p'",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            "ROLLBACK TO s1",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            "DELETE FROM z2 WHERE c>'g'",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            "ROLLBACK",
            "SELECT a, b, c, d FROM z2 ORDER BY a",
            "PRAGMA integrity_check",
        ],
    );
}

/// Rows rewritten one by one at other sizes (longer, shorter, the same)
/// on small pages full of freeblocks and fragments, then deleted and
/// refilled: an UPDATE's new cell goes into a freeblock, the gap or the
/// repacked page in the same change as the old one's drop (`btree/insert.rs`),
/// a new row takes the first freeblock large enough as SQLite's does.
/// The rows, an index read and the integrity check are SQLite's.
#[test]
fn rows_rewritten_at_other_sizes_on_fragmented_pages() {
    let setup = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c TEXT); CREATE INDEX tb ON t(b);
        WITH RECURSIVE s(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM s WHERE i<600)
        INSERT INTO t SELECT i, i*7%1000, substr(hex(zeroblob(120)), 1, i*13%90) FROM s;
        DELETE FROM t WHERE a%3=0;";
    let mut queries: Vec<String> = Vec::new();
    for k in 0..12 {
        queries.push("BEGIN".into());
        queries.push(format!("UPDATE t SET c=substr(hex(zeroblob(120)), 1, (a*{}+{k})%110) WHERE a BETWEEN {} AND {}", 3 + k, k * 40, k * 40 + 150));
        queries.push(format!("UPDATE t SET b=b+1, c=c||'{}' WHERE a%7={}", "y".repeat(k * 3), k % 7));
        queries.push(format!("DELETE FROM t WHERE b BETWEEN {} AND {}", k * 70, k * 70 + 25));
        queries.push(format!(
            "INSERT OR REPLACE INTO t WITH RECURSIVE s(i) AS (VALUES({}) UNION ALL SELECT i+5 FROM s WHERE i<{}) SELECT i, i*11%1000, substr(hex(zeroblob(100)), 1, i%{}) FROM s",
            k * 13,
            k * 13 + 300,
            20 + k * 7
        ));
        queries.push(if k % 4 == 3 { "ROLLBACK".into() } else { "COMMIT".into() });
        queries.push("SELECT count(*), sum(length(c)), sum(b), group_concat(a || ':' || length(c)) FROM t".into());
        queries.push("SELECT group_concat(b) FROM t INDEXED BY tb WHERE b > 500".into());
        queries.push("PRAGMA integrity_check".into());
    }
    let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
    sql_common::check_each(setup, &refs);
}

/// A one-pass DELETE deletes through its WHERE loop's own cursors (the
/// table cursor the loop found the row with, the index cursor it scans:
/// `onepass_share_cursors`), and a cursor whose entry was cut out of its
/// leaf steps on from there (`Cursor::delete`). Loops of every shape
/// (index ranges ascending and over a DESC index, IN lists, OR over two
/// indexes, a partial and a NOCASE index, rowid ranges, full scans),
/// over rows small and overflowing, on small pages so that deletes
/// empty and merge leaves; the rows, index reads and the integrity check
/// are SQLite's.
#[test]
fn rows_deleted_through_the_loops_cursors() {
    let setup = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c TEXT, n TEXT, z INT);
        CREATE UNIQUE INDEX tb ON t(b); CREATE INDEX tc ON t(c DESC); CREATE INDEX tn ON t(n COLLATE NOCASE);
        CREATE INDEX tz ON t(z) WHERE z > 50;
        WITH RECURSIVE s(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM s WHERE i<900)
        INSERT INTO t SELECT i, i*7%1009, printf('%04d', i*13%997) || CASE WHEN i%17=0 THEN hex(zeroblob(400)) ELSE '' END,
          CASE i%3 WHEN 0 THEN 'Ab' WHEN 1 THEN 'aB' ELSE 'x' || i END, i%100 FROM s;";
    let mut queries: Vec<String> = Vec::new();
    for k in 0..8 {
        queries.push("BEGIN".into());
        queries.push(format!("DELETE FROM t WHERE b BETWEEN {} AND {}", k * 110, k * 110 + 60));
        queries.push(format!("DELETE FROM t WHERE c > '{:04}' AND c < '{:04}'", k * 120, k * 120 + 40));
        queries.push(format!("DELETE FROM t WHERE b IN ({}, {}, {}, {})", k * 3 + 900, k * 5 + 700, k + 1, k * 31));
        queries.push(format!("DELETE FROM t WHERE b < {} OR c LIKE '{}%'", k * 9 + 5, k + 1));
        queries.push(format!("DELETE FROM t WHERE n = 'AB' AND a % 8 = {k}"));
        queries.push(format!("DELETE FROM t WHERE z > 50 AND z < {}", 55 + k));
        queries.push(format!("DELETE FROM t WHERE a BETWEEN {} AND {}", k * 100 + 20, k * 100 + 45));
        queries.push(format!("DELETE FROM t WHERE a % 11 = {k}"));
        queries.push(if k % 3 == 2 { "ROLLBACK".into() } else { "COMMIT".into() });
        queries.push("SELECT count(*), sum(b), sum(length(c)), sum(z) FROM t".into());
        queries.push("SELECT group_concat(b) FROM t INDEXED BY tb WHERE b > 400".into());
        queries.push("SELECT group_concat(a) FROM t INDEXED BY tc WHERE c > '0500'".into());
        queries.push("SELECT group_concat(a) FROM t INDEXED BY tz WHERE z > 50".into());
        queries.push("PRAGMA integrity_check".into());
    }
    let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
    sql_common::check_each(setup, &refs);
}

/// The WHERE loop of a one-pass UPDATE or DELETE whose terms an index
/// search holds reads the index alone: the table row is looked up once,
/// by the statement's own seek, not first by the loop too (SQLite defers
/// it the same way, `DeferredSeek`). The plan is still shown as SQLite
/// shows a DML loop (no covering index), and the rows, the changes, the
/// index reads and the integrity check are SQLite's, for statements that
/// then read the same columns, on a DESC and a NOCASE index, with an
/// equality and a range on a two-column index, and where the WHERE reads
/// a column the index lacks (the row is read in the loop then).
#[test]
fn index_searches_defer_the_row_lookup() {
    let mut ours = ours_open();
    run_ours(&mut ours, SETUP);
    let ops = opcodes(&mut ours, "UPDATE z2 SET d=b*2 WHERE b BETWEEN ?1 AND ?2");
    assert!(!ops.iter().any(|o| o == "SeekRowid"), "the loop looks the row up: {ops:?}");
    let ops = opcodes(&mut ours, "DELETE FROM z2 WHERE b BETWEEN ?1 AND ?2");
    assert!(!ops.iter().any(|o| o == "SeekRowid"), "the loop looks the row up: {ops:?}");
    let setup = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c TEXT, n TEXT, d INT, e INT);
        CREATE INDEX tb ON t(b); CREATE INDEX tc ON t(c DESC); CREATE INDEX tn ON t(n COLLATE NOCASE); CREATE INDEX tbd ON t(d, b);
        WITH RECURSIVE s(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM s WHERE i<700)
        INSERT INTO t SELECT i, i*7%503, printf('%04d', i*13%997), CASE i%3 WHEN 0 THEN 'Ab' WHEN 1 THEN 'aB' ELSE 'x' || i END, i%10, i FROM s;";
    sql_common::check_plans(
        setup,
        &[
            "UPDATE t SET e=b*2 WHERE b BETWEEN 5 AND 9",
            "UPDATE t SET e=e+length(c) WHERE c > '0100' AND c < '0200'",
            "DELETE FROM t WHERE c > '0100' AND c < '0200'",
            "DELETE FROM t WHERE d = 3 AND b > 100",
        ],
    );
    let mut queries: Vec<String> = Vec::new();
    for k in 0..6 {
        queries.push("BEGIN".into());
        queries.push(format!("UPDATE t SET e=b*2+length(c)+{k} WHERE b BETWEEN {} AND {}", k * 80, k * 80 + 30));
        queries.push("SELECT changes()".into());
        queries.push(format!("UPDATE t SET e=e+length(c) WHERE c > '{:04}' AND c < '{:04}'", k * 150, k * 150 + 60));
        queries.push(format!("UPDATE t SET e=b*3, d=d WHERE n = 'ab' AND b < {}", k * 90));
        queries.push(format!("UPDATE t SET c=c||'z' WHERE c > '{:04}' AND c < '{:04}'", k * 150 + 61, k * 150 + 99));
        queries.push(format!("DELETE FROM t WHERE b BETWEEN {} AND {}", k * 80 + 31, k * 80 + 45));
        queries.push("SELECT changes()".into());
        queries.push(format!("DELETE FROM t WHERE n = 'AB' COLLATE NOCASE AND a % 5 = {k}"));
        queries.push(format!("DELETE FROM t WHERE d = {} AND b > {}", k + 2, k * 60));
        queries.push(format!("UPDATE t SET a=a WHERE c < '{:04}' AND b > 0", k * 40));
        queries.push(if k % 3 == 2 { "ROLLBACK".into() } else { "COMMIT".into() });
        queries.push("SELECT count(*), sum(b), sum(length(c)), sum(d), sum(e), group_concat(n) FROM t".into());
        queries.push("SELECT group_concat(a) FROM t INDEXED BY tc WHERE c > '0500'".into());
        queries.push("SELECT group_concat(a) FROM t INDEXED BY tbd WHERE d > 5".into());
        queries.push("PRAGMA integrity_check".into());
    }
    let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
    sql_common::check_each(setup, &refs);
}
