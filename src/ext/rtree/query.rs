//! # Queries on an R*Tree: the plan (xBestIndex) and the cursor
//!
//! Plans, numbered and spelled as SQLite's module does (visible in
//! EXPLAIN QUERY PLAN): 1 looks one id up (`%_rowid` gives its leaf);
//! 2 walks the tree, with `idxStr` holding two characters per constraint
//! handed to xFilter: the operator (`A` =, `B` <=, `C` <, `D` >=, `E` >,
//! `F` MATCH) and the coordinate column (`'0'` + its index among the
//! coordinates; `/` for the id, which only MATCH may name).
//!
//! The walk is depth-first in cell order; a subtree is skipped when its
//! box proves no entry below can satisfy a constraint. As SQLite's module
//! (EXPLAIN shows it), `<=`, `>=` and MATCH are omitted (the module's test
//! decides: [`rhs`] reads a value as the VM's comparison would); `=`, `<`
//! and `>` are checked again by the VM.
//!
//! With a MATCH on a query function (`geometry.rs`) the walk is the
//! documented priority-queue search instead: see [`Cursor::advance_queued`].
//!
//! Invariants: the cursor's `stack` holds the nodes on the path to the
//! current entry (or its `queue` the nodes and entries still to visit); while it is not empty the table counts the cursor in
//! `scanning` (writes are refused, rtree.txt §3.5), and exactly once
//! (checked: rtree_scanning_once).

use super::geometry::{self, GeometryMatch, Probe, NOT_WITHIN, PARTLY_WITHIN};
use super::node::{Cell, Node};
use super::{host_conn, Rtree};
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::index_info::SCAN_UNIQUE;
use crate::vdbe::vtab::{ColumnContext, ConstraintOp, IndexInfo, VTabCursor};
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Most constraints one plan hands to xFilter.
const MAX_CONSTRAINTS: usize = 20;
/// Rows assumed in a table (no statistics are read).
const ROW_ESTIMATE: i64 = 1_048_576;

/// xBestIndex.
pub fn best_index(rt: &Rtree, info: &mut IndexInfo) -> Result<()> {
    let n_coord = 2 * rt.dims as i32;
    if let Some(i) = info.constraints.iter().position(|c| c.usable && c.op == ConstraintOp::EQ && (c.column == 0 || c.column == -1)) {
        info.usage[i].argv_index = 1;
        info.idx_num = 1;
        info.idx_str = Some(String::new());
        info.estimated_cost = 30.0;
        info.estimated_rows = 1;
        info.idx_flags |= SCAN_UNIQUE;
        return Ok(());
    }
    let mut s = String::new();
    let mut n = 0;
    for (i, c) in info.constraints.iter().enumerate() {
        if !c.usable || n >= MAX_CONSTRAINTS {
            continue;
        }
        let op = match c.op {
            ConstraintOp::EQ => 'A',
            ConstraintOp::LE => 'B',
            ConstraintOp::LT => 'C',
            ConstraintOp::GE => 'D',
            ConstraintOp::GT => 'E',
            ConstraintOp::MATCH => 'F',
            _ => continue,
        };
        let coord_ok = c.column >= 1 && c.column <= n_coord;
        if !(coord_ok || (op == 'F' && c.column == 0)) {
            continue;
        }
        n += 1;
        s.push(op);
        s.push((b'0' as i32 + c.column - 1) as u8 as char);
        info.usage[i].argv_index = n as i32;
        // (As SQLite's module: `<=` and `>=` are decided by the module
        // alone, their rounding being on the safe side; the others are
        // checked again by the VM.)
        info.usage[i].omit = matches!(op, 'B' | 'D' | 'F');
    }
    let rows = (ROW_ESTIMATE >> n).max(1);
    info.idx_num = 2;
    info.idx_str = Some(s);
    info.estimated_cost = 6.0 * rows as f64;
    info.estimated_rows = rows;
    Ok(())
}

/// One constraint of a walk: operator letter, coordinate, value.
#[derive(Debug, Clone, Copy)]
struct Test {
    op: u8,
    coord: usize,
    v: f64,
}

impl Test {
    /// Whether the entry's coordinate satisfies the test.
    fn leaf(&self, c: &Cell) -> bool {
        self.leaf_x(c.coords[self.coord].d())
    }

    /// [`Test::leaf`] for cell `i` of `node`, read in place.
    fn leaf_at(&self, node: &Node, i: usize) -> bool {
        self.leaf_x(node.coord_at(i, self.coord))
    }

    fn leaf_x(&self, x: f64) -> bool {
        match self.op {
            b'A' => x == self.v,
            b'B' => x <= self.v,
            b'C' => x < self.v,
            b'D' => x >= self.v,
            _ => x > self.v,
        }
    }

    /// Whether some entry under the box of `c` may satisfy the test
    /// (every coordinate of the dimension lies in its [lower, upper]).
    fn inner(&self, c: &Cell) -> bool {
        let d = self.coord / 2;
        self.inner_box(c.coords[2 * d].d(), c.coords[2 * d + 1].d())
    }

    /// [`Test::inner`] for cell `i` of `node`, read in place.
    fn inner_at(&self, node: &Node, i: usize) -> bool {
        let d = self.coord / 2;
        self.inner_box(node.coord_at(i, 2 * d), node.coord_at(i, 2 * d + 1))
    }

    fn inner_box(&self, lo: f64, hi: f64) -> bool {
        match self.op {
            b'A' => lo <= self.v && self.v <= hi,
            b'B' => lo <= self.v,
            b'C' => lo < self.v,
            b'D' => hi >= self.v,
            _ => hi > self.v,
        }
    }
}

/// What a constraint's value means for a numeric column: a number, no
/// row at all, or every row (as the VM's comparison would decide).
enum Rhs {
    Num(f64),
    Never,
    Always,
}

fn rhs(op: u8, v: &Value) -> Rhs {
    match v {
        Value::Integer(i) => Rhs::Num(*i as f64),
        Value::Real(r) if r.is_nan() => Rhs::Never,
        Value::Real(r) => Rhs::Num(*r),
        Value::Null | Value::Pointer(_) => Rhs::Never,
        Value::Text(t) => match crate::value::numeric::text_to_numeric(t) {
            Some(n) => Rhs::Num(n.as_ref().to_f64()),
            None => non_numeric(op),
        },
        _ => non_numeric(op),
    }
}

// (Numbers sort before text and blobs.)
fn non_numeric(op: u8) -> Rhs {
    if op == b'B' || op == b'C' {
        Rhs::Always
    } else {
        Rhs::Never
    }
}

/// What waits in the priority queue of a MATCH walk: a node handing out
/// its children one per visit, or an entry to return.
enum Waiting {
    Node { node: Arc<Node>, next: usize },
    Entry(Cell),
}

/// One queue element. Levels are SQLite's: 0 for entries, 1 for leaf
/// nodes, the root's the highest.
struct Queued {
    score: f64,
    level: usize,
    seq: u64,
    within: i32,
    what: Waiting,
}

impl Queued {
    fn key(&self) -> (f64, usize, u64) {
        (self.score, self.level, self.seq)
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    // Reversed: `BinaryHeap` pops its greatest element, the walk wants
    // the smallest score, then the lowest level, then the earliest.
    fn cmp(&self, other: &Self) -> CmpOrdering {
        let (a, b) = (self.key(), other.key());
        b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2))
    }
}

/// A cursor (see the module doc).
pub struct Cursor {
    rt: Arc<Rtree>,
    tests: Vec<Test>,
    /// Nodes being walked, the next cell of each, and their levels.
    stack: Vec<(Arc<Node>, usize, usize)>,
    /// The MATCH constraints' query states; when there are any the walk
    /// uses `queue` instead of `stack`.
    matches: Vec<Box<dyn GeometryMatch>>,
    queue: BinaryHeap<Queued>,
    /// Elements of `queue` per level, and the next arrival number.
    queue_counts: Vec<u32>,
    seq: u64,
    /// The coordinates handed to the callbacks (reused per child).
    coords: Vec<f64>,
    counted: bool,
    current: Option<Cell>,
    aux: Option<Vec<Value>>,
}

impl Cursor {
    /// A cursor over `rt`, not started.
    pub fn new(rt: Arc<Rtree>) -> Cursor {
        Cursor {
            rt,
            tests: Vec::new(),
            stack: Vec::new(),
            matches: Vec::new(),
            queue: BinaryHeap::new(),
            queue_counts: Vec::new(),
            seq: 0,
            coords: Vec::new(),
            counted: false,
            current: None,
            aux: None,
        }
    }

    /// Queue a new element (it arrives after every queued one).
    fn push(&mut self, score: f64, level: usize, within: i32, what: Waiting) {
        self.seq += 1;
        let seq = self.seq;
        self.requeue(Queued { score, level, seq, within, what });
    }

    /// Queue `q` with the arrival number it has.
    fn requeue(&mut self, q: Queued) {
        if let Some(n) = self.queue_counts.get_mut(q.level) {
            *n += 1;
        }
        self.queue.push(q);
    }

    fn pop(&mut self) -> Option<Queued> {
        let q = self.queue.pop()?;
        if let Some(n) = self.queue_counts.get_mut(q.level) {
            *n -= 1;
        }
        Some(q)
    }

    /// The priority-queue walk (rtree.txt §6.2): take the element with the
    /// smallest score; an entry is the next row; a node offers its next
    /// child to the constraints and the MATCH callbacks and goes back
    /// while it has more. A child they leave visible joins the queue with
    /// the smallest score they gave and the least visibility.
    fn advance_queued(&mut self, host: &mut dyn VmHost) -> Result<()> {
        self.current = None;
        self.aux = None;
        let max_level = self.queue_counts.len().saturating_sub(1) as i32;
        while let Some(q) = self.pop() {
            let (node, next) = match q.what {
                Waiting::Entry(cell) => {
                    self.current = Some(cell);
                    return Ok(());
                }
                Waiting::Node { node, next } => (node, next),
            };
            if next >= node.cell_count() {
                continue;
            }
            let cell = node.cell(next);
            let child_level = q.level - 1;
            let (parent_score, parent_within) = (q.score, q.within);
            if next + 1 < node.cell_count() {
                // (Back with its arrival number: among equals it keeps its place.)
                self.requeue(Queued { what: Waiting::Node { node, next: next + 1 }, ..q });
            }
            let entry = child_level == 0;
            if !self.tests.iter().all(|t| if entry { t.leaf(&cell) } else { t.inner(&cell) }) {
                continue;
            }
            let mut coords = std::mem::take(&mut self.coords);
            coords.clear();
            coords.extend(cell.coords.iter().map(|c| c.d()));
            let mut within = super::geometry::FULLY_WITHIN;
            let mut score: Option<f64> = None;
            for m in &mut self.matches {
                let probe = Probe {
                    coords: &coords,
                    level: child_level as i32,
                    max_level,
                    rowid: if entry { cell.rowid } else { 0 },
                    parent_score,
                    parent_within,
                    queue: &self.queue_counts,
                };
                let (w, s) = m.test(&probe)?;
                within = within.min(w);
                score = Some(score.map_or(s, |x: f64| x.min(s)));
            }
            self.coords = coords;
            if within <= NOT_WITHIN {
                continue;
            }
            let score = score.unwrap_or(0.0);
            if entry {
                self.push(score, 0, within, Waiting::Entry(cell));
            } else {
                let child = self.rt.read_node(host_conn(host)?, cell.rowid)?;
                self.push(score, child_level, within, Waiting::Node { node: child, next: 0 });
            }
        }
        self.set_counted(false);
        Ok(())
    }

    fn set_counted(&mut self, on: bool) {
        if on != self.counted {
            if on {
                self.rt.scanning.fetch_add(1, Ordering::Relaxed);
            } else {
                let before = self.rt.scanning.fetch_sub(1, Ordering::Relaxed);
                // invariant: rtree_scanning_once
                debug_assert!(before > 0, "an r-tree cursor uncounted twice");
            }
            self.counted = on;
        }
    }

    fn advance(&mut self, host: &mut dyn VmHost) -> Result<()> {
        if !self.matches.is_empty() {
            return self.advance_queued(host);
        }
        self.current = None;
        self.aux = None;
        while let Some((node, next, level)) = self.stack.last_mut() {
            if *next >= node.cell_count() {
                self.stack.pop();
                continue;
            }
            // (Tested in the node's bytes: a cell is decoded only when
            // it is returned.)
            let i = *next;
            *next += 1;
            let level = *level;
            if level == 0 {
                if self.tests.iter().all(|t| t.leaf_at(node, i)) {
                    self.current = Some(node.cell(i));
                    return Ok(());
                }
            } else if self.tests.iter().all(|t| t.inner_at(node, i)) {
                let child = node.rowid(i);
                let child = self.rt.read_node(host_conn(host)?, child)?;
                self.stack.push((child, 0, level - 1));
            }
        }
        self.set_counted(false);
        Ok(())
    }
}

impl Drop for Cursor {
    fn drop(&mut self) {
        self.set_counted(false);
    }
}

impl VTabCursor for Cursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        self.stack.clear();
        self.queue.clear();
        self.matches.clear();
        self.set_counted(false);
        self.current = None;
        self.aux = None;
        self.tests.clear();
        let conn = host_conn(host)?;
        if idx_num == 1 {
            let id = match args.first().map(|v| crate::value::affinity::apply_affinity(v.clone(), crate::value::affinity::Affinity::Integer)) {
                Some(Value::Integer(i)) => i,
                _ => return Ok(()),
            };
            if let Some(leaf) = self.rt.leaf_of(conn, id)? {
                let node = self.rt.read_node(conn, leaf)?;
                let i = node.find(id).ok_or_else(super::corrupt)?;
                self.current = Some(node.cell(i));
            }
            return Ok(());
        }
        let spec = idx_str.unwrap_or("").as_bytes();
        for (k, pair) in spec.chunks(2).enumerate() {
            if pair.len() < 2 {
                break;
            }
            let (op, col) = (pair[0], pair[1]);
            let Some(v) = args.get(k) else { break };
            if op == b'F' {
                self.matches.push(geometry::start_match(v)?);
                continue;
            }
            if !(b'A'..=b'E').contains(&op) || col < b'0' || (col - b'0') as usize >= 2 * self.rt.dims {
                return Err(Error::code(SQLITE_ERROR));
            }
            match rhs(op, v) {
                Rhs::Num(x) => self.tests.push(Test { op, coord: (col - b'0') as usize, v: x }),
                Rhs::Always => {}
                Rhs::Never => return Ok(()),
            }
        }
        let root = self.rt.read_node(conn, 1)?;
        let depth = root.depth();
        if depth > super::MAX_DEPTH {
            return Err(super::corrupt());
        }
        if self.matches.is_empty() {
            self.stack.push((root, 0, depth));
        } else {
            self.queue_counts = vec![0; depth + 2];
            self.seq = 0;
            self.push(0.0, depth + 1, PARTLY_WITHIN, Waiting::Node { node: root, next: 0 });
        }
        self.set_counted(true);
        self.advance(host)
    }

    fn next(&mut self, host: &mut dyn VmHost) -> Result<()> {
        self.advance(host)
    }

    fn eof(&mut self) -> bool {
        self.current.is_none()
    }

    fn column(&mut self, host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        let Some(cell) = &self.current else { return Ok(Value::Null) };
        let n_coord = 2 * self.rt.dims;
        Ok(match ctx.column {
            0 => Value::Integer(cell.rowid),
            c if c <= n_coord => cell.coords[c - 1].value(),
            c => {
                if self.aux.is_none() {
                    let rowid = cell.rowid;
                    self.aux = Some(self.rt.aux(host_conn(host)?, rowid)?);
                }
                self.aux.as_ref().and_then(|a| a.get(c - 1 - n_coord)).cloned().unwrap_or(Value::Null)
            }
        })
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.current.as_ref().map_or(0, |c| c.rowid))
    }
}
