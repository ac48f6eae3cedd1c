//! # The `unicode61` tokenizer
//!
//! Tokens are runs of Unicode letters and numbers (plus `tokenchars=`,
//! minus `separators=`); terms are folded to lower case and, unless
//! `remove_diacritics=0`, stripped of the diacritics of Latin letters.
//!
//! Character classes come from Rust's Unicode tables (a newer Unicode
//! than SQLite's 6.1: a few recently added characters may be classed
//! differently); diacritics are removed from the Latin letters whose
//! canonical decomposition is an ASCII letter and diacritics (U+00C0 to
//! U+024F), with one diacritic only unless `remove_diacritics=2`.

use super::{Token, Tokenizer};
use crate::error::{Error, Result};

/// The `unicode61` tokenizer.
pub struct Unicode61 {
    remove_diacritics: u8,
    tokenchars: Vec<char>,
    separators: Vec<char>,
}

impl Unicode61 {
    /// With SQLite's `key=value` arguments.
    pub fn new(args: &[String]) -> Result<Unicode61> {
        let mut t = Unicode61 {
            remove_diacritics: 1,
            tokenchars: Vec::new(),
            separators: Vec::new(),
        };
        for a in args {
            let (k, v) = a
                .split_once('=')
                .ok_or_else(|| Error::sql("unknown tokenizer".to_string()))?;
            match k {
                "remove_diacritics" if v == "0" || v == "1" || v == "2" => {
                    t.remove_diacritics = v.as_bytes()[0] - b'0'
                }
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
        c.is_alphanumeric() || is_private_use(c)
    }
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF)
}

/// Lower-case Latin letters made of an ASCII letter and diacritics
/// (their canonical decomposition): the letter, and how many diacritics.
const STRIP: &[(u32, u8, u8)] = &[
    (0xE0, b'a', 1),
    (0xE1, b'a', 1),
    (0xE2, b'a', 1),
    (0xE3, b'a', 1),
    (0xE4, b'a', 1),
    (0xE5, b'a', 1),
    (0xE7, b'c', 1),
    (0xE8, b'e', 1),
    (0xE9, b'e', 1),
    (0xEA, b'e', 1),
    (0xEB, b'e', 1),
    (0xEC, b'i', 1),
    (0xED, b'i', 1),
    (0xEE, b'i', 1),
    (0xEF, b'i', 1),
    (0xF1, b'n', 1),
    (0xF2, b'o', 1),
    (0xF3, b'o', 1),
    (0xF4, b'o', 1),
    (0xF5, b'o', 1),
    (0xF6, b'o', 1),
    (0xF9, b'u', 1),
    (0xFA, b'u', 1),
    (0xFB, b'u', 1),
    (0xFC, b'u', 1),
    (0xFD, b'y', 1),
    (0xFF, b'y', 1),
    (0x101, b'a', 1),
    (0x103, b'a', 1),
    (0x105, b'a', 1),
    (0x107, b'c', 1),
    (0x109, b'c', 1),
    (0x10B, b'c', 1),
    (0x10D, b'c', 1),
    (0x10F, b'd', 1),
    (0x113, b'e', 1),
    (0x115, b'e', 1),
    (0x117, b'e', 1),
    (0x119, b'e', 1),
    (0x11B, b'e', 1),
    (0x11D, b'g', 1),
    (0x11F, b'g', 1),
    (0x121, b'g', 1),
    (0x123, b'g', 1),
    (0x125, b'h', 1),
    (0x129, b'i', 1),
    (0x12B, b'i', 1),
    (0x12D, b'i', 1),
    (0x12F, b'i', 1),
    (0x135, b'j', 1),
    (0x137, b'k', 1),
    (0x13A, b'l', 1),
    (0x13C, b'l', 1),
    (0x13E, b'l', 1),
    (0x144, b'n', 1),
    (0x146, b'n', 1),
    (0x148, b'n', 1),
    (0x14D, b'o', 1),
    (0x14F, b'o', 1),
    (0x151, b'o', 1),
    (0x155, b'r', 1),
    (0x157, b'r', 1),
    (0x159, b'r', 1),
    (0x15B, b's', 1),
    (0x15D, b's', 1),
    (0x15F, b's', 1),
    (0x161, b's', 1),
    (0x163, b't', 1),
    (0x165, b't', 1),
    (0x169, b'u', 1),
    (0x16B, b'u', 1),
    (0x16D, b'u', 1),
    (0x16F, b'u', 1),
    (0x171, b'u', 1),
    (0x173, b'u', 1),
    (0x175, b'w', 1),
    (0x177, b'y', 1),
    (0x17A, b'z', 1),
    (0x17C, b'z', 1),
    (0x17E, b'z', 1),
    (0x1A1, b'o', 1),
    (0x1B0, b'u', 1),
    (0x1CE, b'a', 1),
    (0x1D0, b'i', 1),
    (0x1D2, b'o', 1),
    (0x1D4, b'u', 1),
    (0x1D6, b'u', 2),
    (0x1D8, b'u', 2),
    (0x1DA, b'u', 2),
    (0x1DC, b'u', 2),
    (0x1DF, b'a', 2),
    (0x1E1, b'a', 2),
    (0x1E7, b'g', 1),
    (0x1E9, b'k', 1),
    (0x1EB, b'o', 1),
    (0x1ED, b'o', 2),
    (0x1F0, b'j', 1),
    (0x1F5, b'g', 1),
    (0x1F9, b'n', 1),
    (0x1FB, b'a', 2),
    (0x201, b'a', 1),
    (0x203, b'a', 1),
    (0x205, b'e', 1),
    (0x207, b'e', 1),
    (0x209, b'i', 1),
    (0x20B, b'i', 1),
    (0x20D, b'o', 1),
    (0x20F, b'o', 1),
    (0x211, b'r', 1),
    (0x213, b'r', 1),
    (0x215, b'u', 1),
    (0x217, b'u', 1),
    (0x219, b's', 1),
    (0x21B, b't', 1),
    (0x21F, b'h', 1),
    (0x227, b'a', 1),
    (0x229, b'e', 1),
    (0x22B, b'o', 2),
    (0x22D, b'o', 2),
    (0x22F, b'o', 1),
    (0x231, b'o', 2),
    (0x233, b'y', 1),
];

/// The letter without its diacritics: one (`level` 1) or any number (2).
fn strip(c: char, level: u8) -> char {
    match STRIP.binary_search_by_key(&(c as u32), |e| e.0) {
        Ok(i) if STRIP[i].2 <= level || level >= 2 => STRIP[i].1 as char,
        _ => c,
    }
}

impl Tokenizer for Unicode61 {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        let s = String::from_utf8_lossy(text);
        // Offsets are in the input's bytes: walk the valid prefix
        // character by character (invalid bytes act as separators).
        let mut out = Vec::new();
        let mut cur: Option<(usize, String)> = None;
        let mut off = 0usize;
        let chars: Vec<(usize, char)> = if matches!(s, std::borrow::Cow::Borrowed(_)) {
            s.char_indices().collect()
        } else {
            Vec::new()
        };
        let chars = if chars.is_empty() && !text.is_empty() && std::str::from_utf8(text).is_err() {
            lossy_indices(text)
        } else {
            chars
        };
        for (i, c) in chars {
            off = i + c.len_utf8();
            if self.is_token(c) {
                let folded: String = c.to_lowercase().collect();
                let folded: String = if self.remove_diacritics > 0 {
                    folded
                        .chars()
                        .map(|c| strip(c, self.remove_diacritics))
                        .collect()
                } else {
                    folded
                };
                match &mut cur {
                    Some((_, t)) => t.push_str(&folded),
                    None => cur = Some((i, folded)),
                }
            } else if let Some((st, t)) = cur.take() {
                let pos = out.len() as i64;
                out.push(Token {
                    term: t.into_bytes(),
                    start: st,
                    end: i,
                    pos,
                });
            }
        }
        if let Some((st, t)) = cur.take() {
            let pos = out.len() as i64;
            out.push(Token {
                term: t.into_bytes(),
                start: st,
                end: off.max(st),
                pos,
            });
        }
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
