//! Opening, closing and moving cursors (`OpenRead`, `OpenWrite`,
//! `OpenEphemeral`, `OpenPseudo`, `Rewind`, `Last`, `Next`, `Prev`,
//! `Count`) and the sorter opcodes. B-tree moves clear the row cache and
//! then make exactly one suspending call.

use super::{set_reg, Flow};
use crate::btree::Cursor;
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;
use crate::value::Value;
use crate::vdbe::cursor::{BtreeCursor, EphemeralCursor, VmCursor};
use crate::vdbe::ephemeral_spill::SpillStore;
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::sorter::Sorter;
use crate::vdbe::{ConnState, Vm};
use std::sync::Arc;
use std::task::Poll;

macro_rules! pend {
    ($e:expr) => {
        match $e? {
            Poll::Ready(v) => v,
            Poll::Pending => return Ok(Flow::Pending),
        }
    };
}

fn key_info(p4: &P4) -> Option<Arc<KeyInfo>> {
    match p4 {
        P4::KeyInfo(k) => Some(k.clone()),
        _ => None,
    }
}

/// `Next` on a B-tree cursor, once per row of a scan: straight to the
/// cursor's step (everything else as in [`exec`]).
pub(super) fn next_op(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    if let Some(Some(VmCursor::Btree(c))) = vm.cursors.get_mut(insn.p1 as usize) {
        if !c.eof && c.cache.is_none() {
            let bt = &mut env.dbs[c.db].btree;
            let more = pend!(c.cursor.next(bt));
            c.eof = !more;
            if more && (1..=3).contains(&insn.p5) {
                vm.status[insn.p5 as usize] += 1;
            }
            return Ok(if more { Flow::Jump(insn.p2 as usize) } else { Flow::Next });
        }
    }
    exec(vm, insn, env)
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    let slot = p1 as usize;
    if slot >= vm.cursors.len() {
        vm.cursors.resize_with(slot + 1, || None);
    }
    match insn.opcode {
        Opcode::OpenRead | Opcode::OpenWrite => {
            let ki = key_info(&insn.p4);
            let writable = insn.opcode == Opcode::OpenWrite;
            let db = p3 as usize;
            if db >= env.dbs.len() {
                return Err(Error::sql("no such database"));
            }
            let root = if insn.p5 & 0x02 != 0 {
                // P5 OPFLAG_P2ISREG: the root page is in register P2.
                crate::value::numeric::value_to_i64(super::reg(vm, p2).as_ref()) as u32
            } else {
                p2 as u32
            };
            let is_index = ki.is_some();
            // A spare cursor that was on the same tree keeps its old
            // position as a hint (a statement run once per row starts
            // next to where the previous run left off).
            let same = vm.spare_cursors.iter().rposition(|c| c.db == db && c.cursor.root() == root);
            let spare = match same {
                Some(i) => Some(vm.spare_cursors.swap_remove(i)),
                None => vm.spare_cursors.pop(),
            };
            let c = match spare {
                // A closed cursor's buffers are reused.
                Some(mut c) => {
                    c.cursor.reopen(root, writable, ki.clone());
                    c.db = db;
                    c.is_index = is_index;
                    c.key_info = ki;
                    c.cache = None;
                    c.null_row = false;
                    c.eof = true;
                    c
                }
                None => Box::new(BtreeCursor {
                    db,
                    cursor: Cursor::new(root, writable, ki.clone()),
                    is_index,
                    key_info: ki,
                    cache: None,
                    null_row: false,
                    eof: true,
                }),
            };
            vm.cursors[slot] = Some(VmCursor::Btree(c));
        }
        Opcode::OpenEphemeral => {
            let mut e = EphemeralCursor::new(key_info(&insn.p4));
            if !temp_store_memory(env) {
                // (SQLite counts only its sorters in SQLITE_DBSTATUS_TEMPBUF_SPILL.)
                // An index's rows move into a B-tree past the budget
                // (`ephemeral_tree`), a table's chunks go to a file.
                let io = env.temp_io.clone();
                e.rows.spill_to(if e.key_info.is_some() { SpillStore::handing_off(io, EPHEMERAL_BUDGET) } else { SpillStore::new(io, EPHEMERAL_BUDGET) });
            }
            vm.cursors[slot] = Some(VmCursor::Ephemeral(Box::new(e)));
        }
        Opcode::OpenPseudo => {
            vm.cursors[slot] = Some(VmCursor::Pseudo(p2 as usize));
        }
        Opcode::SorterOpen => {
            let ki = key_info(&insn.p4).unwrap_or_else(|| Arc::new(KeyInfo { fields: Vec::new() }));
            vm.cursors[slot] = Some(VmCursor::Sorter(Box::new(match sorter_budget(env) {
                Some(budget) => Sorter::with_spill(ki, env.temp_io.clone(), budget).counting_spills_in(env.temp_spill_bytes.clone()),
                None => Sorter::new(ki),
            })));
        }
        Opcode::Close => vm.cursors[slot] = None,
        Opcode::NullRow => match vm.cursors[slot].as_mut() {
            Some(VmCursor::Btree(c)) => {
                c.null_row = true;
                c.cache = None;
            }
            Some(VmCursor::Ephemeral(e)) => e.null_row = true,
            Some(VmCursor::Virtual(v)) => v.null_row = true,
            _ => {}
        },
        // The cursor is on the null row of an outer join: r[P3] is NULL
        // and the code computing a value from the row is skipped.
        Opcode::IfNullRow => {
            let null_row = match vm.cursors[slot].as_ref() {
                Some(VmCursor::Btree(c)) => c.null_row,
                Some(VmCursor::Ephemeral(e)) => e.null_row,
                Some(VmCursor::Virtual(v)) => v.null_row,
                _ => false,
            };
            if null_row {
                vm.regs[p3 as usize].set(crate::value::Value::Null);
                return Ok(Flow::Jump(p2 as usize));
            }
        }
        Opcode::Rewind | Opcode::Last => {
            let first = insn.opcode == Opcode::Rewind;
            let found = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    c.null_row = false;
                    let bt = &mut env.dbs[c.db].btree;
                    let f = if first { pend!(c.cursor.first(bt)) } else { pend!(c.cursor.last(bt)) };
                    c.eof = !f;
                    f
                }
                Some(VmCursor::Ephemeral(e)) => {
                    e.null_row = false;
                    e.rewind(first)?
                }
                _ => return Err(super::internal("rewind of a non-table cursor")),
            };
            if !found && p2 > 0 {
                return Ok(Flow::Jump(p2 as usize));
            }
        }
        Opcode::Next | Opcode::Prev => {
            let fwd = insn.opcode == Opcode::Next;
            let more = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    if c.eof {
                        false
                    } else {
                        // (Tested first: dropping an empty cache is a call.)
                        if c.cache.is_some() {
                            c.cache = None;
                        }
                        let bt = &mut env.dbs[c.db].btree;
                        let m = if fwd { pend!(c.cursor.next(bt)) } else { pend!(c.cursor.prev(bt)) };
                        c.eof = !m;
                        m
                    }
                }
                Some(VmCursor::Ephemeral(e)) => e.step(fwd)?,
                _ => return Err(super::internal("next of a non-table cursor")),
            };
            if more {
                if (1..=3).contains(&insn.p5) {
                    vm.status[insn.p5 as usize] += 1;
                }
                return Ok(Flow::Jump(p2 as usize));
            }
        }
        Opcode::Count => {
            let n = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    let bt = &mut env.dbs[c.db].btree;
                    if insn.p5 & 0x01 != 0 {
                        pend!(c.cursor.count_any_kind(bt)) as i64
                    } else {
                        pend!(c.cursor.count(bt)) as i64
                    }
                }
                Some(VmCursor::Ephemeral(e)) => e.count()?,
                _ => 0,
            };
            set_reg(vm, p2, Value::Integer(n));
        }
        Opcode::Sequence => {
            // Sorters here are stable, so a sequence number only needs to
            // be increasing.
            vm.steps += 1;
            set_reg(vm, p2, Value::Integer(vm.steps));
        }
        Opcode::SorterInsert => {
            let Some(Value::Blob(rec)) = vm.regs.get(p2 as usize).map(|r| &r.value) else {
                return Err(super::internal("sorter insert without a record"));
            };
            // P3: the register of LIMIT (+ OFFSET) when only the first
            // rows of the order are read (a positive integer bounds the
            // rows kept; anything else keeps every row).
            let keep = match vm.regs.get(p3 as usize).filter(|_| p3 > 0).map(|r| &r.value) {
                Some(Value::Integer(n)) if *n > 0 => usize::try_from(*n).ok(),
                _ => None,
            };
            match vm.cursors[slot].as_mut() {
                // The sorter keeps the record packed.
                Some(VmCursor::Sorter(s)) => match keep {
                    Some(keep) => s.push_bounded(rec, keep),
                    None => s.push(rec),
                },
                Some(VmCursor::Ephemeral(e)) => e.insert_record(rec)?,
                _ => return Err(super::internal("sorter insert on a non-sorter")),
            }
        }
        Opcode::SorterSort => {
            let nonempty = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Sorter(s)) => match s.sort()? {
                    Poll::Ready(nonempty) => nonempty,
                    Poll::Pending => return Ok(Flow::Pending),
                },
                _ => return Err(super::internal("sort of a non-sorter")),
            };
            // (Counted once the sort is done: a suspended sort runs again.)
            vm.status[2] += 1;
            if !nonempty {
                return Ok(Flow::Jump(p2 as usize));
            }
        }
        Opcode::SorterNext => {
            let more = match vm.cursors[slot].as_mut() {
                Some(VmCursor::Sorter(s)) => match s.next()? {
                    Poll::Ready(more) => more,
                    Poll::Pending => return Ok(Flow::Pending),
                },
                _ => return Err(super::internal("next of a non-sorter")),
            };
            if more {
                return Ok(Flow::Jump(p2 as usize));
            }
        }
        Opcode::SorterData => {
            let rec = match vm.cursors[slot].as_ref() {
                Some(VmCursor::Sorter(s)) => s.current(),
                _ => None,
            };
            let Some(rec) = rec else {
                set_reg(vm, p2, Value::Null);
                return Ok(Flow::Next);
            };
            if p2 as usize >= vm.regs.len() {
                vm.regs.resize(p2 as usize + 1, Default::default());
            }
            // The record's bytes as they were pushed, copied into the
            // register's previous blob when it has one (no allocation per
            // row).
            let r = &mut vm.regs[p2 as usize];
            r.clear_marks();
            match &mut r.value {
                Value::Blob(b) => {
                    b.clear();
                    b.extend_from_slice(rec);
                }
                v => *v = Value::Blob(rec.to_vec()),
            }
        }
        _ => return Err(super::internal("cursor: unexpected opcode")),
    }
    let _ = p3;
    Ok(Flow::Next)
}

/// SQLite's limit on one in-memory run of a sorter (`SQLITE_MAX_PMASZ`).
const MAX_RUN_BYTES: u64 = 1 << 29;
/// SQLite's smallest run, in pages (`SQLITE_SORTER_PMASZ`).
const MIN_RUN_PAGES: u64 = 250;

/// `PRAGMA temp_store=MEMORY`: sorters and transient tables never spill.
fn temp_store_memory(env: &ConnState) -> bool {
    let temp_store = super::schema::KEPT_PRAGMAS.iter().position(|(n, _)| *n == "temp_store");
    temp_store.is_some_and(|i| env.kept_pragmas[i] == 2)
}

/// The rows a transient table keeps in memory, in the cell bytes
/// [`row_weight`] counts (and, once it spills, in decoded bytes too):
/// SQLite gives its transient B-trees the default
/// cache, `SQLITE_DEFAULT_CACHE_SIZE` (-2000: 2000 KiB, about 480 pages of
/// 4096 bytes with their headers), whatever the connection's
/// `cache_size`, and spills pages once they fill it; its pages are about
/// four fifths full, so the budget is that much of the cache's pages.
///
/// [`row_weight`]: crate::vdbe::ephemeral_spill::row_weight
const EPHEMERAL_BUDGET: usize = 480 * 4096 * 4 / 5;

/// The bytes of rows a sorter holds in memory before it spills a run to a
/// temporary file, as SQLite sizes it: the main database's cache size
/// (pages if positive, KiB if negative; at most `SQLITE_MAX_PMASZ`) but at
/// least 250 pages. `None` (never spill) when temporary files live in
/// memory (`PRAGMA temp_store=MEMORY`), as SQLite's sorter never spills
/// then.
fn sorter_budget(env: &ConnState) -> Option<usize> {
    if temp_store_memory(env) {
        return None;
    }
    let bt = &env.dbs[0].btree;
    let page = bt.page_size() as u64;
    let cache = match bt.cache_size() {
        n if n < 0 => n.unsigned_abs().saturating_mul(1024),
        n => (n as u64).saturating_mul(page),
    };
    Some(cache.min(MAX_RUN_BYTES).max(MIN_RUN_PAGES * page).min(usize::MAX as u64) as usize)
}
