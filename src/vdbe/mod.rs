//! # The VDBE: register bytecode and its resumable interpreter
//!
//! A [`Program`] (see [`program`]) is a list of instructions in SQLite's
//! style: opcode names, operand conventions and semantics follow
//! `opcode.txt`. The [`Vm`] holds everything a running statement owns:
//! program counter, registers, cursors, aggregate states, bound parameters.
//!
//! The virtual-table interface modules implement ([`vtab`]) lives here
//! too: the VM drives a table's cursors and its module calls back into the
//! VM's host (`host.rs`) to run SQL, so the two are one layer.
//!
//! ## Resumability
//! Every instruction that calls a B-tree method may get `Poll::Pending`.
//! The instruction then returns [`exec::Flow::Pending`] *before* doing
//! anything else: the program counter stays on it and all state lives in
//! the VM and the B-tree cursor, so executing the same instruction again
//! continues the operation. Side effects that must not repeat (counting a
//! change, setting `last_insert_rowid`, pushing to the sorter, stepping an
//! aggregate) happen only after the B-tree call returned `Ready`, and such
//! instructions make at most one suspending call after their last
//! in-memory side effect. Instructions that can suspend are marked in
//! EXPLAIN's comment column with `[may await I/O]` (the program layout
//! stays SQLite's; there are no separate Async/Await instructions).
//! Blocking connections loop in `Statement::step`: on `Pending` they call
//! `IoContext::wait_any` and run the VM again.
//!
//! A call given a time quantum ([`Vm::quantum`], an async connection's
//! `PRAGMA step_quantum`) also stops at a jump once the quantum is spent
//! ([`VmStep::Yield`], `exec/quantum.rs`): the jump has completed, so
//! the next call starts at its target like any other resumption.
//!
//! ## Invariants
//! Registers hold the types the opcodes reading them assume: a counter
//! that `MustBeInt` made, or an address `Gosub`, `InitCoroutine` or
//! `Yield` stored, is an integer where SQLite asserts `MEM_Int` (checked:
//! vm_register_types). Jump targets are resolved addresses
//! (checked: program_jumps_resolved).
//!
//! ## Transactions
//! `Transaction` opens read or write transactions on demand; `Halt`
//! commits when the connection is in autocommit mode and no other
//! statement is active. Write statements inside an explicit transaction
//! run inside a statement savepoint, rolled back on error; it is opened in
//! every database the statement writes, at the same depth as the user
//! savepoints, which every writing database holds too. A commit commits
//! each database in turn, under a super-journal when several rollback-
//! journal databases are written (`exec/super_commit.rs`: all or none).

pub mod agg_slots;
pub mod cursor;
pub mod ephemeral_rows;
pub mod ephemeral_spill;
pub mod ephemeral_tree;
pub mod exec;
pub mod explain;
pub mod func;
pub mod host;
pub mod program;
pub mod register;
pub mod settings;
pub mod sorter;
pub mod vtab;

use crate::btree::Btree;
use crate::error::Result;
use crate::io::IoContext;
use crate::value::Value;
use cursor::VmCursor;
use program::Program;
use register::Register;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One attached database file.
pub struct Database {
    /// Schema name: "main", "temp" or the ATTACH name.
    pub name: String,
    /// File name ("" for in-memory).
    pub path: String,
    /// The B-tree.
    pub btree: Btree,
    /// Opened read-only.
    pub read_only: bool,
}

/// `sqlite3_progress_handler` callback: `true` interrupts the statement.
/// It is lent the connection (see [`host`]).
/// Shared, so that a call need not borrow the connection it is lent (and
/// statements it runs are watched by it too, as in SQLite).
pub type ProgressHandler = Arc<dyn Fn(&mut dyn host::VmHost) -> bool + Send + Sync>;

/// `sqlite3_wal_hook` callback: (database name, frames in the WAL) after
/// a commit to a WAL database; a non-zero result code fails the statement.
/// It runs once the committing statement has ended, lent the connection
/// (SQLite lets it read, write or checkpoint).
/// Shared, so that a call need not borrow the connection it is lent (a
/// commit it makes calls it again, nested, as in SQLite).
pub type WalHook = Arc<dyn Fn(&mut dyn host::VmHost, &str, i32) -> i32 + Send + Sync>;

/// `sqlite3_busy_handler` callback: retry count in, `true` to retry.
pub type BusyHandler = Box<dyn FnMut(i32) -> bool + Send>;

/// Connection state the VM reads and changes while running.
pub struct ConnState {
    /// I/O context (for blocking waits on error paths).
    pub io: IoContext,
    /// Where sorters and transient tables open their temporary files: the
    /// connection's VFS, also for an in-memory database (whose `io` is an
    /// in-memory backend), as SQLite opens them through `db->pVfs`.
    pub temp_io: IoContext,
    /// Databases: index 0 is "main".
    pub dbs: Vec<Database>,
    /// Autocommit mode.
    pub autocommit: bool,
    /// Open user savepoints, outermost first.
    pub savepoints: Vec<String>,
    /// The transaction was started by SAVEPOINT (RELEASE of the outermost
    /// one commits).
    pub savepoint_started_txn: bool,
    /// `last_insert_rowid()`.
    pub last_insert_rowid: i64,
    /// `changes()`.
    pub changes: i64,
    /// `total_changes()`.
    pub total_changes: i64,
    /// Statements stepped and not yet finished or reset.
    pub active_statements: usize,
    /// A statement changed the schema: reload before the next prepare.
    pub schema_changed: bool,
    /// Databases (bit per index) whose schema table a statement only
    /// appended rows to (CREATE on a file without auto-vacuum): only the
    /// new rows are read before the next prepare. `schema_changed` wins.
    pub schema_appended: u64,
    /// Databases whose schema table a statement only deleted rows from
    /// (DROP without auto-vacuum): those objects are forgotten, nothing is
    /// parsed. A database in both masks is read again whole.
    pub schema_deleted: u64,
    /// The open transaction changed a schema cookie: rolling it back (or
    /// back to a savepoint) makes the schema be read again.
    pub txn_schema_written: bool,
    /// Counts the ROLLBACK TOs that undid a schema change: every other
    /// running statement of the connection then fails with "abort due to
    /// ROLLBACK" at its next step, as SQLite trips all cursors then.
    pub abort_generation: u64,
    /// The temp database has been used (a transaction opened on it):
    /// `PRAGMA database_list` shows it from then on, as SQLite does once
    /// it has opened it.
    pub temp_used: bool,
    /// The connection's text encoding: main's (read with its schema), or
    /// the one `PRAGMA encoding` chose while main is still empty. Temp and
    /// attached databases have the same (`ATTACH` refuses another).
    pub text_encoding: crate::value::encoding::TextEncoding,
    /// `sqlite3_interrupt`.
    pub interrupt: Arc<AtomicBool>,
    /// The switches statements compile under (`settings.rs`).
    pub settings: settings::Settings,
    /// `sqlite3_busy_timeout` / `PRAGMA busy_timeout`: how long a locked
    /// database is retried, in milliseconds (0: not at all).
    pub busy_timeout_ms: i32,
    /// `sqlite3_busy_handler`: called with the retry count; `true` to
    /// retry. Replaces the timeout while set.
    pub busy_handler: Option<BusyHandler>,
    /// The retry count the busy handler is called with, when it is shared
    /// with an application VFS's calls (the C API's: SQLite keeps one
    /// count per connection, which a VFS reaches through
    /// `SQLITE_FCNTL_BUSYHANDLER`): its owner resets it at each step,
    /// prepare and checkpoint, and -1 means the handler gave up since.
    /// `None`: each wait counts its own retries from 0.
    pub shared_busy_count: Option<Arc<std::sync::atomic::AtomicI32>>,
    /// `PRAGMA locking_mode=EXCLUSIVE` without a database name: databases
    /// attached later start in exclusive mode too.
    pub exclusive_locking_default: bool,
    /// `PRAGMA cache_size`.
    pub cache_size: i64,
    /// Update hook.
    pub update_hook: Option<Box<dyn FnMut(i32, &str, &str, i64) + Send>>,
    /// Commit hook: `true` turns the commit into a rollback.
    pub commit_hook: Option<Box<dyn FnMut() -> bool + Send>>,
    /// WAL hook: called after a commit that appended to a database's WAL,
    /// with the schema name and the frames now in the log; a non-zero
    /// result code fails the statement with that code.
    pub wal_hook: Option<WalHook>,
    /// `sqlite3_preupdate_hook`.
    pub preupdate_hook: Option<exec::preupdate::PreUpdateHook>,
    /// The application's pre-update hook and the listeners beside it,
    /// combined into `preupdate_hook`.
    pub preupdate_listeners: exec::preupdate::PreUpdateListeners,
    /// Rollback hook.
    pub rollback_hook: Option<Box<dyn FnMut() + Send>>,
    /// Progress handler: (every n instructions, callback returning
    /// `true` to interrupt).
    pub progress: Option<(i32, ProgressHandler)>,
    /// `PRAGMA step_quantum`: how long one `sqlite3_step` of this
    /// connection may run before it returns `SQLITE_IO` at a jump to let
    /// its scheduler serve others (`Vm::quantum`); `None`: no limit, and
    /// always on blocking connections (`async_steps` false).
    pub step_quantum: Option<std::time::Duration>,
    /// The connection was opened with `SQLITE_OPEN_ASYNC`: its steps may
    /// hand a wait back to the caller (the quantum is only for them).
    pub async_steps: bool,
    /// Callbacks running with the connection lent to them (see
    /// [`host`]): statements complete their I/O blocking while positive.
    pub lent_depth: u32,
    /// Statement savepoints open (one per statement writing inside a
    /// transaction or beside other statements): a nested statement opens
    /// its own one level deeper than its caller's.
    pub stmt_savepoints: usize,
    /// Active statements that write (SQLite's `nVdbeWrite`): COMMIT and
    /// RELEASE of the outermost savepoint wait for them.
    pub writing_statements: usize,
    /// The virtual tables of the transaction are being synced before its
    /// commit (`exec::vtab_txn`): statements they run meanwhile end no
    /// transaction (SQLite's `sqlite3VtabInSync`).
    pub vtab_syncing: bool,
    /// `SQLITE_LIMIT_LENGTH`: a string or blob made longer than this
    /// (function result, concatenation, record) fails with `SQLITE_TOOBIG`.
    pub max_length: i64,
    /// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH`: the longest LIKE or GLOB
    /// pattern, in bytes.
    pub max_like_pattern: usize,
    /// The `auto_vacuum` mode last asked for by PRAGMA: one that could not
    /// take effect at once (the database has tables) is applied by the
    /// next VACUUM, which then forgets it.
    pub next_auto_vacuum: Option<u8>,
    /// `PRAGMA defer_foreign_keys`: every foreign key acts as deferred
    /// until the transaction ends (which turns it off again).
    pub defer_foreign_keys: bool,
    /// `PRAGMA query_only`: every write transaction is refused
    /// (`SQLITE_READONLY`).
    pub query_only: bool,
    /// PRAGMA settings kept without an effect of their own (see
    /// `exec::schema::KEPT_PRAGMAS`): their values as last set.
    pub kept_pragmas: [i64; exec::schema::KEPT_PRAGMAS.len()],
    /// `PRAGMA analysis_limit` (0: none), kept and read back.
    pub analysis_limit: i32,
    /// `SQLITE_LIMIT_WORKER_THREADS` / `PRAGMA threads` (ringlite sorts
    /// on the calling thread whatever it is).
    pub worker_threads: i32,
    /// `SQLITE_LIMIT_TRIGGER_DEPTH`: how many trigger programs may run
    /// nested.
    pub max_trigger_depth: usize,
    /// `SQLITE_LIMIT_SCHEMA`: the most objects one database's schema may
    /// hold when a statement has the schema parsed again (`ParseSchema`).
    pub max_schema_objects: usize,
    /// Bumped when a setting that changes compiled code (the two above)
    /// changes: statements compiled before are recompiled at their next
    /// step, as SQLite expires them.
    pub settings_generation: u64,
    /// Unresolved violations of deferred foreign keys in the open
    /// transaction: (constraints declared DEFERRABLE INITIALLY DEFERRED,
    /// immediate ones deferred by `defer_foreign_keys`). COMMIT fails
    /// while either is positive; both are 0 outside a transaction.
    pub fk_deferred: (i64, i64),
    /// The counts above when each open savepoint was opened (index as in
    /// `savepoints`; entries past its length are stale).
    pub savepoint_fk_deferred: Vec<(i64, i64)>,
    /// Virtual-table modules registered and tables connected (`vtab`).
    pub vtabs: crate::vdbe::vtab::Registry,
    /// A transaction that changed a schema was rolled back: the next
    /// schema load disconnects every virtual table first.
    pub schema_reset: bool,
    /// Virtual tables' xDestroy calls running: the statements they run
    /// may drop tables although the DROP TABLE calling them is active.
    pub vdestroy_depth: usize,
    /// The super-journal of the multi-database commit in progress, open
    /// from its creation until every database is written, as SQLite keeps
    /// it (`exec/super_commit.rs`).
    pub super_journal_file: Option<std::sync::Arc<dyn crate::io::File>>,
    /// Bytes this connection's sorters spilled to temporary files
    /// (`SQLITE_DBSTATUS_TEMPBUF_SPILL`; shared with the sorters).
    pub temp_spill_bytes: Arc<std::sync::atomic::AtomicU64>,
}

impl ConnState {
    /// Whether an operation refused with `SQLITE_BUSY` should be tried
    /// again (`count` retries so far; `_started`: when the first was
    /// refused): asks the busy handler, or sleeps while the busy timeout
    /// lasts, on SQLite's schedule (1, 2, 5, 10, 15, 20, 25, 25, 25, 50,
    /// 50, then 100 ms per retry, the last sleep cut to end at the
    /// timeout), through the I/O backend (an application VFS's `xSleep`).
    /// With a shared count (see [`ConnState::shared_busy_count`]) `count`
    /// is ignored: the shared one is used, and once the handler gave up no
    /// retry is asked for until its owner resets it, as in SQLite.
    pub fn busy_retry(&mut self, count: i32, started: std::time::Instant) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(shared) = self.shared_busy_count.clone() else { return self.busy_retry_at(count, started) };
        let n = shared.load(Relaxed);
        if n < 0 {
            return false;
        }
        let retry = self.busy_retry_at(n, started);
        shared.store(if retry { n.saturating_add(1) } else { -1 }, Relaxed);
        retry
    }

    /// [`ConnState::busy_retry`] for retry number `count`.
    fn busy_retry_at(&mut self, count: i32, _started: std::time::Instant) -> bool {
        if let Some(h) = self.busy_handler.as_mut() {
            return h(count);
        }
        const DELAYS: [i64; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];
        if self.busy_timeout_ms <= 0 || count < 0 {
            return false;
        }
        let count = count as i64;
        let (mut delay, prior) = if count < 12 {
            (DELAYS[count as usize], DELAYS[..count as usize].iter().sum::<i64>())
        } else {
            (100, DELAYS.iter().sum::<i64>() + 100 * (count - 12))
        };
        let timeout = self.busy_timeout_ms as i64;
        if prior + delay > timeout {
            delay = timeout - prior;
            if delay <= 0 {
                return false;
            }
        }
        self.io.backend().sleep(std::time::Duration::from_millis(delay as u64));
        true
    }

    /// The transaction ended (committed or rolled back): nothing is
    /// deferred any more, and `defer_foreign_keys` turns itself off.
    pub fn end_fk_transaction(&mut self) {
        self.fk_deferred = (0, 0);
        self.savepoint_fk_deferred.clear();
        self.defer_foreign_keys = false;
    }
}

impl ConnState {
    /// Whether any database has a write transaction.
    pub fn writing(&self) -> bool {
        self.dbs.iter().any(|d| d.btree.txn_state() == crate::btree::TxnState::Write)
    }

    /// Whether a statement ending now (still counted as active; `writer`:
    /// counted in `writing_statements`) ends the transaction: autocommit
    /// mode and no other statement writing, as SQLite's
    /// `db->nVdbeWrite == (p->readOnly==0)`. Statements that only read
    /// do not hold a write back: they keep reading (`others_reading`).
    pub fn ends_txn(&self, writer: bool) -> bool {
        self.autocommit && self.writing_statements <= usize::from(writer) && !self.vtab_syncing
    }

    /// Whether statements other than the one ending are running: a
    /// transaction ending now ends in a read transaction of each database
    /// (SQLite: `db->nVdbeRead > 1` in `btreeEndTransaction`), which the
    /// last of them ends (`Statement::finish`).
    pub fn others_reading(&self) -> bool {
        self.active_statements > 1
    }

    /// Call the rollback hook (a write transaction is being rolled back).
    pub fn fire_rollback_hook(&mut self) {
        if let Some(h) = self.rollback_hook.as_mut() {
            h();
        }
    }
}

/// How many closed B-tree cursors a VM keeps for reuse.
const MAX_SPARE_CURSORS: usize = 8;

/// What one run of the VM produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmStep {
    /// A result row is in [`Vm::row`].
    Row,
    /// The program halted successfully.
    Done,
    /// An instruction is waiting for I/O; run again later.
    Pending,
    /// The step's time quantum ([`Vm::quantum`]) ran out at a jump: the
    /// jump is done and nothing is in flight, so running again later
    /// continues at its target (async connections hand this to their
    /// caller as `SQLITE_IO`, see `connection/statement.rs`).
    Yield,
}

/// A running program's state.
pub struct Vm {
    /// Program counter.
    pub pc: usize,
    /// Registers (index 0 unused).
    pub regs: Vec<Register>,
    /// Cursors.
    pub cursors: Vec<Option<VmCursor>>,
    /// Aggregate states by accumulator register.
    pub aggs: agg_slots::AggSlots,
    /// Bound parameters (index 0 unused): the statement's own bindings,
    /// written by `Statement::bind` only while the VM is not running.
    pub params: Vec<Value>,
    /// The current result row, when it is not in registers (`row_regs`).
    pub row: Vec<Value>,
    /// `ResultRow` leaves its row in registers: (first, count). The
    /// registers stay untouched until the next step, so the caller reads
    /// them there ([`Vm::row_value`]) instead of from a copy.
    pub row_regs: Option<(usize, usize)>,
    /// `Once` instructions already passed.
    pub once: HashSet<usize>,
    /// The statement savepoint, when one is open: its depth index and
    /// the databases (bit per index) it is open in.
    pub stmt_savepoint: Option<(usize, u32)>,
    /// Rows changed by this statement.
    pub n_change: i64,
    /// Rows changed so far by the trigger body statement running
    /// (`exec::trigger_counts`): they count in total_changes() but not
    /// in the firing statement's changes().
    pub n_trigger_change: i64,
    /// `'now'` for date functions, fixed per step.
    pub now_jd_ms: Option<i64>,
    /// Halted (done or failed).
    pub halted: bool,
    /// Halt is committing: re-entry continues the commit.
    pub committing: bool,
    /// The statement failed busy where SQLite does not call the busy
    /// handler (a write refused while this connection held a read
    /// transaction, or a commit whose wait the handler ended): no retry.
    pub busy_not_retried: bool,
    /// The statement changed a schema cookie: if its transaction is
    /// rolled back, the connection forgets its schemas and disconnects
    /// its virtual tables (SQLite's schema reset after a failed DDL).
    pub cookie_changed: bool,
    /// A `ParseSchema` with P5 = 1 ran: the statement's schema change is
    /// rows appended (see `ConnState::schema_appended`), not a reload.
    pub schema_appended: bool,
    /// The virtual tables in the transaction were synced for this
    /// statement's commit (`exec::vtab_txn`).
    pub vtab_synced: bool,
    /// The statement savepoint the virtual tables in the transaction
    /// opened for this statement (xSavepoint number), released when it
    /// ends, rolled back to when it fails.
    pub vtab_stmt_savepoint: Option<i32>,
    /// A commit waiting for readers to finish: (busy handler calls so
    /// far, waiting since).
    pub busy_wait: Option<(i32, std::time::Instant)>,
    /// What the statement's commit appended to WAL files (schema name,
    /// frames in the log), when a WAL hook is installed: the hook is called
    /// with them once the statement has ended (as SQLite calls it after
    /// the VM halts, outside the statement).
    pub wal_commits: Vec<(String, u32)>,
    /// Rows output so far (for `sqlite3_stmt_status`).
    pub rows_out: i64,
    /// Instructions run (for status and the progress handler).
    pub steps: i64,
    /// This run's `sqlite3_stmt_status` counts, by SQLITE_STMTSTATUS_*
    /// number: 1 full-scan steps (a `Next`/`Prev` with P5 = 1 that found
    /// a row), 2 sorts (`SorterSort`), 3 rows added to automatic indexes
    /// (`Next` with P5 = 3); index 0 unused.
    pub status: [i64; 4],
    /// Result of the last `Compare` (for `Jump`).
    pub last_cmp: std::cmp::Ordering,
    /// An instruction that makes two B-tree calls (seek, then read the
    /// entry) records here that the first one completed, so re-entry
    /// after a suspension goes straight to the second: (pc, phase).
    pub phase: Option<(usize, u8)>,
    /// How a failing `Halt` wants the error handled (`exec::txn::ON_ERROR_*`).
    pub error_action: u8,
    /// Set when this statement failed without writing and kept what the
    /// statements that completed while it ran wrote (`exec::txn::abort`):
    /// the virtual tables in the transaction then commit too.
    pub abort_kept_others: bool,
    /// Foreign key violations this statement has created and not yet
    /// resolved (immediate constraints, and deferred ones in autocommit
    /// mode); `Halt` fails the statement when it is positive.
    pub fk_violations: i64,
    /// The transaction's deferred violation counts when the statement
    /// started ([`ConnState::fk_deferred`]): restored when it fails.
    pub fk_deferred_at_start: (i64, i64),
    /// [`ConnState::abort_generation`] when the statement started (or
    /// last rolled back itself).
    pub abort_seen: u64,
    /// Scratch list for function call arguments (kept to reuse its
    /// allocation; empty between instructions).
    pub call_args: Vec<Value>,
    /// The record `MakeRecord` just built for the `Insert` right after it
    /// ends in this many zero bytes that it left out (trailing zero-blob
    /// fields): (register, zeros). Set only when that `Insert` reads the
    /// register; cleared by every `MakeRecord` and by that `Insert` once
    /// done, so no other instruction ever sees a record without its tail.
    pub zero_tail: Option<(usize, usize)>,
    /// B-tree cursors closed by this VM, kept (with their buffers) for
    /// the next `OpenRead`/`OpenWrite`: a statement that is run again
    /// and again does not allocate its cursors every time.
    pub spare_cursors: Vec<Box<cursor::BtreeCursor>>,
    /// Trigger programs running (`Program`), innermost last: each holds
    /// its caller's state while it runs (see [`exec::frame`]).
    pub frames: Vec<exec::frame::Frame>,
    /// Trigger bodies running, innermost last: what each hides from its
    /// caller (see [`exec::trigger_counts`]).
    pub trigger_saves: Vec<exec::trigger_counts::TriggerSave>,
    /// Tables locked by `CursorLock`: (database, root page, frame depth
    /// and cursor of the locking cursor).
    pub pinned: Vec<(usize, u32, usize, usize)>,
    /// Text and blob buffers the registers held when the VM was last
    /// reset, emptied, for the next execution's parameters and records
    /// (`Variable`, `MakeRecord`): a statement run again and again does
    /// not allocate them every time. At most [`MAX_SPARE_BUFFERS`], each
    /// at most [`MAX_SPARE_BUFFER`] bytes of capacity.
    pub spare_bufs: Vec<Vec<u8>>,
    /// How long one call of [`Vm::run`] may run before it yields at a
    /// jump ([`VmStep::Yield`]); `None`: never. Set by the statement
    /// before each call (only async connections' top-level steps have
    /// one, `PRAGMA step_quantum`).
    pub quantum: Option<std::time::Duration>,
}

/// Most buffers [`Vm::spare_bufs`] keeps.
const MAX_SPARE_BUFFERS: usize = 16;
/// Largest capacity of a buffer kept in [`Vm::spare_bufs`].
const MAX_SPARE_BUFFER: usize = 4096;

impl Vm {
    /// A fresh VM for `prog` with `params` bound.
    pub fn new(prog: &Program, params: Vec<Value>) -> Vm {
        Vm {
            pc: 0,
            regs: vec![Register::default(); prog.n_regs + 1],
            cursors: (0..prog.n_cursors).map(|_| None).collect(),
            aggs: agg_slots::AggSlots::default(),
            params,
            row: Vec::new(),
            row_regs: None,
            once: HashSet::new(),
            stmt_savepoint: None,
            n_change: 0,
            n_trigger_change: 0,
            now_jd_ms: None,
            halted: false,
            committing: false,
            busy_not_retried: false,
            cookie_changed: false,
            schema_appended: false,
            vtab_synced: false,
            vtab_stmt_savepoint: None,
            busy_wait: None,
            wal_commits: Vec::new(),
            rows_out: 0,
            steps: 0,
            status: [0; 4],
            last_cmp: std::cmp::Ordering::Equal,
            phase: None,
            error_action: 0,
            abort_kept_others: false,
            fk_violations: 0,
            fk_deferred_at_start: (0, 0),
            abort_seen: 0,
            call_args: Vec::new(),
            zero_tail: None,
            spare_cursors: Vec::new(),
            frames: Vec::new(),
            trigger_saves: Vec::new(),
            pinned: Vec::new(),
            spare_bufs: Vec::new(),
            quantum: None,
        }
    }

    /// Back to the state of [`Vm::new`] for `prog` but for the bound
    /// parameters (they stay until bound again or cleared), keeping the allocations of the register file, the cursor table and
    /// the result row (a statement is reset after every execution).
    pub fn reset(&mut self, prog: &Program) {
        self.zero_tail = None;
        // (The callers' cursors go with their frames.)
        self.frames.clear();
        self.pinned.clear();
        self.pc = 0;
        // Every register back to NULL, their byte buffers kept aside.
        // (Matched in place: most hold NULL or a number, which need no
        // move out and no drop.)
        let n_regs = prog.n_regs + 1;
        self.regs.truncate(n_regs);
        for r in self.regs.iter_mut() {
            match r.value {
                Value::Null => {}
                Value::Text(_) | Value::Blob(_) => {
                    if let Value::Text(mut b) | Value::Blob(mut b) = std::mem::take(&mut r.value) {
                        if self.spare_bufs.len() < MAX_SPARE_BUFFERS && b.capacity() <= MAX_SPARE_BUFFER {
                            b.clear();
                            self.spare_bufs.push(b);
                        }
                    }
                }
                _ => r.value = Value::Null,
            }
            r.clear_marks();
        }
        if self.regs.len() < n_regs {
            self.regs.resize(n_regs, Register::default());
        }
        self.close_cursors();
        self.cursors.clear();
        self.cursors.resize_with(prog.n_cursors, || None);
        self.aggs.clear();
        self.row_regs = None;
        self.once.clear();
        self.stmt_savepoint = None;
        self.cookie_changed = false;
        self.schema_appended = false;
        self.vtab_synced = false;
        self.vtab_stmt_savepoint = None;
        self.n_change = 0;
        self.n_trigger_change = 0;
        self.trigger_saves.clear();
        self.now_jd_ms = None;
        self.halted = false;
        self.committing = false;
        self.busy_not_retried = false;
        self.busy_wait = None;
        self.wal_commits.clear();
        self.rows_out = 0;
        self.steps = 0;
        self.status = [0; 4];
        self.last_cmp = std::cmp::Ordering::Equal;
        self.phase = None;
        self.error_action = 0;
        self.fk_violations = 0;
        self.fk_deferred_at_start = (0, 0);
    }

    /// Value `i` of the current result row.
    pub fn row_value(&self, i: usize) -> &Value {
        match self.row_regs {
            Some((first, n)) if i < n => self.regs.get(first + i).map_or(&Value::Null, |r| &r.value),
            Some(_) => &Value::Null,
            None => self.row.get(i).unwrap_or(&Value::Null),
        }
    }

    /// Values in the current result row.
    pub fn row_len(&self) -> usize {
        match self.row_regs {
            Some((_, n)) => n,
            None => self.row.len(),
        }
    }

    /// The current result row, taken out of the VM.
    pub fn take_row(&mut self) -> Vec<Value> {
        match self.row_regs.take() {
            Some((first, n)) => (0..n).map(|i| self.regs.get(first + i).map_or(Value::Null, |r| r.value.clone())).collect(),
            None => std::mem::take(&mut self.row),
        }
    }

    /// Close every cursor, keeping a few B-tree cursors for reuse.
    pub fn close_cursors(&mut self) {
        for c in self.cursors.iter_mut() {
            // (Matched in place first: moving every slot out copied the
            // whole cursor enum, which is large.)
            match c {
                None => {}
                Some(VmCursor::Btree(_)) => {
                    if let Some(VmCursor::Btree(b)) = c.take() {
                        if self.spare_cursors.len() < MAX_SPARE_CURSORS {
                            self.spare_cursors.push(b);
                        }
                    }
                }
                Some(_) => *c = None,
            }
        }
    }

    /// An empty byte buffer, from [`Vm::spare_bufs`] when one is kept.
    pub fn spare_buf(&mut self) -> Vec<u8> {
        self.spare_bufs.pop().unwrap_or_default()
    }

    /// Run until a row, the end, pending I/O, or (with a [`Vm::quantum`])
    /// the quantum's end.
    pub fn run<H: host::VmHost>(&mut self, prog: &Program, host: &mut H) -> Result<VmStep> {
        exec::run(self, prog, host)
    }
}
