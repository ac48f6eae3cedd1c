//! # Values with a locale: `fts5_locale()`, `locale=1`, `fts5_get_locale()`
//!
//! Observed on SQLite 3.54.1 (no documentation of the format):
//! - `fts5_locale(L, T)` is T's text when L is NULL, empty or starts
//!   with a zero byte (NULL stays NULL); else a blob: the connection's
//!   16-byte header (random, drawn when FTS5 registers), L's bytes, a
//!   zero byte, T's text bytes (NULL: none). Only a blob that starts
//!   with the connection's header is read back as a locale value, so one
//!   kept in an ordinary table and inserted later keeps its locale.
//! - Into a table without `locale=1`, such a value (any column) is
//!   "fts5_locale() requires locale=1" (SQLITE_MISMATCH).
//! - A `locale=1` table's `%_content` has, after the `c<i>` columns, one
//!   `l<i>` per indexed column (also the `%_content` of
//!   `contentless_unindexed=1`): the text is stored as text in `c<i>`,
//!   the locale as text in `l<i>` (NULL without one); an UNINDEXED
//!   column's locale is dropped. External content tables hold the blob
//!   itself.
//! - The locale goes to the tokenizer for documents, for a MATCH value
//!   given as `fts5_locale()`, and for the auxiliary functions; reading
//!   the column gives the text. `fts5_get_locale(t, i)` gives column i's
//!   locale or NULL; i must be an integer value ("non-integer argument
//!   passed to function fts5_get_locale()"), in range (SQLITE_RANGE).
//!
//! Inside the engine a value with a locale is carried as the same blob
//! `fts5_locale()` makes (content rows are joined back to it when read),
//! so every tokenization of a value sees its locale; [`text_of`] is
//! what the column shows.
//!
//! Invariant: [`split`] recognises exactly what [`encode`] made with the
//! same header, for a locale without NUL bytes (checked:
//! fts5_locale_round_trip). One with a NUL splits there, as SQLite's
//! C-string locale does.

use super::config::Config;
use crate::error::{Error, Result, SQLITE_MISMATCH};
use crate::value::Value;

/// Size of the header of a locale value.
pub const HEADER_LEN: usize = super::config::LOCALE_HEADER_LEN;

/// The locale value of `locale` and `text` under `header`.
pub fn encode(header: &[u8; HEADER_LEN], locale: &[u8], text: &[u8]) -> Value {
    let mut b = Vec::with_capacity(HEADER_LEN + locale.len() + 1 + text.len());
    b.extend_from_slice(header);
    b.extend_from_slice(locale);
    b.push(0);
    b.extend_from_slice(text);
    let v = Value::Blob(b);
    // invariant: fts5_locale_round_trip
    debug_assert!(locale.contains(&0) || split_by(Some(header), &v) == Some((locale, text)));
    v
}

/// `fts5_locale(L, T)`.
pub fn fts5_locale(header: &[u8; HEADER_LEN], args: &[Value]) -> Result<Value> {
    if args.len() != 2 {
        return Err(Error::sql("wrong number of arguments to function fts5_locale()"));
    }
    let locale = args[0].as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default();
    let text = args[1].as_ref().to_text().map(|t| t.into_owned());
    if locale.first().is_none_or(|&b| b == 0) {
        return Ok(text.map_or(Value::Null, Value::Text));
    }
    Ok(encode(header, &locale, &text.unwrap_or_default()))
}

/// The locale and text of a locale value made with `cfg`'s header.
pub fn split<'a>(cfg: &Config, v: &'a Value) -> Option<(&'a [u8], &'a [u8])> {
    split_by(cfg.locale_header.as_ref(), v)
}

/// The locale and text of a locale value made with `header`.
pub fn split_by<'a>(header: Option<&[u8; HEADER_LEN]>, v: &'a Value) -> Option<(&'a [u8], &'a [u8])> {
    let (Some(h), Value::Blob(b)) = (header, v) else { return None };
    let rest = b.strip_prefix(&h[..])?;
    let nul = rest.iter().position(|&c| c == 0)?;
    Some((&rest[..nul], &rest[nul + 1..]))
}

/// What a column shows of `v`: the text of a locale value, else `v`.
pub fn text_of(cfg: &Config, v: &Value) -> Value {
    shown(cfg.locale_header.as_ref(), v)
}

/// [`text_of`] for values made with `header`.
pub fn shown(header: Option<&[u8; HEADER_LEN]>, v: &Value) -> Value {
    match split_by(header, v) {
        Some((_, t)) => Value::Text(t.to_vec()),
        None => v.clone(),
    }
}

/// The locale of `v`, if it is a locale value.
pub fn locale_of<'a>(cfg: &Config, v: &'a Value) -> Option<&'a [u8]> {
    split(cfg, v).map(|(l, _)| l)
}

/// The columns whose locales `%_content` keeps (`l<i>`).
pub fn locale_columns(cfg: &Config) -> Vec<usize> {
    if !cfg.locale || cfg.stored_columns().is_empty() {
        return Vec::new();
    }
    (0..cfg.columns.len()).filter(|&i| !cfg.unindexed[i]).collect()
}

/// `%_content`'s value columns as a list (", c0, c1, l0").
pub fn content_columns(cfg: &Config) -> String {
    let mut s: String = cfg.stored_columns().iter().map(|i| format!(", c{i}")).collect();
    s.extend(locale_columns(cfg).iter().map(|i| format!(", l{i}")));
    s
}

/// Refuse locale values in a table without `locale=1`.
pub fn check(cfg: &Config, vals: &[Value]) -> Result<()> {
    if !cfg.locale && vals.iter().any(|v| split(cfg, v).is_some()) {
        return Err(Error::new(SQLITE_MISMATCH, "fts5_locale() requires locale=1"));
    }
    Ok(())
}

/// The `%_content` values (after the id, in [`content_columns`] order)
/// of a row whose column values are `vals`.
pub fn to_content(cfg: &Config, vals: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = cfg.stored_columns().iter().map(|&i| vals.get(i).map_or(Value::Null, |v| text_of(cfg, v))).collect();
    for i in locale_columns(cfg) {
        out.push(vals.get(i).and_then(|v| locale_of(cfg, v)).map_or(Value::Null, |l| Value::Text(l.to_vec())));
    }
    out
}

/// The stored columns' values of a `%_content` row (`r`: after the id,
/// in [`content_columns`] order), locale values joined back together.
pub fn from_content(cfg: &Config, mut r: Vec<Value>) -> Vec<Value> {
    let stored = cfg.stored_columns();
    let locales = if r.len() > stored.len() { r.split_off(stored.len()) } else { Vec::new() };
    let Some(h) = cfg.locale_header.filter(|_| !locales.is_empty()) else { return r };
    for (i, l) in locale_columns(cfg).into_iter().zip(locales) {
        let Some(k) = stored.iter().position(|&s| s == i) else { continue };
        if let Some(l) = l.as_ref().to_text().filter(|l| !l.is_empty()) {
            let text = r[k].as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default();
            r[k] = encode(&h, &l, &text);
        }
    }
    r
}
