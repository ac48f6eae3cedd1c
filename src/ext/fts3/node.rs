//! # Segment b-tree nodes and the writer that lays a segment out
//!
//! A node starts with its height (0 for a leaf). A leaf holds terms in
//! memcmp order, the first in full (length, bytes), the others as the
//! length of the prefix shared with the previous term, then the suffix's
//! length and bytes; each term is followed by its doclist's length and
//! bytes. An interior node holds, after its height, the blockid of its
//! leftmost child, then separator terms compressed the same way (child
//! `i + 1` holds the terms from separator `i` on); its children are the
//! consecutive blockids from the leftmost one.
//!
//! The writer fills a leaf until the next term would push it past the
//! node size (the page size minus 35, as SQLite sizes them); a segment
//! that fits in one leaf is stored whole as the root in `%_segdir`.
//! Separators are the shortest prefix of a leaf's first term that sorts
//! after the previous leaf's last term.
//!
//! Invariants: terms are strictly increasing within a node and a segment
//! (checked: fts3_node_terms); nodes of one level get consecutive blockids,
//! leaves first.

use super::varint;

/// The header room SQLite's segment writer counts in an interior node:
/// the height byte and the longest varint.
const INTERIOR_HEADER_RESERVE: usize = 1 + 10;

/// Length of the common prefix of `a` and `b`.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Decode a leaf into `(term, doclist)` pairs; `None` if malformed.
pub fn decode_leaf(buf: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut pos = 0;
    let h = varint::get(buf, &mut pos)?;
    if h != 0 {
        return None;
    }
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut term: Vec<u8> = Vec::new();
    while pos < buf.len() {
        let prefix = if out.is_empty() { 0 } else { varint::get(buf, &mut pos)? as usize };
        let suffix = varint::get(buf, &mut pos)? as usize;
        if prefix > term.len() || pos + suffix > buf.len() {
            return None;
        }
        term.truncate(prefix);
        term.extend_from_slice(&buf[pos..pos + suffix]);
        pos += suffix;
        let dl = varint::get(buf, &mut pos)? as usize;
        if pos + dl > buf.len() {
            return None;
        }
        out.push((term.clone(), buf[pos..pos + dl].to_vec()));
        pos += dl;
    }
    Some(out)
}

/// An interior node: height, leftmost child, separators.
pub struct Interior {
    /// Height (at least 1).
    pub height: i64,
    /// Blockid of the leftmost child.
    pub left: i64,
    /// Separator terms.
    pub terms: Vec<Vec<u8>>,
}

/// Decode an interior node; `None` if malformed.
pub fn decode_interior(buf: &[u8]) -> Option<Interior> {
    let mut pos = 0;
    let height = varint::get(buf, &mut pos)?;
    if height < 1 {
        return None;
    }
    let left = varint::get(buf, &mut pos)?;
    let mut terms: Vec<Vec<u8>> = Vec::new();
    let mut term: Vec<u8> = Vec::new();
    while pos < buf.len() {
        let prefix = if terms.is_empty() { 0 } else { varint::get(buf, &mut pos)? as usize };
        let suffix = varint::get(buf, &mut pos)? as usize;
        if prefix > term.len() || pos + suffix > buf.len() {
            return None;
        }
        term.truncate(prefix);
        term.extend_from_slice(&buf[pos..pos + suffix]);
        pos += suffix;
        terms.push(term.clone());
    }
    Some(Interior { height, left, terms })
}

/// A segment laid out: nodes for `%_segments` and the `%_segdir` row.
pub struct Layout {
    /// `(blockid, node)` to insert.
    pub blocks: Vec<(i64, Vec<u8>)>,
    /// `start_block`.
    pub start: i64,
    /// `leaves_end_block`.
    pub leaves_end: i64,
    /// The first number of `end_block`.
    pub end: i64,
    /// Total bytes of the leaves (the second number of `end_block`).
    pub leaf_bytes: i64,
    /// The root node.
    pub root: Vec<u8>,
}

/// Builds a segment from terms given in order.
pub struct SegmentWriter {
    node_size: usize,
    first_block: i64,
    leaves: Vec<Vec<u8>>,
    /// Separator of each leaf after the first.
    seps: Vec<Vec<u8>>,
    cur: Vec<u8>,
    cur_terms: usize,
    prev: Vec<u8>,
}

impl SegmentWriter {
    /// A writer whose nodes get blockids from `first_block` on.
    pub fn new(node_size: usize, first_block: i64) -> SegmentWriter {
        SegmentWriter { node_size, first_block, leaves: Vec::new(), seps: Vec::new(), cur: vec![0], cur_terms: 0, prev: Vec::new() }
    }

    /// Whether no term was added.
    pub fn is_empty(&self) -> bool {
        self.cur_terms == 0 && self.leaves.is_empty()
    }

    /// Add `term` with its encoded doclist.
    pub fn add(&mut self, term: &[u8], doclist: &[u8]) {
        // invariant: fts3_node_terms
        debug_assert!(self.is_empty() || term > &self.prev[..]);
        let p = if self.cur_terms == 0 { 0 } else { common_prefix(&self.prev, term) };
        let suffix = term.len() - p;
        let mut n = varint::len(suffix as i64) + suffix + varint::len(doclist.len() as i64) + doclist.len();
        if self.cur_terms > 0 {
            n += varint::len(p as i64);
        }
        if self.cur_terms > 0 && self.cur.len() + n > self.node_size {
            let done = std::mem::replace(&mut self.cur, vec![0]);
            self.leaves.push(done);
            let keep = common_prefix(&self.prev, term) + 1;
            self.seps.push(term[..keep.min(term.len())].to_vec());
            self.cur_terms = 0;
        }
        if self.cur_terms > 0 {
            let p = common_prefix(&self.prev, term);
            varint::put(&mut self.cur, p as i64);
            varint::put(&mut self.cur, (term.len() - p) as i64);
            self.cur.extend_from_slice(&term[p..]);
        } else {
            varint::put(&mut self.cur, term.len() as i64);
            self.cur.extend_from_slice(term);
        }
        varint::put(&mut self.cur, doclist.len() as i64);
        self.cur.extend_from_slice(doclist);
        self.cur_terms += 1;
        self.prev = term.to_vec();
    }

    /// Lay the segment out.
    pub fn finish(self) -> Layout {
        self.lay_out(None)
    }

    /// Lay the segment out as SQLite's incremental merge (`merge=X,Y`)
    /// leaves it: never root-only, and the nodes of height `h` from
    /// blockid `first_block + h * n_leaf_est` on (the space that merge
    /// reserves per height so it can append later).
    pub fn finish_appendable(self, n_leaf_est: i64) -> Layout {
        debug_assert!(n_leaf_est > 0);
        self.lay_out(Some(n_leaf_est))
    }

    fn lay_out(mut self, appendable: Option<i64>) -> Layout {
        if self.leaves.is_empty() && appendable.is_none() {
            let n = self.cur.len() as i64;
            return Layout { blocks: Vec::new(), start: 0, leaves_end: 0, end: 0, leaf_bytes: n, root: self.cur };
        }
        if self.cur_terms > 0 || self.leaves.is_empty() {
            let done = std::mem::take(&mut self.cur);
            self.leaves.push(done);
        }
        let mut blocks = Vec::new();
        let mut id = self.first_block;
        let mut leaf_bytes = 0i64;
        for l in self.leaves {
            leaf_bytes += l.len() as i64;
            blocks.push((id, l));
            id += 1;
        }
        let start = self.first_block;
        let leaves_end = id - 1;
        // Each level: (leftmost child blockid, separators of the others).
        let mut children_first = start;
        let mut seps = self.seps;
        let mut height = 1i64;
        loop {
            let mut nodes: Vec<Vec<u8>> = Vec::new();
            let mut up_seps: Vec<Vec<u8>> = Vec::new();
            let mut node = Vec::new();
            varint::put(&mut node, height);
            varint::put(&mut node, children_first);
            let mut hdr = node.len();
            let mut nterms = 0usize;
            let mut prev: Vec<u8> = Vec::new();
            for (i, s) in seps.iter().enumerate() {
                let child = children_first + 1 + i as i64;
                let p = if nterms == 0 { 0 } else { common_prefix(&prev, s) };
                let mut n = varint::len((s.len() - p) as i64) + s.len() - p;
                if nterms > 0 {
                    n += varint::len(p as i64);
                }
                // SQLite's segment writer counts a node's header as the
                // most it could take (1 + 10 bytes); its incremental
                // merge counts the bytes the node has.
                let used = match appendable {
                    Some(_) => node.len(),
                    None => node.len() - hdr + INTERIOR_HEADER_RESERVE,
                };
                if nterms > 0 && used + n > self.node_size {
                    nodes.push(std::mem::take(&mut node));
                    up_seps.push(s.clone());
                    varint::put(&mut node, height);
                    varint::put(&mut node, child);
                    hdr = node.len();
                    nterms = 0;
                    continue;
                }
                if nterms > 0 {
                    varint::put(&mut node, p as i64);
                }
                varint::put(&mut node, (s.len() - p) as i64);
                node.extend_from_slice(&s[p..]);
                nterms += 1;
                prev = s.clone();
            }
            nodes.push(node);
            if nodes.len() == 1 {
                let root = nodes.pop().unwrap_or_default();
                return Layout { blocks, start, leaves_end, end: id - 1, leaf_bytes, root };
            }
            let mut nid = match appendable {
                Some(est) => start + height * est,
                None => id,
            };
            children_first = nid;
            for n in nodes {
                blocks.push((nid, n));
                nid += 1;
            }
            if appendable.is_none() {
                id = nid;
            }
            seps = up_seps;
            height += 1;
        }
    }
}
