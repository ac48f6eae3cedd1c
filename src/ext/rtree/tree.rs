//! # The R*-tree algorithms: choose a leaf, split, condense
//!
//! Beckmann et al.'s R*-tree as SQLite's module applies it (rtree.txt):
//! a new entry goes to the leaf whose box grows least (ties: the smaller
//! box); a full node is split along the axis of least total margin at
//! the position of least overlap (ties: least area). SQLite 3.54 does not
//! reinsert entries of a full node before splitting it (observed: its
//! node bytes match these rules, with no forced reinsertion, for the same
//! inserts), so neither does this module. A deleted entry's leaf
//! that falls under a third full is removed and its entries inserted
//! again, up the tree; a root left with one child takes the child's place
//! (the tree gets one level shallower).
//!
//! Levels count from the leaves (0) to the root (the tree's depth).
//!
//! Invariants, kept after every public call returns `Ok`: every node but
//! the root holds at least a third of its capacity; each inner cell's box
//! covers every box below it; `%_rowid` names the leaf of every entry and
//! `%_parent` the parent of every node but the root.

use super::node::{bounding_box, Cell, Node};
use super::store::Store;
use crate::error::Result;

/// One insert or delete on the tree.
pub struct Tree<'s, 'a> {
    /// The nodes and maps.
    pub st: &'s mut Store<'a>,
    depth: usize,
    /// Nodes removed while condensing, with their levels, to reinsert.
    removed: Vec<(Node, usize)>,
}

impl<'s, 'a> Tree<'s, 'a> {
    /// Start an operation (reads the root's depth).
    pub fn new(st: &'s mut Store<'a>) -> Result<Tree<'s, 'a>> {
        let depth = st.node_ref(1)?.depth();
        if depth > super::MAX_DEPTH {
            return Err(super::corrupt());
        }
        Ok(Tree { st, depth, removed: Vec::new() })
    }

    fn min_cells(&self, node: &Node) -> usize {
        node.capacity() / 3
    }

    /// Insert entry `cell` (its rowid is the entry's).
    pub fn insert(&mut self, cell: &Cell) -> Result<()> {
        let leaf = self.choose(cell, 0)?;
        self.insert_cell(leaf, *cell, 0)
    }

    /// The node at `level` whose box grows least to take `cell` (ties:
    /// the smaller box). Computed in doubles straight from the node's
    /// bytes: the values [`Cell::union_with`] and [`Cell::area`] give.
    fn choose(&mut self, cell: &Cell, level: usize) -> Result<i64> {
        let dims = cell.coords.len() / 2;
        let mut target = [0.0f64; 10];
        for (t, c) in target.iter_mut().zip(cell.coords.iter()) {
            *t = c.d();
        }
        let mut b = [0.0f64; 10];
        let mut n = 1;
        let mut at = self.depth;
        while at > level {
            let node = self.st.node_ref(n)?;
            let mut best: Option<(usize, f64, f64)> = None;
            for i in 0..node.cell_count() {
                node.box_at(i, &mut b);
                let (mut area, mut grown) = (1.0f64, 1.0f64);
                for d in 0..dims {
                    let (lo, hi) = (b[2 * d], b[2 * d + 1]);
                    area *= hi - lo;
                    // (Coord::min/max: keep the cell's bound unless the
                    // new one is beyond it.)
                    let ulo = if target[2 * d] < lo { target[2 * d] } else { lo };
                    let uhi = if target[2 * d + 1] > hi { target[2 * d + 1] } else { hi };
                    grown *= uhi - ulo;
                }
                let growth = grown - area;
                let better = match best {
                    None => true,
                    Some((_, g, a)) => growth < g || (growth == g && area < a),
                };
                if better {
                    best = Some((i, growth, area));
                }
            }
            let Some((i, _, _)) = best else { return Err(super::corrupt()) };
            n = node.rowid(i);
            at -= 1;
        }
        Ok(n)
    }

    /// Map the entry or child of `cell` to node `n`.
    fn map(&mut self, cell: &Cell, n: i64, level: usize) -> Result<()> {
        if level == 0 {
            self.st.set_leaf(cell.rowid, n)
        } else {
            self.st.set_parent(cell.rowid, n)
        }
    }

    fn insert_cell(&mut self, n: i64, cell: Cell, level: usize) -> Result<()> {
        let room = {
            let node = self.st.node_ref(n)?;
            node.cell_count() < node.capacity()
        };
        if room {
            if !self.st.node_mut(n)?.push(&cell) {
                return Err(super::corrupt());
            }
            self.map(&cell, n, level)?;
            return self.adjust(n, &cell);
        }
        let node = self.st.node(n)?;
        self.split(node, cell, level)
    }

    /// Grow the boxes above node `n` to cover `cell`.
    fn adjust(&mut self, mut n: i64, cell: &Cell) -> Result<()> {
        while let Some(p) = self.st.parent(n)? {
            let (i, mut c) = {
                let parent = self.st.node_ref(p)?;
                let i = parent.find(n).ok_or_else(super::corrupt)?;
                (i, parent.cell(i))
            };
            if !c.contains(cell) {
                c.union_with(cell);
                self.st.node_mut(p)?.put_cell(i, &c);
            }
            n = p;
        }
        Ok(())
    }

    /// Set the box of node `n` in its parent to exactly its cells' box,
    /// up to the root.
    fn fix_box(&mut self, mut n: i64) -> Result<()> {
        while let Some(p) = self.st.parent(n)? {
            let node = self.st.node(n)?;
            if node.cell_count() == 0 {
                return Ok(());
            }
            let cells = node.cells();
            let mut b = bounding_box(cells.iter());
            b.rowid = n;
            let mut parent = self.st.node(p)?;
            let i = parent.find(n).ok_or_else(super::corrupt)?;
            parent.put_cell(i, &b);
            self.st.put(parent);
            n = p;
        }
        Ok(())
    }

    fn split(&mut self, mut node: Node, cell: Cell, level: usize) -> Result<()> {
        let mut cells = node.cells();
        cells.push(cell);
        let (lcells, rcells) = split_cells(&cells, self.min_cells(&node));
        let is_root = node.number == 1;
        let mut right = self.st.new_node()?;
        let mut left = if is_root {
            self.st.new_node()?
        } else {
            node.zero();
            node
        };
        for c in &lcells {
            left.push(c);
        }
        for c in &rcells {
            right.push(c);
        }
        let mut lbox = bounding_box(lcells.iter());
        lbox.rowid = left.number;
        let mut rbox = bounding_box(rcells.iter());
        rbox.rowid = right.number;
        let (ln, rn) = (left.number, right.number);
        self.st.put(left);
        self.st.put(right);
        if is_root {
            let mut root = self.st.node(1)?;
            root.zero();
            self.depth += 1;
            root.set_depth(self.depth);
            self.st.put(root);
            for c in &lcells {
                self.map(c, ln, level)?;
            }
            self.insert_cell(1, lbox, level + 1)?;
        } else {
            if lcells.iter().any(|c| c.rowid == cell.rowid) {
                self.map(&cell, ln, level)?;
            }
            let p = self.st.parent(ln)?.ok_or_else(super::corrupt)?;
            let mut parent = self.st.node(p)?;
            let i = parent.find(ln).ok_or_else(super::corrupt)?;
            parent.put_cell(i, &lbox);
            self.st.put(parent);
            self.adjust(p, &lbox)?;
        }
        for c in &rcells {
            self.map(c, rn, level)?;
        }
        let p = if is_root { 1 } else { self.st.parent(ln)?.ok_or_else(super::corrupt)? };
        self.insert_cell(p, rbox, level + 1)
    }

    /// Delete the entry `rowid`, which is in leaf `leaf`.
    pub fn delete(&mut self, rowid: i64, leaf: i64) -> Result<()> {
        let node = self.st.node(leaf)?;
        let i = node.find(rowid).ok_or_else(super::corrupt)?;
        self.delete_cell(node, i, 0)?;
        // A root left with one child: the child's entries move up.
        let root = self.st.node(1)?;
        if self.depth > 0 && root.cell_count() == 1 {
            let child = self.st.node(root.rowid(0))?;
            self.remove_node(child, self.depth - 1)?;
            self.depth -= 1;
            let mut root = self.st.node(1)?;
            root.set_depth(self.depth);
            self.st.put(root);
        }
        while let Some((node, level)) = self.removed.pop() {
            for c in node.cells() {
                let target = self.choose(&c, level)?;
                self.insert_cell(target, c, level)?;
            }
        }
        Ok(())
    }

    fn delete_cell(&mut self, mut node: Node, i: usize, level: usize) -> Result<()> {
        node.remove(i);
        let n = node.number;
        let under = node.cell_count() < self.min_cells(&node);
        self.st.put(node);
        if n == 1 {
            return Ok(());
        }
        if under {
            let node = self.st.node(n)?;
            self.remove_node(node, level)
        } else {
            self.fix_box(n)
        }
    }

    fn remove_node(&mut self, node: Node, level: usize) -> Result<()> {
        let p = self.st.parent(node.number)?.ok_or_else(super::corrupt)?;
        let parent = self.st.node(p)?;
        let i = parent.find(node.number).ok_or_else(super::corrupt)?;
        self.delete_cell(parent, i, level + 1)?;
        self.st.delete_node(node.number)?;
        self.removed.push((node, level));
        Ok(())
    }
}

/// Split `cells` (one more than a node holds) in two, each with at least
/// `min` cells: R*-tree axis by least margin sum, then the distribution
/// of least overlap (ties: least area).
pub fn split_cells(cells: &[Cell], min: usize) -> (Vec<Cell>, Vec<Cell>) {
    let n = cells.len();
    let dims = cells[0].coords.len() / 2;
    let min = min.max(1).min(n / 2);
    let mut best: Option<(f64, Vec<usize>, usize)> = None;
    let mut keys: Vec<(f64, f64)> = Vec::with_capacity(n);
    let mut scratch: Vec<usize> = Vec::with_capacity(n);
    for d in 0..dims {
        let mut order: Vec<usize> = (0..n).collect();
        keys.clear();
        keys.extend(cells.iter().map(|c| (c.coords[2 * d].d(), c.coords[2 * d + 1].d())));
        merge_sort(&mut order, &mut scratch, &keys);
        let mut margin = 0.0;
        let mut pick: Option<(usize, f64, f64)> = None;
        // Boxes of every prefix and suffix of the order (a box is the
        // same whatever order its cells are united in).
        let mut prefix = Vec::with_capacity(n + 1);
        let mut suffix = vec![cells[order[n - 1]]; n];
        let mut acc = cells[order[0]];
        for &i in &order {
            acc.union_with(&cells[i]);
            prefix.push(acc);
        }
        let mut acc = cells[order[n - 1]];
        for j in (0..n).rev() {
            acc.union_with(&cells[order[j]]);
            suffix[j] = acc;
        }
        for k in min..=(n - min) {
            let (l, r) = (&prefix[k - 1], &suffix[k]);
            margin += l.margin() + r.margin();
            let overlap = l.overlap(r);
            let area = l.area() + r.area();
            let better = match pick {
                None => true,
                Some((_, o, a)) => overlap < o || (overlap == o && area < a),
            };
            if better {
                pick = Some((k, overlap, area));
            }
        }
        let k = pick.map_or(n / 2, |p| p.0);
        if best.as_ref().is_none_or(|b| margin < b.0) {
            best = Some((margin, order, k));
        }
    }
    let (_, order, k) = best.expect("a split of no dimensions");
    (order[..k].iter().map(|&i| cells[i]).collect(), order[k..].iter().map(|&i| cells[i]).collect())
}

/// Sort `idx` by `keys[i]` (lower bound, then upper), a merge sort that
/// takes the right run's element when two are equal: the order SQLite's
/// module leaves equal boxes in (observed), so that identical inserts give
/// identical node bytes. `scratch` is the merge buffer (no allocation per
/// level: this sort was a tenth of a bulk insert).
fn merge_sort(idx: &mut [usize], scratch: &mut Vec<usize>, keys: &[(f64, f64)]) {
    let n = idx.len();
    if n < 2 {
        return;
    }
    let nl = n / 2;
    merge_sort(&mut idx[..nl], scratch, keys);
    merge_sort(&mut idx[nl..], scratch, keys);
    scratch.clear();
    scratch.extend_from_slice(idx);
    let (l, r) = scratch.split_at(nl);
    let (mut i, mut j) = (0, 0);
    for slot in idx.iter_mut() {
        if i < l.len() && (j == r.len() || keys[l[i]] < keys[r[j]]) {
            *slot = l[i];
            i += 1;
        } else {
            *slot = r[j];
            j += 1;
        }
    }
}
