//! Query planning: splitting WHERE into conjuncts (`terms`), finding which
//! FROM items each term needs, choosing for each loop a full scan, a rowid
//! lookup, or an index search (`access`; through equal columns,
//! `equivalence`), or a union of lookups for an
//! OR term (`multi_or`), and the order of the loops of an
//! inner join by estimated cost (`join_order`), and which loop orders
//! serve an ORDER BY, GROUP BY or min()/max() (`order`, `goal`).
//!
//! The planner works on the query model (`sql/model/`: FROM items, join
//! terms, result items) and the schema, and names no code-generation
//! module: what it needs of the compile (how a name resolves, the
//! affinity and collation of an expression, the usable indexes, a few
//! switches) it asks through the trait `facts::PlanFacts`, which
//! `codegen/plan_facts.rs` implements for the `Compiler`. Its entry
//! points are extension traits implemented for every `PlanFacts`
//! (`access::Access`, `goal::Goals`, `join_order::JoinOrder`, ...;
//! `prelude` brings them into scope), so codegen calls them as methods
//! of the compiler, and nothing here emits an instruction.
//!
//! Invariant: a term used to drive a lookup is still evaluated as a filter
//! afterwards, so a plan can only make a query faster, never change its
//! answer.

pub mod access;
pub mod equivalence;
pub mod facts;
pub mod flatten;
pub mod goal;
pub mod join_order;
pub mod like_prefix;
pub mod multi_or;
pub mod name_memo;
pub mod order;
pub mod terms;
pub mod vtab;
pub mod vtab_or;

/// The planner's extension traits (implemented for every
/// [`facts::PlanFacts`]), brought into scope where the compiler calls them
/// as methods: `use crate::sql::plan::prelude::*;`.
pub mod prelude {
    pub use super::access::Access as _;
    pub use super::equivalence::Equivalence as _;
    pub use super::facts::PlanFacts as _;
    pub use super::flatten::Flatten as _;
    pub use super::goal::{ColumnUse as _, Goals as _};
    pub use super::join_order::JoinOrder as _;
    pub use super::multi_or::MultiOr as _;
}
