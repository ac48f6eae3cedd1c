//! What the join-order search resolves over and over, remembered for the
//! length of one search: the search costs every FROM item against every
//! WHERE term (and each term's equivalences), so a 64-way join resolves
//! the same names thousands of times (select5.test of sqllogictest).
//!
//! Invariant: the memo lives only while `join_order` runs, which parses
//! and compiles nothing: the terms' syntax trees (whose addresses are the
//! keys) and the scopes their names resolve in stay the same throughout,
//! so a remembered answer is what resolving again gives (checked:
//! name_memo_stable).

use crate::sql::resolve::ColumnRef;
use crate::util::fast_hash::FastMap;

/// Resolutions by the address of the expression resolved.
#[derive(Default)]
pub struct NameMemo {
    /// `plain_column`.
    pub plain: FastMap<usize, Option<ColumnRef>>,
    /// `expr_deps`.
    pub deps: FastMap<usize, u64>,
}
