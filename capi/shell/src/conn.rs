//! # One open database and its statements
//!
//! A thin owner of a `sqlite3*` and the statements prepared on it: SQL
//! text is prepared one statement at a time (as SQLite's shell does, so
//! an error stops the rest of the text), rows are copied out as [`Cell`]s,
//! and on an async connection (`SQLITE_OPEN_ASYNC`, ringlite's extension)
//! every `SQLITE_IO` answer is waited out with `sqlite3_io_poll` and
//! counted in [`AsyncCounts`].
//!
//! Invariants: `db` is an open connection for the life of a `Conn` (it
//! is closed in `Drop` only); a [`Stmt`] is finalized exactly once, by
//! [`Stmt::finish`] or its `Drop`.

use crate::api::*;
use std::cell::Cell as Counter;
use std::ffi::{c_int, CString};

/// A copied-out column value: the storage class and its bytes (the text
/// SQLite converts it to, or the blob's bytes), with the numbers beside.
#[derive(Clone, Debug)]
pub struct Cell {
    pub kind: c_int,
    pub bytes: Vec<u8>,
    pub real: f64,
}

impl Cell {
    pub fn is_null(&self) -> bool {
        self.kind == SQLITE_NULL
    }
}

/// What the statements of one async connection waited for.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsyncCounts {
    /// `sqlite3_step` answers of `SQLITE_IO`.
    pub suspensions: u64,
    /// `sqlite3_io_poll` calls made to wait them out.
    pub polls: u64,
}

/// An error as SQLite's shell words it (before its "Parse error near line
/// N:" prefix): the phase, the message, the result code when above 1, and
/// the caret under the failing spot of a prepare.
#[derive(Debug)]
pub struct SqlError {
    pub text: String,
}

pub struct Conn {
    pub api: &'static Api,
    pub db: *mut Db,
    /// The name it was opened with ("" or ":memory:" for a transient one).
    pub name: String,
    pub is_async: bool,
    pub counts: Counter<AsyncCounts>,
}

impl Conn {
    pub fn open(api: &'static Api, name: &str, flags: c_int, want_async: bool) -> Result<Conn, String> {
        let c = CString::new(name).map_err(|_| "file name contains a NUL".to_string())?;
        let mut db = std::ptr::null_mut();
        let flags = flags | if want_async { SQLITE_OPEN_ASYNC } else { 0 };
        // SAFETY: valid NUL-terminated name and out pointer.
        let rc = unsafe { (api.open_v2)(c.as_ptr(), &mut db, flags, std::ptr::null()) };
        if rc != SQLITE_OK {
            // SAFETY: errmsg of a failed open's handle (or of NULL) is valid.
            let msg = unsafe { cstr((api.errmsg)(db)) };
            if !db.is_null() {
                // SAFETY: closing the handle the failed open returned.
                unsafe { (api.close_v2)(db) };
            }
            return Err(msg);
        }
        Ok(Conn { api, db, name: name.to_string(), is_async: want_async, counts: Counter::new(AsyncCounts::default()) })
    }

    pub fn errmsg(&self) -> String {
        // SAFETY: `db` is open.
        unsafe { cstr((self.api.errmsg)(self.db)) }
    }

    pub fn changes(&self) -> (i64, i64) {
        // SAFETY: `db` is open.
        unsafe { ((self.api.changes64)(self.db), (self.api.total_changes64)(self.db)) }
    }

    pub fn autocommit(&self) -> bool {
        // SAFETY: `db` is open.
        unsafe { (self.api.get_autocommit)(self.db) != 0 }
    }

    /// Prepares the first statement of `sql`; returns it (None for only
    /// whitespace or comments) and the byte offset where the rest starts.
    pub fn prepare(&self, sql: &str) -> Result<(Option<Stmt<'_>>, usize), SqlError> {
        let c = CString::new(sql.replace('\0', " ")).unwrap_or_default();
        let mut st = std::ptr::null_mut();
        let mut tail = std::ptr::null();
        // SAFETY: NUL-terminated text, valid out pointers; `tail` points
        // into `c`, which lives until the offset is computed.
        let rc = unsafe { (self.api.prepare_v2)(self.db, c.as_ptr(), -1, &mut st, &mut tail) };
        let used = if tail.is_null() { sql.len() } else { (tail as usize - c.as_ptr() as usize).min(sql.len()) };
        if rc != SQLITE_OK {
            // SAFETY: `db` is open.
            let offset = unsafe { (self.api.error_offset)(self.db) };
            return Err(SqlError { text: error_text("in prepare", &self.errmsg(), rc, Some((sql, offset))) });
        }
        Ok((if st.is_null() { None } else { Some(Stmt { conn: self, st }) }, used))
    }

    /// Runs every statement of `sql`, ignoring rows (set-up SQL of the
    /// shell's own commands).
    pub fn exec(&mut self, sql: &str) -> Result<(), SqlError> {
        let mut rest = sql;
        while !rest.trim().is_empty() {
            let (st, used) = self.prepare(rest)?;
            rest = &rest[used..];
            if let Some(mut st) = st {
                while st.step()? {}
                st.finish()?;
            }
        }
        Ok(())
    }

    /// The first column of every row of `sql`, as text.
    pub fn column_strings(&self, sql: &str, params: &[&str]) -> Result<Vec<String>, SqlError> {
        let (st, _) = self.prepare(sql)?;
        let Some(mut st) = st else { return Ok(Vec::new()) };
        for (i, p) in params.iter().enumerate() {
            st.bind_text(i as c_int + 1, p);
        }
        let mut out = Vec::new();
        while st.step()? {
            out.push(String::from_utf8_lossy(&st.cell(0).bytes).into_owned());
        }
        st.finish()?;
        Ok(out)
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // SAFETY: the handle is open and closed only here.
        unsafe { (self.api.close_v2)(self.db) };
    }
}

/// The text SQLite's shell builds for an error: "PHASE, MESSAGE", the
/// result code when it is above 1, and for a prepare with a known error
/// offset the statement around that spot with a caret under it.
pub fn error_text(phase: &str, msg: &str, rc: c_int, sql: Option<(&str, c_int)>) -> String {
    let mut s = format!("{phase}, {msg}");
    if rc > 1 {
        s.push_str(&format!(" ({rc})"));
    }
    if let Some((sql, offset)) = sql {
        if offset >= 0 {
            s.push_str(&error_context(sql, offset as usize));
        }
    }
    s
}

/// The statement shown around byte `offset`: the window starts so that
/// the spot is at most 50 bytes in, holds at most 78 bytes, whitespace
/// shown as spaces; the caret points from the left while the spot is
/// near the start, from the right after that.
fn error_context(sql: &str, offset: usize) -> String {
    let bytes = sql.as_bytes();
    let mut start = 0usize;
    let mut offset = offset.min(bytes.len());
    while offset > 50 {
        start += 1;
        offset -= 1;
        while start < bytes.len() && bytes[start] & 0xc0 == 0x80 {
            start += 1;
            offset = offset.saturating_sub(1);
        }
    }
    let rest = &bytes[start.min(bytes.len())..];
    let mut len = rest.len();
    if len > 78 {
        len = 78;
        while len > 0 && rest[len] & 0xc0 == 0x80 {
            len -= 1;
        }
    }
    let code: Vec<u8> = rest[..len].iter().map(|&b| if b.is_ascii_whitespace() || b == 0x0b { b' ' } else { b }).collect();
    let code = String::from_utf8_lossy(&code);
    if offset < 25 {
        format!("\n  {code}\n  {}^--- error here", " ".repeat(offset))
    } else {
        format!("\n  {code}\n  {}error here ---^", " ".repeat(offset - 14))
    }
}

pub struct Stmt<'c> {
    conn: &'c Conn,
    st: *mut Stmt_,
}

type Stmt_ = crate::api::Stmt;

impl Stmt<'_> {
    fn api(&self) -> &'static Api {
        self.conn.api
    }

    pub fn bind_text(&mut self, i: c_int, v: &str) {
        // SAFETY: `st` is live; the text is copied (SQLITE_TRANSIENT).
        unsafe { (self.api().bind_text)(self.st, i, v.as_ptr().cast(), v.len() as c_int, TRANSIENT) };
    }

    pub fn bind_null(&mut self, i: c_int) {
        // SAFETY: `st` is live.
        unsafe { (self.api().bind_null)(self.st, i) };
    }

    /// Binds each parameter from `temp.sqlite_parameters` (`.parameter`),
    /// found by its name (`?N` for a nameless one), as SQLite's shell does.
    pub fn bind_from_table(&mut self, table: &mut Stmt<'_>) {
        let api = self.api();
        // SAFETY: both statements are live; a value read from `table`'s
        // row is bound (copied) before `table` is stepped again.
        unsafe {
            for i in 1..=(api.bind_parameter_count)(self.st) {
                let name = (api.bind_parameter_name)(self.st, i);
                let name = if name.is_null() { format!("?{i}") } else { cstr(name) };
                table.reset();
                table.bind_text(1, &name);
                if let Ok(true) = table.step() {
                    (api.bind_value)(self.st, i, (api.column_value)(table.st, 0));
                } else {
                    (api.bind_null)(self.st, i);
                }
            }
            table.reset();
        }
    }

    pub fn has_params(&self) -> bool {
        // SAFETY: `st` is live.
        unsafe { (self.api().bind_parameter_count)(self.st) > 0 }
    }

    pub fn is_explain(&self) -> c_int {
        // SAFETY: `st` is live.
        unsafe { (self.api().stmt_isexplain)(self.st) }
    }

    pub fn column_names(&self) -> Vec<String> {
        // SAFETY: `st` is live; names are valid until the next step.
        unsafe { (0..(self.api().column_count)(self.st)).map(|i| cstr((self.api().column_name)(self.st, i))).collect() }
    }

    /// Steps once: true for a row, false when done; an async connection's
    /// waits for I/O are polled out and counted.
    pub fn step(&mut self) -> Result<bool, SqlError> {
        loop {
            // SAFETY: `st` is live.
            let rc = unsafe { (self.api().step)(self.st) };
            match rc {
                SQLITE_ROW => return Ok(true),
                SQLITE_DONE => return Ok(false),
                SQLITE_IO => {
                    let mut counts = self.conn.counts.get();
                    counts.suspensions += 1;
                    if let Some(poll) = self.api().io_poll {
                        // SAFETY: `db` is open.
                        unsafe { poll(self.conn.db, -1) };
                        counts.polls += 1;
                    }
                    self.conn.counts.set(counts);
                }
                _ => {
                    // SQLite's shell reports the code the statement ends
                    // with (what reset and finalize answer); the statement
                    // stays usable (`.import` goes on with the next row).
                    // SAFETY: `st` is live.
                    let rc = unsafe { (self.api().reset)(self.st) };
                    return Err(SqlError { text: error_text("stepping", &self.conn.errmsg(), rc, None) });
                }
            }
        }
    }

    /// Rewinds the statement for another run with new bindings.
    pub fn reset(&mut self) {
        // SAFETY: `st` is live.
        unsafe { (self.api().reset)(self.st) };
    }

    pub fn column_count(&self) -> usize {
        // SAFETY: `st` is live.
        unsafe { (self.api().column_count)(self.st) as usize }
    }

    pub fn cell(&self, i: usize) -> Cell {
        let api = self.api();
        let i = i as c_int;
        // SAFETY: `st` is live and on a row; the pointers read are valid
        // for the byte counts returned right after them.
        unsafe {
            let kind = (api.column_type)(self.st, i);
            match kind {
                SQLITE_NULL => Cell { kind, bytes: Vec::new(), real: 0.0 },
                SQLITE_BLOB => {
                    let p = (api.column_blob)(self.st, i) as *const u8;
                    let n = (api.column_bytes)(self.st, i) as usize;
                    let bytes = if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() };
                    Cell { kind, bytes, real: 0.0 }
                }
                _ => {
                    let real = (api.column_double)(self.st, i);
                    let p = (api.column_text)(self.st, i);
                    let n = (api.column_bytes)(self.st, i) as usize;
                    let bytes = if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() };
                    Cell { kind, bytes, real }
                }
            }
        }
    }

    pub fn row(&self) -> Vec<Cell> {
        (0..self.column_count()).map(|i| self.cell(i)).collect()
    }

    /// Finalizes; an error the statement ended with is reported here.
    pub fn finish(mut self) -> Result<(), SqlError> {
        let st = std::mem::replace(&mut self.st, std::ptr::null_mut());
        if st.is_null() {
            return Ok(());
        }
        // SAFETY: `st` is live and finalized once.
        let rc = unsafe { (self.api().finalize)(st) };
        if rc != SQLITE_OK {
            return Err(SqlError { text: error_text("stepping", &self.conn.errmsg(), rc, None) });
        }
        Ok(())
    }
}

impl Drop for Stmt<'_> {
    fn drop(&mut self) {
        if !self.st.is_null() {
            // SAFETY: finalized once (finish and step null it).
            unsafe { (self.api().finalize)(self.st) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_from_the_left_then_from_the_right() {
        assert_eq!(error_context("SELEC 1;", 0), "\n  SELEC 1;\n  ^--- error here");
        let long = format!("SELECT {} +;", "x, ".repeat(20));
        let ctx = error_context(&long, long.len() - 1);
        assert!(ctx.ends_with("error here ---^"), "{ctx}");
        assert_eq!(error_text("stepping", "UNIQUE constraint failed: t.a", 19, None), "stepping, UNIQUE constraint failed: t.a (19)");
        assert_eq!(error_text("stepping", "integer overflow", 1, None), "stepping, integer overflow");
    }

    #[test]
    fn whitespace_shown_as_spaces_and_window_kept_on_characters() {
        assert_eq!(error_context("SELECT 1,\n  2 +;", 15), "\n  SELECT 1,   2 +;\n                 ^--- error here");
        let s = format!("{}é +;", "ü".repeat(40));
        let ctx = error_context(&s, s.len() - 2);
        assert!(ctx.contains("error here"));
    }
}
