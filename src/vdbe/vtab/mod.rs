//! # Virtual tables: the interface a module implements
//!
//! SQLite's `sqlite3_module` as Rust traits (`vtab.txt`): a [`Module`]
//! creates or connects tables ([`VTab`]), a table answers the planner's
//! question ([`VTab::best_index`] with an [`IndexInfo`]) and opens cursors
//! ([`VTabCursor`]) that the VM drives with `VFilter`, `VNext`, `VColumn`
//! and `VRowid`; writes go through [`VTab::update`] (`VUpdate`), and the
//! transaction methods follow the connection's transaction.
//!
//! The connection keeps the registered modules and the tables connected on
//! it in a [`Registry`] (`registry.rs`); the SQL layer compiles uses of a
//! virtual table against the columns its module declared (`declare.rs`).
//!
//! Invariants: every method that SQLite lets run SQL on the connection
//! (create/connect, filter/next/column/rowid, update, the transaction and
//! savepoint methods, rename, destroy, and `best_index`, which runs while a
//! statement is compiled) receives the connection lent as a [`VmHost`]
//! (see `vdbe::host`). A method never does I/O of the
//! engine's own: SQL a module runs there completes blocking. A table is
//! disconnected (its xDisconnect) when the last reference to it is
//! dropped; [`VTab::destroy`] is its xDestroy (DROP TABLE).

pub mod in_list;
pub mod index_info;
pub mod registry;

pub use index_info::{ConstraintOp, IndexConstraint, IndexInfo, IndexOrderBy};
pub use registry::{Catalog, Registry, VtabInstance};

use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use std::sync::Arc;

/// How a module may be used as a table without `CREATE VIRTUAL TABLE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleKind {
    /// Tables exist only through `CREATE VIRTUAL TABLE` (xCreate and
    /// xConnect differ).
    Regular,
    /// xCreate is xConnect: the module is also a table of its own name.
    Eponymous,
    /// xCreate is NULL: the module is only a table of its own name.
    EponymousOnly,
}

/// What `sqlite3_vtab_config` set while the table was created or connected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VtabConfig {
    /// `SQLITE_VTAB_CONSTRAINT_SUPPORT`: xUpdate honours conflict modes.
    pub constraint_support: bool,
    /// `SQLITE_VTAB_INNOCUOUS`.
    pub innocuous: bool,
    /// `SQLITE_VTAB_DIRECTONLY`: not usable from triggers and views.
    pub direct_only: bool,
    /// `SQLITE_VTAB_USES_ALL_SCHEMAS`.
    pub uses_all_schemas: bool,
}

/// A table a module created or connected: the table and what it declared.
pub struct Connected {
    /// The table.
    pub table: Arc<dyn VTab>,
    /// The `CREATE TABLE` statement it declared (`sqlite3_declare_vtab`).
    pub schema: String,
    /// What it configured.
    pub config: VtabConfig,
}

/// A virtual-table module (`sqlite3_module`).
pub trait Module: Send + Sync {
    /// Eponymous or not (see [`ModuleKind`]).
    fn kind(&self) -> ModuleKind {
        ModuleKind::Regular
    }
    /// xCreate: `args` are SQLite's argv (module name, database name,
    /// table name, then the arguments as written).
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.connect(host, args)
    }
    /// xConnect.
    fn connect(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected>;
    /// xShadowName: whether `<table>_<suffix>` is one of its shadow tables.
    fn shadow_name(&self, _suffix: &str) -> bool {
        false
    }
}

/// The conflict mode of the statement calling [`VTab::update`]
/// (`sqlite3_vtab_on_conflict`: 1 ROLLBACK, 2 IGNORE, 3 FAIL, 4 ABORT,
/// 5 REPLACE, SQLite's numbering).
pub type ConflictMode = i32;
/// `SQLITE_ROLLBACK` as `sqlite3_vtab_on_conflict` answers it.
pub const ON_CONFLICT_ROLLBACK: ConflictMode = 1;
/// `SQLITE_IGNORE`.
pub const ON_CONFLICT_IGNORE: ConflictMode = 2;
/// `SQLITE_FAIL`.
pub const ON_CONFLICT_FAIL: ConflictMode = 3;
/// `SQLITE_ABORT`.
pub const ON_CONFLICT_ABORT: ConflictMode = 4;
/// `SQLITE_REPLACE`.
pub const ON_CONFLICT_REPLACE: ConflictMode = 5;

/// A virtual table (`sqlite3_vtab` and its module's table methods).
pub trait VTab: Send + Sync {
    /// xBestIndex: fill the outputs of `info`. An error with primary code
    /// `SQLITE_CONSTRAINT` rejects this combination of usable constraints
    /// (the planner tries another); any other error fails the prepare.
    /// `host` is the connection being compiled on, lent for the call (SQL
    /// may run on it, as SQLite allows); `None` when the compile has no
    /// connection (a check compiled on its own).
    fn best_index(&self, host: Option<&mut dyn VmHost>, info: &mut IndexInfo) -> Result<()>;
    /// xOpen.
    fn open(&self, host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>>;
    /// xDestroy (DROP TABLE): the table's storage goes away. The table is
    /// not disconnected afterwards.
    fn destroy(&self, _host: &mut dyn VmHost) -> Result<()> {
        Ok(())
    }
    /// Whether the table has xUpdate (else it is read-only).
    fn writable(&self) -> bool {
        false
    }
    /// xUpdate: `args` as SQLite passes them (argv[0] the old rowid or
    /// NULL, argv[1] the new rowid or NULL, then the columns; a single
    /// argument deletes). Returns the rowid of an inserted row when the
    /// module chose it.
    fn update(&self, _host: &mut dyn VmHost, _args: &[Value], _on_conflict: ConflictMode, _nochange: &[bool]) -> Result<Option<i64>> {
        Err(Error::code(crate::error::SQLITE_READONLY))
    }
    /// Whether the table has transaction methods (xBegin is not NULL).
    fn transactional(&self) -> bool {
        false
    }
    /// xBegin.
    fn begin(&self, _host: &mut dyn VmHost) -> Result<()> {
        Ok(())
    }
    /// xSync (first phase of a commit).
    fn sync(&self, _host: &mut dyn VmHost) -> Result<()> {
        Ok(())
    }
    /// xCommit.
    fn commit(&self, _host: &mut dyn VmHost) -> Result<()> {
        Ok(())
    }
    /// xRollback.
    fn rollback(&self, _host: &mut dyn VmHost) -> Result<()> {
        Ok(())
    }
    /// xSavepoint (module version 2).
    fn savepoint(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        Ok(())
    }
    /// xRelease.
    fn release(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        Ok(())
    }
    /// xRollbackTo.
    fn rollback_to(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        Ok(())
    }
    /// Whether ALTER TABLE RENAME may rename it (xRename is not NULL).
    fn can_rename(&self) -> bool {
        false
    }
    /// xRename.
    fn rename(&self, _host: &mut dyn VmHost, _new_name: &str) -> Result<()> {
        Ok(())
    }
    /// xFindFunction: a function overloading `name` with `n_args`
    /// arguments when its first argument is a column of this table, and
    /// the constraint operator it stands for (0, or 150 and up to offer
    /// it to `best_index`).
    fn find_function(&self, _n_args: i32, _name: &str) -> Option<(Arc<crate::vdbe::func::FuncDef>, i32)> {
        None
    }
    /// xIntegrity: a description of a problem, if any.
    fn integrity(&self, _host: &mut dyn VmHost, _schema: &str, _table: &str, _flags: i32) -> Result<Option<String>> {
        Ok(None)
    }
    /// Whether the table has xIntegrity.
    fn has_integrity(&self) -> bool {
        false
    }
}

/// What `VColumn` asks of a cursor.
pub struct ColumnContext {
    /// The column (declaration order; hidden columns included).
    pub column: usize,
    /// `sqlite3_vtab_nochange`: the column is read for an UPDATE that does
    /// not change it; the module may leave the value out (answer NULL).
    pub nochange: bool,
    /// Set by the module when `nochange` and it left the value out: xUpdate
    /// then sees the value as unchanged (`sqlite3_value_nochange`).
    pub left_unchanged: bool,
    /// The result's subtype (`sqlite3_result_subtype`).
    pub subtype: u32,
}

/// A cursor over a virtual table (`sqlite3_vtab_cursor`).
pub trait VTabCursor: Send {
    /// xFilter: start a scan for plan `idx_num`/`idx_str` with the
    /// arguments `best_index` asked for (by argvIndex).
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, idx_str: Option<&str>, args: &[Value]) -> Result<()>;
    /// xNext.
    fn next(&mut self, host: &mut dyn VmHost) -> Result<()>;
    /// xEof.
    fn eof(&mut self) -> bool;
    /// xColumn.
    fn column(&mut self, host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value>;
    /// xRowid.
    fn rowid(&mut self, host: &mut dyn VmHost) -> Result<i64>;
}

/// What `CREATE VIRTUAL TABLE` asks `VCreate` to create.
#[derive(Debug, Clone)]
pub struct CreateSpec {
    /// Database index.
    pub db: usize,
    /// Database name (argv[1]).
    pub db_name: String,
    /// Table name.
    pub name: String,
    /// Module name as written.
    pub module: String,
    /// Module arguments as written.
    pub args: Vec<String>,
    /// The statement as stored in `sqlite_schema`.
    pub sql: String,
}

impl CreateSpec {
    /// xCreate's/xConnect's argv.
    pub fn argv(&self) -> Vec<String> {
        argv(&self.module, &self.db_name, &self.name, &self.args)
    }
}

/// xCreate's/xConnect's argv: module, database and table names, then the
/// module arguments.
pub fn argv(module: &str, db_name: &str, name: &str, args: &[String]) -> Vec<String> {
    let mut v = vec![module.to_string(), db_name.to_string(), name.to_string()];
    v.extend(args.iter().cloned());
    v
}

/// The error of a constructor that failed without a message.
pub fn constructor_failed(name: &str) -> Error {
    Error::sql(format!("vtable constructor failed: {name}"))
}
