//! Transactions: `Transaction`, `AutoCommit`, `Savepoint`, `Halt`, the
//! header cookies, and what happens to a transaction when a statement
//! fails ([`abort`]).
//!
//! Invariant: the connection's flags (autocommit, savepoint list, change
//! counters) change only after the B-tree call that makes the change real
//! returned `Ready` (checked: txn_flags_after_btree).

use super::{set_reg, Flow};
use crate::btree::{Meta, TxnState};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_SCHEMA};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::program::{Insn, Opcode, Program, P4};
use crate::vdbe::{ConnState, Vm};
use std::task::Poll;

/// Halt P2: roll back the statement (the default, ABORT).
pub const ON_ERROR_ABORT: u8 = 0;
/// Halt P2: roll back the whole transaction (OR ROLLBACK).
pub const ON_ERROR_ROLLBACK: u8 = 1;
/// Halt P2: keep the statement's earlier changes (OR FAIL).
pub const ON_ERROR_FAIL: u8 = 3;

macro_rules! pend {
    ($e:expr) => {
        match $e? {
            Poll::Ready(v) => v,
            Poll::Pending => return Ok(Flow::Pending),
        }
    };
}

fn meta_of(i: i32) -> Meta {
    match i {
        0 => Meta::FreelistCount,
        1 => Meta::SchemaCookie,
        2 => Meta::SchemaFormat,
        3 => Meta::DefaultCacheSize,
        4 => Meta::LargestRootPage,
        5 => Meta::TextEncoding,
        6 => Meta::UserVersion,
        7 => Meta::IncrementalVacuum,
        _ => Meta::ApplicationId,
    }
}

/// Start a write transaction on `bt`. Refused as busy while this
/// connection already reads it, the statement is not retried through the
/// busy handler (SQLite calls it only when no transaction was open): the
/// read transaction would keep its SHARED lock while waiting, and the
/// writer holding RESERVED could then never commit.
fn begin_write(vm: &mut Vm, bt: &mut crate::btree::Btree, exclusive: bool) -> crate::IoPoll<()> {
    let reading = bt.txn_state() == TxnState::Read;
    let r = bt.begin_write(exclusive);
    if reading && r.as_ref().is_err_and(|e| e.primary() == crate::error::SQLITE_BUSY) {
        vm.busy_not_retried = true;
    }
    r
}

pub(super) fn exec(vm: &mut Vm, prog: &Program, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    match insn.opcode {
        Opcode::Transaction => {
            let db = p1 as usize;
            if db == 1 && !env.temp_used {
                // The temp database comes into use: statements compiled
                // before did not check its schema (a temp table may now
                // hide one they name), so they are compiled again, as
                // SQLite's are.
                env.temp_used = true;
                env.settings_generation += 1;
            }
            let Some(d) = env.dbs.get_mut(db) else { return Err(Error::sql("no such database")) };
            let bt = &mut d.btree;
            if p2 > 0 {
                if d.read_only || env.query_only {
                    return Err(Error::code(crate::error::SQLITE_READONLY));
                }
                if bt.txn_state() < TxnState::Write {
                    pend!(begin_write(vm, bt, p2 == 2));
                    // A database joining a transaction that has user
                    // savepoints gets them too (at its current state, which
                    // is what each of them would restore here).
                    if !env.savepoints.is_empty() {
                        pend!(bt.savepoint_open(env.savepoints.len() - 1));
                    }
                }
                let need_stmt = !prog.no_statement_savepoint && (!env.autocommit || env.active_statements > 1);
                if need_stmt && vm.stmt_savepoint.is_none_or(|(_, dbs)| dbs & (1 << db) == 0) {
                    // One statement savepoint at the same depth in every
                    // database the statement writes: below the user
                    // savepoints and the statement savepoints of the
                    // statements it runs inside (SQL from a callback).
                    let idx = vm.stmt_savepoint.map_or(env.savepoints.len() + env.stmt_savepoints, |(i, _)| i);
                    pend!(bt.savepoint_open(idx));
                    let dbs = match vm.stmt_savepoint {
                        Some((_, d)) => d,
                        None => {
                            env.stmt_savepoints += 1;
                            0
                        }
                    };
                    vm.stmt_savepoint = Some((idx, dbs | 1 << db));
                }
            } else if bt.txn_state() == TxnState::None {
                pend!(bt.begin_read());
            }
            if insn.p5 != 0 {
                let cookie = pend!(bt.meta(Meta::SchemaCookie));
                // invariant: schema_cookie_current
                if cookie != p3 as u32 {
                    return Err(Error::code(SQLITE_SCHEMA));
                }
            }
        }
        Opcode::ReadCookie => {
            let bt = &mut env.dbs[p1 as usize].btree;
            let v = pend!(bt.meta(meta_of(p3)));
            set_reg(vm, p2, Value::Integer(v as i64));
        }
        Opcode::SetCookie => {
            let bt = &mut env.dbs[p1 as usize].btree;
            // A new file's encoding is the one its records are written in.
            let value = if meta_of(p2) == crate::btree::Meta::TextEncoding { bt.text_encoding() as u32 } else { p3 as u32 };
            pend!(bt.set_meta(meta_of(p2), value));
            if p2 == crate::btree::Meta::SchemaCookie as i32 {
                vm.cookie_changed = true;
                env.txn_schema_written = true;
            }
        }
        Opcode::AutoCommit => {
            let to_auto = p1 != 0;
            let rollback = p2 != 0;
            if !to_auto {
                if !env.autocommit {
                    return Err(Error::sql("cannot start a transaction within a transaction"));
                }
                env.autocommit = false;
            } else if rollback {
                if env.autocommit {
                    return Err(Error::sql("cannot rollback - no transaction is active"));
                }
                if !vm.committing {
                    vm.committing = true;
                    if env.writing() {
                        env.fire_rollback_hook();
                    }
                }
                for d in env.dbs.iter_mut() {
                    if d.btree.txn_state() != TxnState::None {
                        pend!(d.btree.rollback());
                    }
                }
                vm.committing = false;
                env.autocommit = true;
                env.end_fk_transaction();
                env.savepoints.clear();
                env.savepoint_started_txn = false;
                if env.txn_schema_written {
                    // (As for ROLLBACK TO: `ConnState::abort_generation`.)
                    env.abort_generation += 1;
                    vm.abort_seen = env.abort_generation;
                }
                forget_rolled_back_schema(env, true);
            } else {
                if env.autocommit {
                    return Err(Error::sql("cannot commit - no transaction is active"));
                }
                if env.writing_statements > 0 {
                    // (A statement that writes is running: this COMMIT
                    // comes from SQL it runs in a callback, or beside it.)
                    return Err(Error::new(SQLITE_BUSY, "cannot commit transaction - SQL statements in progress"));
                }
                env.autocommit = true;
                env.end_fk_transaction();
                env.savepoints.clear();
                env.savepoint_started_txn = false;
            }
        }
        Opcode::Savepoint => {
            let name = match &insn.p4 {
                P4::Text(t) => String::clone(t),
                _ => String::new(),
            };
            if env.writing_statements > 0 && p1 != 2 {
                // Opening or releasing a savepoint under a running write
                // statement would move its statement savepoint.
                let what = if p1 == 0 { "open" } else { "release" };
                if p1 == 0 || env.savepoints.iter().any(|s| s.eq_ci(&name)) {
                    return Err(Error::new(SQLITE_BUSY, format!("cannot {what} savepoint - SQL statements in progress")));
                }
            }
            match p1 {
                0 => {
                    // Main always takes part; other databases take part from
                    // the time they start writing (see `Transaction`).
                    let bt = &mut env.dbs[0].btree;
                    if bt.txn_state() < TxnState::Write {
                        pend!(begin_write(vm, bt, false));
                    }
                    let depth = env.savepoints.len();
                    for d in env.dbs.iter_mut().filter(|d| d.btree.txn_state() == TxnState::Write) {
                        pend!(d.btree.savepoint_open(depth));
                    }
                    if env.autocommit {
                        env.autocommit = false;
                        env.savepoint_started_txn = true;
                    }
                    env.savepoint_fk_deferred.truncate(env.savepoints.len());
                    env.savepoint_fk_deferred.push(env.fk_deferred);
                    env.savepoints.push(name);
                    // (Each database written holds the savepoint by now.)
                    // invariant: txn_flags_after_btree
                    debug_assert!(
                        env.dbs.iter().filter(|d| d.btree.txn_state() == TxnState::Write).all(|d| d.btree.pager().savepoint_depth() >= env.savepoints.len()),
                        "savepoint listed before every database written opened it"
                    );
                }
                _ => {
                    let Some(i) = env.savepoints.iter().rposition(|s| s.eq_ci(&name)) else {
                        return Err(Error::sql(format!("no such savepoint: {name}")));
                    };
                    if p1 == 1 {
                        if i == 0 && env.savepoint_started_txn {
                            env.autocommit = true;
                            env.savepoints.clear();
                            env.savepoint_started_txn = false;
                            env.end_fk_transaction();
                        } else {
                            for d in env.dbs.iter_mut().filter(|d| d.btree.txn_state() == TxnState::Write) {
                                pend!(d.btree.savepoint_release(i));
                            }
                            env.savepoints.truncate(i);
                        }
                    } else {
                        for d in env.dbs.iter_mut().filter(|d| d.btree.txn_state() == TxnState::Write && d.btree.pager().savepoint_depth() > i) {
                            pend!(d.btree.savepoint_rollback(i));
                        }
                        env.savepoints.truncate(i + 1);
                        if let Some(&at) = env.savepoint_fk_deferred.get(i) {
                            env.fk_deferred = at;
                        }
                        if env.txn_schema_written {
                            // (Every other running statement is aborted:
                            // `ConnState::abort_generation`.)
                            env.abort_generation += 1;
                            vm.abort_seen = env.abort_generation;
                        }
                        forget_rolled_back_schema(env, false);
                    }
                }
            }
        }
        Opcode::Halt => {
            if p1 != 0 {
                vm.error_action = p2 as u8;
                if vm.error_action == ON_ERROR_FAIL && vm.fk_violations > 0 {
                    // OR FAIL keeps the statement's earlier changes, unless
                    // they leave foreign key violations: then it aborts.
                    vm.error_action = ON_ERROR_ABORT;
                    return Err(Error::new(crate::error::SQLITE_CONSTRAINT_FOREIGNKEY, "FOREIGN KEY constraint failed"));
                }
                let msg = match &insn.p4 {
                    P4::Text(t) => String::clone(t),
                    // RAISE(ABORT, expr): the message computed into P3.
                    _ if insn.p3 != 0 => {
                        let v = &vm.regs[insn.p3 as usize].value;
                        String::from_utf8_lossy(&crate::value::numeric::cast_to_text(v.as_ref()).unwrap_or_default()).into_owned()
                    }
                    _ => crate::error::errstr(p1).to_string(),
                };
                return Err(Error::new(p1, msg));
            }
            if vm.fk_violations > 0 && !vm.committing {
                return Err(Error::new(crate::error::SQLITE_CONSTRAINT_FOREIGNKEY, "FOREIGN KEY constraint failed"));
            }
            if let Some((i, dbs)) = vm.stmt_savepoint {
                for (n, d) in env.dbs.iter_mut().enumerate().filter(|(n, _)| dbs & (1 << n) != 0) {
                    let _ = n;
                    pend!(d.btree.savepoint_release(i));
                }
                vm.stmt_savepoint = None;
                stmt_savepoint_closed(env);
            }
            // The program's sorters close (their spill files with them)
            // before the transaction ends, as SQLite closes a statement's
            // cursors before it commits.
            for c in vm.cursors.iter_mut().filter(|c| matches!(c, Some(crate::vdbe::cursor::VmCursor::Sorter(_)))) {
                *c = None;
            }
            if env.ends_txn(!prog.readonly) {
                if !vm.committing && env.writing() {
                    vm.committing = true;
                    if let Some(h) = env.commit_hook.as_mut() {
                        if h() {
                            vm.error_action = ON_ERROR_ROLLBACK;
                            return Err(Error::new(crate::error::SQLITE_CONSTRAINT_COMMITHOOK, "constraint failed"));
                        }
                    }
                }
                // Several databases written: each takes its EXCLUSIVE
                // lock before any is journaled or written, so that one busy
                // database leaves all of them uncommitted; under a
                // super-journal when SQLite makes one, so that a crash
                // commits all or none (`super_commit.rs`). Then each is
                // journaled, written and synced in turn, as SQLite's
                // commit phase one goes database by database (the order
                // of the notices an application VFS sees).
                if env.dbs.iter().filter(|d| d.btree.txn_state() == TxnState::Write).count() > 1 {
                    super::super_commit::begin(env)?;
                    for d in env.dbs.iter_mut().filter(|d| d.btree.txn_state() == TxnState::Write) {
                        d.btree.pager_mut().set_commit_held(true);
                    }
                    loop {
                        match lock_all_for_commit(env) {
                            Ok(()) => break,
                            Err(e) if wait_for_commit_lock(vm, env, &e) => {}
                            Err(e) => return Err(busy_commit(vm, prog, env, e)),
                        }
                    }
                }
                if env.dbs.iter().any(|d| d.btree.txn_state() != TxnState::None) {
                    // A transaction ends here (SQLite: a statement that read
                    // or wrote a database, in autocommit mode).
                    env.end_fk_transaction();
                }
                let mut wal_commits = loop {
                    match commit_all(env) {
                        Ok(Poll::Ready(w)) => break w,
                        Ok(Poll::Pending) => return Ok(Flow::Pending),
                        Err(e) if wait_for_commit_lock(vm, env, &e) => {}
                        Err(e) => return Err(busy_commit(vm, prog, env, e)),
                    }
                };
                // Several databases are written and synced, their journals
                // kept (or their WAL frames written): under a super-journal
                // its deletion commits them; then each one's commit is
                // finished.
                if env.dbs.iter().any(|d| d.btree.pager().commit_held()) {
                    super::super_commit::finish(env)?;
                    for d in env.dbs.iter_mut() {
                        d.btree.pager_mut().set_commit_held(false);
                    }
                    match commit_all(env)? {
                        Poll::Ready(w) => wal_commits.extend(w),
                        Poll::Pending => return Ok(Flow::Pending),
                    }
                }
                vm.busy_wait = None;
                env.txn_schema_written = false;
                // (The WAL hook runs once the statement has ended, see
                // `Vm::wal_commits`.)
                if env.wal_hook.is_some() {
                    vm.wal_commits = wal_commits;
                }
            }
            if prog.counts_changes {
                env.changes = vm.n_change;
                env.total_changes += vm.n_change + vm.n_trigger_change;
            }
            if prog.changes_schema && !vm.schema_appended {
                env.schema_changed = true;
            }
            vm.close_cursors();
            return Ok(Flow::Done);
        }
        _ => return Err(super::internal("txn: unexpected opcode")),
    }
    Ok(Flow::Next)
}

/// The EXCLUSIVE lock of every database written (several of them) in a
/// rollback-journal mode, before any commit starts.
fn lock_all_for_commit(env: &mut ConnState) -> Result<()> {
    for d in env.dbs.iter_mut().filter(|d| d.btree.txn_state() == TxnState::Write) {
        d.btree.pager_mut().lock_for_commit()?;
    }
    Ok(())
}

/// Commit every database in a transaction; the WAL databases written,
/// with their frame counts, for the WAL hook. A database committed
/// before another's commit suspends or fails is not committed again.
/// While other statements run, each database ends in a read transaction
/// (`ConnState::others_reading`).
fn commit_all(env: &mut ConnState) -> crate::IoPoll<Vec<(String, u32)>> {
    let mut wal_commits = Vec::new();
    let to_read = env.others_reading();
    for d in env.dbs.iter_mut() {
        if d.btree.txn_state() == TxnState::Write || (d.btree.txn_state() == TxnState::Read && !to_read) {
            let wrote = d.btree.txn_state() == TxnState::Write;
            crate::ready!(d.btree.commit_ending(to_read)?);
            if let Some(frames) = d.btree.wal_frame_count().filter(|_| wrote) {
                wal_commits.push((d.name.clone(), frames));
            }
        }
    }
    Ok(Poll::Ready(wal_commits))
}

/// A commit was refused busy: other connections still read the database
/// it must write. Wait for them as SQLite's pager does, through the busy
/// handler, keeping the transaction and its PENDING lock (which lets no
/// new reader in, so the writer cannot starve); `true`: commit again.
/// When the handler gives up, the statement fails busy without being run
/// again (SQLite does not call the handler twice for one wait).
fn wait_for_commit_lock(vm: &mut Vm, env: &mut ConnState, e: &Error) -> bool {
    if e.primary() != crate::error::SQLITE_BUSY || !env.dbs.iter().any(|d| d.btree.txn_state() == TxnState::Write) {
        return false;
    }
    let (count, since) = *vm.busy_wait.get_or_insert_with(|| (0, std::time::Instant::now()));
    if env.busy_retry(count, since) {
        vm.busy_wait = Some((count + 1, since));
        return true;
    }
    vm.busy_wait = None;
    vm.busy_not_retried = true;
    false
}

/// A commit failed with `e`. COMMIT (a program that writes nothing
/// itself) refused with `SQLITE_BUSY` leaves the transaction open, as in
/// SQLite, so that it can be retried; other errors, and busy commits of
/// statements in autocommit mode, roll back (see [`abort`]).
fn busy_commit(vm: &mut Vm, prog: &Program, env: &mut ConnState, e: Error) -> Error {
    if e.primary() == crate::error::SQLITE_BUSY && prog.readonly {
        env.autocommit = false;
        vm.committing = false;
    }
    e
}

/// A statement failed: undo what it must not leave behind. Runs blocking
/// (the error path is not resumable). `readonly`: the program never
/// writes (an interrupt then leaves the transaction alone).
pub fn abort(vm: &mut Vm, env: &mut ConnState, err: &Error, readonly: bool) {
    vm.halted = true;
    vm.close_cursors();
    super::trigger_counts::unwind(vm, env);
    // (The callers of a failing trigger program fail with it.)
    vm.frames.clear();
    let io = env.io.clone();
    // (A full database undoes only the statement when it has a statement
    // savepoint to go back to, as SQLite's statement journal does.)
    let whole_txn = vm.error_action == ON_ERROR_ROLLBACK
        || (err.primary() == crate::error::SQLITE_FULL && vm.stmt_savepoint.is_none())
        || err.primary() == crate::error::SQLITE_IOERR
        || err.primary() == crate::error::SQLITE_NOMEM
        // (An interrupted write ends its transaction: SQLite cannot tell
        // how far the statement got.)
        || (err.primary() == crate::error::SQLITE_INTERRUPT && !readonly);
    if let Some((i, dbs)) = vm.stmt_savepoint.take() {
        stmt_savepoint_closed(env);
        for (_, d) in env.dbs.iter_mut().enumerate().filter(|(n, _)| dbs & (1 << n) != 0) {
            let bt = &mut d.btree;
            if !whole_txn && vm.error_action != ON_ERROR_FAIL {
                let _ = io.block_on(|| bt.savepoint_rollback(i));
                let _ = io.block_on(|| bt.savepoint_release(i));
            } else if vm.error_action == ON_ERROR_FAIL {
                let _ = io.block_on(|| bt.savepoint_release(i));
            }
        }
    }
    if vm.error_action != ON_ERROR_FAIL {
        // The statement's changes are undone, and so are its deferred
        // foreign key violations.
        env.fk_deferred = vm.fk_deferred_at_start;
    }
    if vm.cookie_changed {
        // A failed DDL statement: what it told the schema is undone too.
        env.schema_changed = true;
    }
    // A statement that never writes, failing last in autocommit mode,
    // leaves the writes of the statements that completed while it ran:
    // SQLite committed each when it ended (observed: a row inserted from
    // inside a read loop stays when the read later fails).
    // (The commit hook may still turn that commit into a rollback.)
    // (Ending the transaction as `Halt` would: see `ConnState::ends_txn`.)
    let ends = env.ends_txn(!readonly);
    let mut keep = readonly && !whole_txn && ends && env.writing();
    if keep {
        if let Some(h) = env.commit_hook.as_mut() {
            keep = !h();
        }
    }
    vm.abort_kept_others = keep;
    let rollback_all = whole_txn || (ends && vm.error_action != ON_ERROR_FAIL && !keep);
    // (Other statements still reading keep their read transactions, as
    // SQLite's rollback with `SQLITE_OK` leaves their cursors; a whole
    // transaction's rollback ends them.)
    let to_read = !whole_txn && env.others_reading();
    if rollback_all && (env.autocommit || whole_txn) {
        if env.writing() {
            env.fire_rollback_hook();
        }
        for d in env.dbs.iter_mut() {
            if d.btree.txn_state() != TxnState::None {
                let bt = &mut d.btree;
                let _ = io.block_on(|| bt.rollback_ending(to_read));
            }
        }
        env.autocommit = true;
        env.end_fk_transaction();
        env.savepoints.clear();
        env.savepoint_started_txn = false;
        if vm.cookie_changed {
            env.schema_reset = true;
        }
        forget_rolled_back_schema(env, true);
    } else if ends {
        // OR FAIL in autocommit mode, or a failed read: keep what was
        // done.
        for d in env.dbs.iter_mut() {
            if d.btree.txn_state() != TxnState::None {
                let bt = &mut d.btree;
                let _ = io.block_on(|| bt.commit_ending(to_read));
            }
        }
        if keep {
            env.end_fk_transaction();
            env.txn_schema_written = false;
        }
    }
}

/// A statement savepoint was released or rolled back (and forgotten by
/// its VM).
pub fn stmt_savepoint_closed(env: &mut ConnState) {
    debug_assert!(env.stmt_savepoints > 0, "statement savepoint count underflow");
    env.stmt_savepoints = env.stmt_savepoints.saturating_sub(1);
}

/// A rollback (of the transaction, to a savepoint, or of a failed DDL
/// statement) that undid schema changes: the connection's schema, kept up
/// to date by CREATE and DROP as they ran, is read again before the next
/// prepare (SQLite resets its schema then). `txn_end`: the transaction is
/// over, so its record of schema writes is too.
fn forget_rolled_back_schema(env: &mut ConnState, txn_end: bool) {
    if env.txn_schema_written {
        env.schema_changed = true;
    }
    if txn_end {
        env.txn_schema_written = false;
    }
}
