//! # Splitting a `tokenize=` value into words
//!
//! The value is a white-space separated list of FTS5 barewords (ASCII
//! letters and digits, `_`, U+001A and any non-ASCII character) and SQL
//! string literals in single quotes (`''` inside stands for one quote).
//! Anything else (double quotes, brackets, punctuation in a bareword) is
//! SQLite's "parse error in tokenize directive".
//!
//! Invariant: a returned word is never empty unless it was written as
//! `''` (checked: fts5_spec_words).

fn is_bare(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_alphanumeric() || c == '_' || c == '\u{1a}'
}

/// The words of `value`, or `None` when it does not parse.
pub fn words(value: &str) -> Option<Vec<String>> {
    let cs: Vec<char> = value.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        if cs[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if cs[i] == '\'' {
            let mut w = String::new();
            i += 1;
            loop {
                match cs.get(i) {
                    None => return None,
                    Some('\'') if cs.get(i + 1) == Some(&'\'') => {
                        w.push('\'');
                        i += 2;
                    }
                    Some('\'') => {
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        w.push(c);
                        i += 1;
                    }
                }
            }
            out.push(w);
        } else if is_bare(cs[i]) {
            let st = i;
            while i < cs.len() && is_bare(cs[i]) {
                i += 1;
            }
            // invariant: fts5_spec_words
            debug_assert!(i > st, "an empty bareword");
            out.push(cs[st..i].iter().collect());
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn barewords_and_literals() {
        assert_eq!(words("porter 'ascii' 'it''s'"), Some(vec!["porter".into(), "ascii".into(), "it's".into()]));
        assert_eq!(words("\"porter\""), None);
        assert_eq!(words("a.b"), None);
        assert_eq!(words("é_1"), Some(vec!["é_1".into()]));
    }
}
