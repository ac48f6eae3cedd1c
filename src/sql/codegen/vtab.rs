//! Virtual tables in statements: finding the connected table behind a
//! schema entry or an eponymous module, opening it as a FROM item
//! (`VOpen`; its columns as the module declared them, HIDDEN ones left out
//! of `*`), the table-valued-function syntax `FROM t(a, b)` binding the
//! arguments to the hidden columns in order, and `CREATE VIRTUAL TABLE`.
//! The loop over the item (best index, `VFilter`/`VNext`) is in
//! `vtab_scan.rs`.
//!
//! A table not yet connected on this connection cannot be connected from
//! inside a compile (the module runs lent the connection, which the
//! compile borrows): the compile records a [`ConnectRequest`] and fails;
//! the connection connects the table and compiles again
//! (`Connection::compile`). Invariant: a compile that needs a table
//! connected fails with that request set, never with another error first
//! (checked: vtab_request_error_first).

use super::Compiler;
use crate::error::{Error, Result};
use crate::sql::model::from::{FromItem, VtabItem};
use crate::sql::plan::prelude::*;
use crate::sql::resolve::{ScopeColumn, ScopeItem};
use crate::sql::schema::Table;
use crate::sql::vtab_decl::{declared_table, DeclaredTable};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use crate::vdbe::vtab::{ModuleKind, VtabInstance};
use sqlite3_parser::ast::Expr;
use std::sync::Arc;

/// A virtual table a compile found unconnected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectRequest {
    /// The schema's table `name` of database `db`.
    Table { db: usize, name: String },
    /// The eponymous table of module `name`.
    Eponymous(String),
}

/// The error a compile fails with while it waits for a connection (the
/// connection replaces it by the outcome of connecting).
fn needs_connect() -> Error {
    Error::sql("virtual table not connected")
}

impl<'s> Compiler<'s> {
    /// `inst` as the planner asks it (see [`Asked`]).
    pub fn vtab_asked<'x>(&self, inst: &'x crate::vdbe::vtab::VtabInstance) -> crate::sql::plan::vtab::Asked<'x>
    where
        's: 'x,
    {
        crate::sql::plan::vtab::Asked { table: &*inst.table, name: &inst.name, lend: self.env.vtab_lender, unasked: self.vtab.unasked }
    }
}

impl<'b> Compiler<'_> {
    /// The connected table behind the virtual-table entry `t` (ask the
    /// connection to connect it when its module is registered; "no such
    /// module" otherwise).
    pub(crate) fn connected_vtab(&self, t: &Table) -> Result<Option<(Arc<VtabInstance>, DeclaredTable)>> {
        let Some(v) = &t.virtual_table else { return Ok(None) };
        let Some(reg) = self.env.vtabs else { return Err(v.no_module_error()) };
        if let Some(inst) = reg.table(t.db, &t.name).filter(|i| i.schema_sql == t.sql) {
            let decl = declared_table(&inst.declared, &t.name, t.db, &t.sql)?;
            return Ok(Some((inst.clone(), decl)));
        }
        if reg.module(&v.module).is_none() {
            return Err(v.no_module_error());
        }
        self.request_connect(ConnectRequest::Table { db: t.db, name: t.name.clone() })
    }

    /// The check SQLite makes wherever it needs a table's columns: a
    /// virtual table must be connected (or its module missing: error).
    pub(crate) fn connect_check(&self, t: &Table) -> Result<()> {
        self.connected_vtab(t).map(|_| ())
    }

    /// [`Self::connect_check`] for the uses SQLite fails only when they
    /// run (the table-valued pragmas): the outer error is a connection
    /// the compile must wait for, the inner one the failure to compile
    /// into the program ("no such module").
    pub(crate) fn connect_deferred(&self, t: &Table) -> Result<Result<()>> {
        match self.connected_vtab(t) {
            Ok(_) => Ok(Ok(())),
            Err(e)
                if self.env.vtab_connect.is_some_and(|c| {
                    let pending = c.take();
                    let is = pending.is_some();
                    c.set(pending);
                    is
                }) =>
            {
                Err(e)
            }
            Err(e) => Ok(Err(e)),
        }
    }

    /// The schema with every virtual table whose module is registered
    /// standing as the table its module declared (connecting it first),
    /// for the walks that need the columns of every table (ALTER TABLE
    /// RENAME); `None` when the schema holds no virtual table. Tables of
    /// modules not registered stay as they are ("no such module" where
    /// used).
    pub(crate) fn schema_with_vtab_columns(&self) -> Result<Option<crate::sql::schema::Schema>> {
        if !self.env.schema.tables.values().any(|t| t.virtual_table.is_some()) {
            return Ok(None);
        }
        let mut s = self.env.schema.clone();
        for t in s.tables.values_mut() {
            let registered = t.virtual_table.as_ref().is_some_and(|v| self.env.vtabs.is_some_and(|r| r.module(&v.module).is_some()));
            if !registered {
                continue;
            }
            if let Some((_, decl)) = self.connected_vtab(t)? {
                *t = decl.table.clone();
            }
        }
        Ok(Some(s))
    }

    /// The eponymous table of module `name`, when such a module is
    /// registered.
    pub(crate) fn eponymous_vtab(&self, name: &str) -> Result<Option<(Arc<VtabInstance>, DeclaredTable)>> {
        let Some(reg) = self.env.vtabs else { return Ok(None) };
        let Some((_, m)) = reg.module(name) else {
            // The PRAGMA tables served as virtual tables (see
            // `connection::pragma_vtab`), unless a module overrides one.
            let lower = name.ascii_lower();
            if !lower.strip_prefix("pragma_").is_some_and(crate::sql::codegen::pragma::pragma_names::pragma_vtab_routed) {
                return Ok(None);
            }
            if let Some(inst) = reg.eponymous(name) {
                let decl = declared_table(&inst.declared, &inst.name, 0, "")?;
                return Ok(Some((inst.clone(), decl)));
            }
            return self.request_connect(ConnectRequest::Eponymous(name.to_string()));
        };
        if m.kind() == ModuleKind::Regular {
            return Ok(None);
        }
        if let Some(inst) = reg.eponymous(name) {
            let decl = declared_table(&inst.declared, &inst.name, 0, "")?;
            return Ok(Some((inst.clone(), decl)));
        }
        self.request_connect(ConnectRequest::Eponymous(name.to_string()))
    }

    fn request_connect<T>(&self, req: ConnectRequest) -> Result<T> {
        match self.env.vtab_connect {
            Some(cell) => {
                cell.set(Some(req));
                Err(needs_connect())
            }
            None => Err(Error::sql("virtual table not connected")),
        }
    }

    /// Open the virtual table `inst` as a FROM item named `name`, with
    /// table-valued-function arguments `args`.
    pub(super) fn open_vtab_item<'a>(
        &mut self,
        inst: Arc<VtabInstance>,
        decl: DeclaredTable,
        name: String,
        args: &'a [Expr<'b>],
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.check_vtab_read_usable(&inst.name, &inst.config)?;
        let n_hidden = decl.hidden.iter().filter(|h| **h).count();
        if args.len() > n_hidden {
            return Err(Error::sql(format!("too many arguments on {}() - max {n_hidden}", inst.name)));
        }
        // (SQLite applies SQLITE_VTAB_USES_ALL_SCHEMAS as it plans a scan
        // of the table: a scan here, so not for an INSERT's target.)
        self.stmt.all_schemas |= inst.config.uses_all_schemas;
        let cur = self.b.cursor();
        self.b.add4(Opcode::VOpen, cur, 0, 0, P4::VTab(inst.clone()), 0);
        self.comment(&inst.name);
        self.vtab.cursors.insert(cur, inst.clone());
        let table = &decl.table;
        let columns: Vec<ScopeColumn> = table
            .columns
            .iter()
            .zip(&decl.hidden)
            .map(|(c, h)| ScopeColumn {
                name: c.name.clone(),
                affinity: c.affinity,
                without_affinity: false,
                collation: c.collation.clone(),
                decltype: c.decltype.clone(),
                hidden: false,
                argument: *h,
                source: None,
                source_db: None,
            })
            .collect();
        let item = ScopeItem {
            name,
            table: inst.name.clone(),
            db: inst.db,
            cursor: cur,
            columns: Arc::new(columns),
            rowid_alias: None,
            has_rowid: table.without_rowid.is_none(),
            using: Vec::new(),
            object_name: None,
            view_db: None,
        };
        let scope = self.names.scopes.last_mut().unwrap();
        scope.items.push(item);
        out.push(FromItem {
            item: scope.items.len() - 1,
            cursor: cur,
            table: None,
            left: false,
            cross: false,
            on: Vec::new(),
            matched: None,
            using: Vec::new(),
            table_fn: None,
            index_hint: None,
            vtab: Some(VtabItem { inst, decl, args }),
            plan_name: None,
        });
        Ok(())
    }

    /// The function a virtual table substitutes for `name` when the call's
    /// first argument is one of its columns (xFindFunction), as SQLite's
    /// `sqlite3VtabOverloadFunction`.
    pub(super) fn vtab_overload(&mut self, name: &str, args: &[Expr<'_>]) -> Option<Arc<crate::vdbe::func::FuncDef>> {
        if self.vtab.cursors.is_empty() {
            return None;
        }
        let r = self.plain_column(args.first()?)?;
        let inst = self.vtab.cursors.get(&r.cursor)?.clone();
        inst.table.find_function(args.len() as i32, name).map(|(f, _)| f)
    }

    /// `CREATE VIRTUAL TABLE name USING module(args)`: the schema row
    /// (rootpage 0, the statement as written), then `VCreate` runs the
    /// module's xCreate.
    pub(super) fn create_virtual_table(&mut self, name: &str, module: &str, args: Vec<String>) -> Result<()> {
        let sql = crate::sql::parse::schema_sql(self.stmt.sql, "VIRTUAL TABLE");
        self.stmt.writes = true;
        self.stmt.dbs_used |= 1 << self.stmt.ddl_db;
        let n = format!("'{}'", name.replace('\'', "''"));
        self.nested_write_fits(Some(&sql), |db, text| {
            format!("UPDATE {db}.sqlite_master SET type='table', name={n}, tbl_name={n}, rootpage=0, sql={text} WHERE rowid=#1")
        })?;
        let sc = self.open_schema_table();
        self.schema_row(sc, "table", name, name, None, Some(&sql));
        self.bump_cookie_appended();
        let spec = crate::vdbe::vtab::CreateSpec {
            db: self.stmt.ddl_db,
            db_name: self.db_name(self.stmt.ddl_db),
            name: name.to_string(),
            module: module.to_string(),
            args,
            sql,
        };
        self.b.add4(Opcode::VCreate, self.stmt.ddl_db as i32, 0, 0, P4::VCreate(Arc::new(spec)), 0);
        Ok(())
    }
}
