//! The pre-update hook (`sqlite3_preupdate_hook`): told of each row an
//! `Insert` or `Delete` is about to change, with the row's old and new
//! values, before the change.
//!
//! As in SQLite, an INSERT is heard from its `Insert` (new values decoded
//! from the record), a DELETE from its `Delete` (old values read at the
//! cursor), and an UPDATE once, from a `Delete` flagged `OPFLAG_ISUPDATE`
//! whose P2 holds the first register of the new row and P3 its rowid
//! (a real delete when the rowid changes, else one flagged
//! `OPFLAG_ISNOOP` that only fires the hook); the `Insert` that writes
//! the updated row is not heard again. A WITHOUT ROWID table's row is
//! heard from its `IdxInsert` (values in record order, mapped back to
//! columns) and `Delete`, with rowids reported as 0 as SQLite does.
//! Writes carrying no [`WrittenTable`] (schema tables, the VM's temporary
//! tables, index entries) and `sqlite_sequence` are not reported
//! (`sqlite_stat1` is, as in SQLite).
//!
//! The hook is lent the connection (it may run SQL, as the session
//! extension does to learn a table's columns). Invariant: it fires once
//! per instruction execution: reading the old row may wait for I/O, which
//! happens before the call, and the instruction records in `Vm::phase`
//! that the call was made, so its re-execution after a suspension of the
//! write itself does not call it again (checked: preupdate_once).

use super::reg;
use crate::error::Result;
use crate::value::record::decode_record;
use crate::value::Value;
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::host::{lend, VmHost};
use crate::vdbe::program::{Insn, Opcode, WrittenTable, P4};
use crate::vdbe::Vm;
use std::task::Poll;

/// `Vm::phase` of an `Insert`/`Delete` whose hook call was made.
pub(super) const PHASE_HEARD: u8 = 7;

/// `sqlite3_preupdate_hook` operation codes.
const SQLITE_DELETE: i32 = 9;
const SQLITE_INSERT: i32 = 18;
const SQLITE_UPDATE: i32 = 23;

/// One change about to be made, as the hook sees it.
pub struct PreUpdate<'a> {
    /// `SQLITE_INSERT`, `SQLITE_DELETE` or `SQLITE_UPDATE`.
    pub op: i32,
    /// Schema name of the database written.
    pub db: &'a str,
    /// The table's name.
    pub table: &'a str,
    /// Rowid of the row before the change (the new one for an INSERT).
    pub key1: i64,
    /// Rowid of the row after the change (the old one for a DELETE).
    pub key2: i64,
    /// The row before the change, one value per column (UPDATE, DELETE).
    pub old: Option<Vec<Value>>,
    /// The row after the change (INSERT, UPDATE).
    pub new: Option<Vec<Value>>,
    /// How deep in triggers the change is made (0: by the statement).
    pub depth: i32,
    /// The column `sqlite3_blob_write` writes, -1 otherwise.
    pub blob_write: i32,
    /// The table is WITHOUT ROWID.
    pub without_rowid: bool,
}

/// The hook: lent the connection, told of one change.
pub type PreUpdateHook = std::sync::Arc<dyn Fn(&mut dyn VmHost, &PreUpdate<'_>) + Send + Sync>;

/// One value per column of `t` from a record of its row: the INTEGER
/// PRIMARY KEY is the rowid, a VIRTUAL column NULL, a column added after
/// the row was written its default.
pub fn row_of_record(t: &WrittenTable, fields: Vec<Value>, rowid: i64) -> Vec<Value> {
    (0..t.fields.len())
        .map(|c| {
            if t.rowid_alias == Some(c) {
                return Value::Integer(rowid);
            }
            match t.fields[c] {
                None => Value::Null,
                Some(f) => fields.get(f).cloned().unwrap_or_else(|| t.defaults.get(c).cloned().unwrap_or(Value::Null)),
            }
        })
        .collect()
}

/// Fire the hook for the `Insert` or `Delete` at the program counter, if
/// one is installed and the write is reported. `Pending` when the old row
/// must first be read from disk.
pub(super) fn fire(vm: &mut Vm, insn: &Insn, host: &mut dyn VmHost) -> Result<Poll<()>> {
    let P4::Table(t) = &insn.p4 else { return Ok(Poll::Ready(())) };
    let pc = vm.pc;
    // invariant: preupdate_once
    if !t.preupdate || vm.phase == Some((pc, PHASE_HEARD)) {
        return Ok(Poll::Ready(()));
    }
    let Some(hook) = host.state().preupdate_hook.clone() else { return Ok(Poll::Ready(())) };
    let is_update = insn.p5 & super::write::OPFLAG_ISUPDATE != 0;
    if insn.opcode != Opcode::Delete && is_update {
        // (Heard from the UPDATE's Delete.)
        return Ok(Poll::Ready(()));
    }
    let Some(Some(VmCursor::Btree(c))) = vm.cursors.get_mut(insn.p1 as usize) else { return Ok(Poll::Ready(())) };
    let db_index = c.db;
    let (op, key1, key2, old, new) = if insn.opcode != Opcode::Delete {
        // (A WITHOUT ROWID row has no rowid: SQLite reports 0.)
        let rowid = match reg(vm, insn.p3) {
            _ if t.without_rowid => 0,
            Value::Integer(i) => *i,
            _ => return Ok(Poll::Ready(())),
        };
        let fields = match (reg(vm, insn.p2), vm.zero_tail) {
            // (A record whose trailing zero-blobs MakeRecord left out for
            // the Insert: the hook gets them back.)
            (Value::Blob(b), Some((r, zeros))) if r == insn.p2 as usize => {
                let mut whole = b.clone();
                whole.resize(b.len() + zeros, 0);
                decode_record(&whole)?
            }
            (Value::Blob(b), _) => decode_record(b)?,
            _ => return Ok(Poll::Ready(())),
        };
        (SQLITE_INSERT, rowid, rowid, None, Some(row_of_record(t, fields, rowid)))
    } else {
        let env = host.state();
        let bt = &mut env.dbs[db_index].btree;
        let rowid = if t.without_rowid { 0 } else { c.cursor.rowid() };
        let payload = match c.cursor.payload(bt)? {
            Poll::Ready(p) => p,
            Poll::Pending => return Ok(Poll::Pending),
        };
        let old = row_of_record(t, decode_record(payload)?, rowid);
        if is_update {
            let new_rowid = match reg(vm, insn.p3) {
                _ if t.without_rowid => 0,
                Value::Integer(i) => *i,
                _ => rowid,
            };
            let mut new: Vec<Value> = (0..t.fields.len() as i32).map(|i| reg(vm, insn.p2 + i).clone()).collect();
            if let Some(ipk) = t.rowid_alias {
                new[ipk] = Value::Integer(new_rowid);
            }
            (SQLITE_UPDATE, rowid, new_rowid, Some(old), Some(new))
        } else {
            (SQLITE_DELETE, rowid, rowid, Some(old), None)
        }
    };
    let db = host.state().dbs.get(db_index).map(|d| d.name.clone()).unwrap_or_default();
    let event = PreUpdate {
        op,
        db: &db,
        table: &t.name,
        key1,
        key2,
        old,
        new,
        depth: t.trigger_depth + vm.frames.len() as i32,
        blob_write: -1,
        without_rowid: t.without_rowid,
    };
    lend(host, |h| hook(h, &event));
    vm.phase = Some((pc, PHASE_HEARD));
    Ok(Poll::Ready(()))
}

/// Everyone told of changes: the application's hook and any number of
/// listeners beside it (the session extension's sessions), combined into
/// the one hook the VM calls (`ConnState::preupdate_hook`), application's
/// first, then listeners in the order they were added.
#[derive(Default)]
pub struct PreUpdateListeners {
    app: Option<PreUpdateHook>,
    others: Vec<(u64, PreUpdateHook)>,
    next_id: u64,
}

impl PreUpdateListeners {
    /// Replace the application's hook.
    pub fn set_app(&mut self, hook: Option<PreUpdateHook>) {
        self.app = hook;
    }

    /// Add a listener; returns its id for [`Self::remove`].
    pub fn add(&mut self, hook: PreUpdateHook) -> u64 {
        self.next_id += 1;
        self.others.push((self.next_id, hook));
        self.next_id
    }

    /// Remove a listener.
    pub fn remove(&mut self, id: u64) {
        self.others.retain(|(i, _)| *i != id);
    }

    /// The hook to install: `None` when nobody listens.
    pub fn combined(&self) -> Option<PreUpdateHook> {
        let all: Vec<PreUpdateHook> = self.app.iter().cloned().chain(self.others.iter().map(|(_, h)| h.clone())).collect();
        match all.len() {
            0 => None,
            1 => all.into_iter().next(),
            _ => Some(std::sync::Arc::new(move |host: &mut dyn VmHost, ev: &PreUpdate<'_>| all.iter().for_each(|h| h(host, ev)))),
        }
    }
}
