//! (ringlite) String literals holding bytes that are not UTF-8.
//!
//! SQLite keeps a literal's bytes as they are (Latin-1 `'Bergère'` is a
//! TEXT value of the raw bytes); the tree holds `str`s. A string literal
//! token that is not UTF-8 is carried as valid UTF-8 instead: each byte
//! that is not part of a valid sequence (always >= 0x80) becomes the
//! private-use character U+10FF00 + byte, and a valid character from
//! U+10FF7F up is written after the escape U+10FF7F, so that
//! [`literal_bytes`] gives back exactly the token's bytes.
//!
//! Invariant: `literal_bytes(encode_literal(t)) == t` for every byte string
//! `t` (checked: literal_round_trip).

use std::borrow::Cow;

/// The escape written before a character that would read as a byte.
const ESCAPE: char = '\u{10FF7F}';
/// The first character standing for a byte (U+10FF00 + byte).
const BYTE_BASE: u32 = 0x10FF00;

/// The token's text as the tree carries it: the token itself when it is
/// UTF-8 without a character from [`ESCAPE`] up (all of them start with
/// byte 0xF4), else its encoding.
pub fn encode_literal(token: &[u8]) -> Cow<'_, str> {
    if !token.contains(&0xF4) {
        if let Ok(s) = std::str::from_utf8(token) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(token.len() * 2);
    for chunk in token.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c >= ESCAPE {
                out.push(ESCAPE);
            }
            out.push(c);
        }
        for &b in chunk.invalid() {
            out.extend(char::from_u32(BYTE_BASE + u32::from(b)));
        }
    }
    // invariant: literal_round_trip
    debug_assert!(literal_bytes(&out) == token);
    Cow::Owned(out)
}

/// The bytes a string literal's text (as the tree carries it, quoted or
/// not) stands for: see [`encode_literal`].
pub fn literal_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.as_bytes().contains(&0xF4) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == ESCAPE {
            if let Some(next) = chars.next() {
                out.extend_from_slice(next.encode_utf8(&mut [0; 4]).as_bytes());
            }
        } else if c > ESCAPE {
            // (Above the escape and within U+10FFFF: a byte 0x80..=0xFF.)
            out.push((u32::from(c) - BYTE_BASE) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for t in [
            &b"'caf\xe9'"[..],
            b"'plain'",
            b"'\xff\xfe\x80'",
            "'\u{10FF7F}\u{10FFFF}\u{10FF80}x'".as_bytes(),
            b"'\xf4\x8f\xbf'",
            "'é\u{10FFFF}'".as_bytes(),
        ] {
            let e = encode_literal(t);
            assert_eq!(&*literal_bytes(&e), t);
        }
        assert!(matches!(encode_literal(b"'ok'"), Cow::Borrowed(_)));
    }
}
