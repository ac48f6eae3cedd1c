//! # Parameter numbering
//!
//! SQLite numbers parameters while parsing, in source order: `?` takes
//! the next number, `?NNN` takes NNN (later `?` continue after the
//! largest), `:name`/`@name`/`$name` take the next number at their first
//! appearance and keep it. Code is not generated in source order here (an
//! UPDATE collects the rows its WHERE selects before computing its SET
//! expressions; a CTE is compiled again at each use; some clauses are
//! re-parsed from their text), so the numbers are fixed before compiling:
//! every anonymous `?` of the statement is rewritten to a numbered form
//! marked as anonymous ([`ANONYMOUS_PREFIX`]), and every name is
//! registered in order.
//!
//! Invariant: the rewritten text differs from the original only inside
//! those `?` tokens (checked: params_rewrite_local); everything that reads source text (column names,
//! `sqlite_schema.sql`, error offsets) keeps using the original.

use crate::sql::parse::tokens;
use sqlite3_parser::dialect::TokenType;

/// Digits an anonymous `?` is rewritten with, before its number
/// (`?` → `?00000003`): a parameter numbered so has no name.
pub const ANONYMOUS_PREFIX: &str = "0000000";

/// The numbering of a statement's parameters.
pub struct Numbering {
    /// The statement with each anonymous `?` numbered, when it has any.
    pub text: Option<Vec<u8>>,
    /// Parameter names by number (index 0 unused; `None`: anonymous).
    pub names: Vec<Option<String>>,
    /// A `?NNN` names no number SQLite accepts (0, past the largest
    /// limit, or not a number): its parser refuses it where it meets it.
    pub out_of_range: bool,
}

/// Number the parameters of one statement's text.
pub fn number(sql: &[u8]) -> Numbering {
    // Every parameter starts with one of these bytes: without any, there
    // is nothing to number (and no need to tokenize).
    if !sql.iter().any(|b| matches!(b, b'?' | b':' | b'@' | b'$' | b'#')) {
        return Numbering { text: None, names: vec![None], out_of_range: false };
    }
    if let Some(names) = numbered_only(sql) {
        return Numbering { text: None, names, out_of_range: false };
    }
    number_by_tokens(sql)
}

/// [`number`] from the tokens of `sql`.
fn number_by_tokens(sql: &[u8]) -> Numbering {
    let mut names: Vec<Option<String>> = vec![None];
    let mut out = Vec::new();
    let mut copied = 0;
    let mut any_anonymous = false;
    let mut out_of_range = false;
    for t in tokens(sql) {
        if t.kind != TokenType::TK_VARIABLE {
            continue;
        }
        let text = original_name(&String::from_utf8_lossy(&sql[t.start..t.end])).into_owned();
        if text == "?" {
            names.push(None);
            out.extend_from_slice(&sql[copied..t.start]);
            out.extend_from_slice(format!("?{ANONYMOUS_PREFIX}{}", names.len() - 1).as_bytes());
            copied = t.end;
            any_anonymous = true;
        } else if let Some(digits) = text.strip_prefix('?') {
            out_of_range |= !register_numbered(&mut names, digits);
        } else if !names.iter().any(|n| n.as_deref() == Some(text.as_str())) {
            names.push(Some(text));
        }
    }
    if !any_anonymous {
        return Numbering { text: None, names, out_of_range };
    }
    out.extend_from_slice(&sql[copied..]);
    #[cfg(debug_assertions)]
    {
        let was: Vec<&[u8]> = tokens(sql).map(|t| &sql[t.start..t.end]).collect();
        let now: Vec<&[u8]> = tokens(&out).map(|t| &out[t.start..t.end]).collect();
        // invariant: params_rewrite_local
        debug_assert!(
            was.len() == now.len() && was.iter().zip(&now).all(|(a, b)| a == b || (*a == b"?" && b.starts_with(b"?"))),
            "parameter numbering changed more than the anonymous `?` tokens"
        );
    }
    Numbering { text: Some(out), names, out_of_range }
}

/// SQLite's errors for a statement (`sql`, its parameters `names`,
/// numbered as [`number`] numbers them) whose parameters go past
/// `SQLITE_LIMIT_VARIABLE_NUMBER` (`limit`): a `?NNN` beyond it names a
/// number out of range, any other parameter beyond it is one too many.
/// SQLite meets them in source order and reports the first, so the text
/// is walked again when one is found. (A `?NNN` past the largest limit is
/// not in `names`, but noted in `out_of_range`.)
pub fn check_variable_limit(sql: &[u8], numbering: &Numbering, limit: i32) -> crate::error::Result<()> {
    let limit = limit.max(0) as usize;
    match numbering.names.get(limit + 1..) {
        Some(beyond) if !beyond.is_empty() => Err(first_variable_error(sql, limit)),
        _ if numbering.out_of_range => Err(first_variable_error(sql, limit)),
        _ => Ok(()),
    }
}

/// The error of the first parameter of `sql`, in source order, that
/// `limit` refuses.
fn first_variable_error(sql: &[u8], limit: usize) -> crate::error::Error {
    let out_of_range = || crate::error::Error::sql(format!("variable number must be between ?1 and ?{limit}"));
    let too_many = || crate::error::Error::sql("too many SQL variables");
    let mut count = 0usize;
    let mut seen = std::collections::HashSet::new();
    for t in tokens(sql) {
        if t.kind != TokenType::TK_VARIABLE {
            continue;
        }
        let text = &sql[t.start..t.end];
        match text.strip_prefix(b"?") {
            Some([]) => count += 1,
            Some(digits) if digits.iter().all(u8::is_ascii_digit) => {
                match std::str::from_utf8(digits).ok().and_then(|d| d.parse::<usize>().ok()) {
                    Some(n) if (1..=limit).contains(&n) => count = count.max(n),
                    _ => return out_of_range(),
                }
                continue;
            }
            _ => {
                if !seen.insert(text) {
                    continue;
                }
                count += 1;
            }
        }
        if count > limit {
            return too_many();
        }
    }
    // (Not reached for a statement `names` came from: its numbering has
    // a parameter past the limit.)
    too_many()
}

/// Record `?NNN` (`digits` = NNN) in `names`; out of range numbers are
/// left for the compiler to refuse.
/// Returns whether NNN is a number SQLite accepts.
fn register_numbered(names: &mut Vec<Option<String>>, digits: &str) -> bool {
    if let Ok(n) = digits.parse::<usize>() {
        if (1..=32766).contains(&n) {
            if names.len() <= n {
                names.resize(n + 1, None);
            }
            if names[n].is_none() {
                let mut name = String::with_capacity(digits.len() + 1);
                name.push('?');
                name.push_str(digits);
                names[n] = Some(name);
            }
            return true;
        }
    }
    false
}

/// The parameter names of a statement whose parameters are all `?NNN`
/// (the usual form in prepared statements), found with a byte scan that
/// skips quoted text and comments instead of running the tokenizer.
/// `None` whenever the text holds (or might hold) another form: an
/// anonymous `?`, a `:`, `@`, `$` or `#` outside quotes (`$` may also be
/// part of an identifier), a `?NNN` run into an identifier, unterminated
/// quotes or comments; the tokenizer then decides. The text is one
/// statement the parser accepted, so it has no lexer errors.
fn numbered_only(sql: &[u8]) -> Option<Vec<Option<String>>> {
    let mut names: Vec<Option<String>> = Vec::with_capacity(4);
    names.push(None);
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            quote @ (b'\'' | b'"' | b'`') => {
                // A doubled quote inside is read as two adjacent quoted
                // runs: the same bytes are skipped.
                i += 2 + sql[i + 1..].iter().position(|&b| b == quote)?;
            }
            b'[' => i += 2 + sql[i + 1..].iter().position(|&b| b == b']')?,
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                i = sql[i..].iter().position(|&b| b == b'\n').map_or(sql.len(), |p| i + p + 1);
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => i += 4 + sql[i + 2..].windows(2).position(|w| w == b"*/")?,
            b'?' => {
                let digits = sql[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                let end = i + 1 + digits;
                if digits == 0 || sql.get(end).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80) {
                    return None;
                }
                // (A number out of range: the tokens decide, see `Numbering`.)
                if !register_numbered(&mut names, std::str::from_utf8(&sql[i + 1..end]).ok()?) {
                    return None;
                }
                i = end;
            }
            b':' | b'@' | b'$' | b'#' => return None,
            _ => i += 1,
        }
    }
    Some(names)
}

/// What a `::` inside a TCL-style parameter name (`$::x`, `$ns::x`) is
/// rewritten to before parsing: the parser does not read `::` there, as
/// SQLite's tokenizer does. Two bytes, an identifier character: offsets
/// in the text stay the same.
const TCL_SEPARATOR: &str = "\u{1c2}";

/// `sql` with every `::` inside a `$`/`@`/`:`/`#` parameter name replaced
/// by [`TCL_SEPARATOR`] (outside quotes and comments), or `None` when it
/// has none.
pub fn tcl_variables(sql: &[u8]) -> Option<Vec<u8>> {
    if !sql.windows(2).any(|w| w == b"::") {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    while i < sql.len() {
        match sql[i] {
            quote @ (b'\'' | b'"' | b'`') => {
                i += 2 + sql[i + 1..].iter().position(|&b| b == quote).unwrap_or(sql.len());
            }
            b'[' => i += 2 + sql[i + 1..].iter().position(|&b| b == b']').unwrap_or(sql.len()),
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                i = sql[i..].iter().position(|&b| b == b'\n').map_or(sql.len(), |p| i + p + 1);
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => i += 4 + sql[i + 2..].windows(2).position(|w| w == b"*/").unwrap_or(sql.len()),
            b'$' | b'@' | b':' | b'#' => {
                i += 1;
                // (SQLite's name needs one identifier character besides
                // the `::`: `$::` alone is an illegal token, left as it
                // is for the parser to refuse.)
                let (start, mut named) = (i, false);
                while i < sql.len() {
                    if is_id(sql[i]) {
                        named = true;
                        i += 1;
                    } else if sql[i] == b':' && sql.get(i + 1) == Some(&b':') {
                        i += 2;
                    } else {
                        break;
                    }
                }
                if named {
                    let mut k = start;
                    while k + 1 < i {
                        if &sql[k..k + 2] == b"::" {
                            out.get_or_insert_with(|| sql.to_vec())[k..k + 2].copy_from_slice(TCL_SEPARATOR.as_bytes());
                            k += 2;
                        } else {
                            k += 1;
                        }
                    }
                }
            }
            b if is_id(b) => {
                // (A `$` inside an identifier is part of it.)
                while i < sql.len() && is_id(sql[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// A parameter name as written, from its form in the parsed text.
pub fn original_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains(TCL_SEPARATOR) {
        std::borrow::Cow::Owned(name.replace(TCL_SEPARATOR, "::"))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// The number of an anonymous parameter in its rewritten form (the
/// parser's name for it, without the `?`).
pub fn anonymous_number(name: &str) -> Option<usize> {
    let digits = name.strip_prefix(ANONYMOUS_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `e` as SQL text with each numbered anonymous parameter shown as the
/// `?` it was written as (column names made from expression text).
pub fn expr_text(e: &sqlite3_parser::ast::Expr<'_>) -> String {
    let text = e.to_string();
    let marker = format!("?{ANONYMOUS_PREFIX}");
    if !text.contains(&marker) {
        return text;
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&marker) {
        out.push_str(&rest[..at + 1]);
        rest = rest[at + marker.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{number_by_tokens, numbered_only, original_name, tcl_variables};

    /// `$::x` and `$ns::x` are rewritten for the parser (same length) and
    /// named as written; quoted text and plain SQL are left alone.
    #[test]
    fn tcl_style_names() {
        let sql = b"SELECT $::i, $a::b::c, '$::x', \"y::z\", :k";
        let text = tcl_variables(sql).expect("rewritten");
        assert_eq!(text.len(), sql.len());
        assert_eq!(&text[25..], &sql[25..]);
        let n = number_by_tokens(&text);
        let names: Vec<_> = n.names.iter().skip(1).map(|x| x.clone().unwrap()).collect();
        assert_eq!(names, ["$::i", "$a::b::c", ":k"]);
        assert_eq!(original_name("$\u{1c2}i"), "$::i");
        assert!(tcl_variables(b"SELECT 'a::b' FROM t").is_none());
        assert!(tcl_variables(b"SELECT 1").is_none());
    }

    /// The byte scan agrees with the tokenizer whenever it answers, and
    /// declines the forms it does not handle.
    #[test]
    fn numbered_only_matches_tokens() {
        let cases: &[(&str, bool)] = &[
            ("SELECT b FROM t WHERE a = ?1", true),
            ("SELECT ?2, ?1, ?2 FROM t WHERE x BETWEEN ?3 AND ?10", true),
            ("SELECT '?5', \"?6\", `?7`, [?8], ?1 -- ?9\n, ?2 /* ?11 */ + ?3", true),
            ("SELECT 'it''s ?4', ?1", true),
            ("SELECT x'3f', ?32766, ?1", true),
            // (Numbers SQLite refuses: the tokens decide, for `out_of_range`.)
            ("SELECT x'3f', ?0, ?32767, ?99999999999999999999999, ?32766", false),
            ("SELECT a-?1, a/?2, 1-2 FROM t", true),
            ("SELECT ?", false),
            ("SELECT ?1, ?", false),
            ("SELECT :a, ?1", false),
            ("SELECT @a", false),
            ("SELECT $a", false),
            ("SELECT a$b, ?1 FROM t", false),
            ("SELECT #1", false),
            ("SELECT ?1a", false),
            ("SELECT 'unterminated ?1", false),
            ("SELECT 1 /* open ?1", false),
            ("SELECT ':a', '@b', ?1 -- :c\n", true),
        ];
        for (sql, handled) in cases {
            let fast = numbered_only(sql.as_bytes());
            assert_eq!(fast.is_some(), *handled, "{sql}");
            if let Some(names) = fast {
                let slow = number_by_tokens(sql.as_bytes());
                assert!(slow.text.is_none(), "{sql}");
                assert_eq!(names, slow.names, "{sql}");
            }
        }
    }
}
