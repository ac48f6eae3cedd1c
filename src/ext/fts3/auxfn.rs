//! # Auxiliary functions: `offsets()`, `snippet()`, `matchinfo()`
//!
//! Called with the table's hidden column as first argument, they read
//! the row a cursor is on. The column's value is NULL carrying a token
//! as its subtype (see `cursor`); the token finds the cursor's [`Share`]
//! in a process-wide registry. A call whose first argument does not
//! carry a live token fails with SQLite's "unable to use function X in
//! the requested context"; the versions the table substitutes when the
//! first argument is one of its columns ([`overload`], xFindFunction)
//! fail with "illegal first argument to X" instead, as SQLite's do.
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

fn find(ctx: &FunctionContext<'_>, args: &[Value], name: &str, overloaded: bool) -> Result<Arc<Mutex<Share>>> {
    let st = ctx.arg_subtypes.first().copied().unwrap_or(0);
    let bad =
        || Error::sql(if overloaded { format!("illegal first argument to {name}") } else { format!("unable to use function {name} in the requested context") });
    if st & 0xffff_0000 != TAG || !args.first().is_some_and(|a| a.is_null()) {
        return Err(bad());
    }
    registry().lock().unwrap_or_else(|e| e.into_inner()).get(&st).and_then(|w| w.upgrade()).ok_or_else(bad)
}

struct Aux {
    name: &'static str,
    /// The table's own version (see [`overload`]), not the global stub.
    overloaded: bool,
}

impl ScalarFunction for Aux {
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        // The count check comes first, as in SQLite's snippet().
        if self.overloaded && self.name == "snippet" && args.len() > 6 {
            return Err(Error::sql("wrong number of arguments to function snippet()"));
        }
        let share = find(ctx, args, self.name, self.overloaded)?;
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
        conn.create_function(FuncDef {
            name: name.to_string(),
            n_args: n,
            flags: FuncFlags::default(),
            kind: FuncKind::Scalar(Arc::new(Aux { name, overloaded: false })),
        })?;
    }
    conn.create_function(FuncDef { name: "match".to_string(), n_args: 2, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Match)) })
}

/// The function an FTS3/4 table substitutes for `name` when a call's
/// first argument is one of its columns (xFindFunction). The name is the
/// global function's, which the call already resolved (so the argument
/// count fits one of the global versions).
pub fn overload(n_args: i32, name: &str) -> Option<Arc<FuncDef>> {
    let name = ["offsets", "matchinfo", "snippet", "optimize"].into_iter().find(|n| n.eq_ignore_ascii_case(name))?;
    Some(Arc::new(FuncDef { name: name.to_string(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Aux { name, overloaded: true })) }))
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
        let toks = cfg.tokenizer.tokenize_until_error(&text_of(v), s.langid).0;
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

/// Whether `e` is on document `d` as SQLite's row-by-row evaluation sees
/// it when `matchinfo()` gathers the 'y' and 'b' counts: by docids only,
/// before the NEAR distances and the right side of a NOT are tested (so
/// `a NEAR b` is on every row holding both, `x NOT y` on every row
/// holding `x`).
fn matches(e: &Expr, run: &Run, d: i64) -> bool {
    match e {
        Expr::Phrase(p) => run.all[*p].contains_key(&d),
        Expr::Near(ps, _) => ps.iter().all(|p| run.all[*p].contains_key(&d)),
        Expr::And(a, b) => matches(a, run, d) && matches(b, run, d),
        Expr::Or(a, b) => matches(a, run, d) || matches(b, run, d),
        Expr::Not(a, _) => matches(a, run, d),
    }
}

/// The phrases whose counts matchinfo's 'y' and 'b' take, in SQLite's
/// order: every phrase under sub-expressions all on row `d` (see
/// [`matches`]), left before right, including the right side of a NOT.
fn gather(e: &Expr, run: &Run, d: i64, out: &mut Vec<usize>) {
    if !matches(e, run, d) {
        return;
    }
    match e {
        Expr::Phrase(p) => out.push(*p),
        Expr::Near(ps, _) => out.extend(ps),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Not(a, b) => {
            gather(a, run, d, out);
            gather(b, run, d, out);
        }
    }
}

/// A phrase's hit counts on row `d` as its position list gives them:
/// column 0 first whether or not it has hits, then each other column
/// with hits, ascending. Nothing when the row has no list.
fn column_counts(m: &DocMap, d: i64) -> Vec<(usize, u32)> {
    let Some(cols) = m.get(&d) else {
        return Vec::new();
    };
    let mut v: Vec<(usize, u32)> = cols.iter().map(|(c, ps)| (*c, ps.len() as u32)).collect();
    crate::util::cold_sort::sort(&mut v);
    if v.first().is_none_or(|(c, _)| *c != 0) {
        v.insert(0, (0, 0));
    }
    v
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
        // (How many of the values were whole, before padding.)
        let whole = v.len();
        v.resize(v.len().max(ncol + 2), 0);
        v.push(whole as i64);
        stat = Some(v.clone());
        Ok(v)
    };
    // The record must hold the values a request reads (observed: 'n' the
    // row count, 'a' it and one total per column; a record that ends
    // sooner, in the middle of a varint too, is corrupt).
    let need = |st: &[i64], n: usize| if (st[st.len() - 1] as usize) < n { Err(super::segments::corrupt()) } else { Ok(()) };
    for ch in &fmt {
        match ch {
            b'p' => out.push(phrases.len() as u32),
            b'c' => out.push(ncol as u32),
            b'n' => {
                let st = read_stat(c)?;
                need(&st, 1)?;
                out.push(st[0] as u32);
            }
            b'a' => {
                let st = read_stat(c)?;
                need(&st, 1 + ncol)?;
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
                    // (A record short of a column is corrupt, as the
                    // row count is for 'n'.)
                    out.push(varint::get(&b, &mut p).ok_or_else(super::segments::corrupt)? as u32);
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
                let per = if *ch == b'y' { ncol } else { ncol.div_ceil(32) };
                let mut words = vec![0u32; phrases.len() * per];
                let mut order = Vec::new();
                if let Some(root) = &run.query.root {
                    gather(root, &run, d, &mut order);
                }
                for p in order {
                    // A phrase on the right of a NOT has no number of its
                    // own: SQLite writes its counts over phrase 0's.
                    let base = phrases.iter().position(|&q| q == p).unwrap_or(0) * per;
                    let filter = run.query.phrases[p].column;
                    for (col, n) in column_counts(&run.hits[p], d) {
                        if filter.is_some_and(|f| f != col) {
                            continue;
                        }
                        // SQLite's word and bit for column `col` (the word
                        // is (col+1)/32, so column 31 lands in the next one).
                        let (at, bit) = if *ch == b'y' { (base + col, None) } else { (base + (col + 1) / 32, Some(1u32 << (col & 31))) };
                        match (words.get_mut(at), bit) {
                            (Some(w), None) => *w = n,
                            (Some(w), Some(b)) if n > 0 => *w |= b,
                            _ => {}
                        }
                    }
                }
                out.extend(words);
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
