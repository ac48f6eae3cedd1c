//! A minimal handle on the reference SQLite, for differential tests only.
#![allow(unsafe_code, reason = "a handle on the reference SQLite through its C API")]

use crate::value::Value;
use libsqlite3_sys as ffi;
use std::ffi::{CStr, CString};
use std::ptr;

/// One reference connection.
pub struct RefDb {
    db: *mut ffi::sqlite3,
}

/// A prepared statement on a [`RefDb`].
pub struct RefStmt {
    st: *mut ffi::sqlite3_stmt,
}

impl RefDb {
    pub fn open(path: &str) -> RefDb {
        let c = CString::new(path).unwrap();
        let mut db = ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_open(c.as_ptr(), &mut db) };
        assert_eq!(rc, 0);
        RefDb { db }
    }

    pub fn memory() -> RefDb {
        RefDb::open(":memory:")
    }

    /// `SQLITE_DBCONFIG_FP_DIGITS`: significant digits of REAL→text.
    pub fn set_fp_digits(&self, n: i32) {
        let mut out: i32 = 0;
        let rc = unsafe { ffi::sqlite3_db_config(self.db, ffi::SQLITE_DBCONFIG_FP_DIGITS, n, &mut out as *mut i32) };
        assert_eq!((rc, out), (0, n));
    }

    pub fn exec(&self, sql: &str) {
        let c = CString::new(sql).unwrap();
        let mut err = ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_exec(self.db, c.as_ptr(), None, ptr::null_mut(), &mut err) };
        if rc != 0 {
            let msg = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
            panic!("{sql}: {msg}");
        }
    }

    pub fn prepare(&self, sql: &str) -> RefStmt {
        let c = CString::new(sql).unwrap();
        let mut st = ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_prepare_v2(self.db, c.as_ptr(), -1, &mut st, ptr::null_mut()) };
        assert_eq!(rc, 0, "{sql}");
        RefStmt { st }
    }

    /// Runs `sql` with `params`, returning all rows.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, i32> {
        let mut st = self.prepare(sql);
        st.run(params)
    }
}

impl Drop for RefDb {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_close(self.db) };
    }
}

impl RefStmt {
    pub fn run(&mut self, params: &[Value]) -> Result<Vec<Vec<Value>>, i32> {
        unsafe {
            ffi::sqlite3_reset(self.st);
            ffi::sqlite3_clear_bindings(self.st);
            for (i, p) in params.iter().enumerate() {
                let idx = i as i32 + 1;
                match p {
                    Value::Null | Value::Pointer(_) => ffi::sqlite3_bind_null(self.st, idx),
                    Value::Integer(v) => ffi::sqlite3_bind_int64(self.st, idx, *v),
                    Value::Real(v) => ffi::sqlite3_bind_double(self.st, idx, *v),
                    Value::Text(t) => ffi::sqlite3_bind_text(self.st, idx, t.as_ptr().cast(), t.len() as i32, ffi::SQLITE_TRANSIENT()),
                    Value::Blob(b) => ffi::sqlite3_bind_blob(self.st, idx, b.as_ptr().cast(), b.len() as i32, ffi::SQLITE_TRANSIENT()),
                    Value::ZeroBlob(n) => ffi::sqlite3_bind_zeroblob(self.st, idx, *n as i32),
                };
            }
            let mut rows = Vec::new();
            loop {
                let rc = ffi::sqlite3_step(self.st);
                if rc == ffi::SQLITE_DONE {
                    break;
                }
                if rc != ffi::SQLITE_ROW {
                    ffi::sqlite3_reset(self.st);
                    return Err(ffi::sqlite3_extended_errcode(ffi::sqlite3_db_handle(self.st)));
                }
                let n = ffi::sqlite3_column_count(self.st);
                let mut row = Vec::new();
                for c in 0..n {
                    row.push(match ffi::sqlite3_column_type(self.st, c) {
                        ffi::SQLITE_INTEGER => Value::Integer(ffi::sqlite3_column_int64(self.st, c)),
                        ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_column_double(self.st, c)),
                        ffi::SQLITE_TEXT => {
                            let p = ffi::sqlite3_column_text(self.st, c);
                            let len = ffi::sqlite3_column_bytes(self.st, c) as usize;
                            Value::Text(if len == 0 { Vec::new() } else { std::slice::from_raw_parts(p, len).to_vec() })
                        }
                        ffi::SQLITE_BLOB => {
                            let p = ffi::sqlite3_column_blob(self.st, c) as *const u8;
                            let len = ffi::sqlite3_column_bytes(self.st, c) as usize;
                            Value::Blob(if len == 0 { Vec::new() } else { std::slice::from_raw_parts(p, len).to_vec() })
                        }
                        _ => Value::Null,
                    });
                }
                rows.push(row);
            }
            Ok(rows)
        }
    }
}

impl Drop for RefStmt {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_finalize(self.st) };
    }
}

/// Exact equality of values (bitwise for REAL), for assertions.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Integer(x), Value::Integer(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        (Value::Text(x), Value::Text(y)) | (Value::Blob(x), Value::Blob(y)) => x == y,
        _ => false,
    }
}

/// Debug rendering with text shown as a string.
pub fn show(v: &Value) -> String {
    match v {
        Value::Text(t) => format!("Text({:?})", String::from_utf8_lossy(t)),
        Value::Blob(b) => format!("Blob({b:02x?})"),
        other => format!("{other:?}"),
    }
}

/// Iteration count for a differential test: `base` times the factor in
/// `RINGLITE_DIFF_SCALE` (default 1), for longer soak runs.
pub fn iterations(base: usize) -> usize {
    let scale = std::env::var("RINGLITE_DIFF_SCALE").ok().and_then(|s| s.parse::<usize>().ok()).unwrap_or(1);
    base * scale.max(1)
}

/// A small deterministic generator (tests must be reproducible).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// A double from a mix of distributions that exercise rendering edges.
    pub fn double(&mut self) -> f64 {
        match self.below(8) {
            0 => f64::from_bits(self.next()),
            1 => (self.next() as i64 >> self.below(64)) as f64,
            2 => (self.below(2_000_000) as f64 - 1_000_000.0) / 10f64.powi(self.below(8) as i32),
            3 => (self.next() as f64 / u64::MAX as f64) * 10f64.powi(self.below(40) as i32 - 20),
            4 => *self.pick(&[
                0.1,
                0.2,
                0.3,
                1.0 / 3.0,
                2.0 / 3.0,
                1e15,
                1e16,
                1e17,
                123456789012345678.0,
                0.5,
                1.5,
                2.5,
                1e-5,
                1e-4,
                9.999999999999999e22,
                5e-324,
                f64::MAX,
                f64::MIN_POSITIVE,
                49.47,
                100.0,
                0.125,
                2.675,
            ]),
            5 => {
                let r = f64::from_bits(self.next());
                if r.is_finite() {
                    r
                } else {
                    1.0
                }
            }
            6 => (self.below(100000) as f64) * 10f64.powi(self.below(30) as i32),
            _ => {
                // Decimal literals with few digits: the common case in SQL.
                let digits = self.below(1_000_000_000) as f64;
                digits / 10f64.powi(self.below(12) as i32)
            }
        }
    }

    /// A text that may or may not look like a number.
    pub fn numeric_text(&mut self) -> Vec<u8> {
        let parts: &[&str] = &[
            "",
            " ",
            "  ",
            "\t",
            "+",
            "-",
            "0",
            "00",
            "1",
            "7",
            "12",
            "123",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551616",
            "99999999999999999999",
            ".",
            "e",
            "E",
            "e5",
            "e-3",
            "e+400",
            "x",
            "abc",
            "0x1F",
            "1.",
            ".5",
            "3.25",
            "1e3",
            "1e",
            "1e+",
            "  12  ",
            "\n",
            "inf",
            "nan",
            "4503599627370496",
            "2251799813685248",
            "123456789012345678901234",
            "\0",
            "1\x002",
        ];
        let n = 1 + self.below(4);
        let mut s = Vec::new();
        for _ in 0..n {
            s.extend_from_slice(self.pick(parts).as_bytes());
        }
        s
    }
}
