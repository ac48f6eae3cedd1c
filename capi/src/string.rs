//! # String utilities: `sqlite3_stricmp`, `strnicmp`, `strglob`, `strlike`
//!
//! Case folding is ASCII only, as in SQLite. GLOB is case sensitive with
//! `*`, `?` and `[...]` classes; LIKE folds ASCII case, with `%`, `_` and an
//! optional escape character. Both return 0 on a match.

use std::ffi::{c_char, c_int, c_uint, CStr};

fn fold(c: u8) -> u8 {
    c.to_ascii_lowercase()
}

/// Compare at most `n` bytes (all when `None`), folding ASCII case.
fn icmp(a: &[u8], b: &[u8], n: Option<usize>) -> c_int {
    let mut i = 0;
    loop {
        if n.is_some_and(|n| i >= n) {
            return 0;
        }
        let ca = a.get(i).copied().unwrap_or(0);
        let cb = b.get(i).copied().unwrap_or(0);
        if fold(ca) != fold(cb) || ca == 0 {
            return fold(ca) as c_int - fold(cb) as c_int;
        }
        i += 1;
    }
}

/// Compare two NUL-terminated strings ignoring ASCII case: negative, zero or
/// positive. NULL sorts first.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stricmp(zLeft: *const c_char, zRight: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zLeft`, `zRight` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(0, {
            match (zLeft.is_null(), zRight.is_null()) {
                (true, true) => 0,
                (true, false) => -1,
                (false, true) => 1,
                _ => icmp(CStr::from_ptr(zLeft).to_bytes(), CStr::from_ptr(zRight).to_bytes(), None),
            }
        })
    }
}

/// sqlite3_stricmp over at most `N` bytes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_strnicmp(zLeft: *const c_char, zRight: *const c_char, N: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zLeft`, `zRight` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(0, {
            match (zLeft.is_null(), zRight.is_null()) {
                (true, true) => 0,
                (true, false) => -1,
                (false, true) => 1,
                _ => icmp(CStr::from_ptr(zLeft).to_bytes(), CStr::from_ptr(zRight).to_bytes(), Some(N.max(0) as usize)),
            }
        })
    }
}

/// Decode one UTF-8 character at the start of `s`: (char, length).
fn next_char(s: &[u8]) -> (u32, usize) {
    let b0 = s[0];
    let len = match b0 {
        0x00..=0x7f => return (b0 as u32, 1),
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return (b0 as u32, 1),
    };
    let len = len.min(s.len());
    match std::str::from_utf8(&s[..len]) {
        Ok(t) => (t.chars().next().map_or(b0 as u32, |c| c as u32), len),
        Err(_) => (b0 as u32, 1),
    }
}

/// Pattern matching shared by GLOB and LIKE.
fn pattern_match(pat: &[u8], s: &[u8], glob: bool, nocase: bool, esc: Option<u32>) -> bool {
    let (many, one) = if glob { (b'*' as u32, b'?' as u32) } else { (b'%' as u32, b'_' as u32) };
    let eq = |a: u32, b: u32| {
        if nocase && a < 128 && b < 128 {
            fold(a as u8) == fold(b as u8)
        } else {
            a == b
        }
    };
    let (mut p, mut i) = (0usize, 0usize);
    while p < pat.len() {
        let (c, lc) = next_char(&pat[p..]);
        p += lc;
        if c == many {
            while p < pat.len() {
                let (c2, l2) = next_char(&pat[p..]);
                if c2 == many {
                    p += l2;
                } else if c2 == one {
                    if i >= s.len() {
                        return false;
                    }
                    i += next_char(&s[i..]).1;
                    p += l2;
                } else {
                    break;
                }
            }
            if p >= pat.len() {
                return true;
            }
            while i <= s.len() {
                if pattern_match(&pat[p..], &s[i..], glob, nocase, esc) {
                    return true;
                }
                if i == s.len() {
                    break;
                }
                i += next_char(&s[i..]).1;
            }
            return false;
        }
        if i >= s.len() {
            return false;
        }
        let (sc, ls) = next_char(&s[i..]);
        if c == one {
            i += ls;
            continue;
        }
        if glob && c == b'[' as u32 {
            // Character class: [abc], [a-z], [^...]; ']' first is literal.
            let mut q = p;
            let invert = pat.get(q) == Some(&b'^');
            if invert {
                q += 1;
            }
            let mut seen = false;
            let mut first = true;
            let mut prev: Option<u32> = None;
            loop {
                if q >= pat.len() {
                    return false;
                }
                let (cc, lcc) = next_char(&pat[q..]);
                if cc == b']' as u32 && !first {
                    q += lcc;
                    break;
                }
                if cc == b'-' as u32 && prev.is_some() && pat.get(q + 1).is_some_and(|&x| x != b']') {
                    let (hi, lhi) = next_char(&pat[q + 1..]);
                    if let Some(lo) = prev {
                        if sc >= lo && sc <= hi {
                            seen = true;
                        }
                    }
                    q += 1 + lhi;
                    prev = None;
                } else {
                    if cc == sc {
                        seen = true;
                    }
                    prev = Some(cc);
                    q += lcc;
                }
                first = false;
            }
            if seen == invert {
                return false;
            }
            p = q;
            i += ls;
            continue;
        }
        let c = if !glob && Some(c) == esc {
            if p >= pat.len() {
                return false;
            }
            let (e, le) = next_char(&pat[p..]);
            p += le;
            e
        } else {
            c
        };
        if !eq(c, sc) {
            return false;
        }
        i += ls;
    }
    i == s.len()
}

/// 0 if `zStr` matches the GLOB pattern `zGlob` (case-sensitive), nonzero
/// otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_strglob(zGlob: *const c_char, zStr: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zGlob`, `zStr` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(1, {
            if zGlob.is_null() {
                return if zStr.is_null() { 0 } else { 1 };
            }
            if zStr.is_null() {
                return 1;
            }
            (!pattern_match(CStr::from_ptr(zGlob).to_bytes(), CStr::from_ptr(zStr).to_bytes(), true, false, None)) as c_int
        })
    }
}

/// 0 if `zStr` matches the LIKE pattern `zGlob` (ASCII case ignored) with
/// escape character `cEsc` (0 for none), nonzero otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_strlike(zGlob: *const c_char, zStr: *const c_char, cEsc: c_uint) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zGlob`, `zStr` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(1, {
            if zGlob.is_null() {
                return if zStr.is_null() { 0 } else { 1 };
            }
            if zStr.is_null() {
                return 1;
            }
            let esc = if cEsc == 0 { None } else { Some(cEsc) };
            (!pattern_match(CStr::from_ptr(zGlob).to_bytes(), CStr::from_ptr(zStr).to_bytes(), false, true, esc)) as c_int
        })
    }
}

#[cfg(test)]
mod tests {
    use super::pattern_match;

    fn glob(p: &str, s: &str) -> bool {
        pattern_match(p.as_bytes(), s.as_bytes(), true, false, None)
    }
    fn like(p: &str, s: &str) -> bool {
        pattern_match(p.as_bytes(), s.as_bytes(), false, true, Some(b'\\' as u32))
    }

    #[test]
    fn glob_wildcards_and_classes() {
        assert!(glob("a*c", "abbbc"));
        assert!(!glob("a*c", "abbbd"));
        assert!(glob("?", "é"));
        assert!(glob("[a-c]x", "bx"));
        assert!(!glob("[^a-c]x", "bx"));
        assert!(glob("[]]", "]"));
        assert!(!glob("A*", "abc"));
    }

    #[test]
    fn like_folds_ascii_and_escapes() {
        assert!(like("a%", "ABC"));
        assert!(like("a_c", "aXc"));
        assert!(like("a\\%", "a%"));
        assert!(!like("a\\%", "ab"));
        assert!(like("%", ""));
    }
}
