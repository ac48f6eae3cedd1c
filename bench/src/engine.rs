//! # The two engines behind one interface
//!
//! Every workload is written once, generic over [`Engine`], so SQLite and
//! ringlite run exactly the same statements with the same bindings in the
//! same order. [`Sqlite`] drives real SQLite (3.54.1, bundled by
//! `libsqlite3-sys`) through its raw C API; [`Ringlite`] drives the engine
//! crate's safe API in blocking mode.
//!
//! Invariants: a statement handle is only used with the engine that
//! prepared it, and is finalized before the engine is dropped (the SQLite
//! wrapper closes with `sqlite3_close`, which fails on unfinalized
//! statements). Errors are flattened to `String`: the
//! benchmark only reports them.

use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::{CStr, CString};
use std::path::Path;

/// Result type of engine calls: errors are reported, never handled.
pub type R<T> = std::result::Result<T, String>;

/// What a workload needs from a database engine.
pub trait Engine: Sized {
    /// A prepared statement.
    type Stmt;
    /// Short name for tables ("sqlite", "ringlite").
    const NAME: &'static str;
    /// Open (creating if needed) the database file at `path`.
    fn open(path: &Path) -> R<Self>;
    /// Run every statement of `sql`, discarding rows.
    fn exec(&mut self, sql: &str) -> R<()>;
    /// Compile the first statement of `sql`.
    fn prepare(&mut self, sql: &str) -> R<Self::Stmt>;
    /// Bind an integer to parameter `i` (1-based).
    fn bind_i64(&mut self, s: &mut Self::Stmt, i: usize, v: i64) -> R<()>;
    /// Bind text to parameter `i` (1-based).
    fn bind_text(&mut self, s: &mut Self::Stmt, i: usize, v: &str) -> R<()>;
    /// Advance: `true` when a row is ready, `false` when done.
    fn step(&mut self, s: &mut Self::Stmt) -> R<bool>;
    /// Column `i` of the current row as an integer.
    fn col_i64(&self, s: &Self::Stmt, i: usize) -> i64;
    /// Byte length of column `i` of the current row as text.
    fn col_len(&self, s: &Self::Stmt, i: usize) -> usize;
    /// Number of result columns.
    fn col_count(&self, s: &Self::Stmt) -> usize;
    /// Rewind for another run; bindings stay.
    fn reset(&mut self, s: &mut Self::Stmt);
    /// Release the statement.
    fn finalize(&mut self, s: Self::Stmt);

    /// First column of the first row of `sql` as text (for pragmas).
    fn query_text(&mut self, sql: &str) -> R<String>;

    /// Step `s` to the end, folding every column of every row into a
    /// checksum (integers by value, text by length) so the optimiser
    /// cannot skip the work and both engines can be compared.
    ///
    /// The checksum compares rows as a multiset: each row is hashed in
    /// column order, and row hashes are added, which is commutative. A
    /// query without ORDER BY may legitimately return its rows in another
    /// order on the other engine (a different join order, say).
    fn drain(&mut self, s: &mut Self::Stmt) -> R<u64> {
        let mut sum = 0u64;
        let n = self.col_count(s);
        while self.step(s)? {
            let mut row = 0x9e37_79b9_7f4a_7c15u64;
            for i in 0..n {
                row = row.wrapping_mul(31).wrapping_add(self.col_i64(s, i) as u64 ^ self.col_len(s, i) as u64);
            }
            // Mix so that rows with equal column sums do not cancel out.
            sum = sum.wrapping_add(row.wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(29));
        }
        self.reset(s);
        Ok(sum)
    }
}

/// Real SQLite through the C API.
pub struct Sqlite {
    db: *mut ffi::sqlite3,
}

/// A SQLite prepared statement.
pub struct SqliteStmt(*mut ffi::sqlite3_stmt);

// SAFETY: a SQLite connection opened with the default (serialized or
// multi-thread) threading mode may move between threads as long as one
// thread uses it at a time, which `&mut self` guarantees.
unsafe impl Send for Sqlite {}
unsafe impl Send for SqliteStmt {}

impl Sqlite {
    fn errmsg(&self) -> String {
        unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.db)).to_string_lossy().into_owned() }
    }
    fn check(&self, rc: i32) -> R<()> {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(format!("sqlite error {rc}: {}", self.errmsg()))
        }
    }
}

impl Sqlite {
    /// Open through the named VFS (`None`: the default one).
    pub fn open_vfs(path: &Path, vfs: Option<&CStr>) -> R<Self> {
        let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        let mut db = std::ptr::null_mut();
        let vfs = vfs.map_or(std::ptr::null(), |v| v.as_ptr());
        let rc = unsafe { ffi::sqlite3_open_v2(c.as_ptr(), &mut db, ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE, vfs) };
        let s = Sqlite { db };
        s.check(rc)?;
        Ok(s)
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        unsafe {
            ffi::sqlite3_close(self.db);
        }
    }
}

impl Sqlite {
    /// `sqlite3_db_release_memory`.
    pub fn release_memory(&self) {
        unsafe {
            ffi::sqlite3_db_release_memory(self.db);
        }
    }

    /// Column 0 of the current row fetched as a blob: its byte count.
    pub fn blob_len(&self, s: &SqliteStmt) -> usize {
        unsafe {
            let p = ffi::sqlite3_column_blob(s.0, 0);
            if p.is_null() {
                0
            } else {
                ffi::sqlite3_column_bytes(s.0, 0) as usize
            }
        }
    }
}

impl Engine for Sqlite {
    type Stmt = SqliteStmt;
    const NAME: &'static str = "sqlite";

    fn open(path: &Path) -> R<Self> {
        Self::open_vfs(path, None)
    }

    fn exec(&mut self, sql: &str) -> R<()> {
        let c = CString::new(sql).map_err(|e| e.to_string())?;
        let rc = unsafe { ffi::sqlite3_exec(self.db, c.as_ptr(), None, std::ptr::null_mut(), std::ptr::null_mut()) };
        self.check(rc)
    }

    fn prepare(&mut self, sql: &str) -> R<SqliteStmt> {
        let mut st = std::ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_prepare_v2(self.db, sql.as_ptr().cast(), sql.len() as i32, &mut st, std::ptr::null_mut()) };
        self.check(rc)?;
        if st.is_null() {
            return Err(format!("no statement in {sql:?}"));
        }
        Ok(SqliteStmt(st))
    }

    fn bind_i64(&mut self, s: &mut SqliteStmt, i: usize, v: i64) -> R<()> {
        let rc = unsafe { ffi::sqlite3_bind_int64(s.0, i as i32, v) };
        self.check(rc)
    }

    fn bind_text(&mut self, s: &mut SqliteStmt, i: usize, v: &str) -> R<()> {
        let rc = unsafe { ffi::sqlite3_bind_text(s.0, i as i32, v.as_ptr().cast(), v.len() as i32, ffi::SQLITE_TRANSIENT()) };
        self.check(rc)
    }

    fn step(&mut self, s: &mut SqliteStmt) -> R<bool> {
        match unsafe { ffi::sqlite3_step(s.0) } {
            ffi::SQLITE_ROW => Ok(true),
            ffi::SQLITE_DONE => Ok(false),
            rc => Err(format!("sqlite step {rc}: {}", self.errmsg())),
        }
    }

    fn col_i64(&self, s: &SqliteStmt, i: usize) -> i64 {
        unsafe { ffi::sqlite3_column_int64(s.0, i as i32) }
    }

    fn col_len(&self, s: &SqliteStmt, i: usize) -> usize {
        // Ask for the text form first so the length is the UTF-8 length,
        // as ringlite's text conversion reports it.
        unsafe {
            if ffi::sqlite3_column_type(s.0, i as i32) == ffi::SQLITE_TEXT {
                ffi::sqlite3_column_text(s.0, i as i32);
                ffi::sqlite3_column_bytes(s.0, i as i32) as usize
            } else {
                0
            }
        }
    }

    fn col_count(&self, s: &SqliteStmt) -> usize {
        unsafe { ffi::sqlite3_column_count(s.0) as usize }
    }

    fn reset(&mut self, s: &mut SqliteStmt) {
        unsafe {
            ffi::sqlite3_reset(s.0);
        }
    }

    fn finalize(&mut self, s: SqliteStmt) {
        unsafe {
            ffi::sqlite3_finalize(s.0);
        }
    }

    fn query_text(&mut self, sql: &str) -> R<String> {
        let mut s = self.prepare(sql)?;
        let out = if self.step(&mut s)? {
            unsafe {
                let p = ffi::sqlite3_column_text(s.0, 0);
                if p.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(p.cast()).to_string_lossy().into_owned()
                }
            }
        } else {
            String::new()
        };
        self.finalize(s);
        Ok(out)
    }
}

/// ringlite through its Rust API, blocking mode.
pub struct Ringlite {
    /// The connection (public so the tenants suite can open async ones).
    pub conn: Connection,
}

impl Ringlite {
    /// Open with explicit flags (the tenants suite adds `ASYNC`).
    pub fn open_flags(path: &Path, extra: i32) -> R<Self> {
        let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | extra);
        let conn = Connection::open(&path.to_string_lossy(), flags).map_err(|e| format!("ringlite open: {e}"))?;
        Ok(Ringlite { conn })
    }
}

impl Ringlite {
    /// Column 0 of the current row fetched as a blob: its byte count.
    pub fn blob_len(&self, s: &ringlite::Statement) -> usize {
        match s.column(0) {
            Value::Blob(b) => b.len(),
            _ => 0,
        }
    }
}

impl Drop for Ringlite {
    fn drop(&mut self) {
        let _ = self.conn.close();
    }
}

impl Engine for Ringlite {
    type Stmt = ringlite::Statement;
    const NAME: &'static str = "ringlite";

    fn open(path: &Path) -> R<Self> {
        Self::open_flags(path, 0)
    }

    fn exec(&mut self, sql: &str) -> R<()> {
        let mut rest = sql.as_bytes();
        loop {
            let (st, tail) = self.conn.prepare(rest).map_err(|e| format!("ringlite prepare {sql:?}: {e}"))?;
            if let Some(mut st) = st {
                while self.step(&mut st)? {}
                st.reset(&mut self.conn);
            }
            if tail == 0 || tail >= rest.len() {
                return Ok(());
            }
            rest = &rest[tail..];
        }
    }

    fn prepare(&mut self, sql: &str) -> R<ringlite::Statement> {
        match self.conn.prepare(sql.as_bytes()) {
            Ok((Some(s), _)) => Ok(s),
            Ok((None, _)) => Err(format!("no statement in {sql:?}")),
            Err(e) => Err(format!("ringlite prepare {sql:?}: {e}")),
        }
    }

    fn bind_i64(&mut self, s: &mut ringlite::Statement, i: usize, v: i64) -> R<()> {
        s.bind(i, Value::Integer(v)).map_err(|e| e.to_string())
    }

    fn bind_text(&mut self, s: &mut ringlite::Statement, i: usize, v: &str) -> R<()> {
        s.bind(i, Value::text(v)).map_err(|e| e.to_string())
    }

    fn step(&mut self, s: &mut ringlite::Statement) -> R<bool> {
        loop {
            match s.step(&mut self.conn) {
                Ok(StepResult::Row) => return Ok(true),
                Ok(StepResult::Done) => return Ok(false),
                // Blocking connections never report Io; loop if one does.
                Ok(StepResult::Io) => continue,
                Err(e) => return Err(format!("ringlite step: {e}")),
            }
        }
    }

    fn col_i64(&self, s: &ringlite::Statement, i: usize) -> i64 {
        s.column(i).as_ref().to_i64()
    }

    fn col_len(&self, s: &ringlite::Statement, i: usize) -> usize {
        match s.column(i) {
            Value::Text(t) => t.len(),
            _ => 0,
        }
    }

    fn col_count(&self, s: &ringlite::Statement) -> usize {
        s.column_count()
    }

    fn reset(&mut self, s: &mut ringlite::Statement) {
        s.reset(&mut self.conn);
    }

    fn finalize(&mut self, mut s: ringlite::Statement) {
        s.reset(&mut self.conn);
    }

    fn query_text(&mut self, sql: &str) -> R<String> {
        let mut s = self.prepare(sql)?;
        let out = if self.step(&mut s)? {
            s.column(0).as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default()
        } else {
            String::new()
        };
        self.finalize(s);
        Ok(out)
    }
}
