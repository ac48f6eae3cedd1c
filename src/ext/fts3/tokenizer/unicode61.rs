//! # The `unicode61` tokenizer
//!
//! Tokens are runs of Unicode letters and numbers (plus `tokenchars=`,
//! minus `separators=`); terms are folded to lower case and, unless
//! `remove_diacritics=0`, stripped of the diacritics of Latin letters.
//!
//! Character classes and folds for U+0080 to U+FFFF come from
//! `crate::ext::unicode61` (SQLite's Unicode 6.1 answers, shared with
//! FTS5); beyond that plane Rust's Unicode tables stand in (a newer
//! Unicode: a few characters may be classed or folded differently there).

use super::{Token, Tokenizer};
use crate::error::{Error, Result};
use crate::ext::unicode61::is_diacritic;

/// The `unicode61` tokenizer.
pub struct Unicode61 {
    remove_diacritics: u8,
    tokenchars: Vec<char>,
    separators: Vec<char>,
}

impl Unicode61 {
    /// With SQLite's `key=value` arguments.
    pub fn new(args: &[String]) -> Result<Unicode61> {
        let mut t = Unicode61 { remove_diacritics: 1, tokenchars: Vec::new(), separators: Vec::new() };
        for a in args {
            let (k, v) = a.split_once('=').ok_or_else(|| Error::sql("unknown tokenizer".to_string()))?;
            match k {
                "remove_diacritics" if v == "0" || v == "1" || v == "2" => t.remove_diacritics = v.as_bytes()[0] - b'0',
                "tokenchars" => t.tokenchars.extend(v.chars()),
                "separators" => t.separators.extend(v.chars()),
                _ => return Err(Error::sql("unknown tokenizer")),
            }
        }
        Ok(t)
    }

    fn is_token(&self, c: char) -> bool {
        if self.separators.contains(&c) {
            return false;
        }
        if self.tokenchars.contains(&c) {
            return true;
        }
        base_token(c)
    }
}

/// Whether `c` is a token character by default.
fn base_token(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return c.is_ascii_alphanumeric();
    }
    if u <= 0xFFFF {
        // (The two noncharacters at the plane's end separate tokens in
        // SQLite's FTS3 tokenizer.)
        return u < 0xFFFE && crate::ext::unicode61::default_token(c);
    }
    // Beyond the Basic Multilingual Plane: Rust's classes.
    c.is_alphanumeric() || matches!(u, 0xF0000..=0x10FFFD)
}

/// What `c` folds to at diacritic-removal `level`.
fn fold(c: char, level: u8) -> char {
    let u = c as u32;
    if u < 0x80 {
        return c.to_ascii_lowercase();
    }
    if u > 0xFFFF {
        return c.to_lowercase().next().unwrap_or(c);
    }
    // (Only token characters are folded, and no diacritic is one.)
    crate::ext::unicode61::fold(c, level).unwrap_or(c)
}

impl Tokenizer for Unicode61 {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        let s = String::from_utf8_lossy(text);
        // Offsets are in the input's bytes: walk the valid prefix
        // character by character (invalid bytes act as separators).
        let mut out = Vec::new();
        let mut cur: Option<(usize, String)> = None;
        let mut off = 0usize;
        let chars: Vec<(usize, char)> = if matches!(s, std::borrow::Cow::Borrowed(_)) { s.char_indices().collect() } else { Vec::new() };
        let chars = if chars.is_empty() && !text.is_empty() && std::str::from_utf8(text).is_err() { lossy_indices(text) } else { chars };
        for (i, c) in chars {
            off = i + c.len_utf8();
            if cur.is_some() && is_diacritic(c) && !self.separators.contains(&c) {
                if self.remove_diacritics == 0 {
                    if let Some((_, t)) = &mut cur {
                        t.push(c);
                    }
                }
                continue;
            }
            if self.is_token(c) {
                let folded = fold(c, self.remove_diacritics).to_string();
                match &mut cur {
                    Some((_, t)) => t.push_str(&folded),
                    None => cur = Some((i, folded)),
                }
            } else if let Some((st, t)) = cur.take() {
                let pos = out.len() as i64;
                out.push(Token { term: t.into_bytes(), start: st, end: i, pos });
            }
        }
        if let Some((st, t)) = cur.take() {
            let pos = out.len() as i64;
            out.push(Token { term: t.into_bytes(), start: st, end: off.max(st), pos });
        }
        // invariant: fts3_builtin_tokens
        debug_assert!(super::well_formed(&out, text.len()));
        out
    }
}

/// Characters of a text that is not valid UTF-8, with their byte offsets;
/// invalid bytes become U+FFFD (a separator... it is not alphanumeric).
fn lossy_indices(text: &[u8]) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match std::str::from_utf8(&text[i..]) {
            Ok(s) => {
                out.extend(s.char_indices().map(|(j, c)| (i + j, c)));
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                let s = std::str::from_utf8(&text[i..i + good]).unwrap_or("");
                out.extend(s.char_indices().map(|(j, c)| (i + j, c)));
                i += good;
                let bad = e.error_len().unwrap_or(text.len() - i);
                out.push((i, '\u{FFFD}'));
                i += bad;
            }
        }
    }
    out
}
