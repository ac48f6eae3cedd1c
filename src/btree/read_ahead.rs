//! # Read-ahead of sibling leaves on forward scans
//!
//! On slow storage a scan that reads one page, then the next, pays one
//! device round trip per page in sequence (SQLite's scans always do). An
//! async pager can have several reads in flight: when a forward move
//! (`Cursor::next`) stops because the next leaf is not cached, the leaves
//! after it under the same parent are requested too, so they arrive
//! while the scan works through the one it waits for.
//!
//! How much: a window per cursor, 2 leaves at the first miss and doubling
//! at each further miss of the scan up to [`MAX_WINDOW`], as operating
//! systems size file read-ahead: a scan stopped early (a `LIMIT`) has
//! requested at most about as many pages as it used (and never more than
//! the window beyond its last), a long one keeps 32 reads in flight.
//!
//! Invariants: nothing is read ahead unless a move already had to wait for
//! a page (cached data: no extra reads; synchronous backends never wait,
//! so never read ahead); read-ahead only submits requests
//! ([`crate::pager::Pager::prefetch`]): the pages enter the cache when a
//! move fetches them, by the ordinary path, and requests not used by the
//! end of the read transaction are forgotten.

use super::balance::Level;
use super::{page, Btree, Pgno};

/// Most leaves a cursor keeps requested ahead.
pub const MAX_WINDOW: u32 = 32;

/// `path` is the position a forward move left from, which stopped for a
/// missing page; request the leaves after the next one under the leaf's
/// parent. `window` is the cursor's current window (grown here), `done_for`
/// the next leaf of the last call: the same move retried while its page is
/// still in flight (an async statement stepped after other completions)
/// requests nothing more.
pub(super) fn after_miss(bt: &mut Btree, path: &[Level], window: &mut u32, done_for: &mut Pgno) {
    let (Some(leaf), Some(parent)) = (path.last(), path.len().checked_sub(2).map(|i| path[i])) else { return };
    let usable = bt.usable();
    let kids = {
        let (Ok(leaf_data), Ok(data)) = (bt.pager.page(leaf.pgno), bt.pager.page(parent.pgno)) else {
            bt.pager.take_missing();
            return;
        };
        let (Ok(lh), Ok(h)) = (page::header(leaf_data, leaf.pgno), page::header(data, parent.pgno)) else { return };
        // (A path ending on an interior entry of an index is not leaving
        // a leaf: its next leaf is not a sibling.)
        if !lh.kind.is_leaf() || h.kind.is_leaf() || parent.idx >= h.ncells {
            return;
        }
        let Ok(next) = page::child(data, &h, parent.idx + 1, usable) else { return };
        if *done_for == next {
            return;
        }
        *done_for = next;
        *window = (*window * 2).clamp(2, MAX_WINDOW);
        let last = (parent.idx + 1 + *window as usize).min(h.ncells);
        (parent.idx + 2..=last).filter_map(|i| page::child(data, &h, i, usable).ok()).collect::<Vec<_>>()
    };
    for k in kids {
        // An error here (a corrupt child number) is the move's to report
        // when it gets there.
        let _ = bt.pager.prefetch(k);
    }
}
