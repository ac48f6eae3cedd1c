//! Opening and closing a connection: the filename or `file:` URI (mode,
//! cache, immutable, percent-decoding) to an [`OpenTarget`], the main and
//! temp databases with their I/O context, and closing (rolling back what
//! is open, refusing while statements are unfinalized as SQLite's `close`
//! does).

use super::settings::*;
use super::{Connection, OpenFlags};
use crate::btree::{Btree, BtreeOptions, TxnState};
use crate::error::{Error, Result, SQLITE_CANTOPEN};
use crate::io::IoContext;
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FunctionRegistry;
use crate::vdbe::{ConnState, Database};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a filename or URI asks for.
pub(super) struct OpenTarget {
    pub(super) path: String,
    pub(super) memory: bool,
    pub(super) read_only: bool,
    pub(super) create: bool,
    pub(super) immutable: bool,
    /// A named in-memory database every connection of the process that
    /// opens the same name with `cache=shared` sees (`io::shared_memory`).
    pub(super) shared: bool,
    /// The `psow` URI parameter: whether the database file's device is
    /// taken as powersafe-overwrite (`None`: the file's default, on).
    pub(super) powersafe_overwrite: Option<bool>,
    /// A temporary database: the name is empty and no in-memory database
    /// was asked for (SQLite gives it a temporary file when it outgrows
    /// its cache).
    pub(super) temp: bool,
}

/// A URI parameter read as a boolean, as `sqlite3_uri_boolean` reads it:
/// yes/true/on and no/false/off, else a number (non-zero is true); `None`
/// for anything else.
fn uri_boolean(v: &str) -> Option<bool> {
    match v.ascii_lower().as_str() {
        "yes" | "true" | "on" => Some(true),
        "no" | "false" | "off" => Some(false),
        n => {
            let digits: String = n.chars().take_while(|c| c.is_ascii_digit()).collect();
            (!digits.is_empty()).then(|| digits.bytes().any(|d| d != b'0'))
        }
    }
}

impl OpenTarget {
    /// Settings of the URI that belong to the opened database file.
    pub(super) fn apply_file_settings(&self, btree: &mut crate::btree::Btree) {
        if let (Some(on), Some(modes)) = (self.powersafe_overwrite, btree.pager().file().modes()) {
            modes.set_powersafe_overwrite(on);
            btree.pager_mut().learn_device();
        }
    }
}

fn percent_decode(s: &str) -> String {
    crate::io::os_path::from_bytes(&super::uri::percent_decode(s.as_bytes())).into_owned()
}

pub(super) fn parse_target(path: &str, flags: OpenFlags) -> Result<OpenTarget> {
    let mut t = OpenTarget {
        path: path.to_string(),
        memory: path == ":memory:" || path.is_empty() || flags.has(OpenFlags::MEMORY),
        read_only: flags.has(OpenFlags::READONLY) && !flags.has(OpenFlags::READWRITE),
        create: flags.has(OpenFlags::CREATE),
        immutable: false,
        shared: false,
        powersafe_overwrite: None,
        temp: false,
    };
    let mut memory_asked = path == ":memory:" || flags.has(OpenFlags::MEMORY);
    if flags.has(OpenFlags::URI) && path.starts_with("file:") {
        let rest = &path[5..];
        // (The query parameters: `uri::query_params`.)
        let p = rest.split_once('?').map_or(rest, |(p, _)| p);
        let p = p.split('#').next().unwrap_or("");
        let p = if let Some(x) = p.strip_prefix("//") {
            // file://host/path: only an empty host or localhost.
            match x.find('/') {
                Some(i) if x[..i].is_empty() || x[..i].eq_ci("localhost") => &x[i..],
                Some(_) => return Err(Error::new(SQLITE_ERROR_CODE, format!("invalid uri authority: {}", &x[..x.find('/').unwrap_or(0)]))),
                None => "",
            }
        } else {
            p
        };
        t.path = percent_decode(p);
        t.memory = t.path == ":memory:" || flags.has(OpenFlags::MEMORY);
        // `cache=` overrides the SHAREDCACHE/PRIVATECACHE flags.
        let mut shared_cache = flags.has(OpenFlags::SHAREDCACHE) && !flags.has(OpenFlags::PRIVATECACHE);
        for (k, v) in super::uri::query_params(path.as_bytes()) {
            let (k, v) = (String::from_utf8_lossy(&k), String::from_utf8_lossy(&v));
            let v = &*v;
            match &*k {
                "mode" => match v {
                    "ro" => {
                        t.read_only = true;
                        t.create = false;
                    }
                    "rw" => {
                        t.read_only = false;
                        t.create = false;
                    }
                    "rwc" => {
                        t.read_only = false;
                        t.create = true;
                    }
                    "memory" => {
                        t.memory = true;
                        memory_asked = true;
                    }
                    other => return Err(Error::new(SQLITE_ERROR_CODE, format!("no such access mode: {other}"))),
                },
                "immutable" => t.immutable = v == "1" || v.eq_ci("true"),
                "cache" => match v {
                    "shared" => shared_cache = true,
                    "private" => shared_cache = false,
                    other => return Err(Error::new(SQLITE_ERROR_CODE, format!("no such cache mode: {other}"))),
                },
                "psow" => t.powersafe_overwrite = uri_boolean(v),
                "vfs" | "nolock" => {}
                _ => {}
            }
        }
        // (An empty name is a temporary database, never shared: SQLite
        // shares only named in-memory databases.)
        t.shared = t.memory && shared_cache && !t.path.is_empty();
        memory_asked |= t.path == ":memory:";
    }
    t.temp = t.path.is_empty() && !memory_asked;
    Ok(t)
}

pub(super) const SQLITE_ERROR_CODE: i32 = crate::error::SQLITE_ERROR;

impl Connection {
    /// Open a connection. `path` is a filename, `:memory:`, `""` (a private
    /// temporary database) or, with `OpenFlags::URI`, a `file:` URI.
    pub fn open(path: &str, flags: OpenFlags) -> Result<Connection> {
        Self::open_with_lock_style(path, flags, crate::io::lock_style::LockStyle::Posix)
    }

    /// [`Connection::open`] with database files (main and attached) locked
    /// in `style`, as through SQLite's `unix-dotfile` and `unix-none` VFSes
    /// (`io/lock_style.rs`).
    pub fn open_with_lock_style(path: &str, flags: OpenFlags, style: crate::io::lock_style::LockStyle) -> Result<Connection> {
        let t = parse_target(path, flags)?;
        let backend: Arc<dyn crate::io::IoBackend> = if t.shared {
            crate::io::shared_memory::backend(&t.path)
        } else if t.memory {
            Arc::new(crate::io::memory::MemoryBackend::new())
        } else {
            // Async connections share their thread's io_uring ring (or the
            // sync backend where no ring can be set up); blocking ones use
            // pread/pwrite.
            crate::io::select::backend_for(flags.has(OpenFlags::ASYNC))
        };
        let memory = t.memory;
        let mut conn = Self::open_target(t, flags, IoContext::new(backend).with_lock_style(style), None)?;
        if memory {
            // SQLite opens an in-memory database's temporary files (sorter
            // runs, transient tables) through the default VFS: on disk.
            conn.state.temp_io = IoContext::new(crate::io::select::backend_for(flags.has(OpenFlags::ASYNC)));
        }
        Ok(conn)
    }

    /// Open with `backend` doing the file I/O of a file-backed database
    /// (an application VFS of the C API). In-memory databases keep the
    /// engine's memory backends, as SQLite keeps them off the VFS;
    /// temporary databases (the `temp` schema, a database named `""`)
    /// open a temporary file through `backend` once they outgrow their
    /// cache, as SQLite's do (`io::temp_file`).
    pub fn open_with_backend(path: &str, flags: OpenFlags, backend: Arc<dyn crate::io::IoBackend>) -> Result<Connection> {
        let t = parse_target(path, flags)?;
        if t.memory && !t.temp {
            let mut conn = Self::open(path, flags)?;
            conn.temp_spill = Some(backend.clone());
            conn.state.temp_io = IoContext::new(backend.clone());
            conn.state.dbs[1].btree = Self::temp_btree(Some(&backend))?;
            return Ok(conn);
        }
        Self::open_target(t, flags, IoContext::new(backend.clone()), Some(backend))
    }

    /// The B-tree of a temporary database: in memory, or spilling to
    /// `spill_to` (an application VFS's backend).
    pub(super) fn temp_btree(spill_to: Option<&Arc<dyn crate::io::IoBackend>>) -> Result<Btree> {
        let mut temp = match spill_to {
            Some(b) => Btree::open_temp(b.clone())?,
            None => Btree::open(
                &IoContext::new(Arc::new(crate::io::memory::MemoryBackend::new())),
                "",
                BtreeOptions { create: true, memory: true, ..Default::default() },
            )?,
        };
        temp.set_temp_database();
        Ok(temp)
    }

    /// Open through a given I/O context (tests: simulated backends; hosts
    /// sharing one context between connections).
    pub fn open_with_io(path: &str, flags: OpenFlags, io: IoContext) -> Result<Connection> {
        let t = parse_target(path, flags)?;
        Self::open_target(t, flags, io, None)
    }

    fn open_target(t: OpenTarget, flags: OpenFlags, io: IoContext, temp_spill: Option<Arc<dyn crate::io::IoBackend>>) -> Result<Connection> {
        let opts = BtreeOptions { read_only: t.read_only, create: t.create, memory: t.memory, immutable: t.immutable, shared: t.shared };
        let file = if t.shared { crate::io::shared_memory::DB_PATH } else { t.path.as_str() };
        let opened = match &temp_spill {
            Some(b) if t.temp => Btree::open_temp(b.clone()),
            _ => Btree::open(&io, file, opts),
        };
        let mut btree = opened.map_err(|e| if e.primary() == SQLITE_CANTOPEN { Error::new(e.code, "unable to open database file") } else { e })?;
        t.apply_file_settings(&mut btree);
        let full_path = if t.memory { String::new() } else { io.backend().full_path(&t.path).unwrap_or(t.path.clone()) };
        let temp = Self::temp_btree(temp_spill.as_ref())?;
        let state = ConnState {
            temp_io: match &temp_spill {
                Some(b) => IoContext::new(b.clone()),
                None => io.clone(),
            },
            io,
            dbs: vec![
                // (A VFS may open the file read-only though asked read-write.)
                Database { name: "main".into(), path: full_path, read_only: t.read_only || btree.pager().read_only(), btree },
                Database { name: "temp".into(), path: String::new(), btree: temp, read_only: false },
            ],
            autocommit: true,
            savepoints: Vec::new(),
            savepoint_started_txn: false,
            last_insert_rowid: 0,
            changes: 0,
            total_changes: 0,
            active_statements: 0,
            schema_changed: false,
            schema_appended: 0,
            schema_deleted: 0,
            txn_schema_written: false,
            abort_generation: 0,
            temp_used: false,
            text_encoding: Default::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            settings: crate::vdbe::settings::Settings::DEFAULT,
            busy_timeout_ms: 0,
            busy_handler: None,
            shared_busy_count: None,
            exclusive_locking_default: false,
            cache_size: -2000,
            update_hook: None,
            commit_hook: None,
            wal_hook: None,
            preupdate_hook: None,
            preupdate_listeners: Default::default(),
            rollback_hook: None,
            progress: None,
            step_quantum: None,
            async_steps: flags.has(OpenFlags::ASYNC),
            lent_depth: 0,
            stmt_savepoints: 0,
            writing_statements: 0,
            vtab_syncing: false,
            max_length: i64::from(LIMIT_DEFAULTS[LIMIT_LENGTH as usize]),
            max_like_pattern: LIMIT_DEFAULTS[LIMIT_LIKE_PATTERN_LENGTH as usize] as usize,
            next_auto_vacuum: None,
            defer_foreign_keys: false,
            query_only: false,
            kept_pragmas: crate::vdbe::exec::schema::KEPT_PRAGMAS.map(|(_, default)| default),
            analysis_limit: 0,
            worker_threads: 0,
            max_trigger_depth: crate::vdbe::exec::frame::MAX_TRIGGER_DEPTH,
            max_schema_objects: LIMIT_DEFAULTS[LIMIT_SCHEMA as usize] as usize,
            settings_generation: 0,
            fk_deferred: (0, 0),
            savepoint_fk_deferred: Vec::new(),
            vtabs: Default::default(),
            schema_reset: false,
            vdestroy_depth: 0,
            super_journal_file: None,
            temp_spill_bytes: Default::default(),
        };
        let mut conn = Connection {
            state,
            schemas: Vec::new(),
            merged: Arc::default(),
            database_names: Arc::default(),
            schema_loaded: false,
            schema_generation: 0,
            encoding_fixed: false,
            schema_rows_met: false,
            schema_text_checked: Default::default(),
            compiled: Default::default(),
            stmt_registry: Default::default(),
            attach_generation: 0,
            open_flags: flags,
            funcs: Arc::new(FunctionRegistry::with_builtins()),
            extension_state: Default::default(),
            collations: Arc::default(),
            collation_order: Arc::default(),
            memory: t.memory,
            temp_spill,
            is_async: flags.has(OpenFlags::ASYNC),
            io_notify: if flags.has(OpenFlags::ASYNC) {
                crate::io::notify::IoNotify::with_ready(crate::io::notify::thread_ready_set())
            } else {
                crate::io::notify::IoNotify::new()
            },
            limits: LIMIT_DEFAULTS,
            trace: None,
            authorizer: None,
            internal_sql: false,
            no_vtab_sql: false,
            reprepare_params: None,
        };
        (crate::REGISTER_BUILTIN_EXTENSIONS)(&mut conn)?;
        Ok(conn)
    }

    /// Close: finish the transaction (rolled back if open) and release
    /// files. The C ABI refuses earlier if statements are still open.
    pub fn close(&mut self) -> Result<()> {
        // Requests still in flight may outlive the connection: they must
        // not report it ready once it is gone.
        self.io_notify.set_tag(0);
        let io = self.state.io.clone();
        if self.state.writing() {
            self.state.fire_rollback_hook();
        }
        for d in self.state.dbs.iter_mut() {
            if d.btree.txn_state() != TxnState::None {
                let bt = &mut d.btree;
                io.block_on(|| bt.rollback())?;
            }
        }
        self.state.autocommit = true;
        Ok(())
    }
}
