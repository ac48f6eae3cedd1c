//! # The `simple` tokenizer
//!
//! Tokens are runs of ASCII letters and digits and non-ASCII bytes; ASCII
//! letters fold to lower case. A second argument, when given, names the
//! delimiter characters instead (every other ASCII byte then belongs to
//! tokens); as in SQLite, the first argument is not looked at.

use super::{split_bytes, Token, Tokenizer};

/// The `simple` tokenizer.
pub struct Simple {
    delim: [bool; 128],
}

impl Simple {
    /// With SQLite's arguments: the second one, if any, a string of
    /// delimiter characters.
    pub fn new(args: &[String]) -> Simple {
        let mut delim = [false; 128];
        match args.get(1) {
            Some(d) => {
                for b in d.bytes().filter(|b| *b < 0x80) {
                    delim[b as usize] = true;
                }
            }
            None => {
                for (b, d) in delim.iter_mut().enumerate() {
                    *d = !(b as u8).is_ascii_alphanumeric();
                }
            }
        }
        Simple { delim }
    }
}

impl Tokenizer for Simple {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        split_bytes(text, |b| b >= 0x80 || !self.delim[b as usize], |t| t.to_ascii_lowercase())
    }
}
