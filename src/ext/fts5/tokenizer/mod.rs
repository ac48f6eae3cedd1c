//! # FTS5's built-in tokenizers and the `tokenize=` option
//!
//! A [`Tokenizer`] is built once per table from its `tokenize=` value
//! (`spec.rs` splits it into words) and turns text into [`Token`]s:
//! - `unicode61.rs`: the default; categories, diacritics, token/separator
//!   characters, with Unicode 6.1 data in `crate::ext::unicode61`,
//! - `ascii.rs`: ASCII letters and digits plus every non-ASCII character,
//! - `porter.rs`: the Porter stemmer over another tokenizer,
//! - `trigram.rs`: every run of three characters.
//!
//! Documents and queries go through the same tokenizer, so what a
//! query's phrase is made of always compares equal to what was indexed.
//!
//! Invariant: every [`Token`]'s `start..end` is a byte range of the input
//! on character boundaries, tokens are in text order (by `start`), and
//! `text` is never empty.

pub mod ascii;
pub mod porter;
pub mod spec;
pub mod trigram;
pub mod unicode61;

use crate::error::{Error, Result};

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The folded token.
    pub text: String,
    /// Byte offset of its first character in the input.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
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
    pub fn from_option(value: &str) -> Result<Tokenizer> {
        let words = spec::words(value).ok_or_else(|| Error::sql("parse error in tokenize directive"))?;
        if words.is_empty() {
            return Ok(Tokenizer::default());
        }
        Tokenizer::build(&words)
    }

    /// The tokenizer `words[0]` with arguments `words[1..]`.
    fn build(words: &[String]) -> Result<Tokenizer> {
        let name = words[0].to_ascii_lowercase();
        let args = &words[1..];
        match name.as_str() {
            "unicode61" => Ok(Tokenizer::Unicode61(unicode61::Unicode61::new(args)?)),
            "ascii" => Ok(Tokenizer::Ascii(ascii::Ascii::new(args)?)),
            "trigram" => Ok(Tokenizer::Trigram(trigram::Trigram::new(args)?)),
            "porter" => {
                let inner = if args.is_empty() { Tokenizer::default() } else { Tokenizer::build(args).map_err(|_| constructor_error())? };
                // Observed: porter over porter stems once.
                Ok(match inner {
                    Tokenizer::Porter(_) => inner,
                    other => Tokenizer::Porter(Box::new(other)),
                })
            }
            _ => Err(Error::sql(format!("no such tokenizer: {}", words[0]))),
        }
    }

    /// The tokens of `text` (invalid UTF-8 read as U+FFFD).
    pub fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        let s = String::from_utf8_lossy(text);
        let out = match self {
            Tokenizer::Unicode61(u) => u.tokenize(&s),
            Tokenizer::Ascii(a) => a.tokenize(&s),
            Tokenizer::Trigram(t) => t.tokenize(&s),
            Tokenizer::Porter(inner) => {
                let mut toks = inner.tokenize(text);
                for t in &mut toks {
                    t.text = porter::stem(&t.text);
                }
                toks
            }
        };
        debug_assert!(out.iter().all(|t| !t.text.is_empty() && t.start <= t.end));
        out
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

/// The tokens of `text` under the default tokenizer.
pub fn tokenize(text: &[u8]) -> Vec<Token> {
    Tokenizer::default().tokenize(text)
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
