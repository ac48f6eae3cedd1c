//! # A table's definition: columns and FTS4 options
//!
//! Reads `CREATE VIRTUAL TABLE ... USING fts3|fts4(...)` arguments: each
//! is a column (its first word, unquoted, names it) or, for FTS4, a
//! `key=value` option (`tokenize`, `prefix`, `content`, `languageid`,
//! `matchinfo`, `notindexed`, `order`, `compress`, `uncompress`); FTS3
//! knows only `tokenize=` and takes other `key=value` arguments as
//! columns, as SQLite does.
//!
//! Invariants: `columns` is never empty (a table declared without
//! columns has one named `content`); `prefixes` hold distinct lengths in
//! the order given, each a separate index after the main one (checked:
//! fts3_config_shape).

use super::tokenizer::{self, Tokenizer};
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;

/// Where the documents' text lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// In `%_content` (the default).
    Own,
    /// Nowhere (`content=''`).
    None,
    /// In another table (`content=NAME`).
    External(String),
}

/// A parsed table definition.
pub struct Config {
    /// FTS4 (else FTS3).
    pub fts4: bool,
    /// Database name.
    pub db: String,
    /// Table name.
    pub name: String,
    /// Column names.
    pub columns: Vec<String>,
    /// The tokenizer.
    pub tokenizer: Box<dyn Tokenizer>,
    /// Prefix index lengths (characters).
    pub prefixes: Vec<usize>,
    /// Content storage.
    pub content: Content,
    /// `languageid=` column name.
    pub languageid: Option<String>,
    /// `matchinfo=fts3`: no `%_docsize`.
    pub matchinfo_fts3: bool,
    /// Columns not indexed.
    pub notindexed: Vec<bool>,
    /// `order=DESC`.
    pub desc: bool,
    /// `compress=`/`uncompress=` function names.
    pub compress: Option<(String, String)>,
}

impl Config {
    /// Whether `%_docsize` exists.
    pub fn has_docsize(&self) -> bool {
        self.fts4 && !self.matchinfo_fts3
    }
    /// Whether `%_stat` exists.
    pub fn has_stat(&self) -> bool {
        self.fts4
    }
    /// Number of indexes (main plus prefix ones).
    pub fn n_index(&self) -> i64 {
        1 + self.prefixes.len() as i64
    }
    /// The first absolute level of index `index` for language `langid`.
    pub fn level_base(&self, langid: i64, index: usize) -> i64 {
        (langid * self.n_index() + index as i64) * super::MAX_LEVEL
    }
    /// The statement declaring the table's columns to SQLite.
    pub fn declaration(&self) -> String {
        let mut s = String::from("CREATE TABLE x(");
        for c in &self.columns {
            s.push_str(&quote(c));
            s.push_str(", ");
        }
        let lang = self.languageid.clone().unwrap_or_else(|| "__langid".to_string());
        s.push_str(&format!("{} HIDDEN, docid HIDDEN, {} HIDDEN)", quote(&self.name), quote(&lang)));
        s
    }
}

/// `'x'` with quotes doubled.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `"x"` with quotes doubled.
pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Remove SQL quotes ('', "", [], ``) around `s`.
pub fn dequote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 {
        let (open, close) = (b[0], b[b.len() - 1]);
        let q = match open {
            b'\'' | b'"' | b'`' if close == open => Some(open),
            b'[' if close == b']' => Some(b']'),
            _ => None,
        };
        if let Some(q) = q {
            let inner = &s[1..s.len() - 1];
            if q == b']' {
                return inner.to_string();
            }
            let qs = (q as char).to_string();
            return inner.replace(&format!("{qs}{qs}"), &qs);
        }
    }
    s.to_string()
}

/// Split a tokenizer spec (`porter`, `unicode61 "a=b" 'c=d'`) into words.
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let st = i;
        let close = match b[i] {
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'`' => Some(b'`'),
            b'[' => Some(b']'),
            _ => None,
        };
        if let Some(c) = close {
            i += 1;
            while i < b.len() {
                if b[i] == c {
                    if c != b']' && i + 1 < b.len() && b[i + 1] == c {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else {
            // A quote ends a bare word (`simple""` is `simple` and an
            // empty argument, as SQLite splits it).
            while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'\'' | b'"' | b'`' | b'[') {
                i += 1;
            }
        }
        out.push(dequote(&s[st..i]));
    }
    out
}

/// The first word of a column definition, unquoted.
fn column_name(arg: &str) -> String {
    split_words(arg).into_iter().next().unwrap_or_default()
}

/// Parse xCreate/xConnect's argv.
/// `content_columns(db, table)`: the column names of an external
/// content table, for a declaration that names no columns. `tokenizers`:
/// the connection's tokenizer names.
pub fn parse(
    argv: &[String],
    fts4: bool,
    tokenizers: &tokenizer::registry::Registry,
    content_columns: &mut dyn FnMut(&str, &str) -> Result<Vec<String>>,
) -> Result<Config> {
    let db = argv.get(1).cloned().unwrap_or_default();
    let name = argv.get(2).cloned().unwrap_or_default();
    let mut columns: Vec<String> = Vec::new();
    let mut tok_spec: Option<Vec<String>> = None;
    let mut prefix: Option<String> = None;
    let mut content = Content::Own;
    let mut languageid = None;
    let mut matchinfo_fts3 = false;
    let mut notindexed: Vec<String> = Vec::new();
    let mut desc = false;
    let mut compress = None;
    let mut uncompress = None;
    for arg in argv.iter().skip(3) {
        let a = arg.trim();
        let kv = a.split_once('=').map(|(k, v)| (k.trim().ascii_lower(), v.trim()));
        // "tokenize NAME" is the old spelling.
        let tok_old = (tok_spec.is_none() && a.len() > 9 && a[..9].eq_ci("tokenize ") && !a.contains('=')).then(|| &a[9..]);
        if let Some(spec) = tok_old {
            tok_spec = Some(split_words(spec));
            continue;
        }
        match kv {
            Some((k, v)) if k == "tokenize" && tok_spec.is_none() => tok_spec = Some(split_words(v)),
            Some((k, v)) if fts4 => {
                let v = dequote(v);
                match k.as_str() {
                    "tokenize" => tok_spec = Some(split_words(&v)),
                    "prefix" => prefix = Some(v),
                    "content" => content = if v.is_empty() { Content::None } else { Content::External(v) },
                    "languageid" => languageid = Some(v),
                    "matchinfo" => {
                        if !v.eq_ci("fts3") {
                            return Err(Error::sql(format!("unrecognized matchinfo: {v}")));
                        }
                        matchinfo_fts3 = true;
                    }
                    "notindexed" => notindexed.push(v),
                    "order" => {
                        if v.eq_ci("desc") {
                            desc = true;
                        } else if v.eq_ci("asc") {
                            desc = false;
                        } else {
                            return Err(Error::sql(format!("unrecognized order: {v}")));
                        }
                    }
                    "compress" => compress = Some(v),
                    "uncompress" => uncompress = Some(v),
                    _ => return Err(Error::sql(format!("unrecognized parameter: {a}"))),
                }
            }
            _ => columns.push(column_name(a)),
        }
    }
    if let Content::External(t) = &content {
        // Without declared columns, the content table's columns (as
        // SQLite: the names `SELECT *` on it gives).
        if columns.is_empty() {
            columns = content_columns(&db, t)?;
        }
    }
    if columns.is_empty() {
        columns.push("content".to_string());
    }
    let compress = match (compress, uncompress) {
        (Some(_), None) => return Err(Error::sql("missing uncompress parameter in fts4 constructor")),
        (None, Some(_)) => return Err(Error::sql("missing compress parameter in fts4 constructor")),
        (Some(c), Some(u)) => Some((c, u)),
        (None, None) => None,
    };
    let mut prefixes = Vec::new();
    if let Some(p) = &prefix {
        if !p.is_empty() {
            for part in p.split(',') {
                let n: usize = match part.parse::<usize>() {
                    Ok(n) if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => n,
                    _ => return Err(Error::sql(format!("error parsing prefix parameter: {p}"))),
                };
                if n > 0 && !prefixes.contains(&n) {
                    prefixes.push(n);
                }
            }
        }
    }
    let mut ni = vec![false; columns.len()];
    for n in &notindexed {
        match columns.iter().position(|c| c.eq_ci(n)) {
            Some(i) => ni[i] = true,
            None => return Err(Error::sql(format!("no such column: {n}"))),
        }
    }
    // Duplicate column names (including the language id column).
    let mut all: Vec<String> = columns.iter().map(|c| c.ascii_lower()).collect();
    if let Some(l) = &languageid {
        all.push(l.ascii_lower());
    }
    let mut sorted = all.clone();
    crate::util::cold_sort::sort(&mut sorted);
    sorted.dedup();
    if sorted.len() != all.len() {
        return Err(crate::vdbe::vtab::constructor_failed(&name));
    }
    let tokenizer = match &tok_spec {
        None => tokenizer::create_in(tokenizers, "simple", &[])?,
        Some(words) if words.is_empty() => tokenizer::create_in(tokenizers, "simple", &[])?,
        Some(words) => match tokenizer::create_in(tokenizers, &words[0], &words[1..]) {
            Err(e) if words[0].eq_ci("unicode61") => return Err(Error::sql("unknown tokenizer")).map_err(|_: Error| e),
            r => r?,
        },
    };
    // invariant: fts3_config_shape
    debug_assert!(!columns.is_empty() && prefixes.iter().enumerate().all(|(i, n)| *n > 0 && !prefixes[..i].contains(n)));
    Ok(Config { fts4, db, name, columns, tokenizer, prefixes, content, languageid, matchinfo_fts3, notindexed: ni, desc, compress })
}
