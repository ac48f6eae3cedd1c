//! # The connection lent to callbacks: SQL run from inside a statement
//!
//! While a statement runs, its VM holds the whole connection mutably (the
//! B-trees, the transaction, the counters). SQLite lets some callbacks run
//! SQL on that same connection while they are called: application-defined
//! functions (scalar, aggregate, window), the progress handler, virtual
//! table methods. Here those callbacks receive the connection back for the
//! time of the call, as a [`VmHost`]: the VM reborrows what it holds, does
//! nothing with it until the callback returns, and reads the connection
//! state afresh afterwards. So a nested statement is an ordinary statement
//! of the same connection: it shares the transaction, counts as one more
//! active statement, and writes inside its own statement savepoint nested
//! in the caller's (see `exec::txn`).
//!
//! What a running statement needs protected from a nested one is checked
//! where the nested one acts, as in SQLite: dropping a table another
//! statement reads is `SQLITE_LOCKED`, `COMMIT` or releasing the outermost
//! savepoint while another statement writes is `SQLITE_BUSY`, `VACUUM` is
//! refused. Cursors of the caller find their place again by key after a
//! nested write (the B-tree's stale-path rule, `btree::cursor`).
//!
//! Invariants: a host is lent only for the duration of one callback, never
//! stored; [`ConnState::lent_depth`] counts the callbacks holding it (checked:
//! host_lent_depth), and while it is positive statements of the connection
//! complete their I/O blocking even on an asynchronous connection (the callback
//! cannot return `SQLITE_IO` to its caller's caller). Callbacks that SQLite
//! says must not modify the connection (commit, rollback, update, WAL and busy
//! hooks, the authorizer, collations) are not lent it.

use super::ConnState;
use std::any::Any;

/// A connection as its running statements see it.
pub trait VmHost: Any {
    /// The state instructions read and change.
    fn state(&mut self) -> &mut ConnState;
}

/// Call `f` with `host` lent (counted in [`ConnState::lent_depth`]).
pub fn lend<T>(host: &mut dyn VmHost, f: impl FnOnce(&mut dyn VmHost) -> T) -> T {
    host.state().lent_depth += 1;
    let out = f(host);
    let st = host.state();
    // invariant: host_lent_depth
    debug_assert!(st.lent_depth > 0);
    st.lent_depth -= 1;
    out
}
