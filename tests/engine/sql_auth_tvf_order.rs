//! The authorizer calls of statements reading table-valued functions and
//! eponymous virtual tables, and of ATTACH/DETACH, differentially against
//! SQLite 3.54.1, every call compared: a table-valued function's arguments
//! are read after the result list and before HAVING and WHERE (SQLite's
//! resolver order), the columns of an eponymous table are asked about in
//! main, the PRAGMA a pragma table runs is asked about when it runs, and
//! the first use of a virtual table (connected in the middle of the
//! prepare) asks nothing twice. (json_each/json_tree: `sql_auth_query_order`.)
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
fn table_functions_and_attach() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let log: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    ours.set_hook(Hook::Authorizer(Some(Box::new(move |code, a, b, d, t| {
        l.lock().unwrap().push(line(code, a, b, d, t));
        denied(code, b) as i32
    }))));
    unsafe { ffi::sqlite3_set_authorizer(reference.0, Some(ref_auth), std::ptr::null_mut()) };
    let setup = "PRAGMA foreign_keys = 0; CREATE TABLE t(a, b); CREATE INDEX ta ON t(a); CREATE TABLE dbs(n); INSERT INTO dbs VALUES ('main'); INSERT INTO t VALUES ('t', 1)";
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    let steps: &[(&str, Option<(i32, &str)>)] = &[
        ("SELECT name FROM pragma_table_info('t')", None),
        ("SELECT * FROM pragma_user_version", None),
        ("SELECT d.n, p.name FROM dbs AS d, pragma_table_info('t', d.n) AS p ORDER BY 1, 2", None),
        ("SELECT p.name FROM dbs AS d, pragma_table_info('t', d.n) AS p WHERE d.n <> 'x'", None),
        ("SELECT t.a, l.name FROM t JOIN pragma_index_list(t.a) AS l", None),
        ("SELECT * FROM pragma_integrity_check", None),
        ("SELECT cache_spill, schema FROM pragma_cache_spill('main')", None),
        ("SELECT name FROM pragma_table_info('t')", Some((ffi::SQLITE_READ, "name"))),
        ("ATTACH ':memory:' AS a1", None),
        ("ATTACH ':mem' || 'ory:' AS a2", None),
        ("DETACH a1", None),
        ("DETACH 'a2'", None),
        ("ATTACH ':memory:' AS a3", Some((ffi::SQLITE_ATTACH, "-"))),
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
