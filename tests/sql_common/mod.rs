//! Differential harness: run the same SQL script on ringlite and on the
//! reference SQLite (libsqlite3-sys), statement by statement, and record
//! column names, typed values, and error codes/messages.
#![allow(dead_code, unsafe_code)]

use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::{CStr, CString};

/// `SQLITE_LIMIT_*` categories of `sqlite3_limit` (sqlite3.h; the
/// reference crate's bindings predate the last three).
pub const LIMIT_LENGTH: i32 = 0;
pub const LIMIT_SQL_LENGTH: i32 = 1;
pub const LIMIT_COLUMN: i32 = 2;
pub const LIMIT_EXPR_DEPTH: i32 = 3;
pub const LIMIT_COMPOUND_SELECT: i32 = 4;
pub const LIMIT_VDBE_OP: i32 = 5;
pub const LIMIT_FUNCTION_ARG: i32 = 6;
pub const LIMIT_ATTACHED: i32 = 7;
pub const LIMIT_LIKE_PATTERN_LENGTH: i32 = 8;
pub const LIMIT_VARIABLE_NUMBER: i32 = 9;
pub const LIMIT_TRIGGER_DEPTH: i32 = 10;
pub const LIMIT_WORKER_THREADS: i32 = 11;
pub const LIMIT_PARSER_DEPTH: i32 = 12;
pub const LIMIT_SCHEMA: i32 = 13;
pub const LIMIT_TRIGGER_STEPS: i32 = 14;

/// A typed value as both engines report it.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    Null,
    Int(i64),
    Real(u64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

/// The outcome of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Rows { names: Vec<String>, rows: Vec<Vec<V>> },
    Error { code: i32, message: String },
}

pub fn from_value(v: &Value) -> V {
    match v {
        Value::Null | Value::Pointer(_) => V::Null,
        Value::Integer(i) => V::Int(*i),
        Value::Real(r) => V::Real(r.to_bits()),
        Value::Text(t) => V::Text(t.clone()),
        Value::Blob(b) => V::Blob(b.clone()),
        Value::ZeroBlob(n) => V::Blob(vec![0; *n]),
    }
}

pub fn ours_open() -> Connection {
    Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open")
}

/// Run every statement of `sql` on ringlite.
pub fn run_ours(conn: &mut Connection, sql: &str) -> Vec<Outcome> {
    let mut out = Vec::new();
    let mut rest = sql.as_bytes();
    loop {
        let (stmt, tail) = match conn.prepare_terminated(rest) {
            Ok(x) => x,
            Err(e) => {
                out.push(Outcome::Error { code: e.primary(), message: e.message.clone() });
                return out;
            }
        };
        rest = &rest[tail..];
        let Some(mut st) = stmt else {
            if rest.is_empty() || tail == 0 {
                return out;
            }
            continue;
        };
        let names: Vec<String> = (0..st.column_count()).map(|i| st.column_name(i).to_string()).collect();
        let mut rows = Vec::new();
        let res = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|i| from_value(st.column(i))).collect()),
                Ok(StepResult::Done) => break Outcome::Rows { names, rows },
                Ok(StepResult::Io) => continue,
                Err(e) => break Outcome::Error { code: e.primary(), message: e.message.clone() },
            }
        };
        st.reset(conn);
        out.push(res);
        if rest.iter().all(|c| c.is_ascii_whitespace()) {
            return out;
        }
    }
}

pub struct RefDb(pub *mut ffi::sqlite3);

impl RefDb {
    pub fn open_path(path: &str) -> RefDb {
        let mut db = std::ptr::null_mut();
        let c = CString::new(path).unwrap();
        unsafe { ffi::sqlite3_open(c.as_ptr(), &mut db) };
        RefDb(db)
    }

    pub fn open() -> RefDb {
        let mut db = std::ptr::null_mut();
        unsafe { ffi::sqlite3_open(c":memory:".as_ptr(), &mut db) };
        RefDb(db)
    }
}

impl Drop for RefDb {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

/// Run every statement of `sql` on the reference SQLite.
pub fn run_ref(db: &RefDb, sql: &str) -> Vec<Outcome> {
    let mut out = Vec::new();
    let c = CString::new(sql).unwrap();
    let mut tail: *const std::os::raw::c_char = c.as_ptr();
    unsafe {
        loop {
            if *tail == 0 {
                return out;
            }
            let mut st = std::ptr::null_mut();
            let rc = ffi::sqlite3_prepare_v2(db.0, tail, -1, &mut st, &mut tail);
            if rc != 0 {
                out.push(Outcome::Error { code: rc & 0xff, message: CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned() });
                return out;
            }
            if st.is_null() {
                continue;
            }
            let n = ffi::sqlite3_column_count(st);
            let names: Vec<String> = (0..n).map(|i| CStr::from_ptr(ffi::sqlite3_column_name(st, i)).to_string_lossy().into_owned()).collect();
            let mut rows = Vec::new();
            let res = loop {
                let rc = ffi::sqlite3_step(st);
                if rc == ffi::SQLITE_ROW {
                    let mut row = Vec::new();
                    for i in 0..n {
                        row.push(match ffi::sqlite3_column_type(st, i) {
                            ffi::SQLITE_INTEGER => V::Int(ffi::sqlite3_column_int64(st, i)),
                            ffi::SQLITE_FLOAT => V::Real(ffi::sqlite3_column_double(st, i).to_bits()),
                            ffi::SQLITE_TEXT => {
                                let p = ffi::sqlite3_column_text(st, i);
                                let len = ffi::sqlite3_column_bytes(st, i) as usize;
                                V::Text(std::slice::from_raw_parts(p, len).to_vec())
                            }
                            ffi::SQLITE_BLOB => {
                                let p = ffi::sqlite3_column_blob(st, i) as *const u8;
                                let len = ffi::sqlite3_column_bytes(st, i) as usize;
                                V::Blob(if p.is_null() { vec![] } else { std::slice::from_raw_parts(p, len).to_vec() })
                            }
                            _ => V::Null,
                        });
                    }
                    rows.push(row);
                } else if rc == ffi::SQLITE_DONE {
                    break Outcome::Rows { names, rows };
                } else {
                    break Outcome::Error { code: rc & 0xff, message: CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned() };
                }
            };
            ffi::sqlite3_finalize(st);
            out.push(res);
        }
    }
}

/// Run `sql` on both engines and assert identical outcomes.
pub fn check(sql: &str) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let a = run_ours(&mut ours, sql);
    let b = run_ref(&reference, sql);
    assert_eq!(a, b, "\nSQL: {sql}\nours: {a:?}\nref:  {b:?}");
}

/// Run a setup script then each query, comparing each.
pub fn check_each(setup: &str, queries: &[&str]) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let a = run_ours(&mut ours, setup);
    let b = run_ref(&reference, setup);
    assert_eq!(a, b, "\nsetup: {setup}");
    for q in queries {
        let a = run_ours(&mut ours, q);
        let b = run_ref(&reference, q);
        assert_eq!(a, b, "\nSQL: {q}\nours: {a:?}\nref:  {b:?}");
    }
}

fn sorted(mut o: Vec<Outcome>) -> Vec<Outcome> {
    for x in o.iter_mut() {
        if let Outcome::Rows { rows, .. } = x {
            rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        }
    }
    o
}

/// Like `check_each`, ignoring row order (queries without ORDER BY).
pub fn check_each_unordered(setup: &str, queries: &[&str]) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let a = run_ours(&mut ours, setup);
    let b = run_ref(&reference, setup);
    assert_eq!(a, b, "\nsetup: {setup}");
    for q in queries {
        let a = sorted(run_ours(&mut ours, q));
        let b = sorted(run_ref(&reference, q));
        assert_eq!(a, b, "\nSQL: {q}\nours: {a:?}\nref:  {b:?}");
    }
}

/// Run `setup` on ours and the reference, then each query: EXPLAIN QUERY
/// PLAN's detail lines and the rows (in order) must agree.
pub fn check_plans(setup: &str, queries: &[&str]) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, setup);
    run_ref(&reference, setup);
    for q in queries {
        let sql = format!("EXPLAIN QUERY PLAN {q}");
        assert_eq!(plan_details(&run_ours(&mut ours, &sql)), plan_details(&run_ref(&reference, &sql)), "plan of {q}");
        assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q), "result of {q}");
    }
}

/// EXPLAIN QUERY PLAN's detail lines of the last statement's rows (the
/// ids differ: SQLite's are instruction addresses).
pub fn plan_details(outcomes: &[Outcome]) -> Vec<String> {
    match outcomes.last() {
        Some(Outcome::Rows { rows, .. }) => rows
            .iter()
            .map(|r| match r.last() {
                Some(V::Text(t)) => String::from_utf8_lossy(t).into_owned(),
                other => format!("{other:?}"),
            })
            .collect(),
        other => vec![format!("{other:?}")],
    }
}

/// One query of a plan-comparison test: its EXPLAIN QUERY PLAN detail
/// lines on both libraries, then its rows.
pub struct PlanAndRows {
    pub ours: Vec<String>,
    pub reference: Vec<String>,
    /// The rows' difference ("query: ours ... ref ..."), if any. Where the
    /// plans differ the rows are compared as multisets: another plan may
    /// return them in another order.
    pub rows_differ: Option<String>,
}

impl PlanAndRows {
    pub fn same_plan(&self) -> bool {
        self.ours == self.reference
    }

    /// "query: ours [...] ref [...]" of the two plans.
    pub fn plans(&self, q: &str) -> String {
        format!("{q}:\n  ours {:?}\n  ref  {:?}", self.ours, self.reference)
    }
}

pub fn plan_and_rows(ours: &mut Connection, reference: &RefDb, q: &str) -> PlanAndRows {
    let sql = format!("EXPLAIN QUERY PLAN {q}");
    let (plan_ours, plan_ref) = (plan_details(&run_ours(ours, &sql)), plan_details(&run_ref(reference, &sql)));
    let (mut mine, mut theirs) = (run_ours(ours, q), run_ref(reference, q));
    if plan_ours != plan_ref {
        for o in mine.iter_mut().chain(theirs.iter_mut()) {
            if let Outcome::Rows { rows, .. } = o {
                rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            }
        }
    }
    let rows_differ = (mine != theirs).then(|| format!("{q}:\n  ours {mine:?}\n  ref  {theirs:?}"));
    PlanAndRows { ours: plan_ours, reference: plan_ref, rows_differ }
}
