//! Virtual-table opcodes: a module's methods called with the connection
//! lent (`vdbe::host`), so a module may run SQL on it.
//!
//! None of them does I/O of the VM's own: they never answer `Pending`
//! (SQL a module runs completes blocking, `lent_depth` being positive).
//! Invariant: a virtual cursor's `null_row` makes every column and the
//! rowid read NULL until the next `VFilter` (checked: vtab_null_row).

use super::{internal, reg, set_reg, Flow};
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::cursor::{VirtualCursor, VmCursor};
use crate::vdbe::host::{lend, VmHost};
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::vtab::{ColumnContext, VtabInstance};
use crate::vdbe::Vm;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub(super) fn exec(vm: &mut Vm, insn: &Insn, host: &mut dyn VmHost) -> Result<Flow> {
    match insn.opcode {
        Opcode::VOpen => {
            let P4::VTab(t) = &insn.p4 else { return Err(internal("VOpen without a table")) };
            let cursor = lend(host, |h| t.table.open(h))?;
            let slot = insn.p1 as usize;
            if vm.cursors.len() <= slot {
                vm.cursors.resize_with(slot + 1, || None);
            }
            vm.cursors[slot] = Some(VmCursor::Virtual(Box::new(VirtualCursor { cursor, table: t.clone(), null_row: false })));
            Ok(Flow::Next)
        }
        Opcode::VFilter => {
            let idx_num = reg(vm, insn.p3).as_ref().to_i64() as i32;
            let argc = reg(vm, insn.p3 + 1).as_ref().to_i64().max(0) as i32;
            let args: Vec<Value> = (0..argc).map(|i| reg(vm, insn.p3 + 2 + i).clone()).collect();
            let idx_str = match &insn.p4 {
                P4::Text(s) => Some(s.as_str()),
                _ => None,
            };
            let c = virtual_cursor(vm, insn.p1)?;
            c.null_row = false;
            let cur = &mut c.cursor;
            lend(host, |h| cur.filter(h, idx_num, idx_str, &args))?;
            if c.cursor.eof() {
                return Ok(Flow::Jump(insn.p2 as usize));
            }
            Ok(Flow::Next)
        }
        Opcode::VNext => {
            let c = virtual_cursor(vm, insn.p1)?;
            if c.null_row {
                return Ok(Flow::Next);
            }
            let cur = &mut c.cursor;
            lend(host, |h| cur.next(h))?;
            if c.cursor.eof() {
                return Ok(Flow::Next);
            }
            Ok(Flow::Jump(insn.p2 as usize))
        }
        Opcode::VColumn => {
            let c = virtual_cursor(vm, insn.p1)?;
            // invariant: vtab_null_row
            if c.null_row {
                set_reg(vm, insn.p3, Value::Null);
                return Ok(Flow::Next);
            }
            let mut ctx = ColumnContext { column: insn.p2 as usize, nochange: insn.p5 & 1 != 0, left_unchanged: false, subtype: 0 };
            let cur = &mut c.cursor;
            let v = lend(host, |h| cur.column(h, &mut ctx))?;
            let unchanged = ctx.nochange && ctx.left_unchanged;
            set_reg(vm, insn.p3, if unchanged { Value::Null } else { v });
            if let Some(r) = vm.regs.get_mut(insn.p3 as usize) {
                r.subtype = if unchanged { NOCHANGE_SUBTYPE } else { ctx.subtype };
            }
            Ok(Flow::Next)
        }
        Opcode::VRowid => {
            let c = virtual_cursor(vm, insn.p1)?;
            // invariant: vtab_null_row
            if c.null_row {
                set_reg(vm, insn.p2, Value::Null);
                return Ok(Flow::Next);
            }
            let cur = &mut c.cursor;
            let id = lend(host, |h| cur.rowid(h))?;
            set_reg(vm, insn.p2, Value::Integer(id));
            Ok(Flow::Next)
        }
        Opcode::VBegin => {
            let P4::VTab(t) = &insn.p4 else { return Err(internal("VBegin without a table")) };
            // A statement that may write several rows, inside a
            // transaction: the tables already in it open a statement
            // savepoint first (SQLite's statement journal), numbered after
            // the user savepoints.
            let st = host.state();
            if insn.p1 != 0 && !st.autocommit && vm.vtab_stmt_savepoint.is_none() {
                let n = st.savepoints.len().saturating_sub(usize::from(st.savepoint_started_txn)) as i32;
                vm.vtab_stmt_savepoint = Some(n);
                let list = st.vtabs.in_transaction.clone();
                // A table may write at its savepoint what it held (fts5's
                // pending changes): that belongs before the statement, so
                // its B-tree statement savepoint, opened already and with
                // nothing written in it yet, is opened again after them
                // (SQLite calls xSavepoint before it begins the statement
                // journal).
                let reopen = vm.stmt_savepoint.filter(|_| !list.is_empty());
                statement_savepoints(host, reopen, false)?;
                for x in &list {
                    lend(host, |h| x.table.savepoint(h, n))?;
                }
                statement_savepoints(host, reopen, true)?;
            }
            begin(host, t, vm.vtab_stmt_savepoint.is_some())?;
            Ok(Flow::Next)
        }
        Opcode::VUpdate => {
            let P4::VTab(t) = &insn.p4 else { return Err(internal("VUpdate without a table")) };
            let args: Vec<Value> = (0..insn.p2).map(|i| reg(vm, insn.p3 + i).clone()).collect();
            let nochange: Vec<bool> = (0..insn.p2).map(|i| vm.regs.get((insn.p3 + i) as usize).is_some_and(|r| r.subtype == NOCHANGE_SUBTYPE)).collect();
            let on_conflict = i32::from(insn.p5);
            match lend(host, |h| t.table.update(h, &args, on_conflict, &nochange)) {
                Ok(rowid) => {
                    if insn.p1 != 0 {
                        if let Some(id) = rowid {
                            host.state().last_insert_rowid = id;
                        }
                    }
                    vm.n_change += 1;
                    Ok(Flow::Next)
                }
                // A constraint the module reports under IGNORE skips the row.
                Err(e)
                    if e.primary() == crate::error::SQLITE_CONSTRAINT
                        && t.config.constraint_support
                        && on_conflict == crate::vdbe::vtab::ON_CONFLICT_IGNORE =>
                {
                    Ok(Flow::Next)
                }
                Err(e) => {
                    if e.primary() == crate::error::SQLITE_CONSTRAINT && t.config.constraint_support {
                        match on_conflict {
                            crate::vdbe::vtab::ON_CONFLICT_ROLLBACK => vm.error_action = super::txn::ON_ERROR_ROLLBACK,
                            crate::vdbe::vtab::ON_CONFLICT_FAIL => vm.error_action = super::txn::ON_ERROR_FAIL,
                            _ => {}
                        }
                    }
                    Err(e)
                }
            }
        }
        Opcode::VCreate => {
            let P4::VCreate(spec) = &insn.p4 else { return Err(internal("VCreate without a table")) };
            let module = host.state().vtabs.module(&spec.module).map(|(n, m)| (n.to_string(), m.clone()));
            let Some((module_name, module)) = module else {
                return Err(Error::sql(format!("no such module: {}", spec.module)));
            };
            if module.kind() == crate::vdbe::vtab::ModuleKind::EponymousOnly {
                return Err(Error::sql(format!("no such module: {}", spec.module)));
            }
            let argv = spec.argv();
            let made = lend(host, |h| module.create(h, &argv))?;
            let inst = Arc::new(VtabInstance {
                module_name,
                module,
                table: made.table,
                declared: made.schema,
                config: made.config,
                db: spec.db,
                name: spec.name.clone(),
                schema_sql: spec.sql.clone(),
                in_transaction: AtomicBool::new(false),
            });
            let st = host.state();
            st.vtabs.insert_table(inst.clone());
            // The new table takes part in the transaction from here on,
            // without an xBegin (as SQLite adds it after xCreate).
            if inst.table.transactional() {
                inst.set_in_transaction(true);
                st.vtabs.in_transaction.push(inst);
            }
            Ok(Flow::Next)
        }
        Opcode::VDestroy => {
            let P4::Text(name) = &insn.p4 else { return Err(internal("VDestroy without a name")) };
            let Some(t) = host.state().vtabs.table(insn.p1 as usize, name).cloned() else { return Ok(Flow::Next) };
            // SQL the module runs may drop its own tables (SQLite counts
            // the xDestroy calls running, `nVDestroy`).
            host.state().vdestroy_depth += 1;
            let r = lend(host, |h| t.table.destroy(h));
            host.state().vdestroy_depth -= 1;
            r?;
            let st = host.state();
            st.vtabs.remove_table(insn.p1 as usize, name);
            st.vtabs.in_transaction.retain(|x| !Arc::ptr_eq(x, &t));
            Ok(Flow::Next)
        }
        Opcode::VRename => {
            let P4::VTab(t) = &insn.p4 else { return Err(internal("VRename without a table")) };
            let new_name = text_of(reg(vm, insn.p1));
            lend(host, |h| t.table.rename(h, &new_name))?;
            Ok(Flow::Next)
        }
        Opcode::VCheck => {
            let P4::VTab(t) = &insn.p4 else { return Err(internal("VCheck without a table")) };
            let schema = text_of(reg(vm, insn.p1));
            let flags = insn.p3;
            let r = lend(host, |h| t.table.integrity(h, &schema, &t.name, flags))?;
            set_reg(vm, insn.p2, r.map_or(Value::Null, Value::text));
            Ok(Flow::Next)
        }
        Opcode::VInitIn => {
            // P1..P1+P3: the IN list's values (P5 1: P1 is the ephemeral
            // index holding them, an `IN (SELECT ...)`); P2: the xFilter
            // argument that carries them all (see `vtab::in_list`).
            let vals: Vec<Value> = if insn.p5 & 1 != 0 {
                match vm.cursors.get_mut(insn.p1 as usize).and_then(|c| c.as_mut()) {
                    Some(VmCursor::Ephemeral(e)) => {
                        let mut firsts = Vec::with_capacity(e.rows.len());
                        e.each(|(_, r)| firsts.extend(r.first().cloned()))?;
                        firsts
                    }
                    _ => return Err(internal("VInitIn without an ephemeral index")),
                }
            } else {
                (0..insn.p3).map(|i| reg(vm, insn.p1 + i).clone()).collect()
            };
            let list = crate::vdbe::vtab::in_list::InList::new(vals);
            set_reg(vm, insn.p2, Value::Pointer(crate::value::pointer::PointerValue::new(list)));
            Ok(Flow::Next)
        }
        _ => Err(internal("virtual-table opcode not implemented")),
    }
}

/// The subtype `VColumn` with P5 1 leaves on a column the module did not
/// compute (`sqlite3_vtab_nochange`), so `VUpdate` can tell it (outside
/// the byte of SQL subtypes; `SetSubtype` with P5 1 restores it whole).
pub const NOCHANGE_SUBTYPE: u32 = 0x4e43_4847;

/// Open (else release) B-tree savepoint `i` on each database of `dbs`.
fn statement_savepoints(host: &mut dyn VmHost, at: Option<(usize, u32)>, open: bool) -> Result<()> {
    let Some((i, dbs)) = at else { return Ok(()) };
    let st = host.state();
    let io = st.io.clone();
    for (_, d) in st.dbs.iter_mut().enumerate().filter(|(n, _)| dbs & (1 << n) != 0) {
        let bt = &mut d.btree;
        io.block_on(|| if open { bt.savepoint_open(i) } else { bt.savepoint_release(i) })?;
    }
    Ok(())
}

/// xBegin on `t` unless already called in this transaction, then xSavepoint
/// for each savepoint open (as SQLite's `sqlite3VtabBegin`).
pub(crate) fn begin(host: &mut dyn VmHost, t: &Arc<VtabInstance>, in_statement: bool) -> Result<()> {
    if !t.table.transactional() || t.in_transaction() {
        return Ok(());
    }
    lend(host, |h| t.table.begin(h))?;
    t.set_in_transaction(true);
    let st = host.state();
    st.vtabs.in_transaction.push(t.clone());
    // Inside savepoints the table starts at the innermost one (SQLite's
    // `sqlite3VtabBegin`).
    let open = st.savepoints.len().saturating_sub(usize::from(st.savepoint_started_txn)) as i32 + i32::from(in_statement);
    if open > 0 {
        lend(host, |h| t.table.savepoint(h, open - 1))?;
    }
    Ok(())
}

fn virtual_cursor(vm: &mut Vm, p1: i32) -> Result<&mut VirtualCursor> {
    match vm.cursors.get_mut(p1 as usize).and_then(|c| c.as_mut()) {
        Some(VmCursor::Virtual(v)) => Ok(v),
        _ => Err(internal("not a virtual-table cursor")),
    }
}

fn text_of(v: &Value) -> String {
    v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default()
}
