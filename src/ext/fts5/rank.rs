//! # The rank function: what the `rank` column computes
//!
//! `fts5.txt` ("Sorting by Auxiliary Function Results"): the `rank`
//! column holds the value of an auxiliary function, `bm25()` unless the
//! table's persistent `'rank'` option (`INSERT INTO t(t, rank)
//! VALUES('rank', 'bm25(10.0, 5.0)')`, kept in `%_config`) or the
//! query's `rank MATCH 'fn(...)'` (or `rank = ...`) constraint names
//! another. The spec is a function name, then in parentheses zero or
//! more SQL literals separated by commas (observed: numbers with an
//! optional sign, strings, blobs and NULL; anything else, an
//! expression or a name, is "parse error in rank function: SPEC").
//!
//! What ringlite computes: `bm25`, `highlight`, `snippet` or an
//! auxiliary function the application registered (`fts5_api`
//! xCreateFunction, `extension.rs`) with the spec's arguments, as
//! `fn(t, ...)` would; the application's function of a built-in's name
//! replaces it. A name that is no auxiliary function is "no such
//! function: NAME", as in SQLite.
//!
//! Invariant: [`parse`] accepts exactly the specs it can give back as
//! a name and literal values (checked: rank_spec_parse).

use super::config::Config;
use super::extension::{AuxFunction, Extensions};
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::func::FunctionContext;
use crate::vdbe::host::VmHost;
use std::sync::Arc;

/// A parsed rank function spec.
#[derive(Debug, Clone)]
pub struct RankSpec {
    /// The function's name as written.
    pub name: String,
    /// Its arguments after the table column.
    pub args: Vec<Value>,
}

/// Parse `spec` (None: not a rank function spec).
pub fn parse(spec: &str) -> Option<RankSpec> {
    let b = spec.as_bytes();
    let mut p = 0;
    let ws = |p: &mut usize| {
        while b.get(*p).is_some_and(|c| c.is_ascii_whitespace()) {
            *p += 1;
        }
    };
    ws(&mut p);
    let start = p;
    while b.get(p).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        p += 1;
    }
    if p == start {
        return None;
    }
    let name = spec[start..p].to_string();
    ws(&mut p);
    if b.get(p) != Some(&b'(') {
        return None;
    }
    p += 1;
    ws(&mut p);
    let mut args = Vec::new();
    if b.get(p) == Some(&b')') {
        p += 1;
    } else {
        loop {
            args.push(literal(b, &mut p)?);
            ws(&mut p);
            match b.get(p) {
                Some(b',') => {
                    p += 1;
                    ws(&mut p);
                }
                Some(b')') => {
                    p += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    ws(&mut p);
    (p == b.len()).then_some(RankSpec { name, args })
}

/// One SQL literal at `*p`.
fn literal(b: &[u8], p: &mut usize) -> Option<Value> {
    let rest = &b[*p..];
    if rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"null") && !rest.get(4).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        *p += 4;
        return Some(Value::Null);
    }
    match rest.first()? {
        b'\'' => {
            let mut s = Vec::new();
            let mut i = 1;
            loop {
                match rest.get(i)? {
                    b'\'' if rest.get(i + 1) == Some(&b'\'') => {
                        s.push(b'\'');
                        i += 2;
                    }
                    b'\'' => break,
                    c => {
                        s.push(*c);
                        i += 1;
                    }
                }
            }
            *p += i + 1;
            Some(Value::Text(s))
        }
        b'x' | b'X' if rest.get(1) == Some(&b'\'') => {
            let end = rest[2..].iter().position(|&c| c == b'\'')? + 2;
            let hex = &rest[2..end];
            if !hex.len().is_multiple_of(2) || !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let blob = hex.chunks(2).map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap_or("0"), 16).unwrap_or(0)).collect();
            *p += end + 1;
            Some(Value::Blob(blob))
        }
        _ => {
            let mut i = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
            let digits = i;
            while rest.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                i += 1;
            }
            if rest.get(i).is_some_and(|c| *c == b'e' || *c == b'E') {
                i += 1;
                if rest.get(i).is_some_and(|c| *c == b'-' || *c == b'+') {
                    i += 1;
                }
                while rest.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            let text = std::str::from_utf8(&rest[..i]).ok()?;
            if i == digits || rest.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                return None;
            }
            *p += i;
            match text.parse::<i64>() {
                Ok(v) => Some(Value::Integer(v)),
                Err(_) => text.parse::<f64>().ok().map(Value::Real),
            }
        }
    }
}

/// The table's persistent `'rank'` option, if set.
pub fn configured(c: &mut Connection, cfg: &Config) -> Result<Option<String>> {
    let rows = super::shadow::rows(c, &format!("SELECT v FROM {} WHERE k = 'rank'", cfg.shadow("config")))?;
    Ok(rows.first().and_then(|r| r[0].as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned())))
}

/// What the `rank` column computes.
#[derive(Clone)]
pub enum RankFn {
    /// `bm25()` with these column weights.
    Bm25(Vec<f64>),
    /// `highlight()` with these arguments.
    Highlight(Vec<Value>),
    /// `snippet()` with these arguments.
    Snippet(Vec<Value>),
    /// The application's auxiliary function of this name, with these
    /// arguments.
    Custom(String, Arc<dyn AuxFunction>, Vec<Value>),
}

impl Default for RankFn {
    fn default() -> Self {
        RankFn::Bm25(Vec::new())
    }
}

/// The function `spec` ranks with (see the module doc for what is
/// refused). An application's function of a built-in's name replaces it.
pub fn resolve(spec: &str, ext: &Extensions) -> Result<RankFn> {
    let s = parse(spec).ok_or_else(|| Error::sql(format!("parse error in rank function: {spec}")))?;
    let lower = s.name.ascii_lower();
    if let Some(f) = ext.function(&lower) {
        return Ok(RankFn::Custom(s.name, f, s.args));
    }
    match lower.as_str() {
        "bm25" => Ok(RankFn::Bm25(s.args.iter().map(|v| v.as_ref().to_f64()).collect())),
        "highlight" => Ok(RankFn::Highlight(s.args)),
        "snippet" => Ok(RankFn::Snippet(s.args)),
        _ => Err(Error::sql(format!("no such function: {}", s.name))),
    }
}

/// The application's auxiliary function `name` as the rank of cursor
/// `cursor_id`'s current row: called as `name(t, args...)` in the query
/// would be (the same row, instances and auxdata), with the connection
/// lent to it as to any application function.
pub fn call_custom(host: &mut dyn VmHost, cursor_id: i64, name: &str, f: &Arc<dyn AuxFunction>, args: &[Value]) -> Result<Value> {
    let st = host.state();
    let (last_insert_rowid, changes, total_changes) = (st.last_insert_rowid, st.changes, st.total_changes);
    let (case_sensitive_like, max_like_pattern) = (st.settings.case_sensitive_like, st.max_like_pattern);
    let clock = st.io.has_clock().then(|| st.io.backend().clone());
    let mut now = None;
    let mut prng = crate::util::prng::fill;
    let mut all = Vec::with_capacity(args.len() + 1);
    all.push(Value::Integer(cursor_id));
    all.extend(args.iter().cloned());
    let mut ctx = FunctionContext {
        last_insert_rowid,
        changes,
        total_changes,
        case_sensitive_like,
        now_jd_ms: &mut now,
        clock,
        arg_subtypes: &[],
        arg_from_bind: &[],
        result_subtype: 0,
        prng: &mut prng,
        pure_context: None,
        func_name: name,
        max_like_pattern,
        host: Some(host),
    };
    super::aux::call_custom(&mut ctx, name, f, &all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let s = parse(" BM25 ( 2 , -3.5 ) ").unwrap();
        assert_eq!(format!("{} {:?}", s.name, s.args), format!("BM25 {:?}", [Value::Integer(2), Value::Real(-3.5)]));
        assert!(parse("bm25()").unwrap().args.is_empty());
        let f = parse("f('a''b', NULL, x'00ff')").unwrap();
        assert_eq!(format!("{:?}", f.args), format!("{:?}", [Value::Text(b"a'b".to_vec()), Value::Null, Value::Blob(vec![0, 255])]));
        for bad in ["bm25", "bm25(", "bm25(x)", "bm25(1+1)", "bm25(1) x", "(1)", "bm25(1,)"] {
            // invariant: rank_spec_parse
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
