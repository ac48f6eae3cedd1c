//! # The page cache
//!
//! Pages of one database file, keyed by page number, bounded by
//! `cache_size`. Owns the bytes of every page the pager has read or
//! created; the B-tree reads and writes pages only through it.
//!
//! Invariants:
//! - A dirty page is never evicted: it is the only copy of the change.
//!   A big transaction gets room by spilling (the pager writes dirty pages
//!   to the file after journaling them, and they become clean), never by
//!   dropping dirty pages. A pinned page is never evicted either: the
//!   B-tree pins every page an operation will touch before it modifies
//!   anything, so the modifying phase never needs I/O (checked:
//!   cache_keeps_dirty_pinned).
//! - `dirty_count` is the number of cached pages whose `dirty` flag is
//!   set: pages become dirty or clean only through the cache's methods
//!   (the flag is private), each of which keeps the count, so the spill
//!   check on every write is O(1) (checked: cache_dirty_count).
//! - Pages live in numbered slots; `index` maps each cached page number to
//!   its slot and a free slot has page number 0 (checked:
//!   cache_index_slots). A slot number is a hint a reader may keep
//!   ([`PageCache::get_in_slot`]): it is checked against the page number
//!   on every use, so a stale hint only costs the lookup.
//! - Every cache's page bytes are counted in one process-wide total
//!   ([`held_bytes`], `held` per cache: added on insert, taken off when a
//!   page leaves or the cache is dropped) (checked: cache_held_bytes).
//!
//! How it manages its bound:
//! - The bound is soft: when every page is dirty or pinned the cache grows
//!   past it rather than fail.
//! - Buffers of evicted pages are kept (at most one eviction batch of
//!   them) and handed out by [`PageCache::take_buffer`] for the next
//!   reads, so a cache that cycles pages does not allocate per miss. A
//!   spare buffer's content is stale: only a read that overwrites all of
//!   it (backends zero-fill past end of file) may use it.
//! - Eviction is a clock over the slots (second chance): a page used
//!   since the hand last passed is skipped once, so recently used pages
//!   stay, as with least-recently-used, at O(1) per eviction.
//! - With a budget set ([`set_budget`], `sqlite3_soft_heap_limit64`) a
//!   cache that would take the process-wide total past it recycles one of
//!   its own clean, unpinned pages instead of growing, as SQLite's page
//!   cache does under memory pressure, down to [`BUDGET_FLOOR`] pages (so a
//!   cursor's path stays cached), and keeps no spare buffers. Soft too:
//!   with nothing to recycle the cache grows. A cache whose transaction
//!   ends while the total is past the budget gives back the excess and
//!   what it holds beyond its share ([`PageCache::trim_idle`]): idle
//!   connections' caches then hold the budget, not their floors.

use crate::pager::Pgno;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

/// Page bytes held by every page cache of the process.
static HELD: AtomicUsize = AtomicUsize::new(0);
/// The shared budget of page bytes (0: none).
static BUDGET: AtomicUsize = AtomicUsize::new(0);
/// Caches holding at least one page (the budget's shares are of it).
static HOLDERS: AtomicUsize = AtomicUsize::new(0);

/// Pages a cache keeps under memory pressure: the smallest cache the
/// pager is built for (`cache_size` below 10 means 10), so an operation
/// that reads a few pages in turn (a cursor's path, a cell's overflow
/// chain) finds the first ones still cached.
pub const BUDGET_FLOOR: usize = 10;

/// Bytes of page data cached by every connection of the process.
pub fn held_bytes() -> usize {
    HELD.load(Ordering::Relaxed)
}

/// Share `bytes` of page data among every cache of the process (0: no
/// budget, each cache bounded by its `cache_size` only). Caches over it
/// shrink as they read further, not at once.
pub fn set_budget(bytes: usize) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// The shared budget (0: none).
pub fn budget() -> usize {
    BUDGET.load(Ordering::Relaxed)
}

/// The hard heap limit of the process (0: none); ringlite records it
/// without enforcing it, except as a cap on the soft limit.
static HARD_LIMIT: AtomicI64 = AtomicI64::new(0);

/// `sqlite3_soft_heap_limit64`: set the soft heap limit (the budget of
/// page bytes, 0 none) to `n` unless `n` is negative, capped by the hard
/// limit when one is set; returns the limit before.
pub fn soft_heap_limit64(n: i64) -> i64 {
    let prior = budget() as i64;
    if n < 0 {
        return prior;
    }
    let hard = HARD_LIMIT.load(Ordering::Relaxed);
    let n = if hard > 0 && (n > hard || n == 0) { hard } else { n };
    set_budget(usize::try_from(n).unwrap_or(usize::MAX));
    prior
}

/// `sqlite3_hard_heap_limit64`: set the hard heap limit to `n` unless `n`
/// is negative (lowering the soft limit to it when that is higher or
/// unset); returns the limit before.
pub fn hard_heap_limit64(n: i64) -> i64 {
    let prior = HARD_LIMIT.load(Ordering::Relaxed);
    if n >= 0 {
        HARD_LIMIT.store(n, Ordering::Relaxed);
        let soft = budget() as i64;
        if n < soft || soft == 0 {
            set_budget(usize::try_from(n).unwrap_or(usize::MAX));
        }
    }
    prior
}

/// Whether `more` bytes would take the caches past the budget.
#[inline]
fn over_budget(more: usize) -> bool {
    let b = BUDGET.load(Ordering::Relaxed);
    b != 0 && HELD.load(Ordering::Relaxed) + more > b
}

/// Hasher for page numbers: the cache is probed on every cell access, and
/// SipHash (the std default, built against hash flooding, which page
/// numbers cannot mount) showed up at ~5% of a cached read query's time.
/// A multiplicative (Fibonacci) hash spreads consecutive numbers well.
#[derive(Default)]
pub(super) struct PgnoHasher(u64);

impl Hasher for PgnoHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Hashing of page-number keys, for the cache's index and the pager's
/// maps probed on every page change (`originals`, undo images): SipHash,
/// std's default, cost a few percent of a write.
pub(super) type PgnoBuild = BuildHasherDefault<PgnoHasher>;

/// A map keyed by page number (see [`PgnoBuild`]).
pub(super) type PgnoMap<V> = HashMap<Pgno, V, PgnoBuild>;

/// A set of page numbers (see [`PgnoBuild`]).
pub(super) type PgnoSet = HashSet<Pgno, PgnoBuild>;

/// One cached page.
#[derive(Debug)]
pub struct CachedPage {
    /// The page's bytes (page size long).
    pub data: Vec<u8>,
    /// Modified in the current write transaction (changed only through
    /// the cache, which counts dirty pages).
    dirty: bool,
    /// Used since the eviction clock last passed (its second chance).
    referenced: Cell<bool>,
    /// The page number; 0 while the slot is free.
    pgno: Pgno,
    /// The B-tree layer's count of the page's free bytes, as it last
    /// noted it ([`UNKNOWN_FREE`] when not noted): forgotten whenever the
    /// bytes change (`get_mut_dirty`, `insert`), so a count read back
    /// always describes the bytes as they are (SQLite's `MemPage.nFree`).
    free: Cell<u32>,
}

/// [`CachedPage`]'s free-byte count not noted.
const UNKNOWN_FREE: u32 = u32::MAX;

/// The cache.
#[derive(Debug, Default)]
pub struct PageCache {
    /// Page number to slot.
    index: HashMap<Pgno, u32, PgnoBuild>,
    slots: Vec<CachedPage>,
    /// Free slots.
    free: Vec<u32>,
    pinned: HashSet<Pgno, PgnoBuild>,
    capacity: usize,
    /// The eviction clock's hand: the next slot it looks at.
    hand: usize,
    /// After an eviction pass that found too little to evict (everything
    /// dirty or pinned), do not scan again before the cache grows past
    /// this size: keeps big write transactions from rescanning per page.
    next_scan_at: usize,
    /// Buffers of evicted pages, for reuse by the next reads.
    spare: Vec<Vec<u8>>,
    /// Cached pages with `dirty` set.
    dirty_count: usize,
    /// Bytes of the cached pages' data, counted in [`HELD`].
    held: usize,
}

impl Drop for PageCache {
    fn drop(&mut self) {
        HELD.fetch_sub(self.held, Ordering::Relaxed);
        if self.held > 0 {
            HOLDERS.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl CachedPage {
    /// Modified in the current write transaction.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The free-byte count noted for these bytes, if any.
    #[inline]
    pub fn free_bytes(&self) -> Option<usize> {
        let v = self.free.get();
        (v != UNKNOWN_FREE).then_some(v as usize)
    }

    /// Note the page's free-byte count (valid until its bytes change).
    #[inline]
    pub fn note_free_bytes(&self, free: usize) {
        self.free.set(u32::try_from(free).unwrap_or(UNKNOWN_FREE));
    }
}

impl PageCache {
    /// A cache holding about `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        let mut c = PageCache::default();
        c.capacity = capacity.max(10);
        c
    }

    /// Change the bound (evicts at the next insertion).
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(10);
    }

    /// The bound in pages.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    #[inline]
    fn touch(&self, p: &CachedPage) {
        p.referenced.set(true);
    }

    /// Whether `pgno` is cached.
    pub fn contains(&self, pgno: Pgno) -> bool {
        self.index.contains_key(&pgno)
    }

    /// The page, if cached.
    #[inline]
    pub fn get(&self, pgno: Pgno) -> Option<&CachedPage> {
        let p = &self.slots[*self.index.get(&pgno)? as usize];
        self.touch(p);
        Some(p)
    }

    /// The page `pgno` if cached, without marking it referenced (for
    /// debug checks, which must not change what is evicted).
    pub fn peek(&self, pgno: Pgno) -> Option<&CachedPage> {
        Some(&self.slots[*self.index.get(&pgno)? as usize])
    }

    /// The slot holding `pgno`, if cached (a hint for [`PageCache::get_in_slot`]).
    #[inline]
    pub fn slot_of(&self, pgno: Pgno) -> Option<u32> {
        self.index.get(&pgno).copied()
    }

    /// The page `pgno` if it is in slot `slot` (without the index lookup).
    #[inline]
    pub fn get_in_slot(&self, slot: u32, pgno: Pgno) -> Option<&CachedPage> {
        let p = self.slots.get(slot as usize).filter(|p| p.pgno == pgno && pgno != 0)?;
        self.touch(p);
        Some(p)
    }

    /// The page's bytes for modification, marking it dirty, if cached.
    #[inline]
    pub fn get_mut_dirty(&mut self, pgno: Pgno) -> Option<&mut Vec<u8>> {
        let slot = *self.index.get(&pgno)? as usize;
        let p = &mut self.slots[slot];
        p.referenced.set(true);
        p.free.set(UNKNOWN_FREE);
        if !p.dirty {
            p.dirty = true;
            self.dirty_count += 1;
        }
        Some(&mut p.data)
    }

    /// Install a page (replacing any cached copy), evicting clean unpinned
    /// pages first if the cache is full.
    pub fn insert(&mut self, pgno: Pgno, data: Vec<u8>, dirty: bool) {
        if let Some(&slot) = self.index.get(&pgno) {
            let p = &mut self.slots[slot as usize];
            let old = std::mem::replace(&mut p.data, data);
            let was_dirty = std::mem::replace(&mut p.dirty, dirty);
            p.free.set(UNKNOWN_FREE);
            let new_len = p.data.len();
            self.dirty_count = self.dirty_count + usize::from(dirty) - usize::from(was_dirty);
            self.slots[slot as usize].referenced.set(true);
            self.charge(new_len, old.len());
            self.keep_spare(old);
            return;
        }
        if self.index.len() >= self.capacity.max(self.next_scan_at) {
            self.evict(self.capacity);
        } else if self.index.len() >= BUDGET_FLOOR && over_budget(data.len()) && self.index.len() > self.dirty_count + self.pinned.len() {
            // Under memory pressure: recycle one of this cache's own
            // pages rather than grow (only when one may be clean and
            // unpinned, so a big write transaction does not rescan).
            self.evict(self.index.len());
        }
        self.charge(data.len(), 0);
        let page = CachedPage { data, dirty, referenced: Cell::new(true), pgno, free: Cell::new(UNKNOWN_FREE) };
        self.dirty_count += usize::from(dirty);
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = page;
                slot
            }
            None => {
                self.slots.push(page);
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(pgno, slot);
    }

    /// A buffer of `len` bytes for a read that overwrites all of it: an
    /// evicted page's buffer when one of that size is spare (its bytes
    /// are stale, not zero), else a fresh one.
    pub fn take_buffer(&mut self, len: usize) -> Vec<u8> {
        while let Some(buf) = self.spare.pop() {
            if buf.len() == len {
                return buf;
            }
        }
        vec![0; len]
    }

    /// Count `added` bytes of page data in and `removed` out.
    #[inline]
    fn charge(&mut self, added: usize, removed: usize) {
        // invariant: cache_held_bytes
        debug_assert!(self.held + added >= removed, "a cache gave back bytes it did not hold");
        let was = self.held;
        self.held = self.held + added - removed;
        if (was == 0) != (self.held == 0) {
            if was == 0 {
                HOLDERS.fetch_add(1, Ordering::Relaxed);
            } else {
                HOLDERS.fetch_sub(1, Ordering::Relaxed);
            }
        }
        if added >= removed {
            HELD.fetch_add(added - removed, Ordering::Relaxed);
        } else {
            HELD.fetch_sub(removed - added, Ordering::Relaxed);
        }
    }

    fn keep_spare(&mut self, buf: Vec<u8>) {
        // One eviction batch is enough: the next misses take them back
        // (none under memory pressure: the buffer goes back to the heap).
        if self.spare.len() <= self.capacity / 8 && !over_budget(0) {
            self.spare.push(buf);
        }
    }

    /// Empty slot `slot` (which holds a page), returning its bytes.
    fn free_slot(&mut self, slot: u32) -> Vec<u8> {
        let p = &mut self.slots[slot as usize];
        self.index.remove(&p.pgno);
        p.pgno = 0;
        self.dirty_count -= usize::from(p.dirty);
        p.dirty = false;
        self.free.push(slot);
        let data = std::mem::take(&mut p.data);
        self.charge(0, data.len());
        data
    }

    /// `sqlite3_db_release_memory`: drop every clean, unpinned page and
    /// the spare buffers, and give back the slot and index memory they
    /// held. Dirty and pinned pages stay (as eviction would keep them).
    /// Returns the bytes of page data freed.
    pub fn release_unused(&mut self) -> usize {
        let mut freed: usize = self.spare.drain(..).map(|b| b.len()).sum();
        for slot in 0..self.slots.len() {
            let p = &self.slots[slot];
            if p.pgno == 0 || p.dirty || self.pinned.contains(&p.pgno) {
                continue;
            }
            freed += self.free_slot(slot as u32).len();
        }
        // Trailing free slots go; slots below a kept page stay (slot
        // numbers are hints readers keep, checked on use).
        while self.slots.last().is_some_and(|p| p.pgno == 0) {
            self.slots.pop();
        }
        let n = self.slots.len() as u32;
        self.free.retain(|&s| s < n);
        self.slots.shrink_to_fit();
        self.free.shrink_to_fit();
        self.index.shrink_to_fit();
        self.spare.shrink_to_fit();
        if self.hand >= self.slots.len() {
            self.hand = 0;
        }
        self.next_scan_at = 0;
        // invariant: cache_index_slots
        debug_assert_eq!(self.index.len(), self.slots.iter().filter(|p| p.pgno != 0).count());
        freed
    }

    /// A transaction ended and the cache goes idle: under memory pressure
    /// (a budget set and every cache together past it) give back, from
    /// the clean unpinned pages, what takes the total past the budget,
    /// and at least what this cache holds beyond its share of the budget
    /// (the budget over the caches holding pages). Recycling on insert
    /// keeps a busy cache within the budget but leaves it at least
    /// [`BUDGET_FLOOR`] pages, and an idle connection never inserts: with
    /// thousands of tenants their floors alone were several times the
    /// budget (bench/RESULTS.md, "Memory per idle tenant"). Spare buffers
    /// go too (they are not counted in [`held_bytes`]).
    pub fn trim_idle(&mut self, page_size: usize) {
        let b = BUDGET.load(Ordering::Relaxed);
        let all = HELD.load(Ordering::Relaxed);
        if b == 0 || all <= b || self.index.is_empty() || page_size == 0 {
            return;
        }
        let excess = (all - b).div_ceil(page_size);
        let share = b / HOLDERS.load(Ordering::Relaxed).max(1) / page_size;
        let keep = self.index.len().saturating_sub(excess).min(share);
        if keep < self.index.len() {
            self.evict(keep + 1);
        }
        self.spare = Vec::new();
    }

    /// Make room for one page within `bound` pages: the clock's hand
    /// sweeps the slots, giving each recently used page a second chance
    /// (clearing its mark) and evicting the first clean, unpinned,
    /// unmarked ones (an approximation of least-recently-used at O(1) per
    /// eviction).
    fn evict(&mut self, bound: usize) {
        let n = self.slots.len();
        if self.hand >= n {
            self.hand = 0;
        }
        let excess = (self.index.len() + 1).saturating_sub(bound);
        let mut evicted = 0;
        // Two turns: the first may only clear marks.
        for _ in 0..2 * n {
            if evicted >= excess {
                break;
            }
            let slot = self.hand;
            self.hand = if slot + 1 >= n { 0 } else { slot + 1 };
            let p = &self.slots[slot];
            if p.pgno == 0 || p.dirty || self.pinned.contains(&p.pgno) {
                continue;
            }
            if p.referenced.replace(false) {
                continue;
            }
            // invariant: cache_keeps_dirty_pinned
            debug_assert!(!p.dirty && !self.pinned.contains(&p.pgno), "evicting page {}, dirty or pinned", p.pgno);
            let old = self.free_slot(slot as u32);
            self.keep_spare(old);
            evicted += 1;
        }
        self.next_scan_at = if self.index.len() >= self.capacity { self.index.len() + self.capacity / 8 + 1 } else { 0 };
    }

    /// Keep `pgno` in cache until [`PageCache::unpin_all`].
    pub fn pin(&mut self, pgno: Pgno) {
        self.pinned.insert(pgno);
    }

    /// Release every pin.
    pub fn unpin_all(&mut self) {
        self.pinned.clear();
    }

    /// Remove one page.
    pub fn remove(&mut self, pgno: Pgno) {
        if let Some(&slot) = self.index.get(&pgno) {
            self.free_slot(slot);
        }
    }

    /// Empty every slot for which `drop` holds.
    fn drop_where(&mut self, drop: impl Fn(&CachedPage) -> bool) {
        for slot in 0..self.slots.len() {
            let p = &self.slots[slot];
            if p.pgno != 0 && drop(p) {
                self.free_slot(slot as u32);
            }
        }
    }

    /// Forget every page (another connection changed the file).
    pub fn clear(&mut self) {
        let held = self.held;
        self.charge(0, held);
        self.next_scan_at = 0;
        self.index.clear();
        self.slots.clear();
        self.free.clear();
        self.pinned.clear();
        self.spare.clear();
        self.dirty_count = 0;
    }

    /// Drop every dirty page (rollback: the file still has the originals).
    pub fn discard_dirty(&mut self) {
        self.next_scan_at = 0;
        self.drop_where(|p| p.dirty);
        debug_assert_eq!(self.dirty_count, 0);
        self.dirty_count = 0;
    }

    /// Drop pages numbered above `db_size`.
    pub fn truncate(&mut self, db_size: Pgno) {
        self.drop_where(|p| p.pgno > db_size);
    }

    /// Page numbers of dirty pages, ascending.
    pub fn dirty_pages(&self) -> Vec<Pgno> {
        let mut v: Vec<Pgno> = self.slots.iter().filter(|p| p.pgno != 0 && p.dirty).map(|p| p.pgno).collect();
        v.sort_unstable();
        v
    }

    /// `n` dirty pages that are not pinned (all of them when fewer), the
    /// least recently used first as the clock sees them, in ascending page
    /// order: what a cache spill writes, so that the pages in use stay
    /// dirty in memory and are not written again and again (as SQLite
    /// spills its least recently used dirty pages). Pages not referenced
    /// since the last sweep are taken first, in the order the clock's hand
    /// meets them; then referenced ones. This is a sweep over the dirty
    /// pages (the eviction clock passes them by): every dirty page it sees
    /// loses its mark, so the next spill takes first the pages not used
    /// since this one.
    pub fn coldest_dirty_pages(&self, n: usize) -> Vec<Pgno> {
        let len = self.slots.len();
        let start = if self.hand < len { self.hand } else { 0 };
        let mut cold = Vec::new();
        let mut warm = Vec::new();
        for k in 0..len {
            let p = &self.slots[(start + k) % len];
            if p.pgno == 0 || !p.dirty || self.pinned.contains(&p.pgno) {
                continue;
            }
            if p.referenced.replace(false) {
                warm.push(p.pgno);
            } else {
                cold.push(p.pgno);
            }
        }
        cold.extend(warm);
        cold.truncate(n);
        cold.sort_unstable();
        cold
    }

    /// Mark one page clean (its current image is now in the file).
    pub fn mark_clean(&mut self, pgno: Pgno) {
        if let Some(&slot) = self.index.get(&pgno) {
            let p = &mut self.slots[slot as usize];
            if p.dirty {
                p.dirty = false;
                self.dirty_count -= 1;
            }
        }
        self.next_scan_at = 0;
    }

    /// Number of dirty pages.
    pub fn dirty_count(&self) -> usize {
        // invariant: cache_dirty_count
        debug_assert_eq!(self.dirty_count, self.slots.iter().filter(|p| p.pgno != 0 && p.dirty).count());
        self.dirty_count
    }

    /// Mark every page clean (after commit).
    pub fn mark_all_clean(&mut self) {
        self.next_scan_at = 0;
        for p in self.slots.iter_mut() {
            p.dirty = false;
        }
        self.dirty_count = 0;
    }

    /// Pages cached.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Approximate heap bytes held: page data (spare buffers included),
    /// slots and the page-number index (`SQLITE_DBSTATUS_CACHE_USED`).
    pub fn mem_used(&self) -> usize {
        use std::mem::size_of;
        self.held
            + self.slots.capacity() * size_of::<CachedPage>()
            + self.index.capacity() * (size_of::<(Pgno, u32)>() + 1)
            + self.free.capacity() * size_of::<u32>()
            + self.spare.capacity() * size_of::<Vec<u8>>()
            + self.pinned.capacity() * (size_of::<Pgno>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_spares_dirty_and_pinned_pages() {
        let mut c = PageCache::new(10);
        c.insert(1, vec![1], true);
        c.insert(2, vec![2], false);
        c.pin(2);
        for p in 3..40 {
            c.insert(p, vec![0], false);
        }
        assert!(c.len() <= 11);
        assert!(c.contains(1), "dirty pages stay");
        assert!(c.contains(2), "pinned pages stay");
        c.unpin_all();
        c.discard_dirty();
        assert!(!c.contains(1));
        assert_eq!(c.dirty_pages(), Vec::<Pgno>::new());
    }

    #[test]
    fn release_unused_keeps_only_dirty_and_pinned_pages() {
        let mut c = PageCache::new(10);
        for p in 1..=8 {
            c.insert(p, vec![p as u8; 16], p == 3);
        }
        c.pin(5);
        let freed = c.release_unused();
        assert_eq!(freed, 6 * 16);
        assert_eq!(c.len(), 2);
        assert!(c.contains(3) && c.contains(5));
        assert_eq!(c.get(3).map(|p| p.data[0]), Some(3));
        assert_eq!(c.dirty_count(), 1);
        // The cache works on after it: new pages, eviction, lookups.
        for p in 10..40 {
            c.insert(p, vec![0; 16], false);
        }
        assert!(c.len() <= 11 && c.contains(3) && c.contains(5));
    }

    #[test]
    fn dirty_count_follows_every_change() {
        let mut c = PageCache::new(10);
        c.insert(1, vec![1], true);
        c.insert(2, vec![2], false);
        c.insert(3, vec![3], true);
        assert_eq!(c.dirty_count(), 2);
        c.insert(1, vec![1], false);
        assert_eq!(c.dirty_count(), 1);
        c.get_mut_dirty(2);
        c.get_mut_dirty(2);
        assert_eq!(c.dirty_count(), 2);
        c.mark_clean(2);
        c.mark_clean(2);
        assert_eq!(c.dirty_count(), 1);
        c.insert(4, vec![4], true);
        c.truncate(3);
        assert_eq!(c.dirty_count(), 1);
        c.remove(3);
        assert_eq!(c.dirty_count(), 0);
        c.insert(5, vec![5], true);
        c.mark_all_clean();
        assert_eq!(c.dirty_count(), 0);
        c.insert(6, vec![6], true);
        c.discard_dirty();
        assert_eq!(c.dirty_count(), 0);
        c.insert(7, vec![7], true);
        c.clear();
        assert_eq!(c.dirty_count(), 0);
    }

    #[test]
    fn coldest_dirty_pages_are_the_least_recently_used() {
        let mut c = PageCache::new(100);
        for p in 1..=8 {
            c.insert(p, vec![0], p % 2 == 0);
        }
        // All just used: taken in clock order; the sweep clears the marks.
        assert_eq!(c.coldest_dirty_pages(10), vec![2, 4, 6, 8]);
        // Pages 2 and 4 used again: 6 and 8 are now the coldest dirty ones.
        c.get(2);
        c.get_mut_dirty(4);
        assert_eq!(c.coldest_dirty_pages(2), vec![6, 8]);
        // 6 and 8 not used since, 6 pinned: 8 first, then the clock's
        // next dirty page.
        c.get(2);
        c.get_mut_dirty(4);
        c.pin(6);
        assert_eq!(c.coldest_dirty_pages(2), vec![2, 8]);
        assert_eq!(c.coldest_dirty_pages(10), vec![2, 4, 8]);
        // Clean pages are never taken.
        c.mark_clean(8);
        assert_eq!(c.coldest_dirty_pages(10), vec![2, 4]);
    }

    #[test]
    fn evicted_buffers_are_reused_for_their_size_only() {
        let mut c = PageCache::new(10);
        for p in 1..=11 {
            c.insert(p, vec![p as u8; 4], false);
        }
        let reused = c.take_buffer(4);
        assert_eq!(reused.len(), 4);
        assert_ne!(reused, vec![0; 4], "an evicted page's buffer, stale bytes and all");
        // A different size (page size changed) never gets a spare buffer.
        assert_eq!(c.take_buffer(8), vec![0; 8]);
        c.clear();
        assert_eq!(c.take_buffer(4), vec![0; 4]);
    }
}
