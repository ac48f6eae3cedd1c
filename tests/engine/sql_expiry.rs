//! Prepared statements follow every change SQLite makes them follow: a
//! statement prepared once and run again (as Python's and ORMs' statement
//! caches do) after a schema change (here or by another connection), a
//! function or collation redefined or deleted, or a flag setting changed,
//! gives what the reference SQLite gives. Each scenario runs the same
//! steps on both libraries, keeping the same prepared statements.
#![allow(unsafe_code)]

use crate::sql_common::{from_value, ours_open, run_ours, run_ref, Outcome, RefDb, V};
use libsqlite3_sys as ffi;
use ringlite::value::collation::Collation;
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::{CStr, CString};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// One connection of each library, with statements prepared on both.
struct Pair {
    ours: Connection,
    reference: RefDb,
    stmts: Vec<(ringlite::Statement, *mut ffi::sqlite3_stmt)>,
}

impl Drop for Pair {
    fn drop(&mut self) {
        for (_, r) in self.stmts.drain(..) {
            unsafe { ffi::sqlite3_finalize(r) };
        }
    }
}

/// A scalar function returning a constant.
struct Const(i64);

impl ScalarFunction for Const {
    fn call(&self, _: &mut FunctionContext<'_>, _: &[Value]) -> ringlite::Result<Value> {
        Ok(Value::Integer(self.0))
    }
}

unsafe extern "C" fn ref_const(ctx: *mut ffi::sqlite3_context, _: c_int, _: *mut *mut ffi::sqlite3_value) {
    ffi::sqlite3_result_int64(ctx, ffi::sqlite3_user_data(ctx) as i64);
}

unsafe extern "C" fn ref_forward(_: *mut c_void, la: c_int, a: *const c_void, lb: c_int, b: *const c_void) -> c_int {
    let a = std::slice::from_raw_parts(a as *const u8, la as usize);
    let b = std::slice::from_raw_parts(b as *const u8, lb as usize);
    a.cmp(b) as c_int
}

unsafe extern "C" fn ref_reverse(p: *mut c_void, la: c_int, a: *const c_void, lb: c_int, b: *const c_void) -> c_int {
    -ref_forward(p, la, a, lb, b)
}

fn ours_collation(name: &str, reverse: bool) -> Collation {
    Collation { name: name.into(), cmp: Arc::new(move |a: &[u8], b: &[u8]| if reverse { b.cmp(a) } else { a.cmp(b) }) }
}

impl Pair {
    fn memory() -> Pair {
        Pair::with(ours_open(), RefDb::open())
    }

    /// (The reference library is built with foreign keys on by default;
    /// SQLite's default, and ours, is off.)
    fn with(ours: Connection, reference: RefDb) -> Pair {
        run_ref(&reference, "pragma foreign_keys = off");
        Pair { ours, reference, stmts: Vec::new() }
    }

    fn file(path: &str) -> Pair {
        let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
        let ours = Connection::open(&format!("{path}.ours"), flags).expect("open");
        Pair::with(ours, RefDb::open_path(&format!("{path}.ref")))
    }

    /// Run a script on both; the outcomes must agree.
    fn exec(&mut self, sql: &str) -> Vec<Outcome> {
        let a = run_ours(&mut self.ours, sql);
        let b = run_ref(&self.reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
        a
    }

    /// Prepare one statement on both, kept for [`Pair::run`].
    fn prepare(&mut self, sql: &str) -> usize {
        let (st, _) = self.ours.prepare(sql.as_bytes()).expect("prepare");
        let c = CString::new(sql).unwrap();
        let mut r = std::ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_prepare_v2(self.reference.0, c.as_ptr(), -1, &mut r, std::ptr::null_mut()) };
        assert_eq!(rc, 0, "reference prepare: {sql}");
        self.stmts.push((st.expect("a statement"), r));
        self.stmts.len() - 1
    }

    fn ref_error(&self, rc: c_int) -> Outcome {
        Outcome::Error { code: rc & 0xff, message: unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.reference.0)) }.to_string_lossy().into_owned() }
    }

    /// Step statement `i` on both, at most `limit` rows (to the end and
    /// reset when `None`); the rows or errors must agree.
    fn step(&mut self, i: usize, limit: Option<usize>) -> Outcome {
        let (st, r) = &mut self.stmts[i];
        let mut rows = Vec::new();
        let ours = loop {
            if limit.is_some_and(|l| rows.len() >= l) {
                break Outcome::Rows { names: vec![], rows };
            }
            match st.step(&mut self.ours) {
                Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|c| from_value(st.column(c))).collect::<Vec<V>>()),
                Ok(StepResult::Done) => break Outcome::Rows { names: vec![], rows },
                Ok(StepResult::Io) => continue,
                Err(e) => break Outcome::Error { code: e.primary(), message: e.message.clone() },
            }
        };
        if limit.is_none() {
            st.reset(&mut self.ours);
        }
        let r = *r;
        let mut rows = Vec::new();
        let reference = loop {
            if limit.is_some_and(|l| rows.len() >= l) {
                break Outcome::Rows { names: vec![], rows };
            }
            let rc = unsafe { ffi::sqlite3_step(r) };
            if rc == ffi::SQLITE_ROW {
                let n = unsafe { ffi::sqlite3_column_count(r) };
                rows.push((0..n).map(|c| ref_value(r, c)).collect::<Vec<V>>());
            } else if rc == ffi::SQLITE_DONE {
                break Outcome::Rows { names: vec![], rows };
            } else {
                let rc = unsafe { ffi::sqlite3_reset(r) };
                break self.ref_error(rc);
            }
        };
        if limit.is_none() {
            unsafe { ffi::sqlite3_reset(r) };
        }
        assert_eq!(ours, reference, "\nstatement: {}", unsafe { CStr::from_ptr(ffi::sqlite3_sql(r)) }.to_string_lossy());
        ours
    }

    fn run(&mut self, i: usize) -> Outcome {
        self.step(i, None)
    }

    fn reset(&mut self, i: usize) {
        let (st, r) = &mut self.stmts[i];
        st.reset(&mut self.ours);
        unsafe { ffi::sqlite3_reset(*r) };
    }

    /// `f` returning `value` with `n_args` arguments (`None`: deleted) on
    /// both; the return codes (and messages) must agree.
    fn function(&mut self, name: &str, n_args: i32, value: Option<i64>) -> i32 {
        let ours = match value {
            Some(v) => {
                self.ours.create_function(FuncDef { name: name.into(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Const(v))) })
            }
            None => self.ours.delete_function(name, n_args),
        };
        let c = CString::new(name).unwrap();
        let rc = unsafe {
            match value {
                Some(v) => {
                    ffi::sqlite3_create_function_v2(self.reference.0, c.as_ptr(), n_args, ffi::SQLITE_UTF8, v as *mut c_void, Some(ref_const), None, None, None)
                }
                None => ffi::sqlite3_create_function_v2(self.reference.0, c.as_ptr(), n_args, ffi::SQLITE_UTF8, std::ptr::null_mut(), None, None, None, None),
            }
        };
        match ours {
            Ok(()) => assert_eq!(rc, 0, "create_function {name}/{n_args}: ours succeeded, {:?}", self.ref_error(rc)),
            Err(e) => assert_eq!(Outcome::Error { code: e.primary(), message: e.message.clone() }, self.ref_error(rc), "create_function {name}/{n_args}"),
        }
        rc
    }

    /// A collation `name` ordering forward, reversed, or (`None`) deleted.
    fn collation(&mut self, name: &str, reverse: Option<bool>) -> i32 {
        let ours = self.ours.create_collation(name, reverse.map(|r| ours_collation(name, r)));
        let c = CString::new(name).unwrap();
        let cmp: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_void, c_int, *const c_void) -> c_int> = match reverse {
            Some(true) => Some(ref_reverse),
            Some(false) => Some(ref_forward),
            None => None,
        };
        let rc = unsafe { ffi::sqlite3_create_collation_v2(self.reference.0, c.as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), cmp, None) };
        match ours {
            Ok(()) => assert_eq!(rc, 0, "create_collation {name}: ours succeeded, {:?}", self.ref_error(rc)),
            Err(e) => assert_eq!(Outcome::Error { code: e.primary(), message: e.message.clone() }, self.ref_error(rc), "create_collation {name}"),
        }
        rc
    }
}

fn ref_value(r: *mut ffi::sqlite3_stmt, c: c_int) -> V {
    unsafe {
        match ffi::sqlite3_column_type(r, c) {
            ffi::SQLITE_INTEGER => V::Int(ffi::sqlite3_column_int64(r, c)),
            ffi::SQLITE_FLOAT => V::Real(ffi::sqlite3_column_double(r, c).to_bits()),
            ffi::SQLITE_TEXT => {
                let p = ffi::sqlite3_column_text(r, c);
                V::Text(std::slice::from_raw_parts(p, ffi::sqlite3_column_bytes(r, c) as usize).to_vec())
            }
            ffi::SQLITE_BLOB => {
                let p = ffi::sqlite3_column_blob(r, c) as *const u8;
                let n = ffi::sqlite3_column_bytes(r, c) as usize;
                V::Blob(if p.is_null() { vec![] } else { std::slice::from_raw_parts(p, n).to_vec() })
            }
            _ => V::Null,
        }
    }
}

fn rows(o: &Outcome) -> usize {
    match o {
        Outcome::Rows { rows, .. } => rows.len(),
        Outcome::Error { .. } => usize::MAX,
    }
}

#[test]
fn schema_describing_pragmas_follow_schema_changes() {
    let mut p = Pair::memory();
    p.exec("create table p(id integer primary key); create table t(a references p)");
    let fk = p.prepare("pragma foreign_key_list(t)");
    let info = p.prepare("pragma table_info(t)");
    let xinfo = p.prepare("pragma table_xinfo(t)");
    let idx = p.prepare("pragma index_list(t)");
    let idx_info = p.prepare("pragma index_info(ti)");
    let list = p.prepare("pragma table_list");
    let fk_check = p.prepare("pragma foreign_key_check");
    let tvf = p.prepare("select name from pragma_table_info('t') order by cid");
    for i in [fk, info, xinfo, idx, idx_info, list, fk_check, tvf] {
        p.run(i);
    }
    assert_eq!(rows(&p.run(fk)), 1);
    // The case: the table dropped and created again without the key.
    p.exec("drop table t; create table t(b, a)");
    assert_eq!(rows(&p.run(fk)), 0);
    p.exec("alter table t add column c references p(id) on delete cascade");
    assert_eq!(rows(&p.run(fk)), 1);
    p.exec("create index ti on t(c, b); insert into p values (1); insert into t values (1, 2, 3)");
    for i in [fk, info, xinfo, idx, idx_info, list, fk_check, tvf] {
        p.run(i);
    }
    p.exec("drop index ti; alter table t rename column b to bb; create table u(x)");
    for i in [fk, info, xinfo, idx, idx_info, list, fk_check, tvf] {
        p.run(i);
    }
    // A temp table of the same name shadows it; dropped, the main one is back.
    p.exec("create temp table t(z primary key, y references u)");
    for i in [fk, info, xinfo, idx, list, tvf] {
        p.run(i);
    }
    p.exec("drop table temp.t");
    for i in [fk, info, xinfo, idx, list, tvf] {
        p.run(i);
    }
    // An attached database's table, named with its schema.
    p.exec("attach ':memory:' as aux; create table aux.t(q references p)");
    let aux = p.prepare("pragma aux.foreign_key_list(t)");
    let aux_info = p.prepare("pragma aux.table_info(t)");
    p.run(aux);
    p.run(aux_info);
    p.exec("drop table aux.t; create table aux.t(r, s)");
    assert_eq!(rows(&p.run(aux)), 0);
    p.run(aux_info);
}

#[test]
fn statements_follow_a_schema_changed_by_another_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db").to_string_lossy().into_owned();
    let mut a = Pair::file(&path);
    let mut b = Pair::file(&path);
    a.exec("create table p(id integer primary key); create table t(x references p, y); insert into t values (1, 2)");
    let fk = a.prepare("pragma foreign_key_list(t)");
    let info = a.prepare("pragma table_info(t)");
    let star = a.prepare("select * from t");
    let idx = a.prepare("pragma index_list(t)");
    for i in [fk, info, star, idx] {
        a.run(i);
    }
    b.exec("drop table t; create table t(y, x, z); insert into t values (3, 4, 5); create index tz on t(z)");
    for i in [fk, info, star, idx] {
        a.run(i);
    }
    assert_eq!(rows(&a.run(fk)), 0);
}

#[test]
fn redefined_or_deleted_functions_are_called_anew() {
    let mut p = Pair::memory();
    p.exec("create table t(a); insert into t values (1), (2)");
    p.function("f", 0, Some(1));
    let call = p.prepare("select f()");
    let in_where = p.prepare("select a from t where a = f()");
    p.run(call);
    p.run(in_where);
    // Python's case: redefined with the same name and argument count.
    p.function("f", 0, Some(2));
    assert_eq!(p.run(call), Outcome::Rows { names: vec![], rows: vec![vec![V::Int(2)]] });
    p.run(in_where);
    // Deleted: the cached statement fails as a new one would.
    p.function("f", 0, None);
    assert!(matches!(p.run(call), Outcome::Error { .. }));
    p.function("f", 0, Some(3));
    p.run(call);
    // A built-in function overridden.
    let upper = p.prepare("select upper('a'), length('abc')");
    p.run(upper);
    p.function("upper", 1, Some(7));
    p.run(upper);
    p.function("length", 1, Some(8));
    p.run(upper);
    // A variant with another argument count is no redefinition: what a
    // statement compiled against f(any) calls is as SQLite decides.
    p.function("g", -1, Some(10));
    let g = p.prepare("select g(1), g()");
    p.run(g);
    p.function("g", 1, Some(11));
    p.run(g);
    p.function("g", -1, Some(12));
    p.run(g);
}

/// The built-in functions are one table for the whole process (not a
/// copy per connection): what one connection redefines or deletes, even a
/// built-in, must stay its own.
#[test]
fn functions_changed_on_one_connection_leave_the_others_alone() {
    let mut a = Pair::memory();
    let mut b = Pair::memory();
    let probe = "select abs(-3), upper('x'), length('abc'), round(2.5)";
    a.function("abs", 1, Some(7));
    a.function("upper", 1, None);
    a.function("length", 1, Some(9));
    a.function("length", 1, None);
    a.function("round", 2, Some(4));
    a.function("mine", 0, Some(5));
    a.exec("select abs(-3), length('abc'), round(2.5), round(2.5, 1), mine()");
    a.exec("select upper('x')");
    a.exec("select length('abc')");
    b.exec(probe);
    b.exec("select mine()");
    // Opened after the changes, and changing the same names its own way.
    let mut c = Pair::memory();
    c.exec(probe);
    c.function("abs", -1, Some(8));
    c.exec("select abs(-3), abs(1, 2), abs()");
    b.exec(probe);
    a.exec("select abs(-3), abs(1, 2)");
}

#[test]
fn redefining_a_function_or_collation_under_a_running_statement() {
    let mut p = Pair::memory();
    p.exec("create table t(a); insert into t values (1), (2), (3)");
    p.function("f", 1, Some(1));
    p.collation("c", Some(false));
    let scan = p.prepare("select a, f(a) from t order by a");
    p.step(scan, Some(1));
    // Busy for an existing one (a built-in one too), allowed for a new one.
    assert_ne!(p.function("f", 1, Some(2)), 0);
    assert_ne!(p.function("f", 1, None), 0);
    assert_ne!(p.function("abs", 1, Some(2)), 0);
    assert_eq!(p.function("f", 2, Some(3)), 0);
    assert_eq!(p.function("brand_new", 0, Some(4)), 0);
    assert_ne!(p.collation("c", Some(true)), 0);
    assert_ne!(p.collation("nocase", Some(true)), 0);
    assert_eq!(p.collation("another", Some(true)), 0);
    p.step(scan, Some(2));
    p.reset(scan);
    assert_eq!(p.function("f", 1, Some(5)), 0);
    p.run(scan);
}

#[test]
fn redefined_or_deleted_collations_are_used_anew() {
    let mut p = Pair::memory();
    p.exec("create table t(x); insert into t values ('b'), ('a'), ('c')");
    p.collation("c", Some(false));
    let sorted = p.prepare("select x from t order by x collate c");
    let compared = p.prepare("select count(*) from t where x > 'a' collate c");
    p.run(sorted);
    p.run(compared);
    p.collation("c", Some(true));
    p.run(sorted);
    p.run(compared);
    p.collation("c", None);
    assert!(matches!(p.run(sorted), Outcome::Error { .. }));
    p.collation("c", Some(false));
    p.run(sorted);
    // An index built with the collation: its statements compile again too.
    p.exec("create index tx on t(x collate c)");
    let ranged = p.prepare("select x from t where x collate c > 'a' order by x collate c");
    p.run(ranged);
    p.collation("c", Some(false));
    p.run(ranged);
}

#[test]
fn flag_settings_expire_statements() {
    let mut p = Pair::memory();
    p.exec("create table pp(id integer primary key); create table cc(x references pp(id))");
    let insert = p.prepare("insert into cc values (5)");
    p.run(insert);
    // Foreign keys turned on: the cached INSERT checks them now.
    p.exec("pragma foreign_keys = on");
    assert!(matches!(p.run(insert), Outcome::Error { .. }));
    p.exec("pragma foreign_keys = off");
    p.run(insert);
    // Through sqlite3_db_config.
    let on = p.ours.config_flag(ringlite::ConfigFlag::ForeignKeys, Some(true));
    let mut r: c_int = -1;
    unsafe { ffi::sqlite3_db_config(p.reference.0, ffi::SQLITE_DBCONFIG_ENABLE_FKEY, 1 as c_int, &mut r as *mut c_int) };
    assert_eq!(on, r != 0);
    assert!(matches!(p.run(insert), Outcome::Error { .. }));
    // Column naming flags reach a cached SELECT's column names.
    p.exec("pragma foreign_keys = off; create table n(a); insert into n values (1)");
    let named = p.prepare("select a from n");
    p.run(named);
    p.exec("pragma full_column_names = on; pragma short_column_names = off");
    p.run(named);
    let ours_name = p.stmts[named].0.column_name(0).to_string();
    let ref_name = unsafe { CStr::from_ptr(ffi::sqlite3_column_name(p.stmts[named].1, 0)) }.to_string_lossy().into_owned();
    assert_eq!(ours_name, ref_name);
    // query_only: a cached write is refused.
    p.exec("pragma query_only = on");
    assert!(matches!(p.run(insert), Outcome::Error { .. }));
    p.exec("pragma query_only = off");
    p.run(insert);
}

#[test]
fn attach_detach_and_schema_cookie_writes_reach_cached_statements() {
    let mut p = Pair::memory();
    p.exec("create table t(a); insert into t values (1)");
    let list = p.prepare("pragma database_list");
    let tvf = p.prepare("select name from pragma_database_list order by seq");
    let star = p.prepare("select * from t");
    let tables = p.prepare("pragma table_list");
    for i in [list, tvf, star, tables] {
        p.run(i);
    }
    p.exec("attach ':memory:' as aux; create table aux.u(b)");
    for i in [list, tvf, star, tables] {
        p.run(i);
    }
    p.exec("detach aux");
    for i in [list, tvf, star, tables] {
        p.run(i);
    }
    // Writing the schema cookie makes every compiled statement stale.
    p.exec("pragma schema_version = 77");
    for i in [list, tvf, star, tables] {
        p.run(i);
    }
    p.exec("pragma writable_schema = on; pragma schema_version = 78; pragma writable_schema = off");
    for i in [list, tvf, star, tables] {
        p.run(i);
    }
}
