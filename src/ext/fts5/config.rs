//! # The arguments of `CREATE VIRTUAL TABLE ... USING fts5(...)`
//!
//! Each argument is a column declaration (a name, optionally followed by
//! `UNINDEXED`) or an option `name=value`. This stage accepts
//! `tokenize=` (every built-in tokenizer, `tokenizer/`), `detail=`
//! (full, column, none),
//! `prefix=`, the table kinds of `content=` (own `%_content`, external
//! content with `content_rowid=`, contentless `content=''` with
//! `contentless_unindexed=`, `contentless_delete=`), `columnsize=`,
//! `locale=` and `tokendata=`.
//! Every other option is SQLite's "unrecognized option" error.
//!
//! Invariant: a [`Config`] has at least one column, no column is named `rank`
//! or `rowid`, and `unindexed` has one entry per column (checked:
//! fts5_config_columns).

pub use super::codec::Detail;
use super::tokenizer::{FindTokenizer, Tokenizer};
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;

/// Size of the header of the values `fts5_locale()` makes (`locale.rs`).
pub const LOCALE_HEADER_LEN: usize = 16;

/// A parsed table declaration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Database name (argv[1]).
    pub db: String,
    /// Table name.
    pub name: String,
    /// Column names as declared.
    pub columns: Vec<String>,
    /// Columns declared UNINDEXED.
    pub unindexed: Vec<bool>,
    /// `prefix=` lengths.
    pub prefix: Vec<u32>,
    /// `tokenize=`.
    pub tokenizer: Tokenizer,
    /// `detail=`.
    pub detail: Detail,
    /// Where the column values are kept (`content=`, `content_rowid=`).
    pub content: Content,
    /// `columnsize=1` (the default): `%_docsize` is kept.
    pub columnsize: bool,
    /// `contentless_unindexed=1`: a contentless table keeps its
    /// UNINDEXED columns' values in `%_content`.
    pub contentless_unindexed: bool,
    /// `contentless_delete=1`: a contentless table whose rows may be
    /// deleted and updated (tombstones, `tombstone.rs`).
    pub contentless_delete: bool,
    /// `locale=1`: values may carry a locale (`locale.rs`).
    pub locale: bool,
    /// `tokendata=1`: a token's bytes after a zero byte are data, not
    /// matched by queries (which match the part before it).
    pub tokendata: bool,
    /// The connection's header of locale values (set when the table is
    /// connected; None while only the shadow tables are made).
    pub locale_header: Option<[u8; LOCALE_HEADER_LEN]>,
    /// How many structure records this connection's object for the
    /// table stored (shared by the clones cursors hold): an fts5vocab
    /// cursor that sees it move under it stops ("query aborted").
    pub generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The statements its rows' writes run, prepared once (shared by the
    /// clones, as `generation`).
    pub stmts: super::stmts::Stmts,
}

/// Where an fts5 table's column values live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// In its own `%_content` table (the default).
    Own,
    /// Nowhere: `content=''` (a contentless table).
    None,
    /// In another table or view: `content=table`, its rowid column
    /// (`content_rowid=`, default `rowid`).
    External {
        /// The content table's name.
        table: String,
        /// Its column holding the rowids.
        rowid: String,
    },
}

/// Whether an option's raw value is one bareword or one quoted literal
/// (else SQLite reports `parse error in "key=value"`).
fn single_value(v: &str) -> bool {
    let b = v.as_bytes();
    match b.first() {
        // (An empty value is one: `content=` is `content=''`.)
        None => true,
        Some(&q @ (b'\'' | b'"' | b'`')) => {
            let mut i = 1;
            while i < b.len() {
                if b[i] == q {
                    if b.get(i + 1) == Some(&q) {
                        i += 2;
                        continue;
                    }
                    return i + 1 == b.len();
                }
                i += 1;
            }
            false
        }
        Some(b'[') => b.iter().position(|&c| c == b']') == Some(b.len() - 1),
        _ => v.chars().all(|c| !c.is_ascii() || c.is_ascii_alphanumeric() || c == '_' || c == '\u{1a}'),
    }
}

/// Remove SQL quoting ('..', "..", `..`, [..]) from a word.
fn dequote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 {
        let (o, c) = (b[0], b[b.len() - 1]);
        let inner = &s[1..s.len() - 1];
        match (o, c) {
            (b'\'', b'\'') => return inner.replace("''", "'"),
            (b'"', b'"') => return inner.replace("\"\"", "\""),
            (b'`', b'`') => return inner.replace("``", "`"),
            (b'[', b']') => return inner.to_string(),
            _ => {}
        }
    }
    s.to_string()
}

/// Split a declaration into whitespace-separated words, keeping quoted
/// words whole.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        if cs[i].is_whitespace() {
            i += 1;
            continue;
        }
        let st = i;
        let close = match cs[i] {
            '\'' => Some('\''),
            '"' => Some('"'),
            '`' => Some('`'),
            '[' => Some(']'),
            _ => None,
        };
        if let Some(q) = close {
            i += 1;
            while i < cs.len() {
                if cs[i] == q {
                    if q != ']' && i + 1 < cs.len() && cs[i + 1] == q {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
        } else {
            while i < cs.len() && !cs[i].is_whitespace() {
                i += 1;
            }
        }
        out.push(cs[st..i].iter().collect());
    }
    out
}

/// The words of a column declaration, as SQLite's fts5 reads them:
/// barewords (ASCII letters, digits, `_` and any non-ASCII character)
/// and quoted words, separated by spaces (a quoted word needs none).
/// None when something else separates or follows them (a tab, a form
/// feed, `$`, `-`, ...): SQLite then reports `parse error in "..."`.
fn column_words(s: &str) -> Option<Vec<String>> {
    let b = s.as_bytes();
    let bare = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b' ' {
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
        if let Some(q) = close {
            i += 1;
            loop {
                if i >= b.len() {
                    return None;
                }
                if b[i] == q {
                    if q != b']' && b.get(i + 1) == Some(&q) {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
        } else {
            while i < b.len() && bare(b[i]) {
                i += 1;
            }
            if i == st {
                return None;
            }
            // A bareword is followed by a space, a quote or the end.
            if i < b.len() && !matches!(b[i], b' ' | b'\'' | b'"' | b'`' | b'[') {
                return None;
            }
        }
        out.push(s[st..i].to_string());
    }
    Some(out)
}

impl Config {
    /// Parse xCreate's/xConnect's argv.
    pub fn parse(argv: &[String], ext: &FindTokenizer<'_>) -> Result<Config> {
        let db = argv.get(1).cloned().unwrap_or_else(|| "main".into());
        let name = argv.get(2).cloned().unwrap_or_default();
        let mut cfg = Config {
            db,
            name: name.clone(),
            columns: Vec::new(),
            unindexed: Vec::new(),
            prefix: Vec::new(),
            tokenizer: Tokenizer::default(),
            detail: Detail::Full,
            content: Content::Own,
            columnsize: true,
            contentless_unindexed: false,
            contentless_delete: false,
            locale: false,
            tokendata: false,
            locale_header: None,
            generation: Default::default(),
            stmts: Default::default(),
        };
        let mut tokenize_seen = false;
        let mut content: Option<String> = None;
        let mut content_rowid: Option<String> = None;
        let mut contentless_delete = false;
        for arg in argv.iter().skip(3) {
            let a = arg.trim();
            let eq = a.find('=');
            let is_option = eq.is_some_and(|e| {
                let k = a[..e].trim();
                !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if is_option {
                let e = eq.unwrap_or(0);
                let key = a[..e].trim().ascii_lower();
                let value = dequote(a[e + 1..].trim());
                match key.as_str() {
                    "prefix" => {
                        for p in value.split([' ', ',']).filter(|p| !p.is_empty()) {
                            if !p.bytes().all(|b| b.is_ascii_digit()) {
                                return Err(Error::sql("malformed prefix=... directive"));
                            }
                            match p.parse::<u32>() {
                                Ok(n) if (1..1000).contains(&n) => cfg.prefix.push(n),
                                _ => return Err(Error::sql("prefix length out of range (max 999)")),
                            }
                        }
                    }
                    "tokenize" | "detail" if !single_value(a[e + 1..].trim()) => return Err(Error::sql(format!("parse error in \"{a}\""))),
                    "tokenize" if tokenize_seen => return Err(Error::sql("multiple tokenize=... directives")),
                    "tokenize" => {
                        tokenize_seen = true;
                        // (`tokenize=` with nothing: the default one.)
                        if !value.trim().is_empty() {
                            cfg.tokenizer = Tokenizer::from_option(&value, ext)?;
                        }
                    }
                    "detail" => {
                        // As SQLite: any non-empty prefix of "full",
                        // "columns" or "none", in any case ("col").
                        let v = value.ascii_lower();
                        let is = |name: &str| !v.is_empty() && name.starts_with(v.as_str());
                        cfg.detail = if is("full") {
                            Detail::Full
                        } else if is("columns") {
                            Detail::Column
                        } else if is("none") {
                            Detail::None
                        } else {
                            return Err(Error::sql("malformed detail=... directive"));
                        };
                    }
                    "content" | "content_rowid" => {
                        let raw = a[e + 1..].trim();
                        if words(raw).len() > 1 {
                            return Err(Error::sql(format!("parse error in \"{a}\"")));
                        }
                        let slot = if key == "content" { &mut content } else { &mut content_rowid };
                        if slot.is_some() {
                            return Err(Error::sql(format!("multiple {key}=... directives")));
                        }
                        *slot = Some(value);
                    }
                    "columnsize" | "contentless_delete" | "contentless_unindexed" | "locale" | "tokendata" => {
                        let on = match value.as_str() {
                            "0" => false,
                            "1" => true,
                            _ => return Err(Error::sql(format!("malformed {key}=... directive"))),
                        };
                        match key.as_str() {
                            "columnsize" => cfg.columnsize = on,
                            "contentless_delete" => contentless_delete = on,
                            "locale" => cfg.locale = on,
                            "tokendata" => cfg.tokendata = on,
                            _ => cfg.contentless_unindexed = on,
                        }
                    }
                    _ => return Err(Error::sql(format!("unrecognized option: \"{}\"", a[..e].trim()))),
                }
                continue;
            }
            // (Three words, or words joined otherwise than by spaces, do
            // not parse.)
            let w = match column_words(a) {
                Some(w) if w.len() <= 2 => w,
                _ => return Err(Error::sql(format!("parse error in \"{a}\""))),
            };
            let Some(first) = w.first() else {
                return Err(crate::vdbe::vtab::constructor_failed(&name));
            };
            let col = dequote(first);
            if col.eq_ci("rank") || col.eq_ci("rowid") {
                return Err(Error::sql(format!("reserved fts5 column name: {col}")));
            }
            let mut unindexed = false;
            for opt in &w[1..] {
                if dequote(opt).eq_ci("unindexed") {
                    unindexed = true;
                } else {
                    return Err(Error::sql(format!("unrecognized column option: {}", dequote(opt))));
                }
            }
            cfg.columns.push(col);
            cfg.unindexed.push(unindexed);
        }
        if cfg.columns.is_empty() {
            return Err(crate::vdbe::vtab::constructor_failed(&name));
        }
        cfg.content = match content {
            None => Content::Own,
            Some(t) if t.is_empty() => Content::None,
            Some(t) => Content::External { table: t, rowid: content_rowid.unwrap_or_else(|| "rowid".into()) },
        };
        let contentless = cfg.content == Content::None;
        if contentless_delete && !contentless {
            return Err(Error::sql("contentless_delete=1 requires a contentless table"));
        }
        if contentless_delete && !cfg.columnsize {
            return Err(Error::sql("contentless_delete=1 is incompatible with columnsize=0"));
        }
        if cfg.contentless_unindexed && !contentless {
            return Err(Error::sql("contentless_unindexed=1 requires a contentless table"));
        }
        cfg.contentless_delete = contentless_delete;
        // invariant: fts5_config_columns
        debug_assert_eq!(cfg.columns.len(), cfg.unindexed.len());
        Ok(cfg)
    }

    /// `'db'.'name_suffix'`, quoted for SQL.
    pub fn shadow(&self, suffix: &str) -> String {
        format!("\"{}\".'{}_{}'", self.db.replace('"', "\"\""), self.name.replace('\'', "''"), suffix)
    }

    /// The columns `%_content` holds (all for a regular table, the
    /// UNINDEXED ones for `contentless_unindexed=1`, none otherwise).
    pub fn stored_columns(&self) -> Vec<usize> {
        match self.content {
            Content::Own => (0..self.columns.len()).collect(),
            Content::None if self.contentless_unindexed => (0..self.columns.len()).filter(|&i| self.unindexed[i]).collect(),
            _ => Vec::new(),
        }
    }

    /// The content table as `"db"."table"` (external content only).
    pub fn external(&self) -> Option<(String, String)> {
        match &self.content {
            Content::External { table, rowid } => {
                Some((format!("\"{}\".\"{}\"", self.db.replace('"', "\"\""), table.replace('"', "\"\"")), format!("\"{}\"", rowid.replace('"', "\"\""))))
            }
            _ => None,
        }
    }

    /// The table as `sqlite3_declare_vtab` declares it: the columns, then
    /// the hidden table-named column and `rank`.
    pub fn declaration(&self) -> String {
        let mut s = String::from("CREATE TABLE x(");
        for c in &self.columns {
            s.push_str(&format!("\"{}\", ", c.replace('"', "\"\"")));
        }
        s.push_str(&format!("\"{}\" HIDDEN, rank HIDDEN)", self.name.replace('"', "\"\"")));
        s
    }
}
