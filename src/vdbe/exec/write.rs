//! Writes: `NewRowid`, `Insert`, `Delete`, `IdxInsert`, `IdxDelete`.
//!
//! Each makes its B-tree change with one suspending call and only after
//! that call returned `Ready` counts the change, sets `last_insert_rowid`
//! and calls the update hook, so a resumed instruction never does them
//! twice.

use super::{reg, set_reg, Flow};
use crate::btree::{InsertKey, SeekOp};
use crate::error::{Error, Result, SQLITE_FULL};
use crate::value::record::decode_record;
use crate::value::{Value, ValueRef};
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::{ConnState, Vm};
use std::cmp::Ordering;
use std::task::Poll;

/// `Insert`/`Delete` P5 bit: count the row in `changes()`.
pub const OPFLAG_NCHANGE: u16 = 0x01;
/// `Insert` P5 bit: set `last_insert_rowid`.
pub const OPFLAG_LASTROWID: u16 = 0x20;
/// `Insert` P5 bit: the row is an UPDATE (for the update hook).
pub const OPFLAG_ISUPDATE: u16 = 0x04;
/// `Insert`/`Delete` P5 bit: report the row to the update hook without
/// counting it (a trigger's writes: SQLite reports them, `changes()` does
/// not count them).
pub const OPFLAG_HOOK: u16 = 0x40;
/// `Delete` P5 bit: delete nothing; only tell the pre-update hook of the
/// UPDATE (see `exec::preupdate`).
pub const OPFLAG_ISNOOP: u16 = 0x80;
const SQLITE_UPDATE: i32 = 23;

macro_rules! pend {
    ($e:expr) => {
        match $e? {
            Poll::Ready(v) => v,
            Poll::Pending => return Ok(Flow::Pending),
        }
    };
}

const SQLITE_INSERT: i32 = 18;
const SQLITE_DELETE: i32 = 9;

/// A table locked by `CursorLock` (an UPDATE's REPLACE firing DELETE
/// triggers) may be written only through the cursor that locked it:
/// another write fails with SQLITE_CONSTRAINT_PINNED, as in SQLite.
fn check_not_pinned(vm: &Vm, slot: usize) -> Result<()> {
    if vm.pinned.is_empty() {
        return Ok(());
    }
    let Some(Some(VmCursor::Btree(c))) = vm.cursors.get(slot) else { return Ok(()) };
    let (db, root, depth) = (c.db, c.cursor.root(), vm.frames.len());
    if vm.pinned.iter().any(|p| p.0 == db && p.1 == root && !(p.2 == depth && p.3 == slot)) {
        return Err(Error::new(crate::error::SQLITE_CONSTRAINT_PINNED, "constraint failed"));
    }
    Ok(())
}

/// `CursorLock` / `CursorUnlock` of cursor P1.
pub(super) fn lock(vm: &mut Vm, insn: &Insn) -> Result<Flow> {
    let slot = insn.p1 as usize;
    let depth = vm.frames.len();
    if insn.opcode == Opcode::CursorUnlock {
        if let Some(i) = vm.pinned.iter().rposition(|p| p.2 == depth && p.3 == slot) {
            vm.pinned.remove(i);
        }
        return Ok(Flow::Next);
    }
    if let Some(Some(VmCursor::Btree(c))) = vm.cursors.get(slot) {
        let entry = (c.db, c.cursor.root(), depth, slot);
        vm.pinned.push(entry);
    }
    Ok(Flow::Next)
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    let slot = p1 as usize;
    if matches!(insn.opcode, Opcode::Insert | Opcode::Delete) {
        check_not_pinned(vm, slot)?;
    }
    match insn.opcode {
        Opcode::NewRowid => {
            let next = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    let bt = &mut env.dbs[c.db].btree;
                    // (Positioned on the last row without reading it.)
                    let last = pend!(c.cursor.last_rowid(bt));
                    c.eof = last.is_none();
                    if let Some(max) = last {
                        if max == i64::MAX {
                            // The largest rowid is taken: try random ones, as
                            // SQLite does. Seeks have no side effects, so a
                            // suspended probe simply probes again.
                            let mut found = None;
                            for _ in 0..100 {
                                let mut b = [0u8; 8];
                                crate::util::prng::fill(&mut b);
                                let candidate = (i64::from_le_bytes(b) & (i64::MAX >> 1)) + 1;
                                let bt = &mut env.dbs[c.db].btree;
                                let r = pend!(c.cursor.seek_rowid(bt, candidate));
                                if r != crate::btree::SeekResult::Found {
                                    found = Some(candidate);
                                    break;
                                }
                            }
                            match found {
                                Some(r) => r,
                                None => return Err(Error::code(SQLITE_FULL)),
                            }
                        } else {
                            max + 1
                        }
                    } else {
                        1
                    }
                }
                Some(VmCursor::Ephemeral(e)) => e.next_rowid,
                _ => return Err(super::internal("new rowid on a non-table cursor")),
            };
            set_reg(vm, p2, Value::Integer(next));
        }
        Opcode::Insert => {
            let rowid = match reg(vm, p3) {
                Value::Integer(i) => *i,
                _ => return Err(super::internal("insert without an integer rowid")),
            };
            // The database the row went to, named to the update hook.
            let mut db_index = 0;
            // Zero bytes the record ends with, left out by MakeRecord.
            let zeros = match vm.zero_tail {
                Some((r, z)) if r == p2 as usize => z,
                _ => 0,
            };
            // (The record is borrowed from its register, not copied.)
            let Vm { regs, cursors, .. } = &mut *vm;
            let data = match regs.get(p2 as usize).map(|r| &r.value) {
                Some(Value::Blob(b)) => &b[..],
                _ => return Err(super::internal("insert without a record")),
            };
            match cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    let bt = &mut env.dbs[c.db].btree;
                    pend!(c.cursor.insert_with_zeros(bt, InsertKey::Rowid(rowid), data, zeros));
                    c.eof = false;
                    db_index = c.db;
                }
                Some(VmCursor::Ephemeral(e)) => {
                    let row = if zeros > 0 {
                        let mut whole = Vec::with_capacity(data.len() + zeros);
                        whole.extend_from_slice(data);
                        whole.resize(data.len() + zeros, 0);
                        decode_record(&whole)?
                    } else {
                        decode_record(data)?
                    };
                    e.insert_row(rowid, row);
                    e.rows.check()?;
                }
                _ => return Err(super::internal("insert on a non-table cursor")),
            }
            if zeros > 0 {
                // The register holds only the record's head: nothing may
                // read it as a record again.
                vm.zero_tail = None;
                if let Some(r) = vm.regs.get_mut(p2 as usize) {
                    r.set(Value::Null);
                }
            }
            if insn.p5 & OPFLAG_NCHANGE != 0 {
                vm.n_change += 1;
            } else if insn.p5 & OPFLAG_HOOK != 0 {
                vm.n_trigger_change += 1;
            }
            if insn.p5 & OPFLAG_LASTROWID != 0 {
                env.last_insert_rowid = rowid;
            }
            if let (Some(hook), P4::Table(t)) = (env.update_hook.as_mut(), &insn.p4) {
                if insn.p5 & (OPFLAG_NCHANGE | OPFLAG_HOOK) != 0 && !t.without_rowid {
                    let db = env.dbs.get(db_index).map(|d| d.name.clone()).unwrap_or_default();
                    let op = if insn.p5 & OPFLAG_ISUPDATE != 0 { SQLITE_UPDATE } else { SQLITE_INSERT };
                    hook(op, &db, &t.name, rowid);
                }
            }
        }
        Opcode::Delete if insn.p5 & OPFLAG_ISNOOP != 0 => {}
        Opcode::Delete => {
            let (rowid, db_index) = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    let rowid = if c.is_index { 0 } else { c.cursor.rowid() };
                    c.cache = None;
                    let bt = &mut env.dbs[c.db].btree;
                    pend!(c.cursor.delete(bt));
                    (rowid, c.db)
                }
                Some(VmCursor::Ephemeral(e)) => match e.delete_current()? {
                    Some(r) => (r, 0),
                    None => return Ok(Flow::Next),
                },
                _ => return Err(super::internal("delete on a non-table cursor")),
            };
            if insn.p5 & OPFLAG_NCHANGE != 0 {
                vm.n_change += 1;
            } else if insn.p5 & OPFLAG_HOOK != 0 {
                vm.n_trigger_change += 1;
            }
            if insn.p5 & (OPFLAG_NCHANGE | OPFLAG_HOOK) != 0 {
                if let (Some(hook), P4::Table(t)) = (env.update_hook.as_mut(), &insn.p4) {
                    if t.without_rowid {
                        return Ok(Flow::Next);
                    }
                    let db = env.dbs.get(db_index).map(|d| d.name.clone()).unwrap_or_default();
                    hook(SQLITE_DELETE, &db, &t.name, rowid);
                }
            }
        }
        Opcode::IdxInsert => {
            // (The record is borrowed from its register, not copied.)
            let Vm { regs, cursors, .. } = &mut *vm;
            let rec = match regs.get(p2 as usize).map(|r| &r.value) {
                Some(Value::Blob(b)) => &b[..],
                _ => return Err(super::internal("index insert without a record")),
            };
            match cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    let bt = &mut env.dbs[c.db].btree;
                    // (P3: a WITHOUT ROWID row inserted by its key of P3
                    // fields, replacing an entry with the same key.)
                    let key = if p3 > 0 { InsertKey::WithoutRowid { record: rec, key_fields: p3 as usize } } else { InsertKey::Index(rec) };
                    pend!(c.cursor.insert(bt, key, &[]));
                    c.eof = false;
                }
                Some(VmCursor::Ephemeral(e)) => e.insert_record(rec)?,
                Some(VmCursor::Sorter(s)) => s.push(rec),
                _ => return Err(super::internal("index insert on a non-index cursor")),
            }
            // A row of a WITHOUT ROWID table counts as a change.
            if insn.p5 & OPFLAG_NCHANGE != 0 {
                vm.n_change += 1;
            } else if insn.p5 & OPFLAG_HOOK != 0 {
                vm.n_trigger_change += 1;
            }
        }
        Opcode::IdxDelete => {
            let pc = vm.pc;
            let Vm { regs, cursors, phase, .. } = &mut *vm;
            match cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    let bt = &mut env.dbs[c.db].btree;
                    if *phase != Some((pc, 1)) {
                        c.cache = None;
                        // The key borrowed from its registers (on the stack
                        // for the usual few fields): no value is cloned and
                        // the entry found is compared as stored, not decoded.
                        let field = |i: i32| regs.get((p2 + i) as usize).map_or(ValueRef::Null, |r| r.value.as_ref());
                        let mut few = [ValueRef::Null; 8];
                        let many: Vec<ValueRef<'_>>;
                        let key: &[ValueRef<'_>] = if (0..=8).contains(&p3) {
                            for (i, k) in few.iter_mut().enumerate().take(p3 as usize) {
                                *k = field(i as i32);
                            }
                            &few[..p3 as usize]
                        } else {
                            many = (0..p3.max(0)).map(field).collect();
                            &many
                        };
                        let ki = c.key_info.as_deref().unwrap_or(&crate::value::record::NO_KEY_INFO);
                        // A cursor already on the entry (the loop of a
                        // one-pass DELETE scanning this index found the
                        // row there) deletes it without a seek.
                        let at_hand = c.cursor.on_fresh_entry(bt) && crate::value::record::record_is_key(pend!(c.cursor.payload(bt)), key, ki)?;
                        if !at_hand {
                            let found = pend!(c.cursor.seek_index(bt, key, SeekOp::Ge));
                            if !found {
                                return Ok(Flow::Next);
                            }
                            let entry = pend!(c.cursor.payload(bt));
                            if crate::value::record::compare_record_prefix(entry, key, ki)? != Ordering::Equal {
                                return Ok(Flow::Next);
                            }
                        }
                        *phase = Some((pc, 1));
                    }
                    pend!(c.cursor.delete(bt));
                    *phase = None;
                    c.cache = None;
                }
                Some(VmCursor::Ephemeral(e)) => {
                    let key: Vec<Value> = (0..p3).map(|i| regs.get((p2 + i) as usize).map_or(Value::Null, |r| r.value.clone())).collect();
                    e.delete_key(&key)?;
                }
                _ => return Err(super::internal("index delete on a non-index cursor")),
            }
        }
        _ => return Err(super::internal("write: unexpected opcode")),
    }
    Ok(Flow::Next)
}
