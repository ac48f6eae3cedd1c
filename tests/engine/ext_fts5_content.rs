//! FTS5 table kinds (`src/ext/fts5/config.rs`, `source.rs`, `check.rs`):
//! external content (`content=`, `content_rowid=`, the documented
//! trigger recipe, 'delete', 'delete-all', 'rebuild'), contentless
//! (`content=''`, `contentless_unindexed=1`), `columnsize=0` and
//! 'integrity-check'. The same statements on ours and the reference give
//! the same answers and errors, the shadow tables the same schema and
//! bytes, and files go both ways with the other side's check passing.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

fn open_ours(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open")
}

/// Reals to 12 significant digits (bm25 sums may differ in the last bit).
fn approx(o: Vec<Outcome>) -> Vec<Outcome> {
    o.into_iter()
        .map(|x| match x {
            Outcome::Rows { names, rows } => Outcome::Rows {
                names,
                rows: rows
                    .into_iter()
                    .map(|r| r.into_iter().map(|v| if let V::Real(b) = v { V::Text(format!("{:.12e}", f64::from_bits(b)).into_bytes()) } else { v }).collect())
                    .collect(),
            },
            e => e,
        })
        .collect()
}

/// Each statement on both sides, one at a time: same outcome.
fn same_steps(c: &mut Connection, r: &RefDb, steps: &[&str]) {
    for s in steps {
        assert_eq!(approx(run_ours(c, s)), approx(run_ref(r, s)), "{s}");
    }
}

fn shadow_rows(t: &str, content: bool, docsize: bool) -> String {
    let mut s = format!("SELECT id, hex(block) FROM {t}_data ORDER BY id; SELECT segid, hex(term), pgno FROM {t}_idx; SELECT * FROM {t}_config;");
    if content {
        s.push_str(&format!("SELECT * FROM {t}_content ORDER BY id;"));
    }
    if docsize {
        s.push_str(&format!("SELECT id, hex(sz) FROM {t}_docsize ORDER BY id;"));
    }
    s
}

fn ok() -> Option<Outcome> {
    Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] })
}

#[test]
fn table_kinds_make_the_reference_shadow_tables() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(&mut c, &r, &["CREATE TABLE tbl(a INTEGER PRIMARY KEY, b, c)"]);
    for decl in [
        "fts5(b, c, content='tbl', content_rowid='a')",
        "fts5(b, c, content=tbl)",
        "fts5(b, c, content='')",
        "fts5(b, c, columnsize=0)",
        "fts5(b, c, content='', columnsize=0)",
        "fts5(b, c, content=tbl, columnsize='0')",
        "fts5(b, c UNINDEXED, content='', contentless_unindexed=1)",
        "fts5(b, c, content='', contentless_unindexed=1)",
        "fts5(b, c, content='', contentless_delete=0)",
        "fts5(b, c, content_rowid=a)",
    ] {
        let sql = format!("CREATE VIRTUAL TABLE t USING {decl}; SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name;");
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{sql}");
        let rows = "SELECT id, hex(block) FROM t_data; SELECT * FROM t_config";
        assert_eq!(run_ours(&mut c, rows), run_ref(&r, rows), "{sql}");
        same_steps(&mut c, &r, &["DROP TABLE t", "SELECT name FROM sqlite_master"]);
    }
    for sql in [
        "CREATE VIRTUAL TABLE e1 USING fts5(b, columnsize=2)",
        "CREATE VIRTUAL TABLE e2 USING fts5(b, contentless_unindexed=1)",
        "CREATE VIRTUAL TABLE e3 USING fts5(b, contentless_delete=1)",
        "CREATE VIRTUAL TABLE e4 USING fts5(b, content=tbl, content=tbl)",
        "CREATE VIRTUAL TABLE e5 USING fts5(b, content=\"main\".\"tbl\")",
    ] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
    // (contentless_delete=1 itself: ext_fts5_contentless.rs.)
    let sql = "CREATE VIRTUAL TABLE e6 USING fts5(b, content='', contentless_delete=1); SELECT name, sql FROM sqlite_master WHERE name LIKE 'e6%'";
    assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
}

const RECIPE: &[&str] = &[
    "CREATE TABLE tbl(a INTEGER PRIMARY KEY, b, c)",
    "CREATE VIRTUAL TABLE fts_idx USING fts5(b, c, content='tbl', content_rowid='a')",
    "CREATE TRIGGER tbl_ai AFTER INSERT ON tbl BEGIN INSERT INTO fts_idx(rowid, b, c) VALUES (new.a, new.b, new.c); END",
    "CREATE TRIGGER tbl_ad AFTER DELETE ON tbl BEGIN INSERT INTO fts_idx(fts_idx, rowid, b, c) VALUES('delete', old.a, old.b, old.c); END",
    "CREATE TRIGGER tbl_au AFTER UPDATE ON tbl BEGIN INSERT INTO fts_idx(fts_idx, rowid, b, c) VALUES('delete', old.a, old.b, old.c); INSERT INTO fts_idx(rowid, b, c) VALUES (new.a, new.b, new.c); END",
    "INSERT INTO tbl(b, c) VALUES('the quick brown fox', 'jumps over the lazy dog')",
    "INSERT INTO tbl(b, c) VALUES('hello world', 'world hello world')",
    "BEGIN",
    "INSERT INTO tbl(a, b, c) VALUES(10, 'fox fox fox', 'dog')",
    "INSERT INTO tbl(a, b, c) VALUES(7, 'one two three', NULL)",
    "SELECT rowid, b FROM fts_idx('fox OR one') ORDER BY rowid",
    "UPDATE tbl SET c = 'changed hello' WHERE a = 10",
    "COMMIT",
    "DELETE FROM tbl WHERE a = 1",
    "UPDATE tbl SET b = 'Café Ünïcode' WHERE a = 2",
];

const RECIPE_QUERIES: &[&str] = &[
    "SELECT rowid, b, c FROM fts_idx ORDER BY rowid",
    "SELECT rowid, b, c FROM fts_idx ORDER BY rowid DESC",
    "SELECT rowid, b, c FROM fts_idx WHERE fts_idx MATCH 'hello' ORDER BY rank, rowid",
    "SELECT rowid, bm25(fts_idx), bm25(fts_idx, 2.0, 0.5) FROM fts_idx('fox OR hello OR cafe') ORDER BY rowid",
    "SELECT rowid, highlight(fts_idx, 0, '[', ']'), highlight(fts_idx, 1, '<', '>') FROM fts_idx('hello OR fox OR cafe')",
    "SELECT rowid FROM fts_idx WHERE c MATCH 'dog'",
    "SELECT rowid FROM fts_idx('quick')",
    "SELECT rowid FROM fts_idx('\"one two\"') WHERE rowid = 7",
    "INSERT INTO fts_idx(fts_idx) VALUES('integrity-check')",
    "INSERT INTO fts_idx(fts_idx, rank) VALUES('integrity-check', 1)",
];

#[test]
fn the_documented_trigger_recipe_works_end_to_end() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(&mut c, &r, RECIPE);
    same_steps(&mut c, &r, RECIPE_QUERIES);
    let sh = shadow_rows("fts_idx", false, true);
    // Sizes and averages are the same; SQLite cuts the transaction's
    // trigger writes into more segments (FORMAT.md), so the segments
    // are compared after 'rebuild'.
    let sizes = "SELECT id, hex(sz) FROM fts_idx_docsize ORDER BY id; SELECT hex(block) FROM fts_idx_data WHERE id = 1";
    assert_eq!(run_ours(&mut c, sizes), run_ref(&r, sizes));
    // 'rebuild' from the content table: one segment, the same bytes.
    same_steps(&mut c, &r, &["INSERT INTO fts_idx(fts_idx) VALUES('rebuild')"]);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
    same_steps(&mut c, &r, RECIPE_QUERIES);
    same_steps(&mut c, &r, &["INSERT INTO fts_idx(fts_idx) VALUES('delete-all')", "SELECT rowid FROM fts_idx('hello')", "SELECT count(*) FROM fts_idx"]);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
    same_steps(&mut c, &r, &["INSERT INTO fts_idx(fts_idx, rank) VALUES('integrity-check', 1)", "INSERT INTO fts_idx(fts_idx) VALUES('integrity-check')"]);
}

#[test]
fn external_content_out_of_step_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE TABLE tbl(a INTEGER PRIMARY KEY, b, c)",
            "INSERT INTO tbl VALUES(1, 'x y', 'z'), (2, 'p q', 'x')",
            "CREATE VIRTUAL TABLE f1 USING fts5(b, c, content='tbl', content_rowid='a')",
            "SELECT rowid, * FROM f1",
            "SELECT rowid, * FROM f1('x')",
            "INSERT INTO f1(f1) VALUES('integrity-check')",
            "INSERT INTO f1(f1, rank) VALUES('integrity-check', 1)",
            "INSERT INTO f1(f1) VALUES('rebuild')",
            "SELECT rowid, *, bm25(f1) FROM f1('x')",
            "INSERT INTO f1(f1, rank) VALUES('integrity-check', 1)",
            "INSERT INTO f1(b, c) VALUES('new row', 'x')",
            "SELECT rowid FROM f1('row')",
            "SELECT rowid, * FROM f1('row')",
            "INSERT INTO f1(f1, rank) VALUES('integrity-check', 1)",
            "DELETE FROM f1 WHERE rowid = 3",
            "DELETE FROM f1 WHERE rowid = 2",
            "UPDATE f1 SET b = 'k' WHERE rowid = 1",
            "SELECT * FROM tbl",
            "INSERT OR REPLACE INTO f1(rowid, b, c) VALUES(1, 'a', 'b')",
            "SELECT rowid FROM f1('a OR k OR x')",
            "INSERT INTO f1(f1, rank) VALUES('integrity-check', 1)",
        ],
    );
    let sh = shadow_rows("f1", false, true);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE f9 USING fts5(b, c)",
            "INSERT INTO f9(f9, rowid, b, c) VALUES('delete', 9, 'a', 'b')",
            "INSERT INTO f9(f9) VALUES('delete-all')",
            "INSERT INTO f9(f9, rank) VALUES('integrity-check', 5)",
            "CREATE VIRTUAL TABLE f7 USING fts5(b, c, content=nosuch)",
            "SELECT * FROM f7",
            "SELECT * FROM f7('x')",
        ],
    );
}

#[test]
fn contentless_tables_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE f2 USING fts5(b, c, content='')",
            "INSERT INTO f2(b, c) VALUES('x y', 'z')",
            "INSERT INTO f2(rowid, b, c) VALUES(5, 'x y', 'z')",
            "INSERT INTO f2(rowid, b, c) VALUES(7, 'x w', 'z z')",
            "INSERT OR REPLACE INTO f2(rowid, b, c) VALUES(7, 'q', 'q')",
            "SELECT rowid, * FROM f2",
            "SELECT rowid, b, c, bm25(f2) FROM f2('x')",
            "SELECT rowid, highlight(f2, 0, '[', ']') FROM f2('x')",
            "SELECT rowid, rank FROM f2('q')",
            "UPDATE f2 SET b = 'k' WHERE rowid = 5",
            "DELETE FROM f2 WHERE rowid = 5",
            "INSERT INTO f2(f2) VALUES('rebuild')",
            "INSERT INTO f2(f2) VALUES('integrity-check')",
            "INSERT INTO f2(f2, rowid, b, c) VALUES('delete', 5, 'x y', 'z')",
            "SELECT rowid FROM f2('x')",
            "INSERT INTO f2(f2, rank) VALUES('integrity-check', 1)",
        ],
    );
    let sh = shadow_rows("f2", false, true);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
    same_steps(
        &mut c,
        &r,
        &[
            "INSERT INTO f2(f2) VALUES('delete-all')",
            "SELECT count(*) FROM f2",
            "CREATE VIRTUAL TABLE f4 USING fts5(b, c, content='', columnsize=0)",
            "INSERT INTO f4(b, c) VALUES('x y', 'z')",
            "INSERT INTO f4(rowid, b, c) VALUES(3, 'x y', 'z')",
            "INSERT INTO f4(rowid, b, c) VALUES(4, 'x', 'z x y z')",
            "SELECT rowid FROM f4",
            "SELECT rowid, bm25(f4) FROM f4('x') ORDER BY rank",
            "SELECT rowid FROM f4 WHERE rowid = 3",
            "CREATE VIRTUAL TABLE f5 USING fts5(b, c UNINDEXED, content='', contentless_unindexed=1)",
            "INSERT INTO f5(rowid, b, c) VALUES(1, 'x y', 'kept'), (2, 'y', 'also')",
            "SELECT rowid, b, c FROM f5",
            "SELECT rowid, b, c FROM f5('y') ORDER BY rank",
            "INSERT INTO f5(f5, rowid, b, c) VALUES('delete', 1, 'x y', 'kept')",
            "SELECT rowid, b, c FROM f5",
        ],
    );
    let sh = shadow_rows("f2", false, true) + &shadow_rows("f4", false, false) + &shadow_rows("f5", true, true);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
}

#[test]
fn columnsize_zero_keeps_bm25() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE f3 USING fts5(b, c, columnsize=0)",
            "INSERT INTO f3 VALUES('the quick brown fox', 'jumps over the lazy dog')",
            "INSERT INTO f3 VALUES('fox fox', 'hello')",
            "INSERT INTO f3 VALUES('a b c d e f g', 'fox')",
            "UPDATE f3 SET c = 'dog dog' WHERE rowid = 2",
            "DELETE FROM f3 WHERE rowid = 1",
            "SELECT rowid, bm25(f3), bm25(f3, 1.0, 3.0) FROM f3('fox OR dog') ORDER BY rank",
            "INSERT INTO f3(f3) VALUES('integrity-check')",
            "INSERT INTO f3(f3) VALUES('rebuild')",
            "SELECT rowid, rank FROM f3('fox')",
        ],
    );
    let sh = shadow_rows("f3", true, false);
    assert_eq!(run_ours(&mut c, &sh), run_ref(&r, &sh));
}

#[test]
fn files_go_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let check = "INSERT INTO fts_idx(fts_idx, rank) VALUES('integrity-check', 1); PRAGMA integrity_check";
    // The reference writes; ours queries, writes through the triggers;
    // the reference checks.
    let p1 = dir.path().join("a.db");
    let p1 = p1.to_str().unwrap();
    let r = RefDb::open_path(p1);
    for s in RECIPE {
        run_ref(&r, s);
    }
    run_ref(&r, "CREATE VIRTUAL TABLE cl USING fts5(x, content=''); INSERT INTO cl(rowid, x) VALUES(1, 'alpha beta'), (2, 'beta gamma')");
    let mut c = open_ours(p1);
    let q = RECIPE_QUERIES.iter().filter(|q| !q.starts_with("INSERT")).copied().collect::<Vec<_>>();
    for s in &q {
        assert_eq!(approx(run_ours(&mut c, s)), approx(run_ref(&r, s)), "{s}");
    }
    let more = "INSERT INTO tbl(b, c) VALUES('ours wrote this', 'fox'); UPDATE tbl SET b = 'fox again' WHERE a = 7; DELETE FROM tbl WHERE a = 2;\
        INSERT INTO cl(rowid, x) VALUES(3, 'gamma delta'); INSERT INTO cl(cl, rowid, x) VALUES('delete', 1, 'alpha beta')";
    run_ours(&mut c, more);
    drop(c);
    assert_eq!(run_ref(&r, check).pop(), ok());
    assert_eq!(run_ref(&r, "INSERT INTO cl(cl) VALUES('integrity-check')").pop(), Some(Outcome::Rows { names: vec![], rows: vec![] }));
    let q2 = "SELECT rowid FROM fts_idx('fox'); SELECT rowid FROM cl('beta OR gamma')";
    let mut c = open_ours(p1);
    assert_eq!(run_ours(&mut c, q2), run_ref(&r, q2));
    // Ours writes; the reference checks, queries and writes; ours agrees.
    let p2 = dir.path().join("b.db");
    let p2 = p2.to_str().unwrap();
    let mut c = open_ours(p2);
    for s in RECIPE {
        run_ours(&mut c, s);
    }
    run_ours(&mut c, "CREATE VIRTUAL TABLE f3 USING fts5(b, columnsize=0); INSERT INTO f3 VALUES('one two'), ('two three')");
    drop(c);
    let r = RefDb::open_path(p2);
    assert_eq!(run_ref(&r, check).pop(), ok());
    assert_eq!(run_ref(&r, "INSERT INTO f3(f3) VALUES('integrity-check')").pop(), Some(Outcome::Rows { names: vec![], rows: vec![] }));
    run_ref(&r, "INSERT INTO tbl(b, c) VALUES('reference wrote', 'hello'); DELETE FROM tbl WHERE a = 10; INSERT INTO f3 VALUES('three four')");
    let mut c = open_ours(p2);
    for s in RECIPE_QUERIES.iter().chain(["SELECT rowid, rank FROM f3('two OR three')", "INSERT INTO f3(f3) VALUES('integrity-check')"].iter()) {
        assert_eq!(approx(run_ours(&mut c, s)), approx(run_ref(&r, s)), "{s}");
    }
}

#[test]
fn integrity_findings_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE t USING fts5(a)",
            "INSERT INTO t VALUES('hello world')",
            "PRAGMA integrity_check",
            "UPDATE t_content SET c0 = 'other words'",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "UPDATE t_content SET c0 = 'hello world'",
            "CREATE TABLE tbl(a INTEGER PRIMARY KEY, b)",
            "INSERT INTO tbl VALUES(1, 'x')",
            "CREATE VIRTUAL TABLE e USING fts5(b, content=tbl, content_rowid=a)",
            "CREATE VIRTUAL TABLE e2 USING fts5(b, content=tbl, content_rowid=a, columnsize=0)",
            "INSERT INTO e2(b) VALUES('x')",
            "PRAGMA integrity_check",
            "DELETE FROM t_docsize",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "INSERT INTO t_docsize VALUES(1, x'02')",
            "UPDATE t_data SET block = x'0203' WHERE id = 1",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "UPDATE t_data SET block = x'0102' WHERE id = 1",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('integrity-check')",
        ],
    );
}

#[test]
fn contentless_unindexed_without_sizes_scans_its_content() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE k USING fts5(a, b UNINDEXED, content='', contentless_unindexed=1, columnsize=0)",
            "INSERT INTO k(rowid, a, b) VALUES(5, 'x y', 'p'), (2, 'y', 'q')",
            "SELECT rowid, * FROM k",
            "SELECT rowid, * FROM k ORDER BY rowid DESC",
            "SELECT rowid, * FROM k WHERE rowid = 5",
            "SELECT rowid, * FROM k WHERE rowid > 2",
            "SELECT count(*) FROM k",
            "SELECT rowid, b FROM k('y') ORDER BY rowid",
            // Without UNINDEXED columns there is no %_content: no scan.
            "CREATE VIRTUAL TABLE k2 USING fts5(a, b, content='', contentless_unindexed=1, columnsize=0)",
            "INSERT INTO k2(rowid, a, b) VALUES(5, 'x y', 'p')",
            "SELECT rowid, * FROM k2",
            "SELECT rowid, * FROM k2 WHERE rowid = 5",
        ],
    );
}

/// An UPDATE that leaves columns out: FTS5 does not read them
/// (`sqlite3_vtab_nochange`) and takes them from the old row, for tables
/// with their own content, external content and `contentless_unindexed=1`;
/// a contentless-delete table accepts an UPDATE setting every indexed
/// column, some to NULL, and refuses one leaving an indexed column out.
#[test]
fn updates_leaving_columns_keep_the_old_values() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    same_steps(
        &mut c,
        &r,
        &[
            "CREATE VIRTUAL TABLE o USING fts5(a, b, u UNINDEXED)",
            "INSERT INTO o(rowid, a, b, u) VALUES (1, 'x y', 'z w', 'u1'), (2, 'p q', 'r s', 'u2')",
            "UPDATE o SET a = 'new words' WHERE rowid = 1",
            "UPDATE o SET u = 'u9', rowid = 5 WHERE rowid = 2",
            "SELECT rowid, * FROM o ORDER BY rowid",
            "SELECT rowid FROM o('z OR new OR r')",
            &shadow_rows("o", true, true),
            "INSERT INTO o(o) VALUES('integrity-check')",
            "CREATE TABLE src(id INTEGER PRIMARY KEY, a, b)",
            "INSERT INTO src VALUES (1, 'one two', 'three'), (2, 'four', 'five six')",
            "CREATE VIRTUAL TABLE e USING fts5(a, b, content=src, content_rowid=id)",
            "INSERT INTO e(e) VALUES('rebuild')",
            "UPDATE e SET b = 'three' WHERE rowid = 1",
            "SELECT rowid FROM e('three OR one')",
            &shadow_rows("e", false, true),
            "CREATE VIRTUAL TABLE cu USING fts5(a, b, u UNINDEXED, content='', contentless_unindexed=1, contentless_delete=1)",
            "INSERT INTO cu(rowid, a, b, u) VALUES (1, 'x', 'y', 'kept'), (2, 'p', 'q', 'also')",
            "UPDATE cu SET a = NULL, b = 'yy' WHERE rowid = 1",
            "UPDATE cu SET a = NULL, b = NULL WHERE rowid = 2",
            "UPDATE cu SET a = 'only' WHERE rowid = 1",
            "UPDATE cu SET u = 'changed' WHERE rowid = 1",
            "SELECT rowid, * FROM cu ORDER BY rowid",
            "SELECT rowid FROM cu('yy OR x OR p')",
            &shadow_rows("cu", true, true),
            "CREATE VIRTUAL TABLE cd USING fts5(a, b, content='', contentless_delete=1)",
            "INSERT INTO cd(rowid, a, b) VALUES (1, 'x', 'y')",
            "UPDATE cd SET a = NULL, b = 'n' WHERE rowid = 1",
            "UPDATE cd SET b = 'm' WHERE rowid = 1",
            "SELECT rowid FROM cd('n OR x OR y')",
            &shadow_rows("cd", false, true),
        ],
    );
}
