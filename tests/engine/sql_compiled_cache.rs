//! The connection's cache of compiled programs (issue #22) is invisible:
//! each scenario prepares the same text anew, before and after something
//! that changes what a compile produces or checks, on ringlite and on the
//! reference SQLite, and the outcomes (rows, column names, errors) must
//! agree. A stale program served from the cache would give the old
//! answer. `compiled_cache_len` shows the cache was in use.
#![allow(unsafe_code)]

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use libsqlite3_sys as ffi;
use ringlite::connection::Hook;
use ringlite::value::collation::Collation;
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use ringlite::{Connection, OpenFlags};
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

struct Pair {
    ours: Connection,
    reference: RefDb,
}

impl Pair {
    fn memory() -> Pair {
        Pair::with(crate::sql_common::ours_open(), RefDb::open())
    }

    fn file(path: &str) -> Pair {
        let ours = Connection::open(&format!("{path}.ours"), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open");
        Pair::with(ours, RefDb::open_path(&format!("{path}.ref")))
    }

    /// (The reference is built with foreign keys on by default.)
    fn with(ours: Connection, reference: RefDb) -> Pair {
        run_ref(&reference, "pragma foreign_keys = off");
        Pair { ours, reference }
    }

    /// Prepare and run every statement of `sql` on both, each prepared
    /// anew; the outcomes must agree.
    fn exec(&mut self, sql: &str) -> Vec<Outcome> {
        let a = run_ours(&mut self.ours, sql);
        let b = run_ref(&self.reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
        a
    }

    /// `sql` with `{}` naming a file of each library's own.
    fn exec_on_files(&mut self, sql: &str, path: &str) -> Vec<Outcome> {
        let a = run_ours(&mut self.ours, &sql.replace("{}", &format!("{path}.ours")));
        let b = run_ref(&self.reference, &sql.replace("{}", &format!("{path}.ref")));
        assert_eq!(a, b, "\nSQL: {sql}");
        a
    }

    fn function(&mut self, name: &str, n_args: i32, value: i64) {
        self.ours
            .create_function(FuncDef { name: name.into(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Const(value))) })
            .expect("create_function");
        let c = CString::new(name).unwrap();
        let rc = unsafe {
            ffi::sqlite3_create_function_v2(self.reference.0, c.as_ptr(), n_args, ffi::SQLITE_UTF8, value as *mut c_void, Some(ref_const), None, None, None)
        };
        assert_eq!(rc, 0);
    }
}

struct Const(i64);

impl ScalarFunction for Const {
    fn call(&self, _: &mut FunctionContext<'_>, _: &[Value]) -> ringlite::Result<Value> {
        Ok(Value::Integer(self.0))
    }
}

unsafe extern "C" fn ref_const(ctx: *mut ffi::sqlite3_context, _: c_int, _: *mut *mut ffi::sqlite3_value) {
    ffi::sqlite3_result_int64(ctx, ffi::sqlite3_user_data(ctx) as i64);
}

unsafe extern "C" fn ref_reverse(_: *mut c_void, la: c_int, a: *const c_void, lb: c_int, b: *const c_void) -> c_int {
    let a = std::slice::from_raw_parts(a as *const u8, la as usize);
    let b = std::slice::from_raw_parts(b as *const u8, lb as usize);
    b.cmp(a) as c_int
}

fn one(v: i64) -> Vec<Vec<V>> {
    vec![vec![V::Int(v)]]
}

fn values(o: &[Outcome]) -> Vec<Vec<V>> {
    match &o[0] {
        Outcome::Rows { rows, .. } => rows.clone(),
        Outcome::Error { .. } => panic!("error: {o:?}"),
    }
}

#[test]
fn repeated_prepares_reuse_one_program_and_keep_the_tail() {
    let mut p = Pair::memory();
    p.exec("create table t(a, b); insert into t values (1, 'x'), (2, 'y')");
    let before = p.ours.compiled_cache_len();
    for _ in 0..3 {
        p.exec("select a, b from t where a > ?1 order by a");
    }
    assert_eq!(p.ours.compiled_cache_len(), before + 1, "a repeated text is one entry");
    // The tail of a repeated multi-statement text, on both.
    let text = "select 1;  select 2 ; -- end\n";
    for _ in 0..2 {
        let (st, tail) = p.ours.prepare(text.as_bytes()).unwrap();
        assert!(st.is_some());
        let c = CString::new(text).unwrap();
        let mut s = std::ptr::null_mut();
        let mut ref_tail: *const c_char = std::ptr::null();
        unsafe {
            assert_eq!(ffi::sqlite3_prepare_v2(p.reference.0, c.as_ptr(), -1, &mut s, &mut ref_tail), 0);
            ffi::sqlite3_finalize(s);
        }
        assert_eq!(tail, ref_tail as usize - c.as_ptr() as usize);
    }
    // An error is not kept, and stays an error.
    for _ in 0..2 {
        p.exec("select nosuch from t");
    }
    // Bounded: many distinct texts leave at most 64 entries.
    for i in 0..200 {
        p.ours.prepare(format!("select {i}").as_bytes()).unwrap();
    }
    assert!(p.ours.compiled_cache_len() <= 64);
}

#[test]
fn a_schema_change_by_another_connection_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db").to_string_lossy().into_owned();
    let mut a = Pair::file(&path);
    let mut b = Pair::file(&path);
    a.exec("create table t(x, y); insert into t values (1, 2)");
    // (One result column: the reference's harness reads as many columns
    // as the statement had when prepared, ours as many as it has now.)
    let q = "select x from t";
    a.exec(q);
    a.exec(q);
    assert!(a.ours.compiled_cache_len() > 0);
    // x moves to the second column: the program compiled before reads the
    // first one. Both libraries prepare against the schema they have and
    // compile again when the run finds the schema cookie changed.
    b.exec("drop table t; create table t(y, x, z); insert into t values (3, 4, 5)");
    assert_eq!(values(&a.exec(q)), vec![vec![V::Int(4)]]);
    assert_eq!(values(&a.exec(q)), vec![vec![V::Int(4)]]);
    b.exec("alter table t add column w default 9");
    assert_eq!(values(&a.exec("select w from t")), vec![vec![V::Int(9)]]);
    b.exec("drop table t; create table t(x, w); insert into t values (7, 8)");
    assert_eq!(values(&a.exec("select w from t")), vec![vec![V::Int(8)]]);
    assert_eq!(values(&a.exec(q)), vec![vec![V::Int(7)]]);
    // Here too: an index and a temp table that hides the main one.
    a.exec("create index tx on t(x)");
    a.exec("select w from t where x = 7");
    a.exec("create temp table t(only)");
    a.exec("select * from t");
    a.exec("drop table temp.t");
    assert_eq!(values(&a.exec("select * from t")), vec![vec![V::Int(7), V::Int(8)]]);
}

#[test]
fn a_function_registered_again_is_called_anew() {
    let mut p = Pair::memory();
    p.function("f", 0, 1);
    assert_eq!(values(&p.exec("select f()")), one(1));
    p.exec("select f()");
    p.function("f", 0, 2);
    assert_eq!(values(&p.exec("select f()")), one(2));
    // A closer overload (by argument count) expires no statement in
    // SQLite, but a fresh prepare resolves to it.
    p.function("g", -1, 10);
    assert_eq!(values(&p.exec("select g(1)")), one(10));
    p.exec("select g(1)");
    p.function("g", 1, 11);
    assert_eq!(values(&p.exec("select g(1)")), one(11));
    // And a collation registered for the first time.
    p.exec("create table c(x); insert into c values ('a'), ('b')");
    let q = "select x from c order by x collate rev";
    p.exec(q);
    p.ours.create_collation("rev", Some(Collation { name: "rev".into(), cmp: Arc::new(|a: &[u8], b: &[u8]| b.cmp(a)) })).unwrap();
    let name = CString::new("rev").unwrap();
    unsafe { ffi::sqlite3_create_collation_v2(p.reference.0, name.as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), Some(ref_reverse), None) };
    assert_eq!(values(&p.exec(q)), vec![vec![V::Text(b"b".to_vec())], vec![V::Text(b"a".to_vec())]]);
}

#[test]
fn pragmas_and_limits_read_by_the_compiler_are_followed() {
    let mut p = Pair::memory();
    p.exec("create table pp(id integer primary key); create table cc(x references pp(id))");
    let insert = "insert into cc values (5)";
    p.exec(insert);
    p.exec(insert);
    p.exec("pragma foreign_keys = on");
    assert!(matches!(p.exec(insert)[0], Outcome::Error { .. }));
    p.exec("pragma foreign_keys = off");
    p.exec(insert);
    // Column names.
    let named = "select x from cc limit 1";
    p.exec(named);
    p.exec("pragma full_column_names = on; pragma short_column_names = off");
    p.exec(named);
    p.exec("pragma full_column_names = off; pragma short_column_names = on");
    // Recursive triggers.
    p.exec("create table r(n); create trigger rt after insert on r when new.n < 5 begin insert into r values (new.n + 1); end");
    let fire = "insert into r values (1); select count(*) from r";
    p.exec(fire);
    p.exec("pragma recursive_triggers = on");
    p.exec(fire);
    // A limit lowered after the text was compiled.
    let params = "select ?1, ?20";
    p.exec(params);
    p.ours.limit(ffi::SQLITE_LIMIT_VARIABLE_NUMBER, 10);
    unsafe { ffi::sqlite3_limit(p.reference.0, ffi::SQLITE_LIMIT_VARIABLE_NUMBER, 10) };
    assert!(matches!(p.exec(params)[0], Outcome::Error { .. }));
}

#[test]
fn the_authorizer_is_asked_at_every_prepare() {
    let mut p = Pair::memory();
    p.exec("create table t(a); insert into t values (1)");
    let q = "select a from t";
    p.exec(q);
    p.exec(q);
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    p.ours.set_hook(Hook::Authorizer(Some(Box::new(move |action, _, _, _, _| {
        seen.fetch_add(1, Ordering::Relaxed);
        // SQLITE_SELECT is denied.
        if action == 21 {
            1
        } else {
            0
        }
    }))));
    unsafe extern "C" fn deny_select(_: *mut c_void, action: c_int, _: *const c_char, _: *const c_char, _: *const c_char, _: *const c_char) -> c_int {
        (action == ffi::SQLITE_SELECT) as c_int
    }
    unsafe { ffi::sqlite3_set_authorizer(p.reference.0, Some(deny_select), std::ptr::null_mut()) };
    assert!(matches!(p.exec(q)[0], Outcome::Error { .. }));
    let once = calls.load(Ordering::Relaxed);
    assert!(once > 0);
    p.exec(q);
    assert_eq!(calls.load(Ordering::Relaxed), 2 * once, "asked again by the second prepare");
    p.ours.set_hook(Hook::Authorizer(None));
    unsafe { ffi::sqlite3_set_authorizer(p.reference.0, None, std::ptr::null_mut()) };
    p.exec(q);
    let msg = unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(p.reference.0)) };
    assert_eq!(msg.to_str().unwrap(), "not an error");
}

#[test]
fn attach_and_detach_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let one_db = dir.path().join("one").to_string_lossy().into_owned();
    let two_db = dir.path().join("two").to_string_lossy().into_owned();
    let mut p = Pair::memory();
    p.exec_on_files("attach '{}' as aux; create table aux.t(v); insert into aux.t values ('one'); detach aux", &one_db);
    p.exec_on_files("attach '{}' as aux; create table aux.t(v, w); insert into aux.t values ('two', 2); detach aux", &two_db);
    let q = "select * from aux.t";
    p.exec_on_files("attach '{}' as aux", &one_db);
    p.exec(q);
    p.exec(q);
    p.exec("detach aux");
    assert!(matches!(p.exec(q)[0], Outcome::Error { .. }));
    p.exec_on_files("attach '{}' as aux", &two_db);
    assert_eq!(values(&p.exec(q)), vec![vec![V::Text(b"two".to_vec()), V::Int(2)]]);
}
