//! The full sequence of authorizer calls of queries, differentially
//! against SQLite 3.54.1: every call's action code and four strings, in
//! order, for joins (USING, NATURAL, LEFT), subqueries in the result list,
//! WHERE and FROM, CTEs (recursive and materialized), compound SELECTs,
//! views, triggers, INSERT ... SELECT, UPDATE ... FROM, aggregates, window
//! functions, `json_each`/`json_tree` and the PRAGMA table-valued
//! functions; then SQLITE_IGNORE (the column reads NULL, in an aggregate
//! too) and SQLITE_DENY answers. The statements' results are compared too.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::connection::Hook;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Arc, Mutex};

/// The reference's log and the (code, table or column, answer) rule.
static REF_LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
static RULE: Mutex<Option<(i32, String, i32)>> = Mutex::new(None);

fn line(code: i32, a: Option<&str>, b: Option<&str>, d: Option<&str>, t: Option<&str>) -> String {
    format!("{code} {} {} {} {}", a.unwrap_or("-"), b.unwrap_or("-"), d.unwrap_or("-"), t.unwrap_or("-"))
}

fn answer(code: i32, a: Option<&str>, b: Option<&str>) -> i32 {
    match RULE.lock().unwrap().as_ref() {
        Some((c, name, answer)) if *c == code && (a == Some(name.as_str()) || b == Some(name.as_str())) => *answer,
        _ => 0,
    }
}

unsafe extern "C" fn ref_auth(_: *mut c_void, code: c_int, a: *const c_char, b: *const c_char, d: *const c_char, t: *const c_char) -> c_int {
    // SAFETY: SQLite passes NUL-terminated strings or null pointers.
    let s = |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned());
    let (a, b, d, t) = (s(a), s(b), s(d), s(t));
    REF_LOG.lock().unwrap().push(line(code, a.as_deref(), b.as_deref(), d.as_deref(), t.as_deref()));
    answer(code, a.as_deref(), b.as_deref())
}

const SETUP: &str = "CREATE TABLE t1(a INTEGER PRIMARY KEY, b, c);
    CREATE TABLE t2(a, d, e);
    CREATE INDEX t2d ON t2(d);
    CREATE TABLE t3(x, y);
    CREATE TABLE log(m);
    CREATE TABLE j(doc);
    CREATE VIEW v1 AS SELECT a, b FROM t1 WHERE c > 0;
    CREATE TRIGGER tr1 AFTER INSERT ON t3 BEGIN INSERT INTO log SELECT new.x || b FROM t1 WHERE a = new.y; END;
    INSERT INTO t1 VALUES (1, 'x1', 5), (2, 'y2', 6), (3, 'x3', NULL);
    INSERT INTO t2 VALUES (1, 10, 100), (2, 20, -1), (4, 40, 400);
    INSERT INTO t3 VALUES (1, 1), (40, 2);
    INSERT INTO j VALUES ('[1,2]'), ('{\"k\":3}')";

const IGNORE: i32 = ffi::SQLITE_IGNORE;
const DENY: i32 = ffi::SQLITE_DENY;
const READ: i32 = ffi::SQLITE_READ;

/// (statement, rule: action code, table or column name, answer)
const STEPS: &[(&str, Option<(i32, &str, i32)>)] = &[
    ("SELECT a, b FROM t1", None),
    ("SELECT * FROM t1, t2 WHERE t1.a = t2.a", None),
    ("SELECT * FROM t1 JOIN t2 USING (a)", None),
    ("SELECT b, d FROM t1 JOIN t2 USING (a) WHERE a > 1", None),
    ("SELECT * FROM t1 NATURAL JOIN t2", None),
    ("SELECT t1.b FROM t1 JOIN t2 ON t2.d = t1.b JOIN t2 AS t4 USING (a)", None),
    ("SELECT count(*) FROM t2 JOIN t3 ON t3.x = 1 JOIN t2 AS t5 USING (d)", None),
    ("SELECT t1.b FROM t1 LEFT JOIN t2 ON t1.a = t2.a", None),
    ("SELECT count(*) FROM t1", None),
    ("SELECT count(*) FROM t1, t2", None),
    ("SELECT t1.* FROM t1, t2", None),
    ("SELECT 1", None),
    ("SELECT rowid, _rowid_ FROM t2", None),
    ("SELECT * FROM t1 AS p, t1 AS q WHERE p.a = q.b", None),
    ("SELECT 1 FROM t1 WHERE EXISTS (SELECT 1 FROM t2)", None),
    ("SELECT b, (SELECT max(d) FROM t2 WHERE t2.a = t1.a) FROM t1", None),
    ("SELECT (SELECT count(*) FROM t2), b FROM t1", None),
    ("SELECT b FROM t1 WHERE a IN (SELECT a FROM t2 WHERE e > 0) AND c < 5", None),
    ("SELECT b FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a) ORDER BY c", None),
    ("SELECT a FROM t1 WHERE a = (SELECT a FROM t2 WHERE d = (SELECT x FROM t3 WHERE y = 9))", None),
    ("SELECT * FROM t1 WHERE a IN (SELECT a FROM t2 UNION SELECT x FROM t3)", None),
    ("SELECT s.b FROM (SELECT b, c FROM t1 WHERE a > 0) AS s WHERE s.c IS NOT NULL", None),
    ("SELECT * FROM (SELECT a, count(*) AS n FROM t2 GROUP BY a) AS s JOIN t1 USING (a)", None),
    ("SELECT * FROM (SELECT DISTINCT b FROM t1) ORDER BY 1", None),
    ("WITH c AS (SELECT a, b FROM t1) SELECT b FROM c WHERE a > 1", None),
    ("WITH c AS MATERIALIZED (SELECT a, b FROM t1) SELECT x.b, y.a FROM c AS x, c AS y", None),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", None),
    ("SELECT a FROM t1 UNION SELECT a FROM t2", None),
    ("SELECT a, b FROM t1 UNION ALL SELECT d, e FROM t2 ORDER BY 1", None),
    ("SELECT a FROM t1 INTERSECT SELECT a FROM t2 EXCEPT SELECT x FROM t3", None),
    ("SELECT * FROM v1", None),
    ("SELECT count(*) FROM v1", None),
    ("SELECT v1.b, t2.d FROM v1 JOIN t2 ON v1.a = t2.a", None),
    ("SELECT b, sum(c) FROM t1 GROUP BY b HAVING count(*) > 0", None),
    ("SELECT max(a), min(b) FROM t1", None),
    ("SELECT b, row_number() OVER (ORDER BY c) FROM t1", None),
    ("SELECT sum(a) OVER (PARTITION BY b) FROM t1", None),
    ("SELECT b FROM t1 WHERE b LIKE 'x%' ORDER BY upper(b)", None),
    ("SELECT key, value FROM json_each('[1,2]')", None),
    ("SELECT j.doc, e.value FROM j, json_each(j.doc) AS e", None),
    ("SELECT fullkey FROM json_tree('{\"a\":[1]}') WHERE type = 'integer'", None),
    ("SELECT count(*) FROM json_each('[1,2,3]')", None),
    ("SELECT name FROM pragma_table_info('t1')", None),
    ("SELECT count(*) FROM pragma_table_info('t1')", None),
    ("SELECT * FROM pragma_index_list('t2')", None),
    ("INSERT INTO t3 SELECT a, b FROM t1", None),
    ("INSERT INTO t3(x, y) VALUES (7, 2)", None),
    ("UPDATE t1 SET c = t2.e FROM t2 WHERE t1.a = t2.a", None),
    ("UPDATE t1 SET b = (SELECT max(d) FROM t2) WHERE a = 1", None),
    ("UPDATE main.t1 SET b = t3.y FROM t3 WHERE t3.x = t1.a", None),
    ("UPDATE t1 SET c = c + 1, b = upper(b) WHERE c IN (SELECT e FROM t2)", None),
    ("DELETE FROM t3 WHERE EXISTS (SELECT 1 FROM t1 WHERE t1.a = t3.y)", None),
    ("SELECT count(*) FROM main.t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE d > 0)", None),
    ("SELECT b, (SELECT group_concat(x) FROM t3 WHERE y = t1.a) AS g FROM t1 ORDER BY g", None),
    ("DELETE FROM t2 WHERE a NOT IN (SELECT a FROM t1)", None),
    // SQLITE_IGNORE: the column reads NULL, inside an aggregate too.
    ("SELECT sum(c), max(b), count(c) FROM t1", Some((READ, "c", IGNORE))),
    ("SELECT b, group_concat(c) FROM t1 GROUP BY b ORDER BY b", Some((READ, "c", IGNORE))),
    ("SELECT b FROM t1 GROUP BY c ORDER BY b", Some((READ, "c", IGNORE))),
    ("SELECT a FROM t1 WHERE a IN (SELECT a FROM t2 WHERE d > 0) ORDER BY a", Some((READ, "d", IGNORE))),
    ("SELECT count(*) FROM t1", Some((READ, "t1", IGNORE))),
    ("SELECT a, d FROM t1 JOIN t2 USING (a) ORDER BY d", Some((READ, "a", IGNORE))),
    // SQLITE_DENY.
    ("SELECT b FROM t1 WHERE a IN (SELECT a FROM t2 WHERE d > 0)", Some((READ, "d", DENY))),
    ("SELECT count(*) FROM t1", Some((READ, "t1", DENY))),
    ("SELECT * FROM (SELECT a FROM t1)", Some((ffi::SQLITE_SELECT, "-", DENY))),
];

#[test]
fn query_authorizer_sequences() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    let log: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    ours.set_hook(Hook::Authorizer(Some(Box::new(move |code, a, b, d, t| {
        l.lock().unwrap().push(line(code, a, b, d, t));
        answer(code, a, b)
    }))));
    // SAFETY: the connection is open and the callback takes no context.
    unsafe { ffi::sqlite3_set_authorizer(reference.0, Some(ref_auth), std::ptr::null_mut()) };
    let mut differ = Vec::new();
    for (sql, rule) in STEPS {
        *RULE.lock().unwrap() = rule.map(|(c, s, a)| (c, s.to_string(), a));
        log.lock().unwrap().clear();
        REF_LOG.lock().unwrap().clear();
        let a = run_ours(&mut ours, sql);
        let b = run_ref(&reference, sql);
        let (ours_log, ref_log) = (log.lock().unwrap().clone(), REF_LOG.lock().unwrap().clone());
        if a != b || ours_log != ref_log {
            differ.push(format!("SQL: {sql} {rule:?}\n  ours: {a:?}\n  ref:  {b:?}\n  ours: {ours_log:#?}\n  ref:  {ref_log:#?}"));
        }
    }
    *RULE.lock().unwrap() = None;
    assert!(differ.is_empty(), "{} of {} differ:\n{}", differ.len(), STEPS.len(), differ.join("\n"));
}

/// `PRAGMA module_list` names the eponymous modules of the PRAGMA
/// table-valued functions as SQLite does: once a statement has named one.
/// (Not json_each and json_tree, which SQLite lists once used too.)
#[test]
fn module_list_names_pragma_modules() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let q = "SELECT name FROM pragma_module_list WHERE name LIKE 'pragma\\_%' ESCAPE '\\' ORDER BY name";
    assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q));
    // (Each PRAGMA table is listed once a statement has named it.)
    let uses = "CREATE TABLE t(a); SELECT count(*) FROM pragma_table_info('t'); SELECT * FROM pragma_index_list('t'); SELECT count(*) FROM json_each('[1]')";
    assert_eq!(run_ours(&mut ours, uses), run_ref(&reference, uses));
    assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q));
}
