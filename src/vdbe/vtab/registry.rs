//! # The modules registered on a connection and its connected tables
//!
//! `sqlite3_create_module` puts a module here under its name (replacing one
//! of the same name, case-insensitively; the old one is dropped once no
//! table uses it, which is when a C module's destructor runs). A virtual
//! table of the schema is connected on first use and kept here, keyed by
//! database and name, until the schema no longer holds the same
//! `CREATE VIRTUAL TABLE` statement, DROP TABLE destroys it, or the
//! connection closes. Eponymous tables (a module used by its own name) are
//! kept separately, by module name.
//!
//! The modules and tables are one [`Catalog`] behind an `Arc`: a compile
//! reads a snapshot of it ([`Registry::catalog`]) and so does not borrow
//! the connection, which a module's xBestIndex may then be lent to run SQL
//! (a change made meanwhile copies the catalog; the compile keeps its own).
//!
//! Invariant: every connected table's module is registered under its
//! `module_name` or was when it connected (a table keeps its module alive)
//! (checked: vtab_module_registered).

use super::{Module, VTab, VtabConfig};
use crate::util::ascii::AsciiLower;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A table connected on the connection.
pub struct VtabInstance {
    /// The module's name as registered.
    pub module_name: String,
    /// The table (declared before the module: dropped, so disconnected,
    /// before the module it keeps alive).
    pub table: Arc<dyn VTab>,
    /// The module.
    pub module: Arc<dyn Module>,
    /// The `CREATE TABLE` statement it declared.
    pub declared: String,
    /// What it configured.
    pub config: VtabConfig,
    /// Database index (0 main, 1 temp, 2.. attached).
    pub db: usize,
    /// Table name (the module name for an eponymous table).
    pub name: String,
    /// The `CREATE VIRTUAL TABLE` statement it was connected for (empty
    /// for an eponymous table).
    pub schema_sql: String,
    /// xBegin was called in the open transaction (and neither xCommit nor
    /// xRollback since).
    pub in_transaction: AtomicBool,
}

impl VtabInstance {
    /// Whether xBegin was called in the open transaction.
    pub fn in_transaction(&self) -> bool {
        self.in_transaction.load(Ordering::Relaxed)
    }

    /// Record that the transaction methods were (true) or are no longer
    /// (false) called for this table.
    pub fn set_in_transaction(&self, on: bool) {
        self.in_transaction.store(on, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for VtabInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VtabInstance({}.{} USING {})", self.db, self.name, self.module_name)
    }
}

/// The registered modules and the connected tables: what a compile looks
/// up (see the module doc).
#[derive(Default, Clone)]
pub struct Catalog {
    /// Modules by lower-case name: (name as registered, module).
    modules: HashMap<String, (String, Arc<dyn Module>)>,
    /// Connected tables by (database, lower-case name).
    tables: HashMap<(usize, String), Arc<VtabInstance>>,
    /// Eponymous tables by lower-case module name.
    eponymous: HashMap<String, Arc<VtabInstance>>,
}

/// The registry (see the module doc). Dropping it disconnects the tables
/// in database order, then drops the modules.
#[derive(Default)]
pub struct Registry {
    catalog: Arc<Catalog>,
    /// Tables whose xBegin ran in the open transaction, in call order.
    pub in_transaction: Vec<Arc<VtabInstance>>,
}

impl std::ops::Deref for Registry {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        &self.catalog
    }
}

impl Registry {
    /// The catalog as it is now, for a compile to read while the
    /// connection is lent elsewhere.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.clone()
    }

    /// The catalog to change (copied first if a compile reads it).
    fn edit(&mut self) -> &mut Catalog {
        Arc::make_mut(&mut self.catalog)
    }

    /// Register `module` under `name` (`None` removes the name). A module
    /// replaced or removed loses its eponymous table.
    pub fn create_module(&mut self, name: &str, module: Option<Arc<dyn Module>>) {
        let key = name.ascii_lower();
        let cat = self.edit();
        cat.eponymous.remove(&key);
        match module {
            Some(m) => {
                cat.modules.insert(key, (name.to_string(), m));
            }
            None => {
                cat.modules.remove(&key);
            }
        }
    }

    /// `sqlite3_drop_modules`: remove every module not named in `keep`.
    pub fn drop_modules(&mut self, keep: &[String]) {
        let cat = self.edit();
        let gone: Vec<String> = cat.modules.keys().filter(|k| !keep.iter().any(|n| n.eq_ci(k))).cloned().collect();
        for k in gone {
            cat.modules.remove(&k);
            cat.eponymous.remove(&k);
        }
    }

    /// Keep a newly connected table (replacing a stale one).
    pub fn insert_table(&mut self, t: Arc<VtabInstance>) {
        // invariant: vtab_module_registered
        debug_assert!(self.module(&t.module_name).is_some(), "{t:?} connected through a module not registered");
        self.edit().tables.insert((t.db, t.name.ascii_lower()), t);
    }

    /// Forget a table (DROP TABLE, or its schema entry changed).
    pub fn remove_table(&mut self, db: usize, name: &str) -> Option<Arc<VtabInstance>> {
        self.edit().tables.remove(&(db, name.ascii_lower()))
    }

    /// Forget the connected tables `keep` says no longer match the schema
    /// (called with database, name and the statement each was connected
    /// for), and all of database `db` when it is detached.
    pub fn retain_tables(&mut self, mut keep: impl FnMut(usize, &str, &str) -> bool) {
        let mut gone: Vec<(usize, String)> = self.tables.iter().filter(|(_, t)| !keep(t.db, &t.name, &t.schema_sql)).map(|(k, _)| k.clone()).collect();
        if gone.is_empty() {
            return;
        }
        // Disconnected in database order, then by name.
        crate::util::cold_sort::sort(&mut gone);
        let cat = self.edit();
        for k in gone {
            cat.tables.remove(&k);
        }
    }

    /// Keep a connected eponymous table.
    pub fn insert_eponymous(&mut self, t: Arc<VtabInstance>) {
        self.edit().eponymous.insert(t.name.ascii_lower(), t);
    }

    /// Drop every table and module (the connection closes): tables first,
    /// so that modules outlive the tables they made.
    pub fn clear(&mut self) {
        self.in_transaction.clear();
        self.retain_tables(|_, _, _| false);
        let cat = self.edit();
        cat.eponymous.clear();
        cat.modules.clear();
    }
}

impl Catalog {
    /// The module registered as `name`: (name as registered, module).
    pub fn module(&self, name: &str) -> Option<(&str, &Arc<dyn Module>)> {
        self.modules.get(&name.ascii_lower()).map(|(n, m)| (n.as_str(), m))
    }

    /// Names of the registered modules (`pragma_module_list`).
    pub fn module_names(&self) -> Vec<String> {
        self.modules.values().map(|(n, _)| n.clone()).collect()
    }

    /// The connected table `db`.`name`, if connected.
    pub fn table(&self, db: usize, name: &str) -> Option<&Arc<VtabInstance>> {
        self.tables.get(&(db, name.ascii_lower()))
    }

    /// The eponymous table of module `name`, if connected.
    pub fn eponymous(&self, name: &str) -> Option<&Arc<VtabInstance>> {
        self.eponymous.get(&name.ascii_lower())
    }

    /// Every connected table, eponymous ones included.
    pub fn all_tables(&self) -> Vec<Arc<VtabInstance>> {
        self.tables.values().chain(self.eponymous.values()).cloned().collect()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.clear();
    }
}
