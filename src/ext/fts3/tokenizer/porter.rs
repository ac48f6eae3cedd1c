//! # The `porter` tokenizer
//!
//! The `simple` tokenizer's tokens (with `_` a token character too),
//! folded to lower case, then reduced to
//! their stems by M. F. Porter's 1980 algorithm ("An algorithm for suffix
//! stripping"). Words that are not made of letters a-z only, or are
//! shorter than 3 or longer than 20 bytes, are not stemmed but kept
//! folded, a long one shortened to its first and last few bytes (3 each
//! when it holds a digit, 10 otherwise), as SQLite's porter tokenizer
//! does.

use super::{split_bytes, Token, Tokenizer};

/// The `porter` tokenizer.
pub struct Porter;

impl Tokenizer for Porter {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        split_bytes(text, |b| b >= 0x80 || b == b'_' || b.is_ascii_alphanumeric(), stem_word)
    }
}

fn copy_word(w: &[u8]) -> Vec<u8> {
    let low = w.to_ascii_lowercase();
    let mx = if low.iter().any(|b| b.is_ascii_digit()) { 3 } else { 10 };
    if low.len() > mx * 2 {
        let mut out = low[..mx].to_vec();
        out.extend_from_slice(&low[low.len() - mx..]);
        out
    } else {
        low
    }
}

/// The term for one token.
pub fn stem_word(w: &[u8]) -> Vec<u8> {
    if w.len() < 3 || w.len() > 20 || !w.iter().all(|b| b.is_ascii_alphabetic()) {
        return copy_word(w);
    }
    let mut s = Stem { b: w.to_ascii_lowercase() };
    s.step1a();
    s.step1b();
    s.step1c();
    s.step2();
    s.step3();
    s.step4();
    s.step5();
    s.b
}

struct Stem {
    b: Vec<u8>,
}

impl Stem {
    fn cons(&self, i: usize) -> bool {
        match self.b[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.cons(i - 1),
            _ => true,
        }
    }
    /// The measure of the first `n` letters.
    fn m(&self, n: usize) -> usize {
        let mut m = 0;
        let mut i = 0;
        while i < n && self.cons(i) {
            i += 1;
        }
        loop {
            while i < n && !self.cons(i) {
                i += 1;
            }
            if i >= n {
                return m;
            }
            while i < n && self.cons(i) {
                i += 1;
            }
            m += 1;
        }
    }
    fn has_vowel(&self, n: usize) -> bool {
        (0..n).any(|i| !self.cons(i))
    }
    fn double_cons(&self, n: usize) -> bool {
        n >= 2 && self.b[n - 1] == self.b[n - 2] && self.cons(n - 1)
    }
    /// cvc at the end of the first `n` letters, the last not w, x or y.
    fn cvc(&self, n: usize) -> bool {
        n >= 3 && self.cons(n - 1) && !self.cons(n - 2) && self.cons(n - 3) && !matches!(self.b[n - 1], b'w' | b'x' | b'y')
    }
    fn ends(&self, s: &[u8]) -> bool {
        self.b.ends_with(s)
    }
    fn set_to(&mut self, suffix_len: usize, r: &[u8]) {
        let n = self.b.len() - suffix_len;
        self.b.truncate(n);
        self.b.extend_from_slice(r);
    }
    fn step1a(&mut self) {
        if self.ends(b"sses") {
            self.set_to(4, b"ss");
        } else if self.ends(b"ies") {
            self.set_to(3, b"i");
        } else if self.ends(b"ss") {
        } else if self.ends(b"s") {
            self.set_to(1, b"");
        }
    }
    fn step1b(&mut self) {
        if self.ends(b"eed") {
            if self.m(self.b.len() - 3) > 0 {
                self.set_to(3, b"ee");
            }
            return;
        }
        let cut = if self.ends(b"ed") && self.has_vowel(self.b.len() - 2) {
            2
        } else if self.ends(b"ing") && self.has_vowel(self.b.len() - 3) {
            3
        } else {
            return;
        };
        self.set_to(cut, b"");
        if self.ends(b"at") || self.ends(b"bl") || self.ends(b"iz") {
            self.b.push(b'e');
        } else if self.double_cons(self.b.len()) && !matches!(self.b[self.b.len() - 1], b'l' | b's' | b'z') {
            self.b.pop();
        } else if self.m(self.b.len()) == 1 && self.cvc(self.b.len()) {
            self.b.push(b'e');
        }
    }
    fn step1c(&mut self) {
        if self.ends(b"y") && self.has_vowel(self.b.len() - 1) {
            self.set_to(1, b"i");
        }
    }
    /// Replace the longest matching suffix of `rules` when the stem's
    /// measure is above `min_m`.
    fn rules(&mut self, rules: &[(&[u8], &[u8])], min_m: usize) {
        let mut best: Option<(&[u8], &[u8])> = None;
        for (s, r) in rules {
            if self.ends(s) && best.is_none_or(|(b, _)| s.len() > b.len()) {
                best = Some((s, r));
            }
        }
        if let Some((s, r)) = best {
            if self.m(self.b.len() - s.len()) > min_m {
                self.set_to(s.len(), r);
            }
        }
    }
    fn step2(&mut self) {
        self.rules(
            &[
                (b"ational", b"ate"),
                (b"tional", b"tion"),
                (b"enci", b"ence"),
                (b"anci", b"ance"),
                (b"izer", b"ize"),
                (b"bli", b"ble"),
                (b"alli", b"al"),
                (b"entli", b"ent"),
                (b"eli", b"e"),
                (b"ousli", b"ous"),
                (b"ization", b"ize"),
                (b"ation", b"ate"),
                (b"ator", b"ate"),
                (b"alism", b"al"),
                (b"iveness", b"ive"),
                (b"fulness", b"ful"),
                (b"ousness", b"ous"),
                (b"aliti", b"al"),
                (b"iviti", b"ive"),
                (b"biliti", b"ble"),
                (b"logi", b"log"),
            ],
            0,
        );
    }
    fn step3(&mut self) {
        self.rules(&[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al"), (b"iciti", b"ic"), (b"ical", b"ic"), (b"ful", b""), (b"ness", b"")], 0);
    }
    fn step4(&mut self) {
        let list: [&[u8]; 19] = [
            b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent", b"ion", b"ou", b"ism", b"ate", b"iti", b"ous", b"ive",
            b"ize",
        ];
        let mut best: Option<&[u8]> = None;
        for s in list {
            if self.ends(s) && best.is_none_or(|b| s.len() > b.len()) {
                best = Some(s);
            }
        }
        if let Some(s) = best {
            let n = self.b.len() - s.len();
            if s == b"ion" && !(n > 0 && matches!(self.b[n - 1], b's' | b't')) {
                return;
            }
            if self.m(n) > 1 {
                self.b.truncate(n);
            }
        }
    }
    fn step5(&mut self) {
        if self.ends(b"e") {
            let n = self.b.len() - 1;
            let m = self.m(n);
            if m > 1 || (m == 1 && !self.cvc(n)) {
                self.b.truncate(n);
            }
        }
        let n = self.b.len();
        if self.ends(b"ll") && self.m(n) > 1 {
            self.b.pop();
        }
    }
}
