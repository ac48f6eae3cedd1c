//! The record format (`fileformat2.txt` §2.1): a header — its own size as a
//! varint, then one serial-type varint per column — followed by the column
//! values back to back. Also the comparison of records as index keys.
//!
//! Serial types: 0 NULL; 1,2,3,4,5,6 big-endian two's-complement integers
//! of 1,2,3,4,6,8 bytes; 7 IEEE-754 big-endian double; 8 and 9 the integers
//! 0 and 1 with no body bytes (schema format 4 and up); 10 and 11 reserved
//! (read as NULL with no body bytes, as SQLite reads them); N>=12 even: BLOB of (N-12)/2 bytes; N>=13 odd:
//! TEXT of (N-13)/2 bytes.
//!
//! Invariants: the encoder picks the smallest integer serial type, exactly
//! as SQLite does, so records are byte-identical to SQLite's (checked:
//! record_smallest_int); the decoder
//! never panics and never reads outside the record: every inconsistency
//! (header larger than the record, a header varint running off its end,
//! a body shorter than the header promises) is
//! `SQLITE_CORRUPT`. Columns the header does not mention read as NULL
//! (a row written before `ALTER TABLE ADD COLUMN`; the caller supplies the
//! column default).

use super::collation::Collation;
use super::compare::compare_values;
use super::encoding::TextEncoding;
use super::varint::{put_varint, read_varint, varint_len};
use super::{Value, ValueRef};
use crate::error::{Error, Result};
use std::cmp::Ordering;

/// How the fields of an index key compare: one entry per key column.
#[derive(Debug, Clone)]
pub struct KeyInfo {
    /// Per field: collation and direction. Fields past the end of this
    /// list (the rowid of an index entry) compare with BINARY, ascending.
    pub fields: Vec<KeyField>,
}

/// The description of a key with no declared fields: every field
/// compares BINARY ascending (cursors opened without a `KeyInfo`).
pub static NO_KEY_INFO: KeyInfo = KeyInfo { fields: Vec::new() };

/// One field of a [`KeyInfo`].
#[derive(Debug, Clone)]
pub struct KeyField {
    /// Collation for text values.
    pub collation: Collation,
    /// `DESC` column: order reversed.
    pub descending: bool,
}

impl KeyInfo {
    /// `n` BINARY ascending fields.
    pub fn binary(n: usize) -> KeyInfo {
        KeyInfo { fields: (0..n).map(|_| KeyField { collation: Collation::binary(), descending: false }).collect() }
    }

    /// [`KeyInfo::compare_field`] of values read from stored records whose
    /// text is in `enc`: BINARY compares the stored bytes; another
    /// collation gets the text as UTF-8.
    #[inline]
    pub fn compare_field_stored(&self, i: usize, a: ValueRef<'_>, b: ValueRef<'_>, enc: TextEncoding) -> Ordering {
        match (a, b) {
            (ValueRef::Text(x), ValueRef::Text(y)) if enc.is_utf16() => {
                let f = self.fields.get(i);
                let o = match f {
                    Some(f) if !f.collation.is_binary() => {
                        f.collation.compare(&super::encoding::utf16_to_utf8(x, enc), &super::encoding::utf16_to_utf8(y, enc))
                    }
                    _ => x.cmp(y),
                };
                if f.is_some_and(|f| f.descending) {
                    o.reverse()
                } else {
                    o
                }
            }
            _ => self.compare_field(i, a, b),
        }
    }

    /// Compares field `i` of two keys with that field's collation and
    /// direction.
    #[inline]
    pub fn compare_field(&self, i: usize, a: ValueRef<'_>, b: ValueRef<'_>) -> Ordering {
        match self.fields.get(i) {
            Some(f) => {
                let o = compare_values(a, b, Some(&f.collation));
                if f.descending {
                    o.reverse()
                } else {
                    o
                }
            }
            None => compare_values(a, b, None),
        }
    }
}

/// The file-format number at which serial types 8 and 9 are used.
pub const FORMAT_WITH_INT_CONSTANTS: u32 = 4;

/// The serial type SQLite writes for `v` (`file_format` is the schema
/// format number, 4 for every database SQLite creates by default).
#[inline]
pub fn serial_type_of(v: &ValueRef<'_>, file_format: u32) -> u64 {
    match *v {
        ValueRef::Null => 0,
        ValueRef::Integer(i) => {
            let u = if i < 0 { !(i as u64) } else { i as u64 };
            let st = if u <= 127 {
                if (i == 0 || i == 1) && file_format >= FORMAT_WITH_INT_CONSTANTS {
                    8 + i as u64
                } else {
                    1
                }
            } else if u <= 32767 {
                2
            } else if u <= 8388607 {
                3
            } else if u <= 2147483647 {
                4
            } else if u <= 0x7fff_ffff_ffff {
                5
            } else {
                6
            };
            // invariant: record_smallest_int
            debug_assert!(smallest_int_type(i, st), "integer {i} given serial type {st}");
            st
        }
        ValueRef::Real(_) => 7,
        ValueRef::Text(t) => t.len() as u64 * 2 + 13,
        ValueRef::Blob(b) => b.len() as u64 * 2 + 12,
    }
}

/// Whether `st` is the smallest serial type that holds integer `i`
/// (the constants 8 and 9 for 0 and 1 where the format has them).
fn smallest_int_type(i: i64, st: u64) -> bool {
    // Whether `i` survives truncation to `n` bytes (sign-extended).
    let fits = |n: u64| n >= 8 || (i << (64 - 8 * n)) >> (64 - 8 * n) == i;
    let len = |st: u64| serial_type_len(st).unwrap_or(8);
    match st {
        8 | 9 => i == st as i64 - 8,
        1..=6 => fits(len(st)) && (st == 1 || !fits(len(st - 1))),
        _ => false,
    }
}

/// Number of body bytes of a serial type (the reserved 10 and 11 have
/// none: SQLite reads them as NULL). Always `Some`.
pub const fn serial_type_len(st: u64) -> Option<u64> {
    Some(match st {
        0 | 8 | 9 | 10 | 11 => 0,
        1 => 1,
        2 => 2,
        3 => 3,
        4 => 4,
        5 => 6,
        6 | 7 => 8,
        n => (n - 12) / 2,
    })
}

/// Decodes one value of serial type `st` from `body` (exactly its bytes or
/// more). Errors on a short body; the reserved types read as NULL.
// (Always inline: once per column read, and a few callers only.)
#[inline(always)]
pub fn decode_value(st: u64, body: &[u8]) -> Result<ValueRef<'_>> {
    let len = serial_type_len(st).ok_or_else(Error::corrupt)? as usize;
    if body.len() < len {
        return Err(Error::corrupt());
    }
    // (Each width spelled out: a loop over the bytes cost a scan's
    // integer column twice as much.)
    let int = |n: usize| -> i64 {
        match *body {
            [a, ..] if n == 1 => i64::from(a as i8),
            [a, b, ..] if n == 2 => i64::from(i16::from_be_bytes([a, b])),
            [a, b, c, ..] if n == 3 => i64::from(i32::from_be_bytes([a, b, c, 0]) >> 8),
            [a, b, c, d, ..] if n == 4 => i64::from(i32::from_be_bytes([a, b, c, d])),
            [a, b, c, d, e, f, ..] if n == 6 => i64::from_be_bytes([a, b, c, d, e, f, 0, 0]) >> 16,
            [a, b, c, d, e, f, g, h, ..] => i64::from_be_bytes([a, b, c, d, e, f, g, h]),
            _ => 0,
        }
    };
    Ok(match st {
        0 => ValueRef::Null,
        1..=6 => ValueRef::Integer(int(len)),
        7 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&body[..8]);
            let r = f64::from_bits(u64::from_be_bytes(b));
            // SQLite never hands out NaN: it reads as NULL.
            if r.is_nan() {
                ValueRef::Null
            } else {
                ValueRef::Real(r)
            }
        }
        8 => ValueRef::Integer(0),
        9 => ValueRef::Integer(1),
        10 | 11 => ValueRef::Null,
        n if n % 2 == 0 => ValueRef::Blob(&body[..len]),
        _ => ValueRef::Text(&body[..len]),
    })
}

/// Appends the body bytes of `v` under serial type `st`.
fn put_value(out: &mut Vec<u8>, v: &ValueRef<'_>, st: u64) {
    match *v {
        ValueRef::Null => {}
        ValueRef::Integer(i) => {
            let n = serial_type_len(st).unwrap_or(0) as usize;
            out.extend_from_slice(&i.to_be_bytes()[8 - n..]);
        }
        ValueRef::Real(r) => out.extend_from_slice(&r.to_bits().to_be_bytes()),
        ValueRef::Text(t) => out.extend_from_slice(t),
        ValueRef::Blob(b) => out.extend_from_slice(b),
    }
}

/// Builds records into a caller-owned buffer, so the VM can reuse one
/// allocation for every row.
#[derive(Debug, Clone, Copy)]
pub struct RecordBuilder {
    /// Schema format number (see [`serial_type_of`]).
    pub file_format: u32,
}

impl Default for RecordBuilder {
    fn default() -> Self {
        RecordBuilder { file_format: FORMAT_WITH_INT_CONSTANTS }
    }
}

impl RecordBuilder {
    /// Size in bytes of the record for `values`.
    pub fn record_len<'a>(&self, values: impl IntoIterator<Item = ValueRef<'a>> + Clone) -> usize {
        let (hdr, body) = self.sizes(values);
        hdr + body
    }

    fn sizes<'a>(&self, values: impl IntoIterator<Item = ValueRef<'a>>) -> (usize, usize) {
        let mut types = 0usize;
        let mut body = 0usize;
        for v in values {
            let st = serial_type_of(&v, self.file_format);
            types += varint_len(st);
            body += serial_type_len(st).unwrap_or(0) as usize;
        }
        (header_size_for(types), body)
    }

    /// Clears `out` and writes the record for `values` into it.
    pub fn build<'a>(&self, values: impl IntoIterator<Item = ValueRef<'a>> + Clone, out: &mut Vec<u8>) {
        out.clear();
        // The serial types are computed once, kept on the stack for up to
        // `KEPT` columns (one pass fewer over the values: MakeRecord runs
        // once or more per row written).
        const KEPT: usize = 24;
        let mut kept = [0u64; KEPT];
        let (mut n, mut types, mut body) = (0usize, 0usize, 0usize);
        for v in values.clone() {
            let st = serial_type_of(&v, self.file_format);
            if n < KEPT {
                kept[n] = st;
            }
            n += 1;
            types += varint_len(st);
            body += serial_type_len(st).unwrap_or(0) as usize;
        }
        let hdr = header_size_for(types);
        out.reserve(hdr + body);
        let mut tmp = [0u8; 9];
        let put = |out: &mut Vec<u8>, tmp: &mut [u8; 9], st: u64| {
            if st < 0x80 {
                out.push(st as u8);
            } else {
                let k = put_varint(tmp, st);
                out.extend_from_slice(&tmp[..k]);
            }
        };
        put(out, &mut tmp, hdr as u64);
        if n <= KEPT {
            for &st in &kept[..n] {
                put(out, &mut tmp, st);
            }
        } else {
            for v in values.clone() {
                put(out, &mut tmp, serial_type_of(&v, self.file_format));
            }
        }
        for (i, v) in values.into_iter().enumerate() {
            let st = match kept.get(i) {
                Some(&st) if n <= KEPT => st,
                _ => serial_type_of(&v, self.file_format),
            };
            put_value(out, &v, st);
        }
    }
}

impl RecordBuilder {
    /// The record for `values` without the bodies of the fields from
    /// `body_fields` on (into `out`, cleared first): its header describes
    /// every field, so the record is whole once those bodies follow. A
    /// record ending in zero-blobs is built so, its zeros left for the
    /// B-tree to write.
    pub fn build_head(&self, values: &[ValueRef<'_>], body_fields: usize, out: &mut Vec<u8>) {
        out.clear();
        let types: Vec<u64> = values.iter().map(|v| serial_type_of(v, self.file_format)).collect();
        let hdr = header_size_for(types.iter().map(|&st| varint_len(st)).sum());
        let mut tmp = [0u8; 9];
        let k = put_varint(&mut tmp, hdr as u64);
        out.extend_from_slice(&tmp[..k]);
        for &st in &types {
            let k = put_varint(&mut tmp, st);
            out.extend_from_slice(&tmp[..k]);
        }
        for (v, &st) in values.iter().zip(&types).take(body_fields) {
            put_value(out, v, st);
        }
    }

    /// [`RecordBuilder::build`] for values at hand in a slice (the VM's
    /// `MakeRecord`): one pass sizes them, the record is then written in
    /// place into `out` (cleared first) with fixed-size moves for the
    /// integers, without growing the buffer value by value.
    pub fn build_slice(&self, values: &[ValueRef<'_>], out: &mut Vec<u8>) {
        const KEPT: usize = 16;
        if values.len() > KEPT {
            return self.build(values.iter().copied(), out);
        }
        let mut types = [0u64; KEPT];
        let (mut types_len, mut body) = (0usize, 0usize);
        for (st, v) in types.iter_mut().zip(values) {
            *st = serial_type_of(v, self.file_format);
            types_len += varint_len(*st);
            body += serial_type_len(*st).unwrap_or(0) as usize;
        }
        let hdr = header_size_for(types_len);
        out.clear();
        out.resize(hdr + body, 0);
        // (A header under 128 bytes, the usual one, sizes itself in one byte.)
        let mut h = if hdr < 0x80 {
            out[0] = hdr as u8;
            1
        } else {
            put_varint(out, hdr as u64)
        };
        let mut b = hdr;
        for (&st, v) in types.iter().zip(values) {
            h += if st < 0x80 {
                out[h] = st as u8;
                1
            } else {
                put_varint(&mut out[h..], st)
            };
            match *v {
                ValueRef::Null => {}
                ValueRef::Integer(i) => {
                    let n = serial_type_len(st).unwrap_or(0) as usize;
                    out[b..b + n].copy_from_slice(&i.to_be_bytes()[8 - n..]);
                    b += n;
                }
                ValueRef::Real(r) => {
                    out[b..b + 8].copy_from_slice(&r.to_bits().to_be_bytes());
                    b += 8;
                }
                ValueRef::Text(t) | ValueRef::Blob(t) => {
                    out[b..b + t.len()].copy_from_slice(t);
                    b += t.len();
                }
            }
        }
    }
}

/// Total header size given the summed size of the serial-type varints: the
/// size varint counts itself.
#[inline]
fn header_size_for(types: usize) -> usize {
    if types <= 126 {
        return types + 1;
    }
    let mut hdr = types + varint_len(types as u64);
    if varint_len(hdr as u64) > varint_len(types as u64) {
        hdr += 1;
    }
    hdr
}

/// The record SQLite would write for `values` (schema format 4).
pub fn encode_record(values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    RecordBuilder::default().build(values.iter().map(Value::as_ref), &mut out);
    out
}

/// The same, from borrowed values.
pub fn encode_record_refs(values: &[ValueRef<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    RecordBuilder::default().build(values.iter().copied(), &mut out);
    out
}

/// A parsed record header: serial types and body offsets of every column.
#[derive(Debug, Clone, Default)]
pub struct RecordHeader {
    /// Header size in bytes (offset of the first value).
    pub header_size: usize,
    /// Serial type per column.
    pub serial_types: Vec<u64>,
    /// Offset in the record of each column's value.
    pub offsets: Vec<usize>,
}

impl RecordHeader {
    /// Parses the header of `record` (the whole payload), checking that every
    /// column lies inside it.
    pub fn parse(record: &[u8]) -> Result<RecordHeader> {
        let mut h = RecordHeader::default();
        h.parse_into(record)?;
        Ok(h)
    }

    /// Parses `record` into this header, reusing its allocations (the VM
    /// decodes one header per row). On error the header is left empty.
    pub fn parse_into(&mut self, record: &[u8]) -> Result<()> {
        let r = self.fill(record);
        if r.is_err() {
            self.serial_types.clear();
            self.offsets.clear();
        }
        r
    }

    fn fill(&mut self, record: &[u8]) -> Result<()> {
        self.header_size = 0;
        self.serial_types.clear();
        self.offsets.clear();
        let (header_size, mut pos) = header_bounds(record)?;
        let mut off = header_size;
        while pos < header_size {
            let (st, len) = next_serial_type(&record[..header_size], &mut pos)?;
            self.serial_types.push(st);
            self.offsets.push(off);
            off = body_end(record, off, len)?;
        }
        // The values must fill the record exactly, as SQLite checks once
        // the whole header has been read.
        if off != record.len() {
            return Err(Error::corrupt());
        }
        self.header_size = header_size;
        Ok(())
    }
}

/// A record's header size and where its first serial type starts,
/// checked against the record.
#[inline]
fn header_bounds(record: &[u8]) -> Result<(usize, usize)> {
    let (hs, pos) = match record.first() {
        Some(&b) if b < 0x80 => (u64::from(b), 1),
        _ => read_varint(record).ok_or_else(Error::corrupt)?,
    };
    if hs as usize > record.len() || (hs as usize) < pos || hs > 98307 {
        return Err(Error::corrupt());
    }
    Ok((hs as usize, pos))
}

/// The serial type at `*pos` of `header` and its value's length; moves
/// `*pos` past it.
#[inline]
fn next_serial_type(header: &[u8], pos: &mut usize) -> Result<(u64, usize)> {
    match header[*pos] {
        b if b < 0x80 => {
            *pos += 1;
            let len = ONE_BYTE_SERIAL_LEN[b as usize];
            if len == u8::MAX {
                return Err(Error::corrupt());
            }
            Ok((u64::from(b), len as usize))
        }
        _ => {
            let (st, n) = read_varint(&header[*pos..]).ok_or_else(Error::corrupt)?;
            *pos += n;
            let len = serial_type_len(st).ok_or_else(Error::corrupt)?;
            Ok((st, usize::try_from(len).map_err(|_| Error::corrupt())?))
        }
    }
}

/// Where a value of `len` bytes at `off` ends, checked to lie inside the
/// record.
#[inline]
fn body_end(record: &[u8], off: usize, len: usize) -> Result<usize> {
    let end = off.checked_add(len).ok_or_else(Error::corrupt)?;
    if end > record.len() {
        return Err(Error::corrupt());
    }
    Ok(end)
}

/// Value lengths of the serial types below 128 (a one-byte header
/// entry); `u8::MAX` would mark a type without a length (none has one).
pub(crate) const ONE_BYTE_SERIAL_LEN: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut st = 0;
    while st < 128 {
        t[st] = match serial_type_len(st as u64) {
            Some(n) => n as u8,
            None => u8::MAX,
        };
        st += 1;
    }
    t
};

/// A record with its header parsed, giving access to its columns.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    data: &'a [u8],
    header: RecordHeader,
}

impl<'a> Record<'a> {
    /// Parses `data` (a complete record payload).
    pub fn parse(data: &'a [u8]) -> Result<Record<'a>> {
        Ok(Record { header: RecordHeader::parse(data)?, data })
    }

    /// Number of columns stored in the record.
    pub fn column_count(&self) -> usize {
        self.header.serial_types.len()
    }

    /// The parsed header.
    pub fn header(&self) -> &RecordHeader {
        &self.header
    }

    /// Column `i`; NULL when the record has fewer columns.
    pub fn column(&self, i: usize) -> Result<ValueRef<'a>> {
        match self.header.serial_types.get(i) {
            None => Ok(ValueRef::Null),
            Some(&st) => decode_value(st, &self.data[self.header.offsets[i]..]),
        }
    }

    /// All stored columns.
    pub fn values(&self) -> Result<Vec<ValueRef<'a>>> {
        (0..self.column_count()).map(|i| self.column(i)).collect()
    }
}

/// Decodes every column of a record into owned values.
///
/// One pass over header and body, with [`RecordHeader::parse`]'s checks but
/// without its two lists: ephemeral indexes decode every key they store.
pub fn decode_record(record: &[u8]) -> Result<Vec<Value>> {
    let (header_size, mut pos) = header_bounds(record)?;
    // Every column takes at least one header byte (capped: a damaged
    // header may claim tens of thousands).
    let mut out = Vec::with_capacity((header_size - pos).min(256));
    let mut off = header_size;
    while pos < header_size {
        let (st, len) = next_serial_type(&record[..header_size], &mut pos)?;
        let end = body_end(record, off, len)?;
        out.push(decode_value(st, &record[off..])?.to_owned());
        off = end;
    }
    if off != record.len() {
        return Err(Error::corrupt());
    }
    Ok(out)
}

/// Walks a record's columns one at a time without allocating: what key
/// comparison needs, since it usually stops at the first field.
struct ColumnIter<'a> {
    data: &'a [u8],
    hdr_pos: usize,
    hdr_end: usize,
    body_pos: usize,
}

impl<'a> ColumnIter<'a> {
    #[inline]
    fn new(data: &'a [u8]) -> Result<Self> {
        let (hs, pos) = match data.first() {
            Some(&b) if b < 0x80 => (u64::from(b), 1),
            _ => read_varint(data).ok_or_else(Error::corrupt)?,
        };
        if hs as usize > data.len() || (hs as usize) < pos {
            return Err(Error::corrupt());
        }
        Ok(ColumnIter { data, hdr_pos: pos, hdr_end: hs as usize, body_pos: hs as usize })
    }

    #[inline]
    fn next_value(&mut self) -> Result<Option<ValueRef<'a>>> {
        if self.hdr_pos >= self.hdr_end {
            return Ok(None);
        }
        let (st, n) = match self.data[self.hdr_pos] {
            b if b < 0x80 => (u64::from(b), 1),
            _ => read_varint(&self.data[self.hdr_pos..self.hdr_end]).ok_or_else(Error::corrupt)?,
        };
        self.hdr_pos += n;
        let len = serial_type_len(st).ok_or_else(Error::corrupt)? as usize;
        let v = decode_value(st, &self.data[self.body_pos..])?;
        self.body_pos += len;
        Ok(Some(v))
    }
}

/// The sorter's and `record_column`'s walks.
impl<'a> ColumnIter<'a> {
    /// The next column's serial type and the record from its body on
    /// (serial type 0, NULL, once the columns run out), checked to hold
    /// the body.
    #[inline]
    fn next_raw(&mut self) -> Result<(u64, &'a [u8])> {
        if self.hdr_pos >= self.hdr_end {
            return Ok((0, &[]));
        }
        let (st, n) = match self.data[self.hdr_pos] {
            b if b < 0x80 => (u64::from(b), 1),
            _ => read_varint(&self.data[self.hdr_pos..self.hdr_end]).ok_or_else(Error::corrupt)?,
        };
        self.hdr_pos += n;
        let len = serial_type_len(st).ok_or_else(Error::corrupt)? as usize;
        let body = self.data.get(self.body_pos..).filter(|b| b.len() >= len).ok_or_else(Error::corrupt)?;
        self.body_pos += len;
        Ok((st, body))
    }

    /// Step over the next column; `false` when there is none.
    fn skip(&mut self) -> Result<bool> {
        if self.hdr_pos >= self.hdr_end {
            return Ok(false);
        }
        let (st, n) = match self.data[self.hdr_pos] {
            b if b < 0x80 => (u64::from(b), 1),
            _ => read_varint(&self.data[self.hdr_pos..self.hdr_end]).ok_or_else(Error::corrupt)?,
        };
        self.hdr_pos += n;
        // (Never past the record: `next_value` slices from here.)
        let end = self.body_pos + serial_type_len(st).ok_or_else(Error::corrupt)? as usize;
        if end > self.data.len() {
            return Err(Error::corrupt());
        }
        self.body_pos = end;
        Ok(true)
    }
}

/// Compares the record `record` with an unpacked `key`, field by field,
/// over the key's fields only; a record that runs out of fields first, or
/// equality over all key fields, gives `Equal` (prefix match). The result
/// is the record's order relative to the key.
pub fn compare_record_with_key(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo) -> Result<Ordering> {
    compare_record_with_key_in(record, key, key_info, TextEncoding::Utf8)
}

/// [`compare_record_with_key`] of a stored record and key whose text is
/// in `enc` (see [`KeyInfo::compare_field_stored`]).
pub fn compare_record_with_key_in(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo, enc: TextEncoding) -> Result<Ordering> {
    let mut it = ColumnIter::new(record)?;
    for (i, k) in key.iter().enumerate() {
        // SQLite reads the serial type of a field compared with a number
        // or NULL as the one header byte: a byte of 0x80 or more (in a
        // sound record, the start of a text or blob type, which sorts
        // after numbers and NULL) makes the record the greater, even
        // where a damaged header's varint reads as a small type.
        if matches!(k, ValueRef::Integer(_) | ValueRef::Real(_) | ValueRef::Null) && it.hdr_pos < it.hdr_end && it.data[it.hdr_pos] >= 0x80 {
            let descending = key_info.fields.get(i).is_some_and(|f| f.descending);
            return Ok(if descending { Ordering::Less } else { Ordering::Greater });
        }
        let Some(v) = it.next_value()? else { return Ok(Ordering::Equal) };
        // Integers with integers (most index probes): no collation or
        // type ranking to consult.
        if let (ValueRef::Integer(a), ValueRef::Integer(b)) = (v, *k) {
            let o = a.cmp(&b);
            if o != Ordering::Equal {
                return Ok(if key_info.fields.get(i).is_some_and(|f| f.descending) { o.reverse() } else { o });
            }
            continue;
        }
        let o = key_info.compare_field_stored(i, v, *k, enc);
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}

/// Compares the first `key.len()` fields of `record` with `key`; fields
/// the record lacks compare as NULL (unlike [`compare_record_with_key`]),
/// as when the record is decoded and compared value by value.
pub fn compare_record_prefix(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo) -> Result<Ordering> {
    let mut it = ColumnIter::new(record)?;
    for (i, k) in key.iter().enumerate() {
        let v = it.next_value()?.unwrap_or(ValueRef::Null);
        let o = key_info.compare_field(i, v, *k);
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}

/// Whether `record` has exactly `key`'s fields, each comparing equal
/// under `key_info` (an index entry and the whole key that names it).
pub fn record_is_key(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo) -> Result<bool> {
    let mut it = ColumnIter::new(record)?;
    for (i, k) in key.iter().enumerate() {
        let Some(v) = it.next_value()? else { return Ok(false) };
        if key_info.compare_field(i, v, *k) != Ordering::Equal {
            return Ok(false);
        }
    }
    Ok(it.hdr_pos >= it.hdr_end)
}

/// [`compare_record_with_key`] with the result to give when every key field
/// matched: SQLite seeks use `Less` or `Greater` here so that a prefix key
/// lands before or after all entries sharing that prefix (`default_rc`).
pub fn compare_record_with_key_default(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo, on_prefix_equal: Ordering) -> Result<Ordering> {
    match compare_record_with_key(record, key, key_info)? {
        Ordering::Equal => Ok(on_prefix_equal),
        other => Ok(other),
    }
}

/// Compares two records as keys, over the fields both have; `Equal` when
/// one is a prefix of the other.
pub fn compare_records(a: &[u8], b: &[u8], key_info: &KeyInfo) -> Result<Ordering> {
    compare_records_in(a, b, key_info, TextEncoding::Utf8)
}

/// [`compare_records`] of stored records whose text is in `enc` (see
/// [`KeyInfo::compare_field_stored`]).
pub fn compare_records_in(a: &[u8], b: &[u8], key_info: &KeyInfo, enc: TextEncoding) -> Result<Ordering> {
    // The usual index probe first: one-byte header sizes and integer
    // first fields that differ, read straight from the bytes.
    if let ([ha, sa, ..], [hb, sb, ..]) = (a, b) {
        if (2..0x80).contains(ha) && (2..0x80).contains(hb) {
            let x = a.get(*ha as usize..).and_then(|body| int_of(u64::from(*sa), body));
            let y = b.get(*hb as usize..).and_then(|body| int_of(u64::from(*sb), body));
            if let (Some(x), Some(y)) = (x, y) {
                let o = x.cmp(&y);
                if o != Ordering::Equal {
                    return Ok(if key_info.fields.first().is_some_and(|f| f.descending) { o.reverse() } else { o });
                }
            }
        }
    }
    let mut ia = ColumnIter::new(a)?;
    let mut ib = ColumnIter::new(b)?;
    let mut i = 0;
    loop {
        if ia.hdr_pos >= ia.hdr_end || ib.hdr_pos >= ib.hdr_end {
            return Ok(Ordering::Equal);
        }
        // Integers with integers (index keys and their rowids, the usual
        // probe of an index insert): compared straight from the bytes.
        let (sa, ba) = ia.next_raw()?;
        let (sb, bb) = ib.next_raw()?;
        if let (Some(x), Some(y)) = (int_of(sa, ba), int_of(sb, bb)) {
            let o = x.cmp(&y);
            if o != Ordering::Equal {
                return Ok(if key_info.fields.get(i).is_some_and(|f| f.descending) { o.reverse() } else { o });
            }
            i += 1;
            continue;
        }
        let o = key_info.compare_field_stored(i, decode_value(sa, ba)?, decode_value(sb, bb)?, enc);
        if o != Ordering::Equal {
            return Ok(o);
        }
        i += 1;
    }
}

/// Compares two records over `key_info`'s fields only (fields past them
/// are ignored; a record with fewer fields reads NULL for the missing
/// ones). The sorter's order: it never allocates, and usually stops at the
/// first field.
pub fn compare_record_keys(a: &[u8], b: &[u8], key_info: &KeyInfo) -> Result<Ordering> {
    // The usual case first: one-byte headers sizes and an integer first
    // key, read straight from the bytes (as SQLite's sorter does).
    if let (Some(f), [ha, sa, ..], [hb, sb, ..]) = (key_info.fields.first(), a, b) {
        if (2..0x80).contains(ha) && (2..0x80).contains(hb) {
            let x = a.get(*ha as usize..).and_then(|body| int_of(u64::from(*sa), body));
            let y = b.get(*hb as usize..).and_then(|body| int_of(u64::from(*sb), body));
            if let (Some(x), Some(y)) = (x, y) {
                let o = x.cmp(&y);
                if o != Ordering::Equal {
                    return Ok(if f.descending { o.reverse() } else { o });
                }
                if key_info.fields.len() == 1 {
                    return Ok(Ordering::Equal);
                }
            }
        }
    }
    let mut ia = ColumnIter::new(a)?;
    let mut ib = ColumnIter::new(b)?;
    for f in &key_info.fields {
        let (sa, ba) = ia.next_raw()?;
        let (sb, bb) = ib.next_raw()?;
        // Integers (the usual sort key) compare without building values.
        let o = match (int_of(sa, ba), int_of(sb, bb)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => compare_values(decode_value(sa, ba)?, decode_value(sb, bb)?, Some(&f.collation)),
        };
        if o != Ordering::Equal {
            return Ok(if f.descending { o.reverse() } else { o });
        }
    }
    Ok(Ordering::Equal)
}

/// The first field of a record when it is an integer with a one-byte
/// header size and serial type: the value `compare_record_keys` reads for
/// field 0 on its fast path (the sorter keeps it beside each record).
#[inline]
pub fn first_int_field(record: &[u8]) -> Option<i64> {
    let [h, st, ..] = record else { return None };
    if !(2..0x80).contains(h) {
        return None;
    }
    record.get(*h as usize..).and_then(|body| int_of(u64::from(*st), body))
}

/// The integer a serial type 1-6, 8 or 9 stores (`body` holds at least its
/// bytes, as `next_raw` guarantees); `None` for every other type.
#[inline]
fn int_of(st: u64, body: &[u8]) -> Option<i64> {
    let n = match st {
        1..=4 => st as usize,
        5 => 6,
        6 => 8,
        8 => return Some(0),
        9 => return Some(1),
        _ => return None,
    };
    let bytes = body.get(..n)?;
    let mut v: i64 = if bytes[0] & 0x80 != 0 { -1 } else { 0 };
    for &x in bytes {
        v = (v << 8) | i64::from(x);
    }
    Some(v)
}

/// Column `col` of a record, walking its header without allocating;
/// `None` when the record has fewer columns (the caller supplies the
/// default). Only the columns before `col` are checked.
#[inline]
pub fn record_column(record: &[u8], col: usize) -> Result<Option<ValueRef<'_>>> {
    let mut it = ColumnIter::new(record)?;
    for _ in 0..col {
        if !it.skip()? {
            return Ok(None);
        }
    }
    it.next_value()
}

/// The value of a collation-less BINARY key field, for callers that build
/// keys from owned values.
pub fn key_refs(values: &[Value]) -> Vec<ValueRef<'_>> {
    values.iter().map(Value::as_ref).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_record_bytes() {
        let rec = encode_record(&[Value::Integer(0), Value::Integer(1), Value::Integer(-1), Value::Null, Value::text("hi"), Value::Real(1.5)]);
        assert_eq!(rec[..7], [7, 8, 9, 1, 0, 17, 7]);
        assert_eq!(rec[7], 0xff);
        assert_eq!(&rec[8..10], b"hi");
        let r = Record::parse(&rec).unwrap();
        assert_eq!(r.column_count(), 6);
        assert!(matches!(r.column(2).unwrap(), ValueRef::Integer(-1)));
        assert!(matches!(r.column(5).unwrap(), ValueRef::Real(x) if x == 1.5));
        assert!(matches!(r.column(9).unwrap(), ValueRef::Null));
    }

    #[test]
    fn corrupt_records_are_errors() {
        for bad in [&[][..], &[5, 1], &[2, 1], &[0x81], &[3, 0x81, 0x80], &[2, 0x8f], &[2, 1, 5, 6], &[0]] {
            let r = Record::parse(bad).and_then(|r| r.values().map(|_| ()));
            assert_eq!(r.map_err(|e| e.code), Err(crate::error::SQLITE_CORRUPT), "{bad:?}");
        }
        // The reserved serial types read as NULL with no body, as in SQLite.
        for reserved in [&[2u8, 10][..], &[2, 11]] {
            let r = Record::parse(reserved).unwrap();
            assert!(matches!(r.column(0).unwrap(), ValueRef::Null), "{reserved:?}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Integer),
            (-300i64..300).prop_map(Value::Integer),
            any::<f64>().prop_filter("NaN reads back as NULL", |r| !r.is_nan()).prop_map(Value::Real),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Text),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Blob),
        ]
    }

    fn same(a: &Value, b: &ValueRef<'_>) -> bool {
        match (a, b) {
            (Value::Real(x), ValueRef::Real(y)) => x.to_bits() == y.to_bits(),
            _ => compare_values(a.as_ref(), *b, None) == Ordering::Equal && a.value_type() == b.value_type(),
        }
    }

    proptest! {
        #[test]
        fn round_trip(values in proptest::collection::vec(value(), 0..70)) {
            let rec = encode_record(&values);
            let parsed = Record::parse(&rec).unwrap();
            prop_assert_eq!(parsed.column_count(), values.len());
            for (i, v) in values.iter().enumerate() {
                prop_assert!(same(v, &parsed.column(i).unwrap()));
            }
            let mut out = Vec::new();
            RecordBuilder::default().build(values.iter().map(Value::as_ref), &mut out);
            prop_assert_eq!(out.len(), RecordBuilder::default().record_len(values.iter().map(Value::as_ref)));
        }

        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), key in proptest::collection::vec(value(), 0..4)) {
            if let Ok(r) = Record::parse(&bytes) {
                for i in 0..r.column_count() + 1 {
                    let _ = r.column(i);
                }
            }
            let keyv: Vec<ValueRef<'_>> = key.iter().map(Value::as_ref).collect();
            let _ = compare_record_with_key(&bytes, &keyv, &KeyInfo::binary(2));
            let _ = compare_records(&bytes, &bytes, &KeyInfo::binary(1));
            let _ = compare_record_keys(&bytes, &bytes, &KeyInfo::binary(3));
            for i in 0..4 {
                let _ = record_column(&bytes, i);
            }
            let _ = decode_record(&bytes);
        }

        #[test]
        fn record_order_is_value_order(a in proptest::collection::vec(value(), 1..4), b in proptest::collection::vec(value(), 1..4)) {
            let (ra, rb) = (encode_record(&a), encode_record(&b));
            let expect = a.iter().zip(&b)
                .map(|(x, y)| compare_values(x.as_ref(), y.as_ref(), None))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal);
            prop_assert_eq!(compare_records(&ra, &rb, &KeyInfo::binary(0)).unwrap(), expect);
            let keyb: Vec<ValueRef<'_>> = b.iter().map(Value::as_ref).collect();
            prop_assert_eq!(compare_record_with_key(&ra, &keyb, &KeyInfo::binary(3)).unwrap(), expect);
            // The sorter's comparison: the key fields only, missing ones NULL.
            for k in 0..5 {
                fn field(r: &[Value], i: usize) -> ValueRef<'_> {
                    r.get(i).map_or(ValueRef::Null, Value::as_ref)
                }
                let want = (0..k).map(|i| compare_values(field(&a, i), field(&b, i), None)).find(|o| *o != Ordering::Equal).unwrap_or(Ordering::Equal);
                prop_assert_eq!(compare_record_keys(&ra, &rb, &KeyInfo::binary(k)).unwrap(), want);
                let mut desc = KeyInfo::binary(k);
                desc.fields.iter_mut().for_each(|f| f.descending = true);
                prop_assert_eq!(compare_record_keys(&ra, &rb, &desc).unwrap(), want.reverse());
            }
        }

        #[test]
        fn first_int_field_is_the_first_integer(values in proptest::collection::vec(value(), 0..4)) {
            let rec = encode_record(&values);
            match (first_int_field(&rec), values.first()) {
                (Some(k), Some(Value::Integer(i))) => prop_assert_eq!(k, *i),
                (Some(k), other) => prop_assert!(false, "{k} from {other:?}"),
                (None, Some(Value::Integer(_))) => prop_assert!(rec[0] >= 0x80, "a small record's integer was missed"),
                (None, _) => {}
            }
        }

        #[test]
        fn record_column_reads_one_column(values in proptest::collection::vec(value(), 0..10), col in 0usize..12) {
            let rec = encode_record(&values);
            let got = record_column(&rec, col).unwrap();
            match values.get(col) {
                Some(v) => prop_assert!(got.is_some_and(|g| same(v, &g))),
                None => prop_assert!(got.is_none()),
            }
        }
    }
}
