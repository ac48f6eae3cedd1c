//! # Index seeks by a leading integer
//!
//! Most index probes start with an integer (an integer column, or the
//! rowid of an automatic index), and most index entries differ from the
//! probe in that first field. The probe's first integer is decoded once
//! per seek ([`FirstInt`]); each cell the binary search meets is then
//! ordered by reading one integer from its bytes, without walking either
//! record (the idea of SQLite's `vdbeRecordCompareInt`).
//!
//! Invariant: the result is exactly the generic search's (`seek_path`'s compare
//! of whole records) (checked: index_probe_agrees): whenever a cell cannot be
//! settled this way (equal leading integers with more probe fields, a leading
//! field that is not an integer, a long header, an overflowing payload, a cell
//! pointer out of bounds) the page is left to the generic search, which also
//! reports damage as `SQLITE_CORRUPT`.

use super::cursor::Probe;
use super::page;
use crate::value::record::KeyInfo;
use crate::value::ValueRef;
use std::cmp::Ordering;

/// An index probe's leading field when it is an integer.
#[derive(Clone, Copy)]
pub(super) struct FirstInt {
    /// The probe's first field.
    value: i64,
    /// The probe has no other field: an equal first field is an equal key.
    only_field: bool,
    /// The first index column is descending.
    descending: bool,
}

impl FirstInt {
    /// The leading integer of `probe` (an index key or record), if any.
    pub(super) fn of(probe: &Probe<'_>, ki: &KeyInfo) -> Option<FirstInt> {
        let descending = ki.fields.first().is_some_and(|f| f.descending);
        match probe {
            Probe::Key(key) | Probe::PrimaryKey(key) => match key.first()? {
                ValueRef::Integer(k) => Some(FirstInt { value: *k, only_field: key.len() == 1, descending }),
                _ => None,
            },
            Probe::Record(rec) => {
                let value = leading_int(rec)?;
                // (A header of two bytes: its size and one serial type.)
                Some(FirstInt { value, only_field: rec[0] == 2, descending })
            }
            Probe::Rowid(_) => None,
        }
    }

    /// The order of the index record `record` against the probe when its
    /// first field is an integer that settles it; `None`: compare field
    /// by field (which also reports a malformed record).
    #[inline(always)]
    pub(super) fn order_of(self, record: &[u8]) -> Option<Ordering> {
        let o = leading_int(record)?.cmp(&self.value);
        if o == Ordering::Equal {
            return self.only_field.then_some(Ordering::Equal);
        }
        Some(if self.descending { o.reverse() } else { o })
    }
}

/// Binary search of index page `data` (header `h`): the first cell that
/// compares `>= probe` (`>` with `strict`), and the last cell met that
/// compared equal, as the generic search computes them. Each cell met is
/// ordered by `fast` from its record when the record lies whole in the
/// cell (a short payload size, the usual case), else, or when `fast`
/// cannot settle it (`None`), by `slow` (the cell index and its local
/// record if found: the generic compare, which also reports damage).
#[inline(always)]
pub(super) fn search_index_page(
    data: &[u8],
    h: &page::PageHeader,
    usable: u32,
    strict: bool,
    mut fast: impl FnMut(&[u8]) -> Option<Ordering>,
    mut slow: impl FnMut(usize, Option<&[u8]>) -> crate::error::Result<Ordering>,
) -> crate::error::Result<(usize, Option<usize>)> {
    let usable = usable as usize;
    let ptrs = h.offset + h.kind.header_size();
    let content_min = ptrs + 2 * h.ncells;
    // Interior cells start with the 4-byte left child.
    let skip = if h.kind.is_leaf() { 0 } else { 4 };
    let max_local = super::cell::max_local(false, usable as u32);
    let page = &data[..usable.min(data.len())];
    let (mut lo, mut hi) = (0usize, h.ncells);
    let mut equal_at = None;
    while lo < hi {
        let mid = (lo + hi) / 2;
        let local = local_record(page, ptrs + 2 * mid, content_min, skip, max_local);
        let o = match local.and_then(&mut fast) {
            Some(o) => o,
            None => slow(mid, local)?,
        };
        if o == Ordering::Equal {
            equal_at = Some(mid);
        }
        let holds = if strict { o == Ordering::Greater } else { o != Ordering::Less };
        if holds {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok((lo, equal_at))
}

/// The record of cell `i` of index page `data` (header `h`) when it lies
/// whole in the cell (see [`local_record`]); `None` otherwise.
#[inline]
pub(super) fn index_cell_record<'a>(data: &'a [u8], h: &page::PageHeader, i: usize, usable: u32) -> Option<&'a [u8]> {
    if i >= h.ncells || h.kind.is_table() {
        return None;
    }
    let ptrs = h.offset + h.kind.header_size();
    let skip = if h.kind.is_leaf() { 0 } else { 4 };
    let page = &data[..(usable as usize).min(data.len())];
    local_record(page, ptrs + 2 * i, ptrs + 2 * h.ncells, skip, super::cell::max_local(false, usable))
}

/// The record of the index cell whose pointer is at `ptr` of `page`, when
/// its payload size is a one- or two-byte varint and the payload lies
/// whole in the cell; `None` otherwise (the caller parses the cell).
#[inline(always)]
fn local_record(page: &[u8], ptr: usize, content_min: usize, skip: usize, max_local: usize) -> Option<&[u8]> {
    let p = page.get(ptr..ptr + 2)?;
    let off = u16::from_be_bytes([p[0], p[1]]) as usize;
    if off < content_min {
        return None;
    }
    let start = off + skip;
    let (size, n) = match page.get(start..start + 2)? {
        [b0, _] if *b0 < 0x80 => (*b0 as usize, 1),
        [b0, b1] if *b1 < 0x80 => ((((*b0 & 0x7f) as usize) << 7) | *b1 as usize, 2),
        _ => return None,
    };
    if size > max_local {
        return None;
    }
    page.get(start + n..start + n + size)
}

/// An index probe's leading field when it is text and the first index
/// column compares it with BINARY: a cell's leading text is then ordered
/// against it by comparing bytes (the idea of SQLite's
/// `vdbeRecordCompareString`), without decoding the record.
#[derive(Clone, Copy)]
pub(super) struct FirstText<'p> {
    /// The probe's first field.
    value: &'p [u8],
    /// The probe has no other field.
    only_field: bool,
    /// The first index column is descending.
    descending: bool,
}

impl<'p> FirstText<'p> {
    /// The leading text of `probe`, if it is one compared by BINARY.
    pub(super) fn of(probe: &Probe<'p>, ki: &KeyInfo) -> Option<FirstText<'p>> {
        let field = ki.fields.first()?;
        if !field.collation.is_binary() {
            return None;
        }
        let descending = field.descending;
        match probe {
            Probe::Key(key) | Probe::PrimaryKey(key) => match key.first()? {
                ValueRef::Text(t) => Some(FirstText { value: t, only_field: key.len() == 1, descending }),
                _ => None,
            },
            Probe::Record(rec) => {
                let (value, fields) = leading_text(rec)?;
                Some(FirstText { value, only_field: fields == 1, descending })
            }
            Probe::Rowid(_) => None,
        }
    }

    /// The order of the index record `record` (all of it) against the
    /// probe when its first field settles it; `None`: compare field by
    /// field (which also reports a malformed record).
    #[inline(always)]
    pub(super) fn order_of(self, record: &[u8]) -> Option<Ordering> {
        // (One-byte header size and first serial type: the usual index key.)
        let (hs, st) = match record {
            [hs, st, ..] if *hs < 0x80 && *st < 0x80 => (u64::from(*hs), u64::from(*st)),
            _ => {
                let (hs, n) = super::cell::get_varint(record).ok()?;
                (hs, super::cell::get_varint(record.get(n..)?).ok()?.0)
            }
        };
        let o = match st {
            // NULL and numbers sort before any text, blobs after.
            0..=9 => Ordering::Less,
            10 | 11 => return None,
            st if st % 2 == 0 => Ordering::Greater,
            st => {
                let len = usize::try_from((st - 13) / 2).ok()?;
                let start = usize::try_from(hs).ok()?;
                let text = record.get(start..start.checked_add(len)?)?;
                match text.cmp(self.value) {
                    Ordering::Equal => return self.only_field.then_some(Ordering::Equal),
                    o => o,
                }
            }
        };
        Some(if self.descending { o.reverse() } else { o })
    }
}

/// The first field of a record when it is text, and the number of fields
/// its header lists; `None` otherwise.
fn leading_text(record: &[u8]) -> Option<(&[u8], usize)> {
    let (hs, n) = super::cell::get_varint(record).ok()?;
    let hs = usize::try_from(hs).ok()?;
    let header = record.get(..hs)?;
    let mut at = n;
    let mut fields = 0;
    let mut first = None;
    while at < header.len() {
        let (st, k) = super::cell::get_varint(&header[at..]).ok()?;
        if fields == 0 {
            first = Some(st);
        }
        fields += 1;
        at += k;
    }
    let st = first?;
    if st < 13 || st % 2 == 0 {
        return None;
    }
    let len = usize::try_from((st - 13) / 2).ok()?;
    Some((record.get(hs..hs.checked_add(len)?)?, fields))
}

/// The first field of a record when it is an integer and the header is
/// the usual short one (one-byte size and serial type), read straight from
/// the bytes; `None` otherwise (the caller walks the record instead).
#[inline]
fn leading_int(record: &[u8]) -> Option<i64> {
    let (hs, st) = match record {
        [hs, st, ..] if (2..0x80).contains(hs) && *st < 0x80 && (*hs as usize) <= record.len() => (*hs as usize, *st),
        _ => return None,
    };
    let b = &record[hs..];
    Some(match st {
        1 => i64::from(*b.first()? as i8),
        2 => i64::from(i16::from_be_bytes(b.get(..2)?.try_into().ok()?)),
        3 => {
            let b = b.get(..3)?;
            i64::from(i32::from_be_bytes([b[0], b[1], b[2], 0]) >> 8)
        }
        4 => i64::from(i32::from_be_bytes(b.get(..4)?.try_into().ok()?)),
        5 => {
            let b = b.get(..6)?;
            i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], 0, 0]) >> 16
        }
        6 => i64::from_be_bytes(b.get(..8)?.try_into().ok()?),
        8 => 0,
        9 => 1,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::record::{compare_record_with_key, compare_records, RecordBuilder};

    #[test]
    fn first_int_agrees_with_the_full_comparison() {
        let ki = KeyInfo::binary(2);
        let ints = [0i64, 1, -1, 127, -128, 255, 32767, -32768, 8_388_607, -8_388_608, 1 << 40, -(1 << 40), i64::MAX, i64::MIN];
        for &a in &ints {
            let mut rec = Vec::new();
            RecordBuilder::default().build([ValueRef::Integer(a), ValueRef::Integer(7)], &mut rec);
            for &k in &ints {
                let key1 = [ValueRef::Integer(k)];
                let first = FirstInt::of(&Probe::Key(&key1), &ki).unwrap();
                let full = compare_record_with_key(&rec, &key1, &ki).unwrap();
                // invariant: index_probe_agrees
                assert_eq!(first.order_of(&rec), Some(full), "{a} vs {k}");
                let key2 = [ValueRef::Integer(k), ValueRef::Integer(7)];
                let first = FirstInt::of(&Probe::Key(&key2), &ki).unwrap();
                if let Some(o) = first.order_of(&rec) {
                    assert_eq!(o, compare_record_with_key(&rec, &key2, &ki).unwrap(), "{a} vs {k}, 7");
                }
                // The same probes as records (an index insert's).
                let mut probe = Vec::new();
                RecordBuilder::default().build(key2, &mut probe);
                let first = FirstInt::of(&Probe::Record(&probe), &ki).unwrap();
                if let Some(o) = first.order_of(&rec) {
                    assert_eq!(o, compare_records(&rec, &probe, &ki).unwrap(), "record {a} vs {k}, 7");
                }
                let mut probe1 = Vec::new();
                RecordBuilder::default().build(key1, &mut probe1);
                let first = FirstInt::of(&Probe::Record(&probe1), &ki).unwrap();
                assert_eq!(first.order_of(&rec), Some(compare_records(&rec, &probe1, &ki).unwrap()), "record {a} vs {k}");
            }
        }
    }

    #[test]
    fn first_text_agrees_with_the_full_comparison() {
        let long = "x".repeat(300);
        let texts: Vec<&[u8]> = vec![b"", b"a", b"ab", b"abc", b"b", b"B", b"\xff", long.as_bytes(), &long.as_bytes()[..299]];
        let others = [ValueRef::Null, ValueRef::Integer(5), ValueRef::Real(2.5), ValueRef::Blob(b"a"), ValueRef::Blob(b"")];
        for descending in [false, true] {
            let mut ki = KeyInfo::binary(2);
            ki.fields[0].descending = descending;
            let mut firsts: Vec<ValueRef<'_>> = texts.iter().map(|t| ValueRef::Text(t)).collect();
            firsts.extend(others);
            for a in &firsts {
                let mut rec = Vec::new();
                RecordBuilder::default().build([*a, ValueRef::Integer(7)], &mut rec);
                for k in &texts {
                    let key1 = [ValueRef::Text(k)];
                    let first = FirstText::of(&Probe::Key(&key1), &ki).unwrap();
                    let full = compare_record_with_key(&rec, &key1, &ki).unwrap();
                    // invariant: index_probe_agrees
                    assert_eq!(first.order_of(&rec), Some(full), "{a:?} vs {k:?}");
                    let key2 = [ValueRef::Text(k), ValueRef::Integer(8)];
                    let first = FirstText::of(&Probe::Key(&key2), &ki).unwrap();
                    if let Some(o) = first.order_of(&rec) {
                        assert_eq!(o, compare_record_with_key(&rec, &key2, &ki).unwrap(), "{a:?} vs {k:?}, 8");
                    }
                    let mut probe = Vec::new();
                    RecordBuilder::default().build(key2, &mut probe);
                    let first = FirstText::of(&Probe::Record(&probe), &ki).unwrap();
                    if let Some(o) = first.order_of(&rec) {
                        assert_eq!(o, compare_records(&rec, &probe, &ki).unwrap(), "record {a:?} vs {k:?}, 8");
                    }
                }
            }
        }
        // Another collation: no shortcut.
        let mut ki = KeyInfo::binary(1);
        ki.fields[0].collation = crate::value::collation::Collation::nocase();
        assert!(FirstText::of(&Probe::Key(&[ValueRef::Text(b"a")]), &ki).is_none());
    }
}
