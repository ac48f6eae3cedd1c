//! # Virtual-table modules on a connection
//!
//! `create_module` registers a module (`sqlite3_create_module_v2`), and
//! the connection connects the tables a compile asks for: a compile cannot
//! call a module itself, since the module is lent the connection the
//! compile borrows (`sql::codegen::vtab`), so it fails with the request
//! and `Connection::compile` connects the table here, then compiles again.
//!
//! Invariant: a table is connected at most once per schema entry (the
//! registry keeps it until the entry changes), so a compile asks at most
//! once per table and the retry loop ends: a request repeated fails the
//! prepare instead of looping (checked: vtab_connect_once).

use super::Connection;
use crate::error::{Error, Result};
use crate::sql::codegen::vtab::ConnectRequest;
use crate::util::ascii::AsciiLower;
use crate::vdbe::vtab::{argv, constructor_failed, Module, ModuleKind, VtabInstance};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

impl Connection {
    /// Register `module` as `name` (replacing a module of that name), or
    /// remove the name (`None`). A replaced module is dropped once no
    /// table uses it.
    pub fn create_module(&mut self, name: &str, module: Option<Arc<dyn Module>>) -> Result<()> {
        self.state.vtabs.create_module(name, module);
        self.state.settings_generation += 1;
        self.forget_compiled();
        Ok(())
    }

    /// `sqlite3_drop_modules`: remove every module whose name is not in
    /// `keep`.
    pub fn drop_modules(&mut self, keep: &[String]) {
        self.state.vtabs.drop_modules(keep);
        self.state.settings_generation += 1;
        self.forget_compiled();
    }

    /// Connect the table `req` names (xConnect, lent the connection).
    pub(super) fn connect_vtab(&mut self, req: ConnectRequest) -> Result<()> {
        let (module_name, db, name, args, sql) = match &req {
            ConnectRequest::Table { db, name } => {
                let t = self.merged.table_in(Some(*db), name).cloned().ok_or_else(|| Error::sql(format!("no such table: {name}")))?;
                let v = t.virtual_table.clone().ok_or_else(|| Error::sql(format!("no such table: {name}")))?;
                (v.module.clone(), *db, t.name.clone(), v.args.clone(), t.sql.clone())
            }
            ConnectRequest::Eponymous(m) => (m.clone(), 0, m.clone(), Vec::new(), String::new()),
        };
        // (A `pragma_NAME` table not overridden by a registered module is
        // the built-in PRAGMA table.)
        let registered = self.state.vtabs.module(&module_name).map(|(n, m)| (n.to_string(), m.clone()));
        let pragma = || matches!(req, ConnectRequest::Eponymous(_)).then(|| super::pragma_vtab::module(&module_name)).flatten();
        let Some((registered, module)) = registered.or_else(|| pragma().map(|m| (module_name.ascii_lower(), m))) else {
            return Err(Error::sql(format!("no such module: {module_name}")));
        };
        let eponymous = matches!(req, ConnectRequest::Eponymous(_));
        if eponymous && module.kind() == ModuleKind::Regular {
            return Err(Error::sql(format!("no such table: {name}")));
        }
        let db_name = self.state.dbs.get(db).map(|d| d.name.clone()).unwrap_or_else(|| "main".into());
        // An eponymous table is named after the module as registered.
        let name = if eponymous { registered.clone() } else { name };
        let argv = argv(&registered, &db_name, &name, &args);
        let made = crate::vdbe::host::lend(self, |h| module.connect(h, &argv)).map_err(|e| if e.message.is_empty() { constructor_failed(&name) } else { e })?;
        crate::sql::vtab_decl::check_declaration(&made.schema)?;
        let inst = Arc::new(VtabInstance {
            module_name: registered,
            module,
            table: made.table,
            declared: made.schema,
            config: made.config,
            db,
            name,
            schema_sql: sql,
            in_transaction: AtomicBool::new(false),
        });
        if eponymous {
            self.state.vtabs.insert_eponymous(inst);
        } else {
            self.state.vtabs.insert_table(inst);
        }
        Ok(())
    }
}
