//! # The ascii tokenizer
//!
//! Token characters are ASCII letters and digits, the `tokenchars`, and
//! every non-ASCII character (a non-ASCII separator is ignored, as
//! fts5.txt says). Only ASCII letters are folded to lower case.
//!
//! Invariant: `separators` and `tokenchars` hold ASCII characters only
//! (checked: fts5_ascii_sets).

use super::{constructor_error, Token};
use crate::error::Result;
use crate::util::ascii::AsciiLower;

/// Settings of one ascii tokenizer.
#[derive(Debug, Clone, Default)]
pub struct Ascii {
    tokenchars: Vec<char>,
    separators: Vec<char>,
}

impl Ascii {
    /// From the arguments after `ascii`.
    pub fn new(args: &[String]) -> Result<Ascii> {
        let mut a = Ascii::default();
        if !args.len().is_multiple_of(2) {
            return Err(constructor_error());
        }
        for kv in args.chunks(2) {
            let chars = kv[1].chars().filter(|c| c.is_ascii());
            match kv[0].ascii_lower().as_str() {
                "tokenchars" => {
                    let add: Vec<char> = chars.collect();
                    a.separators.retain(|c| !add.contains(c));
                    a.tokenchars.extend(add);
                }
                "separators" => {
                    let add: Vec<char> = chars.collect();
                    a.tokenchars.retain(|c| !add.contains(c));
                    a.separators.extend(add);
                }
                _ => return Err(constructor_error()),
            }
        }
        // invariant: fts5_ascii_sets
        debug_assert!(a.tokenchars.iter().chain(&a.separators).all(char::is_ascii));
        Ok(a)
    }

    fn is_token(&self, c: char) -> bool {
        if !c.is_ascii() || self.tokenchars.contains(&c) {
            return true;
        }
        !self.separators.contains(&c) && c.is_ascii_alphanumeric()
    }

    /// The tokens of `s`.
    pub fn tokenize(&self, s: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.scan(s, &mut |t, start, end| out.push(Token::new(t.to_owned(), start, end)));
        out
    }

    /// Report each token of `s` to `emit` (its folded text, start and
    /// end), built in one reused buffer.
    pub fn scan(&self, s: &str, emit: &mut dyn FnMut(&str, usize, usize)) {
        let mut buf = String::new();
        let mut cur: Option<(usize, usize)> = None;
        for (i, c) in s.char_indices() {
            if self.is_token(c) {
                if cur.is_none() {
                    buf.clear();
                }
                let t = cur.get_or_insert((i, i));
                buf.push(c.to_ascii_lowercase());
                t.1 = i + c.len_utf8();
            } else if let Some((a, z)) = cur.take() {
                emit(&buf, a, z);
            }
        }
        if let Some((a, z)) = cur {
            emit(&buf, a, z);
        }
    }
}
