//! Shared harness of the `func_*` differential tests: evaluates an SQL
//! expression in the reference SQLite (bound parameters, typed result) and
//! calls ringlite's built-in function of the same name directly.
#![allow(clippy::approx_constant)]
#![allow(dead_code, unsafe_code)]

use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncKind, FunctionContext, FunctionRegistry};
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

/// Outcome of one evaluation: a typed value, or an error message.
pub type Outcome = Result<Value, String>;

/// A reference SQLite connection (in memory).
pub struct RefDb {
    db: *mut ffi::sqlite3,
}

impl RefDb {
    pub fn open() -> RefDb {
        let mut db = std::ptr::null_mut();
        let name = CString::new(":memory:").unwrap();
        let rc = unsafe { ffi::sqlite3_open(name.as_ptr(), &mut db) };
        assert_eq!(rc, ffi::SQLITE_OK);
        RefDb { db }
    }

    /// Run `sql` with `params` bound; return every column of every row.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, String> {
        unsafe {
            let csql = CString::new(sql).unwrap();
            let mut stmt = std::ptr::null_mut();
            let rc = ffi::sqlite3_prepare_v2(self.db, csql.as_ptr(), -1, &mut stmt, std::ptr::null_mut());
            if rc != ffi::SQLITE_OK {
                return Err(self.errmsg());
            }
            for (i, p) in params.iter().enumerate() {
                let idx = i as i32 + 1;
                match p {
                    Value::Null | Value::Pointer(_) => ffi::sqlite3_bind_null(stmt, idx),
                    Value::Integer(v) => ffi::sqlite3_bind_int64(stmt, idx, *v),
                    Value::Real(v) => ffi::sqlite3_bind_double(stmt, idx, *v),
                    Value::Text(t) => ffi::sqlite3_bind_text(stmt, idx, t.as_ptr() as *const _, t.len() as i32, ffi::SQLITE_TRANSIENT()),
                    Value::Blob(b) => ffi::sqlite3_bind_blob(stmt, idx, b.as_ptr() as *const _, b.len() as i32, ffi::SQLITE_TRANSIENT()),
                    Value::ZeroBlob(n) => ffi::sqlite3_bind_zeroblob(stmt, idx, *n as i32),
                };
            }
            let mut rows = Vec::new();
            loop {
                let rc = ffi::sqlite3_step(stmt);
                if rc == ffi::SQLITE_ROW {
                    let n = ffi::sqlite3_column_count(stmt);
                    let mut row = Vec::new();
                    for c in 0..n {
                        row.push(column(stmt, c));
                    }
                    rows.push(row);
                } else if rc == ffi::SQLITE_DONE {
                    break;
                } else {
                    let e = self.errmsg();
                    ffi::sqlite3_finalize(stmt);
                    return Err(e);
                }
            }
            ffi::sqlite3_finalize(stmt);
            Ok(rows)
        }
    }

    /// One value from `SELECT expr` with params.
    pub fn eval(&self, expr: &str, params: &[Value]) -> Outcome {
        let rows = self.query(&format!("SELECT {expr}"), params)?;
        Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
    }

    fn errmsg(&self) -> String {
        unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.db)).to_string_lossy().into_owned() }
    }
}

impl Drop for RefDb {
    fn drop(&mut self) {
        unsafe {
            ffi::sqlite3_close(self.db);
        }
    }
}

unsafe fn column(stmt: *mut ffi::sqlite3_stmt, c: i32) -> Value {
    match ffi::sqlite3_column_type(stmt, c) {
        ffi::SQLITE_INTEGER => Value::Integer(ffi::sqlite3_column_int64(stmt, c)),
        ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_column_double(stmt, c)),
        ffi::SQLITE_TEXT => {
            let p = ffi::sqlite3_column_text(stmt, c);
            let n = ffi::sqlite3_column_bytes(stmt, c) as usize;
            Value::Text(if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        ffi::SQLITE_BLOB => {
            let p = ffi::sqlite3_column_blob(stmt, c) as *const u8;
            let n = ffi::sqlite3_column_bytes(stmt, c) as usize;
            Value::Blob(if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        _ => Value::Null,
    }
}

fn registry() -> &'static FunctionRegistry {
    static R: OnceLock<FunctionRegistry> = OnceLock::new();
    R.get_or_init(FunctionRegistry::with_builtins)
}

/// Settings of the context ringlite's functions see.
#[derive(Clone, Copy, Default)]
pub struct Ctx {
    pub now_jd_ms: Option<i64>,
    pub case_sensitive_like: bool,
}

fn with_ctx<T>(c: Ctx, subtypes: &[u32], f: impl FnOnce(&mut FunctionContext<'_>) -> T) -> (T, u32) {
    let mut now = c.now_jd_ms;
    let mut seed: u64 = 0x1234_5678_9abc_def0;
    let mut prng = |buf: &mut [u8]| {
        for b in buf.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = seed as u8;
        }
    };
    let mut ctx = FunctionContext {
        last_insert_rowid: 0,
        changes: 0,
        total_changes: 0,
        case_sensitive_like: c.case_sensitive_like,
        now_jd_ms: &mut now,
        clock: None,
        arg_subtypes: subtypes,
        arg_from_bind: &[],
        result_subtype: 0,
        prng: &mut prng,
        pure_context: None,
        func_name: "",
        max_like_pattern: 50_000,
        host: None,
    };
    let r = f(&mut ctx);
    let st = ctx.result_subtype;
    (r, st)
}

/// Call ringlite's scalar function `name` with `args`.
pub fn call_scalar(name: &str, args: &[Value]) -> Outcome {
    call_scalar_ctx(Ctx::default(), name, args)
}

pub fn call_scalar_ctx(c: Ctx, name: &str, args: &[Value]) -> Outcome {
    let def = registry().find(name, args.len()).ok_or_else(|| format!("no such function: {name}"))?;
    let FuncKind::Scalar(f) = &def.kind else { return Err(format!("{name} is not scalar")) };
    let subtypes = vec![0u32; args.len()];
    with_ctx(c, &subtypes, |ctx| f.call(ctx, args)).0.map_err(|e| e.message)
}

/// Run ringlite's aggregate `name` over `rows`, each a list of arguments.
pub fn call_aggregate(name: &str, rows: &[Vec<Value>]) -> Outcome {
    call_aggregate_n(name, rows.first().map_or(1, |r| r.len()), rows)
}

/// Like [`call_aggregate`] with an explicit argument count (for no rows).
pub fn call_aggregate_n(name: &str, n: usize, rows: &[Vec<Value>]) -> Outcome {
    let def = registry().find(name, n).ok_or_else(|| format!("no such function: {name}"))?;
    let FuncKind::Aggregate(f) = &def.kind else { return Err(format!("{name} is not aggregate")) };
    let mut st = f.start();
    let subtypes = vec![0u32; n];
    with_ctx(Ctx::default(), &subtypes, |ctx| {
        for r in rows {
            st.step(ctx, r)?;
        }
        st.finalize(ctx)
    })
    .0
    .map_err(|e| e.message)
}

/// Typed equality; reals compare bit-for-bit except NaN, and -0.0 == 0.0.
pub fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Ok(Value::Real(x)), Ok(Value::Real(y))) => x == y || (x.is_nan() && y.is_nan()),
        (Ok(Value::Null), Ok(Value::Null)) => true,
        (Ok(Value::Integer(x)), Ok(Value::Integer(y))) => x == y,
        (Ok(Value::Text(x)), Ok(Value::Text(y))) => x == y,
        (Ok(Value::Blob(x)), Ok(Value::Blob(y))) => x == y,
        // (A zero-blob is the blob of its zeros.)
        (Ok(Value::Blob(x)), Ok(Value::ZeroBlob(n))) | (Ok(Value::ZeroBlob(n)), Ok(Value::Blob(x))) => x.len() == *n && x.iter().all(|&b| b == 0),
        (Ok(Value::ZeroBlob(m)), Ok(Value::ZeroBlob(n))) => m == n,
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

/// Short, readable rendering of a value for failure reports.
pub fn show(v: &Outcome) -> String {
    match v {
        Ok(Value::Text(t)) => format!("Text({:?})", String::from_utf8_lossy(t)),
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("Err({e:?})"),
    }
}

/// A broad set of argument values: NULL, integers, reals, text, blobs.
pub fn sample_values() -> Vec<Value> {
    let mut v = vec![
        Value::Null,
        Value::Integer(0),
        Value::Integer(1),
        Value::Integer(-1),
        Value::Integer(2),
        Value::Integer(3),
        Value::Integer(7),
        Value::Integer(-5),
        Value::Integer(100),
        Value::Integer(i64::MAX),
        Value::Integer(i64::MIN),
        Value::Real(0.0),
        Value::Real(-0.0),
        Value::Real(0.5),
        Value::Real(-2.5),
        Value::Real(1.5),
        Value::Real(3.14159),
        Value::Real(1e20),
        Value::Real(-1e-7),
        Value::Real(123456.789),
    ];
    for t in [
        "",
        "a",
        "abc",
        "Hello World",
        "  padded  ",
        "12",
        "-3.5",
        "1e3",
        " 42 ",
        "0x1F",
        "abc123",
        "ÄöÜ€",
        "日本語",
        "a%b_c",
        "%",
        "_",
        "[a-c]*",
        "*?",
        "xyz",
        "ABC",
        "abcabc",
    ] {
        v.push(Value::text(t));
    }
    v.push(Value::Blob(vec![]));
    v.push(Value::Blob(vec![0x61, 0x62, 0x63]));
    v.push(Value::Blob(vec![0x00, 0xff, 0x10]));
    v
}

/// Compare `name(args)` in both engines over every combination of
/// `values` of length `arity`; return the list of mismatches.
pub fn check_function(db: &RefDb, name: &str, arity: usize, values: &[Value]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut idx = vec![0usize; arity];
    loop {
        let args: Vec<Value> = idx.iter().map(|&i| values[i].clone()).collect();
        let placeholders = vec!["?"; arity].join(",");
        let expected = db.eval(&format!("{name}({placeholders})"), &args);
        let got = call_scalar(name, &args);
        if !same(&expected, &got) {
            let shown: Vec<String> = args.iter().map(|a| show(&Ok(a.clone()))).collect();
            bad.push(format!("{name}({}) sqlite={} ours={}", shown.join(", "), show(&expected), show(&got)));
        }
        // next combination
        let mut k = 0;
        loop {
            if k == arity {
                return bad;
            }
            idx[k] += 1;
            if idx[k] < values.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// Assert no mismatch, printing the first few.
pub fn assert_clean(bad: Vec<String>) {
    if !bad.is_empty() {
        for b in bad.iter().take(30) {
            eprintln!("{b}");
        }
        panic!("{} mismatches", bad.len());
    }
}

/// A fresh state of ringlite's aggregate `name` with `n` arguments.
pub fn new_state(name: &str, n: usize) -> Box<dyn ringlite::vdbe::func::AggregateState> {
    let def = registry().find(name, n).unwrap_or_else(|| panic!("no such function: {name}"));
    let FuncKind::Aggregate(f) = &def.kind else { panic!("{name} is not aggregate") };
    f.start()
}

/// Run `f` with a default function context.
pub fn in_ctx<T>(f: impl FnOnce(&mut FunctionContext<'_>) -> T) -> T {
    let subtypes = [0u32; 8];
    with_ctx(Ctx::default(), &subtypes, f).0
}

/// Call a scalar with argument subtypes; returns the result and its subtype.
pub fn call_scalar_sub(name: &str, args: &[Value], subtypes: &[u32]) -> (Outcome, u32) {
    let def = match registry().find(name, args.len()) {
        Some(d) => d,
        None => return (Err(format!("no such function: {name}")), 0),
    };
    let FuncKind::Scalar(f) = &def.kind else { return (Err(format!("{name} is not scalar")), 0) };
    let (r, st) = with_ctx(Ctx::default(), subtypes, |ctx| f.call(ctx, args));
    (r.map_err(|e| e.message), st)
}
