//! # The unicode61 tokenizer (FTS5's default)
//!
//! Splits UTF-8 text into tokens: maximal runs of token characters
//! (ASCII letters and digits; outside ASCII, Unicode letters and numbers,
//! and combining marks, which fold away). Each token is case-folded and,
//! as `remove_diacritics=1` asks, a Latin letter with one diacritic
//! becomes its base letter (`diacritics.rs`).
//!
//! Invariant: every [`Token`]'s `start..end` is a byte range of the input
//! on character boundaries, tokens are in text order, and `text` is never
//! empty.

use super::diacritics;

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

/// Whether `c` belongs to a token.
fn is_token_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    c.is_alphanumeric() || is_combining(c) || is_private_use(c)
}

/// Combining diacritical marks (dropped from tokens).
fn is_combining(c: char) -> bool {
    matches!(c as u32, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF)
}

/// The folded form of one token character, or `None` when it folds away.
fn fold(c: char) -> Option<char> {
    if c.is_ascii() {
        return Some(c.to_ascii_lowercase());
    }
    if is_combining(c) {
        return None;
    }
    let mut low = c.to_lowercase();
    let l = match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    };
    Some(diacritics::base(l).unwrap_or(l))
}

/// The tokens of `text` (invalid UTF-8 read as U+FFFD, a separator).
pub fn tokenize(text: &[u8]) -> Vec<Token> {
    let s = String::from_utf8_lossy(text);
    let mut out = Vec::new();
    let mut cur: Option<Token> = None;
    for (i, c) in s.char_indices() {
        if is_token_char(c) {
            let t = cur.get_or_insert_with(|| Token { text: String::new(), start: i, end: i });
            if let Some(f) = fold(c) {
                t.text.push(f);
            }
            t.end = i + c.len_utf8();
        } else if let Some(t) = cur.take() {
            if !t.text.is_empty() {
                out.push(t);
            }
        }
    }
    if let Some(t) = cur.take() {
        if !t.text.is_empty() {
            out.push(t);
        }
    }
    out
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
