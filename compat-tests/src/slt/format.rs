//! # Result formatting: how the classic runner prints values
//!
//! Each value is printed by its column's type letter: `I` as the 64-bit
//! integer `sqlite3_column_int64` would return, `R` as
//! `sqlite3_snprintf("%.3f", sqlite3_column_double)`, `T` (and anything
//! else) as `sqlite3_column_text` with `(empty)` for the empty string and
//! every byte outside printable ASCII replaced by `@`. NULL is `NULL`
//! whatever the letter. Conversions between storage classes are done by
//! the reference library itself (see `engine::reference::Converter`), so
//! they are SQLite's exactly, whichever engine produced the value.
//!
//! Results longer than the hash threshold are compared as
//! `N values hashing to <md5>`: the md5 of every value followed by `\n`.

use super::parser::SortMode;
use crate::engine::reference::{format_real_3, As, Converter};
use crate::engine::{Cell, Rows};
use md5::{Digest, Md5};

/// Print one value under type letter `letter`.
pub fn format_value(cell: &Cell, letter: char) -> String {
    if *cell == Cell::Null {
        return "NULL".into();
    }
    match letter {
        'I' => match cell {
            Cell::Integer(i) => i.to_string(),
            other => match Converter::convert(other, As::Int) {
                Cell::Integer(i) => i.to_string(),
                _ => unreachable!("As::Int yields Integer"),
            },
        },
        'R' => match cell {
            Cell::Real(r) => format_real_3(*r),
            other => match Converter::convert(other, As::Real) {
                Cell::Real(r) => format_real_3(r),
                _ => unreachable!("As::Real yields Real"),
            },
        },
        _ => {
            let bytes = match cell {
                Cell::Text(t) | Cell::Blob(t) => t.clone(),
                Cell::Integer(i) => i.to_string().into_bytes(),
                other => match Converter::convert(other, As::Text) {
                    Cell::Text(t) => t,
                    _ => unreachable!("As::Text yields Text"),
                },
            };
            if bytes.is_empty() {
                "(empty)".into()
            } else {
                bytes.iter().map(|&b| if (b' '..=b'~').contains(&b) { b as char } else { '@' }).collect()
            }
        }
    }
}

/// Format every value of `rows` and order them as `sort` says.
pub fn format_rows(rows: &Rows, types: &str, sort: SortMode) -> Vec<String> {
    let letters: Vec<char> = types.chars().collect();
    let mut formatted: Vec<Vec<String>> =
        rows.rows.iter().map(|row| row.iter().enumerate().map(|(i, c)| format_value(c, letters.get(i).copied().unwrap_or('T'))).collect()).collect();
    match sort {
        SortMode::NoSort => formatted.into_iter().flatten().collect(),
        SortMode::RowSort => {
            formatted.sort();
            formatted.into_iter().flatten().collect()
        }
        SortMode::ValueSort => {
            let mut values: Vec<String> = formatted.drain(..).flatten().collect();
            values.sort();
            values
        }
    }
}

/// md5 (hex) of the values each followed by a newline.
pub fn hash_values(values: &[String]) -> String {
    let mut md5 = Md5::new();
    for v in values {
        md5.update(v.as_bytes());
        md5.update(b"\n");
    }
    md5.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The `N values hashing to <md5>` line for `values`.
pub fn hash_line(values: &[String]) -> String {
    format!("{} values hashing to {}", values.len(), hash_values(values))
}

/// If `expected` is a single hash line, its value count and hash.
pub fn parse_hash_line(expected: &[String]) -> Option<(usize, String)> {
    if expected.len() != 1 {
        return None;
    }
    let mut words = expected[0].split_whitespace();
    let n = words.next()?.parse().ok()?;
    if words.next()? != "values" || words.next()? != "hashing" || words.next()? != "to" {
        return None;
    }
    let hash = words.next()?;
    (hash.len() == 32 && words.next().is_none()).then(|| (n, hash.to_string()))
}

/// What a result looks like in a script: the values, or their hash line
/// when there are more than `threshold` (0: never hash).
pub fn render(values: &[String], threshold: usize) -> Vec<String> {
    if threshold > 0 && values.len() > threshold {
        vec![hash_line(values)]
    } else {
        values.to_vec()
    }
}

/// Whether `values` satisfy `expected` (a value list or a hash line).
pub fn matches_expected(values: &[String], expected: &[String]) -> bool {
    match parse_hash_line(expected) {
        Some((n, hash)) => n == values.len() && hash == hash_values(values),
        None => values == expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_classic_runner() {
        assert_eq!(format_value(&Cell::Null, 'I'), "NULL");
        assert_eq!(format_value(&Cell::Real(2.5), 'I'), "2");
        assert_eq!(format_value(&Cell::Text(b"12abc".to_vec()), 'I'), "12");
        assert_eq!(format_value(&Cell::Integer(3), 'R'), "3.000");
        assert_eq!(format_value(&Cell::Text(Vec::new()), 'T'), "(empty)");
        assert_eq!(format_value(&Cell::Text(b"a\tb".to_vec()), 'T'), "a@b");
        assert_eq!(format_value(&Cell::Real(1.0), 'T'), "1.0");
        assert_eq!(hash_line(&[]), "0 values hashing to d41d8cd98f00b204e9800998ecf8427e");
        assert!(matches_expected(&["a".into()], &[hash_line(&["a".into()])]));
    }
}
