//! # Evaluating a query against the index
//!
//! Each phrase is resolved to a map from docid to its match positions
//! per column (the position of the phrase's first token): the doclists
//! of its tokens (every term of a prefix token merged), newest segment
//! winning per docid, intersected at consecutive positions, restricted
//! to its column filter and to position 0 for `^` tokens. NEAR groups
//! then keep only documents, and positions, where each phrase lies
//! within N tokens of the next one in the same column. The boolean tree
//! is evaluated on the docid sets.
//!
//! Invariants: every [`DocMap`] value is non-empty, its columns sorted;
//! a phrase's map in [`Run::hits`] is a subset of its map in [`Run::all`]
//! (checked: fts3_docmaps). Positions ascend as the segments give them
//! (a damaged segment's may not: that costs matches, not safety).

use super::config::Config;
use super::doclist::{self, Entry};
use super::expr::{Expr, Phrase, Query};
use super::segments::{self, Range};
use crate::connection::Connection;
use crate::error::Result;
use crate::util::cold_sort::{map_from, set_from};
use std::collections::{BTreeMap, BTreeSet};

/// Docid to `(column, positions)`.
pub type DocMap = BTreeMap<i64, Vec<(usize, Vec<i64>)>>;

/// A query run over the whole index.
pub struct Run {
    /// The query.
    pub query: Query,
    /// Per phrase: its matches before NEAR filtering.
    pub all: Vec<DocMap>,
    /// Per phrase: its matches after NEAR filtering.
    pub hits: Vec<DocMap>,
    /// Matching docids, ascending.
    pub docids: Vec<i64>,
}

/// Whether every document of `m` has columns, in order.
fn well_formed(m: &DocMap) -> bool {
    m.values().all(|cols| !cols.is_empty() && cols.windows(2).all(|w| w[0].0 < w[1].0))
}

fn entries_to_map(entries: Vec<Entry>) -> DocMap {
    map_from(entries.into_iter().filter(|e| !e.is_delete()).map(|e| (e.docid, e.cols)))
}

/// Union of positions of several terms (prefix tokens).
fn union(maps: Vec<DocMap>) -> DocMap {
    let mut out: BTreeMap<i64, BTreeMap<usize, BTreeSet<i64>>> = BTreeMap::new();
    for m in maps {
        for (d, cols) in m {
            let e = out.entry(d).or_default();
            for (c, ps) in cols {
                e.entry(c).or_default().extend(ps);
            }
        }
    }
    map_from(out.into_iter().map(|(d, cols)| (d, cols.into_iter().map(|(c, ps)| (c, ps.into_iter().collect())).collect())))
}

/// The matches of one token.
fn token_map(c: &mut Connection, cfg: &Config, pending: Option<&BTreeMap<Vec<u8>, Vec<Entry>>>, langid: i64, term: &[u8], prefix: bool) -> Result<DocMap> {
    let range = if prefix { Range::Prefix(term) } else { Range::Exact(term) };
    let versions = segments::gather(c, cfg, langid, 0, range, pending)?;
    let maps: Vec<DocMap> = versions.into_values().map(|v| entries_to_map(doclist::merge_versions(v, false, false))).collect();
    if maps.len() == 1 {
        return Ok(maps.into_iter().next().unwrap_or_default());
    }
    Ok(union(maps))
}

/// The matches of a phrase.
pub fn phrase_map(c: &mut Connection, cfg: &Config, pending: Option<&BTreeMap<Vec<u8>, Vec<Entry>>>, langid: i64, p: &Phrase) -> Result<DocMap> {
    let mut maps = Vec::new();
    for t in &p.tokens {
        maps.push(token_map(c, cfg, pending, langid, &t.term, t.prefix)?);
    }
    let Some(first) = maps.first() else {
        return Ok(DocMap::new());
    };
    let mut out = DocMap::new();
    for (d, cols0) in first {
        let mut cols_out = Vec::new();
        for (col, ps0) in cols0 {
            if p.column.is_some_and(|pc| pc != *col) {
                continue;
            }
            let mut ps: Vec<i64> = ps0.clone();
            for (k, m) in maps.iter().enumerate().skip(1) {
                let Some(cols) = m.get(d) else {
                    ps.clear();
                    break;
                };
                let Some((_, pk)) = cols.iter().find(|(c2, _)| c2 == col) else {
                    ps.clear();
                    break;
                };
                ps.retain(|p0| pk.binary_search(&(p0 + k as i64)).is_ok());
            }
            for (k, t) in p.tokens.iter().enumerate() {
                if t.first {
                    ps.retain(|p0| p0 + k as i64 == 0);
                }
            }
            if !ps.is_empty() {
                cols_out.push((*col, ps));
            }
        }
        if !cols_out.is_empty() {
            out.insert(*d, cols_out);
        }
    }
    Ok(out)
}

/// Whether `a` (phrase length `la`) and `b` (length `lb`) are within
/// `n` tokens of each other, as SQLite's FTS3 measures it (observed):
/// from the phrases' last tokens. Two matches ending on the same token
/// are one occurrence, never near; otherwise they may overlap (`"x"
/// NEAR "x y"` matches 'x y'), the later one ending at most `n` plus
/// its own length tokens after the earlier one's end.
fn near(a: i64, la: i64, b: i64, lb: i64, n: i64) -> bool {
    let (ea, eb) = (a + la - 1, b + lb - 1);
    match ea.cmp(&eb) {
        std::cmp::Ordering::Equal => false,
        std::cmp::Ordering::Less => eb - ea <= n + lb,
        std::cmp::Ordering::Greater => ea - eb <= n + la,
    }
}

/// Filter a NEAR group's phrase maps in place: only documents where, in
/// one column, every neighbouring pair has positions within distance.
fn apply_near(ps: &[usize], ds: &[i64], lens: &[i64], hits: &mut [DocMap]) {
    let docs: Vec<i64> = hits[ps[0]].keys().copied().filter(|d| ps.iter().all(|p| hits[*p].contains_key(d))).collect();
    let mut kept: Vec<DocMap> = vec![DocMap::new(); ps.len()];
    for d in docs {
        let cols: BTreeSet<usize> = set_from(hits[ps[0]][&d].iter().map(|(c, _)| *c));
        for col in cols {
            let mut lists: Vec<Vec<i64>> = Vec::new();
            for p in ps {
                lists.push(hits[*p][&d].iter().find(|(c, _)| *c == col).map(|(_, v)| v.clone()).unwrap_or_default());
            }
            // Keep positions having a partner on each side, to a fixpoint.
            loop {
                let mut changed = false;
                for i in 0..ps.len() {
                    let before = lists[i].len();
                    let mut keep = lists[i].clone();
                    if i > 0 {
                        let other = lists[i - 1].clone();
                        keep.retain(|x| other.iter().any(|y| near(*x, lens[ps[i]], *y, lens[ps[i - 1]], ds[i - 1])));
                    }
                    if i + 1 < ps.len() {
                        let other = lists[i + 1].clone();
                        keep.retain(|x| other.iter().any(|y| near(*x, lens[ps[i]], *y, lens[ps[i + 1]], ds[i])));
                    }
                    if keep.len() != before {
                        changed = true;
                    }
                    lists[i] = keep;
                }
                if !changed {
                    break;
                }
            }
            if lists.iter().all(|l| !l.is_empty()) {
                for (i, l) in lists.into_iter().enumerate() {
                    kept[i].entry(d).or_default().push((col, l));
                }
            }
        }
    }
    for (i, p) in ps.iter().enumerate() {
        hits[*p] = std::mem::take(&mut kept[i]);
    }
}

fn near_groups(e: &Expr, out: &mut Vec<(Vec<usize>, Vec<i64>)>) {
    match e {
        Expr::Phrase(_) => {}
        Expr::Near(ps, ds) => out.push((ps.clone(), ds.clone())),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Not(a, b) => {
            near_groups(a, out);
            near_groups(b, out);
        }
    }
}

fn docs(e: &Expr, hits: &[DocMap]) -> BTreeSet<i64> {
    match e {
        // (Sets built by insertion: `collect` would add a sort of its own.)
        Expr::Phrase(p) => set_from(hits[*p].keys().copied()),
        Expr::Near(ps, _) => set_from(hits[ps[0]].keys().copied()),
        Expr::And(a, b) => {
            let l = docs(a, hits);
            let r = docs(b, hits);
            set_from(l.intersection(&r).copied())
        }
        Expr::Or(a, b) => {
            let mut l = docs(a, hits);
            l.extend(docs(b, hits));
            l
        }
        Expr::Not(a, b) => {
            let l = docs(a, hits);
            let r = docs(b, hits);
            set_from(l.difference(&r).copied())
        }
    }
}

/// SQLite reads the table's totals (`%_stat` row 0) for a query of two
/// or more tokens when one of their doclists spills past a node (to
/// weigh which tokens to defer), and says the index is malformed when
/// the record is missing, not a blob, or counts no documents or no
/// bytes. The same check, the record read first so an intact table pays
/// one small read.
fn check_totals(c: &mut Connection, cfg: &Config, langid: i64, query: &Query) -> Result<()> {
    if !cfg.has_stat() || query.phrases.iter().map(|p| p.tokens.len()).sum::<usize>() < 2 {
        return Ok(());
    }
    let rows = super::shadow::query(c, &format!("SELECT value FROM {} WHERE id = 0", super::shadow::table(&cfg.db, &cfg.name, "stat")), &[])?;
    let intact = match rows.first().map(|r| &r[0]) {
        Some(crate::value::Value::Blob(b)) => {
            let mut p = 0;
            let n_doc = super::varint::get(b, &mut p).unwrap_or(0);
            let mut last = 0;
            while p < b.len() {
                match super::varint::get(b, &mut p) {
                    Some(v) => last = v,
                    None => break,
                }
            }
            n_doc != 0 && last != 0
        }
        _ => false,
    };
    if intact {
        return Ok(());
    }
    let node_size = segments::node_size(c, cfg)?;
    let base = cfg.level_base(langid, 0);
    let segs = segments::list(c, cfg, base, base + super::MAX_LEVEL - 1)?;
    for t in query.phrases.iter().flat_map(|p| p.tokens.iter()) {
        let range = if t.prefix { Range::Prefix(&t.term) } else { Range::Exact(&t.term) };
        for seg in &segs {
            if segments::seg_terms(c, cfg, seg, range)?.iter().any(|(_, d)| d.len() > node_size) {
                return Err(segments::corrupt());
            }
        }
    }
    Ok(())
}

/// Run `query` over the index (and `pending`) for language `langid`.
pub fn run(c: &mut Connection, cfg: &Config, pending: Option<&BTreeMap<Vec<u8>, Vec<Entry>>>, langid: i64, query: Query) -> Result<Run> {
    check_totals(c, cfg, langid, &query)?;
    let mut all = Vec::new();
    for p in &query.phrases {
        all.push(phrase_map(c, cfg, pending, langid, p)?);
    }
    let mut hits = all.clone();
    let Some(root) = &query.root else {
        return Ok(Run { query, all, hits, docids: Vec::new() });
    };
    let mut groups = Vec::new();
    near_groups(root, &mut groups);
    let lens: Vec<i64> = query.phrases.iter().map(|p| p.tokens.len() as i64).collect();
    for (ps, ds) in &groups {
        apply_near(ps, ds, &lens, &mut hits);
    }
    let docids: Vec<i64> = docs(root, &hits).into_iter().collect();
    // invariant: fts3_docmaps
    debug_assert!(all.iter().chain(&hits).all(well_formed) && hits.iter().zip(&all).all(|(h, a)| h.keys().all(|d| a.contains_key(d))));
    Ok(Run { query, all, hits, docids })
}
