//! # FTS5's built-in tokenizers and the `tokenize=` option
//!
//! A [`Tokenizer`] is built once per table from its `tokenize=` value
//! (`spec.rs` splits it into words) and turns text into [`Token`]s:
//! - `unicode61.rs`: the default; categories, diacritics, token/separator
//!   characters, with Unicode 6.1 data in `crate::ext::unicode61`,
//! - `ascii.rs`: ASCII letters and digits plus every non-ASCII character,
//! - `porter.rs`: the Porter stemmer over another tokenizer,
//! - `trigram.rs`: every run of three characters,
//! - a tokenizer the application registered (the interface below:
//!   [`TokenizerFactory`], [`CustomTokenizer`]; the connection's registry
//!   is `super::extension`), under its name or wrapped by `porter`.
//!
//! Documents and queries go through the same tokenizer, so what a
//! query's phrase is made of always compares equal to what was indexed.
//!
//! Invariant: every [`Token`]'s `start..end` is a byte range of the input
//! on character boundaries, tokens are in text order (by `start`), and
//! `text` is never empty (checked: fts5_tokens).

pub mod ascii;
pub mod porter;
pub mod spec;
pub mod trigram;
pub mod unicode61;

use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use std::any::Any;
use std::sync::Arc;

/// `FTS5_TOKENIZE_QUERY`: the text is (part of) a MATCH query.
pub const TOKENIZE_QUERY: i32 = 1;
/// `FTS5_TOKENIZE_PREFIX`: a query term followed by `*`.
pub const TOKENIZE_PREFIX: i32 = 2;
/// `FTS5_TOKENIZE_DOCUMENT`: a value being indexed.
pub const TOKENIZE_DOCUMENT: i32 = 4;
/// `FTS5_TOKENIZE_AUX`: an auxiliary function's xTokenize.
pub const TOKENIZE_AUX: i32 = 8;

/// A token a tokenizer reports: its bytes, its byte range in the input,
/// and whether it sits at the position of the previous token.
pub type EmitToken<'a> = dyn FnMut(&[u8], usize, usize, bool) -> Result<()> + 'a;

/// A configured tokenizer of the application's.
pub trait CustomTokenizer: Send + Sync {
    /// Report the tokens of `text` for `reason` (`TOKENIZE_*`) through
    /// `emit`, stopping at the first error `emit` returns.
    fn tokenize(&self, text: &[u8], reason: i32, locale: Option<&[u8]>, emit: &mut EmitToken<'_>) -> Result<()>;
}

/// What the application registered under a tokenizer name.
pub trait TokenizerFactory: Send + Sync {
    /// A tokenizer configured with the words after the name in
    /// `tokenize=` (`SQLITE_ERROR`-style failures as errors).
    fn create(&self, args: &[String]) -> Result<Arc<dyn CustomTokenizer>>;

    /// The factory itself, for the layer that made it to recognise its own.
    fn as_any(&self) -> &dyn Any;
}

/// Finds the tokenizer the application registered under a name
/// (`Extensions::tokenizer` of the connection), for `tokenize=`.
pub type FindTokenizer<'a> = dyn Fn(&str) -> Option<Arc<dyn TokenizerFactory>> + 'a;

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The folded token.
    pub text: String,
    /// Byte offset of its first character in the input.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// At the position of the token before it (`FTS5_TOKEN_COLOCATED`:
    /// a synonym an application's tokenizer reports); never the first.
    pub colocated: bool,
}

impl Token {
    /// A token at a position of its own.
    pub fn new(text: String, start: usize, end: usize) -> Token {
        Token { text, start, end, colocated: false }
    }
}

/// The number of positions `toks` take (a column's size): colocated
/// tokens share the position of the token before them.
pub fn column_size(toks: &[Token]) -> usize {
    toks.iter().filter(|t| !t.colocated).count()
}

/// Each token with its position in the column.
pub fn positioned(toks: &[Token]) -> impl Iterator<Item = (usize, &Token)> {
    let mut pos = 0usize;
    toks.iter().enumerate().map(move |(k, t)| {
        if k > 0 && !t.colocated {
            pos += 1;
        }
        (pos, t)
    })
}

/// Whether some token shares a position with the one before it.
pub fn any_colocated(cols: &[Vec<Token>]) -> bool {
    cols.iter().any(|c| c.iter().any(|t| t.colocated))
}

/// A column's tokens grouped by position (for matching a row whose
/// positions may hold several tokens).
pub fn by_position(toks: &[Token]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::with_capacity(toks.len());
    for (p, t) in positioned(toks) {
        if p == out.len() {
            out.push(Vec::new());
        }
        out[p].push(t.text.clone());
    }
    out
}

/// A configured tokenizer.
#[derive(Debug, Clone)]
pub enum Tokenizer {
    /// `unicode61 ...`.
    Unicode61(unicode61::Unicode61),
    /// `ascii ...`.
    Ascii(ascii::Ascii),
    /// `porter [inner tokenizer ...]`.
    Porter(Box<Tokenizer>),
    /// `trigram ...`.
    Trigram(trigram::Trigram),
    /// A tokenizer the application registered.
    Custom(CustomHandle),
}

/// An application's tokenizer, shared by the tables configured with it.
#[derive(Clone)]
pub struct CustomHandle(pub Arc<dyn CustomTokenizer>);

impl std::fmt::Debug for CustomHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomTokenizer")
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Tokenizer::Unicode61(unicode61::Unicode61::default())
    }
}

/// SQLite's message for arguments a tokenizer does not accept.
pub fn constructor_error() -> Error {
    Error::sql("error in tokenizer constructor")
}

impl Tokenizer {
    /// The tokenizer that the `tokenize=` option's value names.
    pub fn from_option(value: &str, ext: &FindTokenizer<'_>) -> Result<Tokenizer> {
        let words = spec::words(value).ok_or_else(|| Error::sql("parse error in tokenize directive"))?;
        if words.is_empty() {
            return Ok(Tokenizer::default());
        }
        Tokenizer::build(&words, ext)
    }

    /// The tokenizer `words[0]` with arguments `words[1..]`: one the
    /// application registered under that name, else a built-in one.
    pub fn build(words: &[String], ext: &FindTokenizer<'_>) -> Result<Tokenizer> {
        let Some(first) = words.first() else { return Ok(Tokenizer::default()) };
        if let Some(f) = ext(first) {
            return Ok(Tokenizer::Custom(CustomHandle(f.create(&words[1..]).map_err(|e| if e.message.is_empty() { constructor_error() } else { e })?)));
        }
        let name = first.ascii_lower();
        let args = &words[1..];
        match name.as_str() {
            "unicode61" => Ok(Tokenizer::Unicode61(unicode61::Unicode61::new(args)?)),
            "ascii" => Ok(Tokenizer::Ascii(ascii::Ascii::new(args)?)),
            "trigram" => Ok(Tokenizer::Trigram(trigram::Trigram::new(args)?)),
            "porter" => {
                let inner = if args.is_empty() { Tokenizer::default() } else { Tokenizer::build(args, ext).map_err(|_| constructor_error())? };
                // Observed: porter over porter stems once.
                Ok(match inner {
                    Tokenizer::Porter(_) => inner,
                    other => Tokenizer::Porter(Box::new(other)),
                })
            }
            _ => Err(Error::sql(format!("no such tokenizer: {}", words[0]))),
        }
    }

    /// The tokens of a document's `text` (invalid UTF-8 read as U+FFFD).
    pub fn tokenize(&self, text: &[u8]) -> Result<Vec<Token>> {
        self.tokenize_for(text, TOKENIZE_DOCUMENT)
    }

    /// The tokens of `text` tokenized for `reason` (`TOKENIZE_*`; only
    /// an application's tokenizer sees it, or fails).
    pub fn tokenize_for(&self, text: &[u8], reason: i32) -> Result<Vec<Token>> {
        self.tokenize_in(text, reason, None)
    }

    /// [`Self::tokenize_for`] with the value's locale (`fts5_locale()`
    /// on a `locale=1` table), which only an application's tokenizer sees.
    pub fn tokenize_in(&self, text: &[u8], reason: i32, locale: Option<&[u8]>) -> Result<Vec<Token>> {
        let s = as_str(text);
        let out = match self {
            Tokenizer::Unicode61(u) => u.tokenize(&s),
            Tokenizer::Ascii(a) => a.tokenize(&s),
            Tokenizer::Trigram(t) => t.tokenize(&s),
            Tokenizer::Porter(inner) => {
                let mut toks = inner.tokenize_in(text, reason, locale)?;
                for t in &mut toks {
                    t.text = porter::stem(&t.text);
                }
                toks
            }
            Tokenizer::Custom(c) => custom_tokens(&*c.0, text, reason, locale)?,
        };
        // invariant: fts5_tokens
        debug_assert!(out.iter().all(|t| !t.text.is_empty() && t.start <= t.end));
        debug_assert!(out.first().is_none_or(|t| !t.colocated));
        Ok(out)
    }

    /// Report the tokens of a document's `text` (with its locale) to
    /// `emit`: each token's text and whether it is colocated. unicode61
    /// and ascii (and porter over them) report them from a reused buffer,
    /// without a [`Token`] each (a row being indexed has many).
    pub fn each_document(&self, text: &[u8], locale: Option<&[u8]>, emit: &mut dyn FnMut(&[u8], bool)) -> Result<()> {
        match self {
            Tokenizer::Unicode61(u) => u.scan(&as_str(text), &mut |t, _, _| emit(t.as_bytes(), false)),
            Tokenizer::Ascii(a) => a.scan(&as_str(text), &mut |t, _, _| emit(t.as_bytes(), false)),
            Tokenizer::Porter(inner) => {
                inner.each_document(text, locale, &mut |t, colocated| emit(porter::stem(&String::from_utf8_lossy(t)).as_bytes(), colocated))?
            }
            _ => {
                for t in self.tokenize_in(text, TOKENIZE_DOCUMENT, locale)? {
                    emit(t.text.as_bytes(), t.colocated);
                }
            }
        }
        Ok(())
    }

    /// Report the tokens of `text` for `reason` to `emit` as an
    /// application's tokenizer would (an application's own tokenizer sees
    /// `locale` and may report colocated tokens).
    pub fn tokenize_each(&self, text: &[u8], reason: i32, locale: Option<&[u8]>, emit: &mut EmitToken<'_>) -> Result<()> {
        if let Tokenizer::Custom(c) = self {
            return c.0.tokenize(text, reason, locale, emit);
        }
        for t in self.tokenize_in(text, reason, locale)? {
            match emit(t.text.as_bytes(), t.start, t.end, t.colocated) {
                Ok(()) => {}
                // Observed: a built-in tokenizer told SQLITE_DONE stops
                // and reports success.
                Err(e) if e.code == crate::error::SQLITE_DONE => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Whether this is (or wraps nothing but) the trigram tokenizer.
    pub fn is_trigram(&self) -> bool {
        match self {
            Tokenizer::Trigram(_) => true,
            Tokenizer::Porter(inner) => inner.is_trigram(),
            _ => false,
        }
    }
}

/// `text` as UTF-8 (invalid sequences read as U+FFFD).
fn as_str(text: &[u8]) -> std::borrow::Cow<'_, str> {
    // (Valid UTF-8, nearly always, is checked by the faster check.)
    match std::str::from_utf8(text) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(text),
    }
}

/// The tokens of `text` under the default tokenizer.
pub fn tokenize(text: &[u8]) -> Vec<Token> {
    Tokenizer::default().tokenize(text).unwrap_or_default()
}

/// The tokens an application's tokenizer reports for `text`. Ranges are
/// clamped to the text and empty tokens dropped (the index holds none).
/// A token at the previous one's position (`FTS5_TOKEN_COLOCATED`) keeps
/// that flag, except as the first token, which has a position of its own.
fn custom_tokens(t: &dyn CustomTokenizer, text: &[u8], reason: i32, locale: Option<&[u8]>) -> Result<Vec<Token>> {
    let mut out: Vec<Token> = Vec::new();
    t.tokenize(text, reason, locale, &mut |tok, start, end, colocated| {
        if !tok.is_empty() {
            let end = end.min(text.len());
            let colocated = colocated && !out.is_empty();
            out.push(Token { text: String::from_utf8_lossy(tok).into_owned(), start: start.min(end), end, colocated });
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_folds() {
        let t: Vec<String> = tokenize("Héllo, WORLD_x 42".as_bytes()).into_iter().map(|t| t.text).collect();
        assert_eq!(t, ["hello", "world", "x", "42"]);
    }
}
