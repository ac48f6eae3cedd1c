//! Prepared statements: a compiled program with its VM, bound
//! parameters and step state. A statement is stepped with the connection
//! that prepared it lent in (neither holds a pointer to the other); a step
//! compiles the statement again first when the schema it was compiled
//! against changed or its settings expired, runs the VM, and reports rows,
//! the end, or (async connections) that it waits for I/O.
//!
//! Invariant: a statement counted in `ConnState::writing_statements` is
//! `active`; `finish` (reset, end, error) takes it out of that count
//! (checked: writing_statements_active).

use super::stmt_registry::StmtStats;
use super::{Connection, StepResult};
use crate::btree::TxnState;
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_SCHEMA};
use crate::io::notify::IoNotify;
use crate::value::Value;
use crate::vdbe::program::Program;
use crate::vdbe::{Vm, VmStep};
use std::sync::Arc;

/// A prepared statement.
pub struct Statement {
    sql: String,
    /// Shared with the connection's compiled-program cache.
    program: Arc<Program>,
    vm: Vm,
    active: bool,
    /// Counted in `ConnState::writing_statements` while active.
    writer: bool,
    pub(super) has_row: bool,
    explain_rows: Vec<Vec<Value>>,
    explain_pos: usize,
    /// The last row given was the corruption report of an integrity check
    /// (`Program::corruption_is_a_row`): the next step is the end.
    ended_with_report: bool,
    /// `btree::root_faults` when the VM last started running: a fault
    /// since then fails an integrity check instead of being its report.
    root_faults_before: u64,
    /// `btree::chain_faults` when the VM last started running: a broken
    /// overflow chain met reading a column since then is an error.
    chain_faults_before: u64,
    /// The figures `sqlite_stmt` lists, published at each step's return.
    stats: Arc<StmtStats>,
    /// `sqlite3_stmt_status` counters of the runs before the VM's current
    /// one (index: SQLITE_STMTSTATUS_FULLSCAN_STEP, SORT, AUTOINDEX, as in
    /// `Vm::status`), and the VM instructions run by them.
    past_status: [i64; 4],
    past_steps: i64,
    /// SQLITE_STMTSTATUS_RUN and REPREPARE.
    runs: i64,
    reprepares: i64,
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
    /// The last step ran out of its quantum (`PRAGMA step_quantum`) and
    /// answered `StepResult::Io` with nothing in flight; held until the
    /// next step, reset or finalize (see `io::notify`).
    yielded: Option<crate::io::notify::YieldMark>,
    /// Steps may stop at the quantum; `false` for statements the library
    /// runs itself to the end ([`Statement::without_quantum`]).
    may_yield: bool,
}

/// `SQLITE_TRACE_STMT`.
const TRACE_STMT: u32 = 1;
/// `SQLITE_TRACE_PROFILE`.
const TRACE_PROFILE: u32 = 2;
/// `SQLITE_TRACE_ROW`.
const TRACE_ROW: u32 = 4;

impl Statement {
    pub(super) fn new(sql: String, program: Arc<Program>, stats: Arc<StmtStats>) -> Statement {
        let n = program.param_names.len();
        // The bound values live in the VM (`Vm::params`): binding is
        // refused while the statement runs, so the VM reads them in place
        // and a run copies none of them.
        let vm = Vm::new(&program, vec![Value::Null; n.max(1)]);
        Statement {
            sql,
            program,
            vm,
            active: false,
            writer: false,
            has_row: false,
            explain_rows: Vec::new(),
            explain_pos: 0,
            ended_with_report: false,
            root_faults_before: 0,
            chain_faults_before: 0,
            stats,
            past_status: [0; 4],
            past_steps: 0,
            runs: 0,
            reprepares: 0,
            started_at: None,
            expired: false,
            recompiles: 0,
            io_wait: None,
            io_notify: None,
            yielded: None,
            may_yield: true,
        }
        .published()
    }

    fn published(self) -> Statement {
        self.publish();
        self
    }

    /// Make the figures `sqlite_stmt` reads current.
    #[inline]
    fn publish(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        let s = &self.stats;
        s.ncol.store(self.column_count() as i64, Relaxed);
        s.readonly.store(self.readonly(), Relaxed);
        s.reprepares.store(self.reprepares, Relaxed);
        s.runs.store(self.runs, Relaxed);
        s.mem.store(self.status(99), Relaxed);
        self.publish_progress();
    }

    /// The figures a step changes (the rest change only when a run
    /// starts, the program is replaced or the statement is reset): what
    /// every step's return publishes.
    fn publish_progress(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        let s = &self.stats;
        s.busy.store(self.active, Relaxed);
        s.fullscan_steps.store(self.status(1), Relaxed);
        s.sorts.store(self.status(2), Relaxed);
        s.autoindex_rows.store(self.status(3), Relaxed);
        s.vm_steps.store(self.status(4), Relaxed);
    }

    /// Add the VM's counts for the run that ends to the statement's, before
    /// the VM is reset or replaced.
    fn end_run_counts(&mut self) {
        for (past, now) in self.past_status.iter_mut().zip(self.vm.status.iter()) {
            *past += now;
        }
        self.past_steps += self.vm.steps;
    }

    fn finish(&mut self, conn: &mut Connection) {
        if self.active {
            self.active = false;
            conn.state.active_statements = conn.state.active_statements.saturating_sub(1);
            if std::mem::take(&mut self.writer) {
                // invariant: writing_statements_active
                debug_assert!(conn.state.writing_statements > 0 && conn.state.writing_statements <= conn.state.active_statements + 1);
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

    /// Run every step of this statement to a row, the end or an I/O wait,
    /// whatever the connection's `PRAGMA step_quantum`: for statements the
    /// library steps to completion itself (VACUUM's copies, the session
    /// extension's queries), which would only wait for others' I/O after
    /// a yield.
    pub fn without_quantum(&mut self) {
        self.may_yield = false;
    }

    /// How many times the statement was compiled again since prepare.
    pub fn recompiles(&self) -> u64 {
        self.recompiles
    }

    fn recompile(&mut self, conn: &mut Connection) -> Result<()> {
        conn.schema_loaded = false;
        conn.reprepare_params = Some(self.vm.params.clone());
        let compiled = conn.compile(self.sql.as_bytes());
        conn.reprepare_params = None;
        let (prog, _) = compiled?;
        if let Some(p) = prog {
            self.program = p;
            self.recompiles += 1;
            self.reprepares += 1;
        }
        Ok(())
    }

    /// Run until the next row, the end, or (async connections) pending I/O.
    pub fn step(&mut self, conn: &mut Connection) -> Result<StepResult> {
        // Text conversions and BINARY order follow this connection's
        // encoding while it runs (see `value::encoding`).
        let previous = crate::value::encoding::install(conn.state.text_encoding);
        let r = self.step_installed(conn).map_err(|e| e.within_length(conn.state.max_length));
        crate::value::encoding::install(previous);
        self.publish_progress();
        r
    }

    fn step_installed(&mut self, conn: &mut Connection) -> Result<StepResult> {
        if std::mem::take(&mut self.ended_with_report) {
            self.has_row = false;
            return Ok(StepResult::Done);
        }
        // (Stepped again: no longer a yielded statement.)
        self.yielded = None;
        // (A statement run from a callback completes its I/O blocking:
        // the callback cannot hand SQLITE_IO to its caller; nor is it cut
        // by a quantum.)
        if !conn.is_async || conn.state.lent_depth > 0 {
            self.vm.quantum = None;
            return self.step_vm(conn);
        }
        self.vm.quantum = if self.may_yield { conn.state.step_quantum } else { None };
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
        if let (Ok(StepResult::Io), Some(_)) = (&r, &self.yielded) {
            // Out of its quantum, nothing in flight: runnable at once, so
            // reported ready now (a scheduler stepping only ready
            // connections serves the others first, then comes back).
            conn.io_notify.mark_ready();
        } else if let Ok(StepResult::Io) = r {
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
            // An expired EXPLAIN is compiled again before it lists (as
            // SQLite re-prepares it): ANALYZE's new statistics, changed
            // settings or functions show in a plan an application kept
            // prepared.
            if !self.active && self.explain_pos == 0 && self.program.settings_generation != conn.state.settings_generation {
                let (prog, _) = conn.compile(self.sql.as_bytes())?;
                if let Some(p) = prog {
                    self.program = p;
                    self.recompiles += 1;
                    self.reprepares += 1;
                }
            }
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
        // A run started again after recompiling or a busy wait is still
        // one run (SQLITE_STMTSTATUS_RUN).
        let mut run_counted = false;
        loop {
            if let Some(r) = first.take() {
                match self.on_vm_step(conn, r, &mut busy_since, &mut busy_count, &mut schema_retry)? {
                    Some(out) => return Ok(out),
                    None => continue,
                }
            }
            let stale = self.program.attach_generation != conn.attach_generation() || self.program.settings_generation != conn.state.settings_generation;
            #[cfg(debug_assertions)]
            if !self.active && self.program.settings_generation == conn.state.settings_generation {
                let mut now = conn.state.settings;
                now.writable_schema &= !now.defensive;
                // invariant: settings_generation_bumped
                debug_assert!(
                    self.program.compiled_settings.is_none_or(|s| s == now),
                    "settings changed without a new generation: compiled under {:?}, now {now:?}",
                    self.program.compiled_settings
                );
            }
            if !self.active && stale && self.program.explain == 0 {
                // Databases were attached or detached since this was
                // compiled (its database numbers may mean others now), or
                // a setting that shapes compiled code changed.
                self.expired = true;
            }
            if !self.active && self.expired {
                conn.reprepare_params = Some(self.vm.params.clone());
                let compiled = conn.compile(self.sql.as_bytes());
                conn.reprepare_params = None;
                let (prog, _) = compiled?;
                if let Some(p) = prog {
                    self.program = p;
                    self.recompiles += 1;
                    self.reprepares += 1;
                    self.end_run_counts();
                    self.vm = Vm::new(&self.program, std::mem::take(&mut self.vm.params));
                }
                self.expired = false;
            }
            if !self.active {
                if self.vm.halted || self.vm.pc != 0 {
                    self.end_run_counts();
                    self.vm.reset(&self.program);
                }
                if !std::mem::replace(&mut run_counted, true) {
                    self.runs += 1;
                }
                conn.state.active_statements += 1;
                self.writer = !self.program.readonly;
                conn.state.writing_statements += usize::from(self.writer);
                self.active = true;
                // invariant: writing_statements_active
                debug_assert!(conn.state.writing_statements <= conn.state.active_statements, "more writing statements than active ones");
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
                // Running and counted, as a read of `sqlite_stmt` during
                // this run sees it.
                self.publish();
            }
            self.root_faults_before = crate::btree::root_faults();
            self.chain_faults_before = crate::btree::chain_faults();
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
            Ok(VmStep::Yield) => {
                // Only a top-level step of an async connection has a
                // quantum (`step_installed`); any other runs on.
                if self.vm.quantum.is_some() && conn.is_async && conn.state.lent_depth == 0 {
                    debug_assert!(!self.vm.halted);
                    self.yielded = Some(crate::io::notify::YieldMark::new(&conn.io_notify));
                    return Ok(Some(StepResult::Io));
                }
            }
            Err(e) => {
                self.has_row = false;
                let produced = self.vm.rows_out > 0;
                // SQLite's integrity check reports a record it cannot
                // decode (its `Column`) as a row; damage met moving a
                // cursor (a count, a scan, an index probe) ends the
                // statement with SQLITE_CORRUPT. (After a structure report
                // ours keeps the row: its cursors stop at damage in pages
                // already reported that SQLite's read past.)
                // (A cursor whose root page is of the other kind, or 0,
                // fails SQLite's check outright.)
                // (Nor does a column whose bytes lie past a break in its
                // overflow chain: SQLite's `Column` fails reading them.)
                let root_fault = crate::btree::root_faults() != self.root_faults_before || crate::btree::chain_faults() != self.chain_faults_before;
                let in_column =
                    !root_fault && (produced || self.program.insns.get(self.vm.pc).is_some_and(|i| i.opcode == crate::vdbe::program::Opcode::Column));
                // A failed change is undone, and so are its counts
                // (OR FAIL keeps the rows changed before the failure).
                if self.program.counts_changes {
                    let fail = self.vm.error_action == crate::vdbe::exec::txn::ON_ERROR_FAIL;
                    conn.state.changes = if fail { self.vm.n_change } else { 0 };
                    conn.state.total_changes += if fail { self.vm.n_change + self.vm.n_trigger_change } else { 0 };
                }
                self.finish(conn);
                if self.program.corruption_is_a_row && in_column && e.primary() == crate::error::SQLITE_CORRUPT {
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
        self.yielded = None;
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
            if conn.state.ends_txn(self.writer) {
                let to_read = conn.state.others_reading();
                for d in conn.state.dbs.iter_mut() {
                    if d.btree.txn_state() != TxnState::None {
                        let bt = &mut d.btree;
                        let _ = io.block_on(|| bt.commit_ending(to_read));
                    }
                }
            }
        }
        self.finish(conn);
        self.end_run_counts();
        self.vm.reset(&self.program);
        self.has_row = false;
        self.explain_pos = 0;
        self.publish();
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
        if i == 0 || i >= self.vm.params.len() {
            return Err(Error::code(SQLITE_RANGE));
        }
        // (An integer bound over the same integer changes nothing, as
        // SQLite's sqlite3_bind_int64 sees it.)
        let same_integer = matches!((&self.vm.params[i], &value), (Value::Integer(a), Value::Integer(b)) if a == b);
        self.vm.params[i] = value;
        if !same_integer {
            self.expire_if_bound(i);
        }
        Ok(())
    }

    /// A program that read parameter `i` as a value (a LIMIT) is compiled
    /// again before its next run, as SQLite does when it is bound.
    fn expire_if_bound(&mut self, i: usize) {
        let bit = if i >= 32 { 0x8000_0000 } else { 1u32 << (i - 1) };
        if self.program.expire_on_bind & bit != 0 {
            self.expired = true;
        }
    }

    /// Bind a copy of `bytes` as text (`text`) or a blob to parameter `i`
    /// (1-based), into the buffer the parameter's last text or blob held:
    /// a statement bound and run in a loop allocates nothing here.
    pub fn bind_bytes(&mut self, i: usize, text: bool, bytes: &[u8]) -> Result<()> {
        if self.active {
            return Err(Error::code(SQLITE_MISUSE));
        }
        let Some(slot) = self.vm.params.get_mut(i).filter(|_| i > 0) else {
            return Err(Error::code(SQLITE_RANGE));
        };
        let mut buf = match std::mem::take(slot) {
            Value::Text(b) | Value::Blob(b) => b,
            _ => Vec::new(),
        };
        buf.clear();
        buf.extend_from_slice(bytes);
        *slot = if text { Value::Text(buf) } else { Value::Blob(buf) };
        self.expire_if_bound(i);
        Ok(())
    }

    /// The value bound to parameter `i` (1-based).
    pub(super) fn bound_param(&self, i: usize) -> Option<&Value> {
        self.vm.params.get(i)
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
        for p in self.vm.params.iter_mut() {
            *p = Value::Null;
        }
        if self.program.expire_on_bind != 0 {
            self.expired = true;
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
            let v = self.vm.params.get(idx).cloned().unwrap_or(Value::Null);
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
    /// Counts add up over runs; VM_STEP counts ringlite's instructions
    /// (its programs are not SQLite's) and MEMUSED is an estimate of the
    /// program's and registers' heap.
    pub fn status_reset(&mut self, op: i32, reset: bool) -> i64 {
        let v = self.status(op);
        if reset {
            match op {
                1..=3 => self.past_status[op as usize] = -self.vm.status[op as usize],
                4 => self.past_steps = -self.vm.steps,
                5 => self.reprepares = 0,
                6 => self.runs = 0,
                _ => {}
            }
            self.publish();
        }
        v
    }

    /// `sqlite3_stmt_status` counter `op` (SQLITE_STMTSTATUS_*).
    pub fn status(&self, op: i32) -> i64 {
        match op {
            1..=3 => self.past_status[op as usize] + self.vm.status[op as usize],
            4 => self.past_steps + self.vm.steps,
            5 => self.reprepares,
            6 => self.runs,
            99 => {
                let insns = self.program.insns.len() * std::mem::size_of::<crate::vdbe::program::Insn>();
                let regs = std::mem::size_of_val(&self.vm.regs[..]);
                (insns + regs + self.sql.len()) as i64
            }
            _ => 0,
        }
    }
}

/// A bound value as an SQL literal, appended to expanded SQL.
fn push_literal(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null | Value::Pointer(_) => out.extend_from_slice(b"NULL"),
        Value::Integer(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Value::Real(r) => out.extend_from_slice(crate::value::printf::format_real_digits(*r, 15).as_bytes()),
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
