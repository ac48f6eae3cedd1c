//! # The query model
//!
//! The resolved shape of a query that both the planner (`sql/plan/`) and
//! code generation (`sql/codegen/`) work on: the FROM items once opened
//! with their join terms ([`from`]), the result columns after `*`
//! expansion, the way rows leave the innermost loop and where a SELECT's
//! rows go ([`query`]).
//!
//! Invariant: this module depends on neither `plan/` nor `codegen/` (only
//! on the schema, name resolution and the VDBE's vocabulary), so that both
//! can use it without depending on each other.

pub mod expr_shape;
pub mod from;
pub mod query;
