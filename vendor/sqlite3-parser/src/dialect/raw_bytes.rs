//! (ringlite) String literals holding bytes that are not UTF-8.
//!
//! SQLite keeps a literal's bytes as they are (Latin-1 `'Bergère'` is a
//! TEXT value of the raw bytes); the tree holds `str`s. A string literal
//! token that is not UTF-8 is carried as valid UTF-8 instead: each byte
//! that is not part of a valid sequence (always >= 0x80) becomes the
//! private-use character U+10FF00 + byte, which [`literal_bytes`] turns
//! back into the byte. The encoding leaves valid UTF-8 alone, so text
//! holding an encoded literal (an AST printed and parsed again) reads the
//! same. The price: a literal written with one of the 128 characters
//! U+10FF80..=U+10FFFF gets that byte in its value instead.
//!
//! Invariant: `literal_bytes(encode_literal(t)) == t` for every byte string
//! `t` without those characters (checked: literal_round_trip).

use std::borrow::Cow;

/// The character standing for byte 0 (only 0x80..=0xFF are used).
const BYTE_BASE: u32 = 0x10FF00;

/// The token's text as the tree carries it: the token itself when it is
/// UTF-8, else its encoding.
pub fn encode_literal(token: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(token) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(token.len() * 2);
    let mut plain = true;
    for chunk in token.utf8_chunks() {
        plain &= !chunk.valid().chars().any(|c| u32::from(c) >= BYTE_BASE + 0x80);
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.extend(char::from_u32(BYTE_BASE + u32::from(b)));
        }
    }
    // invariant: literal_round_trip
    debug_assert!(!plain || literal_bytes(&out) == token);
    Cow::Owned(out)
}

/// The bytes a string literal's text (as the tree carries it, quoted or
/// not) stands for: see [`encode_literal`].
pub fn literal_bytes(text: &str) -> Cow<'_, [u8]> {
    // (Every character from U+10000 up starts with byte 0xF4 or less;
    // the encoded ones all with 0xF4.)
    if !text.as_bytes().contains(&0xF4) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c).checked_sub(BYTE_BASE) {
            Some(b @ 0x80..=0xFF) => out.push(b as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    Cow::Owned(out)
}
