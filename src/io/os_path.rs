//! # File names that are not UTF-8
//!
//! A Unix file name is any sequence of bytes; the engine carries names as
//! `String`. So a name is carried reversibly: valid UTF-8 passes through
//! unchanged, and every byte that is not part of valid UTF-8 becomes the
//! character `U+10FF00 + byte` (the end of Supplementary Private Use
//! Area-B). The characters of that range themselves are escaped byte by
//! byte too, so [`from_bytes`] and [`to_bytes`] are inverse for every
//! input. Names turn back into their bytes where they leave the engine: at
//! the operating system ([`os_path`]) and at the C API
//! (`sqlite3_db_filename`).
//!
//! Invariant: `to_bytes(&from_bytes(b)) == b` for every `b` (checked:
//! os_path_round_trip), and `from_bytes` of valid UTF-8 without characters of
//! the escape range is the same text.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

/// The first character of the escape range: `ESCAPE + b` stands for byte `b`.
const ESCAPE: u32 = 0x10_FF00;

fn is_escape(c: char) -> bool {
    (ESCAPE..=ESCAPE + 0xFF).contains(&u32::from(c))
}

fn push_escaped(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        out.push(char::from_u32(ESCAPE + u32::from(b)).expect("the escape range is valid Unicode"));
    }
}

/// A file name's bytes as the engine carries them.
pub fn from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.chars().any(is_escape) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escape(c) {
                let mut buf = [0u8; 4];
                push_escaped(&mut out, c.encode_utf8(&mut buf).as_bytes());
            } else {
                out.push(c);
            }
        }
        push_escaped(&mut out, chunk.invalid());
    }
    Cow::Owned(out)
}

/// The bytes of a name the engine carries.
pub fn to_bytes(name: &str) -> Cow<'_, [u8]> {
    if !name.chars().any(is_escape) {
        return Cow::Borrowed(name.as_bytes());
    }
    let mut out = Vec::with_capacity(name.len());
    for c in name.chars() {
        if is_escape(c) {
            out.push((u32::from(c) - ESCAPE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

/// The path the operating system knows a name by.
pub fn os_path(name: &str) -> Cow<'_, Path> {
    match to_bytes(name) {
        Cow::Borrowed(b) => Cow::Borrowed(Path::new(OsStr::from_bytes(b))),
        Cow::Owned(b) => Cow::Owned(std::ffi::OsString::from_vec(b).into()),
    }
}

/// A name given by the operating system, as the engine carries it.
pub fn from_os(path: &Path) -> String {
    from_bytes(path.as_os_str().as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let cases: [&[u8]; 6] = [b"plain.db", b"\xff\xfe.db", "caf\u{e9}.db".as_bytes(), "\u{10FF41}x".as_bytes(), b"a\xc3", b""];
        for b in cases {
            // invariant: os_path_round_trip
            assert_eq!(to_bytes(&from_bytes(b)).as_ref(), b);
        }
        assert_eq!(from_bytes(b"plain.db"), "plain.db");
        assert_eq!(os_path("x\u{10FFFF}").as_os_str().as_bytes(), b"x\xff");
    }
}
