//! Data changes: INSERT (`insert.rs`, `insert_xfer.rs`, `upsert.rs`),
//! UPDATE (`update.rs`, `assign.rs` for SET lists, `onepass.rs`), DELETE
//! (`delete.rs`), what they share (`dml_common.rs`: opening the target,
//! index keys, constraint checks; `generated.rs`, `without_rowid.rs`,
//! `returning.rs`), foreign keys (`fkey.rs`, `fkey_check_fn.rs`),
//! triggers (`trigger.rs`, `trigger_program.rs`, `instead.rs` for
//! INSTEAD OF triggers on views) and virtual-table writes
//! (`vtab_dml.rs`).
//!
//! A trigger body holds INSERT, UPDATE and DELETE statements and those
//! statements fire triggers: the files of this family call each other
//! (through `Compiler` methods); they reach queries only by compiling a
//! SELECT (`compile_select`, `compile_dml_where`) and share the written
//! table's vocabulary through `codegen/target.rs`.

pub mod assign;
pub mod delete;
pub mod dml_common;
pub mod fkey;
pub(in crate::sql::codegen) mod fkey_check_fn;
pub mod generated;
pub mod insert;
pub(in crate::sql::codegen) mod insert_xfer;
pub mod instead;
pub(in crate::sql::codegen) mod limit_where;
pub(in crate::sql::codegen) mod onepass;
pub mod returning;
pub mod trigger;
pub(in crate::sql::codegen) mod trigger_program;
pub mod update;
pub(in crate::sql::codegen) mod upsert;
pub(in crate::sql::codegen) mod vtab_dml;
pub mod without_rowid;
