//! # Resumable whole-tree walks
//!
//! Visits every page of one or more trees (optionally their overflow
//! pages too), fetching missing pages and returning `Pending` without
//! losing its place: the work list lives in the [`Walk`]. Used to count
//! entries, to collect the pages of a tree being dropped or cleared, and
//! to load everything an integrity check reads.
//!
//! Invariant: a page is visited once; meeting it again is a loop or a
//! double reference, reported as `SQLITE_CORRUPT` (checked: walk_once).

use super::cell::get_u32;
use super::page;
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::{IoPoll, Poll};
use std::collections::HashSet;

#[derive(Debug, Clone, Copy)]
enum Item {
    Tree(Pgno),
    Overflow { pgno: Pgno, left: usize },
}

/// A walk in progress.
#[derive(Debug, Clone)]
pub struct Walk {
    /// The roots walked.
    pub roots: Vec<Pgno>,
    queue: Vec<Item>,
    visited: HashSet<Pgno>,
    /// Pages visited, in visiting order.
    pub pages: Vec<Pgno>,
    /// Entries seen (leaf cells, plus interior cells of index trees).
    pub entries: u64,
    with_overflow: bool,
    /// Skip what cannot be followed (a bad page number, a page seen
    /// before, a page that does not parse) instead of failing: the
    /// integrity check loads all it can this way and reports the rest.
    pub lenient: bool,
    /// The tree's change sequence the walk started at (a walk over a tree
    /// that changed since is restarted).
    pub seq: u64,
}

impl Walk {
    /// A walk over tree and overflow pages.
    pub fn new(roots: &[Pgno]) -> Walk {
        Walk {
            roots: roots.to_vec(),
            queue: roots.iter().rev().map(|r| Item::Tree(*r)).collect(),
            visited: HashSet::new(),
            pages: Vec::new(),
            entries: 0,
            with_overflow: true,
            lenient: false,
            seq: 0,
        }
    }

    /// A walk that loads every page it can reach and skips the rest
    /// (for the integrity check).
    pub fn new_lenient(roots: &[Pgno]) -> Walk {
        Walk { lenient: true, ..Walk::new(roots) }
    }

    /// Tag the walk with the change sequence it started at.
    pub fn at(mut self, seq: u64) -> Walk {
        self.seq = seq;
        self
    }

    /// A walk over tree pages only (counting).
    pub fn new_shallow(roots: &[Pgno]) -> Walk {
        Walk { with_overflow: false, ..Walk::new(roots) }
    }

    /// Continue; `Ready` when every page was visited.
    pub fn run(&mut self, bt: &mut Btree) -> IoPoll<()> {
        while let Some(item) = self.queue.last().copied() {
            let pgno = match item {
                Item::Tree(p) | Item::Overflow { pgno: p, .. } => p,
            };
            if pgno < 1 || pgno > bt.pager.db_size() || (self.lenient && self.visited.contains(&pgno)) {
                if self.lenient {
                    self.queue.pop();
                    continue;
                }
                return Err(Error::corrupt());
            }
            if !bt.pager.is_cached(pgno) {
                match bt.pager.fetch(pgno) {
                    Ok(Poll::Pending) => return Ok(Poll::Pending),
                    Ok(Poll::Ready(_)) => {}
                    Err(_) if self.lenient => {
                        self.queue.pop();
                        continue;
                    }
                    Err(e) => return Err(e),
                }
            }
            bt.pager.pin(pgno);
            self.queue.pop();
            // invariant: walk_once
            if !self.visited.insert(pgno) {
                return Err(Error::corrupt());
            }
            self.pages.push(pgno);
            match self.visit(bt, item) {
                Err(_) if self.lenient => {}
                r => r?,
            }
        }
        Ok(Poll::Ready(()))
    }

    fn visit(&mut self, bt: &Btree, item: Item) -> Result<()> {
        let usable = bt.usable();
        match item {
            Item::Overflow { pgno, left } => {
                let next = get_u32(bt.pager.page(pgno)?, 0)?;
                if self.lenient {
                    // (The check follows a chain to its end, however long.)
                    if next != 0 {
                        self.queue.push(Item::Overflow { pgno: next, left: left.saturating_sub(1) });
                    }
                    return Ok(());
                }
                match (left > 1, next) {
                    (true, 0) => return Err(Error::corrupt()),
                    (true, n) => self.queue.push(Item::Overflow { pgno: n, left: left - 1 }),
                    (false, 0) => {}
                    (false, _) => return Err(Error::corrupt()),
                }
            }
            Item::Tree(pgno) => {
                let data = bt.pager.page(pgno)?;
                let h = page::header(data, pgno)?;
                if h.kind.is_leaf() || !h.kind.is_table() {
                    self.entries += h.ncells as u64;
                }
                if !self.with_overflow {
                    // (Counting: a leaf's cells need not be parsed, an
                    // interior page's only for their child pointers.)
                    if !h.kind.is_leaf() {
                        for i in (0..=h.ncells).rev() {
                            self.queue.push(Item::Tree(page::child(data, &h, i, usable)?));
                        }
                    }
                    return Ok(());
                }
                let mut children = Vec::new();
                for i in 0..h.ncells {
                    let info = match page::cell(data, &h, i, usable) {
                        Ok((_, info)) => info,
                        // (A child pointer is the cell's first 4 bytes even
                        // when the rest does not parse.)
                        Err(_) if self.lenient => {
                            match page::child(data, &h, i, usable) {
                                Ok(c) if !h.kind.is_leaf() => children.push(Item::Tree(c)),
                                _ => {}
                            }
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    if !h.kind.is_leaf() {
                        children.push(Item::Tree(info.left_child));
                    }
                    if self.with_overflow && info.overflow != 0 {
                        let left = (info.payload_size as usize - info.local).div_ceil(usable as usize - 4);
                        self.queue.push(Item::Overflow { pgno: info.overflow, left });
                    }
                }
                if !h.kind.is_leaf() {
                    children.push(Item::Tree(h.right));
                }
                self.queue.extend(children.into_iter().rev());
            }
        }
        Ok(())
    }
}
