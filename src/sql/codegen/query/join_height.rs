//! The height SQLite gives a SELECT's WHERE clause once its join terms
//! are added, checked against `SQLITE_LIMIT_EXPR_DEPTH`.
//!
//! Before names are resolved, SQLite ANDs each ON clause and one equality
//! per USING or NATURAL column onto the WHERE clause, in join order
//! (`sqlite3ProcessJoin`), and every node it builds there is held to the
//! expression-depth limit like one the parser built: an equality of two
//! columns has height 2; with a RIGHT or FULL JOIN in the FROM clause, a
//! column more than one left table has is compared as the coalesce() of
//! all of them (height 3); each AND is one more than the higher of its
//! sides. So `SELECT y FROM a NATURAL JOIN b WHERE y > 0` is too deep
//! under a limit of 2, and any USING join under 1. The failure comes
//! before the result columns are expanded or resolved.
//!
//! Invariant: [`check`] answers as SQLite's `sqlite3ExprAnd` chain would,
//! given the WHERE clause's own height (already within the limit).

use crate::error::{Error, Result};

/// The height of a USING/NATURAL column's equality whose left side is
/// the column of `left_tables` tables (more than one: their coalesce()).
pub fn using_term_height(left_tables: usize) -> usize {
    debug_assert!(left_tables > 0, "a USING column is in a left table");
    if left_tables > 1 {
        3
    } else {
        2
    }
}

/// The height of the WHERE clause (`where_height`, 0 without one) with
/// the join terms of heights `terms` ANDed onto it in order, or SQLite's
/// error when a term or an AND is past `max_depth`.
pub fn check(where_height: usize, terms: &[usize], max_depth: usize) -> Result<usize> {
    let too_deep = || Error::sql(format!("Expression tree is too large (maximum depth {max_depth})"));
    let mut h = where_height;
    for &t in terms {
        if t > max_depth {
            return Err(too_deep());
        }
        h = if h == 0 { t } else { h.max(t) + 1 };
        if h > max_depth {
            return Err(too_deep());
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ands_in_join_order() {
        assert_eq!(check(0, &[2], 2).ok(), Some(2));
        assert!(check(2, &[2], 2).is_err());
        assert_eq!(check(0, &[2, 3], 4).ok(), Some(4));
        assert!(check(0, &[2, 3], 3).is_err());
        assert!(check(0, &[3], 2).is_err());
        assert_eq!(check(5, &[], 5).ok(), Some(5));
    }
}
