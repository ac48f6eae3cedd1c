//! # Connections and statements: the engine's public API
//!
//! What the C ABI (`capi/`) calls. A [`Connection`] owns its databases
//! (index 0 main, 1 temp, 2.. attached in attach order: one `Btree` each,
//! see `attach.rs`), one schema per database plus their merged view that
//! statements compile against, and its registries (functions, collations,
//! hooks). A [`Statement`] owns a
//! compiled program and its VM state; it is stepped with the connection
//! that prepared it passed in, so neither holds a pointer to the other.
//!
//! Blocking versus async: a connection opened without `SQLITE_OPEN_ASYNC`
//! loops inside [`Statement::step`] until the VM can go on, exactly like
//! SQLite; an async one returns [`StepResult::Io`] instead and the caller
//! polls the I/O context.
//!
//! Invariant: `Connection` and `Statement` are `Send`; the C ABI serializes
//! access per connection with a mutex.

use crate::btree::{Btree, BtreeOptions, TxnState};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_CANTOPEN, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_SCHEMA};
use crate::io::notify::IoNotify;
use crate::io::IoContext;
use crate::sql::codegen::{compile, Compiler};
use crate::sql::parse::with_first_statement;
use crate::sql::schema::Schema;
use crate::value::collation::Collation;
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FunctionRegistry};
use crate::vdbe::program::Program;
use crate::vdbe::{ConnState, Database, Vm, VmStep};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use crate::sql::codegen::auth::Authorizer;

pub use crate::vdbe::BusyHandler;

/// Callbacks a connection can carry (the C API's hooks).
pub enum Hook {
    /// `sqlite3_commit_hook`: returning `true` turns the COMMIT into a
    /// ROLLBACK.
    Commit(Option<Box<dyn FnMut() -> bool + Send>>),
    /// `sqlite3_wal_hook`: (database name, frames in the WAL) after each
    /// commit in WAL mode; a non-zero result code fails the statement.
    /// (Unlike SQLite, the automatic checkpoint is not a WAL hook: the
    /// C API sets `wal_autocheckpoint` to 0 while a user hook is in place.)
    Wal(Option<crate::vdbe::WalHook>),
    /// `sqlite3_preupdate_hook`: told of each row change before it is
    /// made, lent the connection (see `vdbe::exec::preupdate`).
    PreUpdate(Option<crate::vdbe::exec::preupdate::PreUpdateHook>),
    /// `sqlite3_rollback_hook`.
    Rollback(Option<Box<dyn FnMut() + Send>>),
    /// `sqlite3_update_hook`: (operation code SQLITE_INSERT/DELETE/UPDATE,
    /// database name, table name, rowid).
    Update(Option<Box<dyn FnMut(i32, &str, &str, i64) + Send>>),
    /// `sqlite3_progress_handler`: called about every `n` VM instructions;
    /// returning `true` interrupts the statement.
    Progress(i32, Option<crate::vdbe::ProgressHandler>),
    /// `sqlite3_set_authorizer`: (action code, arg1, arg2, database,
    /// trigger) to SQLITE_OK/DENY/IGNORE, asked while statements compile.
    Authorizer(Option<Authorizer>),
    /// `sqlite3_trace_v2`: (event mask, callback(event, statement SQL or
    /// expanded SQL, nanoseconds for PROFILE)).
    Trace(u32, Option<Box<dyn FnMut(u32, &str, i64) + Send>>),
}

/// Connection settings of [`Connection::config_flag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFlag {
    /// `PRAGMA foreign_keys` (`SQLITE_DBCONFIG_ENABLE_FKEY`).
    ForeignKeys,
    /// `PRAGMA legacy_alter_table` (`SQLITE_DBCONFIG_LEGACY_ALTER_TABLE`).
    LegacyAlterTable,
    /// `PRAGMA writable_schema` (`SQLITE_DBCONFIG_WRITABLE_SCHEMA`).
    WritableSchema,
}

/// `SQLITE_OPEN_*` flag bits, as passed to `sqlite3_open_v2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags(pub i32);

impl OpenFlags {
    /// SQLITE_OPEN_READONLY
    pub const READONLY: i32 = 0x0000_0001;
    /// SQLITE_OPEN_READWRITE
    pub const READWRITE: i32 = 0x0000_0002;
    /// SQLITE_OPEN_CREATE
    pub const CREATE: i32 = 0x0000_0004;
    /// SQLITE_OPEN_URI
    pub const URI: i32 = 0x0000_0040;
    /// SQLITE_OPEN_MEMORY
    pub const MEMORY: i32 = 0x0000_0080;
    /// SQLITE_OPEN_NOMUTEX
    pub const NOMUTEX: i32 = 0x0000_8000;
    /// SQLITE_OPEN_FULLMUTEX
    pub const FULLMUTEX: i32 = 0x0001_0000;
    /// SQLITE_OPEN_SHAREDCACHE
    pub const SHAREDCACHE: i32 = 0x0002_0000;
    /// SQLITE_OPEN_PRIVATECACHE
    pub const PRIVATECACHE: i32 = 0x0004_0000;
    /// SQLITE_OPEN_NOFOLLOW
    pub const NOFOLLOW: i32 = 0x0100_0000;
    /// SQLITE_OPEN_EXRESCODE
    pub const EXRESCODE: i32 = 0x0200_0000;
    /// ringlite: `sqlite3_step` may return `SQLITE_IO` instead of blocking.
    /// A bit SQLite does not use.
    pub const ASYNC: i32 = 0x4000_0000;

    /// Whether `bit` is set.
    pub fn has(self, bit: i32) -> bool {
        self.0 & bit != 0
    }
}

/// What one call of [`Statement::step`] produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepResult {
    /// A row is ready (`SQLITE_ROW`).
    Row,
    /// The statement has finished (`SQLITE_DONE`).
    Done,
    /// Async connections only: waiting for I/O (`SQLITE_IO`); step again
    /// after polling.
    Io,
}

/// How many `SQLITE_LIMIT_*` categories there are (LENGTH .. TRIGGER_STEPS).
const LIMIT_COUNT: usize = 15;
/// `SQLITE_LIMIT_LENGTH`: the longest string or blob.
pub const LIMIT_LENGTH: i32 = 0;
/// `SQLITE_LIMIT_SQL_LENGTH`: the longest SQL text `prepare` accepts.
pub const LIMIT_SQL_LENGTH: i32 = 1;
/// `SQLITE_LIMIT_COLUMN`: columns of a table, index, result set, terms
/// of ORDER BY and GROUP BY.
const LIMIT_COLUMN: i32 = 2;
/// `SQLITE_LIMIT_EXPR_DEPTH`: the highest expression tree.
const LIMIT_EXPR_DEPTH: i32 = 3;
/// `SQLITE_LIMIT_COMPOUND_SELECT`: terms of a compound SELECT.
const LIMIT_COMPOUND_SELECT: i32 = 4;
/// `SQLITE_LIMIT_VDBE_OP`: instructions of one program.
const LIMIT_VDBE_OP: i32 = 5;
/// `SQLITE_LIMIT_FUNCTION_ARG`: arguments of a function call.
const LIMIT_FUNCTION_ARG: i32 = 6;
/// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH`: the longest LIKE or GLOB pattern.
const LIMIT_LIKE_PATTERN_LENGTH: i32 = 8;
/// `SQLITE_LIMIT_VARIABLE_NUMBER`: the largest parameter number.
const LIMIT_VARIABLE_NUMBER: i32 = 9;
/// `SQLITE_LIMIT_TRIGGER_DEPTH`.
const LIMIT_TRIGGER_DEPTH: i32 = 10;
/// `SQLITE_LIMIT_WORKER_THREADS` (also `PRAGMA threads`).
const LIMIT_WORKER_THREADS: i32 = 11;
/// `SQLITE_LIMIT_PARSER_DEPTH`: the deepest parser stack.
const LIMIT_PARSER_DEPTH: i32 = 12;
/// SQLite 3.54's default for each limit, indexed by its `SQLITE_LIMIT_*`.
const LIMIT_DEFAULTS: [i32; LIMIT_COUNT] =
    [1_000_000_000, 1_000_000_000, 2000, 1000, 500, 250_000_000, 1000, 10, 50_000, 32766, 1000, 0, 2500, 10_000_000, 65000];
/// The compile-time maximum of each limit: a larger value is clamped to it.
const LIMIT_HARD_MAX: [i32; LIMIT_COUNT] =
    [1_000_000_000, 1_000_000_000, 2000, 1000, 500, 250_000_000, 1000, 10, 50_000, 32766, 1000, 8, 2500, 10_000_000, 65000];

/// A database connection.
pub struct Connection {
    state: ConnState,
    /// The schema of each database, by index in `state.dbs`.
    schemas: Vec<Schema>,
    /// All of `schemas` in one (`Schema::merged`), what statements compile
    /// against; rebuilt whenever the schemas are read.
    merged: Schema,
    /// Every database as the compiler sees it: (schema name, file name)
    /// by index; brought up to date before each compile (kept so a
    /// prepare does not copy the names).
    database_names: Vec<(String, String)>,
    schema_loaded: bool,
    /// Bumped by every ATTACH and DETACH: database indexes baked into
    /// programs compiled before may now mean another database, so those
    /// statements compile again before their next run.
    attach_generation: u64,
    /// The flags the connection was opened with (ATTACH opens its files
    /// with them).
    open_flags: OpenFlags,
    funcs: FunctionRegistry,
    collations: HashMap<String, Collation>,
    /// Every name `create_collation` was called with (also to remove
    /// one), as first given, oldest first: SQLite keeps an entry for each
    /// and `PRAGMA collation_list` shows them.
    collation_order: Vec<String>,
    memory: bool,
    is_async: bool,
    /// Async connections: counts the completions of the requests its
    /// statements submit, so a statement waiting for one is not re-run
    /// for nothing (see [`crate::io::notify`]).
    io_notify: Arc<crate::io::notify::IoNotify>,
    limits: [i32; LIMIT_COUNT],
    trace: Option<(u32, Box<dyn FnMut(u32, &str, i64) + Send>)>,
    authorizer: Option<crate::sql::codegen::auth::Authorizer>,
    /// The connection runs SQL of its own (see [`Compiler::internal`]).
    internal_sql: bool,
}

/// What a filename or URI asks for.
struct OpenTarget {
    path: String,
    memory: bool,
    read_only: bool,
    create: bool,
    immutable: bool,
    /// A named in-memory database every connection of the process that
    /// opens the same name with `cache=shared` sees (`io::shared_memory`).
    shared: bool,
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        // Two hex digits make an octet; anything else (a sign, a character
        // of several bytes) leaves the `%` as it is, as SQLite does.
        let hex = |at: usize| b.get(at).filter(|c| c.is_ascii_hexdigit()).and_then(|c| (*c as char).to_digit(16));
        if b[i] == b'%' {
            if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    crate::io::os_path::from_bytes(&out).into_owned()
}

fn parse_target(path: &str, flags: OpenFlags) -> Result<OpenTarget> {
    let mut t = OpenTarget {
        path: path.to_string(),
        memory: path == ":memory:" || path.is_empty() || flags.has(OpenFlags::MEMORY),
        read_only: flags.has(OpenFlags::READONLY) && !flags.has(OpenFlags::READWRITE),
        create: flags.has(OpenFlags::CREATE),
        immutable: false,
        shared: false,
    };
    if flags.has(OpenFlags::URI) && path.starts_with("file:") {
        let rest = &path[5..];
        let (p, query) = match rest.split_once('?') {
            Some((p, q)) => (p, q),
            None => (rest, ""),
        };
        let p = p.split('#').next().unwrap_or("");
        let p = if let Some(x) = p.strip_prefix("//") {
            // file://host/path: only an empty host or localhost.
            match x.find('/') {
                Some(i) if x[..i].is_empty() || x[..i].eq_ignore_ascii_case("localhost") => &x[i..],
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
        for kv in query.split('&').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            match k {
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
                    "memory" => t.memory = true,
                    other => return Err(Error::new(SQLITE_ERROR_CODE, format!("no such access mode: {other}"))),
                },
                "immutable" => t.immutable = v == "1" || v.eq_ignore_ascii_case("true"),
                "cache" => match v {
                    "shared" => shared_cache = true,
                    "private" => shared_cache = false,
                    other => return Err(Error::new(SQLITE_ERROR_CODE, format!("no such cache mode: {other}"))),
                },
                "vfs" | "psow" | "nolock" => {}
                _ => {}
            }
        }
        // (An empty name is a temporary database, never shared: SQLite
        // shares only named in-memory databases.)
        t.shared = t.memory && shared_cache && !t.path.is_empty();
    }
    Ok(t)
}

const SQLITE_ERROR_CODE: i32 = crate::error::SQLITE_ERROR;

impl crate::vdbe::host::VmHost for Connection {
    fn state(&mut self) -> &mut ConnState {
        &mut self.state
    }
}

impl Connection {
    /// The connection lent to a callback by a running statement (see
    /// [`crate::vdbe::host`]): SQL may be prepared and stepped on it as on
    /// any connection, nested in the calling statement.
    pub fn from_host(host: &mut dyn crate::vdbe::host::VmHost) -> Option<&mut Connection> {
        (host as &mut dyn std::any::Any).downcast_mut::<Connection>()
    }

    /// Open a connection. `path` is a filename, `:memory:`, `""` (a private
    /// temporary database) or, with `OpenFlags::URI`, a `file:` URI.
    pub fn open(path: &str, flags: OpenFlags) -> Result<Connection> {
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
        Self::open_target(t, flags, IoContext::new(backend))
    }

    /// Open with `backend` doing the file I/O of a file-backed database
    /// (an application VFS of the C API); in-memory and temporary
    /// databases keep the engine's memory backends, as SQLite keeps them
    /// off the VFS.
    pub fn open_with_backend(path: &str, flags: OpenFlags, backend: Arc<dyn crate::io::IoBackend>) -> Result<Connection> {
        let t = parse_target(path, flags)?;
        if t.memory || t.path.is_empty() {
            return Self::open(path, flags);
        }
        Self::open_target(t, flags, IoContext::new(backend))
    }

    /// Open through a given I/O context (tests: simulated backends; hosts
    /// sharing one context between connections).
    pub fn open_with_io(path: &str, flags: OpenFlags, io: IoContext) -> Result<Connection> {
        let t = parse_target(path, flags)?;
        Self::open_target(t, flags, io)
    }

    /// The I/O context (async callers poll it after `StepResult::Io`).
    pub fn io(&self) -> &IoContext {
        &self.state.io
    }

    /// `sqlite3_io_poll`: submit queued requests and reap completions of
    /// this connection's I/O context. `timeout_ms` 0 returns at once, a
    /// positive value waits at most that long, a negative one waits until
    /// at least one request completes (at once if nothing is in flight).
    /// Returns the number of completions reaped.
    pub fn io_poll(&self, timeout_ms: i32) -> Result<usize> {
        let timeout = if timeout_ms < 0 { None } else { Some(std::time::Duration::from_millis(timeout_ms as u64)) };
        self.state.io.backend().poll(timeout)
    }

    /// `sqlite3_io_fd`: a descriptor that becomes readable when completions
    /// wait (io_uring's eventfd); `None` when the backend has none.
    pub fn io_fd(&self) -> Option<i32> {
        self.state.io.backend().event_fd()
    }

    /// `sqlite3_db_release_memory`: drop the clean cached pages of every
    /// database of the connection (pages in use by a running statement
    /// and uncommitted changes stay). Returns the bytes freed.
    pub fn release_memory(&mut self) -> usize {
        self.state.dbs.iter_mut().map(|d| d.btree.release_memory()).sum()
    }

    /// Name this connection in readiness reports ([`Connection::io_ready`]):
    /// once tagged (non-zero), the connection is reported after a request
    /// of one of its statements finishes. 0 stops the reports. Blocking
    /// connections are never reported.
    pub fn set_io_tag(&self, tag: usize) {
        self.io_notify.set_tag(tag);
    }

    /// `sqlite3_io_ready`: take up to `max` connections of this thread's
    /// ready set (every async connection opened on the thread that opened
    /// this one) whose requests finished since they were last taken,
    /// appending their tags to `out`; returns how many. After a poll, step
    /// the suspended statements of those connections only: the others'
    /// would answer `StepResult::Io` again. Costs what is taken, not the
    /// number of idle connections (see [`crate::io::notify`]).
    pub fn io_ready(&self, out: &mut Vec<usize>, max: usize) -> usize {
        self.io_notify.ready_set().map_or(0, |r| r.take(out, max))
    }

    fn open_target(t: OpenTarget, flags: OpenFlags, io: IoContext) -> Result<Connection> {
        let opts = BtreeOptions { read_only: t.read_only, create: t.create, memory: t.memory, immutable: t.immutable, shared: t.shared };
        let file = if t.shared { crate::io::shared_memory::DB_PATH } else { t.path.as_str() };
        let btree =
            Btree::open(&io, file, opts).map_err(|e| if e.primary() == SQLITE_CANTOPEN { Error::new(e.code, "unable to open database file") } else { e })?;
        let full_path = if t.memory { String::new() } else { io.backend().full_path(&t.path).unwrap_or(t.path.clone()) };
        let mut temp = Btree::open(&io, "", BtreeOptions { read_only: false, create: true, memory: true, immutable: false, shared: false })?;
        temp.set_temp_database();
        let state = ConnState {
            io,
            dbs: vec![
                Database { name: "main".into(), path: full_path, btree, read_only: t.read_only },
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
            temp_used: false,
            text_encoding: Default::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            prng: 0x2545_f491_4f6c_dd1d ^ (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1),
            case_sensitive_like: false,
            foreign_keys: false,
            busy_timeout_ms: 0,
            busy_handler: None,
            exclusive_locking_default: false,
            cache_size: -2000,
            update_hook: None,
            commit_hook: None,
            wal_hook: None,
            preupdate_hook: None,
            preupdate_listeners: Default::default(),
            rollback_hook: None,
            progress: None,
            lent_depth: 0,
            stmt_savepoints: 0,
            writing_statements: 0,
            max_length: i64::from(LIMIT_DEFAULTS[LIMIT_LENGTH as usize]),
            max_like_pattern: LIMIT_DEFAULTS[LIMIT_LIKE_PATTERN_LENGTH as usize] as usize,
            next_auto_vacuum: None,
            defer_foreign_keys: false,
            writable_schema: false,
            query_only: false,
            kept_pragmas: crate::vdbe::exec::schema::KEPT_PRAGMAS.map(|(_, default)| default),
            worker_threads: 0,
            count_changes: false,
            ignore_check_constraints: false,
            recursive_triggers: false,
            legacy_alter_table: false,
            full_column_names: false,
            short_column_names: true,
            max_trigger_depth: crate::vdbe::exec::frame::MAX_TRIGGER_DEPTH,
            settings_generation: 0,
            fk_deferred: (0, 0),
            savepoint_fk_deferred: Vec::new(),
            vtabs: Default::default(),
            schema_reset: false,
            vdestroy_depth: 0,
        };
        let mut conn = Connection {
            state,
            schemas: Vec::new(),
            merged: Schema::default(),
            database_names: Vec::new(),
            schema_loaded: false,
            attach_generation: 0,
            open_flags: flags,
            funcs: FunctionRegistry::with_builtins(),
            collations: HashMap::new(),
            collation_order: Vec::new(),
            memory: t.memory,
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
        };
        crate::ext::register_builtins(&mut conn)?;
        Ok(conn)
    }

    /// Read the schema if it is not loaded or a statement changed it.
    fn ensure_schema(&mut self) -> Result<()> {
        let appended = std::mem::take(&mut self.state.schema_appended);
        let deleted = std::mem::take(&mut self.state.schema_deleted);
        if self.schema_loaded && !self.state.schema_changed && appended & deleted == 0 {
            if appended | deleted == 0 {
                return Ok(());
            }
            // Only CREATEs or DROPs since the last load: the new rows are
            // parsed, the dropped objects forgotten, rather than the whole
            // schema table read again (SQLite's ParseSchema with a WHERE
            // clause, and its DropTable).
            let names: Vec<String> = self.state.dbs.iter().map(|d| d.name.clone()).collect();
            for db in (0..self.state.dbs.len().min(64)).filter(|db| (appended | deleted) & (1 << db) != 0) {
                let Some(schema) = self.schemas.get_mut(db) else { continue };
                let first_new = schema.rows.len();
                let r = if appended & (1 << db) != 0 {
                    in_read_txn(&mut self.state, db, |io, bt| schema.append_new_rows(io, bt)).map(|()| None)
                } else {
                    in_read_txn(&mut self.state, db, |io, bt| schema.forget_deleted_rows(io, bt))
                };
                let dbs = self.schemas.iter().collect::<Vec<_>>();
                match r {
                    Ok(None) if appended & (1 << db) != 0 => self.merged.merge_appended(&dbs, db, first_new, &names),
                    Ok(Some(gone)) => self.merged.merge_deleted(&dbs, db, &gone, &names),
                    // (The DROP path read everything again.)
                    Ok(None) => self.merged = Schema::merged(&dbs, &names),
                    Err(e) => {
                        // Half-applied: the next prepare reads everything.
                        self.schema_loaded = false;
                        return Err(e);
                    }
                }
            }
            return Ok(());
        }
        let mut loaded = Vec::new();
        for db in 0..self.state.dbs.len() {
            let previous = if self.schema_loaded { self.schemas.get(db) } else { None };
            // Main's encoding is the connection's: the others (temp, and
            // attached files still empty) take it.
            let enc = self.state.text_encoding;
            loaded.push(in_read_txn(&mut self.state, db, |io, bt| Schema::reload(io, bt, previous, enc))?);
            if db == 0 {
                self.state.text_encoding = self.state.dbs[0].btree.text_encoding();
            }
        }
        self.schemas = loaded;
        let names: Vec<String> = self.state.dbs.iter().map(|d| d.name.clone()).collect();
        self.merged = Schema::merged(&self.schemas.iter().collect::<Vec<_>>(), &names);
        self.schema_loaded = true;
        self.state.schema_changed = false;
        // Connected virtual tables whose schema entry went or changed are
        // disconnected.
        let merged = &self.merged;
        let reset = std::mem::take(&mut self.state.schema_reset);
        self.state.vtabs.retain_tables(|db, name, sql| !reset && merged.table_in(Some(db), name).is_some_and(|t| t.sql == sql));
        Ok(())
    }

    /// Whether some database's schema cookie on disk differs from the one
    /// its loaded schema was read at (another connection changed it).
    fn schema_is_stale(&mut self) -> Result<bool> {
        let mut stale = false;
        for i in 0..self.state.dbs.len() {
            let cookie = in_read_txn(&mut self.state, i, |io, bt| {
                if io.block_on(|| bt.page_count())? == 0 {
                    return Ok(0);
                }
                io.block_on(|| bt.meta(crate::btree::Meta::SchemaCookie))
            })?;
            stale |= self.schemas.get(i).is_none_or(|s| s.cookie != cookie);
        }
        Ok(stale)
    }

    /// Compile the first statement of `sql`, connecting the virtual
    /// tables it uses first (see `connection::vtab`).
    fn compile(&mut self, sql: &[u8]) -> Result<(Option<Program>, usize)> {
        let request = std::cell::Cell::new(None);
        // Each table is connected once; a request repeated means the
        // connection did not take (never loop on it).
        let mut asked = Vec::new();
        loop {
            match self.compile_once(sql, &request) {
                Err(e) => match request.take() {
                    Some(req) if !asked.contains(&req) => {
                        asked.push(req.clone());
                        self.connect_vtab(req)?
                    }
                    Some(_) => return Err(Error::new(crate::error::SQLITE_INTERNAL, "virtual table connected but not found")),
                    None => return Err(e),
                },
                r => return r,
            }
        }
    }

    fn compile_once(
        &mut self,
        sql: &[u8],
        vtab_connect: &std::cell::Cell<Option<crate::sql::codegen::vtab::ConnectRequest>>,
    ) -> Result<(Option<Program>, usize)> {
        self.ensure_schema()?;
        let current = self.database_names.len() == self.state.dbs.len()
            && self.database_names.iter().zip(&self.state.dbs).all(|((n, p), d)| *n == d.name && *p == d.path);
        if !current {
            self.database_names = self.state.dbs.iter().map(|d| (d.name.clone(), d.path.clone())).collect();
        }
        let databases = &self.database_names;
        let dbs = &self.state.dbs;
        let db_file = move |i: usize| dbs.get(i).map(|d| d.btree.pager().file().clone());
        let db_file: &dyn Fn(usize) -> Option<Arc<dyn crate::io::File>> = &db_file;
        let vtabs = &self.state.vtabs;
        let schema = &self.merged;
        let funcs = &self.funcs;
        let colls = &self.collations;
        let collation_order = &self.collation_order;
        let page_size = self.state.dbs[0].btree.page_size();
        let temp_listed = self.state.temp_used || !self.schemas.get(1).is_none_or(|s| s.rows.is_empty());
        let memory = self.memory;
        let authorizer = self.authorizer.as_mut();
        let internal = self.internal_sql;
        let writable_schema = self.state.writable_schema;
        let count_changes = self.state.count_changes;
        let ignore_checks = self.state.ignore_check_constraints;
        let recursive_triggers = self.state.recursive_triggers;
        let preupdate_hooked = self.state.preupdate_hook.is_some();
        let legacy_alter_table = self.state.legacy_alter_table;
        let column_name_flags = (self.state.full_column_names, self.state.short_column_names);
        let foreign_keys_on = self.state.foreign_keys;
        let generation = self.attach_generation;
        let settings_generation = self.state.settings_generation;
        let max_variables = self.limits[LIMIT_VARIABLE_NUMBER as usize];
        // TCL-style `$::name` parameters are made readable to the parser.
        let tcl_text = crate::sql::params::tcl_variables(sql);
        let parse_text = tcl_text.as_deref().unwrap_or(sql);
        let limit = |id: i32| self.limits[id as usize] as usize;
        let parse_limits = crate::sql::parse_limits::ParseLimits {
            expr_depth: limit(LIMIT_EXPR_DEPTH),
            parser_depth: limit(LIMIT_PARSER_DEPTH),
            columns: limit(LIMIT_COLUMN),
            compound: limit(LIMIT_COMPOUND_SELECT),
            function_args: limit(LIMIT_FUNCTION_ARG),
        };
        let (max_columns, max_variable, max_ops) = (limit(LIMIT_COLUMN), limit(LIMIT_VARIABLE_NUMBER), limit(LIMIT_VDBE_OP));
        // As in SQLite, an interrupt stops a prepare, and one left over
        // from statements that have all finished is forgotten.
        if self.state.active_statements == 0 {
            self.state.interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
        }
        let interrupt = self.state.interrupt.clone();
        let compiled = with_first_statement(parse_text, |cmd, tail| {
            if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::code(crate::error::SQLITE_INTERRUPT));
            }
            let Some(cmd) = cmd else { return Ok((None, tail)) };
            // The limits SQLite checks while parsing, before anything
            // walks the tree (see `sql::parse_limits`).
            crate::sql::parse_limits::check(cmd, parse_limits, Some(&interrupt))?;
            let stmt_sql = &sql[..tail];
            // Parameters are numbered in source order before compiling
            // (`sql::params`); the compiler still sees the original text.
            let numbering = crate::sql::params::number(&parse_text[..tail]);
            crate::sql::params::check_variable_limit(&numbering.names, max_variables)?;
            let build_program = move |cmd: &sqlite3_parser::ast::Cmd<'_>| -> crate::error::Result<Program> {
                let mut c = Compiler::new(schema, funcs, colls, stmt_sql, databases);
                c.collation_order = collation_order;
                c.page_size = page_size;
                c.temp_listed = temp_listed;
                c.db_file = Some(db_file);
                c.memory_db = memory;
                c.authorizer = authorizer;
                c.internal = internal;
                c.writable_schema = writable_schema;
                c.count_changes = count_changes;
                c.ignore_checks = ignore_checks;
                c.recursive_triggers = recursive_triggers;
                c.preupdate_hooked = preupdate_hooked;
                c.legacy_alter_table = legacy_alter_table;
                (c.full_column_names, c.short_column_names) = column_name_flags;
                c.foreign_keys_on = foreign_keys_on;
                c.params = numbering.names;
                c.max_columns = max_columns;
                c.max_variable = max_variable;
                c.vtabs = Some(vtabs);
                c.vtab_connect = Some(vtab_connect);
                c.max_expr_depth = parse_limits.expr_depth;
                let mut prog = compile(&mut c, cmd)?;
                // SQLITE_LIMIT_VDBE_OP: SQLite fails to allocate a longer
                // program (its programs and ours differ in length, so the
                // boundary is not the same instruction).
                if prog.insns.len() > max_ops {
                    return Err(Error::code(crate::error::SQLITE_NOMEM));
                }
                prog.attach_generation = generation;
                prog.settings_generation = settings_generation;
                Ok(prog)
            };
            let build = move |cmd: &sqlite3_parser::ast::Cmd<'_>| -> crate::error::Result<Program> {
                // A bug in code generation must not leave the caller without
                // an error message: it becomes SQLITE_INTERNAL, with one.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build_program(cmd))).unwrap_or_else(|payload| {
                    let what = payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                    Err(crate::error::Error::new(
                        crate::error::SQLITE_INTERNAL,
                        format!("internal error while compiling the statement (a bug in ringlite): {what}"),
                    ))
                })
            };
            let prog = match &numbering.text {
                None => build(cmd)?,
                Some(text) => with_first_statement(text, |renumbered, _| match renumbered {
                    Some(cmd) => build(cmd),
                    None => Err(crate::error::Error::sql("malformed statement")),
                })?,
            };
            Ok((Some(prog), tail))
        })?;
        if let (Some(prog), _) = &compiled {
            self.compile_checkpoints(prog.compile_checkpoints)?;
        }
        Ok(compiled)
    }

    /// SQLite checks for an interrupt, and counts a step towards calling
    /// the progress handler (every N steps, as for a running statement),
    /// each time a compile passes another 100 jump labels: a handler that
    /// asks to stop fails the prepare with SQLITE_INTERRUPT. Compiling is
    /// bounded here (`sql::parse_limits`), so the checkpoints are counted
    /// during the compile and run after it.
    fn compile_checkpoints(&mut self, checkpoints: u32) -> Result<()> {
        let mut steps = 0;
        for _ in 0..checkpoints {
            if self.state.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::code(crate::error::SQLITE_INTERRUPT));
            }
            let Some(n) = self.state.progress.as_ref().map(|(n, _)| *n).filter(|n| *n > 0) else { continue };
            steps += 1;
            if steps >= n {
                steps = 0;
                if self.call_progress_handler() {
                    return Err(Error::code(crate::error::SQLITE_INTERRUPT));
                }
            }
        }
        Ok(())
    }

    /// Call the progress handler lent the connection: `true` when it asks
    /// to stop.
    fn call_progress_handler(&mut self) -> bool {
        let Some((_, cb)) = self.state.progress.clone() else { return false };
        crate::vdbe::host::lend(self, |h| cb(h))
    }

    /// Call the WAL hook for each database a statement's commit appended
    /// to, lent the connection; its first non-zero result code is the
    /// statement's error.
    fn call_wal_hook(&mut self, commits: &[(String, u32)]) -> Result<()> {
        for (name, frames) in commits {
            let Some(hook) = self.state.wal_hook.clone() else { return Ok(()) };
            let rc = crate::vdbe::host::lend(self, |h| hook(h, name, *frames as i32));
            if rc != 0 {
                return Err(Error::new(rc, crate::error::errstr(rc)));
            }
        }
        Ok(())
    }

    /// Compile the first statement in `sql`. Returns the statement (`None`
    /// for only whitespace or comments) and the byte offset just past it.
    pub fn prepare(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        if sql.len() as i64 > i64::from(self.limits[LIMIT_SQL_LENGTH as usize]) {
            return Err(Error::code(crate::error::SQLITE_TOOBIG));
        }
        let (prog, tail) = match self.compile(sql) {
            // The schema may be stale (another connection changed it, as
            // SQLite finds out when a prepare fails): read it again, once.
            // Only when it is: compiling again would repeat the authorizer's
            // callbacks for nothing.
            Err(e) if e.primary() == SQLITE_ERROR_CODE && self.schema_loaded && self.state.active_statements == 0 => {
                if !self.schema_is_stale()? {
                    return Err(e);
                }
                self.schema_loaded = false;
                self.compile(sql)?
            }
            r => r?,
        };
        let Some(prog) = prog else { return Ok((None, tail)) };
        // (Checked as UTF-8 first: much faster than the lossy scan.)
        let text = match std::str::from_utf8(&sql[..tail]) {
            Ok(t) => t.trim().to_string(),
            Err(_) => String::from_utf8_lossy(&sql[..tail]).trim().to_string(),
        };
        Ok((Some(Statement::new(text, prog)), tail))
    }

    /// rowid of the most recent successful INSERT.
    pub fn last_insert_rowid(&self) -> i64 {
        self.state.last_insert_rowid
    }

    /// Rows changed by the most recent INSERT/UPDATE/DELETE.
    pub fn changes(&self) -> i64 {
        self.state.changes
    }

    /// Rows changed since the connection was opened.
    pub fn total_changes(&self) -> i64 {
        self.state.total_changes
    }

    /// Whether the connection is in autocommit mode.
    pub fn autocommit(&self) -> bool {
        self.state.autocommit
    }

    /// Set `last_insert_rowid` (`sqlite3_set_last_insert_rowid`).
    pub fn set_last_insert_rowid(&mut self, rowid: i64) {
        self.state.last_insert_rowid = rowid;
    }

    /// Transaction state of schema `schema` (or the highest of all when
    /// `None`): 0 none, 1 read, 2 write; -1 if no such schema.
    pub fn txn_state(&self, schema: Option<&str>) -> i32 {
        match schema {
            None => self.state.dbs.iter().map(|d| d.btree.txn_state() as i32).max().unwrap_or(0),
            Some(n) => self.state.dbs.iter().find(|d| d.name.eq_ignore_ascii_case(n)).map_or(-1, |d| d.btree.txn_state() as i32),
        }
    }

    /// Filename of database `schema` ("" for temp/in-memory); `None` if no
    /// such schema.
    pub fn db_filename(&self, schema: &str) -> Option<String> {
        // SQLite answers NULL for the temp schema (it has no file of its own).
        if schema.eq_ignore_ascii_case("temp") {
            return None;
        }
        self.state.dbs.iter().find(|d| d.name.eq_ignore_ascii_case(schema)).map(|d| d.path.clone())
    }

    /// The open database file of schema `schema` (`None`: no such schema,
    /// or `temp`, which has no file of its own).
    pub fn db_file(&self, schema: &str) -> Option<Arc<dyn crate::io::File>> {
        if schema.eq_ignore_ascii_case("temp") {
            return None;
        }
        self.state.dbs.iter().find(|d| d.name.eq_ignore_ascii_case(schema)).map(|d| d.btree.pager().file().clone())
    }

    /// The open WAL or rollback journal of schema `schema`, if any.
    pub fn db_journal_file(&self, schema: &str) -> Option<Arc<dyn crate::io::File>> {
        self.state.dbs.iter().find(|d| d.name.eq_ignore_ascii_case(schema)).and_then(|d| d.btree.pager().journal_or_wal_file())
    }

    /// 1 read-only, 0 read-write, -1 no such schema.
    pub fn db_readonly(&self, schema: &str) -> i32 {
        self.state.dbs.iter().find(|d| d.name.eq_ignore_ascii_case(schema)).map_or(-1, |d| d.read_only as i32)
    }

    /// A flag another thread may set to interrupt running statements
    /// (`sqlite3_interrupt`).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.state.interrupt.clone()
    }

    /// A connection setting that `sqlite3_db_config` and a PRAGMA both
    /// reach: its value, after setting it to `set` if given (directly, even
    /// inside a transaction, as `sqlite3_db_config` does).
    pub fn config_flag(&mut self, flag: ConfigFlag, set: Option<bool>) -> bool {
        let f = match flag {
            ConfigFlag::ForeignKeys => &mut self.state.foreign_keys,
            ConfigFlag::LegacyAlterTable => &mut self.state.legacy_alter_table,
            ConfigFlag::WritableSchema => &mut self.state.writable_schema,
        };
        if let Some(v) = set {
            // (A changed setting expires every statement, as in SQLite.)
            if *f != v {
                *f = v;
                self.state.settings_generation += 1;
            }
        }
        *f
    }

    /// `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`: whether closing the connection
    /// leaves its WAL files alone (no checkpoint, no delete), after
    /// setting it to `set` if given; databases attached later inherit it.
    pub fn no_checkpoint_on_close(&mut self, set: Option<bool>) -> bool {
        let mut now = false;
        for (i, d) in self.state.dbs.iter_mut().enumerate() {
            let v = d.btree.pager_mut().no_checkpoint_on_close(set);
            if i == 0 {
                now = v;
            }
        }
        now
    }

    /// `sqlite3_busy_timeout`: retry locked databases for up to `ms`
    /// milliseconds (0 or less: no retry). Replaces any busy handler.
    pub fn set_busy_timeout(&mut self, ms: i32) {
        self.state.busy_timeout_ms = ms;
        self.state.busy_handler = None;
    }

    /// `sqlite3_busy_handler`: called with the retry count; returning
    /// `false` gives up with `SQLITE_BUSY`.
    pub fn set_busy_handler(&mut self, handler: Option<BusyHandler>) {
        self.state.busy_handler = handler;
        self.state.busy_timeout_ms = 0;
    }

    /// `sqlite3_limit`: returns the old limit; sets it when `new >= 0`.
    pub fn limit(&mut self, id: i32, new: i32) -> i32 {
        // (PRAGMA threads sets this one from a statement.)
        self.limits[LIMIT_WORKER_THREADS as usize] = self.state.worker_threads;
        let Some(slot) = usize::try_from(id).ok().and_then(|i| self.limits.get_mut(i)) else { return -1 };
        let old = *slot;
        if new >= 0 {
            // Values above the compile-time maximum are clamped to it, as
            // in SQLite; a string limit below 30 bytes would break the
            // engine's own messages, so SQLite keeps at least that.
            let hard = LIMIT_HARD_MAX[id as usize];
            let floor = if id == LIMIT_LENGTH { 30 } else { 0 };
            *slot = new.clamp(floor, hard);
            if id == LIMIT_LENGTH {
                self.state.max_length = i64::from(*slot);
            }
            if id == LIMIT_LIKE_PATTERN_LENGTH {
                self.state.max_like_pattern = *slot as usize;
            }
            if id == LIMIT_TRIGGER_DEPTH {
                self.state.max_trigger_depth = *slot as usize;
            }
            if id == LIMIT_WORKER_THREADS {
                self.state.worker_threads = *slot;
            }
        }
        old
    }

    /// The current value of one `SQLITE_LIMIT_*` (-1 for an unknown one).
    pub fn limit_value(&self, id: i32) -> i32 {
        if id == LIMIT_WORKER_THREADS {
            return self.state.worker_threads;
        }
        usize::try_from(id).ok().and_then(|i| self.limits.get(i)).copied().unwrap_or(-1)
    }

    /// Register (or replace) a function.
    pub fn create_function(&mut self, def: FuncDef) -> Result<()> {
        // SQLITE_MAX_FUNCTION_ARG is 1000 in SQLite 3.54 (it was 127 before 3.48).
        if def.n_args < -1 || def.n_args > 1000 || def.name.is_empty() || def.name.len() > 255 {
            return Err(Error::code(SQLITE_MISUSE));
        }
        self.before_function_change(&def.name, def.n_args)?;
        self.funcs.register(def);
        Ok(())
    }

    /// Remove a function (`create_function` with NULL callbacks).
    pub fn delete_function(&mut self, name: &str, n_args: i32) -> Result<()> {
        self.before_function_change(name, n_args)?;
        self.funcs.unregister(name, n_args);
        Ok(())
    }

    /// As SQLite: replacing or deleting a function that exists with this
    /// name and argument count (a built-in one too) is refused while a
    /// statement runs, and otherwise expires every statement, so that a
    /// cached one is compiled again and calls the new definition. A new
    /// name or argument count changes no compiled statement.
    fn before_function_change(&mut self, name: &str, n_args: i32) -> Result<()> {
        if !self.funcs.has_exact(name, n_args) {
            return Ok(());
        }
        if self.state.active_statements > 0 {
            return Err(Error::new(crate::error::SQLITE_BUSY, "unable to delete/modify user-function due to active statements"));
        }
        self.expire_statements();
        Ok(())
    }

    /// Every statement of this connection is compiled again before its
    /// next run (one running goes on with its program until it ends or is
    /// reset), as SQLite's statement expiry does.
    pub fn expire_statements(&mut self) {
        self.state.settings_generation += 1;
    }

    /// Register, replace, or (`None`) remove a collation.
    pub fn create_collation(&mut self, name: &str, collation: Option<Collation>) -> Result<()> {
        // As for functions: one that exists (built-in ones included) is
        // not replaced under a running statement, and replacing it expires
        // every statement.
        if self.collations.contains_key(&name.to_ascii_uppercase()) || is_builtin_collation(name) {
            if self.state.active_statements > 0 {
                return Err(Error::new(crate::error::SQLITE_BUSY, "unable to delete/modify collation sequence due to active statements"));
            }
            self.expire_statements();
        }
        if !self.collation_order.iter().any(|n| n.eq_ignore_ascii_case(name)) && !is_builtin_collation(name) {
            self.collation_order.push(name.to_string());
        }
        match collation {
            Some(c) => {
                self.collations.insert(name.to_ascii_uppercase(), c);
            }
            None => {
                self.collations.remove(&name.to_ascii_uppercase());
            }
        }
        Ok(())
    }

    /// Install or clear a hook.
    pub fn set_hook(&mut self, hook: Hook) {
        match hook {
            Hook::Commit(h) => self.state.commit_hook = h,
            Hook::Rollback(h) => self.state.rollback_hook = h,
            Hook::Wal(h) => self.state.wal_hook = h,
            Hook::Update(h) => self.state.update_hook = h,
            Hook::PreUpdate(h) => {
                self.state.preupdate_listeners.set_app(h);
                self.state.preupdate_hook = self.state.preupdate_listeners.combined();
            }
            Hook::Progress(n, h) => self.state.progress = h.map(|h| (n, h)),
            Hook::Trace(mask, h) => self.trace = h.map(|h| (mask, h)),
            Hook::Authorizer(h) => self.authorizer = h,
        }
    }

    /// Add a pre-update listener beside the application's hook (the
    /// session extension's sessions); returns its id.
    pub fn add_preupdate_listener(&mut self, hook: crate::vdbe::exec::preupdate::PreUpdateHook) -> u64 {
        let id = self.state.preupdate_listeners.add(hook);
        self.state.preupdate_hook = self.state.preupdate_listeners.combined();
        id
    }

    /// Remove a listener added by [`Self::add_preupdate_listener`].
    pub fn remove_preupdate_listener(&mut self, id: u64) {
        self.state.preupdate_listeners.remove(id);
        self.state.preupdate_hook = self.state.preupdate_listeners.combined();
    }

    /// Whether this connection returns `StepResult::Io` instead of blocking.
    pub fn is_async(&self) -> bool {
        self.is_async
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

/// A prepared statement.
pub struct Statement {
    sql: String,
    program: Program,
    vm: Vm,
    params: Vec<Value>,
    active: bool,
    /// Counted in `ConnState::writing_statements` while active.
    writer: bool,
    has_row: bool,
    explain_rows: Vec<Vec<Value>>,
    explain_pos: usize,
    /// The last row given was the corruption report of an integrity check
    /// (`Program::corruption_is_a_row`): the next step is the end.
    ended_with_report: bool,
    fullscan_steps: i64,
    started_at: Option<std::time::Instant>,
    /// Compiled under settings that changed (a new authorizer): compile
    /// again before the next run.
    expired: bool,
    /// How many times the statement was compiled again (a schema change,
    /// an expired program): what was derived from its program, such as
    /// the C API's column names, is stale once this changes.
    recompiles: u64,
    /// After `StepResult::Io`: the connection's completed count when that
    /// step began. While it has not moved (and requests are in flight)
    /// nothing this statement waits for can have finished.
    io_wait: Option<u64>,
    /// The connection's completion counters, held between steps so that a
    /// step installs them (see [`crate::io::notify::IoNotify::install`])
    /// without touching their reference count; `None` before the first
    /// async step.
    io_notify: Option<Arc<crate::io::notify::IoNotify>>,
}

/// `SQLITE_TRACE_STMT`.
const TRACE_STMT: u32 = 1;
/// `SQLITE_TRACE_PROFILE`.
const TRACE_PROFILE: u32 = 2;
/// `SQLITE_TRACE_ROW`.
const TRACE_ROW: u32 = 4;

impl Drop for Connection {
    fn drop(&mut self) {
        // (As in `close`: in-flight requests must not report it.)
        self.io_notify.set_tag(0);
    }
}

impl Statement {
    fn new(sql: String, program: Program) -> Statement {
        let n = program.param_names.len();
        let vm = Vm::new(&program, vec![Value::Null; n]);
        Statement {
            sql,
            program,
            vm,
            params: vec![Value::Null; n.max(1)],
            active: false,
            writer: false,
            has_row: false,
            explain_rows: Vec::new(),
            explain_pos: 0,
            ended_with_report: false,
            fullscan_steps: 0,
            started_at: None,
            expired: false,
            recompiles: 0,
            io_wait: None,
            io_notify: None,
        }
    }

    fn finish(&mut self, conn: &mut Connection) {
        if self.active {
            self.active = false;
            conn.state.active_statements = conn.state.active_statements.saturating_sub(1);
            if std::mem::take(&mut self.writer) {
                debug_assert!(conn.state.writing_statements > 0);
                conn.state.writing_statements = conn.state.writing_statements.saturating_sub(1);
            }
            if conn.state.autocommit && conn.state.active_statements == 0 {
                // A read transaction left open by statements that were
                // interleaved ends with the last of them.
                let io = conn.state.io.clone();
                for d in conn.state.dbs.iter_mut() {
                    if d.btree.txn_state() == TxnState::Read {
                        let bt = &mut d.btree;
                        let _ = io.block_on(|| bt.commit());
                    }
                }
            }
        }
        if conn.state.schema_changed || conn.state.schema_appended | conn.state.schema_deleted != 0 {
            let _ = conn.ensure_schema();
        }
    }

    /// How many times the statement was compiled again since prepare.
    pub fn recompiles(&self) -> u64 {
        self.recompiles
    }

    fn recompile(&mut self, conn: &mut Connection) -> Result<()> {
        conn.schema_loaded = false;
        let (prog, _) = conn.compile(self.sql.as_bytes())?;
        if let Some(p) = prog {
            self.program = p;
            self.recompiles += 1;
        }
        Ok(())
    }

    /// Run until the next row, the end, or (async connections) pending I/O.
    pub fn step(&mut self, conn: &mut Connection) -> Result<StepResult> {
        // Text conversions and BINARY order follow this connection's
        // encoding while it runs (see `value::encoding`).
        let previous = crate::value::encoding::install(conn.state.text_encoding);
        let r = self.step_installed(conn);
        crate::value::encoding::install(previous);
        r
    }

    fn step_installed(&mut self, conn: &mut Connection) -> Result<StepResult> {
        if std::mem::take(&mut self.ended_with_report) {
            self.has_row = false;
            return Ok(StepResult::Done);
        }
        // (A statement run from a callback completes its I/O blocking:
        // the callback cannot hand SQLITE_IO to its caller.)
        if !conn.is_async || conn.state.lent_depth > 0 {
            return self.step_vm(conn);
        }
        if let Some(seen) = self.io_wait {
            // Stepped again before any of the connection's requests
            // finished: the VM would stop at the same place.
            if conn.io_notify.completed() == seen && conn.io_notify.in_flight() > 0 {
                return Ok(StepResult::Io);
            }
            self.io_wait = None;
        }
        let seen = conn.io_notify.completed();
        let mine = self.io_notify.take().unwrap_or_else(|| conn.io_notify.clone());
        let previous = IoNotify::install(Some(mine));
        let r = self.step_vm(conn);
        // Nested steps restore what they replaced, so this is ours again
        // (checked: a panic unwound through a nested step could leave
        // another connection's counters installed).
        self.io_notify = IoNotify::install(previous).filter(|n| Arc::ptr_eq(n, &conn.io_notify));
        if let Ok(StepResult::Io) = r {
            self.io_wait = Some(seen);
            // Suspended with nothing of the connection in flight (a
            // request the VM will retry at once): no completion will
            // report it, so report it now, or a scheduler stepping only
            // ready connections would never step it again.
            if conn.io_notify.in_flight() == 0 {
                conn.io_notify.mark_ready();
            }
        }
        r
    }

    fn step_vm(&mut self, conn: &mut Connection) -> Result<StepResult> {
        // Every row after the first of an ordinary statement: straight to
        // the VM (the general path's checks were ~7% of a short scan). Any
        // other outcome is handled by the general path, without running
        // the VM again.
        if self.active && self.program.explain == 0 && self.program.attach.is_none() && conn.trace.is_none() {
            let r = self.vm.run(&self.program, conn);
            if let Ok(VmStep::Row) = r {
                self.has_row = true;
                return Ok(StepResult::Row);
            }
            return self.run_vm(conn, Some(r));
        }
        self.step_general(conn)
    }

    /// [`Statement::step`] from the start: statements run by the
    /// connection, EXPLAIN, recompiling an expired program, starting.
    fn step_general(&mut self, conn: &mut Connection) -> Result<StepResult> {
        // VACUUM is run by the connection (`connection/vacuum.rs`).
        if let (Some(v), 0) = (self.program.vacuum.clone(), self.program.explain) {
            return self.step_vacuum(conn, &v);
        }
        if let (Some(a), 0) = (self.program.analyze.clone(), self.program.explain) {
            self.has_row = false;
            conn.analyze(&a)?;
            return Ok(StepResult::Done);
        }
        if self.program.explain != 0 {
            if !self.active && self.explain_pos == 0 {
                self.explain_rows = if self.program.explain == 1 {
                    crate::vdbe::explain::explain_rows(&self.program)
                } else {
                    self.program
                        .query_plan
                        .iter()
                        .map(|(id, p, d, n)| vec![Value::Integer(*id as i64), Value::Integer(*p as i64), Value::Integer(*n as i64), Value::text(d.clone())])
                        .collect()
                };
            }
            self.active = true;
            if self.explain_pos < self.explain_rows.len() {
                self.vm.row = self.explain_rows[self.explain_pos].clone();
                self.vm.row_regs = None;
                self.explain_pos += 1;
                self.has_row = true;
                return Ok(StepResult::Row);
            }
            self.has_row = false;
            self.active = false;
            self.explain_pos = 0;
            return Ok(StepResult::Done);
        }
        self.run_vm(conn, None)
    }

    /// Run the VM to its next row, end or pending I/O, starting the
    /// execution if needed; `first`: the outcome of a run already made
    /// (by the fast path of [`Statement::step`], the statement active),
    /// handled before running again.
    fn run_vm(&mut self, conn: &mut Connection, mut first: Option<Result<VmStep>>) -> Result<StepResult> {
        // Read the clock only when a busy retry needs it: one clock call
        // per row was ~3% of a cached read query.
        let mut busy_since: Option<std::time::Instant> = None;
        let mut busy_count = 0;
        let mut schema_retry = false;
        loop {
            if let Some(r) = first.take() {
                match self.on_vm_step(conn, r, &mut busy_since, &mut busy_count, &mut schema_retry)? {
                    Some(out) => return Ok(out),
                    None => continue,
                }
            }
            let stale = self.program.attach_generation != conn.attach_generation() || self.program.settings_generation != conn.state.settings_generation;
            if !self.active && stale && self.program.explain == 0 {
                // Databases were attached or detached since this was
                // compiled (its database numbers may mean others now), or
                // a setting that shapes compiled code changed.
                self.expired = true;
            }
            if !self.active && self.expired {
                let (prog, _) = conn.compile(self.sql.as_bytes())?;
                if let Some(p) = prog {
                    self.program = p;
                    self.recompiles += 1;
                    self.vm = Vm::new(&self.program, self.params.clone());
                }
                self.expired = false;
            }
            if !self.active {
                if self.vm.halted || self.vm.pc != 0 {
                    self.vm.reset(&self.program);
                }
                // (In place, reusing the buffers of the last execution's.)
                self.vm.set_params(&self.params);
                conn.state.active_statements += 1;
                self.writer = !self.program.readonly;
                conn.state.writing_statements += usize::from(self.writer);
                self.active = true;
                // The clock is read only for a profile callback registered
                // when the statement starts (as SQLite does): one clock call
                // per statement showed up in short queries.
                let profiling = conn.trace.as_ref().is_some_and(|(mask, _)| *mask & TRACE_PROFILE != 0);
                self.started_at = profiling.then(std::time::Instant::now);
                conn.state.interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
                if let Some((mask, cb)) = conn.trace.as_mut() {
                    if *mask & TRACE_STMT != 0 {
                        cb(TRACE_STMT, &self.sql, 0);
                    }
                }
            }
            let r = self.vm.run(&self.program, conn);
            if let Some(out) = self.on_vm_step(conn, r, &mut busy_since, &mut busy_count, &mut schema_retry)? {
                return Ok(out);
            }
        }
    }

    /// Act on one outcome of the VM: `Some` is the step's result, `None`
    /// means run the VM again (after I/O completed, an ATTACH's row, or a
    /// retry after recompiling or a busy wait).
    fn on_vm_step(
        &mut self,
        conn: &mut Connection,
        r: Result<VmStep>,
        busy_since: &mut Option<std::time::Instant>,
        busy_count: &mut i32,
        schema_retry: &mut bool,
    ) -> Result<Option<StepResult>> {
        match r {
            Ok(VmStep::Row) if self.program.attach.is_some() => {
                // ATTACH/DETACH: the row holds the operands.
                let row = self.vm.take_row();
                let done = match self.program.attach {
                    Some(crate::vdbe::program::AttachKind::Attach) => conn.attach_database(row.first(), row.get(1)),
                    _ => conn.detach_database(row.first()),
                };
                if let Err(e) = done {
                    self.has_row = false;
                    self.vm.halted = true;
                    self.finish(conn);
                    return Err(e);
                }
            }
            Ok(VmStep::Row) => {
                self.has_row = true;
                if let Some((mask, cb)) = conn.trace.as_mut() {
                    if *mask & TRACE_ROW != 0 {
                        cb(TRACE_ROW, &self.sql, 0);
                    }
                }
                return Ok(Some(StepResult::Row));
            }
            Ok(VmStep::Done) => {
                self.has_row = false;
                if let (Some((mask, cb)), Some(t0)) = (conn.trace.as_mut(), self.started_at) {
                    if *mask & TRACE_PROFILE != 0 {
                        cb(TRACE_PROFILE, &self.sql, t0.elapsed().as_nanos() as i64);
                    }
                }
                self.finish(conn);
                if !self.vm.wal_commits.is_empty() {
                    let commits = std::mem::take(&mut self.vm.wal_commits);
                    conn.call_wal_hook(&commits)?;
                }
                return Ok(Some(StepResult::Done));
            }
            Ok(VmStep::Pending) => {
                if conn.is_async && conn.state.lent_depth == 0 {
                    return Ok(Some(StepResult::Io));
                }
                conn.state.io.wait_any()?;
            }
            Err(e) => {
                self.has_row = false;
                let produced = self.vm.rows_out > 0;
                // A failed change is undone, and so are its counts
                // (OR FAIL keeps the rows changed before the failure).
                if self.program.counts_changes {
                    let fail = self.vm.error_action == crate::vdbe::exec::txn::ON_ERROR_FAIL;
                    conn.state.changes = if fail { self.vm.n_change } else { 0 };
                    conn.state.total_changes += if fail { self.vm.n_change + self.vm.n_trigger_change } else { 0 };
                }
                self.finish(conn);
                if self.program.corruption_is_a_row && e.primary() == crate::error::SQLITE_CORRUPT {
                    self.vm.row = vec![Value::text(crate::error::errstr(crate::error::SQLITE_CORRUPT))];
                    self.vm.row_regs = None;
                    self.has_row = true;
                    self.ended_with_report = true;
                    return Ok(Some(StepResult::Row));
                }
                if e.primary() == SQLITE_SCHEMA && !*schema_retry {
                    *schema_retry = true;
                    self.recompile(conn)?;
                    self.vm.halted = true;
                    return Ok(None);
                }
                if e.primary() == SQLITE_BUSY
                    && !produced
                    && !self.vm.busy_not_retried
                    && conn.state.busy_retry(*busy_count, *busy_since.get_or_insert_with(std::time::Instant::now))
                {
                    *busy_count += 1;
                    self.vm.halted = true;
                    return Ok(None);
                }
                return Err(e);
            }
        }
        Ok(None)
    }

    /// Back to the start; bindings are kept.
    pub fn reset(&mut self, conn: &mut Connection) {
        self.io_wait = None;
        self.ended_with_report = false;
        if self.active && self.program.explain == 0 && !self.vm.halted {
            // Ending early: run the Halt's commit logic by hand.
            let io = conn.state.io.clone();
            if let Some((i, dbs)) = self.vm.stmt_savepoint.take() {
                crate::vdbe::exec::txn::stmt_savepoint_closed(&mut conn.state);
                for (_, d) in conn.state.dbs.iter_mut().enumerate().filter(|(n, _)| dbs & (1 << n) != 0) {
                    let bt = &mut d.btree;
                    let _ = io.block_on(|| bt.savepoint_release(i));
                }
            }
            crate::vdbe::exec::trigger_counts::unwind(&mut self.vm, &mut conn.state);
            if self.program.counts_changes {
                conn.state.changes = self.vm.n_change;
                conn.state.total_changes += self.vm.n_change + self.vm.n_trigger_change;
            }
            if conn.state.autocommit && conn.state.active_statements <= 1 {
                for d in conn.state.dbs.iter_mut() {
                    if d.btree.txn_state() != TxnState::None {
                        let bt = &mut d.btree;
                        let _ = io.block_on(|| bt.commit());
                    }
                }
            }
        }
        self.finish(conn);
        self.vm.reset(&self.program);
        self.has_row = false;
        self.explain_pos = 0;
    }

    /// Number of result columns.
    pub fn column_count(&self) -> usize {
        self.program.column_names.len()
    }

    /// Name of result column `i` (0-based).
    pub fn column_name(&self, i: usize) -> &str {
        self.program.column_names.get(i).map_or("", |s| s.as_str())
    }

    /// Value of column `i` of the current row.
    pub fn column(&self, i: usize) -> &Value {
        if !self.has_row {
            return &Value::Null;
        }
        self.vm.row_value(i)
    }

    /// Bind parameter `i` (1-based).
    pub fn bind(&mut self, i: usize, value: Value) -> Result<()> {
        if self.active {
            return Err(Error::code(SQLITE_MISUSE));
        }
        if i == 0 || i >= self.params.len() {
            return Err(Error::code(SQLITE_RANGE));
        }
        self.params[i] = value;
        Ok(())
    }

    /// Number of parameters (largest index).
    pub fn parameter_count(&self) -> usize {
        self.program.param_names.len().saturating_sub(1)
    }

    /// The SQL text this statement was compiled from.
    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// Declared type of result column `i`, when it is a table column.
    pub fn column_decltype(&self, i: usize) -> Option<&str> {
        self.program.column_decltypes.get(i).and_then(|d| d.as_deref())
    }

    /// Origin of result column `i` when it is a table column:
    /// (database, table, column).
    pub fn column_origin(&self, i: usize) -> Option<(&str, &str, &str)> {
        self.program.column_origins.get(i).and_then(|o| o.as_ref()).map(|(d, t, c)| (d.as_str(), t.as_str(), c.as_str()))
    }

    /// Columns in the current row (0 when not on a row).
    pub fn data_count(&self) -> usize {
        if self.has_row {
            self.vm.row_len()
        } else {
            0
        }
    }

    /// Name of parameter `i` (1-based) with its prefix (`:a`, `$a`,
    /// `@a`, `?5`); `None` for plain `?` or out of range.
    pub fn parameter_name(&self, i: usize) -> Option<&str> {
        self.program.param_names.get(i).and_then(|n| n.as_deref())
    }

    /// Index of the named parameter (name including its prefix), 0 if none.
    pub fn parameter_index(&self, name: &str) -> usize {
        self.program.param_names.iter().position(|n| n.as_deref() == Some(name)).unwrap_or(0)
    }

    /// Set every parameter to NULL.
    pub fn clear_bindings(&mut self) {
        for p in self.params.iter_mut() {
            *p = Value::Null;
        }
    }

    /// The SQL with parameters replaced by their bound values as literals,
    /// in SQLite's forms (`sqlite3_expanded_sql`): integers as they are,
    /// reals with 15 significant digits, text quoted up to its first NUL
    /// character, blobs as `x'..'` hex. The caller bounds the length.
    /// `sql` is the statement's text as the application gave it (the
    /// statement keeps it trimmed): the same parameters in the same order.
    pub fn expanded_sql(&self, sql: &[u8]) -> Vec<u8> {
        use sqlite3_parser::dialect::TokenType;
        let bytes = sql;
        let mut out = Vec::with_capacity(bytes.len());
        let mut last = 0;
        let mut next_anon = 0usize;
        for t in crate::sql::parse::tokens(bytes) {
            if t.kind != TokenType::TK_VARIABLE {
                continue;
            }
            out.extend_from_slice(&bytes[last..t.start]);
            let name = String::from_utf8_lossy(&bytes[t.start..t.end]).into_owned();
            let idx = if name == "?" {
                next_anon += 1;
                next_anon
            } else if let Some(n) = name.strip_prefix('?') {
                let n: usize = n.parse().unwrap_or(0);
                next_anon = next_anon.max(n);
                n
            } else {
                let i = self.parameter_index(&name);
                next_anon = next_anon.max(i);
                i
            };
            let v = self.params.get(idx).cloned().unwrap_or(Value::Null);
            push_literal(&mut out, &v);
            last = t.end;
        }
        out.extend_from_slice(&bytes[last..]);
        out
    }

    /// Whether the statement makes no direct change to the database file.
    pub fn readonly(&self) -> bool {
        self.program.readonly
    }

    /// 0 not EXPLAIN, 1 EXPLAIN, 2 EXPLAIN QUERY PLAN.
    pub fn explain_mode(&self) -> i32 {
        self.program.explain as i32
    }

    /// Compile the statement again before its next run (`sqlite3_expired`
    /// semantics: a run in progress finishes with the old program).
    pub fn expire(&mut self) {
        self.expired = true;
    }

    /// Whether the statement has been stepped and not reset or finished.
    pub fn busy(&self) -> bool {
        self.active
    }

    /// `sqlite3_stmt_status` counter `op`, zeroed after reading if `reset`.
    pub fn status(&mut self, op: i32, reset: bool) -> i64 {
        // SQLITE_STMTSTATUS_VM_STEP = 4; the others are not counted.
        let v = match op {
            4 => self.vm.steps,
            1 => self.fullscan_steps,
            _ => 0,
        };
        if reset && op == 4 {
            self.vm.steps = 0;
        }
        v
    }
}

/// A bound value as an SQL literal, appended to expanded SQL.
fn push_literal(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"NULL"),
        Value::Integer(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Value::Real(r) => out.extend_from_slice(crate::value::numeric::format_real_digits(*r, 15).as_bytes()),
        Value::Text(t) => {
            // SQLite's `%.*q` stops at a NUL character.
            let text = t.split(|&c| c == 0).next().unwrap_or(&[]);
            out.push(b'\'');
            for &c in text {
                if c == b'\'' {
                    out.push(b'\'');
                }
                out.push(c);
            }
            out.push(b'\'');
        }
        Value::Blob(_) | Value::ZeroBlob(_) => {
            let crate::value::ValueRef::Blob(b) = v.as_ref() else { return };
            out.extend_from_slice(b"x'");
            for c in b {
                out.extend_from_slice(format!("{c:02x}").as_bytes());
            }
            out.push(b'\'');
        }
    }
}

// Whole-database copies and blob I/O, with access to the connection's
// insides: online backup, incremental blob handles, serialize/deserialize,
// VACUUM.
mod analyze;
mod attach;
pub mod backup;
pub mod blob;
pub mod pages;
mod serialize;
mod vacuum;
mod vtab;

/// BINARY, NOCASE and RTRIM: always listed by `PRAGMA collation_list`,
/// whether or not an application replaced them.
fn is_builtin_collation(name: &str) -> bool {
    ["BINARY", "NOCASE", "RTRIM"].iter().any(|b| b.eq_ignore_ascii_case(name))
}

/// Run `read` on database `db` inside a read transaction: the open one,
/// or one begun for it and ended after it when no statement of the
/// connection is running (also when `read` fails). Beginning it waits
/// through the busy handler while another connection writes, as SQLite's
/// schema read does.
fn in_read_txn<T>(state: &mut ConnState, db: usize, read: impl FnOnce(&IoContext, &mut Btree) -> Result<T>) -> Result<T> {
    let io = state.io.clone();
    let may_end = state.active_statements == 0;
    let started = state.dbs[db].btree.txn_state() == TxnState::None;
    if started {
        let (mut count, mut since) = (0, None);
        loop {
            let bt = &mut state.dbs[db].btree;
            match io.block_on(|| bt.begin_read()) {
                Ok(()) => break,
                Err(e) if e.primary() == SQLITE_BUSY && state.busy_retry(count, *since.get_or_insert_with(std::time::Instant::now)) => count += 1,
                Err(e) => return Err(e),
            }
        }
    }
    let bt = &mut state.dbs[db].btree;
    let r = read(&io, bt);
    if started && may_end {
        let _ = io.block_on(|| bt.commit());
    }
    r
}
