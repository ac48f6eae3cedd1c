//! The DML statement being compiled and the triggers it fires: its
//! RETURNING clause, the trigger programs generated inline, the OR
//! clause their bodies follow, and the switches that change what a write
//! checks (a parent table gone, a CHECK read from the schema).
//!
//! Invariant: `firing` is empty for the top-level statement and grows by
//! one per trigger body being compiled inside it (checked:
//! trigger_firing_depth).

use super::target;

/// The DML statement being compiled and the triggers it fires.
#[derive(Default)]
pub struct DmlContext {
    /// RETURNING clause of the DML statement being compiled.
    pub returning: Option<target::Returning>,
    /// Trigger programs being generated inline, innermost last: (trigger
    /// name, label a RAISE(IGNORE) jumps to).
    pub firing: Vec<(String, i32)>,
    /// The OR clause of the statement whose triggers are firing, when it
    /// has one: it overrides the conflict clauses of the statements in
    /// their bodies (lang_createtrigger).
    pub outer_conflict: Option<target::OnConflict>,
    /// DROP TABLE is emptying a child table: a parent table that no longer
    /// exists counts as one without rows instead of failing the statement.
    pub fk_parent_may_be_gone: bool,
    /// Compiling a CHECK constraint or partial index WHERE read from the
    /// schema for a write: SQLite accepted its functions when it loaded
    /// the schema, so one missing now is "unknown function: f()".
    pub stored_schema_expr: bool,
    /// The database of the innermost view or trigger body (or DEFAULT
    /// value) being compiled; `None` for the statement's own text
    /// (`schema_trust.rs`).
    pub schema_text_db: Option<usize>,
}
