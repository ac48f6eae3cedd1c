//! What an fts3/fts4 table shares with its cursors ([`Inner`]: the
//! definition and the pending terms; the plan `best_index` hands `filter`
//! in idxNum), and what a cursor shares with the auxiliary functions
//! ([`Share`]: the table, the query being run, the current row), found by
//! the token the hidden column carries in a process-wide registry.
//!
//! Invariant: tokens are never reused while their cursor lives: a token
//! still registered is skipped (checked: fts3_token_unique).

use super::config::Config;
use super::eval::Run;
use super::expr::Expr;
use super::pending::Pending;
use crate::connection::Connection;
use crate::error::Result;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// What a table and its cursors share.
pub struct Inner {
    /// The definition.
    pub cfg: Config,
    /// The pending terms.
    pub pending: Mutex<Pending>,
}

/// idxNum: a full scan.
pub const IDX_SCAN: i32 = 0;
/// idxNum: a docid lookup.
pub const IDX_DOCID: i32 = 1;
/// idxNum: full-text search on column `idxNum - 2` (the table's own
/// column: all columns).
pub const IDX_FULLTEXT: i32 = 2;
/// Bit: a language id argument follows.
pub const HAVE_LANGID: i32 = 0x10000;
/// Bit: a lower docid bound follows.
pub const HAVE_GE: i32 = 0x20000;
/// Bit: an upper docid bound follows.
pub const HAVE_LE: i32 = 0x40000;

/// What the auxiliary functions see of a cursor.
pub struct Share {
    /// The table.
    pub inner: Arc<Inner>,
    /// The full-text query being run, if any.
    pub run: Option<Arc<Run>>,
    /// The current docid.
    pub docid: i64,
    /// The current row's column values, once read.
    pub row: Option<Vec<Value>>,
    /// The language of the query.
    pub langid: i64,
}

/// Tokens carry this in their high bits, keeping clear of small
/// subtypes other code uses (JSON's 74).
pub(super) const TAG: u32 = 0x4654_0000;

/// The open cursors' shares by token.
pub(super) fn registry() -> &'static Mutex<HashMap<u32, Weak<Mutex<Share>>>> {
    static R: OnceLock<Mutex<HashMap<u32, Weak<Mutex<Share>>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Register a cursor's share; returns its token.
pub fn register_cursor(share: &Arc<Mutex<Share>>) -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let t = TAG | (NEXT.fetch_add(1, Ordering::Relaxed) & 0xffff);
        // invariant: fts3_token_unique
        if t != TAG && !r.contains_key(&t) {
            r.insert(t, Arc::downgrade(share));
            return t;
        }
    }
}

/// Forget a cursor.
pub fn unregister_cursor(token: u32) {
    registry().lock().unwrap_or_else(|e| e.into_inner()).remove(&token);
}

/// The current row's values, read if needed.
pub fn row_values(c: &mut Connection, s: &mut Share) -> Result<Vec<Value>> {
    if let Some(r) = &s.row {
        return Ok(r.clone());
    }
    let r = s.inner.content_row(c, s.docid)?.map(|x| x.0).unwrap_or_else(|| vec![Value::Null; s.inner.cfg.columns.len()]);
    s.row = Some(r.clone());
    Ok(r)
}

/// Phrases that can match (not on the right of a NOT), in order.
pub fn matchable(run: &Run) -> Vec<usize> {
    fn walk(e: &Expr, neg: bool, out: &mut Vec<(usize, bool)>) {
        match e {
            Expr::Phrase(p) => out.push((*p, neg)),
            Expr::Near(ps, _) => out.extend(ps.iter().map(|p| (*p, neg))),
            Expr::And(a, b) | Expr::Or(a, b) => {
                walk(a, neg, out);
                walk(b, neg, out);
            }
            Expr::Not(a, b) => {
                walk(a, neg, out);
                walk(b, true, out);
            }
        }
    }
    let mut v = Vec::new();
    if let Some(r) = &run.query.root {
        walk(r, false, &mut v);
    }
    crate::util::cold_sort::sort(&mut v);
    v.into_iter().filter(|(_, n)| !n).map(|(p, _)| p).collect()
}
