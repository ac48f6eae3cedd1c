//! Column names of prepared statements (sqlite3_column_name, Python's
//! cursor.description) over FROM subqueries, CTEs, views, compounds and
//! joins, differentially against SQLite: a FROM subquery or CTE names its
//! columns as written, a view by its columns' declared names.
use crate::sql_common;
use sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb, V};

const SETUP: &str = "
CREATE TABLE tabc(a, b, c);
INSERT INTO tabc VALUES(1, 2, 3);
CREATE TABLE t2(a INTEGER PRIMARY KEY, \"Mixed Case\" TEXT, d);
INSERT INTO t2 VALUES(1, 'x', 4);
CREATE VIEW v1 AS SELECT A, tabc.B, \"c\" FROM tabc;
CREATE VIEW v2(x, y) AS SELECT a, b FROM tabc;
CREATE VIEW v3 AS SELECT a+1, \"zz\", true, rowid FROM tabc;
CREATE VIEW v4 AS SELECT * FROM (SELECT A, \"c\", B AS bb, a FROM tabc);
CREATE VIEW v5 AS WITH w AS (SELECT A, tabc.C FROM tabc) SELECT * FROM w;
CREATE VIEW v6 AS SELECT * FROM (SELECT a  +  1, \"zz\", false FROM tabc);
CREATE VIEW v7 AS SELECT * FROM v6;
CREATE TABLE tt(t TEXT);
INSERT INTO tt VALUES('2');
CREATE VIEW v8 AS SELECT x, y COLLATE nocase, (x), s.z FROM (SELECT a+1 AS x, b AS y, 'q' AS z FROM tabc) AS s;
CREATE VIEW v9 AS WITH w AS (SELECT a*2 AS m, c FROM tabc) SELECT * FROM w;
";

const QUERIES: &[&str] = &[
    // The cases of issue #3.
    "SELECT * FROM (SELECT A, tabc.B, \"c\" FROM tabc)",
    "SELECT * FROM (SELECT a+1, \"zz\", 'lit', x'01', abs(a) FROM tabc)",
    "SELECT * FROM (SELECT true, false, rowid, _rowid_ FROM tabc)",
    "WITH w AS (SELECT A, a FROM tabc) SELECT * FROM w",
    "SELECT * FROM (SELECT a, \"a:1\", a FROM tabc)",
    "SELECT * FROM (SELECT a, a AS \"a:1\", \"A\" FROM tabc)",
    "CREATE VIEW vq AS SELECT a AS 'xyz', b+c AS 'pqr', c-b FROM tabc; SELECT * FROM vq",
    "CREATE VIEW vr AS SELECT a, b FROM tabc; SELECT * FROM vr; DROP VIEW vr; CREATE VIEW vr AS SELECT a AS 'xyz', b+c AS 'pqr', c-b FROM tabc; SELECT * FROM vr",
    "SELECT * FROM (SELECT a AS 'xyz', b+c AS 'pqr', c-b FROM tabc)",
    "SELECT a AS 'xyz', b+c AS 'pqr', c-b FROM tabc",
    // Views keep their declared names.
    "SELECT * FROM v1",
    "SELECT * FROM v2",
    "SELECT * FROM v3",
    "SELECT * FROM v4",
    "SELECT * FROM v5",
    "SELECT * FROM v6",
    "SELECT A FROM v1",
    "SELECT * FROM (SELECT A, b FROM v1)",
    // Names of references into a subquery.
    "SELECT a, b FROM (SELECT A, tabc.B FROM tabc)",
    "SELECT x.* FROM (SELECT A AS Q, b FROM tabc) AS x",
    "SELECT * FROM (SELECT main.tabc.C, tabc.a FROM tabc)",
    "SELECT * FROM (SELECT t.A, T.b FROM tabc AS t)",
    "SELECT * FROM (SELECT a FROM (SELECT A FROM tabc))",
    "SELECT * FROM (SELECT * FROM (SELECT A, B FROM tabc))",
    "SELECT \"Z\", * FROM (SELECT 1 AS z)",
    "SELECT (a), ((tabc.B)), (a)+1, (a) COLLATE nocase FROM tabc",
    "SELECT v2.x, (Y) FROM v2",
    // Expressions: as written, whatever the spacing and case.
    "SELECT * FROM (SELECT a   +   1, ABS( b ), a||b, -a, +b, NOT c FROM tabc)",
    "SELECT * FROM (SELECT A COLLATE nocase, likely(B), (c), ( a ) FROM tabc)",
    "SELECT * FROM (SELECT CAST(a AS TEXT), a IS NULL, NULL, 1.5e3, count(*) FROM tabc)",
    "SELECT * FROM (SELECT (SELECT A FROM tabc), EXISTS(SELECT 1), a IN (1, 2) FROM tabc)",
    "SELECT * FROM (SELECT a AS true, b AS FALSE, c AS \"x\" FROM tabc)",
    "SELECT * FROM (SELECT a AS \"x:5\", b AS \"x\", c AS x, a AS X FROM tabc)",
    "SELECT * FROM (SELECT DISTINCT A FROM tabc)",
    "SELECT * FROM (SELECT A, count(*) FROM tabc GROUP BY A)",
    // `*` and `t.*` inside the subquery, joins with USING.
    "SELECT * FROM (SELECT * FROM tabc)",
    "SELECT * FROM (SELECT tabc.*, * FROM tabc)",
    "SELECT * FROM (SELECT * FROM tabc JOIN t2 USING (a))",
    "SELECT * FROM tabc JOIN (SELECT A, D FROM t2) USING (a)",
    "SELECT * FROM tabc NATURAL JOIN (SELECT A, B FROM tabc)",
    "SELECT * FROM (SELECT a FROM tabc) JOIN (SELECT A FROM tabc) USING (A)",
    "SELECT tabc.a, x.* FROM tabc, (SELECT B, b FROM tabc) x",
    "SELECT * FROM (SELECT \"Mixed Case\", t2.a, ROWID, oid FROM t2)",
    // Compounds and VALUES: the first arm names the columns.
    "SELECT * FROM (SELECT A FROM tabc UNION SELECT d FROM t2)",
    "SELECT * FROM (SELECT 1 AS x UNION ALL SELECT A FROM tabc)",
    "SELECT * FROM (SELECT A, \"b\" FROM tabc UNION ALL SELECT 1, 2 ORDER BY 1)",
    "SELECT * FROM (VALUES(1, 2), (3, 4))",
    "SELECT * FROM (VALUES(1, 2))",
    // CTEs.
    "WITH w(p, Q) AS (SELECT a, b FROM tabc) SELECT * FROM w",
    "WITH w AS (SELECT A, \"b\", tabc.C, c+1 FROM tabc) SELECT * FROM (SELECT * FROM w)",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n<3) SELECT * FROM r",
    "WITH RECURSIVE r AS (SELECT 1 AS N UNION ALL SELECT N+1 FROM r WHERE N<3) SELECT * FROM r",
    "WITH w AS (SELECT A FROM tabc) SELECT a FROM w",
    // Names that show up as data: tables made from subqueries, views.
    "CREATE TABLE x1 AS SELECT * FROM (SELECT A, tabc.B, \"c\", true, a, \"a:1\" FROM tabc); SELECT name, type FROM pragma_table_info('x1')",
    "CREATE TABLE x2 AS WITH w AS (SELECT A, a FROM tabc) SELECT * FROM w; SELECT name FROM pragma_table_info('x2')",
    "CREATE TABLE x3 AS SELECT A, tabc.B, \"c\", true FROM tabc; SELECT name FROM pragma_table_info('x3')",
    "SELECT name, type FROM pragma_table_info('v1')",
    "SELECT name, type FROM pragma_table_info('v3')",
    "SELECT name, type FROM pragma_table_info('v4')",
    "SELECT name, type FROM pragma_table_info('v5')",
    "SELECT name, type FROM pragma_table_info('v6')",
    "SELECT name, type FROM pragma_table_info('v7')",
    "SELECT name, type FROM pragma_table_info('v8')",
    "SELECT name, type FROM pragma_table_info('v9')",
    // A subquery column without affinity compares as one.
    "SELECT t IN (SELECT x FROM (SELECT 1+1 AS x)), t IN (SELECT * FROM (SELECT 1+1)), t = x, x = t FROM tt, (SELECT 1+1 AS x)",
    "SELECT t IN (SELECT \"a  +  1\" - 1 FROM v6), t IN (SELECT \"a  +  1\" FROM v6), (SELECT zz FROM v7) = 'zz' FROM tt",
    "CREATE TABLE x4 AS SELECT * FROM v8; SELECT name, type FROM pragma_table_info('x4')",
    // Comments after an expression belong to its name; white space does not.
    "SELECT 1 /* c */ FROM tabc",
    "SELECT 1 -- x\n FROM tabc",
    "SELECT 1 /* c */ , 2 -- y\n",
    "SELECT a /*c*/, (b) /* d */ FROM tabc",
    "SELECT 1 /* c */ \n\t ",
    "SELECT (1) /* c */ ORDER BY 1",
    "SELECT 1 AS x /* c */",
    "SELECT * FROM (SELECT 1 /* c */ , a -- d\n FROM tabc)",
    "WITH w AS (SELECT b + 1 /* e */ FROM tabc) SELECT * FROM w",
    // Byte-order marks between tokens are white space; inside a string,
    // a comment or a name they are text.
    "\u{feff}SELECT 1",
    "SELECT \u{feff}1\u{feff}+\u{feff}2, \u{feff}a /* \u{feff} */ FROM \u{feff}tabc",
    "SELECT '\u{feff}x', length('\u{feff}') FROM tabc \u{feff}-- \u{feff}",
    "CREATE TABLE \u{feff}tb(\u{feff}x, y\u{feff}z); SELECT name FROM pragma_table_info('tb'); SELECT name FROM sqlite_schema WHERE name LIKE '%tb'",
    "SELECT 1.\u{feff}5",
];

/// The outcomes with text shown as text (failures are read by people).
fn shown(o: &[Outcome]) -> String {
    let value = |v: &V| match v {
        V::Text(t) => format!("'{}'", String::from_utf8_lossy(t)),
        v => format!("{v:?}"),
    };
    let parts: Vec<String> = o
        .iter()
        .map(|o| match o {
            Outcome::Rows { names, rows } => {
                let rows: Vec<String> = rows.iter().map(|r| r.iter().map(value).collect::<Vec<_>>().join(",")).collect();
                format!("names {names:?} rows [{}]", rows.join("; "))
            }
            e => format!("{e:?}"),
        })
        .collect();
    parts.join(" | ")
}

#[test]
fn column_names_match_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let a = run_ours(&mut ours, SETUP);
    let b = run_ref(&reference, SETUP);
    assert_eq!(a, b, "setup");
    let mut failures = Vec::new();
    for q in QUERIES {
        let a = run_ours(&mut ours, q);
        let b = run_ref(&reference, q);
        if a != b {
            failures.push(format!("SQL: {q}\n  ours: {}\n  ref:  {}", shown(&a), shown(&b)));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), QUERIES.len(), failures.join("\n"));
}

/// sqlite3_column_decltype of each column of `sql`, as SQLite gives it.
fn ref_decltypes(db: &RefDb, sql: &str) -> Vec<Option<String>> {
    use libsqlite3_sys as ffi;
    use std::ffi::{CStr, CString};
    let c = CString::new(sql).unwrap();
    let mut st = std::ptr::null_mut();
    // SAFETY: `db` is open; the statement is finalized before returning.
    unsafe {
        assert_eq!(ffi::sqlite3_prepare_v2(db.0, c.as_ptr(), -1, &mut st, std::ptr::null_mut()), 0, "{sql}");
        let n = ffi::sqlite3_column_count(st);
        let out = (0..n)
            .map(|i| {
                let p = ffi::sqlite3_column_decltype(st, i);
                (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
            })
            .collect();
        ffi::sqlite3_finalize(st);
        out
    }
}

#[test]
fn declared_types_match_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP), "setup");
    let queries = [
        "SELECT rowid, _rowid_, oid, a, b FROM tabc",
        "SELECT rowid, a, \"Mixed Case\" FROM t2",
        "SELECT (rowid), ((\"Mixed Case\")), (a) COLLATE nocase FROM t2",
        "SELECT * FROM (SELECT rowid, a, b AS bb FROM tabc)",
        "SELECT * FROM v1",
        "SELECT * FROM v3",
        "SELECT * FROM v6",
        "WITH w AS (SELECT rowid AS r, \"Mixed Case\" FROM t2) SELECT * FROM w",
    ];
    let mut failures = Vec::new();
    for q in queries {
        let (st, _) = ours.prepare(q.as_bytes()).unwrap();
        let st = st.unwrap();
        let a: Vec<Option<String>> = (0..st.column_count()).map(|i| st.column_decltype(i).map(str::to_string)).collect();
        let b = ref_decltypes(&reference, q);
        if a != b {
            failures.push(format!("SQL: {q}\n  ours: {a:?}\n  ref:  {b:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), queries.len(), failures.join("\n"));
}

/// Queries named under each setting of the legacy `PRAGMA
/// full_column_names` / `short_column_names` (SQLite still honours them):
/// a plain column reference becomes TABLE.COLUMN (the table's real name)
/// with full names, its source text with neither, `*` becomes
/// ALIAS.COLUMN with full names and short ones off; AS always wins.
const LEGACY_QUERIES: &[&str] = &[
    "SELECT * FROM tabc",
    "SELECT Tabc.a, tAbc.b, taBc.c, * FROM tabc",
    "SELECT +tabc.a, -tabc.b, tabc.c, * FROM tabc",
    "SELECT +tabc.a AS AAA, -tabc.b AS BBB, tabc.c CCC, * FROM tabc",
    "SELECT tabc.a, t2.a, * FROM tabc, t2",
    "SELECT tabc.*, t2.* FROM tabc, t2",
    "SELECT x.a, y.b, x.* FROM tabc AS x, tabc y",
    "SELECT a FROM tabc",
    "SELECT A, \"Mixed Case\", rowid, oid, _rowid_ FROM t2",
    "SELECT rowid, oid, ROWID FROM tabc",
    "SELECT tabc . a, main.tabc.b, (c), ((tabc.a)) FROM tabc",
    "SELECT 123.45, a+1, 'x' FROM tabc",
    "SELECT * FROM v1",
    "SELECT v1.a, * FROM v1",
    "SELECT x, y FROM v2",
    "SELECT q.x, * FROM v2 AS q",
    "SELECT * FROM (SELECT a, b FROM tabc)",
    "SELECT * FROM (SELECT a, b FROM tabc) AS s",
    "SELECT s.a, b FROM (SELECT a, b FROM tabc) AS s",
    "SELECT * FROM (SELECT * FROM tabc) AS s",
    "SELECT a FROM (SELECT * FROM tabc) AS s",
    "WITH w AS (SELECT a, b FROM tabc) SELECT * FROM w",
    "WITH w AS (SELECT a, b FROM tabc) SELECT w.a, q.b FROM w, w AS q",
    "WITH w AS (SELECT * FROM tabc) SELECT * FROM w",
    "SELECT a FROM tabc UNION SELECT d FROM t2",
    "SELECT tabc.a, count(*) FROM tabc GROUP BY a",
    "SELECT * FROM tabc JOIN t2 USING (a)",
    "SELECT * FROM tabc NATURAL JOIN t2",
    "SELECT a, (SELECT b FROM tabc) FROM tabc",
    "SELECT a FROM tabc WHERE a IN (SELECT a FROM tabc)",
    "CREATE TABLE lx AS SELECT tabc.a, * FROM tabc; SELECT name FROM pragma_table_info('lx'); DROP TABLE lx",
    "CREATE VIEW lv AS SELECT tabc.a, *, (SELECT 1) FROM tabc; SELECT * FROM lv; SELECT name FROM pragma_table_info('lv'); DROP VIEW lv",
    "CREATE TABLE lx AS SELECT * FROM (SELECT * FROM tabc); SELECT name FROM pragma_table_info('lx'); DROP TABLE lx",
    "INSERT INTO tabc SELECT * FROM tabc WHERE 0 RETURNING a, tabc.b, *",
    "PRAGMA full_column_names",
    "PRAGMA short_column_names",
];

#[test]
fn legacy_column_name_pragmas_match_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP), "setup");
    let mut failures = Vec::new();
    let mut count = 0;
    for (full, short) in [(0, 1), (1, 1), (0, 0), (1, 0), (0, 1)] {
        let set = format!("PRAGMA full_column_names={full}; PRAGMA short_column_names={short}");
        assert_eq!(run_ours(&mut ours, &set), run_ref(&reference, &set), "{set}");
        for q in LEGACY_QUERIES {
            count += 1;
            let a = run_ours(&mut ours, q);
            let b = run_ref(&reference, q);
            if a != b {
                failures.push(format!("{set}: {q}\n  ours: {}\n  ref:  {}", shown(&a), shown(&b)));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} differ:\n{}", failures.len(), failures.join("\n"));
}
