//! # ATTACH and DETACH
//!
//! `lang_attach.txt`, `lang_detach.txt`. A statement compiles to a program
//! that only computes its operands (one row: file name and schema name, or
//! the schema name to detach; `codegen/attach.rs`); the connection then
//! changes its list of databases here, which no bytecode program of the
//! connection could do while it runs against that list.
//!
//! Databases are numbered 0 main, 1 temp, 2.. attached in attach order; a
//! DETACH closes the gap, as SQLite does, so the numbers baked into
//! programs compiled before change: every ATTACH and DETACH bumps
//! `attach_generation`, and a statement compiled under another generation
//! compiles again before its next run.
//!
//! A transaction that writes several databases first takes the EXCLUSIVE
//! lock of every one (`Pager::lock_for_commit`, in `Halt`), so that a busy
//! file leaves them all uncommitted, then commits each one's pager in turn
//! (journal synced, pages written and synced, database by database); in rollback-journal modes under a
//! super-journal, as SQLite does (`vdbe/exec/super_commit.rs`), so that a
//! crash in the middle commits all or none (SQLite does not promise it
//! with journal_mode=MEMORY, OFF or WAL either).

use super::open::parse_target;
use super::Connection;
use crate::btree::{Btree, BtreeOptions, TxnState};
use crate::error::{Error, Result, SQLITE_CANTOPEN, SQLITE_ERROR};
use crate::io::IoContext;
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::Database;
use std::sync::Arc;

/// `SQLITE_LIMIT_ATTACHED`'s slot in the connection's limits.
const LIMIT_ATTACHED: usize = 7;

/// An operand as text (NULL is the empty string, as in SQLite).
fn operand_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null | Value::Pointer(_)) => String::new(),
        Some(Value::Text(t)) | Some(Value::Blob(t)) => String::from_utf8_lossy(t).into_owned(),
        Some(v @ Value::ZeroBlob(_)) => String::from_utf8_lossy(&v.as_ref().to_text().unwrap_or_default()).into_owned(),
        Some(Value::Integer(i)) => i.to_string(),
        Some(Value::Real(r)) => crate::value::numeric::format_real(*r),
    }
}

impl Connection {
    /// `ATTACH file AS name` with the operands computed.
    pub(crate) fn attach_database(&mut self, file: Option<&Value>, name: Option<&Value>) -> Result<()> {
        let file = operand_text(file);
        let name = operand_text(name);
        let max = self.limits[LIMIT_ATTACHED];
        if self.state.dbs.len() >= max.max(0) as usize + 2 {
            return Err(Error::new(SQLITE_ERROR, format!("too many attached databases - max {max}")));
        }
        if self.state.dbs.iter().any(|d| d.name.eq_ci(&name)) {
            return Err(Error::new(SQLITE_ERROR, format!("database {name} is already in use")));
        }
        // The file opens with the connection's own flags (read-only
        // connections attach read-only; URIs when the connection takes them).
        let target = parse_target(&file, self.open_flags).map_err(|e| Error::new(e.code, e.message))?;
        let io = if target.shared {
            IoContext::new(crate::io::shared_memory::backend(&target.path))
        } else if target.memory {
            self.state.io.clone()
        } else if self.memory {
            // An in-memory connection's context drives nothing on disk.
            IoContext::new(Arc::new(crate::io::sync::SyncBackend::new()))
        } else {
            self.state.io.clone()
        };
        let opts =
            BtreeOptions { read_only: target.read_only, create: target.create, memory: target.memory, immutable: target.immutable, shared: target.shared };
        let file = if target.shared { crate::io::shared_memory::DB_PATH } else { target.path.as_str() };
        let opened = match &self.temp_spill {
            // (A temporary database spills to the application's VFS, as
            // the temp schema does.)
            Some(b) if target.temp => Btree::open_temp(b.clone()),
            _ => Btree::open(&io, file, opts),
        };
        let mut btree = opened.map_err(|e| if e.primary() == SQLITE_CANTOPEN { Error::new(e.code, format!("unable to open database: {file}")) } else { e })?;
        target.apply_file_settings(&mut btree);
        // (PRAGMA temp_store=MEMORY holds for databases attached later.)
        let temp_store = crate::vdbe::exec::schema::KEPT_PRAGMAS.iter().position(|(n, _)| *n == "temp_store");
        if temp_store.is_some_and(|i| self.state.kept_pragmas[i] == 2) {
            btree.pager_mut().set_temp_store_memory(true);
        }
        if self.state.exclusive_locking_default {
            btree.pager_mut().set_locking_mode(Some(true))?;
        }
        // (PRAGMA cache_spill's on/off is the connection's.)
        let spill_on = self.state.dbs[0].btree.pager().cache_spill_on();
        btree.pager_mut().set_cache_spill(spill_on);
        if self.state.dbs[0].btree.pager().no_ckpt_on_close() {
            btree.pager_mut().no_checkpoint_on_close(Some(true));
        }
        let path = if target.memory { String::new() } else { io.backend().full_path(&target.path).unwrap_or(target.path.clone()) };
        // Read its schema now: a file that is not a database is refused
        // here, as in SQLite.
        let schema = {
            let bt = &mut btree;
            io.block_on(|| bt.begin_read())?;
            let check = (!self.state.settings.writable_schema).then_some(name.as_str());
            let s = super::schema_load::load(&io, bt, self.state.text_encoding, check);
            let _ = io.block_on(|| bt.commit());
            s?
        };
        // (`load` refused a file in another encoding.)
        debug_assert_eq!(btree.text_encoding(), self.state.text_encoding);
        self.state.dbs.push(Database { name, path, read_only: target.read_only || btree.pager().read_only(), btree });
        self.schemas.push(schema);
        self.attach_generation += 1;
        self.schema_loaded = false;
        Ok(())
    }

    /// `DETACH name` with the operand computed.
    pub(crate) fn detach_database(&mut self, name: Option<&Value>) -> Result<()> {
        let name = operand_text(name);
        let Some(i) = self.state.dbs.iter().position(|d| d.name.eq_ci(&name)) else {
            return Err(Error::new(SQLITE_ERROR, format!("no such database: {name}")));
        };
        if i < 2 {
            return Err(Error::new(SQLITE_ERROR, format!("cannot detach database {name}")));
        }
        // A transaction on it keeps it attached (SQLite's rule); so does a
        // running statement reading a database attached after it, whose
        // number the removal would shift under the statement's cursors (a
        // running statement holds a transaction on every database it uses).
        let in_txn = |d: &crate::vdbe::Database| d.btree.txn_state() != TxnState::None;
        let shifted_in_use = self.state.active_statements > 1 && self.state.dbs[i + 1..].iter().any(in_txn);
        if in_txn(&self.state.dbs[i]) || shifted_in_use {
            return Err(Error::new(SQLITE_ERROR, format!("database {name} is locked")));
        }
        self.state.dbs.remove(i);
        if i < self.schemas.len() {
            self.schemas.remove(i);
        }
        self.attach_generation += 1;
        self.schema_loaded = false;
        Ok(())
    }

    /// Used by `Statement::step`: whether a program compiled under
    /// generation `g` still sees the databases it was compiled for.
    pub(crate) fn attach_generation(&self) -> u64 {
        self.attach_generation
    }
}
