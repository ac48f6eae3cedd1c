//! # The unicode61 tokenizer
//!
//! A token is a maximal run of token characters: those whose Unicode 6.1
//! general category is in `categories` (default `L* N* Co`), plus the
//! `tokenchars`, less the `separators`; code points SQLite's Unicode 6.1
//! data does not list (`Cn`) are token characters under any non-empty
//! set. One of the combining diacritics
//! in `crate::ext::unicode61::data::DIACRITICS` continues a token that has started (it never starts
//! one). Tokens are folded to lower case and, with `remove_diacritics`
//! 1 or 2, lose their diacritics (2 also from letters with several).
//!
//! Invariant: `cats` has a bit per index of [`NAMES`]; the arguments
//! were validated as SQLite validates them (else the constructor fails)
//! (checked: unicode61_cats_bits).

use super::{constructor_error, Token};
use crate::error::Result;
use crate::ext::unicode61::data::{CN, NAMES};
pub use crate::ext::unicode61::{category, fold, is_diacritic};
use crate::util::ascii::AsciiLower;

/// Settings of one unicode61 tokenizer.
#[derive(Debug, Clone)]
pub struct Unicode61 {
    /// 0, 1 or 2.
    pub remove_diacritics: u8,
    /// Bit `i` set: category `NAMES[i]` is a token character.
    pub cats: u32,
    /// Extra token characters.
    pub tokenchars: Vec<char>,
    /// Extra separators.
    pub separators: Vec<char>,
    /// Per ASCII byte: 0 a separator, 1 a token character, 2 an
    /// upper-case one (`is_token`, kept for the common all-ASCII text;
    /// 3 stands for the other bytes).
    class: [u8; 128],
}

fn cat_bit(name: &str) -> u32 {
    NAMES.iter().position(|n| *n == name).map_or(0, |i| 1 << i)
}

/// The bits of the default `L* N* Co`.
fn default_cats() -> u32 {
    parse_categories("L* N* Co").unwrap_or(0)
}

impl Default for Unicode61 {
    fn default() -> Self {
        Unicode61 { remove_diacritics: 1, cats: default_cats(), tokenchars: Vec::new(), separators: Vec::new(), class: [0; 128] }.with_ascii()
    }
}

/// `categories`: words whose first two characters name a category, a
/// class (`L*`) or `LC`; what follows them in the word is not looked at
/// (as SQLite reads it).
fn parse_categories(s: &str) -> Option<u32> {
    let mut bits = 0;
    for w in s.split_ascii_whitespace() {
        let mut cs = w.chars();
        let (a, b) = (cs.next()?, cs.next()?);
        bits |= match (a, b) {
            (_, '*') if "CLMNPSZ".contains(a) => NAMES.iter().enumerate().filter(|(_, n)| n.starts_with(a)).fold(0, |m, (i, _)| m | 1 << i),
            ('L', 'C') => cat_bit("Lu") | cat_bit("Ll") | cat_bit("Lt"),
            _ => match cat_bit(&format!("{a}{b}")) {
                0 => return None,
                m => m,
            },
        };
    }
    Some(bits)
}

impl Unicode61 {
    /// From the arguments after `unicode61`.
    pub fn new(args: &[String]) -> Result<Unicode61> {
        let mut u = Unicode61::default();
        if !args.len().is_multiple_of(2) {
            return Err(constructor_error());
        }
        for kv in args.chunks(2) {
            let v = &kv[1];
            match kv[0].ascii_lower().as_str() {
                "remove_diacritics" => {
                    u.remove_diacritics = match v.as_str() {
                        "0" => 0,
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(constructor_error()),
                    }
                }
                "categories" => u.cats = parse_categories(v).ok_or_else(constructor_error)?,
                "tokenchars" => {
                    let add: Vec<char> = v.chars().collect();
                    u.separators.retain(|c| !add.contains(c));
                    u.tokenchars.extend(add);
                }
                "separators" => {
                    let add: Vec<char> = v.chars().collect();
                    u.tokenchars.retain(|c| !add.contains(c));
                    u.separators.extend(add);
                }
                _ => return Err(constructor_error()),
            }
        }
        Ok(u.with_ascii())
    }

    /// `self` with [`Unicode61::class`] computed.
    fn with_ascii(mut self) -> Unicode61 {
        // invariant: unicode61_cats_bits
        debug_assert!(self.cats >> NAMES.len() == 0, "category bits {:#x} past NAMES", self.cats);
        for b in 0..128u8 {
            self.class[usize::from(b)] = match self.is_token(char::from(b)) {
                false => 0,
                true if b.is_ascii_uppercase() => 2,
                true => 1,
            };
        }
        self
    }

    fn is_token(&self, c: char) -> bool {
        if self.separators.contains(&c) {
            return false;
        }
        // What SQLite's 6.1 tables do not know (unassigned then, and the
        // large ideograph blocks) is a token character under any
        // non-empty category set.
        let cat = category(c);
        self.tokenchars.contains(&c) || self.cats & (1 << cat) != 0 || (cat == CN && self.cats != 0)
    }

    /// The tokens of `s`.
    pub fn tokenize(&self, s: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.scan(s, &mut |t, start, end| out.push(Token::new(t.to_owned(), start, end)));
        out
    }

    /// Report each token of `s` to `emit`: its folded text, start and
    /// end. A token of ASCII characters is cut and folded in one step
    /// (its text borrowed from `s` when already lower case); one with
    /// others is read character by character, into one reused buffer.
    pub fn scan(&self, s: &str, emit: &mut dyn FnMut(&str, usize, usize)) {
        let b = s.as_bytes();
        let mut buf = String::new();
        let mut i = 0;
        let class = |i: usize| b.get(i).map_or(0, |&c| self.class.get(usize::from(c)).copied().unwrap_or(3));
        while i < b.len() {
            if class(i) == 0 {
                i += 1;
                continue;
            }
            let start = i;
            let mut upper = false;
            let mut k = class(i);
            while k == 1 || k == 2 {
                upper |= k == 2;
                i += 1;
                k = class(i);
            }
            if k == 3 {
                i = self.token_from(s, start, &mut buf, emit);
                continue;
            }
            let t = &s[start..i];
            if upper {
                buf.clear();
                buf.push_str(t);
                buf.make_ascii_lowercase();
                emit(&buf, start, i);
            } else {
                emit(t, start, i);
            }
        }
    }

    /// Read character by character from `start` (a character boundary)
    /// the token beginning there, or past the one separator there;
    /// returns where to go on.
    fn token_from(&self, s: &str, start: usize, buf: &mut String, emit: &mut dyn FnMut(&str, usize, usize)) -> usize {
        buf.clear();
        // (Where the token began and ends so far.)
        let mut cur: Option<(usize, usize)> = None;
        for (k, c) in s[start..].char_indices() {
            let i = start + k;
            let continues = cur.is_some() && is_diacritic(c) && !self.separators.contains(&c);
            if self.is_token(c) || continues {
                let t = cur.get_or_insert((i, i));
                if let Some(f) = fold(c, self.remove_diacritics) {
                    buf.push(f);
                }
                t.1 = i + c.len_utf8();
            } else {
                if let Some((a, z)) = cur.filter(|_| !buf.is_empty()) {
                    emit(buf, a, z);
                }
                return i + c.len_utf8();
            }
        }
        if let Some((a, z)) = cur.filter(|_| !buf.is_empty()) {
            emit(buf, a, z);
        }
        s.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_read_as_sqlite_reads_them() {
        assert!(parse_categories("L*,N*").is_some());
        assert!(parse_categories("Lu X*").is_none());
        assert!(parse_categories("L").is_none());
        assert_eq!(parse_categories(""), Some(0));
        assert_eq!(category('a'), NAMES.iter().position(|n| *n == "Ll").unwrap() as u8);
    }
}
