//! # Tokenizers: text to terms
//!
//! The three built-in FTS3/4 tokenizers, chosen with `tokenize=NAME
//! ARGS...` in `CREATE VIRTUAL TABLE`: `simple` (ASCII letters and digits
//! and every non-ASCII byte make tokens, ASCII folded to lower case),
//! `porter` (the same tokens, stemmed with Porter's algorithm) and
//! `unicode61` (Unicode letters and numbers, case-folded, diacritics
//! removed by default; `tokenchars=`, `separators=`,
//! `remove_diacritics=`); and the application's, C modules registered
//! with `fts3_tokenizer()` (`registry`).
//!
//! Invariants of the built-in tokenizers: tokens come in text order with
//! positions 0, 1, 2...; `start..end` are byte offsets of the token in
//! the input (what `offsets()` and `snippet()` report); a term is never
//! empty (checked: fts3_builtin_tokens). An application's tokenizer is
//! taken at its word, as SQLite takes it.

mod porter;
pub mod registry;
mod simple;
mod unicode61;

use crate::error::{Error, Result};

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The term indexed for it.
    pub term: Vec<u8>,
    /// Byte offset of its first byte in the input.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
    /// Its position (0 the first token).
    pub pos: i64,
}

/// A configured tokenizer.
pub trait Tokenizer: Send + Sync {
    /// Split `text` into tokens (an application's tokenizer that fails
    /// gives the tokens before its failure).
    fn tokenize(&self, text: &[u8]) -> Vec<Token>;

    /// Split `text` of language `langid` into tokens: those before an
    /// application's tokenizer failed, with its error (the built-ins
    /// never fail and ignore the language).
    fn tokenize_until_error(&self, text: &[u8], langid: i64) -> (Vec<Token>, Option<Error>) {
        let _ = langid;
        (self.tokenize(text), None)
    }

    /// [`Self::tokenize_until_error`]: all the tokens, or the error.
    fn try_tokenize(&self, text: &[u8], langid: i64) -> Result<Vec<Token>> {
        match self.tokenize_until_error(text, langid) {
            (toks, None) => Ok(toks),
            (_, Some(e)) => Err(e),
        }
    }
}

/// A tokenizer used for the texts of one language (a query of an FTS4
/// table with `languageid=`): the language reaches an application's
/// tokenizer (xLanguageid).
pub struct InLanguage<'a>(pub &'a dyn Tokenizer, pub i64);

impl Tokenizer for InLanguage<'_> {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        self.0.tokenize_until_error(text, self.1).0
    }

    fn tokenize_until_error(&self, text: &[u8], _langid: i64) -> (Vec<Token>, Option<Error>) {
        self.0.tokenize_until_error(text, self.1)
    }
}

/// The tokenizer registered as `name` on the connection (`registry`),
/// with `args` (as written after the name, unquoted), or SQLite's error
/// for an unknown one.
pub fn create_in(reg: &registry::Registry, name: &str, args: &[String]) -> Result<Box<dyn Tokenizer>> {
    reg.create(name, args).unwrap_or_else(|| create(name, args))
}

/// The built-in tokenizer `name` with `args` (as written after the name,
/// unquoted), or SQLite's error for an unknown one. Names are
/// case-sensitive, as SQLite's tokenizer hash compares them (`Simple` is
/// unknown).
pub fn create(name: &str, args: &[String]) -> Result<Box<dyn Tokenizer>> {
    match name {
        "simple" => Ok(Box::new(simple::Simple::new(args))),
        "porter" => Ok(Box::new(porter::Porter)),
        "unicode61" => Ok(Box::new(unicode61::Unicode61::new(args)?)),
        _ => Err(Error::sql(format!("unknown tokenizer: {name}"))),
    }
}

/// Split an ASCII-oriented text: `is_token` says which bytes belong to
/// tokens; `fold` makes the term from the token's bytes.
pub(crate) fn split_bytes(text: &[u8], is_token: impl Fn(u8) -> bool, mut fold: impl FnMut(&[u8]) -> Vec<u8>) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        while i < text.len() && !is_token(text[i]) {
            i += 1;
        }
        let s = i;
        while i < text.len() && is_token(text[i]) {
            i += 1;
        }
        if i > s {
            let term = fold(&text[s..i]);
            if !term.is_empty() {
                let pos = out.len() as i64;
                out.push(Token { term, start: s, end: i, pos });
            }
        }
    }
    // invariant: fts3_builtin_tokens
    debug_assert!(well_formed(&out, text.len()));
    out
}

/// Whether `toks` are non-empty terms at positions 0, 1, 2... over
/// ascending, disjoint byte ranges of a text of `len` bytes.
pub(crate) fn well_formed(toks: &[Token], len: usize) -> bool {
    toks.iter().enumerate().all(|(i, t)| t.pos == i as i64 && !t.term.is_empty() && t.start < t.end && t.end <= len)
        && toks.windows(2).all(|w| w[0].end <= w[1].start)
}
