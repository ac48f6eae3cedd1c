//! # The prepared statements of one fts5 table, kept between rows
//!
//! Every row an INSERT writes runs the same few statements on the shadow
//! tables (the `%_content` and `%_docsize` inserts, the averages record
//! read and written, the check for an existing row); SQLite's module
//! prepares each once and keeps it. [`Stmts`] does the same: a statement
//! is looked up by its text (the texts name the table, so a renamed table,
//! connected again, never finds the old ones), taken out while it runs
//! (a nested run of the same text prepares its own) and put back reset.
//! A schema change is handled by the statement itself (it is compiled
//! again when it next steps, as `sqlite3_prepare_v2` statements are).
//!
//! Invariant: a statement in the map is reset and its parameters are
//! cleared (bound again each run), so it holds no row's values (checked:
//! fts5_kept_statement_idle).

use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::util::fast_hash::FastMap;
use crate::value::Value;
use std::sync::{Arc, Mutex};

/// Most statements kept per table (the per-row ones are a handful; the
/// limit only bounds texts made with values in them).
const MAX_KEPT: usize = 32;

/// The statements of one table (shared by the clones of its
/// configuration, all on one connection).
#[derive(Clone, Default)]
pub struct Stmts(Arc<Mutex<FastMap<String, Statement>>>);

impl std::fmt::Debug for Stmts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stmts")
    }
}

impl Stmts {
    /// Run `sql` (one statement) with `params`, handing each row to `row`.
    pub fn run(&self, c: &mut Connection, sql: &str, params: &[Value], row: &mut dyn FnMut(&Statement)) -> Result<()> {
        let cached = self.0.lock().unwrap_or_else(|e| e.into_inner()).remove_entry(sql);
        let (key, mut st) = match cached {
            Some(kv) => kv,
            None => match c.prepare_terminated(sql.as_bytes())? {
                (Some(st), _) => (sql.to_string(), st),
                (None, _) => return Ok(()),
            },
        };
        let out = step_all(c, &mut st, params, row);
        st.reset(c);
        // (Unbound again: a kept statement must not hold a row's values,
        // which may be large, until the table's next write.)
        st.clear_bindings();
        // invariant: fts5_kept_statement_idle
        debug_assert!(!st.busy(), "a kept fts5 statement must be reset");
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() < MAX_KEPT {
            map.insert(key, st);
        }
        out
    }

    /// Run `sql` for its effect.
    pub fn exec(&self, c: &mut Connection, sql: &str, params: &[Value]) -> Result<()> {
        self.run(c, sql, params, &mut |_| {})
    }

    /// Every row of `sql`.
    pub fn rows(&self, c: &mut Connection, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        self.run(c, sql, params, &mut |s| out.push((0..s.column_count()).map(|i| s.column(i).clone()).collect()))?;
        Ok(out)
    }

    /// Forget every statement (the table is dropped or renamed).
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

fn step_all(c: &mut Connection, st: &mut Statement, params: &[Value], row: &mut dyn FnMut(&Statement)) -> Result<()> {
    for (i, p) in params.iter().enumerate() {
        st.bind(i + 1, p.clone())?;
    }
    loop {
        match st.step(c)? {
            StepResult::Row => row(st),
            StepResult::Done => return Ok(()),
            StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
        }
    }
}
