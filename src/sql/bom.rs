//! Byte-order marks between tokens.
//!
//! SQLite's tokenizer reads the UTF-8 encoding of U+FEFF (`EF BB BF`) as
//! white space wherever a token would start: before the first keyword of a
//! script saved by an editor that writes one, between statements, between
//! tokens. Inside a token it is an ordinary identifier character (every byte
//! from 0x80 up is one), and inside a string, a quoted name or a comment it
//! is text. The parser crate knows none of this, so such marks are turned
//! into three spaces before parsing: the text keeps its length, and every
//! offset (a statement's end, an error's position) stays that of the
//! original.

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `sql` with each byte-order mark that stands where a token would start
/// replaced by spaces, or `None` when there is none (almost always: the scan
/// runs only when the text holds a 0xEF byte at all).
pub fn marks_as_space(sql: &[u8]) -> Option<Vec<u8>> {
    if !sql.contains(&0xEF) {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        if sql[i..].starts_with(BOM) {
            out.get_or_insert_with(|| sql.to_vec())[i..i + 3].copy_from_slice(b"   ");
            i += 3;
            continue;
        }
        i = match b {
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if b == b'[' { b']' } else { b };
                // A doubled quote inside continues the same token.
                let mut j = i + 1;
                loop {
                    match sql[j.min(sql.len())..].iter().position(|&c| c == close) {
                        None => break sql.len(),
                        Some(n) if close != b']' && sql.get(j + n + 1) == Some(&close) => j += n + 2,
                        Some(n) => break j + n + 1,
                    }
                }
            }
            b'-' if sql.get(i + 1) == Some(&b'-') => sql[i..].iter().position(|&c| c == b'\n').map_or(sql.len(), |n| i + n + 1),
            b'/' if sql.get(i + 1) == Some(&b'*') => sql[i + 2..].windows(2).position(|w| w == b"*/").map_or(sql.len(), |n| i + 2 + n + 2),
            // Numbers: digits, points, exponents and whatever identifier
            // characters follow (SQLite makes the whole an unrecognized
            // token, a mark inside included).
            c if c.is_ascii_digit() || (c == b'.' && sql.get(i + 1).is_some_and(u8::is_ascii_digit)) => {
                let mut j = i + 1;
                while j < sql.len() && (is_id_char(sql[j]) || sql[j] == b'.' || (matches!(sql[j], b'+' | b'-') && matches!(sql[j - 1], b'e' | b'E'))) {
                    j += 1;
                }
                j
            }
            // Names, keywords and parameters' names: a run of identifier
            // characters, a mark inside it included.
            c if is_id_char(c) => i + sql[i..].iter().take_while(|&&c| is_id_char(c)).count(),
            _ => i + 1,
        };
    }
    out
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

#[cfg(test)]
mod tests {
    use super::marks_as_space;

    fn spaced(s: &str) -> String {
        marks_as_space(s.as_bytes()).map_or_else(|| s.to_string(), |v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn marks_between_tokens_are_space_and_inside_tokens_text() {
        assert_eq!(spaced("\u{feff}select 1"), "   select 1");
        assert_eq!(spaced("select \u{feff}1;\u{feff}"), "select    1;   ");
        assert_eq!(spaced("select 'a\u{feff}' || x\u{feff}y"), "select 'a\u{feff}' || x\u{feff}y");
        assert_eq!(spaced("select \"q\"\"\u{feff}\" -- \u{feff}\n\u{feff}"), "select \"q\"\"\u{feff}\" -- \u{feff}\n   ");
        assert_eq!(spaced("/* \u{feff} */\u{feff}[a\u{feff}]"), "/* \u{feff} */   [a\u{feff}]");
        assert_eq!(marks_as_space(b"select 1"), None);
    }
}
