//! # What `sqlite3_file_control` asks of a database's pager and B-tree
//!
//! SQLite answers a few file-control opcodes in its core, above the VFS:
//! the data version (`SQLITE_FCNTL_DATA_VERSION`), the reserved bytes per
//! page (`SQLITE_FCNTL_RESERVE_BYTES`) and dropping the page cache
//! (`SQLITE_FCNTL_RESET_CACHE`). The C API reaches them here by schema
//! name; the opcodes that belong to the file itself go to its
//! [`crate::io::File`] (see `capi/src/file_control.rs`).
//!
//! Invariant: none of these leaves a transaction started or ended, nor
//! waits on one: a header read outside a transaction is a read
//! transaction begun and ended at once, given up if the file is busy
//! (checked: fcntl_txn_unchanged).

use super::Connection;
use crate::btree::{Btree, TxnState};
use crate::util::ascii::AsciiLower;

/// SQLite reads a database's header when it opens the file; the pager
/// reads it at the first transaction. Outside a transaction, read it now
/// (a short read transaction), so that the size and reserve are the
/// file's; if the file is busy, what the pager knew stands.
fn load_header(bt: &mut Btree) {
    if bt.txn_state() == TxnState::None {
        let io = bt.pager().io().clone();
        if io.block_on(|| bt.begin_read()).is_ok() {
            let _ = io.block_on(|| bt.rollback());
        }
        // invariant: fcntl_txn_unchanged
        debug_assert_eq!(bt.txn_state(), TxnState::None, "a file control left a transaction open");
    }
}

impl Connection {
    fn schema_btree_mut(&mut self, schema: &str) -> Option<&mut Btree> {
        self.state.dbs.iter_mut().find(|d| d.name.eq_ci(schema)).map(|d| &mut d.btree)
    }

    /// `SQLITE_FCNTL_DATA_VERSION` of schema `schema`: changes whenever
    /// its content may have changed, by this connection or another
    /// (`None`: no such schema).
    pub fn file_data_version(&self, schema: &str) -> Option<u32> {
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).map(|d| d.btree.pager().file_data_version())
    }

    /// `SQLITE_FCNTL_RESERVE_BYTES`: the reserved bytes per page of
    /// schema `schema` (or more, if more were asked for), before asking
    /// for `want` (0-255; `None` only reads). The new reserve is taken at
    /// once by an empty database, else by the next VACUUM.
    pub fn reserve_bytes(&mut self, schema: &str, want: Option<u8>) -> Option<u8> {
        let bt = self.schema_btree_mut(schema)?;
        load_header(bt);
        let pager = bt.pager_mut();
        let before = pager.requested_reserve();
        if let Some(n) = want {
            pager.request_reserve(n);
        }
        Some(before)
    }

    /// `SQLITE_FCNTL_RESET_CACHE`: drop the cached pages of schema
    /// `schema` unless a transaction is open on it (then, as for the temp
    /// schema, nothing happens). `false`: no such schema.
    pub fn reset_cache(&mut self, schema: &str) -> bool {
        let temp = schema.eq_ci("temp");
        let Some(bt) = self.schema_btree_mut(schema) else {
            return false;
        };
        if !temp && bt.txn_state() == TxnState::None {
            bt.release_memory();
        }
        true
    }
}
