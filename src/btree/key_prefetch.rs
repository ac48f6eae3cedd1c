//! # Prefetch of the descents of keys a statement will seek next
//!
//! A statement that looks up many keys one after another (`x IN (...)`
//! on a rowid: a seek per key of the IN list) pays, on slow storage, one
//! device round trip per page of each descent, in sequence, as SQLite
//! does. When the VM knows the keys it will seek next (the rows of the IN
//! list's ephemeral table after the current one), it asks here for the
//! pages their descents need: each key's descent is followed through the
//! pages already cached, and the first page it lacks is requested
//! ([`crate::pager::Pager::prefetch`]). The next seek that has to wait
//! asks again, one level deeper for every key, so a list of `n` keys
//! costs about the tree's depth in round trips per window of keys instead
//! of `n` times it.
//!
//! Invariants: only requests are submitted (pages enter the cache when a
//! seek fetches them, by the ordinary path; requests never used are
//! forgotten at the end of the read transaction); a page already cached
//! or in flight is not requested again (checked: prefetch_once); nothing
//! here moves a cursor or
//! reports an error (a corrupt page is the seek's to report when it gets
//! there). The VM calls this only after a seek had to wait, so cached data
//! costs no extra reads and synchronous backends (which never wait) never
//! prefetch.

use super::cursor::MAX_DEPTH;
use super::rowid_seek::search_table_page;
use super::{page, Btree, Pgno};

impl Btree {
    /// Request the first page not cached on the descent to `rowid` in the
    /// table tree rooted at `root` (nothing if the whole path is cached).
    pub fn prefetch_rowid(&mut self, root: Pgno, rowid: i64) {
        let usable = self.usable();
        let mut pgno = root;
        for _ in 0..MAX_DEPTH {
            if !self.pager.is_cached(pgno) {
                // (An error is the seek's to report when it gets there.)
                let _ = self.pager.prefetch(pgno);
                return;
            }
            let Ok(data) = self.pager.page(pgno) else {
                self.pager.take_missing();
                return;
            };
            let Ok(h) = page::header(data, pgno) else { return };
            if !h.kind.is_table() || h.kind.is_leaf() {
                return;
            }
            let ptrs = h.offset + h.kind.header_size();
            // The first cell whose key is >= rowid leads to it (the right
            // child when none is), as in `seek_rowid_path`.
            let Ok((lo, _)) = search_table_page(data, ptrs, h.ncells, usable as usize, false, rowid) else { return };
            match page::child(data, &h, lo, usable) {
                Ok(c) if c != pgno => pgno = c,
                _ => return,
            }
        }
    }
}
