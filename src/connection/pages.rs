//! # Raw page images, read-only, for page-level virtual tables
//!
//! `dbstat` (and anything like `sqlite_dbpage` later) describes the
//! B-tree pages of a database file itself, which SQL cannot reach. This is
//! the one public door to them: [`Connection::read_pages`] lends a reader
//! of whole page images of one attached database, inside a read
//! transaction (the one already open, or one opened for the call and
//! ended after it).
//!
//! Invariants: nothing here writes; a read transaction opened here is
//! closed before returning, whatever the reader returned (checked:
//! read_pages_closes).

use super::Connection;
use crate::btree::TxnState;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;

/// What a page reader knows of the database file.
#[derive(Debug, Clone, Copy)]
pub struct PageFile {
    /// Page size in bytes.
    pub page_size: u32,
    /// Bytes of each page the B-tree may use (page size less reserved).
    pub usable_size: u32,
    /// Pages in the database.
    pub page_count: u32,
}

impl Connection {
    /// Call `f` with the facts of database `schema` and a reader of its
    /// page images (page numbers from 1; a page past the end is
    /// `SQLITE_CORRUPT`). `Ok(None)` when no database has that name.
    pub fn read_pages<T>(&mut self, schema: &str, f: impl FnOnce(&PageFile, &mut dyn FnMut(u32) -> Result<Vec<u8>>) -> Result<T>) -> Result<Option<T>> {
        let Some(db) = self.state.dbs.iter().position(|d| d.name.eq_ci(schema)) else {
            return Ok(None);
        };
        let bt = &mut self.state.dbs[db].btree;
        let io = bt.pager().io().clone();
        let started = bt.txn_state() == TxnState::None;
        if started {
            io.block_on(|| bt.begin_read())?;
        }
        let file = PageFile { page_size: bt.page_size(), usable_size: bt.pager().usable_size(), page_count: bt.pager().db_size() };
        let out = {
            let mut read = |pgno: u32| -> Result<Vec<u8>> {
                if pgno == 0 || pgno > file.page_count {
                    return Err(Error::corrupt());
                }
                io.block_on(|| bt.pager_mut().read_page(pgno))
            };
            f(&file, &mut read)
        };
        if started {
            let ended = io.block_on(|| bt.commit());
            // invariant: read_pages_closes
            debug_assert!(ended.is_err() || bt.txn_state() == TxnState::None, "a page reader left its read transaction open");
        }
        out.map(Some)
    }
}
