//! The connection's switches that change how statements compile (and,
//! for `foreign_keys`, how they run), kept in one place: the pragmas and
//! `sqlite3_db_config` write them in [`ConnState`](super::ConnState), the
//! compiler borrows them for the statement being prepared
//! (`CompileEnv::settings`, `sql/codegen/env.rs`) instead of receiving a
//! copy of each.
//!
//! Invariant: a change to one of them that alters what statements compile
//! to bumps `ConnState::settings_generation`, so programs compiled under
//! the old value are compiled again before they run: a statement about to
//! run under the generation it was compiled in sees the settings it was
//! compiled with (checked: settings_generation_bumped).

/// Pragma and `db_config` switches read when compiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `PRAGMA foreign_keys`: whether foreign key code runs.
    pub foreign_keys: bool,
    /// `PRAGMA writable_schema`: statements compiled while it is on may
    /// write `sqlite_schema` like an ordinary table.
    pub writable_schema: bool,
    /// `PRAGMA count_changes`: INSERT, UPDATE and DELETE prepared while
    /// it is on return one row, the number of rows they changed.
    pub count_changes: bool,
    /// `PRAGMA ignore_check_constraints`: statements prepared while it is
    /// on do not check CHECK constraints.
    pub ignore_check_constraints: bool,
    /// `PRAGMA recursive_triggers`: statements prepared while it is on
    /// compile triggers into programs that may fire themselves.
    pub recursive_triggers: bool,
    /// `PRAGMA legacy_alter_table`: ALTER TABLE RENAME as before SQLite
    /// 3.25 (views and trigger bodies are not edited).
    pub legacy_alter_table: bool,
    /// `PRAGMA full_column_names` (deprecated, still honoured): a result
    /// column that is a plain column reference is named TABLE.COLUMN in
    /// statements prepared while it is on.
    pub full_column_names: bool,
    /// `PRAGMA short_column_names` (deprecated, on by default): with it
    /// and `full_column_names` off, a plain column reference is named by
    /// its source text.
    pub short_column_names: bool,
    /// `PRAGMA case_sensitive_like`: LIKE compares case (its function, and
    /// the prefix bounds a virtual table is offered, are then BINARY).
    pub case_sensitive_like: bool,
    /// `PRAGMA trusted_schema` (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`, on by
    /// default): with it off, a function not registered as
    /// `SQLITE_INNOCUOUS`, or a virtual table not configured as
    /// innocuous, is refused where the schema (a view, trigger, CHECK,
    /// DEFAULT, generated column or index of a non-TEMP object) uses it.
    pub trusted_schema: bool,
    /// `SQLITE_DBCONFIG_DQS_DML` (on by default): in a statement's own
    /// text, a double-quoted name that is no column is a string.
    pub dqs_dml: bool,
    /// `SQLITE_DBCONFIG_DQS_DDL` (on by default): the same in the CHECK
    /// constraints, generated columns and index expressions a CREATE
    /// statement defines (a schema read from the file always may).
    pub dqs_ddl: bool,
    /// `SQLITE_DBCONFIG_DEFENSIVE` (off by default): ordinary SQL may not
    /// deliberately corrupt the database: `PRAGMA writable_schema=ON`,
    /// `journal_mode=OFF` and `schema_version=N` do nothing, and shadow
    /// tables are read-only outside the callbacks of a running statement
    /// (`sql/codegen/shadow_tables.rs`).
    pub defensive: bool,
    /// `SQLITE_DBCONFIG_ENABLE_TRIGGER` (on by default): off, only TEMP
    /// triggers fire.
    pub enable_trigger: bool,
    /// `SQLITE_DBCONFIG_ENABLE_VIEW` (on by default): off, a statement
    /// reading a view that is not TEMP fails.
    pub enable_view: bool,
}

impl Settings {
    /// SQLite's defaults: everything off but `short_column_names`,
    /// `trusted_schema` and the double-quoted strings.
    pub const DEFAULT: Settings = Settings {
        foreign_keys: false,
        writable_schema: false,
        count_changes: false,
        ignore_check_constraints: false,
        recursive_triggers: false,
        legacy_alter_table: false,
        full_column_names: false,
        short_column_names: true,
        case_sensitive_like: false,
        trusted_schema: true,
        dqs_dml: true,
        dqs_ddl: true,
        defensive: false,
        enable_trigger: true,
        enable_view: true,
    };
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::DEFAULT
    }
}
