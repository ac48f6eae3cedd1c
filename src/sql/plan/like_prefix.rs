//! The literal prefix of a LIKE or GLOB pattern, as SQLite's WHERE
//! analysis finds it (`isLikeOrGlob`) for its LIKE optimization: the
//! bounds `x >= prefix` and `x < prefix'` it adds beside the term (for a
//! virtual table's column, constraints offered to `xBestIndex`,
//! `plan/vtab.rs`; for any left operand, two expressions held to the
//! expression-depth limit, `codegen/query/like_range.rs`).
//!
//! Invariant: a prefix returned is never empty and does not end in the
//! byte 0xff, so its last byte can be raised for the upper bound
//! (checked: prefix_raisable).

use sqlite3_parser::ast::{Expr, Literal};

/// The prefix, escapes removed, of the pattern `pattern` (a string
/// literal, under COLLATE) of a LIKE (`like`) or GLOB, with `escape`
/// (a string literal of one byte that is not a wildcard, or no
/// optimization); `None` where SQLite finds none: the pattern starts
/// with a wildcard or is a lone escape, or is no literal.
pub fn like_prefix(pattern: &Expr<'_>, escape: Option<&Expr<'_>>, like: bool) -> Option<Vec<u8>> {
    let mut pattern = pattern;
    loop {
        match pattern {
            Expr::Collate(inner, _) => pattern = inner,
            Expr::Parenthesized(v) if v.len() == 1 => pattern = &v[0],
            _ => break,
        }
    }
    let Expr::Literal(Literal::String(s)) = pattern else { return None };
    // (LIKE's third wildcard is none: its set character is 0.)
    let wild: [u8; 3] = if like { [b'%', b'_', 0] } else { [b'*', b'?', b'['] };
    let esc = match escape {
        None => 0,
        // (SQLite looks at the escape as written: no COLLATE skipped.)
        Some(Expr::Literal(Literal::String(x))) => match crate::sql::parse::unquote(x).as_bytes() {
            [b] if *b != wild[0] && *b != wild[1] => *b,
            _ => return None,
        },
        Some(_) => return None,
    };
    let z = crate::sql::parse::unquote(s).into_bytes();
    let at = |i: usize| z.get(i).copied().unwrap_or(0);
    let mut cnt = 0usize;
    loop {
        let c = at(cnt);
        if c == 0 || wild.contains(&c) {
            break;
        }
        cnt += 1;
        if c == esc && at(cnt) > 0 && at(cnt) < 0x80 {
            cnt += 1;
        } else if c >= 0x80 {
            // A whole UTF-8 character; a malformed one (or U+FFFD) ends
            // the prefix before it.
            let len = match c {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 0,
            };
            let end = cnt - 1 + len;
            match z.get(cnt - 1..end).and_then(|b| std::str::from_utf8(b).ok()) {
                Some(ch) if len > 0 && ch != "\u{fffd}" => cnt = end,
                _ => {
                    cnt -= 1;
                    break;
                }
            }
        }
    }
    if !(cnt > 1 || (cnt > 0 && z[0] != esc)) || z[cnt - 1] == 0xff {
        return None;
    }
    let mut prefix = Vec::with_capacity(cnt);
    let mut i = 0;
    while i < cnt {
        if esc != 0 && z[i] == esc {
            i += 1;
        }
        if i < cnt {
            prefix.push(z[i]);
        }
        i += 1;
    }
    // invariant: prefix_raisable
    debug_assert!(prefix.last().is_some_and(|&b| b != 0xff), "a prefix ends in a byte that can be raised");
    Some(prefix)
}

/// Whether SQLite takes `prefix` for a number (so that the bounds would
/// not hold for a left operand without TEXT affinity): it, or it with
/// its last byte raised, reads as one, or it is a lone `-`.
pub fn prefix_is_numeric(prefix: &[u8]) -> bool {
    let numeric = |p: &[u8]| {
        let t = String::from_utf8_lossy(p);
        let t = t.trim();
        !t.is_empty() && !t.bytes().any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') && t.parse::<f64>().is_ok()
    };
    let mut raised = prefix.to_vec();
    if let Some(last) = raised.last_mut() {
        *last = last.wrapping_add(1);
    }
    prefix == b"-" || numeric(prefix) || numeric(&raised)
}
