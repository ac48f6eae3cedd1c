//! What a compile is given: the connection's schema snapshot, registries,
//! databases, pragma switches and limits, and the hooks back into the
//! connection (virtual tables, a database's file, the interrupt flag).
//!
//! The connection fills one [`CompileEnv`] per prepare
//! (`connection/prepare.rs`) and every statement of it borrows that
//! (`Compiler::env`), instead of the connection copying each fact into the
//! compiler. A codegen function that needs only these facts can take
//! `&CompileEnv` rather than the whole `Compiler`.
//!
//! Invariant: nothing here changes while a statement compiles (state the
//! compile sets aside and restores, such as the authorizer or the rows of
//! a split bulk INSERT, stays on `Compiler`).

use crate::error::Result;
use crate::io::File;
use crate::sql::plan::vtab::BestIndexLender;
use crate::sql::schema::Schema;
use crate::value::collation::Collation;
use crate::vdbe::func::FunctionRegistry;
use crate::vdbe::settings::Settings;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A database's open file by index, asked lazily (see
/// [`CompileEnv::db_file`]).
pub type DbFileLookup<'s> = dyn Fn(usize) -> Option<Arc<dyn File>> + 's;

/// A PRAGMA's notice (`SQLITE_FCNTL_PRAGMA`) sent to its database's file
/// before the compile read the schema, as SQLite sends it while parsing:
/// the database's index and the file's answer ([`File::pragma`]).
pub type EarlyPragma = (usize, Option<Result<Option<String>>>);

/// Everything a compile reads from the connection, fixed for the compile.
#[derive(Clone, Copy)]
pub struct CompileEnv<'s> {
    /// The schema compiled against.
    pub schema: &'s Schema,
    /// Functions.
    pub funcs: &'s FunctionRegistry,
    /// Collations by upper-case name.
    pub collations: &'s HashMap<String, Collation>,
    /// Names given to `create_collation`, first registration first (what
    /// `PRAGMA collation_list` lists before the built-in ones).
    pub collation_order: &'s [String],
    /// Every database of the connection by index (0 main, 1 temp, 2..
    /// attached): (schema name, file name).
    pub databases: &'s [(String, String)],
    /// `PRAGMA database_list` shows temp (it has been used).
    pub temp_listed: bool,
    /// The open file of database `i`, asked about a PRAGMA before ringlite
    /// answers it (SQLite's `SQLITE_FCNTL_PRAGMA`: an application VFS may
    /// answer pragmas of its own).
    pub db_file: Option<&'s DbFileLookup<'s>>,
    /// The notice of the PRAGMA being compiled, when it was sent already
    /// (see [`EarlyPragma`]): not sent again.
    pub early_pragma: Option<&'s EarlyPragma>,
    /// The main database is in memory.
    pub memory_db: bool,
    /// Page size of the main database.
    pub page_size: u32,
    /// The connection itself is compiling (ANALYZE creating sqlite_stat1):
    /// names starting with `sqlite_` may be created.
    pub internal: bool,
    /// Virtual tables are not found by name (`SQLITE_PREPARE_NO_VTAB`:
    /// the statements the extensions run on their shadow tables, so a
    /// trigger there cannot reach back into the table being written).
    pub no_vtab: bool,
    /// Shadow tables may not be written, dropped, altered or given
    /// triggers: `SQLITE_DBCONFIG_DEFENSIVE` is on and the statement is
    /// ordinary SQL, prepared while no statement of the connection runs
    /// (one prepared inside a callback, a virtual table's method or a
    /// function, may: see `shadow_tables.rs`).
    pub shadows_read_only: bool,
    /// The connection's pragma switches when the statement was prepared
    /// (`vdbe/settings.rs`).
    pub settings: Settings,
    /// A pre-update hook was installed when the statement was compiled:
    /// DELETE without WHERE deletes row by row so that the hook hears of
    /// each (SQLite then skips its truncate optimization too).
    pub preupdate_hooked: bool,
    /// `SQLITE_LIMIT_COLUMN`: the widest result set.
    pub max_columns: usize,
    /// `SQLITE_LIMIT_VARIABLE_NUMBER`: the largest parameter number.
    pub max_variable: usize,
    /// `SQLITE_LIMIT_EXPR_DEPTH`, which also bounds views and CTEs
    /// expanded inside one another.
    pub max_expr_depth: usize,
    /// `SQLITE_LIMIT_TRIGGER_STEPS`: the most statements one CREATE
    /// TRIGGER may hold.
    pub max_trigger_steps: usize,
    /// `SQLITE_LIMIT_TRIGGER_DEPTH`: how many trigger bodies (foreign key
    /// actions among them) may be compiled one inside another.
    pub max_trigger_depth: usize,
    /// `SQLITE_LIMIT_LENGTH`: also bounds the statements SQLite formats
    /// for itself while compiling DDL (see `Compiler::nested_write_fits`).
    pub max_length: i64,
    /// The connection's virtual-table modules and connected tables.
    pub vtabs: Option<&'s crate::vdbe::vtab::Catalog>,
    /// Where the compile asks the connection to connect a virtual table
    /// it found unconnected (the connection connects it, lent as host,
    /// and compiles again: see `vtab.rs`).
    pub vtab_connect: Option<&'s std::cell::Cell<Option<super::vtab::ConnectRequest>>>,
    /// The authorizer's answers of the attempts before this one, when a
    /// compile starts again after connecting a virtual table
    /// (`auth::AuthReplay`).
    pub auth_replay: Option<&'s std::cell::RefCell<super::auth::AuthReplay>>,
    /// Calls a module's xBestIndex with the connection being compiled on
    /// lent to it (`None`: called without one; see `plan::vtab::Asked`).
    pub vtab_lender: Option<&'s BestIndexLender<'s>>,
    /// The connection's `sqlite3_interrupt` flag, polled as expressions
    /// are compiled so that an interrupt stops a long prepare (a VALUES
    /// list of a million rows) as SQLite's parser stops at its next token.
    pub interrupt: Option<&'s AtomicBool>,
}

impl<'s> CompileEnv<'s> {
    /// An environment with these registries and SQLite's defaults for the
    /// rest: no connection behind it (no virtual tables, files or
    /// interrupt), default settings and limits. For the compiles the
    /// engine makes for itself (key descriptions, a view checked before a
    /// column is dropped).
    pub fn bare(schema: &'s Schema, funcs: &'s FunctionRegistry, collations: &'s HashMap<String, Collation>, databases: &'s [(String, String)]) -> Self {
        CompileEnv {
            schema,
            funcs,
            collations,
            collation_order: &[],
            databases,
            temp_listed: false,
            db_file: None,
            early_pragma: None,
            memory_db: false,
            page_size: 4096,
            internal: false,
            no_vtab: false,
            shadows_read_only: false,
            settings: Settings::DEFAULT,
            preupdate_hooked: false,
            max_columns: 2000,
            max_variable: 32766,
            max_expr_depth: 1000,
            max_trigger_steps: 65000,
            max_trigger_depth: 1000,
            max_length: 1_000_000_000,
            vtabs: None,
            vtab_connect: None,
            auth_replay: None,
            vtab_lender: None,
            interrupt: None,
        }
    }
}

impl CompileEnv<'_> {
    /// The triggers that fire on `table` (see `Schema::triggers_of`):
    /// with `SQLITE_DBCONFIG_ENABLE_TRIGGER` off, the TEMP ones only.
    pub fn triggers_of(&self, table: &crate::sql::schema::Table) -> Vec<(String, String)> {
        self.schema.triggers_of(table, !self.settings.enable_trigger)
    }
}
