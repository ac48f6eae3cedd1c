//! # The trigram tokenizer
//!
//! Every run of three consecutive characters of the text is a token,
//! at consecutive positions (so a phrase of trigrams matches a substring).
//! Unless `case_sensitive 1`, characters are folded to lower case as
//! unicode61 folds them, and `remove_diacritics 1|2` strips diacritics
//! as there (SQLite refuses it together with `case_sensitive 1`).
//!
//! Invariant: a token holds exactly three characters of the text after
//! folding; its byte range covers the three source characters (checked:
//! fts5_trigram_tokens).

use super::unicode61::fold;
use super::{constructor_error, Token};
use crate::error::Result;
use crate::util::ascii::AsciiLower;

/// Settings of one trigram tokenizer.
#[derive(Debug, Clone, Default)]
pub struct Trigram {
    /// Keep case.
    pub case_sensitive: bool,
    /// 0, 1 or 2 (only when not case sensitive).
    pub remove_diacritics: u8,
}

impl Trigram {
    /// From the arguments after `trigram`.
    pub fn new(args: &[String]) -> Result<Trigram> {
        let mut t = Trigram::default();
        if !args.len().is_multiple_of(2) {
            return Err(constructor_error());
        }
        for kv in args.chunks(2) {
            let v = kv[1].as_str();
            match kv[0].ascii_lower().as_str() {
                "case_sensitive" => {
                    t.case_sensitive = match v {
                        "0" => false,
                        "1" => true,
                        _ => return Err(constructor_error()),
                    }
                }
                "remove_diacritics" => {
                    t.remove_diacritics = match v {
                        "0" => 0,
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(constructor_error()),
                    }
                }
                _ => return Err(constructor_error()),
            }
        }
        if t.case_sensitive && t.remove_diacritics != 0 {
            return Err(constructor_error());
        }
        Ok(t)
    }

    /// The folded characters of `s` with their byte ranges.
    pub fn chars(&self, s: &str) -> Vec<(usize, usize, char)> {
        s.char_indices()
            .filter_map(|(i, c)| {
                // Observed: trigram's remove_diacritics 1 also strips letters
                // with several diacritics (unicode61's 2).
                let rd = if self.remove_diacritics != 0 { 2 } else { 0 };
                let f = if self.case_sensitive { Some(c) } else { fold(c, rd) };
                f.map(|f| (i, i + c.len_utf8(), f))
            })
            .collect()
    }

    /// The tokens of `s`.
    pub fn tokenize(&self, s: &str) -> Vec<Token> {
        let cs = self.chars(s);
        let out: Vec<Token> = cs.windows(3).map(|w| Token::new(w.iter().map(|x| x.2).collect(), w[0].0, w[2].1)).collect();
        // invariant: fts5_trigram_tokens
        debug_assert!(out.iter().all(|t| t.text.chars().count() == 3 && t.start < t.end && s.get(t.start..t.end).is_some_and(|b| b.chars().count() >= 3)));
        out
    }
}
