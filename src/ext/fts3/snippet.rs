//! # `snippet()`: fragments of a row's text around its matches
//!
//! Arguments after the hidden column: start and end marks (`<b>`,
//! `</b>`), the ellipsis (`<b>...</b>`), the column (-1 any) and the
//! number of tokens N (15 when not given, as SQLite behaves; at most 64
//! in absolute value). Following
//! fts3.txt §4.2: one fragment of |N| tokens covering every matchable
//! phrase that matches the row if one exists; otherwise 2, 3 then 4
//! fragments (of N/k tokens when N is positive, |N| when negative),
//! chosen greedily for coverage; fragments are joined in the order they
//! were chosen (as SQLite's output shows) by the ellipsis, which also marks a fragment not reaching a column's
//! start or end, and every matching token is wrapped in the marks.

use super::share::{matchable, row_values, Share};
use crate::connection::Connection;
use crate::error::Result;
use crate::value::Value;

struct Frag {
    col: usize,
    start: i64,
    covered: u64,
    score: i64,
}

/// Compute `snippet(...)` for the share's current row.
pub fn snippet(c: &mut Connection, s: &mut Share, args: &[Value]) -> Result<Value> {
    let text_arg = |i: usize, d: &str| -> Vec<u8> {
        args.get(i).map_or_else(|| d.as_bytes().to_vec(), |v| v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default())
    };
    let open = text_arg(0, "<b>");
    let close = text_arg(1, "</b>");
    let ellipsis = text_arg(2, "<b>...</b>");
    let want_col = args.get(3).map_or(-1, |v| v.as_ref().to_i64());
    let mut n = args.get(4).map_or(15, |v| v.as_ref().to_i64());
    n = n.clamp(-64, 64);
    let Some(run) = s.run.clone() else {
        return Ok(Value::text(""));
    };
    if n == 0 {
        return Ok(Value::text(""));
    }
    let row = row_values(c, s)?;
    let cfg = &s.inner.cfg;
    let phrases = matchable(&run);
    let d = s.docid;
    // Per column: tokens, and per token which phrases (bitmask) cover it
    // and which start there.
    let ncol = cfg.columns.len();
    let mut cols: Vec<(Vec<u8>, Vec<super::tokenizer::Token>, Vec<u64>, Vec<u64>)> = Vec::new();
    for col in 0..ncol {
        let text = row.get(col).and_then(|v| v.as_ref().to_text().map(|t| t.into_owned())).unwrap_or_default();
        let toks = cfg.tokenizer.tokenize_until_error(&text, s.langid).0;
        let mut cover = vec![0u64; toks.len()];
        let mut starts = vec![0u64; toks.len()];
        for (k, &p) in phrases.iter().enumerate().take(64) {
            let len = run.query.phrases[p].tokens.len() as i64;
            if let Some((_, ps)) = run.hits[p].get(&d).and_then(|c| c.iter().find(|(c2, _)| *c2 == col)) {
                for &st in ps {
                    if (st as usize) < toks.len() {
                        starts[st as usize] |= 1 << k;
                    }
                    for i in st..st + len {
                        if (i as usize) < toks.len() {
                            cover[i as usize] |= 1 << k;
                        }
                    }
                }
            }
        }
        cols.push((text, toks, cover, starts));
    }
    let all: u64 = cols.iter().flat_map(|c| c.3.iter()).fold(0, |a, b| a | b);
    let nabs = n.unsigned_abs() as i64;
    let mut chosen: Vec<Frag> = Vec::new();
    for nfrag in 1..=4i64 {
        let size = if n > 0 { (nabs + nfrag - 1) / nfrag } else { nabs }.max(1);
        chosen.clear();
        let mut got = 0u64;
        for _ in 0..nfrag {
            let mut best: Option<Frag> = None;
            for (ci, (_, toks, _, starts)) in cols.iter().enumerate() {
                if want_col >= 0 && want_col as usize != ci {
                    continue;
                }
                let ntok = toks.len() as i64;
                let last_start = (ntok - size).max(0);
                for st in 0..=last_start {
                    let mut cov = 0u64;
                    let mut hits = 0i64;
                    for i in st..(st + size).min(ntok) {
                        cov |= starts[i as usize];
                        hits += starts[i as usize].count_ones() as i64;
                    }
                    let new = cov & !got;
                    let score = (new.count_ones() as i64) * 1000 + hits;
                    if best.as_ref().is_none_or(|b| score > b.score) {
                        best = Some(Frag { col: ci, start: st, covered: cov, score });
                    }
                }
            }
            let Some(b) = best else { break };
            if !chosen.is_empty() && b.covered & !got == 0 {
                break;
            }
            got |= b.covered;
            chosen.push(b);
        }
        if got & all == all {
            break;
        }
        if nfrag == 4 {
            break;
        }
    }
    if chosen.is_empty() {
        return Ok(Value::text(""));
    }
    // A snippet taken from NULL text is NULL.
    if chosen.iter().all(|f| row.get(f.col).is_none_or(|v| v.is_null())) {
        return Ok(Value::Null);
    }
    let size = if n > 0 { (nabs + chosen.len() as i64 - 1) / chosen.len() as i64 } else { nabs }.max(1);
    // Centre each fragment on its matches (SQLite moves it so the
    // tokens before the first match and after the last one balance).
    for f in chosen.iter_mut() {
        let (_, toks, cover, _) = &cols[f.col];
        let ntok = toks.len() as i64;
        let end = (f.start + size).min(ntok);
        let hit: Vec<i64> = (f.start..end).filter(|i| cover[*i as usize] != 0).collect();
        if let (Some(&first), Some(&last)) = (hit.first(), hit.last()) {
            let span = last - first + 1;
            let before = (size - span + 1).max(0) / 2;
            f.start = (first - before).min(ntok - size).max(0);
        }
    }
    let mut out: Vec<u8> = Vec::new();
    for (fi, f) in chosen.iter().enumerate() {
        let (text, toks, cover, _) = &cols[f.col];
        if toks.is_empty() {
            out.extend_from_slice(text);
            continue;
        }
        let first = f.start as usize;
        let last = ((f.start + size) as usize).min(toks.len()) - 1;
        // One ellipsis between fragments; before the first one when it
        // does not start its column.
        if (fi == 0 && first > 0) || (fi > 0 && !out.ends_with(&ellipsis)) {
            out.extend_from_slice(&ellipsis);
        }
        let begin = if first == 0 { 0 } else { toks[first].start };
        let mut at = begin;
        for i in first..=last {
            let t = &toks[i];
            out.extend_from_slice(&text[at..t.start]);
            if cover[i] != 0 {
                out.extend_from_slice(&open);
                out.extend_from_slice(&text[t.start..t.end]);
                out.extend_from_slice(&close);
            } else {
                out.extend_from_slice(&text[t.start..t.end]);
            }
            at = t.end;
        }
        if last + 1 == toks.len() {
            out.extend_from_slice(&text[at..]);
        } else {
            out.extend_from_slice(&ellipsis);
        }
    }
    Ok(Value::Text(out))
}
