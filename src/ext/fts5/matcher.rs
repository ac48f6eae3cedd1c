//! # Evaluating a query against one row's tokens
//!
//! A row is a list of columns, each a list of folded tokens (position =
//! index). A phrase instance is a place where its tokens appear one
//! after the other in a column it may match in (prefix tokens match any
//! token they start). The expression is evaluated bottom-up; phrases of a
//! sub-expression that did not match lose their instances, and a NEAR
//! group keeps only the instances that take part in a qualifying clump,
//! so what is left is what the auxiliary functions report (`xInst`).
//!
//! Invariant: instances of each phrase found in a row (its content, or
//! its tokens rebuilt from the index) are sorted by (column, position)
//! (checked: fts5_instances_sorted). Those read from the index's position
//! lists are too, unless the index is damaged (a column number that goes
//! back), which costs matches, not safety.

use super::query::{Node, Phrase, Query};
use super::tokenizer::{any_colocated, by_position, positioned, Token};

/// One phrase instance: column, first token position, token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Column.
    pub col: usize,
    /// Position of the first token.
    pub pos: usize,
    /// Number of tokens.
    pub len: usize,
}

/// The instances of `p` in `doc` (columns of folded tokens, one per
/// position).
pub fn phrase_instances(p: &Phrase, doc: &[Vec<String>]) -> Vec<Inst> {
    instances_by(p, doc.len(), |c| doc[c].len(), |k, c, s| p.holds(k, &doc[c][s]))
}

/// The instances of `p` in a row's tokenized columns, where colocated
/// tokens share their position with the token before them.
pub fn token_instances(p: &Phrase, doc: &[Vec<Token>]) -> Vec<Inst> {
    if !any_colocated(doc) {
        return instances_by(p, doc.len(), |c| doc[c].len(), |k, c, s| p.holds(k, &doc[c][s].text));
    }
    let grouped: Vec<Vec<Vec<String>>> = doc.iter().map(|c| by_position(c)).collect();
    phrase_instances_multi(p, &grouped)
}

/// The instances of a one-token phrase as SQLite finds them by
/// tokenizing a row's content (for xInst under `detail=column`/`none`):
/// every token that matches counts, so a position whose colocated
/// tokens match several times gives as many instances (observed).
pub fn content_instances(p: &Phrase, doc: &[Vec<Token>]) -> Vec<Inst> {
    if p.tokens.len() != 1 || !any_colocated(doc) {
        return token_instances(p, doc);
    }
    let mut out = Vec::new();
    for (c, toks) in doc.iter().enumerate().filter(|(c, _)| p.cols.get(*c).copied().unwrap_or(false)) {
        for (pos, t) in positioned(toks) {
            if (!p.initial || pos == 0) && p.holds(0, &t.text) {
                out.push(Inst { col: c, pos, len: 1 });
            }
        }
    }
    out
}

/// [`evaluate`] on a row's tokenized columns.
pub fn evaluate_tokens(q: &Query, doc: &[Vec<Token>], inst: &mut Vec<Vec<Inst>>) -> bool {
    *inst = q.phrases.iter().map(|p| token_instances(p, doc)).collect();
    // invariant: fts5_instances_sorted
    debug_assert!(inst.iter().all(|i| sorted(i)), "phrase instances out of order");
    eval(&q.root, &q.phrases, None, inst) == Some(true)
}

/// The instances of `p` in a row of `ncol` columns, column `c` holding
/// `len(c)` positions, where `holds(k, c, s)` says whether token `k` of
/// the phrase matches at position `s` of column `c`.
fn instances_by(p: &Phrase, ncol: usize, len: impl Fn(usize) -> usize, holds: impl Fn(usize, usize, usize) -> bool) -> Vec<Inst> {
    let mut out = Vec::new();
    if p.tokens.is_empty() {
        return out;
    }
    for c in 0..ncol {
        let n = len(c);
        if !p.cols.get(c).copied().unwrap_or(false) || n < p.tokens.len() {
            continue;
        }
        let last = if p.initial { 0 } else { n - p.tokens.len() };
        for s in 0..=last {
            if (0..p.tokens.len()).all(|k| holds(k, c, s + k)) {
                out.push(Inst { col: c, pos: s, len: p.tokens.len() });
            }
        }
    }
    out
}

/// Whether the query matches `doc`; on return `inst[i]` holds the
/// instances of phrase `i` that count for this row.
pub fn evaluate(q: &Query, doc: &[Vec<String>], inst: &mut Vec<Vec<Inst>>) -> bool {
    *inst = q.phrases.iter().map(|p| phrase_instances(p, doc)).collect();
    // invariant: fts5_instances_sorted
    debug_assert!(inst.iter().all(|i| sorted(i)), "phrase instances out of order");
    eval(&q.root, &q.phrases, None, inst) == Some(true)
}

/// [`evaluate`] where whether each phrase occurs in the row is known
/// apart from its instances (an index without positions says which rows
/// hold a term; the instances come from tokenizing the row's content,
/// or there are none for a contentless table).
pub fn evaluate_hits(q: &Query, hits: &[bool], inst: &mut [Vec<Inst>]) -> bool {
    debug_assert_eq!(hits.len(), q.phrases.len());
    eval(&q.root, &q.phrases, Some(hits), inst) == Some(true)
}

/// [`evaluate`] on instances already found (from the index): on
/// return `inst[i]` holds those that count for this row.
pub fn evaluate_instances(q: &Query, inst: &mut [Vec<Inst>]) -> bool {
    eval(&q.root, &q.phrases, None, inst) == Some(true)
}

/// Whether instances are in (column, position) order.
fn sorted(inst: &[Inst]) -> bool {
    inst.windows(2).all(|w| (w[0].col, w[0].pos) <= (w[1].col, w[1].pos))
}

/// Whether `n` is made only of empty phrases (SQLite's empty
/// expression: ANDed with other MATCH constraints, no row matches).
pub fn is_empty(n: &Node, phrases: &[Phrase]) -> bool {
    let mut ps = Vec::new();
    phrases_of(n, &mut ps);
    ps.iter().all(|&i| phrases[i].tokens.is_empty())
}

fn phrases_of(n: &Node, out: &mut Vec<usize>) {
    match n {
        Node::Phrase(i) => out.push(*i),
        Node::Near(l, _) => out.extend(l),
        Node::And(a, b) | Node::Or(a, b) | Node::Not(a, b) => {
            phrases_of(a, out);
            phrases_of(b, out);
        }
    }
}

/// Drop the instances of `n`'s phrases (the node did not match).
fn clear(n: &Node, inst: &mut [Vec<Inst>]) {
    match n {
        Node::Phrase(i) => inst[*i].clear(),
        Node::Near(l, _) => l.iter().for_each(|&i| inst[i].clear()),
        Node::And(a, b) | Node::Or(a, b) | Node::Not(a, b) => {
            clear(a, inst);
            clear(b, inst);
        }
    }
}

/// Whether `n` matches; None for a phrase or NEAR group made only of
/// empty phrases (a string that tokenizes to nothing): SQLite's EOF
/// node, which matches no row, so an AND or NOT with it on the left
/// fails, and an OR or a NOT with it on the right is its other side.
/// (Juxtaposed, the parser has already dropped it, see `query`.)
fn eval(n: &Node, phrases: &[Phrase], hits: Option<&[bool]>, inst: &mut [Vec<Inst>]) -> Option<bool> {
    let hit = |i: usize, inst: &[Vec<Inst>]| hits.map_or(!inst[i].is_empty(), |h| h[i]);
    let r = match n {
        Node::Phrase(i) if phrases[*i].tokens.is_empty() => None,
        Node::Phrase(i) => Some(hit(*i, inst)),
        Node::Near(list, dist) => {
            let live: Vec<usize> = list.iter().copied().filter(|&i| !phrases[i].tokens.is_empty()).collect();
            match live.len() {
                0 => None,
                1 => Some(hit(live[0], inst)),
                // Positions known only through instances (the parser
                // refuses NEAR groups where the index has none).
                _ => Some(live.iter().all(|&i| hit(i, inst)) && near(&live, *dist, inst)),
            }
        }
        Node::And(a, b) => {
            let x = eval(a, phrases, hits, inst);
            let y = eval(b, phrases, hits, inst);
            match (x, y) {
                (Some(x), Some(y)) => Some(x && y),
                _ => Some(false),
            }
        }
        Node::Or(a, b) => {
            let x = eval(a, phrases, hits, inst);
            let y = eval(b, phrases, hits, inst);
            match (x, y) {
                (Some(x), Some(y)) => Some(x || y),
                (x, y) => x.or(y),
            }
        }
        Node::Not(a, b) => {
            let x = eval(a, phrases, hits, inst);
            let y = eval(b, phrases, hits, inst);
            clear(b, inst);
            match (x, y) {
                (Some(x), Some(y)) => Some(x && !y),
                (Some(x), None) => Some(x),
                (None, _) => Some(false),
            }
        }
    };
    if r != Some(true) {
        clear(n, inst);
    }
    r
}

/// A NEAR group matches where, in one column, some instance of every
/// phrase lies in a clump whose last start is at most `dist` tokens past
/// its first end. Anchoring each clump at the instance that ends first
/// finds every clump; the instances kept are those of some clump.
fn near(list: &[usize], dist: usize, inst: &mut [Vec<Inst>]) -> bool {
    let mut keep: Vec<Vec<bool>> = list.iter().map(|&p| vec![false; inst[p].len()]).collect();
    let mut any = false;
    for &anchor_p in list {
        for a in &inst[anchor_p] {
            let m = a.pos + a.len;
            let fits = |x: &Inst| x.col == a.col && x.pos + x.len >= m && x.pos <= m + dist;
            if list.iter().all(|&p| inst[p].iter().any(fits)) {
                any = true;
                for (k, &p) in list.iter().enumerate() {
                    for (j, x) in inst[p].iter().enumerate() {
                        if fits(x) {
                            keep[k][j] = true;
                        }
                    }
                }
            }
        }
    }
    for (k, &p) in list.iter().enumerate() {
        let mut j = 0;
        inst[p].retain(|_| {
            j += 1;
            keep[k][j - 1]
        });
    }
    any
}

/// The instances of `p` in a row read back from the index, where a
/// position may hold several tokens (an index written with mismatched
/// deletes, or a contentless row inserted twice, keeps both).
pub fn phrase_instances_multi(p: &Phrase, doc: &[Vec<Vec<String>>]) -> Vec<Inst> {
    instances_by(p, doc.len(), |c| doc[c].len(), |k, c, s| doc[c][s].iter().any(|d| p.holds(k, d)))
}

/// [`evaluate`] for a row read back from the index.
pub fn evaluate_multi(q: &Query, doc: &[Vec<Vec<String>>], inst: &mut Vec<Vec<Inst>>) -> bool {
    *inst = q.phrases.iter().map(|p| phrase_instances_multi(p, doc)).collect();
    // invariant: fts5_instances_sorted
    debug_assert!(inst.iter().all(|i| sorted(i)), "phrase instances out of order");
    eval(&q.root, &q.phrases, None, inst) == Some(true)
}
