//! # Applying a changeset to a database, with conflicts
//!
//! `sqlite3changeset_apply*`: each table of the changeset that the filter
//! accepts and that matches the database's table (same name, at least as
//! many columns, key columns in the same places) has its changes made with
//! SQL on "main":
//!
//! * DELETE: delete the row whose key and (changeset) other old values
//!   match; none deleted → DATA if the key exists, else NOTFOUND.
//! * UPDATE: set the new values where key and old values of the changed
//!   columns match; none updated → DATA or NOTFOUND likewise.
//! * INSERT: insert the row; a constraint failure with the key present →
//!   CONFLICT (with the row found), else it is retried after the table's
//!   other changes.
//!
//! Changes failing on another constraint are retried while retrying makes
//! progress; UPDATEs still stuck (rows trading a UNIQUE value) are made by
//! deleting the old rows and inserting the new ones; what still fails is
//! a CONSTRAINT conflict. After all tables, deferred foreign key
//! violations are one FOREIGN_KEY conflict. The handler's answer OMIT
//! skips, REPLACE forces (DATA: by key only; CONFLICT: delete the row
//! found, insert again), ABORT rolls everything back (`SQLITE_ABORT`); an
//! answer not allowed for the conflict is `SQLITE_MISUSE`.
//!
//! Invariant: unless `NOSAVEPOINT`, the whole application is one savepoint,
//! released on success and rolled back on any error, so the savepoints
//! open afterwards are those open before (checked:
//! session_apply_savepoint).

use super::format::{read_all, Item, Table, OP_DELETE, OP_INSERT, OP_UPDATE};
use super::rebase::RebaseLog;
use super::sql::{exec, ident, is_stat1, query, session_shape, stat1_row};
use super::value::Field;
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_ABORT, SQLITE_CONSTRAINT, SQLITE_MISUSE};
use crate::value::Value;
use crate::vdbe::host::VmHost;

/// `SQLITE_CHANGESETAPPLY_NOSAVEPOINT`.
pub const APPLY_NOSAVEPOINT: i32 = 1;
/// `SQLITE_CHANGESETAPPLY_INVERT`.
pub const APPLY_INVERT: i32 = 2;
/// `SQLITE_CHANGESETAPPLY_IGNORENOOP`.
pub const APPLY_IGNORENOOP: i32 = 4;
/// `SQLITE_CHANGESETAPPLY_FKNOACTION`.
pub const APPLY_FKNOACTION: i32 = 8;
/// `SQLITE_CHANGESETAPPLY_NOUPDATELOOP`.
pub const APPLY_NOUPDATELOOP: i32 = 16;

/// `SQLITE_CHANGESET_DATA` and the other conflict kinds.
pub const CONFLICT_DATA: i32 = 1;
/// No row with the key.
pub const CONFLICT_NOTFOUND: i32 = 2;
/// An INSERT's key exists.
pub const CONFLICT_CONFLICT: i32 = 3;
/// Another constraint failed.
pub const CONFLICT_CONSTRAINT: i32 = 4;
/// Foreign keys are violated at the end.
pub const CONFLICT_FOREIGN_KEY: i32 = 5;

/// Handler answers.
pub const OMIT: i32 = 0;
/// Force the change.
pub const REPLACE: i32 = 1;
/// Roll back and fail.
pub const ABORT: i32 = 2;

/// What the application decides while a changeset is applied.
pub trait ApplyHandler {
    /// Whether the changes of the item's table are applied (`xFilter` of
    /// `apply` and `apply_v2`, asked once per table).
    fn filter(&mut self, conn: &mut Connection, item: &Item) -> bool;
    /// Whether this change is applied (`xFilter` of `apply_v3`, asked
    /// once per change of a table the database has).
    fn filter_change(&mut self, conn: &mut Connection, item: &Item) -> bool {
        let _ = (conn, item);
        true
    }
    /// The answer to a conflict (`xConflict`): `row` is the conflicting
    /// row (DATA, CONFLICT), `fk` the violations (FOREIGN_KEY).
    fn conflict(&mut self, conn: &mut Connection, kind: i32, item: Option<&Item>, row: Option<&[Value]>, fk: i64) -> i32;
}

/// Apply changeset `buf` to the "main" database of `conn`; returns the
/// rebase buffer (empty when no conflict was resolved, or for a patchset).
pub fn apply(conn: &mut Connection, buf: &[u8], flags: i32, h: &mut dyn ApplyHandler) -> Result<Vec<u8>> {
    if flags & APPLY_FKNOACTION != 0 {
        return Err(Error::unsupported("SQLITE_CHANGESETAPPLY_FKNOACTION"));
    }
    let items = read_all(buf, flags & APPLY_INVERT != 0)?;
    let savepoint = flags & APPLY_NOSAVEPOINT == 0;
    let defer = query(conn, "PRAGMA defer_foreign_keys", &[])?.first().and_then(|r| r.first().cloned()).unwrap_or(Value::Integer(0));
    exec(conn, "PRAGMA defer_foreign_keys = 1")?;
    #[cfg(debug_assertions)]
    let depth = conn.savepoint_depth();
    if savepoint {
        if let Err(e) = exec(conn, "SAVEPOINT changeset_apply") {
            let _ = exec(conn, &format!("PRAGMA defer_foreign_keys = {}", int(&defer)));
            return Err(e);
        }
    }
    let mut run = Run { conn, h, flags, rebase: RebaseLog::default() };
    let mut outcome = run.tables(&items);
    if outcome.is_ok() {
        outcome = run.foreign_keys();
    }
    let conn = run.conn;
    let rebase = run.rebase.into_bytes();
    if savepoint {
        if outcome.is_err() {
            let _ = exec(conn, "ROLLBACK TO changeset_apply");
        }
        let _released = exec(conn, "RELEASE changeset_apply");
        // invariant: session_apply_savepoint
        #[cfg(debug_assertions)]
        debug_assert!(_released.is_err() || conn.savepoint_depth() == depth, "changeset_apply left savepoints {:?} (was {depth:?})", conn.savepoint_depth());
    }
    let _ = exec(conn, &format!("PRAGMA defer_foreign_keys = {}", int(&defer)));
    outcome.map(|()| rebase)
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        _ => 0,
    }
}

struct Run<'a> {
    conn: &'a mut Connection,
    h: &'a mut dyn ApplyHandler,
    flags: i32,
    rebase: RebaseLog,
}

/// The target table's column names, for the columns the changeset has.
struct Target {
    names: Vec<String>,
}

enum Outcome {
    Done,
    /// Failed on a constraint other than the key: retry later.
    Retry,
}

impl Run<'_> {
    fn tables(&mut self, items: &[Item]) -> Result<()> {
        let mut i = 0;
        while i < items.len() {
            let table = items[i].table.clone();
            let end = i + items[i..].iter().take_while(|it| std::sync::Arc::ptr_eq(&it.table, &table)).count();
            let run = &items[i..end];
            i = end;
            if !self.h.filter(self.conn, &run[0]) {
                continue;
            }
            let Some(target) = self.target(&table)? else {
                continue;
            };
            // (sqlite_stat1's NULL idx travels as X''; written as NULL.)
            let converted: Vec<Item>;
            let run: &[Item] = if is_stat1(&table.name) {
                converted = run.iter().map(|it| stat1_item(it, false)).collect();
                &converted
            } else {
                run
            };
            let mut retry: Vec<&Item> = Vec::new();
            for it in run {
                if !self.h.filter_change(self.conn, it) {
                    continue;
                }
                if let Outcome::Retry = self.one(&target, it)? {
                    retry.push(it);
                }
            }
            self.retry(&target, retry)?;
        }
        Ok(())
    }

    /// The database's table, if it matches the changeset's.
    fn target(&mut self, t: &Table) -> Result<Option<Target>> {
        let Some((mut names, mut pk)) = session_shape(self.conn, "main", &t.name)? else {
            return Ok(None);
        };
        // (A table without a key, recorded keyed by its rowid.)
        let rowid_keyed = t.width() == names.len() + 1 && t.pk.first() == Some(&1) && t.pk[1..].iter().all(|p| *p == 0);
        if pk.iter().all(|p| *p == 0) && rowid_keyed {
            names.insert(0, "_rowid_".to_string());
            pk.insert(0, 1);
        }
        if names.len() < t.width() || (0..pk.len()).any(|i| (pk[i] != 0) != t.is_key(i)) {
            return Ok(None);
        }
        Ok(Some(Target { names }))
    }

    fn retry(&mut self, target: &Target, mut retry: Vec<&Item>) -> Result<()> {
        while !retry.is_empty() {
            let before = retry.len();
            let mut still = Vec::new();
            for it in retry {
                if let Outcome::Retry = self.one(target, it)? {
                    still.push(it);
                }
            }
            retry = still;
            if retry.len() == before {
                break;
            }
        }
        if retry.is_empty() {
            return Ok(());
        }
        if self.flags & APPLY_NOUPDATELOOP == 0 && retry.iter().all(|it| it.change.op == OP_UPDATE) && self.update_loop(target, &retry)? {
            return Ok(());
        }
        for it in retry {
            self.ask(CONFLICT_CONSTRAINT, it, None)?;
        }
        Ok(())
    }

    /// UPDATEs that can only be made together: delete the rows, insert
    /// them updated. `false` (nothing changed) when that fails too.
    fn update_loop(&mut self, target: &Target, items: &[&Item]) -> Result<bool> {
        exec(self.conn, "SAVEPOINT changeset_apply_loop")?;
        let mut rows = Vec::new();
        for it in items {
            match self.row(target, it)? {
                Some(mut row) => {
                    for (i, f) in it.change.new.iter().enumerate() {
                        if let Some(v) = f {
                            row[i] = v.clone();
                        }
                    }
                    rows.push(row);
                    let (sql, params) = by_key("DELETE", target, it);
                    self.write(&sql, &params)?;
                }
                None => rows.push(Vec::new()),
            }
        }
        let all = target.names.iter().map(|n| ident(n)).collect::<Vec<_>>();
        for row in rows.iter().filter(|r| !r.is_empty()) {
            let sql = format!("INSERT INTO main.{}({}) VALUES({})", ident(&items[0].table.name), all.join(", "), params(row.len()));
            if self.write(&sql, row).is_err() {
                exec(self.conn, "ROLLBACK TO changeset_apply_loop")?;
                exec(self.conn, "RELEASE changeset_apply_loop")?;
                return Ok(false);
            }
        }
        exec(self.conn, "RELEASE changeset_apply_loop")?;
        Ok(true)
    }

    /// A conflict IGNORENOOP answers without the handler: as an OMIT.
    fn noop(&mut self, it: &Item) {
        if !it.patchset {
            let it = if is_stat1(&it.table.name) { stat1_item(it, true) } else { it.clone() };
            self.rebase.note(&it, false);
        }
    }

    /// Ask the handler; `Ok(true)` for REPLACE, `Ok(false)` for OMIT.
    fn ask(&mut self, kind: i32, it: &Item, row: Option<&[Value]>) -> Result<bool> {
        let shown;
        let (it, row) = if is_stat1(&it.table.name) {
            shown = (stat1_item(it, true), row.map(|r| stat1_row(r.to_vec())));
            (&shown.0, shown.1.as_deref())
        } else {
            (it, row)
        };
        let answer = self.h.conflict(self.conn, kind, Some(it), row, 0);
        let resolved = answer == OMIT || (answer == REPLACE && (kind == CONFLICT_DATA || kind == CONFLICT_CONFLICT));
        if resolved && !it.patchset {
            self.rebase.note(it, answer == REPLACE);
        }
        match answer {
            OMIT => Ok(false),
            REPLACE if kind == CONFLICT_DATA || kind == CONFLICT_CONFLICT => Ok(true),
            ABORT => Err(Error::code(SQLITE_ABORT)),
            _ => Err(Error::code(SQLITE_MISUSE)),
        }
    }

    /// Run a write; `Ok(None)` when it failed on a constraint, else the
    /// number of rows changed.
    fn write(&mut self, sql: &str, params: &[Value]) -> Result<Option<i64>> {
        match query(self.conn, sql, params) {
            Ok(_) => Ok(Some(self.conn.changes())),
            Err(e) if e.primary() == SQLITE_CONSTRAINT => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn row(&mut self, target: &Target, it: &Item) -> Result<Option<Vec<Value>>> {
        let (sql, params) = by_key("SELECT", target, it);
        Ok(query(self.conn, &sql, &params)?.into_iter().next())
    }

    fn one(&mut self, target: &Target, it: &Item) -> Result<Outcome> {
        let c = &it.change;
        let t = &it.table;
        let noop = self.flags & APPLY_IGNORENOOP != 0;
        match c.op {
            OP_DELETE => {
                let mut conds = Vec::new();
                let mut params = Vec::new();
                for (i, f) in c.old.iter().enumerate() {
                    if let Some(v) = f {
                        conds.push(format!("{} IS ?{}", ident(&target.names[i]), params.len() + 1));
                        params.push(v.clone());
                    }
                }
                let sql = format!("DELETE FROM main.{} WHERE {}", ident(&t.name), conds.join(" AND "));
                match self.write(&sql, &params)? {
                    Some(n) if n > 0 => {}
                    None => {
                        self.ask(CONFLICT_CONSTRAINT, it, None)?;
                    }
                    Some(_) => match self.row(target, it)? {
                        Some(row) => {
                            if self.ask(CONFLICT_DATA, it, Some(&row))? {
                                let (sql, params) = by_key("DELETE", target, it);
                                if self.write(&sql, &params)?.is_none() {
                                    self.ask(CONFLICT_CONSTRAINT, it, None)?;
                                }
                            }
                        }
                        None if noop => self.noop(it),
                        None => {
                            self.ask(CONFLICT_NOTFOUND, it, None)?;
                        }
                    },
                }
            }
            OP_UPDATE => {
                let (set, mut params) = set_clause(target, &c.new);
                let mut conds = Vec::new();
                for (i, f) in c.old.iter().enumerate() {
                    if let Some(v) = f {
                        conds.push(format!("{} IS ?{}", ident(&target.names[i]), params.len() + 1));
                        params.push(v.clone());
                    }
                }
                let sql = format!("UPDATE main.{} SET {} WHERE {}", ident(&t.name), set, conds.join(" AND "));
                match self.write(&sql, &params)? {
                    Some(n) if n > 0 => {}
                    None => return Ok(Outcome::Retry),
                    Some(_) => match self.row(target, it)? {
                        Some(row) => {
                            let already = c.new.iter().enumerate().all(|(i, f)| f.as_ref().is_none_or(|v| super::value::same_value(v, &row[i])));
                            if noop && already {
                                self.noop(it);
                                return Ok(Outcome::Done);
                            }
                            if self.ask(CONFLICT_DATA, it, Some(&row))? {
                                let (set, mut params) = set_clause(target, &c.new);
                                let (cond, kp) = key_cond(target, it, params.len());
                                params.extend(kp);
                                let sql = format!("UPDATE main.{} SET {} WHERE {}", ident(&t.name), set, cond);
                                if self.write(&sql, &params)?.is_none() {
                                    self.ask(CONFLICT_CONSTRAINT, it, None)?;
                                }
                            }
                        }
                        None => {
                            self.ask(CONFLICT_NOTFOUND, it, None)?;
                        }
                    },
                }
            }
            _ => {
                let params: Vec<Value> = c.new.iter().map(|f| f.clone().unwrap_or(Value::Null)).collect();
                let cols: Vec<String> = (0..params.len()).map(|i| ident(&target.names[i])).collect();
                let sql = format!("INSERT INTO main.{}({}) VALUES({})", ident(&t.name), cols.join(", "), self::params(params.len()));
                // (sqlite_stat1 has no key constraint: a row already
                // there is looked for first.)
                let exists = is_stat1(&t.name) && self.row(target, it)?.is_some();
                if exists || self.write(&sql, &params)?.is_none() {
                    let Some(row) = self.row(target, it)? else {
                        return Ok(Outcome::Retry);
                    };
                    if noop && c.new.iter().enumerate().all(|(i, f)| f.as_ref().is_some_and(|v| super::value::same_value(v, &row[i]))) {
                        self.noop(it);
                        return Ok(Outcome::Done);
                    }
                    if self.ask(CONFLICT_CONFLICT, it, Some(&row))? {
                        exec(self.conn, "SAVEPOINT changeset_apply_replace")?;
                        let (dsql, dparams) = by_key("DELETE", target, it);
                        let ok = self.write(&dsql, &dparams)?.is_some() && self.write(&sql, &params)?.is_some();
                        if !ok {
                            exec(self.conn, "ROLLBACK TO changeset_apply_replace")?;
                        }
                        exec(self.conn, "RELEASE changeset_apply_replace")?;
                        if !ok {
                            self.ask(CONFLICT_CONSTRAINT, it, None)?;
                        }
                    }
                }
            }
        }
        Ok(Outcome::Done)
    }

    fn foreign_keys(&mut self) -> Result<()> {
        let (a, b) = self.conn.state().fk_deferred;
        let n = a + b;
        if n <= 0 {
            return Ok(());
        }
        // (SQLite reports whether violations remain, as its
        // SQLITE_DBSTATUS_DEFERRED_FKS does, not how many.)
        match self.h.conflict(self.conn, CONFLICT_FOREIGN_KEY, None, None, 1) {
            OMIT => {
                // (Committed with the violations, as the handler chose:
                // the deferred count must not fail the release.)
                self.conn.state().fk_deferred = (0, 0);
                Ok(())
            }
            ABORT => Err(Error::code(SQLITE_CONSTRAINT)),
            _ => Err(Error::code(SQLITE_MISUSE)),
        }
    }
}

fn params(n: usize) -> String {
    (1..=n).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
}

fn set_clause(target: &Target, new: &[Field]) -> (String, Vec<Value>) {
    let mut set = Vec::new();
    let mut params = Vec::new();
    for (i, f) in new.iter().enumerate() {
        if let Some(v) = f {
            params.push(v.clone());
            set.push(format!("{} = ?{}", ident(&target.names[i]), params.len()));
        }
    }
    (set.join(", "), params)
}

/// `key1 IS ?n AND ...` for the item's key, parameters numbered after
/// `before` others.
fn key_cond(target: &Target, it: &Item, before: usize) -> (String, Vec<Value>) {
    let row = if it.change.op == OP_INSERT { &it.change.new } else { &it.change.old };
    let mut conds = Vec::new();
    let mut params = Vec::new();
    for i in (0..it.table.width()).filter(|i| it.table.is_key(*i)) {
        params.push(row.get(i).cloned().flatten().unwrap_or(Value::Null));
        conds.push(format!("{} IS ?{}", ident(&target.names[i]), before + params.len()));
    }
    (conds.join(" AND "), params)
}

/// `SELECT *`/`DELETE` of the row with the item's key.
fn by_key(verb: &str, target: &Target, it: &Item) -> (String, Vec<Value>) {
    let (cond, params) = key_cond(target, it, 0);
    let head = if verb == "SELECT" {
        format!("SELECT {} FROM", target.names.iter().map(|n| ident(n)).collect::<Vec<_>>().join(", "))
    } else {
        "DELETE FROM".to_string()
    };
    (format!("{head} main.{} WHERE {cond}", ident(&it.table.name)), params)
}

/// A `sqlite_stat1` change with its idx as SQL writes it (X'' to NULL)
/// or, `back`, as the changeset holds it.
fn stat1_item(it: &Item, back: bool) -> Item {
    let mut it = it.clone();
    for row in [&mut it.change.old, &mut it.change.new] {
        if let Some(Some(v)) = row.get_mut(1) {
            match v {
                Value::Blob(b) if b.is_empty() && !back => *v = Value::Null,
                Value::Null if back => *v = Value::Blob(Vec::new()),
                _ => {}
            }
        }
    }
    it
}
