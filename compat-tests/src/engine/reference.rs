//! # The reference backend: real SQLite via `libsqlite3-sys`
//!
//! Owns one `sqlite3*` on `:memory:`. Statements are prepared one at a
//! time from the SQL text (following the tail pointer) and always
//! finalized before `run` returns, so no statement outlives a call.

use super::{Cell, Engine, EngineError, Interrupter, Rows};
use libsqlite3_sys as ffi;
use std::ffi::{c_char, CStr, CString};
use std::sync::Arc;

pub struct Reference {
    db: *mut ffi::sqlite3,
}

/// A connection pointer that may be used for `sqlite3_interrupt` from the
/// watchdog thread; SQLite documents that call as thread-safe.
#[derive(Clone, Copy)]
struct DbHandle(*mut ffi::sqlite3);
unsafe impl Send for DbHandle {}
unsafe impl Sync for DbHandle {}

impl Reference {
    pub fn open() -> Result<Reference, EngineError> {
        Reference::open_with(":memory:", ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE)
    }

    /// A database file, created if missing (the corrupt-file fuzzer
    /// builds its files with the reference).
    pub fn create(path: &str) -> Result<Reference, EngineError> {
        Reference::open_with(path, ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE)
    }

    /// An existing database file, read-write.
    pub fn open_path(path: &str) -> Result<Reference, EngineError> {
        Reference::open_with(path, ffi::SQLITE_OPEN_READWRITE)
    }

    fn open_with(path: &str, flags: i32) -> Result<Reference, EngineError> {
        let mut db = std::ptr::null_mut();
        let name = CString::new(path).map_err(|_| EngineError { code: 1, message: "NUL in path".into(), partial: None })?;
        let rc = unsafe { ffi::sqlite3_open_v2(name.as_ptr(), &mut db, flags, std::ptr::null()) };
        if rc != ffi::SQLITE_OK {
            let message = if db.is_null() {
                "cannot open the reference database".into()
            } else {
                unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(db)).to_string_lossy().into_owned() }
            };
            let err = EngineError { code: rc, message, partial: None };
            unsafe { ffi::sqlite3_close(db) };
            return Err(err);
        }
        unsafe { ffi::sqlite3_extended_result_codes(db, 1) };
        Ok(Reference { db })
    }

    fn error(&self) -> EngineError {
        unsafe {
            EngineError {
                code: ffi::sqlite3_extended_errcode(self.db),
                message: CStr::from_ptr(ffi::sqlite3_errmsg(self.db)).to_string_lossy().into_owned(),
                partial: None,
            }
        }
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_close(self.db) };
    }
}

/// Read column `i` of the current row by its storage class.
unsafe fn read_cell(stmt: *mut ffi::sqlite3_stmt, i: i32) -> Cell {
    match ffi::sqlite3_column_type(stmt, i) {
        ffi::SQLITE_INTEGER => Cell::Integer(ffi::sqlite3_column_int64(stmt, i)),
        ffi::SQLITE_FLOAT => Cell::Real(ffi::sqlite3_column_double(stmt, i)),
        ffi::SQLITE_TEXT => {
            let p = ffi::sqlite3_column_text(stmt, i);
            let n = ffi::sqlite3_column_bytes(stmt, i) as usize;
            Cell::Text(if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        ffi::SQLITE_BLOB => {
            let p = ffi::sqlite3_column_blob(stmt, i) as *const u8;
            let n = ffi::sqlite3_column_bytes(stmt, i) as usize;
            Cell::Blob(if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        _ => Cell::Null,
    }
}

impl Engine for Reference {
    fn run(&mut self, sql: &str) -> Result<Rows, EngineError> {
        let bytes = sql.as_bytes();
        let mut offset = 0usize;
        let mut result = Rows::default();
        while offset < bytes.len() {
            let rest = &bytes[offset..];
            let mut stmt = std::ptr::null_mut();
            let mut tail: *const c_char = std::ptr::null();
            let start = rest.as_ptr() as *const c_char;
            let rc = unsafe { ffi::sqlite3_prepare_v2(self.db, start, rest.len() as i32, &mut stmt, &mut tail) };
            if rc != ffi::SQLITE_OK {
                return Err(self.error());
            }
            let consumed = if tail.is_null() { rest.len() } else { tail as usize - start as usize };
            offset += consumed.max(1);
            if stmt.is_null() {
                continue; // whitespace or a comment
            }
            let columns = unsafe { ffi::sqlite3_column_count(stmt) } as usize;
            let mut rows = Vec::new();
            let outcome = loop {
                match unsafe { ffi::sqlite3_step(stmt) } {
                    ffi::SQLITE_ROW => rows.push((0..columns as i32).map(|i| unsafe { read_cell(stmt, i) }).collect()),
                    ffi::SQLITE_DONE => break Ok(()),
                    _ => break Err(()),
                }
            };
            // sqlite3_finalize leaves the statement's error in the handle.
            let rc = unsafe { ffi::sqlite3_finalize(stmt) };
            if outcome.is_err() || rc != ffi::SQLITE_OK {
                let mut e = self.error();
                e.partial = (columns > 0).then_some(Rows { columns, rows });
                return Err(e);
            }
            if columns > 0 {
                result = Rows { columns, rows };
            }
        }
        Ok(result)
    }

    fn interrupter(&self) -> Interrupter {
        let handle = DbHandle(self.db);
        Arc::new(move || {
            let h = handle;
            unsafe { ffi::sqlite3_interrupt(h.0) }
        })
    }

    fn limit(&mut self, id: i32, value: i32) -> i32 {
        unsafe { ffi::sqlite3_limit(self.db, id, value) }
    }
}

/// `sqlite3_snprintf("%.3f", x)`: the classic sqllogictest runner formats
/// `R` columns with SQLite's own printf, whose rounding differs from libc's
/// and Rust's on ties, so the harness borrows the reference's.
pub fn format_real_3(x: f64) -> String {
    let mut buf = [0 as c_char; 64];
    let fmt = b"%.3f\0";
    unsafe {
        ffi::sqlite3_snprintf(buf.len() as i32, buf.as_mut_ptr(), fmt.as_ptr() as *const c_char, x);
        CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

/// SQLite's own value conversions (`sqlite3_column_int64`, `_double`,
/// `_text` applied to a value of another storage class), done by binding
/// the value to `SELECT ?1` on a private reference connection, so the
/// harness converts exactly as the classic runner's calls would.
pub struct Converter {
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
}

thread_local! {
    static CONVERTER: Converter = Converter::new();
}

/// How to read the bound value back.
#[derive(Clone, Copy)]
pub enum As {
    Int,
    Real,
    Text,
}

impl Converter {
    fn new() -> Converter {
        let mut db = std::ptr::null_mut();
        let mut stmt = std::ptr::null_mut();
        unsafe {
            let name = CString::new(":memory:").unwrap();
            ffi::sqlite3_open(name.as_ptr(), &mut db);
            let sql = b"SELECT ?1\0";
            ffi::sqlite3_prepare_v2(db, sql.as_ptr() as *const c_char, -1, &mut stmt, std::ptr::null_mut());
        }
        Converter { db, stmt }
    }

    /// Convert `cell` as the matching `sqlite3_column_*` call would.
    pub fn convert(cell: &Cell, to: As) -> Cell {
        CONVERTER.with(|c| unsafe {
            let s = c.stmt;
            ffi::sqlite3_reset(s);
            match cell {
                Cell::Null => ffi::sqlite3_bind_null(s, 1),
                Cell::Integer(i) => ffi::sqlite3_bind_int64(s, 1, *i),
                Cell::Real(r) => ffi::sqlite3_bind_double(s, 1, *r),
                Cell::Text(t) => ffi::sqlite3_bind_text(s, 1, t.as_ptr() as *const c_char, t.len() as i32, ffi::SQLITE_TRANSIENT()),
                Cell::Blob(b) => ffi::sqlite3_bind_blob(s, 1, b.as_ptr() as *const _, b.len() as i32, ffi::SQLITE_TRANSIENT()),
            };
            ffi::sqlite3_step(s);
            let out = match to {
                As::Int => Cell::Integer(ffi::sqlite3_column_int64(s, 0)),
                As::Real => Cell::Real(ffi::sqlite3_column_double(s, 0)),
                As::Text => {
                    let p = ffi::sqlite3_column_text(s, 0);
                    let n = ffi::sqlite3_column_bytes(s, 0) as usize;
                    Cell::Text(if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
                }
            };
            ffi::sqlite3_reset(s);
            ffi::sqlite3_clear_bindings(s);
            out
        })
    }
}

impl Drop for Converter {
    fn drop(&mut self) {
        unsafe {
            ffi::sqlite3_finalize(self.stmt);
            ffi::sqlite3_close(self.db);
        }
    }
}
