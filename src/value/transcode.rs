//! A record's text fields converted between UTF-8 and a UTF-16 database
//! encoding, at the B-tree's boundary (`value/encoding.rs` says why the
//! engine computes with UTF-8 and keeps UTF-16 files byte for byte).
//! Kept apart from `encoding.rs` so that the encodings know nothing of the
//! record format (records name encodings, not the other way round).

use super::encoding::{utf16_to_utf8_into, utf8_to_utf16_into, TextEncoding};
use super::record::serial_type_len;
use super::varint::{put_varint, read_varint, varint_len};

/// A record (UTF-8 text) with its text fields in `enc`, or the other way
/// round with `to_utf8`; `None` when it holds no text (nothing to
/// change). A record whose last fields have no bodies (a head followed by
/// zero-blobs the B-tree writes) keeps them so: only blobs may be missing.
/// A malformed record is returned unchanged, for the reader to report.
pub fn transcode_record(rec: &[u8], enc: TextEncoding, to_utf8: bool) -> Option<Vec<u8>> {
    let (hs, mut pos) = read_varint(rec)?;
    let hs = usize::try_from(hs).ok().filter(|&h| h <= rec.len() && h >= pos)?;
    let mut types = Vec::new();
    let mut any_text = false;
    while pos < hs {
        let (st, n) = read_varint(&rec[pos..hs])?;
        pos += n;
        serial_type_len(st)?;
        any_text |= st >= 13 && st % 2 == 1;
        types.push(st);
    }
    if !any_text {
        return None;
    }
    let mut new_types = Vec::with_capacity(types.len());
    let mut body = Vec::with_capacity(rec.len() * 2);
    let mut off = hs;
    for &st in &types {
        let len = serial_type_len(st)? as usize;
        let Some(v) = rec.get(off..off + len) else {
            // A missing body: the zero-blob tail.
            new_types.push(st);
            off = rec.len();
            continue;
        };
        off += len;
        if st >= 13 && st % 2 == 1 {
            let start = body.len();
            if to_utf8 {
                utf16_to_utf8_into(v, enc, &mut body);
            } else {
                utf8_to_utf16_into(v, enc, &mut body);
            }
            new_types.push((body.len() - start) as u64 * 2 + 13);
        } else {
            body.extend_from_slice(v);
            new_types.push(st);
        }
    }
    let types_len: usize = new_types.iter().map(|&st| varint_len(st)).sum();
    let mut hdr = types_len + 1;
    while varint_len(hdr as u64) + types_len > hdr {
        hdr = varint_len(hdr as u64) + types_len;
    }
    let mut out = Vec::with_capacity(hdr + body.len());
    let mut tmp = [0u8; 9];
    let k = put_varint(&mut tmp, hdr as u64);
    out.extend_from_slice(&tmp[..k]);
    for st in new_types {
        let k = put_varint(&mut tmp, st);
        out.extend_from_slice(&tmp[..k]);
    }
    out.extend_from_slice(&body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::encoding::utf8_to_utf16;
    use crate::value::record::encode_record;
    use crate::value::Value;

    #[test]
    fn records_transcode() {
        let rec = encode_record(&[Value::Integer(5), Value::text("héllo"), Value::Blob(vec![1, 2]), Value::Null]);
        let enc = TextEncoding::Utf16be;
        let wide = transcode_record(&rec, enc, false).unwrap();
        let want = encode_record(&[Value::Integer(5), Value::Text(utf8_to_utf16("héllo".as_bytes(), enc)), Value::Blob(vec![1, 2]), Value::Null]);
        assert_eq!(wide, want);
        assert_eq!(transcode_record(&wide, enc, true).unwrap(), rec);
        assert!(transcode_record(&encode_record(&[Value::Integer(1)]), enc, false).is_none());
    }
}
