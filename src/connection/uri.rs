//! `file:` URIs, read once for the engine and the C API: octets written
//! `%HH` decoded, and the query parameters (`?key=value&...`, up to a
//! `#` fragment) as decoded key/value pairs. The engine's open
//! (`open.rs`: the path and the parameters it acts on) and the C API's
//! filename layout (`capi/src/uri.rs`: what `sqlite3_uri_parameter` and a
//! VFS read) both take them from here, so the two cannot disagree.
//!
//! Invariant: a `%` not followed by two hex digits stays as written, as
//! SQLite leaves it (checked: uri_stray_percent).

fn unhex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// `s` with each `%HH` replaced by the octet it names.
pub fn percent_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(a), Some(b)) = (unhex(s[i + 1]), unhex(s[i + 2])) {
                out.push(a * 16 + b);
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// Query parameters of a `file:` URI, decoded (empty for plain names).
pub fn query_params(name: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    if !name.starts_with(b"file:") {
        return Vec::new();
    }
    let Some(q) = name.iter().position(|&c| c == b'?') else {
        return Vec::new();
    };
    let query = &name[q + 1..];
    let query = &query[..query.iter().position(|&c| c == b'#').unwrap_or(query.len())];
    query
        .split(|&c| c == b'&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| match kv.iter().position(|&c| c == b'=') {
            Some(e) => (percent_decode(&kv[..e]), percent_decode(&kv[e + 1..])),
            None => (percent_decode(kv), Vec::new()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_decoded_and_end_at_the_fragment() {
        let p = query_params(b"file:data.db?mode=r%6F&cache=shared&x=a%20b#frag");
        assert_eq!(p, vec![(b"mode".to_vec(), b"ro".to_vec()), (b"cache".to_vec(), b"shared".to_vec()), (b"x".to_vec(), b"a b".to_vec())]);
        assert!(query_params(b"plain.db?mode=ro").is_empty());
        // invariant: uri_stray_percent
        assert_eq!(percent_decode(b"a%2"), b"a%2");
        assert_eq!(percent_decode(b"%zz%41"), b"%zzA");
    }
}
