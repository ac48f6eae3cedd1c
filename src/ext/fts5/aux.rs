//! # Auxiliary functions: bm25(), highlight(), snippet()
//!
//! They are reached through xFindFunction when their first argument is
//! the table's hidden column, whose value is the cursor id (see
//! `table.rs`); the function looks the cursor up and works on its current
//! row. Used anywhere else, the global functions of the same names fail
//! as SQLite's do ("unable to use function ... in the requested
//! context"). highlight() and snippet() are `snippet.rs`'s.
//!
//! Auxiliary functions the application registered (`extension.rs`) are
//! reached the same way and called with an [`AuxRow`] of the row.
//!
//! Invariant: a function never keeps a cursor's state past its call
//! (except what an application's function stores with xSetAuxdata,
//! which stays on the cursor's [`Shared`] and is dropped with it).

use super::extension::{AuxFunction, AuxRow};
use super::matcher::Inst;
use super::query::Query;
use super::row::{Row, Stats};
use super::shared::{current_row, cursors, Shared};
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_RANGE};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use std::sync::{Arc, Mutex};

const NAMES: [&str; 4] = ["bm25", "highlight", "snippet", "fts5_get_locale"];

/// bm25 of a row (fts5.txt 5.1.1) of sizes `size` and instances of
/// phrase i `inst(i)`: k1 = 1.2, b = 0.75, idf floored at 1e-6, phrase
/// frequency weighted per column (`weights`, default 1).
pub fn bm25<'a>(q: &Query, st: &Stats, size: &[i64], inst: impl Fn(usize) -> &'a [Inst], weights: &[f64]) -> f64 {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let n = st.nrow as f64;
    let avgdl = if st.nrow > 0 { st.ntoken as f64 / n } else { 0.0 };
    let dl: f64 = size.iter().map(|&n| n as f64).sum();
    let mut score = 0.0;
    for (i, _) in q.phrases.iter().enumerate() {
        let nhit = st.nhit.get(i).copied().unwrap_or(0) as f64;
        let mut idf = ((n - nhit + 0.5) / (nhit + 0.5)).ln();
        if idf <= 0.0 {
            idf = 1e-6;
        }
        let mut f = 0.0;
        for x in inst(i) {
            f += weights.get(x.col).copied().unwrap_or(1.0);
        }
        score += idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * dl / avgdl)));
    }
    -score
}

/// Which of the three.
#[derive(Clone, Copy)]
enum Which {
    Bm25,
    Highlight,
    Snippet,
    GetLocale,
}

struct Aux(Which);

fn shared_of(v: &Value, name: &str) -> Result<Arc<Mutex<Shared>>> {
    let _ = name;
    let id = v.as_ref().to_i64();
    let map = cursors().lock().unwrap_or_else(|e| e.into_inner());
    map.get(&id).cloned().ok_or_else(|| Error::sql(format!("no such cursor: {id}")))
}

fn context_error(name: &str) -> Error {
    Error::sql(format!("unable to use function {name} in the requested context"))
}

impl ScalarFunction for Aux {
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let name = NAMES[self.0 as usize];
        let Some(first) = args.first() else {
            return Err(context_error(name));
        };
        if let Which::GetLocale = self.0 {
            // Argument checks come before the row is looked at.
            if args.len() != 2 {
                return Err(Error::sql("wrong number of arguments to function fts5_get_locale()"));
            }
            // (Text holding an integer counts as one, as its numeric type.)
            let integer = match &args[1] {
                Value::Integer(_) => true,
                Value::Text(t) => std::str::from_utf8(t).is_ok_and(|s| s.trim().parse::<i64>().is_ok()),
                _ => false,
            };
            if !integer {
                return Err(Error::sql("non-integer argument passed to function fts5_get_locale()"));
            }
        }
        let sh = shared_of(first, name)?;
        let mut s = sh.lock().unwrap_or_else(|e| e.into_inner());
        if let Which::Bm25 = self.0 {
            // bm25 reads no content: a light row stays light (and a flat
            // one is not made a row).
            let w: Vec<f64> = args[1..].iter().map(|v| v.as_ref().to_f64()).collect();
            let score = match (&s.query, &s.row, &s.flat) {
                (_, None, None) => return Ok(Value::Null),
                (None, _, _) => -0.0,
                (Some(q), Some(r), _) => bm25(q, &s.stats, &r.size, |i| &r.inst[i], &w),
                (Some(q), None, Some((m, k))) => bm25(q, &s.stats, m.size(*k), |i| m.inst(*k, i), &w),
            };
            return Ok(Value::Real(score));
        }
        let Some(row) = current_row(&mut s, ctx.host.as_deref_mut())? else {
            return Ok(Value::Null);
        };
        let row = if let Which::GetLocale = self.0 { row } else { shown_row(s.locale_header.as_ref(), row) };
        match self.0 {
            // (bm25 was answered above.)
            Which::Highlight | Which::Bm25 => {
                if args.len() != 4 {
                    return Err(Error::sql("wrong number of arguments to function highlight()"));
                }
                super::snippet::highlight(&row, &args[1..])
            }
            Which::Snippet => {
                if args.len() != 6 {
                    return Err(Error::sql("wrong number of arguments to function snippet()"));
                }
                super::snippet::snippet(&row, &args[1..])
            }
            Which::GetLocale => {
                let col = args[1].as_ref().to_i64();
                let v = usize::try_from(col).ok().and_then(|c| row.values.get(c)).ok_or_else(|| Error::new(SQLITE_RANGE, "column index out of range"))?;
                Ok(super::locale::split_by(s.locale_header.as_ref(), v).map_or(Value::Null, |(l, _)| Value::Text(l.to_vec())))
            }
        }
    }
}

fn def(which: Which, n_args: i32) -> FuncDef {
    FuncDef { name: NAMES[which as usize].to_string(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Aux(which))) }
}

/// The function an fts5 table substitutes for `name` (xFindFunction).
pub fn overload(n_args: i32, name: &str) -> Option<Arc<FuncDef>> {
    let which = match name.ascii_lower().as_str() {
        "bm25" => Which::Bm25,
        "highlight" => Which::Highlight,
        "snippet" => Which::Snippet,
        "fts5_get_locale" => Which::GetLocale,
        _ => return None,
    };
    Some(Arc::new(def(which, n_args)))
}

/// Context errors only: the global functions exist so that the names are
/// known, and fail when not overloaded by an fts5 table.
struct Outside(&'static str);

impl ScalarFunction for Outside {
    fn call(&self, _ctx: &mut FunctionContext<'_>, _args: &[Value]) -> Result<Value> {
        Err(context_error(self.0))
    }
}

/// `row` as its columns show (locale values as their text), for the
/// auxiliary functions that copy column text; the tokens are kept.
pub fn shown_row(header: Option<&[u8; super::locale::HEADER_LEN]>, row: Arc<Row>) -> Arc<Row> {
    if !row.values.iter().any(|v| super::locale::split_by(header, v).is_some()) {
        return row;
    }
    let mut r = (*row).clone();
    for v in &mut r.values {
        *v = super::locale::shown(header, v);
    }
    Arc::new(r)
}

/// Register the global bm25/highlight. The global `snippet` is FTS3's
/// (`src/ext/fts3`), which answers for its own tables and gives the same
/// context error elsewhere; fts5 tables overload it.
pub fn register_globals(conn: &mut Connection, locale_header: [u8; super::locale::HEADER_LEN]) -> Result<()> {
    for n in ["bm25", "highlight", "fts5_get_locale"] {
        conn.create_function(FuncDef { name: n.to_string(), n_args: -1, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Outside(n))) })?;
    }
    let f = Locale(locale_header);
    conn.create_function(FuncDef { name: "fts5_locale".into(), n_args: -1, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(f)) })
}

/// `fts5_locale(L, T)` (`locale.rs`), with the connection's header.
struct Locale([u8; super::locale::HEADER_LEN]);

impl ScalarFunction for Locale {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        super::locale::fts5_locale(&self.0, args)
    }
}

/// An application's auxiliary function, as an fts5 table substitutes it.
struct Custom(String, Arc<dyn AuxFunction>);

impl ScalarFunction for Custom {
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let Some(first) = args.first() else {
            return Err(context_error(&self.0));
        };
        let sh = shared_of(first, &self.0)?;
        // The lock is not held while the application runs (it may run SQL
        // that reaches this cursor's table again): the state is cloned out
        // and the function's auxdata put back afterwards.
        let key = Arc::as_ptr(&self.1) as *const () as usize;
        let (query, stats, row, tokenizer, columns, mut aux, locale_header) = {
            let mut s = sh.lock().unwrap_or_else(|e| e.into_inner());
            let Some(row) = current_row(&mut s, ctx.host.as_deref_mut())? else {
                return Ok(Value::Null);
            };
            let aux = s.aux_data.remove(&key);
            (s.query.clone(), s.stats.clone(), row, s.tokenizer.clone(), s.columns.clone(), aux, s.locale_header)
        };
        let r = self.1.call(
            ctx,
            AuxRow {
                query: query.as_deref(),
                stats: &stats,
                row: &row,
                tokenizer: &tokenizer,
                columns: &columns,
                aux_data: &mut aux,
                locale_header: locale_header.as_ref(),
            },
            &args[1..],
        );
        if let Some(a) = aux {
            sh.lock().unwrap_or_else(|e| e.into_inner()).aux_data.insert(key, a);
        }
        r
    }
}

/// Call the application's auxiliary function `f` as `name(args...)`,
/// `args[0]` the cursor id (the rank column of `rank.rs`).
pub fn call_custom(ctx: &mut FunctionContext<'_>, name: &str, f: &Arc<dyn AuxFunction>, args: &[Value]) -> Result<Value> {
    Custom(name.to_string(), f.clone()).call(ctx, args)
}

/// The definition an fts5 table substitutes for the application's
/// auxiliary function `name` (xFindFunction).
pub fn custom_def(name: &str, n_args: i32, f: Arc<dyn AuxFunction>) -> Arc<FuncDef> {
    Arc::new(FuncDef { name: name.to_string(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Custom(name.to_string(), f))) })
}
