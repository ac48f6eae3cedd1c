//! # `sqlite3_complete`: does the text end a statement?
//!
//! A small state machine over tokens (`;`, whitespace, other, and the
//! keywords EXPLAIN, CREATE, TEMP, TRIGGER, END), so that a `CREATE TRIGGER`
//! body's inner semicolons do not count until its `END;`, per
//! `c3ref/complete.txt`. Text with an unterminated string, identifier or
//! block comment is incomplete.

use crate::types::sqlite3_int64;
use std::ffi::{c_char, c_int, c_void, CStr};

#[derive(Clone, Copy)]
enum Tok {
    Semi = 0,
    Ws = 1,
    Other = 2,
    Explain = 3,
    Create = 4,
    Temp = 5,
    Trigger = 6,
    End = 7,
}

/// States: 0 invalid/start-of-text, 1 after a complete statement, 2 inside
/// a statement, 3 after EXPLAIN, 4 after CREATE, 5 inside a trigger body,
/// 6 after `;` in a trigger body, 7 after `; END` in a trigger body.
const NEXT: [[u8; 8]; 8] = [
    [1, 0, 2, 3, 4, 2, 2, 2],
    [1, 1, 2, 3, 4, 2, 2, 2],
    [1, 2, 2, 2, 2, 2, 2, 2],
    [1, 3, 3, 2, 4, 2, 2, 2],
    [1, 4, 2, 2, 2, 4, 5, 2],
    [6, 5, 5, 5, 5, 5, 5, 5],
    [6, 6, 5, 5, 5, 5, 5, 7],
    [1, 7, 5, 5, 5, 5, 5, 5],
];

/// What [`scan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Ends with a complete statement.
    Complete,
    /// Only whitespace and comments.
    Empty,
    /// A statement (or a string, identifier or comment) is unfinished.
    Incomplete,
}

/// Whether `sql` ends with a complete statement.
pub fn complete(sql: &[u8]) -> bool {
    scan(sql) == Scan::Complete
}

/// Classify `sql` as `sqlite3_complete`/`sqlite3_incomplete` need.
pub fn scan(sql: &[u8]) -> Scan {
    let mut state = 0usize;
    let mut tokens = false;
    let verdict = |state: usize, tokens: bool| {
        if state == 1 {
            Scan::Complete
        } else if !tokens {
            Scan::Empty
        } else {
            Scan::Incomplete
        }
    };
    let mut i = 0;
    while i < sql.len() {
        let c = sql[i];
        let tok = match c {
            b';' => {
                i += 1;
                Tok::Semi
            }
            b' ' | b'\r' | b'\t' | b'\n' | b'\x0c' => {
                i += 1;
                Tok::Ws
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                match sql[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => i += 2 + p + 2,
                    None => return Scan::Incomplete,
                }
                Tok::Ws
            }
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                match sql[i..].iter().position(|&b| b == b'\n') {
                    Some(p) => i += p + 1,
                    // A line comment running to the end of the text
                    // leaves it incomplete (SQLite 3.54).
                    None => {
                        return match verdict(state, tokens) {
                            Scan::Complete => Scan::Incomplete,
                            v => v,
                        }
                    }
                }
                Tok::Ws
            }
            b'[' => {
                match sql[i + 1..].iter().position(|&b| b == b']') {
                    Some(p) => i += p + 2,
                    None => return Scan::Incomplete,
                }
                Tok::Other
            }
            b'`' | b'"' | b'\'' => {
                match sql[i + 1..].iter().position(|&b| b == c) {
                    Some(p) => i += p + 2,
                    None => return Scan::Incomplete,
                }
                Tok::Other
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                let n = sql[i..].iter().take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80).count();
                let word = sql[i..i + n].to_ascii_lowercase();
                i += n;
                if !c.is_ascii_alphabetic() {
                    Tok::Other
                } else {
                    match word.as_slice() {
                        b"create" => Tok::Create,
                        b"trigger" => Tok::Trigger,
                        b"temp" | b"temporary" => Tok::Temp,
                        b"end" => Tok::End,
                        b"explain" => Tok::Explain,
                        _ => Tok::Other,
                    }
                }
            }
            _ => {
                i += 1;
                Tok::Other
            }
        };
        if !matches!(tok, Tok::Ws) {
            tokens = true;
        }
        state = NEXT[state][tok as usize] as usize;
    }
    verdict(state, tokens)
}

/// 1 if the UTF-8 text `sql` ends with a complete SQL statement (a semicolon
/// outside any string, comment or trigger body), 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_complete(sql: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `sql` is NULL or NUL-terminated (or
    // readable for the length given with it).
    unsafe {
        ffi_guard!(0, {
            if sql.is_null() {
                return 0;
            }
            complete(CStr::from_ptr(sql).to_bytes()) as c_int
        })
    }
}

/// sqlite3_complete for UTF-16 text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_complete16(sql: *const c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `sql` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!(0, {
            if sql.is_null() {
                return 0;
            }
            complete(&crate::convert::utf16_to_utf8(sql, -1)) as c_int
        })
    }
}

/// `SQLITE_OK` when complete, `SQLITE_EMPTY` for only whitespace and
/// comments, `SQLITE_MISUSE` for NULL, `SQLITE_ERROR` when incomplete.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_incomplete(sql: *const c_char) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `sql` is NULL or NUL-terminated (or
    // readable for the length given with it).
    unsafe {
        ffi_guard!(crate::consts::SQLITE_INTERNAL as sqlite3_int64, {
            if sql.is_null() {
                return crate::consts::SQLITE_MISUSE as sqlite3_int64;
            }
            (match scan(CStr::from_ptr(sql).to_bytes()) {
                Scan::Complete => crate::consts::SQLITE_OK,
                Scan::Empty => crate::consts::SQLITE_EMPTY,
                Scan::Incomplete => crate::consts::SQLITE_ERROR,
            }) as sqlite3_int64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::complete;

    #[test]
    fn statements_end_at_semicolons_outside_tokens() {
        assert!(complete(b"SELECT 1;"));
        assert!(!complete(b"SELECT 1"));
        assert!(!complete(b"SELECT ';"));
        assert!(complete(b"SELECT ';';"));
        assert!(!complete(b"/* ; "));
        assert!(complete(b"SELECT 1; /* tail */"));
        assert!(!complete(b""));
        assert_eq!(super::scan(b"  -- c\n /* d */ "), super::Scan::Empty);
        assert_eq!(super::scan(b"SELECT 1"), super::Scan::Incomplete);
    }

    #[test]
    fn trigger_bodies_need_their_end() {
        assert!(!complete(b"CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1;"));
        assert!(complete(b"CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END;"));
        assert!(complete(b"CREATE TEMP TRIGGER t BEGIN x; END;"));
        assert!(complete(b"CREATE TABLE trigger(x);"));
    }
}
