//! # Integrity check
//!
//! `PRAGMA integrity_check` for the B-tree layer: every tree is walked
//! (overflow chains included) and checked for page type agreement, cell
//! bounds, the page's byte accounting (`page_coverage`), record header
//! sizes, rowid order and bounds from parent dividers, equal leaf depth,
//! and no page used twice; the freelist is walked and its count compared
//! with the header; pages nobody references are reported. In auto_vacuum
//! databases every page's pointer-map entry is checked against the
//! reference that was actually found. Messages use SQLite's wording.
//!
//! Overflow chains are followed to their end as SQLite follows them, and
//! messages about a reference carry the referring cell ("Tree R page P
//! cell I: "). The trees are checked in the order the caller lists them
//! (SQLite's: which tree meets a page used twice first decides where the
//! second reference is reported).
//!
//! Invariant: the check only reads (checked: integrity_reads_only); it loads every page it can reach
//! first through a resumable, lenient [`Walk`] (so it can return `Pending`
//! like anything else), and fetches what that walk could not reach by
//! failing the attempt and starting again.

use super::cell::get_u32;
use super::page;
use super::ptrmap::{BTREE, FREEPAGE, OVERFLOW1, OVERFLOW2, ROOTPAGE};
use super::walk::Walk;
use super::{Btree, Pgno};
use crate::error::Result;
use crate::pager::header::{FREELIST_COUNT, FREELIST_TRUNK};
use crate::{IoPoll, Poll};

/// Header offsets of the largest root page and the incremental-vacuum flag.
const LARGEST_ROOT: usize = 52;
const INCREMENTAL_VACUUM: usize = 64;

/// Where a report about a reference points: the prefix of its message
/// ("Tree R page P cell I: "), formatted only when a report is made.
#[derive(Clone, Copy)]
enum At {
    /// No prefix (the tree roots, the freelist).
    Nowhere,
    /// Cell `cell` of page `pgno` of the tree rooted at `root`.
    Cell { root: Pgno, pgno: Pgno, cell: usize },
    /// The right child of page `pgno` (auto_vacuum databases' naming).
    RightChild { root: Pgno, pgno: Pgno },
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            At::Nowhere => Ok(()),
            At::Cell { root, pgno, cell } => write!(f, "Tree {root} page {pgno} cell {cell}: "),
            At::RightChild { root, pgno } => write!(f, "Tree {root} page {pgno} right child: "),
        }
    }
}

struct Checker {
    errors: Vec<String>,
    max: usize,
    /// References seen to each page, by page number (saturating: only
    /// "none", "one" and "more" matter).
    refs: Vec<u8>,
    /// The database has a pointer map.
    ptrmap: bool,
    /// Payloads are records (an SQL database): check their header size.
    records: bool,
}

impl Checker {
    fn error(&mut self, msg: String) {
        if self.errors.len() < self.max {
            self.errors.push(msg);
        }
    }
    fn reference(&mut self, pgno: Pgno, db_size: Pgno) -> bool {
        self.reference_at(At::Nowhere, pgno, db_size)
    }
    /// Count a reference to `pgno`; a page out of range or referenced
    /// before is reported (after the prefix `at`) and not to be followed.
    fn reference_at(&mut self, at: At, pgno: Pgno, db_size: Pgno) -> bool {
        if pgno < 1 || pgno > db_size {
            self.error(format!("{at}invalid page number {pgno}"));
            return false;
        }
        // (In range: the vector covers every page up to `db_size`.)
        let n = &mut self.refs[pgno as usize];
        *n = n.saturating_add(1);
        if *n > 1 {
            self.error(format!("{at}2nd reference to page {pgno}"));
            return false;
        }
        true
    }
}

impl Btree {
    pub(super) fn check_integrity(&mut self, roots: &[Pgno], max_errors: usize, records: bool) -> IoPoll<Vec<String>> {
        // A first root of 0 marks a partial check (SQLite's, of the trees of
        // one table): see `check_all`.
        let partial = roots.first() == Some(&0);
        let roots = if partial { &roots[1..] } else { roots };
        // Load everything reachable first (the walk passes over what it
        // cannot follow); the checker below reports the damage precisely,
        // fetching any page the walk did not reach.
        // (Roots of 0, views', are passed over, as SQLite does.)
        let trees: Vec<Pgno> = roots.iter().copied().filter(|&r| r != 0).collect();
        let mut walk = match self.walk.take() {
            Some(w) if w.lenient && w.roots == trees && w.seq == self.seq => w,
            _ => Walk::new_lenient(&trees).at(self.seq),
        };
        match walk.run(self) {
            Ok(Poll::Pending) => {
                self.walk = Some(walk);
                return Ok(Poll::Pending);
            }
            Ok(Poll::Ready(())) | Err(_) => {}
        }
        self.walk = None;
        #[cfg(debug_assertions)]
        let seq = self.seq;
        let r = self.run_read(|bt| bt.check_all(roots, max_errors.max(1), records, partial));
        // (`seq` counts the tree's changes.)
        // invariant: integrity_reads_only
        #[cfg(debug_assertions)]
        debug_assert_eq!(self.seq, seq, "an integrity check changed the B-tree");
        r
    }

    /// `partial`: only some trees are listed (`PRAGMA integrity_check(t)`):
    /// as in SQLite, pages they do not reach are not reported, nor the
    /// header's largest root, the roots' pointer-map entries, or the
    /// freelist unless the schema tree (page 1) is listed.
    fn check_all(&self, roots: &[Pgno], max: usize, records: bool, partial: bool) -> Result<Vec<String>> {
        let db_size = self.pager.db_size();
        if db_size == 0 {
            return Ok(Vec::new());
        }
        let mut ck = Checker { errors: Vec::new(), max, refs: vec![0; db_size as usize + 1], ptrmap: self.autovacuum()?, records };
        if records && !partial {
            // The header's largest root page (auto_vacuum) must be the
            // largest tree's root; without auto_vacuum, incremental
            // vacuum cannot be on.
            let p1 = self.pager.page(1)?;
            let (largest, incremental) = (get_u32(p1, LARGEST_ROOT)?, get_u32(p1, INCREMENTAL_VACUUM)?);
            let max_root = roots.iter().copied().max().unwrap_or(0);
            if largest != 0 && max_root != largest {
                ck.error(format!("max rootpage ({max_root}) disagrees with header ({largest})"));
            } else if largest == 0 && incremental != 0 {
                ck.error("incremental_vacuum enabled with a max rootpage of zero".to_string());
            }
        }
        if !partial || roots.first() == Some(&1) {
            self.check_freelist(&mut ck)?;
        }
        for &root in roots {
            if root > 1 && !partial {
                self.check_ptrmap(&mut ck, root, ROOTPAGE, 0)?;
            }
            let mut max_key = i64::MAX;
            self.check_tree_page(&mut ck, root, root, 0, &mut max_key, At::Nowhere)?;
        }
        // Page 1 holds the header even when sqlite_schema is not checked.
        if ck.refs[1] == 0 {
            ck.refs[1] = 1;
        }
        if partial {
            return Ok(ck.errors);
        }
        let pending = self.pager.pending_byte_page();
        for p in 1..=db_size {
            if ck.refs[p as usize] == 0 && p != pending && !(ck.ptrmap && self.is_ptrmap_page(p)) {
                ck.error(format!("Page {p}: never used"));
            }
        }
        Ok(ck.errors)
    }

    fn check_freelist(&self, ck: &mut Checker) -> Result<()> {
        let db_size = self.pager.db_size();
        let p1 = self.pager.page(1)?;
        let mut trunk = get_u32(p1, FREELIST_TRUNK)?;
        let expected = get_u32(p1, FREELIST_COUNT)?;
        let mut seen = 0u32;
        while trunk != 0 {
            if !ck.reference(trunk, db_size) {
                return Ok(());
            }
            self.check_ptrmap(ck, trunk, FREEPAGE, 0)?;
            seen += 1;
            let t = self.pager.page(trunk)?;
            let n = get_u32(t, 4)?;
            if n as usize > self.usable() as usize / 4 - 2 {
                ck.error(format!("freelist leaf count too big on page {trunk}"));
                return Ok(());
            }
            for i in 0..n as usize {
                let leaf = get_u32(t, 8 + 4 * i)?;
                if ck.reference(leaf, db_size) {
                    seen += 1;
                    self.check_ptrmap(ck, leaf, FREEPAGE, 0)?;
                }
            }
            trunk = get_u32(t, 0)?;
        }
        if seen != expected {
            ck.error(format!("Freelist: size is {seen} but should be {expected}"));
        }
        Ok(())
    }

    /// Check the subtree at `pgno`, in SQLite's order: the right child
    /// first, then the cells from last to first (each before its left
    /// child), then the page's byte accounting. Keys of a table tree must
    /// fall below `*max_key` (the first key of a leaf may equal it); on
    /// return `*max_key` is the smallest key seen. `at` prefixes the
    /// messages about the reference to `pgno` itself (the parent's cell).
    /// Returns the subtree's depth (1 for a leaf or a page whose free
    /// space is corrupt, 0 for an interior page none of whose children
    /// could be checked), or `None` when the page itself could not be:
    /// such a child is not compared with its siblings' depth, as in SQLite.
    fn check_tree_page(&self, ck: &mut Checker, root: Pgno, pgno: Pgno, level: usize, max_key: &mut i64, at: At) -> Result<Option<usize>> {
        let db_size = self.pager.db_size();
        if level > super::cursor::MAX_DEPTH {
            ck.error(format!("Tree {root} page {pgno}: tree too deep"));
            return Ok(None);
        }
        // (A child pointer of 0 is passed over without a report of its
        // own, as SQLite does.)
        if pgno == 0 || !ck.reference_at(at, pgno, db_size) {
            return Ok(None);
        }
        let usable = self.usable();
        // A page the loading walk did not reach is fetched now (the
        // attempt fails, the page is read, the check starts again).
        let data = self.pager.page(pgno)?;
        let h = match page::header(data, pgno) {
            Ok(h) => h,
            Err(_) => {
                ck.error(format!("Tree {root} page {pgno}: btreeInitPage() returns error code 11"));
                return Ok(None);
            }
        };
        // Cells out of place are reported (and skipped) where the loop
        // meets them; the byte accounting after the children.
        // (The coverage needs each cell's size only: not the whole parse.)
        let coverage = super::page_coverage::check(data, &h, pgno, usable as usize, |i, _| {
            let off = page::cell_offset(data, &h, i, usable).ok()?;
            super::cell::cell_size(h.kind, &data[off..usable as usize], usable).ok()
        });
        if coverage.free_space_corrupt {
            ck.error(format!("Tree {root} page {pgno}: free space corruption"));
            // SQLite gives such a page the depth of a leaf: its parent
            // reports no depth difference for it beside leaf siblings.
            return Ok(Some(1));
        }
        let mut depth = if h.kind.is_leaf() { Some(0) } else { None };
        let mut key_can_be_equal = h.kind.is_leaf();
        if !h.kind.is_leaf() {
            // SQLite names the right child's reference "right child" in
            // auto_vacuum databases and "cell 0" otherwise.
            let at = if ck.ptrmap { At::RightChild { root, pgno } } else { At::Cell { root, pgno, cell: 0 } };
            self.check_ptrmap(ck, h.right, BTREE, pgno)?;
            depth = self.check_tree_page(ck, root, h.right, level + 1, max_key, at)?;
        }
        for i in (0..h.ncells).rev() {
            // (In auto_vacuum databases SQLite keeps naming the cells of an
            // interior page "right child" after checking that child.)
            let at = if ck.ptrmap && !h.kind.is_leaf() { At::RightChild { root, pgno } } else { At::Cell { root, pgno, cell: i } };
            if let Some((_, msg)) = coverage.cells.iter().find(|(c, _)| *c == i) {
                ck.error(format!("{at}{msg}"));
                continue;
            }
            let Ok((cell, info)) = page::cell_unchecked(data, &h, i, usable) else {
                ck.error(format!("{at}Extends off end of page"));
                continue;
            };
            // A record's header holds at least its own size and one
            // serial type: SQLite reports a shorter one, judging by the
            // first byte alone (a size of 0 or 1 in one byte; the same
            // sizes spelled in two bytes are not reported here).
            if ck.records && (h.kind.is_leaf() || !h.kind.is_table()) && info.local > 0 && cell.get(info.payload_offset).is_some_and(|&first| first <= 1) {
                ck.error(format!("{at}Bad cell header size"));
            }
            if h.kind.is_table() {
                let r = info.rowid;
                if if key_can_be_equal { r > *max_key } else { r >= *max_key } {
                    ck.error(format!("{at}Rowid {r} out of order"));
                }
                *max_key = r;
                key_can_be_equal = false;
            }
            if (info.local as u64) < info.payload_size {
                let expected = (info.payload_size as usize - info.local).div_ceil(usable as usize - 4);
                self.check_overflow_chain(ck, at, info.overflow, pgno, expected)?;
            }
            if !h.kind.is_leaf() {
                self.check_ptrmap(ck, info.left_child, BTREE, pgno)?;
                let child_depth = self.check_tree_page(ck, root, info.left_child, level + 1, max_key, at)?;
                key_can_be_equal = false;
                if let Some(d) = child_depth {
                    if depth.is_some_and(|cur| cur != d) {
                        ck.error(format!("{at}Child page depth differs"));
                    }
                    depth = Some(d);
                }
            }
        }
        for msg in coverage.page {
            ck.error(msg);
        }
        Ok(Some(depth.map_or(0, |d| d + 1)))
    }

    /// Follow the overflow chain starting at `first` (of a cell on page
    /// `owner`) to its end, as SQLite does: past the length the payload
    /// needs if the pointers go on. A page number out of range or seen
    /// before ends it with that report; reaching 0 after another number of
    /// pages than `expected` is reported as the list's length.
    fn check_overflow_chain(&self, ck: &mut Checker, at: At, first: Pgno, owner: Pgno, expected: usize) -> Result<()> {
        let db_size = self.pager.db_size();
        let mut next = first;
        let mut expect = (OVERFLOW1, owner);
        let mut seen = 0usize;
        while next != 0 {
            if !ck.reference_at(at, next, db_size) {
                return Ok(());
            }
            self.check_ptrmap(ck, next, expect.0, expect.1)?;
            seen += 1;
            expect = (OVERFLOW2, next);
            next = get_u32(self.pager.page(next)?, 0)?;
        }
        if seen != expected {
            ck.error(format!("{at}overflow list length is {seen} but should be {expected}"));
        }
        Ok(())
    }

    /// In auto_vacuum databases: `pgno`'s pointer-map entry must be
    /// `(kind, parent)`.
    fn check_ptrmap(&self, ck: &mut Checker, pgno: Pgno, kind: u8, parent: Pgno) -> Result<()> {
        if !ck.ptrmap || pgno < 2 || pgno > self.pager.db_size() || self.is_ptrmap_page(pgno) {
            return Ok(());
        }
        // A map page not in cache yet: fail the attempt so that it is
        // fetched and the check repeated.
        self.pager.page(self.ptrmap_page_of(pgno))?;
        match self.ptrmap_get(pgno) {
            Ok((k, p)) if (k, p) == (kind, parent) => {}
            Ok((k, p)) => ck.error(format!("Bad ptr map entry key={pgno} expected=({kind},{parent}) got=({k},{p})")),
            Err(_) => ck.error(format!("Failed to read ptrmap key={pgno}")),
        }
        Ok(())
    }
}
