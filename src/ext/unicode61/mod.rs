//! # Unicode 6.1 as SQLite's `unicode61` tokenizers see it
//!
//! FTS3/FTS4's and FTS5's `unicode61` tokenizers (and FTS5's trigram)
//! class characters by their Unicode 6.1 general category and fold them
//! to lower case and, on request, without diacritics. `data.rs` holds
//! those answers, observed from the reference SQLite; this module looks
//! them up for both extensions.
//!
//! Invariant: the lookups never fail: a code point the data does not list
//! is `Cn` (unassigned in 6.1) and folds to itself (checked:
//! unicode61_lookups_total).

pub mod data;

use data::{CATEGORY, CN, DIACRITICS, FOLD, NAMES, STRIP1, STRIP2};

/// The general category of `c` (an index of [`NAMES`]).
pub fn category(c: char) -> u8 {
    // ASCII, most of what is tokenized, from a table built once.
    static ASCII: std::sync::OnceLock<[u8; 128]> = std::sync::OnceLock::new();
    if c.is_ascii() {
        return ASCII.get_or_init(|| std::array::from_fn(|i| lookup(i as u32)))[c as usize];
    }
    lookup(c as u32)
}

/// [`category`] by binary search of the table.
fn lookup(cp: u32) -> u8 {
    match CATEGORY.binary_search_by(|&(a, b, _)| {
        if b < cp {
            std::cmp::Ordering::Less
        } else if a > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => CATEGORY[i].2,
        Err(_) => CN,
    }
}

/// Whether `c` is a token character under the default categories
/// (`L* N* Co`, and code points 6.1 does not list).
pub fn default_token(c: char) -> bool {
    let cat = category(c);
    let name = NAMES[cat as usize];
    name.starts_with('L') || name.starts_with('N') || name == "Co" || cat == CN
}

/// Whether `c` is one of the combining diacritics that continue a token.
pub fn is_diacritic(c: char) -> bool {
    !c.is_ascii() && DIACRITICS.binary_search(&(c as u32)).is_ok()
}

/// The fold of `c` (lower case, then diacritics as `rd` asks); `None`
/// for a diacritic that is dropped.
pub fn fold(c: char, rd: u8) -> Option<char> {
    let cp = c as u32;
    if rd != 0 && is_diacritic(c) {
        return None;
    }
    if c.is_ascii() {
        return Some(c.to_ascii_lowercase());
    }
    let look = |t: &[(u32, u32)]| t.binary_search_by_key(&cp, |e| e.0).ok().map(|i| t[i].1);
    let strip = match rd {
        1 => look(STRIP1),
        2 => look(STRIP2),
        _ => None,
    };
    let r = strip.or_else(|| look(FOLD)).unwrap_or(cp);
    Some(char::from_u32(r).unwrap_or(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_point_has_a_category_and_a_fold() {
        for c in (0..=0x10ffffu32).filter_map(char::from_u32) {
            let cat = category(c);
            // invariant: unicode61_lookups_total
            assert!((cat as usize) < NAMES.len() && (is_diacritic(c) || fold(c, 2).is_some()), "{c:?}");
        }
        // U+0378 is unassigned in Unicode 6.1: Cn, folded to itself.
        assert_eq!((category('\u{378}'), fold('\u{378}', 2)), (CN, Some('\u{378}')));
    }
}
