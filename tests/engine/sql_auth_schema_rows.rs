//! The authorizer calls of statements that write the schema table,
//! differentially against SQLite 3.54.1, every call compared (the schema
//! table's too): the checks of the statements SQLite runs to write a new
//! table's or view's row (an UPDATE of each column, then a read of the
//! rowid), an index's and a trigger's (an INSERT), and to delete rows and
//! free b-trees on DROP; a denial among them fails the statement.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::connection::Hook;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Arc, Mutex};

/// The reference's log and the (code, column) it denies.
static REF_LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
static DENY: Mutex<Option<(i32, String)>> = Mutex::new(None);

fn line(code: i32, a: Option<&str>, b: Option<&str>, d: Option<&str>, t: Option<&str>) -> String {
    format!("{code} {} {} {} {}", a.unwrap_or("-"), b.unwrap_or("-"), d.unwrap_or("-"), t.unwrap_or("-"))
}

fn denied(code: i32, b: Option<&str>) -> bool {
    DENY.lock().unwrap().as_ref().is_some_and(|(c, col)| *c == code && b == Some(col.as_str()))
}

unsafe extern "C" fn ref_auth(_: *mut c_void, code: c_int, a: *const c_char, b: *const c_char, d: *const c_char, t: *const c_char) -> c_int {
    let s = |p: *const c_char| (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned());
    let (a, b, d, t) = (s(a), s(b), s(d), s(t));
    REF_LOG.lock().unwrap().push(line(code, a.as_deref(), b.as_deref(), d.as_deref(), t.as_deref()));
    denied(code, b.as_deref()) as c_int
}

#[test]
fn schema_table_statements() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let log: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    ours.set_hook(Hook::Authorizer(Some(Box::new(move |code, a, b, d, t| {
        l.lock().unwrap().push(line(code, a, b, d, t));
        denied(code, b) as i32
    }))));
    unsafe { ffi::sqlite3_set_authorizer(reference.0, Some(ref_auth), std::ptr::null_mut()) };
    let steps: &[(&str, Option<(i32, &str)>)] = &[
        ("CREATE TABLE t1(a, b)", None),
        ("CREATE TABLE IF NOT EXISTS t1(a, b)", None),
        ("CREATE TEMP TABLE tt(x)", None),
        ("CREATE VIEW v1 AS SELECT a FROM t1", None),
        ("CREATE VIEW IF NOT EXISTS v1 AS SELECT a FROM t1", None),
        ("CREATE TEMP VIEW tv AS SELECT 1", None),
        ("CREATE TABLE t2(x)", Some((ffi::SQLITE_UPDATE, "sql"))),
        ("CREATE TABLE t2(x)", Some((ffi::SQLITE_READ, "ROWID"))),
        ("CREATE TABLE t3(x UNIQUE, y)", None),
        ("CREATE INDEX i1 ON t1(b)", None),
        ("CREATE TRIGGER tr1 AFTER INSERT ON t1 BEGIN SELECT 1; END", None),
        ("CREATE TEMP TRIGGER tr2 AFTER INSERT ON t1 BEGIN SELECT 1; END", None),
        ("CREATE TRIGGER tr3 AFTER DELETE ON t3 BEGIN SELECT 1; END", None),
        ("DROP TRIGGER tr1", None),
        ("DROP INDEX i1", None),
        ("DROP VIEW v1", None),
        ("DROP TABLE t1", None),
        ("DROP TABLE t3", None),
        ("DROP TABLE tt", None),
        ("CREATE TEMP TABLE t4(x)", Some((ffi::SQLITE_READ, "ROWID"))),
    ];
    for (sql, deny) in steps {
        *DENY.lock().unwrap() = deny.map(|(c, s)| (c, s.to_string()));
        log.lock().unwrap().clear();
        REF_LOG.lock().unwrap().clear();
        let a = run_ours(&mut ours, sql);
        let b = run_ref(&reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
        assert_eq!(*log.lock().unwrap(), *REF_LOG.lock().unwrap(), "\nSQL: {sql}");
    }
    *DENY.lock().unwrap() = None;
}
