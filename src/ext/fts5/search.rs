//! # Answering a MATCH from the index (`detail=full`)
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
//! Invariant: for each phrase, [`Found::nhit`] counts the rows in which
//! it has an instance (bm25's document frequency), and each matched
//! row's instances equal `matcher::phrase_instances_multi` on the row
//! rebuilt from the index.

use super::config::Config;
use super::lookup::{Hits, Reader};
use super::matcher::{self, Inst};
use super::pending::Pending;
use super::query::{Node, Phrase, Query};
use crate::connection::Connection;
use crate::error::Result;
use std::collections::{BTreeMap, HashMap};

/// The rows a query matches, in rowid order.
pub struct Found {
    /// Per matched row: rowid, then per phrase its instances.
    pub rows: Vec<(i64, Vec<Vec<Inst>>)>,
    /// Per phrase: rows in which it has an instance.
    pub nhit: Vec<i64>,
}

/// A phrase's rows with their instances.
type PhraseRows = BTreeMap<i64, Vec<Inst>>;

/// Evaluate `q` on the index of `cfg` (with `p`'s pending changes).
pub fn run(c: &mut Connection, cfg: &Config, q: &Query, p: &Pending) -> Result<Found> {
    let mut reader = Reader::new(c, cfg, p)?;
    let mut tokens: HashMap<(String, bool), Hits> = HashMap::new();
    let mut per_phrase = Vec::with_capacity(q.phrases.len());
    for ph in &q.phrases {
        for (t, prefix) in &ph.tokens {
            let key = (t.clone(), *prefix);
            if let std::collections::hash_map::Entry::Vacant(e) = tokens.entry(key) {
                e.insert(reader.token(c, t, *prefix)?);
            }
        }
        let lists: Vec<&Hits> = ph.tokens.iter().map(|(t, prefix)| &tokens[&(t.clone(), *prefix)]).collect();
        per_phrase.push(phrase_rows(ph, &lists));
    }
    let nhit = per_phrase.iter().map(|m| m.len() as i64).collect();
    let mut rows = Vec::new();
    if let Some(cands) = candidates(&q.root, &q.phrases, &per_phrase) {
        for rowid in cands {
            let mut inst: Vec<Vec<Inst>> = per_phrase.iter().map(|m| m.get(&rowid).cloned().unwrap_or_default()).collect();
            if matcher::evaluate_instances(q, &mut inst) {
                rows.push((rowid, inst));
            }
        }
    }
    Ok(Found { rows, nhit })
}

/// The rows where `ph` has instances. `lists[k]`: the hits of token k.
fn phrase_rows(ph: &Phrase, lists: &[&Hits]) -> PhraseRows {
    let mut out = PhraseRows::new();
    let Some(first) = lists.first() else { return out };
    // Walk the rarest token's rows, looking the others up.
    let rarest = (0..lists.len()).min_by_key(|&k| lists[k].len()).unwrap_or(0);
    for rowid in lists[rarest].keys() {
        let Some(p0) = first.get(rowid) else { continue };
        let rest: Option<Vec<&Vec<(usize, usize)>>> = lists[1..].iter().map(|l| l.get(rowid)).collect();
        let Some(rest) = rest else { continue };
        let mut inst = Vec::new();
        for &(col, pos) in p0 {
            if !ph.cols.get(col).copied().unwrap_or(false) || (ph.initial && pos != 0) {
                continue;
            }
            if rest.iter().enumerate().all(|(k, l)| l.binary_search(&(col, pos + k + 1)).is_ok()) {
                // (A position holding several of the phrase's first
                // tokens gives one instance.)
                if inst.last() != Some(&Inst { col, pos, len: ph.tokens.len() }) {
                    inst.push(Inst { col, pos, len: ph.tokens.len() });
                }
            }
        }
        if !inst.is_empty() {
            out.insert(*rowid, inst);
        }
    }
    out
}

/// The rows that may match `n`, ascending (None: a node made only of
/// empty phrases, which takes no part in the expression).
fn candidates(n: &Node, phrases: &[Phrase], rows: &[PhraseRows]) -> Option<Vec<i64>> {
    match n {
        Node::Phrase(i) if phrases[*i].tokens.is_empty() => None,
        Node::Phrase(i) => Some(rows[*i].keys().copied().collect()),
        Node::Near(list, _) => {
            let mut acc: Option<Vec<i64>> = None;
            for &i in list.iter().filter(|&&i| !phrases[i].tokens.is_empty()) {
                let r: Vec<i64> = rows[i].keys().copied().collect();
                acc = Some(match acc {
                    None => r,
                    Some(a) => intersect(&a, &r),
                });
            }
            acc
        }
        Node::And(a, b) => match (candidates(a, phrases, rows), candidates(b, phrases, rows)) {
            (Some(x), Some(y)) => Some(intersect(&x, &y)),
            (x, y) => x.or(y),
        },
        Node::Or(a, b) => match (candidates(a, phrases, rows), candidates(b, phrases, rows)) {
            (Some(x), Some(y)) => Some(union(&x, &y)),
            (x, y) => x.or(y),
        },
        // The right side only removes rows; the matcher decides.
        Node::Not(a, _) => candidates(a, phrases, rows),
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
