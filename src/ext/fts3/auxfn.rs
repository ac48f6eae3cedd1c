//! # Auxiliary functions: `offsets()`, `snippet()`, `matchinfo()`
//!
//! Called with the table's hidden column as first argument, they read
//! the row a cursor is on. The column's value is NULL carrying a token
//! as its subtype (see `cursor`); the token finds the cursor's [`Share`]
//! in a process-wide registry. A call whose first argument does not
//! carry a live token fails with SQLite's "unable to use function X in
//! the requested context".
//!
//! Invariant: the functions only read the share and the shadow tables
//! (the registry and its tokens are `share.rs`'s).

use super::config::Content;
use super::eval::{DocMap, Run};
use super::expr::Expr;
use super::shadow::{conn, query, table};
use super::share::{matchable, registry, row_values, Share, TAG};
use super::varint;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use std::sync::{Arc, Mutex};

fn find(ctx: &FunctionContext<'_>, args: &[Value], name: &str) -> Result<Arc<Mutex<Share>>> {
    let st = ctx.arg_subtypes.first().copied().unwrap_or(0);
    let bad = || Error::sql(format!("unable to use function {name} in the requested context"));
    if st & 0xffff_0000 != TAG || !args.first().is_some_and(|a| a.is_null()) {
        return Err(bad());
    }
    registry().lock().unwrap_or_else(|e| e.into_inner()).get(&st).and_then(|w| w.upgrade()).ok_or_else(bad)
}

struct Aux {
    name: &'static str,
}

impl ScalarFunction for Aux {
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let share = find(ctx, args, self.name)?;
        let Some(host) = ctx.host.as_deref_mut() else {
            return Err(Error::sql(format!("unable to use function {} in the requested context", self.name)));
        };
        let c = conn(host)?;
        let mut s = share.lock().unwrap_or_else(|e| e.into_inner());
        match self.name {
            "offsets" | "snippet" if s.inner.cfg.content == Content::None => Err(Error::sql("SQL logic error")),
            "offsets" => offsets(c, &mut s),
            "matchinfo" => matchinfo(c, &mut s, args.get(1)),
            "snippet" => super::snippet::snippet(c, &mut s, &args[1..]),
            "optimize" => {
                let inner = s.inner.clone();
                drop(s);
                let changed = inner.optimize_fn(c)?;
                Ok(Value::text(if changed { "Index optimized" } else { "Index already optimal" }))
            }
            _ => Err(Error::sql("unknown fts3 function")),
        }
    }
}

/// `match(A, B)`, what `B MATCH A` calls when no virtual table takes
/// the term (outside a WHERE or ON clause, a column of an ordinary
/// table, an OR the module cannot use): as in SQLite built with FTS3,
/// it exists (with 2 arguments) and always fails.
struct Match;

impl ScalarFunction for Match {
    fn call(&self, _ctx: &mut FunctionContext<'_>, _args: &[Value]) -> Result<Value> {
        Err(Error::sql("unable to use function MATCH in the requested context"))
    }
}

/// Register the functions (global versions: they fail unless given an
/// FTS table's hidden column).
pub fn register(conn: &mut Connection) -> Result<()> {
    for (name, n) in [("offsets", 1), ("matchinfo", 1), ("matchinfo", 2), ("snippet", -1), ("optimize", 1)] {
        conn.create_function(FuncDef { name: name.to_string(), n_args: n, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Aux { name })) })?;
    }
    conn.create_function(FuncDef { name: "match".to_string(), n_args: 2, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Match)) })
}

fn positions(m: &DocMap, docid: i64, col: usize) -> &[i64] {
    m.get(&docid).and_then(|cols| cols.iter().find(|(c, _)| *c == col)).map_or(&[], |(_, p)| p.as_slice())
}

fn text_of(v: &Value) -> Vec<u8> {
    v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default()
}

fn offsets(c: &mut Connection, s: &mut Share) -> Result<Value> {
    let Some(run) = s.run.clone() else {
        return Ok(Value::text(""));
    };
    let row = row_values(c, s)?;
    let cfg = &s.inner.cfg;
    let mut first_term = Vec::new();
    let mut n = 0;
    for p in &run.query.phrases {
        first_term.push(n);
        n += p.tokens.len();
    }
    let phrases = matchable(&run);
    let mut out: Vec<String> = Vec::new();
    for (col, v) in row.iter().enumerate().take(cfg.columns.len()) {
        if v.is_null() {
            continue;
        }
        let toks = cfg.tokenizer.tokenize(&text_of(v));
        for t in &toks {
            for &p in &phrases {
                let starts = positions(&run.hits[p], s.docid, col);
                for j in 0..run.query.phrases[p].tokens.len() {
                    if starts.binary_search(&(t.pos - j as i64)).is_ok() {
                        out.push(format!("{} {} {} {}", col, first_term[p] + j, t.start, t.end - t.start));
                    }
                }
            }
        }
    }
    Ok(Value::text(out.join(" ")))
}

/// Whether `e` matches document `d` (using the NEAR-filtered hits).
fn matches(e: &Expr, run: &Run, d: i64) -> bool {
    match e {
        Expr::Phrase(p) => run.hits[*p].contains_key(&d),
        Expr::Near(ps, _) => run.hits[ps[0]].contains_key(&d),
        Expr::And(a, b) => matches(a, run, d) && matches(b, run, d),
        Expr::Or(a, b) => matches(a, run, d) || matches(b, run, d),
        Expr::Not(a, b) => matches(a, run, d) && !matches(b, run, d),
    }
}

/// Phrases whose every enclosing sub-expression matches `d`.
fn live_phrases(run: &Run, d: i64) -> Vec<bool> {
    fn walk(e: &Expr, run: &Run, d: i64, live: bool, out: &mut [bool]) {
        let live = live && matches(e, run, d);
        match e {
            Expr::Phrase(p) => out[*p] = live,
            Expr::Near(ps, _) => ps.iter().for_each(|p| out[*p] = live),
            Expr::And(a, b) | Expr::Or(a, b) => {
                walk(a, run, d, live, out);
                walk(b, run, d, live, out);
            }
            Expr::Not(a, _) => walk(a, run, d, live, out),
        }
    }
    let mut out = vec![false; run.query.phrases.len()];
    if let Some(r) = &run.query.root {
        walk(r, run, d, true, &mut out);
    }
    out
}

fn matchinfo(c: &mut Connection, s: &mut Share, fmt: Option<&Value>) -> Result<Value> {
    let cfg = &s.inner.cfg;
    let fmt = match fmt {
        Some(v) => text_of(v),
        None => b"pcx".to_vec(),
    };
    let Some(run) = s.run.clone() else {
        return Ok(Value::Blob(Vec::new()));
    };
    for ch in &fmt {
        let ok = match ch {
            b'p' | b'c' | b'x' | b'y' | b'b' | b's' => true,
            b'n' | b'a' => cfg.fts4,
            b'l' => cfg.has_docsize(),
            _ => false,
        };
        if !ok {
            return Err(Error::sql(format!("unrecognized matchinfo request: {}", *ch as char)));
        }
    }
    let ncol = cfg.columns.len();
    let phrases = matchable(&run);
    let d = s.docid;
    let mut out: Vec<u32> = Vec::new();
    let mut stat: Option<Vec<i64>> = None;
    let mut read_stat = |c: &mut Connection| -> Result<Vec<i64>> {
        if let Some(s) = &stat {
            return Ok(s.clone());
        }
        let rows = query(c, &format!("SELECT value FROM {} WHERE id = 0", table(&cfg.db, &cfg.name, "stat")), &[])?;
        let b = rows.first().map(|r| text_of(&r[0])).unwrap_or_default();
        let mut v = Vec::new();
        let mut p = 0;
        while let Some(x) = varint::get(&b, &mut p) {
            v.push(x);
        }
        v.resize(ncol + 2, 0);
        stat = Some(v.clone());
        Ok(v)
    };
    for ch in &fmt {
        match ch {
            b'p' => out.push(phrases.len() as u32),
            b'c' => out.push(ncol as u32),
            b'n' => {
                let st = read_stat(c)?;
                out.push(st[0] as u32);
            }
            b'a' => {
                let st = read_stat(c)?;
                for i in 0..ncol {
                    let n = st[0].max(1);
                    out.push(((st[1 + i] + n / 2) / n) as u32);
                }
            }
            b'l' => {
                let rows = query(c, &format!("SELECT size FROM {} WHERE docid = ?", table(&cfg.db, &cfg.name, "docsize")), &[Value::Integer(d)])?;
                let b = rows.first().map(|r| text_of(&r[0])).unwrap_or_default();
                let mut p = 0;
                for _ in 0..ncol {
                    out.push(varint::get(&b, &mut p).unwrap_or(0) as u32);
                }
            }
            b'x' => {
                for &p in &phrases {
                    for col in 0..ncol {
                        out.push(positions(&run.hits[p], d, col).len() as u32);
                        let (mut hits, mut docs) = (0u32, 0u32);
                        for cols in run.hits[p].values() {
                            if let Some((_, ps)) = cols.iter().find(|(c2, _)| *c2 == col) {
                                hits += ps.len() as u32;
                                docs += 1;
                            }
                        }
                        out.push(hits);
                        out.push(docs);
                    }
                }
            }
            b'y' | b'b' => {
                let live = live_phrases(&run, d);
                for &p in &phrases {
                    let counts: Vec<u32> = (0..ncol).map(|col| if live[p] { positions(&run.hits[p], d, col).len() as u32 } else { 0 }).collect();
                    if *ch == b'y' {
                        out.extend(counts);
                    } else {
                        for chunk in counts.chunks(32) {
                            let mut w = 0u32;
                            for (i, n) in chunk.iter().enumerate() {
                                if *n > 0 {
                                    w |= 1 << i;
                                }
                            }
                            out.push(w);
                        }
                    }
                }
            }
            b's' => {
                for col in 0..ncol {
                    let mut best = 0u32;
                    for (k, &p) in phrases.iter().enumerate() {
                        for &start in positions(&run.hits[p], d, col) {
                            let mut len = 1u32;
                            let mut pos = start + run.query.phrases[p].tokens.len() as i64;
                            for &q in &phrases[k + 1..] {
                                if positions(&run.hits[q], d, col).binary_search(&pos).is_ok() {
                                    len += 1;
                                    pos += run.query.phrases[q].tokens.len() as i64;
                                } else {
                                    break;
                                }
                            }
                            best = best.max(len);
                        }
                    }
                    out.push(best);
                }
            }
            _ => {}
        }
    }
    let _ = Content::Own;
    let mut b = Vec::with_capacity(out.len() * 4);
    for v in out {
        b.extend_from_slice(&v.to_ne_bytes());
    }
    Ok(Value::Blob(b))
}
