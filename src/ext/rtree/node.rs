//! # R*Tree nodes: the `%_node` blob format and the box arithmetic
//!
//! A node is one row of `%_node`: a blob of the table's node size. Bytes
//! 0..2 hold the tree depth (meaningful in the root only, node 1), bytes
//! 2..4 the number of cells, then the cells back to back: an 8-byte rowid
//! (of an entry in a leaf, of a child node in an inner node) and, per
//! dimension, the lower and upper coordinate as 4-byte values (IEEE single
//! for `rtree`, two's-complement for `rtree_i32`), everything big-endian.
//! Bytes after the last cell are whatever was there before (SQLite leaves
//! a deleted cell's bytes behind); a node is never longer than its blob.
//!
//! The box arithmetic (area, margin, overlap, growth) is done in doubles
//! for both kinds, as SQLite documents for `rtree_i32`.
//!
//! Invariants: a [`Node`]'s `data` keeps its length as read; `cell_count`
//! always matches the count stored at bytes 2..4; a cell's `coords` has
//! `2 * dims` entries (checked: rtree_node_cells).

use crate::error::Result;
use crate::value::Value;

/// Most cells a node holds whatever the page size (`RTREE_MAXCELLS`).
pub const MAX_CELLS: usize = 51;

/// How coordinates are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordKind {
    /// `rtree`: 32-bit floats.
    Float,
    /// `rtree_i32`: 32-bit signed integers.
    Int,
}

/// One stored coordinate, kept as its 4 stored bytes' meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coord {
    /// `rtree`.
    F(f32),
    /// `rtree_i32`.
    I(i32),
}

impl Coord {
    /// The coordinate as a double (for comparisons and box arithmetic).
    pub fn d(self) -> f64 {
        match self {
            Coord::F(f) => f as f64,
            Coord::I(i) => i as f64,
        }
    }

    /// The column value SQL reads.
    pub fn value(self) -> Value {
        match self {
            Coord::F(f) => Value::Real(f as f64),
            Coord::I(i) => Value::Integer(i as i64),
        }
    }

    fn bits(self) -> u32 {
        match self {
            Coord::F(f) => f.to_bits(),
            Coord::I(i) => i as u32,
        }
    }

    fn from_bits(kind: CoordKind, b: u32) -> Coord {
        match kind {
            CoordKind::Float => Coord::F(f32::from_bits(b)),
            CoordKind::Int => Coord::I(b as i32),
        }
    }

    /// Whether `self` orders after `other` (the "min > max" test).
    pub fn gt(self, other: Coord) -> bool {
        match (self, other) {
            (Coord::I(a), Coord::I(b)) => a > b,
            _ => self.d() > other.d(),
        }
    }

    fn min(self, o: Coord) -> Coord {
        if o.gt(self) || o == self {
            self
        } else {
            o
        }
    }

    fn max(self, o: Coord) -> Coord {
        if self.gt(o) || o == self {
            self
        } else {
            o
        }
    }
}

/// The next float towards +infinity (`f` not NaN nor +infinity).
fn next_up(f: f32) -> f32 {
    if f == 0.0 {
        return f32::from_bits(1);
    }
    let b = f.to_bits();
    f32::from_bits(if f > 0.0 { b + 1 } else { b - 1 })
}

/// The next float towards -infinity (`f` not NaN nor -infinity).
fn next_down(f: f32) -> f32 {
    -next_up(-f)
}

/// A lower bound as stored: the greatest float at or below the value
/// (rtree.txt §3.4: boxes are rounded outwards, never inwards).
pub fn round_down(d: f64) -> f32 {
    let f = d as f32;
    if (f as f64) > d {
        next_down(f)
    } else {
        f
    }
}

/// An upper bound as stored: the least float at or above the value.
pub fn round_up(d: f64) -> f32 {
    let f = d as f32;
    if (f as f64) < d {
        next_up(f)
    } else {
        f
    }
}

/// A coordinate from an SQL value (`upper`: the upper bound of its
/// dimension), converted as SQLite converts it.
pub fn coord_from_value(kind: CoordKind, v: &Value, upper: bool) -> Coord {
    match kind {
        CoordKind::Float => {
            let d = v.as_ref().to_f64();
            Coord::F(if upper { round_up(d) } else { round_down(d) })
        }
        // As SQLite 3.54 stores them (observed): a real truncated toward
        // zero, anything else read as a 64-bit integer (text by its
        // integer prefix), then held to the 32-bit range.
        CoordKind::Int => {
            let i = match v {
                Value::Real(r) => *r as i64,
                _ => v.as_ref().to_i64(),
            };
            Coord::I(i.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
        }
    }
}

/// Most coordinates of a cell (five dimensions).
const MAX_COORDS: usize = 10;

/// A cell's coordinates, held inline (a cell is decoded, copied and
/// compared in the inner loops of choose-leaf and split: no allocation).
#[derive(Clone, Copy)]
pub struct Coords {
    n: u8,
    v: [Coord; MAX_COORDS],
}

impl Coords {
    /// No coordinates yet.
    pub fn new() -> Coords {
        Coords { n: 0, v: [Coord::I(0); MAX_COORDS] }
    }

    /// Append `c` (at most [`MAX_COORDS`]).
    pub fn push(&mut self, c: Coord) {
        self.v[self.n as usize] = c;
        self.n += 1;
    }
}

impl Default for Coords {
    fn default() -> Self {
        Coords::new()
    }
}

impl std::ops::Deref for Coords {
    type Target = [Coord];
    fn deref(&self) -> &[Coord] {
        &self.v[..self.n as usize]
    }
}

impl std::ops::DerefMut for Coords {
    fn deref_mut(&mut self) -> &mut [Coord] {
        &mut self.v[..self.n as usize]
    }
}

impl PartialEq for Coords {
    fn eq(&self, o: &Coords) -> bool {
        **self == **o
    }
}

impl std::fmt::Debug for Coords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl FromIterator<Coord> for Coords {
    fn from_iter<I: IntoIterator<Item = Coord>>(it: I) -> Coords {
        let mut c = Coords::new();
        it.into_iter().for_each(|x| c.push(x));
        c
    }
}

impl<'a> IntoIterator for &'a Coords {
    type Item = &'a Coord;
    type IntoIter = std::slice::Iter<'a, Coord>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A cell: a rowid (entry or child node) and its box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Entry rowid (leaf) or child node number.
    pub rowid: i64,
    /// Lower and upper bound per dimension.
    pub coords: Coords,
}

impl Cell {
    /// Grow `self` to cover `o`.
    pub fn union_with(&mut self, o: &Cell) {
        for (i, c) in self.coords.iter_mut().enumerate() {
            *c = if i % 2 == 0 { c.min(o.coords[i]) } else { c.max(o.coords[i]) };
        }
    }

    /// Whether `self` covers `o` entirely.
    pub fn contains(&self, o: &Cell) -> bool {
        self.coords.chunks(2).zip(o.coords.chunks(2)).all(|(a, b)| a[0].d() <= b[0].d() && a[1].d() >= b[1].d())
    }

    /// Product of the extents.
    pub fn area(&self) -> f64 {
        self.coords.chunks(2).map(|p| p[1].d() - p[0].d()).product()
    }

    /// Sum of the extents.
    pub fn margin(&self) -> f64 {
        self.coords.chunks(2).map(|p| p[1].d() - p[0].d()).sum()
    }

    /// Area of the intersection with `o` (0 when disjoint).
    pub fn overlap(&self, o: &Cell) -> f64 {
        let mut a = 1.0;
        for (p, q) in self.coords.chunks(2).zip(o.coords.chunks(2)) {
            let lo = p[0].d().max(q[0].d());
            let hi = p[1].d().min(q[1].d());
            if hi < lo {
                return 0.0;
            }
            a *= hi - lo;
        }
        a
    }
}

/// The bounding box of `cells` (which is not empty), rowid 0.
pub fn bounding_box<'a>(mut cells: impl Iterator<Item = &'a Cell>) -> Cell {
    let first = cells.next().expect("bounding box of no cells");
    let mut b = Cell { rowid: 0, coords: first.coords };
    for c in cells {
        b.union_with(c);
    }
    b
}

/// A node as read from `%_node`.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its node number (1 is the root).
    pub number: i64,
    /// The blob, kept whole so untouched bytes are written back as read.
    pub data: Vec<u8>,
    dims: usize,
    kind: CoordKind,
}

impl Node {
    /// Bytes per cell for `dims` dimensions.
    pub fn cell_size(dims: usize) -> usize {
        8 + 8 * dims
    }

    /// A node of `size` zero bytes.
    pub fn empty(number: i64, size: usize, dims: usize, kind: CoordKind) -> Node {
        Node { number, data: vec![0; size], dims, kind }
    }

    /// A node from its stored blob; a blob too short for its own cell
    /// count is corrupt.
    pub fn parse(number: i64, data: Vec<u8>, dims: usize, kind: CoordKind) -> Result<Node> {
        let n = Node { number, data, dims, kind };
        if n.data.len() < 4 || 4 + n.cell_count() * Self::cell_size(dims) > n.data.len() {
            return Err(super::corrupt());
        }
        Ok(n)
    }

    /// Cells the blob has room for.
    pub fn capacity(&self) -> usize {
        (self.data.len() - 4) / Self::cell_size(self.dims)
    }

    /// The depth field (the tree's depth, read from the root).
    pub fn depth(&self) -> usize {
        u16::from_be_bytes([self.data[0], self.data[1]]) as usize
    }

    /// Set the depth field.
    pub fn set_depth(&mut self, d: usize) {
        self.data[0..2].copy_from_slice(&(d as u16).to_be_bytes());
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        u16::from_be_bytes([self.data[2], self.data[3]]) as usize
    }

    fn set_count(&mut self, n: usize) {
        // invariant: rtree_node_cells
        debug_assert!(n <= self.capacity());
        self.data[2..4].copy_from_slice(&(n as u16).to_be_bytes());
    }

    /// Cell `i`.
    pub fn cell(&self, i: usize) -> Cell {
        debug_assert!(i < self.cell_count());
        let off = 4 + i * Self::cell_size(self.dims);
        let b = &self.data[off..off + Self::cell_size(self.dims)];
        let rowid = i64::from_be_bytes(b[0..8].try_into().unwrap());
        let coords = (0..2 * self.dims).map(|k| Coord::from_bits(self.kind, u32::from_be_bytes(b[8 + 4 * k..12 + 4 * k].try_into().unwrap()))).collect();
        Cell { rowid, coords }
    }

    /// The box of cell `i` as doubles, lower and upper bound per
    /// dimension, into `out` (which has room for them).
    pub fn box_at(&self, i: usize, out: &mut [f64]) {
        let off = 4 + i * Self::cell_size(self.dims) + 8;
        for (k, x) in out.iter_mut().take(2 * self.dims).enumerate() {
            let b = u32::from_be_bytes(self.data[off + 4 * k..off + 4 * k + 4].try_into().unwrap());
            *x = match self.kind {
                CoordKind::Float => f32::from_bits(b) as f64,
                CoordKind::Int => b as i32 as f64,
            };
        }
    }

    /// Coordinate `k` of cell `i` as a double (what `cell(i)`'s
    /// `coords[k].d()` gives), read in place.
    pub fn coord_at(&self, i: usize, k: usize) -> f64 {
        debug_assert!(i < self.cell_count() && k < 2 * self.dims);
        let off = 4 + i * Self::cell_size(self.dims) + 8 + 4 * k;
        let b = u32::from_be_bytes(self.data[off..off + 4].try_into().unwrap());
        match self.kind {
            CoordKind::Float => f32::from_bits(b) as f64,
            CoordKind::Int => b as i32 as f64,
        }
    }

    /// The rowid of cell `i` without decoding its box.
    pub fn rowid(&self, i: usize) -> i64 {
        let off = 4 + i * Self::cell_size(self.dims);
        i64::from_be_bytes(self.data[off..off + 8].try_into().unwrap())
    }

    /// Every cell.
    pub fn cells(&self) -> Vec<Cell> {
        (0..self.cell_count()).map(|i| self.cell(i)).collect()
    }

    /// Write `c` as cell `i` (which exists, or is the next one).
    pub fn put_cell(&mut self, i: usize, c: &Cell) {
        // invariant: rtree_node_cells
        debug_assert_eq!(c.coords.len(), 2 * self.dims);
        let off = 4 + i * Self::cell_size(self.dims);
        self.data[off..off + 8].copy_from_slice(&c.rowid.to_be_bytes());
        for (k, x) in c.coords.iter().enumerate() {
            self.data[off + 8 + 4 * k..off + 12 + 4 * k].copy_from_slice(&x.bits().to_be_bytes());
        }
    }

    /// Append `c`; false (and nothing written) when the node is full.
    pub fn push(&mut self, c: &Cell) -> bool {
        let n = self.cell_count();
        if n >= self.capacity() {
            return false;
        }
        self.put_cell(n, c);
        self.set_count(n + 1);
        true
    }

    /// Remove cell `i`, moving the later ones down (the last cell's old
    /// bytes stay behind the new end).
    pub fn remove(&mut self, i: usize) {
        let n = self.cell_count();
        debug_assert!(i < n);
        let sz = Self::cell_size(self.dims);
        let start = 4 + i * sz;
        let end = 4 + n * sz;
        self.data.copy_within(start + sz..end, start);
        self.set_count(n - 1);
    }

    /// Clear every byte after the depth field (cell count 0).
    pub fn zero(&mut self) {
        for b in &mut self.data[2..] {
            *b = 0;
        }
    }

    /// The index of the cell whose rowid is `rowid`.
    pub fn find(&self, rowid: i64) -> Option<usize> {
        (0..self.cell_count()).find(|&i| self.rowid(i) == rowid)
    }
}

/// The node size SQLite uses for a database of `page_size` bytes: the
/// page less 64 bytes of record overhead, but no more than
/// [`MAX_CELLS`] cells.
pub fn node_size(page_size: usize, dims: usize) -> usize {
    (page_size - 64).min(4 + Node::cell_size(dims) * MAX_CELLS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_outwards() {
        assert_eq!(round_down(1.1).to_bits(), 0x3F8CCCCC);
        assert_eq!(round_up(2.2).to_bits(), 0x400CCCCD);
        assert!((round_down(-1.1) as f64) <= -1.1);
        assert!((round_up(-1.1) as f64) >= -1.1);
        assert_eq!(round_down(3.0), 3.0);
        assert_eq!(round_up(690.047619047619).to_bits(), 0x442c830d);
        assert_eq!(round_down(1e40), f32::MAX);
        assert_eq!(round_up(1e40), f32::INFINITY);
    }

    #[test]
    fn cells_round_trip() {
        let mut n = Node::empty(1, node_size(4096, 2), 2, CoordKind::Float);
        assert_eq!(n.data.len(), 1228);
        let c = Cell { rowid: 7, coords: [Coord::F(1.0), Coord::F(2.0), Coord::F(-3.0), Coord::F(4.0)].into_iter().collect() };
        assert!(n.push(&c));
        assert!(n.push(&Cell { rowid: 8, ..c }));
        assert_eq!(n.cell(0), c);
        n.remove(0);
        assert_eq!(n.cell_count(), 1);
        assert_eq!(n.rowid(0), 8);
    }
}
