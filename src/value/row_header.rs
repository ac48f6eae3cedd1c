//! # A record header read only as far as the columns asked for
//!
//! [`RowHeader`] is what a B-tree cursor keeps of its current entry's
//! record header: the serial types and body offsets of the columns read so
//! far. Reading column `i` parses the header up to entry `i` and no
//! further, and a second read of the same entry's columns parses nothing
//! (SQLite's `OP_Column` keeps its `aType`/`aOffset` the same way).
//!
//! Corruption is found as SQLite finds it: a header size beyond the record
//! (or above 98307), a varint running off the header, or a body that ends
//! past the record are `SQLITE_CORRUPT` as soon as the entry concerned is
//! parsed (the reserved serial types 10 and 11 read as NULL); the check
//! that the bodies fill the record exactly is made when the last header
//! entry has been parsed. A header size of 0 is a record of no columns
//! (SQLite reads it so: every column is then its default). So a
//! record damaged after the columns a statement reads reads like in
//! SQLite, without an error.
//!
//! Invariants: `cols` has one entry (serial type, record offset of its
//! value) per header entry parsed, and every parsed value ends within the
//! record (checked: row_header_bounds); `pos` is the header offset of the
//! next entry and `body` the record offset of its value; `header_size == 0`
//! means nothing is parsed for the current record (a real header is at
//! least one byte).

use super::record::{serial_type_len, ONE_BYTE_SERIAL_LEN};
use super::varint::read_varint;
use crate::error::{Error, Result};

/// Largest header size SQLite accepts (`OP_Column`'s sanity limit).
const MAX_HEADER_SIZE: u64 = 98307;

/// Largest header [`RowHeader::parse_small`] parses whole.
const SMALL_HEADER: usize = 32;

/// Body length of each one-byte serial type; `u8::MAX` for a reserved
/// type and for a first varint byte with more to follow (>= 0x80).
const SERIAL_LEN_OR_MAX: [u8; 256] = {
    let mut t = [u8::MAX; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = ONE_BYTE_SERIAL_LEN[b];
        b += 1;
    }
    t
};

/// The part of a record's header parsed so far. See the module doc.
#[derive(Debug, Default, Clone)]
pub struct RowHeader {
    /// The header's size (offset of the first value); 0: not read yet.
    header_size: u32,
    /// Header offset of the next serial type to parse.
    pos: u32,
    /// Record offset of the next column's value.
    body: u32,
    /// Per parsed column: its serial type in the high 32 bits, the record
    /// offset of its value in the low 32 (one store per column; a serial
    /// type above `u32::MAX` would describe a value longer than any record
    /// and is corrupt).
    cols: Vec<u64>,
}

impl RowHeader {
    /// Forget the parsed entries: the record changed.
    #[inline]
    pub fn reset(&mut self) {
        self.header_size = 0;
        self.cols.clear();
    }

    /// Serial type and record offset of column `i` of `record` (the record
    /// this header was reset for), parsing the header as far as `i`;
    /// `None` when the record has fewer columns.
    #[inline]
    pub fn column(&mut self, record: &[u8], i: usize) -> Result<Option<(u64, usize)>> {
        match self.cols.get(i) {
            Some(&c) => Ok(Some((c >> 32, c as u32 as usize))),
            None => self.parse_to(record, i),
        }
    }

    /// Number of columns of `record` (the whole header parsed).
    pub fn count(&mut self, record: &[u8]) -> Result<usize> {
        self.parse_to(record, usize::MAX)?;
        Ok(self.cols.len())
    }

    /// Read the header's size: the first step of parsing a record.
    fn start(&mut self, record: &[u8]) -> Result<()> {
        let (hs, n) = match record.first() {
            Some(&b) if b < 0x80 => (u64::from(b), 1),
            _ => read_varint(record).ok_or_else(Error::corrupt)?,
        };
        if hs == 0 && record.len() <= u32::MAX as usize {
            // SQLite reads a header size of 0 (in any varint length) as a
            // record of no columns, whatever follows it: the header is
            // taken as all parsed, and its body as filling the record.
            self.header_size = n as u32;
            self.pos = n as u32;
            self.body = record.len() as u32;
            return Ok(());
        }
        if hs > MAX_HEADER_SIZE || hs as usize > record.len() || (hs as usize) < n || record.len() > u32::MAX as usize {
            return Err(Error::corrupt());
        }
        self.header_size = hs as u32;
        self.pos = n as u32;
        self.body = hs as u32;
        Ok(())
    }

    /// The usual record of a scan in one pass: a header of at most
    /// [`SMALL_HEADER`] bytes, each serial type one byte, whose values fill
    /// the record exactly. All its entries are parsed (a few more than the
    /// columns asked for cost less than stopping to ask). `false` (nothing
    /// parsed) for any other record, which the general path then reads,
    /// finding any damage where and as it does.
    #[inline]
    fn parse_small(&mut self, record: &[u8]) -> bool {
        let Some(&hs) = record.first() else { return false };
        let hs = usize::from(hs);
        let Some(types) = record.get(1..hs).filter(|_| hs <= SMALL_HEADER) else { return false };
        let mut body = hs as u64;
        for &b in types {
            let len = SERIAL_LEN_OR_MAX[usize::from(b)];
            if len == u8::MAX {
                self.cols.clear();
                return false;
            }
            self.cols.push(u64::from(b) << 32 | body);
            body += u64::from(len);
        }
        if body != record.len() as u64 {
            self.cols.clear();
            return false;
        }
        self.header_size = hs as u32;
        self.pos = hs as u32;
        self.body = body as u32;
        true
    }

    /// Parse entries until column `i` is parsed or the header ends.
    // (Inline: once per row of a scan, from the column read.)
    #[inline]
    fn parse_to(&mut self, record: &[u8], i: usize) -> Result<Option<(u64, usize)>> {
        if self.header_size == 0 {
            if self.parse_small(record) {
                return Ok(self.cols.get(i).map(|&c| (c >> 32, c as u32 as usize)));
            }
            self.start(record)?;
        }
        // (`start` keeps `pos <= header_size <= record.len()`.)
        let header = record.get(..self.header_size as usize).ok_or_else(Error::corrupt)?;
        let (mut pos, mut body) = (self.pos as usize, self.body as u64);
        while pos < header.len() {
            let b = header[pos];
            let (st, len) = if b < 0x80 {
                pos += 1;
                match ONE_BYTE_SERIAL_LEN[b as usize] {
                    u8::MAX => return self.damaged(),
                    len => (u64::from(b), u64::from(len)),
                }
            } else {
                match read_varint(&header[pos..]) {
                    Some((st, n)) if st <= u64::from(u32::MAX) && st >= 12 => {
                        pos += n;
                        (st, (st - 12) / 2)
                    }
                    // (Small types spelled with more bytes than needed.)
                    Some((st, n)) if st < 12 => match serial_type_len(st) {
                        Some(len) => {
                            pos += n;
                            (st, len)
                        }
                        None => return self.damaged(),
                    },
                    _ => return self.damaged(),
                }
            };
            let end = body + len;
            // invariant: row_header_bounds
            if end > record.len() as u64 {
                return self.damaged();
            }
            self.cols.push(st << 32 | body);
            body = end;
            if self.cols.len() > i {
                if pos == header.len() && body != record.len() as u64 {
                    return self.damaged();
                }
                self.pos = pos as u32;
                self.body = body as u32;
                return Ok(Some((st, (self.cols[i] as u32) as usize)));
            }
        }
        // The values fill the record exactly, once the header is all read.
        if body != record.len() as u64 {
            return self.damaged();
        }
        self.pos = pos as u32;
        self.body = body as u32;
        Ok(None)
    }

    /// The record is corrupt; the next read parses it again (and finds the
    /// same damage).
    #[cold]
    fn damaged(&mut self) -> Result<Option<(u64, usize)>> {
        self.reset();
        Err(Error::corrupt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::record::{encode_record, RecordHeader};
    use crate::value::Value;

    fn ops(record: &[u8], order: &[usize]) -> Vec<Result<Option<(u64, usize)>>> {
        let mut h = RowHeader::default();
        h.reset();
        order.iter().map(|&i| h.column(record, i)).collect()
    }

    #[test]
    fn columns_in_any_order_match_a_full_parse() {
        let big = "x".repeat(300);
        let rec = encode_record(&[Value::Null, Value::Integer(7), Value::text(big), Value::Real(1.5), Value::Integer(1 << 40), Value::Blob(vec![1, 2, 3])]);
        let full = RecordHeader::parse(&rec).unwrap();
        for order in [vec![0, 1, 2, 3, 4, 5], vec![5, 0, 3], vec![2, 2, 1, 4], vec![6, 0]] {
            for (i, got) in order.iter().zip(ops(&rec, &order)) {
                let want = full.serial_types.get(*i).map(|&st| (st, full.offsets[*i]));
                assert_eq!(got.unwrap(), want, "column {i} of order {order:?}");
            }
        }
        let mut h = RowHeader::default();
        assert_eq!(h.count(&rec).unwrap(), 6);
    }

    #[test]
    fn a_small_header_parsed_whole_answers_as_the_lazy_parse() {
        let rec = encode_record(&[Value::Integer(-3), Value::text("abc"), Value::Null, Value::Integer(1 << 20), Value::Real(2.5)]);
        let full = RecordHeader::parse(&rec).unwrap();
        for order in [vec![2, 0, 4], vec![4, 5], vec![0]] {
            for (i, got) in order.iter().zip(ops(&rec, &order)) {
                let want = full.serial_types.get(*i).map(|&st| (st, full.offsets[*i]));
                assert_eq!(got.unwrap(), want, "column {i} of order {order:?}");
            }
        }
        assert_eq!(RowHeader::default().count(&rec).unwrap(), 5);
    }

    #[test]
    fn damage_past_the_columns_read_is_found_only_when_reached() {
        let mut rec = encode_record(&[Value::Integer(1), Value::text("abc"), Value::Integer(300)]);
        // The last body ends past the record.
        rec.pop();
        assert_eq!(ops(&rec, &[0, 1]).into_iter().map(|r| r.is_ok()).collect::<Vec<_>>(), vec![true, true]);
        assert!(ops(&rec, &[2])[0].is_err());
        // The record is longer than its values.
        let mut rec = encode_record(&[Value::Integer(1), Value::Integer(2)]);
        rec.push(0);
        assert!(ops(&rec, &[0])[0].is_ok());
        assert!(ops(&rec, &[1])[0].is_err());
        assert!(RowHeader::default().count(&rec).is_err());
        // A header size of 0, in one byte or two, is a record of no
        // columns whatever follows; 1 in two bytes is corrupt.
        for rec in [&[0u8, 1, 2][..], &[0x80, 0, 1, 2]] {
            assert!(matches!(ops(rec, &[0])[0], Ok(None)));
            assert_eq!(RowHeader::default().count(rec).unwrap(), 0);
        }
        assert!(ops(&[0x80, 1, 1], &[0])[0].is_err());
        // A reserved serial type reads as NULL (as in SQLite); a header
        // larger than the record and an empty record are corrupt.
        assert!(ops(&[2, 10], &[0])[0].is_ok());
        assert!(ops(&[5, 1], &[0])[0].is_err());
        assert!(ops(&[], &[0])[0].is_err());
        // A header varint running off the header's end.
        assert!(ops(&[2, 0x81, 0x01], &[0])[0].is_err());
    }
}
