//! # The Porter stemmer
//!
//! M. F. Porter's 1980 suffix-stripping algorithm ("An algorithm for
//! suffix stripping", Program 14(3)), steps 1a to 5b, applied to each
//! token of the wrapped tokenizer. A word is a consonant/vowel pattern
//! `[C](VC){m}[V]`; each rule removes or replaces a suffix when the
//! measure `m` of what is left meets its condition.
//!
//! As SQLite applies it (observed): a suffix matches only a word longer
//! than it (`ies` stays `ie` after step 1a's `s`), bytes other than the
//! vowels are consonants (so `straße` loses its `e`), and tokens of
//! fewer than 3 or more than 64 bytes pass unchanged. The stem is never
//! empty.

/// Longest token stemmed.
const MAX_LEN: usize = 64;

/// Whether `w` ends with `suf` and has something before it.
fn ends(w: &[u8], suf: &[u8]) -> bool {
    w.len() > suf.len() && w.ends_with(suf)
}

/// Whether `w[i]` is a consonant: not a vowel, and `y` only after a
/// vowel (or at the start).
fn cons(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => false,
        b'y' => i == 0 || !cons(w, i - 1),
        _ => true,
    }
}

/// The measure m of `w`.
fn measure(w: &[u8]) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < w.len() && cons(w, i) {
        i += 1;
    }
    loop {
        while i < w.len() && !cons(w, i) {
            i += 1;
        }
        if i >= w.len() {
            return m;
        }
        while i < w.len() && cons(w, i) {
            i += 1;
        }
        m += 1;
    }
}

fn has_vowel(w: &[u8]) -> bool {
    (0..w.len()).any(|i| !cons(w, i))
}

/// `*d`: ends with a double consonant.
fn double_cons(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && cons(w, n - 1)
}

/// `*o`: ends consonant-vowel-consonant, the last not w, x or y.
fn cvc(w: &[u8]) -> bool {
    let n = w.len();
    n >= 3 && cons(w, n - 3) && !cons(w, n - 2) && cons(w, n - 1) && !matches!(w[n - 1], b'w' | b'x' | b'y')
}

/// Replace suffix `from` by `to` when what precedes it has measure above
/// `min`; `Some(applied)` when the suffix matched (the longest match
/// decides, whether or not its condition holds).
fn rule(w: &mut Vec<u8>, from: &[u8], to: &[u8], min: usize) -> Option<bool> {
    if !ends(w, from) {
        return None;
    }
    let stem = w.len() - from.len();
    if measure(&w[..stem]) > min {
        w.truncate(stem);
        w.extend_from_slice(to);
        return Some(true);
    }
    Some(false)
}

fn step1ab(w: &mut Vec<u8>) {
    if ends(w, b"sses") || ends(w, b"ies") {
        w.truncate(w.len() - 2);
    } else if ends(w, b"ss") {
    } else if ends(w, b"s") {
        w.pop();
    }
    if ends(w, b"eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            w.pop();
        }
        return;
    }
    let cut = if ends(w, b"ed") && has_vowel(&w[..w.len() - 2]) {
        2
    } else if ends(w, b"ing") && has_vowel(&w[..w.len() - 3]) {
        3
    } else {
        return;
    };
    w.truncate(w.len() - cut);
    if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
        w.push(b'e');
    } else if double_cons(w) && !matches!(w[w.len() - 1], b'l' | b's' | b'z') {
        w.pop();
    } else if measure(w) == 1 && cvc(w) {
        w.push(b'e');
    }
}

fn step1c(w: &mut [u8]) {
    let n = w.len();
    if ends(w, b"y") && has_vowel(&w[..n - 1]) {
        w[n - 1] = b'i';
    }
}

const STEP2: &[(&[u8], &[u8])] = &[
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
];

const STEP3: &[(&[u8], &[u8])] = &[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al"), (b"iciti", b"ic"), (b"ical", b"ic"), (b"ful", b""), (b"ness", b"")];

const STEP4: &[&[u8]] = &[
    b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent", b"ion", b"ou", b"ism", b"ate", b"iti", b"ous", b"ive", b"ize",
];

/// Apply the longest matching suffix of `table` (condition m > min).
fn longest(w: &mut Vec<u8>, table: &[(&[u8], &[u8])], min: usize) {
    let best = table.iter().filter(|(f, _)| ends(w, f)).max_by_key(|(f, _)| f.len());
    if let Some((f, t)) = best {
        let _ = rule(w, f, t, min);
    }
}

fn step4(w: &mut Vec<u8>) {
    let Some(f) = STEP4.iter().filter(|f| ends(w, f)).max_by_key(|f| f.len()) else {
        return;
    };
    let stem = w.len() - f.len();
    if *f == b"ion" && !(stem > 0 && matches!(w[stem - 1], b's' | b't')) {
        return;
    }
    if measure(&w[..stem]) > 1 {
        w.truncate(stem);
    }
}

fn step5(w: &mut Vec<u8>) {
    if ends(w, b"e") {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !cvc(stem)) {
            w.pop();
        }
    }
    if w.ends_with(b"ll") && measure(w) > 1 {
        w.pop();
    }
}

/// The stem of `word`.
pub fn stem(word: &str) -> String {
    let b = word.as_bytes();
    if b.len() <= 2 || b.len() > MAX_LEN {
        return word.to_string();
    }
    let mut w = b.to_vec();
    step1ab(&mut w);
    step1c(&mut w);
    longest(&mut w, STEP2, 0);
    longest(&mut w, STEP3, 0);
    step4(&mut w);
    step5(&mut w);
    debug_assert!(!w.is_empty());
    // A cut inside a multi-byte character leaves invalid UTF-8, which
    // the index stores as bytes; keep the token's text lossless instead.
    String::from_utf8(w).unwrap_or_else(|_| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn classic_examples() {
        for (a, b) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("relational", "relat"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("generalizations", "gener"),
            ("correction", "correct"),
        ] {
            assert_eq!(stem(a), b, "{a}");
        }
    }
}
