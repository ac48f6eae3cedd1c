//! # Merging segments
//!
//! Segments are merged whole: their terms' doclists are combined, the
//! newest entry for a rowid winning (an entry with the delete flag hides
//! the row's entries in older segments). When no older data remains
//! below the output, entries that were only deletes have nothing left
//! to hide and are dropped (an entry with positions keeps its flag, as
//! in SQLite).
//!
//! Invariant: inputs are given newest first.

use super::codec::Terms;

/// Merge `inputs` (newest first). `oldest`: nothing older than the
/// inputs exists.
pub fn merge(inputs: Vec<Terms>, oldest: bool) -> Terms {
    let mut it = inputs.into_iter();
    let mut out = it.next().unwrap_or_default();
    for older in it {
        for (term, dl) in older {
            let o = out.entry(term).or_default();
            for (rowid, e) in dl {
                o.entry(rowid).or_insert(e);
            }
        }
    }
    if oldest {
        // SQLite drops the pure deletes but keeps the flag of an entry
        // that also has positions (observed: an UPDATE's entry merged
        // by 'optimize' still carries it).
        for dl in out.values_mut() {
            dl.retain(|_, e| !e.poslist.is_empty());
        }
        out.retain(|_, dl| !dl.is_empty());
    }
    out
}
