//! # Database images: `sqlite3_serialize` and `sqlite3_deserialize`
//!
//! [`Connection::serialize`] returns the bytes a database file would hold:
//! every page as this connection sees it (for a file database, read through
//! the pager in a read transaction, so the image is consistent). An empty
//! database first gets its page 1, as SQLite does, so that the image is
//! always a valid database.
//!
//! [`Connection::deserialize`] replaces one schema's database with a
//! private in-memory database holding a copy of the given image. The old
//! database (a file's handle and locks included) is dropped; the schema is
//! reloaded on next use. The engine always copies the image: the C API's
//! `SQLITE_DESERIALIZE_FREEONCLOSE`/`RESIZEABLE` only decide who frees the
//! caller's buffer, and `SQLITE_SERIALIZE_NOCOPY` is answered with NULL
//! (allowed: the image is not one contiguous buffer the caller could use).
//!
//! Invariant: deserialize never runs inside a transaction on that
//! database (`SQLITE_BUSY`, as SQLite); serialize joins an open one, or
//! opens a read transaction of its own and closes it before returning
//! (checked: serialize_txn).

use super::Connection;
use crate::btree::{Btree, BtreeOptions, TxnState};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_ERROR};
use crate::util::ascii::AsciiLower;

impl Connection {
    fn schema_index(&self, schema: Option<&str>) -> Option<usize> {
        let name = schema.unwrap_or("main");
        self.state.dbs.iter().position(|d| d.name.eq_ci(name))
    }

    /// The image of database `schema` (default "main"); `None` if there is
    /// no such database.
    pub fn serialize(&mut self, schema: Option<&str>) -> Result<Option<Vec<u8>>> {
        let Some(i) = self.schema_index(schema) else { return Ok(None) };
        let bt = &mut self.state.dbs[i].btree;
        let started = bt.txn_state() == TxnState::None;
        if started {
            bt.block_on(|b| b.begin_read())?;
        }
        let result = (|| {
            if bt.pager().db_size() == 0 && !bt.pager().read_only() && started {
                // An empty database becomes a one-page one (SQLite runs
                // `BEGIN IMMEDIATE; COMMIT` here).
                bt.block_on(|b| b.pager_mut().begin_write(false))?;
                bt.block_on(|b| b.commit())?;
                bt.block_on(|b| b.begin_read())?;
            }
            let pages = bt.pager().db_size();
            let mut image = Vec::with_capacity(pages as usize * bt.page_size() as usize);
            for pgno in 1..=pages {
                image.extend_from_slice(&bt.block_on(|b| b.pager_mut().read_page(pgno))?);
            }
            Ok(image)
        })();
        if started {
            let bt = &mut self.state.dbs[i].btree;
            let ended = bt.block_on(|b| b.commit());
            // invariant: serialize_txn
            debug_assert!(ended.is_err() || bt.txn_state() == TxnState::None, "serialize left its read transaction open");
        }
        result.map(Some)
    }

    /// Replace database `schema` (default "main") with an in-memory copy of
    /// `image`, read-only if asked.
    pub fn deserialize(&mut self, schema: Option<&str>, image: &[u8], read_only: bool) -> Result<()> {
        let Some(i) = self.schema_index(schema) else {
            return Err(Error::code(SQLITE_ERROR));
        };
        if i == 1 {
            // TEMP cannot be replaced (SQLite's rule).
            return Err(Error::code(SQLITE_ERROR));
        }
        // invariant: serialize_txn
        if self.state.dbs[i].btree.txn_state() != TxnState::None || self.state.active_statements > 0 {
            return Err(Error::code(SQLITE_BUSY));
        }
        let opts = BtreeOptions { read_only, create: true, memory: true, immutable: false, shared: false };
        let mut bt = Btree::open(&self.state.io, "", opts)?;
        bt.pager_mut().replace_content(image)?;
        let db = &mut self.state.dbs[i];
        db.btree = bt;
        db.path = String::new();
        db.read_only = read_only;
        if i == 0 {
            self.memory = true;
        }
        self.schema_loaded = false;
        Ok(())
    }
}
