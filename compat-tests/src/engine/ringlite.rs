//! # The ringlite backend: the engine under test through its Rust API
//!
//! Drives `ringlite::Connection::prepare` / `Statement::step` exactly as
//! the C ABI will, one statement at a time following the tail offset.
//! The engine is under construction: a panic inside it is caught by the
//! runner (see `slt::runner`), not here.

use super::{Cell, Engine, EngineError, Interrupter, Rows};
use ringlite::connection::{Connection, OpenFlags, StepResult};
use ringlite::value::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub struct Ringlite {
    conn: Connection,
}

fn engine_error(e: ringlite::error::Error) -> EngineError {
    EngineError { code: e.code, message: e.message, partial: None }
}

impl Ringlite {
    pub fn open() -> Result<Ringlite, EngineError> {
        let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::MEMORY);
        let conn = Connection::open(":memory:", flags).map_err(engine_error)?;
        Ok(Ringlite { conn })
    }
}

impl Drop for Ringlite {
    fn drop(&mut self) {
        let _ = self.conn.close();
    }
}

fn cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Null,
        Value::Integer(i) => Cell::Integer(*i),
        Value::Real(r) => Cell::Real(*r),
        Value::Text(t) => Cell::Text(t.clone()),
        Value::Blob(b) => Cell::Blob(b.clone()),
    }
}

impl Engine for Ringlite {
    fn run(&mut self, sql: &str) -> Result<Rows, EngineError> {
        let bytes = sql.as_bytes();
        let mut offset = 0usize;
        let mut result = Rows::default();
        while offset < bytes.len() {
            let (stmt, consumed) = self.conn.prepare(&bytes[offset..]).map_err(engine_error)?;
            offset += consumed.max(1);
            let Some(mut stmt) = stmt else { continue };
            let columns = stmt.column_count();
            let mut rows = Vec::new();
            loop {
                let step = stmt.step(&mut self.conn).map_err(|e| {
                    let mut e = engine_error(e);
                    e.partial = (columns > 0).then(|| Rows { columns, rows: std::mem::take(&mut rows) });
                    e
                });
                match step? {
                    StepResult::Row => rows.push((0..columns).map(|i| cell(stmt.column(i))).collect()),
                    StepResult::Done => break,
                    // Opened without ASYNC, so step blocks; Io would be an
                    // engine bug, reported rather than spun on.
                    StepResult::Io => {
                        return Err(EngineError {
                            code: 1,
                            message: "harness: step returned Io on a blocking connection".into(),
                            partial: None,
                        })
                    }
                }
            }
            if columns > 0 {
                result = Rows { columns, rows };
            }
        }
        Ok(result)
    }

    fn interrupter(&self) -> Interrupter {
        let flag = self.conn.interrupt_flag();
        Arc::new(move || flag.store(true, Ordering::SeqCst))
    }
}
