//! # LIKE and GLOB pattern matching
//!
//! SQLite's semantics exactly: patterns and subjects are read as UTF-8
//! code points and end at the first NUL byte (SQLite hands the matcher
//! NUL-terminated C strings); LIKE folds ASCII letters only (unless
//! `PRAGMA case_sensitive_like`) and honours an optional escape character;
//! GLOB is case-sensitive and supports `[...]` classes with ranges and `^`
//! negation. An unterminated class never matches.
//!
//! The matcher returns three outcomes, not two: after a wildcard fails to
//! place the rest of the pattern anywhere, no earlier wildcard can help
//! either, so the search stops ([`Outcome::NoWildcardMatch`]); this keeps
//! patterns like `%a%a%a%b` linear-ish instead of exponential.

/// Which dialect of pattern, with its special characters.
#[derive(Debug, Clone, Copy)]
pub struct PatternInfo {
    /// Matches any sequence (`%` or `*`); 0 when disabled by the escape.
    pub match_all: u32,
    /// Matches one character (`_` or `?`); 0 when disabled by the escape.
    pub match_one: u32,
    /// GLOB's `[` classes.
    pub has_sets: bool,
    /// Fold ASCII case.
    pub no_case: bool,
}

impl PatternInfo {
    /// GLOB.
    pub const GLOB: PatternInfo = PatternInfo { match_all: '*' as u32, match_one: '?' as u32, has_sets: true, no_case: false };

    /// LIKE, case-insensitive or not; an escape equal to a wildcard turns
    /// that wildcard into an ordinary character.
    pub fn like(case_sensitive: bool, escape: Option<u32>) -> PatternInfo {
        let mut info = PatternInfo { match_all: '%' as u32, match_one: '_' as u32, has_sets: false, no_case: !case_sensitive };
        if escape == Some(info.match_all) {
            info.match_all = 0;
        }
        if escape == Some(info.match_one) {
            info.match_one = 0;
        }
        info
    }
}

/// Result of one matching attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Match,
    NoMatch,
    /// No match, and no match is possible by giving an enclosing wildcard
    /// more characters either.
    NoWildcardMatch,
}

/// Decode one code point the way SQLite reads UTF-8 (lenient: malformed
/// sequences decode to U+FFFD, overlong forms too). Returns 0 at the end of
/// the input or at a NUL byte, without advancing.
#[inline]
pub fn read_utf8(s: &[u8], pos: &mut usize) -> u32 {
    let Some(&b0) = s.get(*pos) else { return 0 };
    if b0 == 0 {
        return 0;
    }
    *pos += 1;
    if b0 < 0xc0 {
        return b0 as u32;
    }
    let mut c: u32 = match b0 {
        0xc0..=0xdf => (b0 & 0x1f) as u32,
        0xe0..=0xef => (b0 & 0x0f) as u32,
        0xf0..=0xf7 => (b0 & 0x07) as u32,
        0xf8..=0xfb => (b0 & 0x03) as u32,
        0xfc..=0xfd => (b0 & 0x01) as u32,
        _ => 0,
    };
    while let Some(&b) = s.get(*pos) {
        if b & 0xc0 != 0x80 {
            break;
        }
        c = (c << 6).wrapping_add((b & 0x3f) as u32);
        *pos += 1;
    }
    if c < 0x80 || (c & 0xffff_f800) == 0xd800 || (c & 0xffff_fffe) == 0xfffe {
        c = 0xfffd;
    }
    c
}

fn upper(c: u32) -> u32 {
    if (b'a' as u32..=b'z' as u32).contains(&c) {
        c - 32
    } else {
        c
    }
}

fn lower(c: u32) -> u32 {
    if (b'A' as u32..=b'Z' as u32).contains(&c) {
        c + 32
    } else {
        c
    }
}

/// Whether `subject` matches `pattern`. `escape` is LIKE's escape
/// character (GLOB has none).
pub fn matches(pattern: &[u8], subject: &[u8], info: &PatternInfo, escape: Option<u32>) -> bool {
    compare(pattern, 0, subject, 0, info, escape) == Outcome::Match
}

fn at_end(s: &[u8], pos: usize) -> bool {
    s.get(pos).is_none_or(|&b| b == 0)
}

fn compare(pat: &[u8], mut pp: usize, s: &[u8], mut sp: usize, info: &PatternInfo, esc: Option<u32>) -> Outcome {
    // Position in the pattern just after an escaped character, so that an
    // escaped match_one is taken literally.
    let mut escaped_at: Option<usize> = None;
    loop {
        let mut c = read_utf8(pat, &mut pp);
        if c == 0 {
            break;
        }
        if c == info.match_all && c != 0 {
            loop {
                c = read_utf8(pat, &mut pp);
                if c != 0 && c == info.match_all {
                    continue;
                }
                if c != 0 && c == info.match_one {
                    if read_utf8(s, &mut sp) == 0 {
                        return Outcome::NoWildcardMatch;
                    }
                    continue;
                }
                break;
            }
            if c == 0 {
                return Outcome::Match;
            }
            if info.has_sets && c == '[' as u32 {
                // A class right after the wildcard: try it at every position.
                let class_start = pp - 1;
                while !at_end(s, sp) {
                    let r = compare(pat, class_start, s, sp, info, esc);
                    if r != Outcome::NoMatch {
                        return r;
                    }
                    read_utf8(s, &mut sp);
                }
                return Outcome::NoWildcardMatch;
            }
            if !info.has_sets && Some(c) == esc {
                c = read_utf8(pat, &mut pp);
                if c == 0 {
                    return Outcome::NoWildcardMatch;
                }
            }
            // `c` is a literal: try the rest of the pattern after each
            // occurrence of it in the subject.
            if c < 0x80 {
                // An ASCII literal is found by its bytes (a byte below 0x80
                // is always a whole character in UTF-8), both cases at once
                // under NOCASE, as SQLite skips ahead with `strcspn`.
                let (a, b) = if info.no_case { (lower(c) as u8, upper(c) as u8) } else { (c as u8, c as u8) };
                loop {
                    let rest = s.get(sp..).unwrap_or(&[]);
                    let Some(at) = rest.iter().position(|&x| x == a || x == b || x == 0) else { break };
                    if rest[at] == 0 {
                        break;
                    }
                    sp += at + 1;
                    let r = compare(pat, pp, s, sp, info, esc);
                    if r != Outcome::NoMatch {
                        return r;
                    }
                }
                return Outcome::NoWildcardMatch;
            }
            loop {
                let c2 = read_utf8(s, &mut sp);
                if c2 == 0 {
                    break;
                }
                let same = c2 == c || (info.no_case && c < 0x80 && c2 < 0x80 && lower(c) == lower(c2));
                if !same {
                    continue;
                }
                let r = compare(pat, pp, s, sp, info, esc);
                if r != Outcome::NoMatch {
                    return r;
                }
            }
            return Outcome::NoWildcardMatch;
        }
        if info.has_sets && c == '[' as u32 {
            let c = read_utf8(s, &mut sp);
            if c == 0 {
                return Outcome::NoMatch;
            }
            if !class_contains(pat, &mut pp, c) {
                return Outcome::NoMatch;
            }
            continue;
        }
        if !info.has_sets && Some(c) == esc {
            c = read_utf8(pat, &mut pp);
            if c == 0 {
                return Outcome::NoMatch;
            }
            escaped_at = Some(pp);
        }
        let c2 = read_utf8(s, &mut sp);
        if c == c2 {
            continue;
        }
        if info.no_case && c < 0x80 && c2 < 0x80 && lower(c) == lower(c2) {
            continue;
        }
        if c != 0 && c == info.match_one && escaped_at != Some(pp) && c2 != 0 {
            continue;
        }
        return Outcome::NoMatch;
    }
    if at_end(s, sp) {
        Outcome::Match
    } else {
        Outcome::NoMatch
    }
}

/// Parse a GLOB class starting just after `[` and report whether `c` is in
/// it; an unterminated class contains nothing.
fn class_contains(pat: &[u8], pp: &mut usize, c: u32) -> bool {
    let mut seen = false;
    let mut invert = false;
    let mut prior: u32 = 0;
    let mut c2 = read_utf8(pat, pp);
    if c2 == '^' as u32 {
        invert = true;
        c2 = read_utf8(pat, pp);
    }
    if c2 == ']' as u32 {
        if c == ']' as u32 {
            seen = true;
        }
        c2 = read_utf8(pat, pp);
    }
    while c2 != 0 && c2 != ']' as u32 {
        let next = pat.get(*pp).copied().unwrap_or(0);
        if c2 == '-' as u32 && next != b']' && next != 0 && prior > 0 {
            let hi = read_utf8(pat, pp);
            if c >= prior && c <= hi {
                seen = true;
            }
            prior = 0;
        } else {
            if c == c2 {
                seen = true;
            }
            prior = c2;
        }
        c2 = read_utf8(pat, pp);
    }
    c2 != 0 && (seen ^ invert)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(p: &str, s: &str) -> bool {
        matches(p.as_bytes(), s.as_bytes(), &PatternInfo::like(false, None), None)
    }
    fn glob(p: &str, s: &str) -> bool {
        matches(p.as_bytes(), s.as_bytes(), &PatternInfo::GLOB, None)
    }

    #[test]
    fn basics() {
        assert!(like("a%", "ABC"));
        assert!(like("%b_", "abc"));
        assert!(!like("%b_", "ab"));
        assert!(glob("[a-c]*", "banana"));
        assert!(!glob("[^a-c]*", "banana"));
        assert!(glob("*[]]", "x]"));
        assert!(!glob("[abc", "a"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("A*", "abc"));
    }
}
