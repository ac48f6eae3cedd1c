//! # The ringlite backend: the engine under test through its Rust API
//!
//! Drives `ringlite::Connection::prepare` / `Statement::step` exactly as
//! the C ABI will, one statement at a time following the tail offset.
//! The engine is under construction: a panic inside it is caught by the
//! runner (see `slt::runner`), not here.
//!
//! ## Async mode (`--async`, `--sim-seed N`)
//! By default the database is `:memory:` and the connection blocks. In
//! async mode ([`set_io_mode`]) each script gets a file-backed database on
//! a connection opened with `OpenFlags::ASYNC`: on real temp files through
//! the thread's io_uring ring (`--async`), or on the simulated backend
//! (`--sim-seed N`), which completes requests only when polled, one to
//! four per poll, in random order. `StepResult::Io` is answered the way an
//! event loop would: a poll that does not wait, then one that does. The
//! results must be the blocking run's (the same ratchets judge both);
//! only the I/O under them differs.

use super::{Cell, Engine, EngineError, Interrupter, Rows};
use ringlite::connection::{Connection, OpenFlags, StepResult};
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::IoContext;
use ringlite::value::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// How the ringlite engine does I/O, chosen once per process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoMode {
    /// `:memory:`, blocking (the default).
    Blocking,
    /// A temp file, `OpenFlags::ASYNC`, the thread's io_uring ring.
    AsyncFile,
    /// A simulated file, `OpenFlags::ASYNC`, delays and reordering from
    /// this seed.
    AsyncSim(u64),
}

static IO_MODE: OnceLock<IoMode> = OnceLock::new();

/// Choose the I/O mode for every ringlite engine of this process (before
/// the first is opened; later calls are ignored).
pub fn set_io_mode(mode: IoMode) {
    let _ = IO_MODE.set(mode);
}

fn io_mode() -> IoMode {
    *IO_MODE.get_or_init(|| IoMode::Blocking)
}

pub struct Ringlite {
    conn: Connection,
    /// The temp database file of `IoMode::AsyncFile`, removed on drop.
    temp_path: Option<String>,
}

fn engine_error(e: ringlite::error::Error) -> EngineError {
    EngineError { code: e.code, message: e.message, partial: None }
}

impl Ringlite {
    /// An existing database file, read-write, blocking (whatever the
    /// I/O mode: the corrupt-file fuzzer compares file checks).
    pub fn open_path(path: &str) -> Result<Ringlite, EngineError> {
        let conn = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).map_err(engine_error)?;
        Ok(Ringlite { conn, temp_path: None })
    }

    pub fn open() -> Result<Ringlite, EngineError> {
        let rw = OpenFlags::READWRITE | OpenFlags::CREATE;
        match io_mode() {
            IoMode::Blocking => {
                let conn = Connection::open(":memory:", OpenFlags(rw | OpenFlags::MEMORY)).map_err(engine_error)?;
                Ok(Ringlite { conn, temp_path: None })
            }
            IoMode::AsyncFile => {
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                let path = std::env::temp_dir().join(format!("ringlite-compat-{}-{n}.db", std::process::id()));
                let path = path.to_string_lossy().into_owned();
                remove_db_files(&path);
                let conn = Connection::open(&path, OpenFlags(rw | OpenFlags::ASYNC)).map_err(engine_error)?;
                Ok(Ringlite { conn, temp_path: Some(path) })
            }
            IoMode::AsyncSim(seed) => {
                let sim = SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 4, fail_one_in: 0 });
                let io = IoContext::new(Arc::new(sim));
                let conn = Connection::open_with_io("compat.db", OpenFlags(rw | OpenFlags::ASYNC), io).map_err(engine_error)?;
                Ok(Ringlite { conn, temp_path: None })
            }
        }
    }
}

fn remove_db_files(path: &str) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}

impl Drop for Ringlite {
    fn drop(&mut self) {
        let _ = self.conn.close();
        if let Some(path) = &self.temp_path {
            remove_db_files(path);
        }
    }
}

fn cell(v: &Value) -> Cell {
    match v {
        Value::Null | Value::Pointer(_) => Cell::Null,
        Value::Integer(i) => Cell::Integer(*i),
        Value::Real(r) => Cell::Real(*r),
        Value::Text(t) => Cell::Text(t.clone()),
        Value::Blob(b) => Cell::Blob(b.clone()),
        Value::ZeroBlob(n) => Cell::Blob(vec![0; *n]),
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
                    // Only async connections answer Io; on a blocking one
                    // it would be an engine bug, reported rather than spun on.
                    StepResult::Io if !self.conn.is_async() => {
                        return Err(EngineError { code: 1, message: "harness: step returned Io on a blocking connection".into(), partial: None })
                    }
                    StepResult::Io => {
                        let reaped = self.conn.io_poll(0).map_err(engine_error)?;
                        if reaped == 0 {
                            self.conn.io_poll(-1).map_err(engine_error)?;
                        }
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

    fn limit(&mut self, id: i32, value: i32) -> i32 {
        self.conn.limit(id, value)
    }
}
