//! A column named twice in a row-value assignment or an INSERT column
//! list: SQLite accepts `UPDATE t SET (a, a, b) = (1, 2, 3)` (each value
//! is assigned in turn, so the last one wins) and `INSERT INTO t(a, a)`
//! (the first value of a column is the one stored, see
//! `codegen::dml::insert`), but `sqlite3-parser` refuses a repeated name in
//! those lists ("column "a" specified more than once"). When the parser
//! says so, the statement is parsed again with each repeated name of such
//! a list (after `SET`, or after a comma of a SET clause; after the table
//! of `INTO`) renamed `name\x01N`; [`set_column_name`] gives the name back
//! when the list is resolved (`codegen::dml::assign`, `codegen::dml::insert`).
//!
//! Invariant: only names inside `SET ( ... ) =` lists and `INTO table
//! ( ... )` lists change, and the offsets of the rewritten text map back
//! to the original ones ([`Rewritten::original_offset`]) (checked:
//! set_rename_offsets).

use super::parse::{tokens, unquoted};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::dialect::TokenType;

/// What separates a renamed column from the number making it unique.
const MARK: char = '\u{1}';

/// The column a name of a SET list assigns (without the renaming mark).
pub fn set_column_name(name: &str) -> &str {
    name.split(MARK).next().unwrap_or(name)
}

/// A statement with repeated SET-list names renamed.
pub struct Rewritten {
    pub text: Vec<u8>,
    /// (offset in the original text, bytes added there), in order.
    added: Vec<(usize, usize)>,
}

impl Rewritten {
    /// The offset in the original text of `offset` in the rewritten one.
    pub fn original_offset(&self, offset: usize) -> usize {
        let mut shift = 0;
        for &(at, n) in &self.added {
            if at + shift + n <= offset {
                shift += n;
            } else if at + shift < offset {
                // Inside a renamed name: its start.
                return at;
            } else {
                break;
            }
        }
        offset - shift
    }
}

/// `sql` with the repeated names of its `SET (...) =` lists renamed; None
/// when there is none.
pub fn rename_repeated_set_columns(sql: &[u8]) -> Option<Rewritten> {
    use TokenType::*;
    let toks = tokens(sql).collect::<Vec<_>>();
    // (token index, new text) of each renamed name.
    let mut renames: Vec<(usize, String)> = Vec::new();
    // Paren depth of the SET clause being read, if any.
    let mut set_depth: Option<i32> = None;
    let mut depth = 0i32;
    let mut i = 0;
    let rename_list = |open: usize, close: usize, renames: &mut Vec<(usize, String)>| {
        let mut seen: Vec<String> = Vec::new();
        for k in (open + 1..close).step_by(2) {
            let raw = String::from_utf8_lossy(&sql[toks[k].start..toks[k].end]).into_owned();
            let name = unquoted(&raw).into_owned();
            let copies = seen.iter().filter(|s| s.eq_ci(&name)).count();
            if copies > 0 {
                renames.push((k, format!("\"{}{MARK}{copies}\"", name.replace('"', "\"\""))));
            }
            seen.push(name);
        }
    };
    while i < toks.len() {
        let kind = toks[i].kind;
        match kind {
            TK_INTO => {
                // `INTO [schema.]table [AS alias] (names)`.
                let mut k = i + 1;
                while toks.get(k).is_some_and(|t| !matches!(t.kind, TK_LP | TK_RP | TK_COMMA | TK_SEMI | TK_SELECT | TK_VALUES | TK_DEFAULT)) && k < i + 6 {
                    k += 1;
                }
                if toks.get(k).is_some_and(|t| t.kind == TK_LP) {
                    if let Some(close) = id_list_end(&toks, k + 1, false) {
                        rename_list(k, close, &mut renames);
                        i = close + 1;
                        continue;
                    }
                }
            }
            TK_SET => set_depth = Some(depth),
            TK_FROM | TK_WHERE | TK_RETURNING | TK_SEMI if set_depth == Some(depth) => set_depth = None,
            TK_LP if set_depth == Some(depth) && i > 0 && matches!(toks[i - 1].kind, TK_SET | TK_COMMA) => {
                if let Some(close) = id_list_end(&toks, i + 1, true) {
                    rename_list(i, close, &mut renames);
                    i = close + 1;
                    continue;
                }
                depth += 1;
            }
            TK_LP => depth += 1,
            TK_RP => {
                depth -= 1;
                if set_depth.is_some_and(|d| depth < d) {
                    set_depth = None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if renames.is_empty() {
        return None;
    }
    let mut text = Vec::with_capacity(sql.len() + 16 * renames.len());
    let mut added = Vec::with_capacity(renames.len());
    let mut from = 0;
    for (k, new) in renames {
        let t = toks[k];
        text.extend_from_slice(&sql[from..t.start]);
        text.extend_from_slice(new.as_bytes());
        added.push((t.end, new.len().saturating_sub(t.end - t.start)));
        from = t.end;
    }
    text.extend_from_slice(&sql[from..]);
    Some(Rewritten { text, added })
}

/// Where the `)` of a list of names starting at token `start` is, when
/// the list is `name, name, ...)` (followed by `=` when `assigned`).
fn id_list_end(toks: &[super::parse::Tok], start: usize, assigned: bool) -> Option<usize> {
    use TokenType::*;
    let mut k = start;
    loop {
        let t = toks.get(k)?;
        if matches!(t.kind, TK_LP | TK_RP | TK_COMMA | TK_EQ | TK_SEMI) {
            return None;
        }
        match toks.get(k + 1)?.kind {
            TK_COMMA => k += 2,
            TK_RP => return (!assigned || toks.get(k + 2)?.kind == TK_EQ).then_some(k + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_repeats_of_set_lists_only() {
        let sql = b"UPDATE t SET (a, A, \"a\", b) = (1, 2, 3, 4), (c, c) = (5, 6) WHERE (a, a) = (1, 1); SELECT 1";
        let r = rename_repeated_set_columns(sql).expect("renamed");
        let text = String::from_utf8(r.text.clone()).unwrap();
        // invariant: set_rename_offsets
        assert_eq!(text, "UPDATE t SET (a, \"A\u{1}1\", \"a\u{1}2\", b) = (1, 2, 3, 4), (c, \"c\u{1}1\") = (5, 6) WHERE (a, a) = (1, 1); SELECT 1");
        let orig = std::str::from_utf8(sql).unwrap();
        for word in ["b)", "(5", "WHERE", "; SELECT"] {
            assert_eq!(r.original_offset(text.find(word).unwrap()), orig.find(word).unwrap(), "{word}");
        }
        assert_eq!(r.original_offset(text.len()), sql.len());
        assert_eq!(set_column_name("A\u{1}1"), "A");
        assert!(rename_repeated_set_columns(b"SELECT (a, a) = (1, 2)").is_none());
        let r = rename_repeated_set_columns(b"INSERT INTO main.t AS n(x, rowid, X) SELECT 1, 2, 3").expect("renamed");
        assert_eq!(String::from_utf8(r.text).unwrap(), "INSERT INTO main.t AS n(x, rowid, \"X\u{1}1\") SELECT 1, 2, 3");
    }
}
