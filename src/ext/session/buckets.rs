//! # The bucket table that orders changes
//!
//! Sessions and changegroups keep one change per row key in a hash table
//! whose buckets are written out in order, each chain newest first, so
//! the table's shape is part of the output format: it starts with 256
//! buckets when the first entry arrives and doubles when it holds half as
//! many entries as buckets; growing moves each chain, newest first, to the
//! front of its new chain.
//!
//! Invariant: `len` is the number of entries; every entry sits in the chain
//! `hash % buckets.len()` (checked: session_bucket_chains). A chain is stored
//! oldest first (the output walks it backwards).

/// Entries keyed by a 32-bit hash (see `value::key_hash`).
pub struct Buckets<T> {
    chains: Vec<Vec<(u32, T)>>,
    len: usize,
}

impl<T> Default for Buckets<T> {
    fn default() -> Self {
        Buckets { chains: Vec::new(), len: 0 }
    }
}

impl<T> Buckets<T> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry with hash `h` for which `is` holds.
    pub fn find_mut(&mut self, h: u32, is: impl Fn(&T) -> bool) -> Option<&mut T> {
        let n = self.chains.len();
        if n == 0 {
            return None;
        }
        self.chains[h as usize % n].iter_mut().rev().find(|(eh, e)| *eh == h && is(e)).map(|(_, e)| e)
    }

    /// Grow when due: called before each lookup that may add an entry, as
    /// the order of growth and insertion shapes the output.
    pub fn grow_if_due(&mut self) {
        let n = self.chains.len();
        if n != 0 && self.len < n / 2 {
            return;
        }
        let new_n = if n == 0 { 256 } else { n * 2 };
        let mut chains: Vec<Vec<(u32, T)>> = (0..new_n).map(|_| Vec::new()).collect();
        for chain in std::mem::take(&mut self.chains) {
            for (h, e) in chain.into_iter().rev() {
                chains[h as usize % new_n].push((h, e));
            }
        }
        self.chains = chains;
        // (Checked where every entry is moved anyway.)
        // invariant: session_bucket_chains
        debug_assert!(
            self.len == self.chains.iter().map(Vec::len).sum::<usize>()
                && self.chains.iter().enumerate().all(|(i, c)| c.iter().all(|(h, _)| *h as usize % new_n == i)),
            "bucket chains out of step with their count or hashes"
        );
    }

    /// Add an entry at the head of its chain (call [`Self::grow_if_due`]
    /// first).
    pub fn push(&mut self, h: u32, e: T) {
        if self.chains.is_empty() {
            self.grow_if_due();
        }
        let n = self.chains.len();
        self.chains[h as usize % n].push((h, e));
        self.len += 1;
    }

    /// Remove the entry with hash `h` for which `is` holds.
    pub fn remove(&mut self, h: u32, is: impl Fn(&T) -> bool) -> Option<T> {
        let n = self.chains.len();
        if n == 0 {
            return None;
        }
        let chain = &mut self.chains[h as usize % n];
        let i = chain.iter().position(|(eh, e)| *eh == h && is(e))?;
        self.len -= 1;
        Some(chain.remove(i).1)
    }

    /// Entries in output order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chains.iter().flat_map(|c| c.iter().rev().map(|(_, e)| e))
    }

    /// Entries in output order, mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chains.iter_mut().flat_map(|c| c.iter_mut().rev().map(|(_, e)| e))
    }

    /// Drop every entry (the table keeps its size).
    pub fn clear(&mut self) {
        self.chains.iter_mut().for_each(Vec::clear);
        self.len = 0;
    }
}
