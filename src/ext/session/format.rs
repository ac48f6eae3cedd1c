//! # Changesets and patchsets: the model and its bytes
//!
//! A changeset is a sequence of tables, each a header followed by its
//! changes. Header: `'T'` (changeset) or `'P'` (patchset), a varint column
//! count, one byte per column (0, or the column's 1-based position in the
//! PRIMARY KEY), the table name and a NUL. Change: the operation
//! (`SQLITE_INSERT` 18, `SQLITE_UPDATE` 23, `SQLITE_DELETE` 9), an
//! "indirect" byte, then records of fields (`value.rs`):
//!
//! | op     | changeset                   | patchset                          |
//! |--------|-----------------------------|-----------------------------------|
//! | INSERT | new row                     | new row                           |
//! | DELETE | old row                     | key columns only                  |
//! | UPDATE | old (key and changed), new (changed) | one record: key and new changed |
//!
//! In memory a [`Change`] always has `old` and `new` vectors of the table's
//! width (empty for the side the operation has not); undefined fields are
//! `None`. The reader widens patchset records to that shape and the writer
//! narrows them back, so every other module sees one shape.
//!
//! Invariant: `write_change(read(x)) == x` for well-formed input, such as
//! every change written (checked: session_change_round_trip); the reader
//! reports damage as `SQLITE_CORRUPT` and never reads past the end.

use super::value::{corrupt, decode, encode, Field};
use crate::error::Result;
use crate::value::varint::{read_varint, write_varint};
use std::sync::Arc;

/// `SQLITE_INSERT`.
pub const OP_INSERT: i32 = 18;
/// `SQLITE_UPDATE`.
pub const OP_UPDATE: i32 = 23;
/// `SQLITE_DELETE`.
pub const OP_DELETE: i32 = 9;

/// What a changeset says of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The table's name.
    pub name: String,
    /// Per column: 0, or its 1-based position in the PRIMARY KEY.
    pub pk: Vec<u8>,
}

impl Table {
    /// Number of columns.
    pub fn width(&self) -> usize {
        self.pk.len()
    }

    /// Whether column `i` belongs to the key.
    pub fn is_key(&self, i: usize) -> bool {
        self.pk.get(i).is_some_and(|p| *p != 0)
    }
}

/// One change to one row.
#[derive(Clone, Debug)]
pub struct Change {
    /// `OP_INSERT`, `OP_UPDATE` or `OP_DELETE`.
    pub op: i32,
    /// Made by a trigger, a foreign key action or an indirect session.
    pub indirect: bool,
    /// The row before (UPDATE, DELETE), else empty.
    pub old: Vec<Field>,
    /// The row after (INSERT, UPDATE), else empty.
    pub new: Vec<Field>,
}

impl Change {
    /// The key values of the row changed (from `new` for an INSERT).
    pub fn key<'a>(&'a self, t: &Table) -> Vec<&'a crate::value::Value> {
        let row = if self.op == OP_INSERT { &self.new } else { &self.old };
        (0..t.width()).filter(|i| t.is_key(*i)).filter_map(|i| row.get(i).and_then(|f| f.as_ref())).collect()
    }
}

/// Append a table header.
pub fn write_table(out: &mut Vec<u8>, patchset: bool, t: &Table) {
    out.push(if patchset { b'P' } else { b'T' });
    write_varint(out, t.width() as u64);
    out.extend_from_slice(&t.pk);
    out.extend_from_slice(t.name.as_bytes());
    out.push(0);
}

/// Append a change of table `t`.
pub fn write_change(out: &mut Vec<u8>, patchset: bool, t: &Table, c: &Change) {
    #[cfg(debug_assertions)]
    let start = out.len();
    encode_change(out, patchset, t, c);
    #[cfg(debug_assertions)]
    debug_round_trip(patchset, t, &out[start..]);
}

/// Debug builds: the change just written (`bytes`) reads back as a change
/// that is written as the same bytes.
#[cfg(debug_assertions)]
fn debug_round_trip(patchset: bool, t: &Table, bytes: &[u8]) {
    let mut buf = Vec::new();
    write_table(&mut buf, patchset, t);
    buf.extend_from_slice(bytes);
    let mut again = Vec::new();
    if let Ok(Some(it)) = Reader::new(buf, false).next_item() {
        encode_change(&mut again, patchset, t, &it.change);
    }
    // invariant: session_change_round_trip
    debug_assert!(again == bytes, "change of {} does not read back as written: {bytes:02x?} -> {again:02x?}", t.name);
}

fn encode_change(out: &mut Vec<u8>, patchset: bool, t: &Table, c: &Change) {
    out.push(c.op as u8);
    out.push(u8::from(c.indirect));
    let none: Field = None;
    let at = |row: &'_ Vec<Field>, i: usize| -> Field { row.get(i).cloned().unwrap_or(None) };
    match c.op {
        OP_INSERT => (0..t.width()).for_each(|i| encode(out, &at(&c.new, i))),
        OP_DELETE if patchset => (0..t.width()).filter(|i| t.is_key(*i)).for_each(|i| encode(out, &at(&c.old, i))),
        OP_DELETE => (0..t.width()).for_each(|i| encode(out, &at(&c.old, i))),
        _ if patchset => (0..t.width()).for_each(|i| encode(out, if t.is_key(i) { c.old.get(i).unwrap_or(&none) } else { c.new.get(i).unwrap_or(&none) })),
        _ => {
            (0..t.width()).for_each(|i| encode(out, &at(&c.old, i)));
            (0..t.width()).for_each(|i| encode(out, &at(&c.new, i)));
        }
    }
}

/// One change read, with its table.
#[derive(Clone, Debug)]
pub struct Item {
    /// The table of the change (shared by its table's changes).
    pub table: Arc<Table>,
    /// Whether the table's header said patchset.
    pub patchset: bool,
    /// The change.
    pub change: Change,
}

/// Reads changes one by one from a whole changeset in memory.
pub struct Reader {
    buf: Vec<u8>,
    at: usize,
    table: Option<(Arc<Table>, bool)>,
    invert: bool,
}

impl Reader {
    /// A reader of `buf`; `invert` turns each change into its inverse as
    /// it is read (an error for a patchset).
    pub fn new(buf: Vec<u8>, invert: bool) -> Reader {
        Reader { buf, at: 0, table: None, invert }
    }

    /// The next change, `None` at the end.
    pub fn next_item(&mut self) -> Result<Option<Item>> {
        loop {
            let Some(&b) = self.buf.get(self.at) else {
                return Ok(None);
            };
            if b == b'T' || b == b'P' {
                self.at += 1;
                self.read_header(b == b'P')?;
                continue;
            }
            let Some((table, patchset)) = self.table.clone() else {
                return Err(corrupt());
            };
            let op = i32::from(b);
            let indirect = *self.buf.get(self.at + 1).ok_or_else(corrupt)? != 0;
            self.at += 2;
            let n = table.width();
            let mut old = Vec::new();
            let mut new = Vec::new();
            match op {
                OP_INSERT => new = self.record(n)?,
                OP_DELETE if patchset => {
                    old = vec![None; n];
                    for (i, slot) in old.iter_mut().enumerate() {
                        if table.is_key(i) {
                            *slot = decode(&self.buf, &mut self.at)?;
                        }
                    }
                }
                OP_DELETE => old = self.record(n)?,
                OP_UPDATE if patchset => {
                    let rec = self.record(n)?;
                    old = vec![None; n];
                    new = vec![None; n];
                    for (i, f) in rec.into_iter().enumerate() {
                        if table.is_key(i) {
                            old[i] = f;
                        } else {
                            new[i] = f;
                        }
                    }
                }
                OP_UPDATE => {
                    old = self.record(n)?;
                    new = self.record(n)?;
                }
                _ => return Err(corrupt()),
            }
            let mut change = Change { op, indirect, old, new };
            if self.invert {
                if patchset {
                    return Err(corrupt());
                }
                change = invert(change);
            }
            return Ok(Some(Item { table, patchset, change }));
        }
    }

    fn record(&mut self, n: usize) -> Result<Vec<Field>> {
        (0..n).map(|_| decode(&self.buf, &mut self.at)).collect()
    }

    fn read_header(&mut self, patchset: bool) -> Result<()> {
        let (n, used) = read_varint(self.buf.get(self.at..).unwrap_or(&[])).ok_or_else(corrupt)?;
        self.at += used;
        let n = usize::try_from(n).ok().filter(|n| *n > 0 && *n <= 32767).ok_or_else(corrupt)?;
        let pk = self.buf.get(self.at..self.at + n).ok_or_else(corrupt)?.to_vec();
        self.at += n;
        let rest = self.buf.get(self.at..).unwrap_or(&[]);
        let end = rest.iter().position(|b| *b == 0).ok_or_else(corrupt)?;
        let name = String::from_utf8_lossy(&rest[..end]).into_owned();
        self.at += end + 1;
        self.table = Some((Arc::new(Table { name, pk }), patchset));
        Ok(())
    }
}

/// The inverse of a changeset change: INSERT and DELETE swap, an UPDATE
/// trades its old and new values (keys stay on the old side).
pub fn invert(c: Change) -> Change {
    match c.op {
        OP_INSERT => Change { op: OP_DELETE, indirect: c.indirect, old: c.new, new: Vec::new() },
        OP_DELETE => Change { op: OP_INSERT, indirect: c.indirect, old: Vec::new(), new: c.old },
        _ => {
            let (old, new) = c.old.into_iter().zip(c.new).map(|(o, n)| if n.is_some() { (n, o) } else { (o, None) }).unzip();
            Change { op: OP_UPDATE, indirect: c.indirect, old, new }
        }
    }
}

/// Read a whole changeset into its items.
pub fn read_all(buf: &[u8], invert: bool) -> Result<Vec<Item>> {
    let mut r = Reader::new(buf.to_vec(), invert);
    let mut items = Vec::new();
    while let Some(i) = r.next_item()? {
        items.push(i);
    }
    Ok(items)
}

/// Write items back out, a header each time the table changes.
pub fn write_all(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last: Option<&Arc<Table>> = None;
    for it in items {
        if !last.is_some_and(|t| Arc::ptr_eq(t, &it.table)) {
            write_table(&mut out, it.patchset, &it.table);
            last = Some(&it.table);
        }
        write_change(&mut out, it.patchset, &it.table, &it.change);
    }
    out
}
