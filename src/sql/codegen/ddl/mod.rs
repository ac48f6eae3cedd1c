//! Schema and database statements: CREATE/DROP (`create_drop.rs`,
//! `create_as.rs` for CREATE TABLE ... AS), ALTER TABLE (`alter.rs`, `alter_auth.rs`,
//! `alter_constraint.rs`, `alter_drop_check.rs`, `alter_rename.rs`),
//! ATTACH/DETACH (`attach.rs`), VACUUM (`vacuum.rs`), REINDEX
//! (`reindex.rs`), transactions (`txn.rs`) and the resolver's checks on
//! a new table's own expressions (`self_ref.rs`).

pub mod alter;
pub(in crate::sql::codegen) mod alter_auth;
pub(in crate::sql::codegen) mod alter_constraint;
pub(in crate::sql::codegen) mod alter_drop_check;
pub(in crate::sql::codegen) mod alter_rename;
pub(in crate::sql::codegen) mod attach;
pub(in crate::sql::codegen) mod create_as;
pub mod create_drop;
pub(in crate::sql::codegen) mod reindex;
pub(in crate::sql::codegen) mod self_ref;
pub mod txn;
pub(in crate::sql::codegen) mod vacuum;
