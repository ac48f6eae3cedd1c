//! # Answering a MATCH from the index
//!
//! The rows a query matches and the phrase instances the auxiliary
//! functions see, computed from the doclists of the query's tokens
//! (`lookup.rs`) instead of from every row's tokens: a phrase's rows are
//! those holding all its tokens, its instances the places where they
//! follow each other in a column it may match in (`^`: at position 0);
//! the candidate rows are the phrases' rows combined as the expression
//! says (AND: both, OR: either, NOT: the left's, NEAR: all its phrases);
//! each candidate is then decided by `matcher.rs` on the instances, so
//! NEAR, NOT and the instances kept are exactly as for a row tokenized
//! whole. A position may hold several tokens (colocated tokens, or a
//! contentless row inserted twice): every token held there counts.
//!
//! Under `detail=column`/`none` the parser allows only one-token
//! phrases without `^` and no NEAR groups, so which rows (and columns)
//! hold a phrase is all the index must say; the instances the auxiliary
//! functions see then come from the rows' content (`rows.rs`).
//!
//! Invariant: for each phrase, [`Found::nhit`] counts the rows in which
//! it has an instance (bm25's document frequency), and each matched
//! row's instances equal `matcher::phrase_instances_multi` on the row
//! rebuilt from the index.

use super::config::{Config, Detail};
use super::lookup::{Hits, IdxCache, Reader};
use super::matcher::{self, Inst};
use super::pending::Pending;
use super::query::{Node, Phrase, Query};
use super::rows::Matched;
use crate::connection::Connection;
use crate::error::Result;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The rows a query matches, in rowid order.
pub struct Found {
    /// The matched rows with, per phrase, its instances (under
    /// `detail=column`/`none`: one stand-in instance per column, or for
    /// the row, holding the phrase, whether or not its part of the
    /// expression matched). Sizes are not filled in yet (`rows::build`).
    pub rows: Matched,
    /// Per phrase: rows in which it has an instance.
    pub nhit: Vec<i64>,
}

/// A phrase's rows with their instances, ascending, kept flat (one
/// allocation for all rows, not one per row).
#[derive(Default)]
struct PhraseRows {
    rowids: Vec<i64>,
    /// Row k's instances are `inst[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    inst: Vec<Inst>,
}

impl PhraseRows {
    fn len(&self) -> usize {
        self.rowids.len()
    }

    fn row(&self, k: usize) -> &[Inst] {
        &self.inst[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Evaluate `q` on the index of `cfg` (with `p`'s pending changes;
/// `idx`: the table's `%_idx` entries read so far).
pub fn run(c: &mut Connection, cfg: &Config, q: &Query, p: &Pending, idx: &Arc<Mutex<IdxCache>>) -> Result<Found> {
    let mut reader = Reader::new(c, cfg, p, idx)?;
    let mut tokens: HashMap<(String, bool), Hits> = HashMap::new();
    let mut per_phrase = Vec::with_capacity(q.phrases.len());
    for ph in &q.phrases {
        for (k, (t, prefix)) in ph.tokens.iter().enumerate() {
            for t in std::iter::once(t).chain(ph.alts.get(k).into_iter().flatten()) {
                let key = (t.clone(), *prefix);
                if let std::collections::hash_map::Entry::Vacant(e) = tokens.entry(key) {
                    e.insert(reader.token(c, t, *prefix)?);
                }
            }
        }
        // A token with synonyms (colocated query tokens) holds where any
        // of them does.
        let merged: Vec<Option<Hits>> = ph
            .tokens
            .iter()
            .enumerate()
            .map(|(k, (t, prefix))| {
                let alts = ph.alts.get(k).filter(|a| !a.is_empty())?;
                Some(alts.iter().fold(tokens[&(t.clone(), *prefix)].clone(), |acc, a| acc.union(&tokens[&(a.clone(), *prefix)])))
            })
            .collect();
        let lists: Vec<&Hits> = ph.tokens.iter().zip(&merged).map(|((t, prefix), m)| m.as_ref().unwrap_or_else(|| &tokens[&(t.clone(), *prefix)])).collect();
        per_phrase.push(phrase_rows(ph, &lists));
    }
    super::lookup::recycle(tokens.into_values());
    let nhit = per_phrase.iter().map(|m| m.len() as i64).collect();
    let positions = cfg.detail == Detail::Full;
    let mut rows = Matched::new(q.phrases.len(), cfg.columns.len());
    if let Some(cands) = candidates(&q.root, &q.phrases, &per_phrase) {
        // Candidates ascend, as each phrase's rows do: one cursor per
        // phrase walks forward; one set of instance lists is reused.
        let mut at = vec![0usize; per_phrase.len()];
        let mut inst: Vec<Vec<Inst>> = vec![Vec::new(); per_phrase.len()];
        let mut check: Vec<Vec<Inst>> = Vec::new();
        rows.reserve(cands.len(), per_phrase.iter().map(|m| m.inst.len()).max().unwrap_or(0));
        for rowid in cands {
            for (k, m) in per_phrase.iter().enumerate() {
                while at[k] < m.len() && m.rowids[at[k]] < rowid {
                    at[k] += 1;
                }
                inst[k].clear();
                if m.rowids.get(at[k]) == Some(&rowid) {
                    inst[k].extend_from_slice(m.row(at[k]));
                }
            }
            if !positions {
                // The instances stand for the hits (column, or row, known;
                // positions not): kept whole, as the row's instances come
                // from its content later (`rows::with_instances`).
                check.clone_from(&inst);
                if matcher::evaluate_instances(q, &mut check) {
                    rows.push(rowid, &inst);
                }
            } else if matcher::evaluate_instances(q, &mut inst) {
                rows.push(rowid, &inst);
            }
        }
    }
    Ok(Found { rows, nhit })
}

/// The rows where `ph` has instances. `lists[k]`: the hits of token k.
fn phrase_rows(ph: &Phrase, lists: &[&Hits]) -> PhraseRows {
    let mut out = PhraseRows { start: vec![0], ..PhraseRows::default() };
    let Some(first) = lists.first() else { return out };
    // Walk the rarest token's rows, looking the others up.
    let rarest = (0..lists.len()).min_by_key(|&k| lists[k].len()).unwrap_or(0);
    out.rowids.reserve(lists[rarest].len());
    out.start.reserve(lists[rarest].len());
    let mut rest: Vec<&[(usize, usize)]> = Vec::with_capacity(lists.len());
    for (kr, rowid) in lists[rarest].rowids().iter().enumerate() {
        let p0 = if rarest == 0 {
            first.row(kr)
        } else {
            let Some(p0) = first.get(*rowid) else { continue };
            p0
        };
        rest.clear();
        if !lists[1..].iter().all(|l| l.get(*rowid).map(|r| rest.push(r)).is_some()) {
            continue;
        }
        let from = out.inst.len();
        for &(col, pos) in p0 {
            if !ph.cols.get(col).copied().unwrap_or(false) || (ph.initial && pos != 0) {
                continue;
            }
            if rest.iter().enumerate().all(|(k, l)| l.binary_search(&(col, pos + k + 1)).is_ok()) {
                // (A position holding several of the phrase's first
                // tokens gives one instance.)
                let i = Inst { col, pos, len: ph.tokens.len() };
                if out.inst.len() == from || out.inst.last() != Some(&i) {
                    out.inst.push(i);
                }
            }
        }
        if out.inst.len() > from {
            out.rowids.push(*rowid);
            out.start.push(out.inst.len() as u32);
        }
    }
    out
}

/// The rows that may match `n`, ascending (None: a phrase or NEAR group
/// made only of empty phrases, which matches no row; an OR takes its
/// other side).
fn candidates(n: &Node, phrases: &[Phrase], rows: &[PhraseRows]) -> Option<Vec<i64>> {
    match n {
        Node::Phrase(i) if phrases[*i].tokens.is_empty() => None,
        Node::Phrase(i) => Some(rows[*i].rowids.clone()),
        Node::Near(list, _) => {
            let mut acc: Option<Vec<i64>> = None;
            for &i in list.iter().filter(|&&i| !phrases[i].tokens.is_empty()) {
                acc = Some(match acc {
                    None => rows[i].rowids.clone(),
                    Some(a) => intersect(&a, &rows[i].rowids),
                });
            }
            acc
        }
        // An empty node matches no row (see `matcher::eval`).
        Node::And(a, b) => match (candidates(a, phrases, rows), candidates(b, phrases, rows)) {
            (Some(x), Some(y)) => Some(intersect(&x, &y)),
            _ => Some(Vec::new()),
        },
        Node::Or(a, b) => match (candidates(a, phrases, rows), candidates(b, phrases, rows)) {
            (Some(x), Some(y)) => Some(union(&x, &y)),
            (x, y) => x.or(y),
        },
        // The right side only removes rows; the matcher decides.
        Node::Not(a, _) => Some(candidates(a, phrases, rows).unwrap_or_default()),
    }
}

fn intersect(a: &[i64], b: &[i64]) -> Vec<i64> {
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small.iter().copied().filter(|x| big.binary_search(x).is_ok()).collect()
}

fn union(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
                *x
            }
            (Some(x), Some(y)) if x < y => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}
