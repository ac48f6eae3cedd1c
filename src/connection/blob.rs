//! # Incremental blob I/O: `sqlite3_blob_*`
//!
//! A [`Blob`] is an open handle on one TEXT or BLOB value: table, column,
//! rowid. It reads and writes byte ranges of that value without changing
//! its size (`c3ref/blob_open.txt`).
//!
//! Like SQLite's, a handle counts as a running statement of its
//! connection (a writable one as a statement that writes): opening it
//! starts a read (or, for a writable handle, a write) transaction if none
//! is open, and in autocommit mode the write transaction ends when the
//! last statement or handle that writes finishes (the read transaction
//! with the last of all), so writes through a handle are committed by
//! [`Blob::close`] (or the end of a statement that also wrote).
//!
//! The handle keeps what identifies the row as it last saw it (the
//! payload size, the bytes in the cell and the first overflow page: the
//! whole record of a row without overflow pages). Every read and write
//! first finds the row again through a B-tree cursor; if it is gone or
//! differs (another statement changed it), the handle is expired and
//! answers `SQLITE_ABORT` from then on, as SQLite does. Reads copy just
//! the bytes asked for, from the cell and the overflow pages up to them;
//! writes change those bytes in place. So a handle on a gigabyte value
//! needs memory for the bytes it moves, not for the value.

use super::Connection;
use crate::btree::{Btree, Cursor, Pgno, SeekResult, TxnState};
use crate::error::{Error, Result, SQLITE_ABORT, SQLITE_ERROR, SQLITE_READONLY};
use crate::util::ascii::AsciiLower;

/// An open blob handle.
#[derive(Debug)]
pub struct Blob {
    db: usize,
    root: Pgno,
    column: usize,
    writable: bool,
    rowid: i64,
    /// What identifies the row as this handle last read or wrote it
    /// (`Cursor::row_print`).
    print: Vec<u8>,
    /// Where the value lies in `record`: offset and length.
    start: usize,
    len: usize,
    /// The row changed or went away: every call fails with SQLITE_ABORT.
    expired: bool,
    /// Still counted among the connection's running statements.
    open: bool,
    /// The error of the last read or write that reached the row (not a
    /// range error): `close` reports it, like finalizing a statement.
    last_error: Option<i32>,
    /// The table as the pre-update hook describes it, and the column's
    /// index in it: a write is told to the hook as SQLite tells it (a
    /// DELETE whose `sqlite3_preupdate_blobwrite` names the column).
    hooked: (std::sync::Arc<crate::vdbe::program::WrittenTable>, usize),
}

/// SQLite's name for the storage class of serial type `st`.
fn type_name(st: u64) -> &'static str {
    match st {
        0 | 10 | 11 => "null",
        7 => "real",
        1..=9 => "integer",
        _ if st.is_multiple_of(2) => "blob",
        _ => "text",
    }
}

/// A cursor on row `rowid` of the tree at `root`, `None` if there is none.
fn seek_row(bt: &mut Btree, root: Pgno, rowid: i64) -> Result<Option<Cursor>> {
    let mut cursor = Cursor::new(root, false, None);
    if bt.block_on(|b| cursor.seek_rowid(b, rowid))? != SeekResult::Found {
        return Ok(None);
    }
    Ok(Some(cursor))
}

impl Connection {
    /// `sqlite3_blob_open`: a handle on column `column` of row `rowid` of
    /// `db.table`.
    pub fn blob_open(&mut self, db: &str, table: &str, column: &str, rowid: i64, writable: bool) -> Result<Blob> {
        self.ensure_schema()?;
        let db_index = self.state.dbs.iter().position(|d| d.name.eq_ci(db)).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such table: {db}.{table}")))?;
        let schema = &self.schemas[db_index];
        let t = schema.table(table).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such table: {db}.{table}")))?;
        if t.virtual_table.is_some() {
            return Err(Error::new(SQLITE_ERROR, format!("cannot open virtual table: {table}")));
        }
        if t.view_select.is_some() {
            return Err(Error::new(SQLITE_ERROR, format!("cannot open view: {}", t.name)));
        }
        if t.without_rowid.is_some() {
            return Err(Error::new(SQLITE_ERROR, format!("cannot open table without rowid: {}", t.name)));
        }
        let col = t.columns.iter().position(|c| c.name.eq_ci(column)).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such column: \"{column}\"")))?;
        if writable {
            let indexed = schema.indexes_of(t).iter().any(|ix| ix.columns.iter().any(|c| c.column.is_none_or(|x| x == col)))
                || t.auto_indexes.iter().any(|(cols, _)| cols.iter().any(|(c, _, _)| *c == col));
            if indexed {
                return Err(Error::new(SQLITE_ERROR, "cannot open indexed column for writing"));
            }
            if self.state.dbs[db_index].read_only {
                return Err(Error::code(SQLITE_READONLY));
            }
        }
        let root = t.root;
        let hooked = match crate::sql::codegen::dml::dml_common::written_table(t, 0) {
            crate::vdbe::program::P4::Table(w) => (w, col),
            _ => unreachable!("written_table gives a table operand"),
        };
        // The value's field in the record (VIRTUAL columns have none).
        let col = t.field_of(col).unwrap_or(usize::MAX);
        let bt = &mut self.state.dbs[db_index].btree;
        if writable {
            if bt.txn_state() != TxnState::Write {
                bt.block_on(|b| b.begin_write(false))?;
            }
        } else if bt.txn_state() == TxnState::None {
            bt.block_on(|b| b.begin_read())?;
        }
        self.state.active_statements += 1;
        self.state.writing_statements += usize::from(writable);
        let mut blob = Blob {
            db: db_index,
            root,
            column: col,
            writable,
            rowid,
            print: Vec::new(),
            start: 0,
            len: 0,
            expired: false,
            open: true,
            last_error: None,
            hooked,
        };
        if let Err(e) = blob.load(self, rowid) {
            let _ = blob.close(self);
            return Err(e);
        }
        Ok(blob)
    }
}

impl Blob {
    /// Position on `rowid` and find the value; errors as `blob_open`.
    fn load(&mut self, conn: &mut Connection, rowid: i64) -> Result<()> {
        let bt = &mut conn.state.dbs[self.db].btree;
        let mut cursor = seek_row(bt, self.root, rowid)?.ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such rowid: {rowid}")))?;
        let (st, start) = match bt.block_on(|b| cursor.column_location(b, self.column))? {
            Some((st, start, _)) => (st, start),
            None => (0, 0),
        };
        if st < 12 {
            return Err(Error::new(SQLITE_ERROR, format!("cannot open value of type {}", type_name(st))));
        }
        self.start = start;
        self.len = ((st - 12) / 2) as usize;
        self.print = bt.block_on(|b| cursor.row_print(b))?;
        self.rowid = rowid;
        self.expired = false;
        Ok(())
    }

    /// Size of the value in bytes.
    pub fn bytes(&self) -> usize {
        if self.expired {
            0
        } else {
            self.len
        }
    }

    /// A cursor on the row; fails with SQLITE_ABORT if the row changed
    /// since this handle saw it.
    fn check_current(&mut self, conn: &mut Connection) -> Result<Cursor> {
        if self.expired || !self.open {
            return Err(Error::code(SQLITE_ABORT));
        }
        let bt = &mut conn.state.dbs[self.db].btree;
        if let Some(mut cursor) = seek_row(bt, self.root, self.rowid)? {
            if bt.block_on(|b| cursor.row_print(b))? == self.print {
                return Ok(cursor);
            }
        }
        self.expired = true;
        Err(Error::code(SQLITE_ABORT))
    }

    fn range(&self, offset: i64, n: i64) -> Result<std::ops::Range<usize>> {
        if offset < 0 || n < 0 || offset + n > self.len as i64 {
            return Err(Error::code(SQLITE_ERROR));
        }
        Ok(self.start + offset as usize..self.start + (offset + n) as usize)
    }

    /// Copy `buf.len()` bytes from `offset` into `buf`.
    pub fn read(&mut self, conn: &mut Connection, offset: i64, buf: &mut [u8]) -> Result<()> {
        // SQLite's order: the range (against the size last seen), then
        // expiry, then the row itself.
        let r = self.range(offset, buf.len() as i64)?;
        let mut cursor = self.check_current(conn)?;
        let bt = &mut conn.state.dbs[self.db].btree;
        let (mut progress, mut out) = (None, Vec::with_capacity(buf.len()));
        bt.block_on(|b| cursor.read_payload_range(b, r.start, r.end, &mut progress, &mut out))?;
        buf.copy_from_slice(&out);
        self.last_error = None;
        Ok(())
    }

    /// Overwrite `data.len()` bytes at `offset`.
    pub fn write(&mut self, conn: &mut Connection, offset: i64, data: &[u8]) -> Result<()> {
        let r = self.range(offset, data.len() as i64)?;
        let mut cursor = self.check_current(conn)?;
        if !self.writable {
            self.last_error = Some(SQLITE_READONLY);
            return Err(Error::code(SQLITE_READONLY));
        }
        if let Some(hook) = conn.state.preupdate_hook.clone() {
            self.tell_preupdate_hook(conn, &hook)?;
        }
        let bt = &mut conn.state.dbs[self.db].btree;
        let mut progress = None;
        let written = bt.block_on(|b| cursor.overwrite_payload(b, r.start, data, &mut progress)).and_then(|()| bt.block_on(|b| cursor.row_print(b)));
        match written {
            Ok(print) => self.print = print,
            Err(e) => {
                self.last_error = Some(e.code);
                return Err(e);
            }
        }
        self.last_error = None;
        Ok(())
    }

    /// Tell the pre-update hook of a write about to be made (lent the
    /// connection, as for statements).
    fn tell_preupdate_hook(&self, conn: &mut Connection, hook: &crate::vdbe::exec::preupdate::PreUpdateHook) -> Result<()> {
        use crate::vdbe::exec::preupdate::{row_of_record, PreUpdate};
        let (table, column) = &self.hooked;
        if !table.preupdate {
            return Ok(());
        }
        // (The whole row is read only for the hook.)
        let bt = &mut conn.state.dbs[self.db].btree;
        let Some(mut cursor) = seek_row(bt, self.root, self.rowid)? else { return Ok(()) };
        let record = bt.block_on(|b| cursor.payload(b).map(|p| p.map(<[u8]>::to_vec)))?;
        let old = row_of_record(table, crate::value::record::decode_record(&record)?, self.rowid);
        let db = conn.state.dbs[self.db].name.clone();
        let event = PreUpdate {
            op: 9, // SQLITE_DELETE: SQLite's code for a blob write
            db: &db,
            table: &table.name,
            key1: self.rowid,
            key2: self.rowid,
            old: Some(old),
            new: None,
            depth: 0,
            blob_write: *column as i32,
            without_rowid: false,
        };
        crate::vdbe::host::lend(conn, |h| hook(h, &event));
        Ok(())
    }

    /// Move the handle to row `rowid` of the same table and column.
    pub fn reopen(&mut self, conn: &mut Connection, rowid: i64) -> Result<()> {
        if !self.open || self.expired {
            return Err(Error::code(SQLITE_ABORT));
        }
        match self.load(conn, rowid) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.expired = true;
                Err(e)
            }
        }
    }

    /// Close the handle; in autocommit mode the last running statement or
    /// handle that writes ends the write transaction (committing blob
    /// writes), into a read one while other statements run
    /// (`ConnState::ends_txn`, `others_reading`).
    pub fn close(&mut self, conn: &mut Connection) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let ends = conn.state.ends_txn(self.writable);
        let to_read = conn.state.others_reading();
        conn.state.active_statements = conn.state.active_statements.saturating_sub(1);
        if self.writable {
            conn.state.writing_statements = conn.state.writing_statements.saturating_sub(1);
        }
        if ends {
            let mut result = Ok(());
            for d in conn.state.dbs.iter_mut() {
                if d.btree.txn_state() != TxnState::None {
                    let r = d.btree.block_on(|b| b.commit_ending(to_read));
                    if r.is_err() {
                        let _ = d.btree.block_on(|b| b.rollback_ending(to_read));
                        result = result.and(r);
                    }
                }
            }
            result?;
        }
        match self.last_error {
            Some(code) => Err(Error::code(code)),
            None => Ok(()),
        }
    }
}
