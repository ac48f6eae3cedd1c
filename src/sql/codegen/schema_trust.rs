//! What the schema may run: SQLite's guard against a database file whose
//! views, triggers and schema expressions (CHECK, DEFAULT, generated
//! columns, index keys and partial-index WHERE clauses) call functions or
//! virtual tables the application did not mean a file to reach.
//!
//! Text compiled from a schema object that is not in TEMP counts as
//! "from the schema" (SQLite's `EP_FromDDL`); a TEMP object was made by
//! the application itself. From the schema, a function registered
//! `SQLITE_DIRECTONLY` is always "unsafe use of f()", and one not
//! registered `SQLITE_INNOCUOUS` is too while `PRAGMA trusted_schema` is
//! off. A virtual table in FROM of a view or trigger body is refused the
//! same way by its `sqlite3_vtab_config` risk (`SQLITE_VTAB_DIRECTONLY`:
//! always; neither that nor `SQLITE_VTAB_INNOCUOUS`: when the schema is
//! not trusted), and so is one a trigger body (TEMP or not) writes.
//!
//! Invariant: `DmlContext::schema_text_db` names the database of the
//! innermost view or trigger whose body is being compiled, and is `None`
//! for the statement's own text; a schema expression (compiled with
//! `Frame::pure_context` or `DmlContext::stored_schema_expr` set, its
//! table's row scope innermost) takes its table's database instead.

use super::Compiler;
use crate::error::{Error, Result};
use crate::vdbe::func::FuncDef;
use crate::vdbe::vtab::VtabConfig;

/// The database number of TEMP.
const TEMP_DB: usize = 1;

impl Compiler<'_> {
    /// Run `f` compiling the text of a schema object of database `db`
    /// (a view or trigger body, a DEFAULT value).
    pub(in crate::sql::codegen) fn with_schema_text<T>(&mut self, db: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved = self.dml.schema_text_db.replace(db);
        let r = f(self);
        self.dml.schema_text_db = saved;
        r
    }

    /// The expression being compiled comes from a non-TEMP schema object.
    pub(in crate::sql::codegen) fn compiling_schema_text(&self) -> bool {
        if self.frame.pure_context != 0 || self.dml.stored_schema_expr {
            // A CHECK, generated column or index expression: the table's
            // row scope is the innermost one (these may hold no subquery).
            return self.names.scopes.last().and_then(|s| s.items.first()).is_none_or(|item| item.db != TEMP_DB);
        }
        self.dml.schema_text_db.is_some_and(|db| db != TEMP_DB)
    }

    /// SQLite's check of a function call met in the schema: "unsafe use
    /// of f()" for a direct-only function, or for one not innocuous while
    /// the schema is not trusted. `name` is spelled as written.
    pub(in crate::sql::codegen) fn check_function_usable(&self, name: &str, def: &FuncDef) -> Result<()> {
        let risky = def.flags.direct_only || !def.flags.innocuous;
        if risky && self.compiling_schema_text() && (def.flags.direct_only || !self.env.settings.trusted_schema) {
            return Err(Error::sql(format!("unsafe use of {name}()")));
        }
        Ok(())
    }

    /// The risk level SQLite gives a virtual table by its configuration:
    /// 0 innocuous, 1 normal, 2 direct-only.
    fn vtab_risk(config: &VtabConfig) -> u8 {
        if config.direct_only {
            2
        } else if config.innocuous {
            0
        } else {
            1
        }
    }

    /// A virtual table read in FROM of a view or trigger body (not TEMP):
    /// refused above the risk the schema's trust allows.
    pub(in crate::sql::codegen) fn check_vtab_read_usable(&self, name: &str, config: &VtabConfig) -> Result<()> {
        if self.dml.schema_text_db.is_some_and(|db| db != TEMP_DB) && Self::vtab_risk(config) > self.env.settings.trusted_schema as u8 {
            return Err(Error::sql(format!("unsafe use of virtual table \"{name}\"")));
        }
        Ok(())
    }

    /// [`Self::check_vtab_read_usable`] for a table-valued PRAGMA, which
    /// SQLite serves from a virtual table configured neither innocuous
    /// nor direct-only.
    pub(in crate::sql::codegen) fn check_builtin_vtab_read(&self, name: &str) -> Result<()> {
        self.check_vtab_read_usable(name, &VtabConfig::default())
    }

    /// A virtual table written by a trigger body (TEMP triggers too):
    /// refused above the risk the schema's trust allows.
    pub(in crate::sql::codegen) fn check_vtab_write_usable(&self, name: &str, config: &VtabConfig) -> Result<()> {
        if !self.dml.firing.is_empty() && Self::vtab_risk(config) > self.env.settings.trusted_schema as u8 {
            return Err(Error::sql(format!("unsafe use of virtual table \"{name}\"")));
        }
        Ok(())
    }
}
