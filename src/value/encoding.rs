//! Text encodings of a database file (`fileformat2.txt`, "text encoding"
//! at header offset 56): UTF-8, UTF-16le, UTF-16be.
//!
//! The engine computes with text as UTF-8 bytes (not necessarily valid,
//! see [`super`]) whatever the file's encoding. A UTF-16 file keeps its
//! text in UTF-16 inside its records; the B-tree converts at its boundary
//! (`value/transcode.rs`, [`utf16_to_utf8`], [`utf8_to_utf16`]), so the
//! records it hands out and takes in are UTF-8 ones, and the bytes on its
//! pages are exactly SQLite's.
//!
//! What depends on the connection's encoding beyond the records:
//! - BINARY order: SQLite compares the stored bytes, so on a UTF-16le
//!   database text orders by its little-endian bytes, on UTF-16be by code
//!   units (surrogates before U+E000). [`binary_order`] gives that order
//!   for UTF-8 text, without converting it.
//! - Text seen as bytes and bytes seen as text (`hex()`, `CAST(x AS
//!   BLOB)`, `octet_length()`, a blob where text is wanted): the bytes are
//!   the text in the database encoding ([`text_to_db_bytes`],
//!   [`db_bytes_to_text`]).
//!
//! Those value-level operations learn the encoding from [`current`]: the
//! connection running a statement installs its encoding for the
//! statement's step ([`install`]; nested steps of other connections
//! restore what they replaced). A process that never opened a UTF-16
//! database pays one relaxed atomic load per such operation.
//!
//! Invalid input: text that went from a UTF-16 file to UTF-8 and back
//! must come back as it was (SQLite copies stored text without converting
//! it, so an `UPDATE` of another column, a `VACUUM`, `a || ''` keep a
//! lone surrogate as it is). So a surrogate unit that is not half of a
//! pair reads as its own code point in three bytes of UTF-8 (as SQLite
//! reads one at the end of a text), and such a code point in UTF-8 is
//! written back as that unit. Where SQLite differs: it reads a surrogate
//! followed by any unit as one character (so `length()` counts one where
//! ours counts two), and writes a surrogate code point given in UTF-8 as
//! U+FFFD. An odd trailing byte is dropped, as in SQLite; a malformed
//! UTF-8 sequence becomes U+FFFD.

use crate::util::ascii::AsciiLower;
use std::cell::Cell;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// A database text encoding, numbered as the file header stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum TextEncoding {
    /// UTF-8 (header value 1; 0 in a file never written reads so too).
    #[default]
    Utf8 = 1,
    /// UTF-16 little-endian (2).
    Utf16le = 2,
    /// UTF-16 big-endian (3).
    Utf16be = 3,
}

impl TextEncoding {
    /// From the header word at offset 56: SQLite reads its low two bits
    /// only, 0 meaning UTF-8.
    pub fn from_header(word: u32) -> TextEncoding {
        match word & 3 {
            2 => TextEncoding::Utf16le,
            3 => TextEncoding::Utf16be,
            _ => TextEncoding::Utf8,
        }
    }

    /// The name `PRAGMA encoding` answers.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf16le => "UTF-16le",
            TextEncoding::Utf16be => "UTF-16be",
        }
    }

    /// The encoding a `PRAGMA encoding = name` asks for (any case; a
    /// UTF-16 without byte order is the machine's), `None` if unknown.
    pub fn from_pragma(name: &str) -> Option<TextEncoding> {
        let native = if cfg!(target_endian = "big") { TextEncoding::Utf16be } else { TextEncoding::Utf16le };
        Some(match name.ascii_upper().as_str() {
            "UTF-8" | "UTF8" => TextEncoding::Utf8,
            "UTF-16LE" | "UTF16LE" => TextEncoding::Utf16le,
            "UTF-16BE" | "UTF16BE" => TextEncoding::Utf16be,
            "UTF-16" | "UTF16" => native,
            _ => return None,
        })
    }

    /// Whether text is stored as UTF-16.
    #[inline]
    pub fn is_utf16(self) -> bool {
        self != TextEncoding::Utf8
    }

    fn unit(self, b: [u8; 2]) -> u16 {
        if self == TextEncoding::Utf16be {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    fn unit_bytes(self, u: u16) -> [u8; 2] {
        if self == TextEncoding::Utf16be {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        }
    }
}

/// Set once any connection of the process used a UTF-16 encoding: until
/// then [`current`] needs no thread-local read.
static ANY_UTF16: AtomicBool = AtomicBool::new(false);

thread_local! {
    static CURRENT: Cell<TextEncoding> = const { Cell::new(TextEncoding::Utf8) };
}

/// The encoding of the connection whose statement runs on this thread
/// (UTF-8 when none does).
#[inline]
pub fn current() -> TextEncoding {
    if !ANY_UTF16.load(AtomicOrdering::Relaxed) {
        return TextEncoding::Utf8;
    }
    CURRENT.with(Cell::get)
}

/// Make `enc` the [`current`] encoding; returns the one it replaces (to
/// be installed again when the caller is done).
#[inline]
pub fn install(enc: TextEncoding) -> TextEncoding {
    if enc.is_utf16() {
        ANY_UTF16.store(true, AtomicOrdering::Relaxed);
    } else if !ANY_UTF16.load(AtomicOrdering::Relaxed) {
        return TextEncoding::Utf8;
    }
    CURRENT.with(|c| c.replace(enc))
}

/// Code points of UTF-8 bytes, read as SQLite 3.54.1 is seen to read
/// them on their way to UTF-16: a lead byte takes every continuation byte
/// that follows it (however many); a result below U+0080 from a lead byte
/// (an overlong form, a lead byte with nothing after it) is U+FFFD; a
/// byte that leads nothing (a stray continuation byte) is its own value.
/// Values past U+10FFFF are not checked (their units keep the low bits,
/// as SQLite's do). A surrogate code point reads as itself (see the
/// module's doc).
pub fn utf8_chars(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let c = *s.get(i)?;
        i += 1;
        if c < 0xC0 {
            return Some(u32::from(c));
        }
        let mut cp = u32::from(match c {
            0xC0..=0xDF => c & 0x1F,
            0xE0..=0xEF => c & 0x0F,
            0xF0..=0xF7 => c & 0x07,
            0xF8..=0xFB => c & 0x03,
            0xFC..=0xFD => c & 0x01,
            _ => 0,
        });
        while let Some(&b) = s.get(i) {
            if b & 0xC0 != 0x80 {
                break;
            }
            cp = (cp << 6) | u32::from(b & 0x3F);
            i += 1;
        }
        Some(if cp < 0x80 { 0xFFFD } else { cp })
    })
}

/// UTF-16 code units of UTF-8 text (see [`utf8_chars`]).
fn utf16_units(s: &[u8]) -> impl Iterator<Item = u16> + '_ {
    utf8_chars(s).flat_map(|cp| {
        if cp >= 0x10000 {
            let v = cp.wrapping_sub(0x10000);
            [Some(0xD800 | ((v >> 10) & 0x3FF) as u16), Some(0xDC00 | (cp & 0x3FF) as u16)]
        } else {
            [Some(cp as u16), None]
        }
        .into_iter()
        .flatten()
    })
}

/// Appends UTF-8 text `s` to `out` as UTF-16 of order `enc`.
pub fn utf8_to_utf16_into(s: &[u8], enc: TextEncoding, out: &mut Vec<u8>) {
    debug_assert!(enc.is_utf16());
    out.reserve(s.len() * 2);
    for u in utf16_units(s) {
        out.extend_from_slice(&enc.unit_bytes(u));
    }
}

/// UTF-8 text `s` as UTF-16 of order `enc`.
pub fn utf8_to_utf16(s: &[u8], enc: TextEncoding) -> Vec<u8> {
    let mut out = Vec::new();
    utf8_to_utf16_into(s, enc, &mut out);
    out
}

/// Appends UTF-16 text `s` (order `enc`) to `out` as UTF-8.
pub fn utf16_to_utf8_into(s: &[u8], enc: TextEncoding, out: &mut Vec<u8>) {
    debug_assert!(enc.is_utf16());
    out.reserve(s.len() + s.len() / 2);
    let mut units = s.chunks_exact(2).map(|b| enc.unit([b[0], b[1]]));
    while let Some(u) = units.next() {
        let cp = if (0xD800..=0xDBFF).contains(&u) {
            match units.clone().next() {
                Some(v) if (0xDC00..=0xDFFF).contains(&v) => {
                    units.next();
                    0x10000 + ((u32::from(u) & 0x3FF) << 10) + (u32::from(v) & 0x3FF)
                }
                _ => u32::from(u),
            }
        } else {
            u32::from(u)
        };
        push_utf8(cp, out);
    }
}

/// UTF-16 text `s` (order `enc`) as UTF-8.
pub fn utf16_to_utf8(s: &[u8], enc: TextEncoding) -> Vec<u8> {
    let mut out = Vec::new();
    utf16_to_utf8_into(s, enc, &mut out);
    out
}

/// `cp` in UTF-8 (surrogate code points too, as three bytes).
fn push_utf8(cp: u32, out: &mut Vec<u8>) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x10000 {
        out.extend_from_slice(&[0xE0 | (cp >> 12) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else {
        out.extend_from_slice(&[0xF0 | (cp >> 18) as u8, 0x80 | ((cp >> 12) & 0x3F) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8]);
    }
}

/// Text (UTF-8) as the bytes the database stores for it: what `hex()`,
/// `CAST(x AS BLOB)` and `octet_length()` see.
pub fn text_to_db_bytes(s: &[u8], enc: TextEncoding) -> std::borrow::Cow<'_, [u8]> {
    if enc.is_utf16() {
        std::borrow::Cow::Owned(utf8_to_utf16(s, enc))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Bytes read as text of the database encoding, as UTF-8 (a blob cast
/// to text, a blob given where text is wanted).
pub fn db_bytes_to_text(b: &[u8], enc: TextEncoding) -> std::borrow::Cow<'_, [u8]> {
    if enc.is_utf16() {
        std::borrow::Cow::Owned(utf16_to_utf8(b, enc))
    } else {
        std::borrow::Cow::Borrowed(b)
    }
}

/// The BINARY order of two UTF-8 texts on a database of encoding `enc`:
/// the order of their stored bytes (memcmp), computed without
/// converting them.
#[inline]
pub fn binary_order(a: &[u8], b: &[u8], enc: TextEncoding) -> Ordering {
    match enc {
        TextEncoding::Utf8 => a.cmp(b),
        _ => binary_order_utf16(a, b, enc),
    }
}

#[cold]
fn binary_order_utf16(a: &[u8], b: &[u8], enc: TextEncoding) -> Ordering {
    // Equal leading ASCII bytes are equal leading units in either order.
    let common = a.iter().zip(b).take_while(|(x, y)| x == y && **x < 0x80).count();
    let (a, b) = (&a[common..], &b[common..]);
    // memcmp of little-endian units: low byte first.
    let key = |u: u16| if enc == TextEncoding::Utf16le { u.swap_bytes() } else { u };
    utf16_units(a).map(key).cmp(utf16_units(b).map(key))
}

/// The BINARY order of text under the [`current`] encoding.
#[inline]
pub fn binary_order_current(a: &[u8], b: &[u8]) -> Ordering {
    match current() {
        TextEncoding::Utf8 => a.cmp(b),
        enc => binary_order_utf16(a, b, enc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_lone_surrogates() {
        for s in ["", "a", "é", "\u{FFFF}", "\u{10000}", "a\u{1F600}b"] {
            for enc in [TextEncoding::Utf16le, TextEncoding::Utf16be] {
                assert_eq!(utf16_to_utf8(&utf8_to_utf16(s.as_bytes(), enc), enc), s.as_bytes());
            }
        }
        let le = TextEncoding::Utf16le;
        assert_eq!(utf16_to_utf8(&[0x00, 0xD8, 0x41, 0x00], le), [0xED, 0xA0, 0x80, 0x41]);
        assert_eq!(utf16_to_utf8(&[0x00, 0xD8], le), [0xED, 0xA0, 0x80]);
        assert_eq!(utf16_to_utf8(&[0x41, 0x00, 0x42], le), b"A");
        // Unpaired surrogates survive the round trip.
        for raw in [&[0x00, 0xD8, 0x41, 0x00][..], &[0x00, 0xDC, 0x00, 0xD8], &[0x00, 0xDC]] {
            assert_eq!(utf8_to_utf16(&utf16_to_utf8(raw, le), le), raw);
        }
        assert_eq!(utf8_to_utf16(&[0xC0, 0x80, 0x80], le), [0xFD, 0xFF]);
    }

    #[test]
    fn binary_order_is_byte_order() {
        let texts = ["", "a", "ab", "\u{FF}", "\u{100}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "a\u{10000}"];
        for enc in [TextEncoding::Utf16le, TextEncoding::Utf16be] {
            for a in texts {
                for b in texts {
                    let want = utf8_to_utf16(a.as_bytes(), enc).cmp(&utf8_to_utf16(b.as_bytes(), enc));
                    assert_eq!(binary_order(a.as_bytes(), b.as_bytes(), enc), want, "{a:?} {b:?} {enc:?}");
                }
            }
        }
    }
}
