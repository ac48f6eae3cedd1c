//! Helpers for the async tests: stepping a statement on an async
//! connection while counting how often it suspended, the same on a
//! blocking connection, and the simulated backend they share.
#![allow(dead_code)]

use ringlite::error::Error;
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::IoContext;
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, StepResult};
use std::sync::Arc;

/// A column value, comparable across runs.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    Null,
    Int(i64),
    /// Bits, so NaN compares equal to itself.
    Real(u64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

pub fn v(x: &Value) -> V {
    match x {
        Value::Null | Value::Pointer(_) => V::Null,
        Value::Integer(i) => V::Int(*i),
        Value::Real(r) => V::Real(r.to_bits()),
        Value::Text(t) => V::Text(t.to_vec()),
        Value::Blob(b) => V::Blob(b.to_vec()),
        Value::ZeroBlob(n) => V::Blob(vec![0; *n]),
    }
}

/// What one statement produced: its rows, and how many times `step`
/// answered `StepResult::Io`.
#[derive(Debug)]
pub struct Run {
    pub rows: Vec<Vec<V>>,
    pub ios: usize,
}

pub const RW: i32 = OpenFlags::READWRITE | OpenFlags::CREATE;

pub fn async_flags() -> OpenFlags {
    OpenFlags(RW | OpenFlags::ASYNC)
}

pub fn blocking_flags() -> OpenFlags {
    OpenFlags(RW)
}

/// A simulated backend that completes requests one to `max_per_poll` at a
/// time, in random order.
pub fn sim(seed: u64, max_per_poll: usize) -> Arc<SimBackend> {
    Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll, fail_one_in: 0 }))
}

/// Run every statement of `sql`; the last statement's rows and the total
/// number of suspensions. On `StepResult::Io` the context is polled
/// without waiting first (a zero-timeout poll may reap nothing), then
/// with a wait, as an event loop would.
pub fn run(conn: &mut Connection, sql: &str) -> Result<Run, Error> {
    let mut rest = sql.as_bytes();
    let mut out = Run { rows: Vec::new(), ios: 0 };
    while !rest.iter().all(|c| c.is_ascii_whitespace()) {
        let (st, tail) = conn.prepare(rest)?;
        rest = &rest[tail..];
        let Some(mut st) = st else { continue };
        out.rows.clear();
        let r = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => out.rows.push((0..st.column_count()).map(|i| v(st.column(i))).collect()),
                Ok(StepResult::Done) => break Ok(()),
                Ok(StepResult::Io) => {
                    out.ios += 1;
                    if conn.io_poll(0)? == 0 {
                        conn.io_poll(-1)?;
                    }
                }
                Err(e) => break Err(e),
            }
        };
        st.reset(conn);
        r?;
    }
    Ok(out)
}

/// `run`, panicking on error.
pub fn must(conn: &mut Connection, sql: &str) -> Run {
    run(conn, sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"))
}

/// Open `path` on `io` (async or blocking).
pub fn open(io: &IoContext, path: &str, is_async: bool) -> Connection {
    let flags = if is_async { async_flags() } else { blocking_flags() };
    Connection::open_with_io(path, flags, io.clone()).expect("open")
}
