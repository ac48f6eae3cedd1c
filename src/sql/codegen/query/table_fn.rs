//! Table-valued functions in FROM: json_each(X[,P]) and json_tree(X[,P]) (and their jsonb_ forms)
//! (json1.txt §4.23), SQLite's eponymous virtual tables, among them the
//! PRAGMA functions (`pragma_table_info('t')`, ...: the virtual table of
//! `connection::pragma_vtab`, which runs the PRAGMA when read).
//!
//! A compile without a connection (`CompileEnv::bare`: a view checked
//! for ALTER TABLE) has no virtual tables: there the schema-describing
//! pragmas with a constant argument are read as a VALUES subquery of rows
//! known when the statement is compiled. With a column as argument
//! (`FROM sqlite_schema m JOIN pragma_table_info(m.name)`), the subquery
//! holds the rows for every table (or index) with the name in a hidden
//! `arg` column, joined to the argument column (case-insensitively, as
//! names match); such a join is never reordered. A second argument names
//! the database (hidden column `schema`); a top-level `WHERE arg = 'x'`
//! or `schema = 's'` stands for a missing argument, as SQLite's
//! xBestIndex makes it. Invariant: a hidden column exists only when its
//! value is known (argument or such a term); any other use of it is
//! "no such column", never a filter over the wrong rows.
//!
//! The pragmas reporting one value (`pragma_user_version`,
//! `pragma_page_count('aux')`, ...) are a one-row table filled when the
//! statement runs, by the pragma's own read instruction
//! (`pragma::emit_pragma_value`); those SQLite exposes but ringlite's
//! PRAGMA does not answer are refused as unsupported.
//!
//! The item reads a temporary table of ten columns: key, value, type,
//! atom, id, parent, fullkey, path, and the hidden json and root (the
//! arguments). `JsonRows` refills it each time the loop over the item
//! starts, after its arguments are evaluated there; so arguments may read
//! the columns of tables to the left (`FROM t, json_each(t.doc)`), which is
//! why such items are never moved by join reordering. Arguments that read
//! a table to the right are refused as unsupported.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::resolve::{ScopeColumn, ScopeItem};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, QualifiedName};

/// The argument of a table-valued pragma known only when the statement
/// runs: a column of a table to the left, or any other expression (a
/// bound parameter, a function of such columns).
enum PragmaArg<'a, 'b> {
    Column(crate::sql::resolve::ColumnRef),
    Expr(&'a Expr<'b>),
}

/// The columns of json_each/json_tree, and whether each is hidden.
const COLUMNS: [(&str, bool); 10] = [
    ("key", false),
    ("value", false),
    ("type", false),
    ("atom", false),
    ("id", false),
    ("parent", false),
    ("fullkey", false),
    ("path", false),
    ("json", true),
    ("root", true),
];

impl<'b> Compiler<'_> {
    /// Open the FROM item `name(args) AS alias`.
    pub(in crate::sql::codegen) fn open_table_function<'a>(
        &mut self,
        qn: &QualifiedName<'b>,
        args: &'a [Expr<'b>],
        alias: Option<String>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        let name = unquoted(qn.name.0);
        let lower = name.ascii_lower();
        // (The pragmas are virtual tables run when read, below, on a
        // compile with a connection; a bare compile reads their rows as
        // known now.)
        let routed = self.env.vtabs.is_some() && lower.strip_prefix("pragma_").is_some_and(crate::sql::codegen::pragma::pragma_names::pragma_vtab_routed);
        if let Some(pragma) = lower.strip_prefix("pragma_").filter(|p| {
            !routed && {
                matches!(
                    *p,
                    "table_info"
                        | "table_xinfo"
                        | "index_list"
                        | "index_info"
                        | "index_xinfo"
                        | "foreign_key_list"
                        | "compile_options"
                        | "function_list"
                        | "database_list"
                        | "collation_list"
                        | "table_list"
                        | "pragma_list"
                        | "module_list"
                )
            }
        }) {
            return self.open_schema_pragma(pragma, args, alias.unwrap_or(lower.clone()), out);
        }
        if let Some(pragma) = lower.strip_prefix("pragma_").filter(|p| !routed && crate::sql::codegen::pragma::pragma_names::value_pragma_shape(p).is_some()) {
            return self.open_value_pragma(pragma, args, alias.unwrap_or(lower.clone()), out);
        }
        if lower == "pragma_foreign_key_check" {
            return self.open_foreign_key_check(args, alias.unwrap_or(lower.clone()), out);
        }
        // `JsonRows`'s P5: 1 for a tree, 2 for JSONB container values.
        let recursive: u16 = if lower == "json_each" {
            0
        } else if lower == "json_tree" {
            1
        } else if lower == "jsonb_each" {
            2
        } else if lower == "jsonb_tree" {
            3
        } else if let Some(t) = self.env.schema.shared_table_in(qn.db_name.as_ref().and_then(|d| self.db_index(&unquoted(d.0))), &name).cloned() {
            let Some((inst, decl)) = self.connected_vtab(&t)? else {
                return Err(Error::sql(format!("'{name}' is not a function")));
            };
            return self.open_vtab_item(inst, decl, alias.unwrap_or_else(|| name.to_string()), args, out);
        } else if let Some((inst, decl)) = self.eponymous_vtab(&name)? {
            return self.open_vtab_item(inst, decl, alias.unwrap_or_else(|| name.to_string()), args, out);
        } else {
            return Err(Error::sql(format!("no such table: {name}")));
        };
        if args.len() > 2 {
            return Err(Error::sql(format!("too many arguments on {}() - max 2", name.ascii_lower())));
        }
        let cur = self.b.cursor();
        self.stmt.json_tables.push((cur, ["json_each", "json_tree", "jsonb_each", "jsonb_tree"][usize::from(recursive)]));
        self.b.add(Opcode::OpenEphemeral, cur, COLUMNS.len() as i32, 0);
        let item = ScopeItem {
            name: alias.unwrap_or_else(|| name.ascii_lower()),
            table: String::new(),
            db: 0,
            cursor: cur,
            columns: std::sync::Arc::new(
                COLUMNS
                    .iter()
                    .map(|(n, hidden)| ScopeColumn {
                        name: n.to_string(),
                        affinity: Affinity::Blob,
                        without_affinity: false,
                        collation: None,
                        decltype: None,
                        hidden: false,
                        argument: *hidden,
                        source: None,
                        source_db: None,
                    })
                    .collect(),
            ),
            rowid_alias: None,
            has_rowid: true,
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
            index_hint: None,
            using: Vec::new(),
            table_fn: Some((args, recursive)),
            vtab: None,
            plan_name: None,
        });
        Ok(())
    }

    /// Evaluate the arguments of the table-valued function `it` and refill
    /// its table; `before` is the set of items whose loops are open.
    pub(in crate::sql::codegen) fn fill_table_function(&mut self, it: &FromItem<'_, 'b>, args: &[Expr<'b>], recursive: u16, before: u64) -> Result<()> {
        let own = 1u64 << it.item.min(63);
        for a in args {
            let deps = self.expr_deps(a);
            if deps & !(before | own) != 0 {
                return Err(Error::unsupported("table-valued function arguments that read a table to their right"));
            }
        }
        let regs = self.b.regs(args.len().max(1));
        if args.is_empty() {
            self.b.add(Opcode::Null, 0, regs, 0);
        }
        for (i, a) in args.iter().enumerate() {
            self.expr(a, regs + i as i32)?;
        }
        self.b.add4(Opcode::JsonRows, it.cursor, regs, args.len() as i32, crate::vdbe::program::P4::None, recursive);
        Ok(())
    }
}

impl<'b> Compiler<'_> {
    /// `pragma_table_info('t')` and the other schema-describing pragmas
    /// in FROM: their rows are known when the statement is compiled, so
    /// the item reads them as a VALUES subquery. The argument must be a
    /// constant (a correlated one, `pragma_table_info(m.name)`, is not
    /// supported yet).
    pub(in crate::sql::codegen) fn open_schema_pragma<'a>(
        &mut self,
        pragma: &str,
        args: &'a [Expr<'b>],
        alias: String,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.check_builtin_vtab_read(&format!("pragma_{pragma}"))?;
        use sqlite3_parser::ast::Literal;
        let column_arg = |c: &mut Self, q: Option<&str>, n: &str| c.resolve_name(q, &unquote(n)).ok().flatten();
        // (pragma_table_list has no hidden `schema` column.)
        if pragma == "table_list" && args.len() > 1 {
            return Err(Error::sql("too many arguments on pragma_table_list() - max 1"));
        }
        let max_args = if crate::sql::codegen::pragma::list_rows(self, pragma).is_some() {
            0
        } else if pragma == "table_list" {
            1
        } else {
            2
        };
        if args.len() > max_args {
            return Err(Error::sql(format!("too many arguments on pragma_{pragma}() - max {max_args}")));
        }
        // The second argument, the hidden `schema` column: the database
        // the pragma is about (all of them, searched in order, without).
        let schema = match args.get(1) {
            Some(e) => self.pragma_schema_argument(e)?,
            None => None,
        };
        if schema.is_some() && !matches!(args.first(), Some(Expr::Literal(_))) {
            return Err(Error::unsupported("pragma functions with a schema argument and a non-literal first argument"));
        }
        // Hidden columns not given as arguments take the text a top-level
        // `WHERE arg = 'x'` (`schema = 's'`) compares them with, as SQLite's
        // xBestIndex hands it to the pragma (the WHERE term still filters:
        // every row then holds that text, so the result is the same).
        if max_args == 2 && args.len() < 2 && !matches!(args.first(), Some(Expr::Id(_) | Expr::Qualified(..))) {
            let lookup = |c: &Self, column: &str| {
                c.select.pragma_where_args.iter().find(|(q, n, _)| n == column && q.as_ref().is_none_or(|q| q.eq_ci(&alias))).map(|(_, _, v)| v.clone())
            };
            let where_arg = if args.is_empty() { lookup(self, "arg") } else { None };
            let where_schema = lookup(self, "schema");
            if where_arg.is_some() || where_schema.is_some() {
                let schema = match where_schema {
                    Some(name) => match self.db_index(&name) {
                        Some(db) => Some((db, name)),
                        None => return Err(Error::sql(format!("unknown database '{name}'"))),
                    },
                    None => None,
                };
                let arg = match (args.first(), where_arg) {
                    (Some(Expr::Literal(Literal::String(s))), _) => Some(unquote(s)),
                    (Some(Expr::Literal(Literal::Null)) | None, w) => w,
                    _ => return Err(Error::unsupported("pragma functions with an argument other than a constant or a column")),
                };
                return self.open_schema_pragma_for(pragma, arg, schema, max_args, alias, out);
            }
        }
        let arg = match args.first() {
            Some(Expr::Literal(Literal::Null)) => None,
            Some(Expr::Literal(Literal::String(s))) => Some(unquote(s)),
            Some(Expr::Id(id)) => match column_arg(self, None, id.0) {
                Some(col) => return self.open_correlated_schema_pragma(pragma, PragmaArg::Column(col), alias, out),
                // A result column's alias (SQLite lets WHERE terms, which
                // these arguments become, name one).
                None if self.select.from_result_aliases.iter().any(|a| a.eq_ci(&unquote(id.0))) => {
                    return self.open_correlated_schema_pragma(pragma, PragmaArg::Expr(&args[0]), alias, out)
                }
                None if id.0.starts_with('"') => Some(unquote(id.0)),
                None => return Err(Error::sql(format!("no such column: {}", unquote(id.0)))),
            },
            Some(Expr::Qualified(t, n)) => match column_arg(self, Some(&unquote(t.0)), n.0) {
                Some(col) => return self.open_correlated_schema_pragma(pragma, PragmaArg::Column(col), alias, out),
                None => return Err(Error::sql(format!("no such column: {}.{}", unquote(t.0), unquote(n.0)))),
            },
            Some(e) => return self.open_correlated_schema_pragma(pragma, PragmaArg::Expr(e), alias, out),
            None => None,
        };
        // (Hidden columns not given hold NULL, as SQLite's do.)
        self.open_schema_pragma_for(pragma, arg, schema, max_args, alias, out)
    }

    /// `open_schema_pragma` for argument `arg` and database `schema`,
    /// with the first `n_hidden` of the hidden columns `arg`, `schema`.
    fn open_schema_pragma_for<'a>(
        &mut self,
        pragma: &str,
        arg: Option<String>,
        schema: Option<(usize, String)>,
        n_hidden: usize,
        alias: String,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        // The table-valued form runs the pragma when the statement first
        // reads it (SQLite's xFilter): a virtual table whose module is
        // missing fails then, not when the statement is prepared.
        let table = matches!(pragma, "table_info" | "table_xinfo")
            .then(|| arg.as_deref().and_then(|a| self.env.schema.table_in(schema.as_ref().map(|(db, _)| *db), a)))
            .flatten();
        let connected = match table {
            Some(t) => Some(self.connect_deferred(t)?),
            None => None,
        };
        let (mut names, mut rows) = match connected {
            Some(Err(e)) => {
                self.b.add4(Opcode::Halt, e.code, 0, 0, P4::text(e.message), 0);
                let names = crate::sql::codegen::pragma::schema_rows(self.env.schema, None, pragma, None, None, None).map(|(n, _)| n).unwrap_or_default();
                (names.into_iter().map(str::to_string).collect(), Vec::new())
            }
            _ => self.schema_pragma_rows(pragma, arg.as_deref(), schema.as_ref().map(|(db, _)| *db))?,
        };
        // Rows of the schema compiled with: the statement checks the
        // schema cookie of main (see `end_program`).
        self.stmt.dbs_used |= 1;
        // The arguments are the hidden columns `arg` and `schema` (schema
        // pragmas only). A hidden column exists only when its argument is
        // given: SQLite takes `WHERE arg = ...` as the argument, which is
        // not supported here, so naming an absent one is an error rather
        // than a filter over the wrong rows.
        // (A hidden column not given is NULL, as SQLite's is, unless the
        // WHERE or ON clauses constrain it: see `from_mentioned_names`.)
        let hidden: Vec<(&str, crate::value::Value)> =
            [("arg", arg.map(crate::value::Value::text)), ("schema", schema.map(|(_, name)| crate::value::Value::text(name)))]
                .into_iter()
                .take(n_hidden)
                .filter(|(n, v)| v.is_some() || !self.select.from_mentioned_names.iter().any(|m| m == n))
                .map(|(n, v)| (n, v.unwrap_or(crate::value::Value::Null)))
                .collect();
        for (n, v) in &hidden {
            names.push(n.to_string());
            for r in rows.iter_mut() {
                r.push(v.clone());
            }
        }
        let sql = values_subquery(&names, &rows);
        self.open_subquery_text(&sql, alias, None, out)?;
        let it = out.last().expect("the item just opened");
        let item = &mut self.names.scopes.last_mut().expect("the FROM scope").items[it.item];
        let columns = std::sync::Arc::make_mut(&mut item.columns);
        let width = columns.len();
        for c in &mut columns[width - hidden.len()..] {
            c.argument = true;
        }
        Ok(())
    }

    /// The schema argument of a pragma function: the database's index and
    /// its name as given (`None` for NULL).
    fn pragma_schema_argument(&mut self, e: &Expr<'b>) -> Result<Option<(usize, String)>> {
        use sqlite3_parser::ast::Literal;
        let name = match e {
            Expr::Literal(Literal::Null) => return Ok(None),
            Expr::Literal(Literal::String(s)) => unquote(s),
            Expr::Literal(Literal::Numeric(n)) => n.to_string(),
            Expr::Id(id) if id.0.starts_with('"') && self.resolve_name(None, &unquote(id.0)).ok().flatten().is_none() => unquote(id.0),
            _ => return Err(Error::unsupported("pragma functions with a schema argument other than a constant")),
        };
        match self.db_index(&name) {
            Some(db) => Ok(Some((db, name))),
            None => Err(Error::sql(format!("unknown database '{name}'"))),
        }
    }

    /// `pragma_user_version`, `pragma_page_count('aux')` and the other
    /// pragmas reporting one value: one row read when the statement runs
    /// (the value is not known when it is compiled), by the pragma's own
    /// read instruction, inserted into the item's table before its loop.
    /// Only the query form exists: a table-valued pragma never sets.
    pub(in crate::sql::codegen) fn open_value_pragma<'a>(
        &mut self,
        pragma: &str,
        args: &'a [Expr<'b>],
        alias: String,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.check_builtin_vtab_read(&format!("pragma_{pragma}"))?;
        let Some((column, has_schema, answered)) = crate::sql::codegen::pragma::pragma_names::value_pragma_shape(pragma) else {
            return Err(Error::sql(format!("no such table: pragma_{pragma}")));
        };
        if !answered {
            return Err(Error::unsupported(&format!("pragma_{pragma}")));
        }
        let max_args = has_schema as usize;
        if args.len() > max_args {
            return Err(Error::sql(format!("too many arguments on pragma_{pragma}() - max {max_args}")));
        }
        let schema = match args.first() {
            Some(e) => self.pragma_schema_argument(e)?,
            None => None,
        };
        // (SQLite shows NULL in the hidden `schema` column of these, even
        // when given; like the other hidden columns it exists here only
        // when given.)
        let sql = if args.is_empty() { format!("SELECT NULL AS \"{column}\" WHERE 0") } else { format!("SELECT NULL AS \"{column}\", NULL AS schema WHERE 0") };
        self.open_subquery_text(&sql, alias, None, out)?;
        let it = out.last().expect("the item just opened");
        let cursor = it.cursor;
        if !args.is_empty() {
            let item = &mut self.names.scopes.last_mut().expect("the FROM scope").items[it.item];
            if let Some(c) = std::sync::Arc::make_mut(&mut item.columns).last_mut() {
                c.argument = true;
            }
        }
        let value = crate::sql::codegen::pragma::emit_pragma_value(self, pragma, schema.map(|(db, _)| db));
        let width = 1 + !args.is_empty() as usize;
        let regs = self.b.regs(width);
        self.b.add(Opcode::Copy, value, regs, 0);
        if width > 1 {
            self.b.add(Opcode::Null, 0, regs + 1, 0);
        }
        let record = self.b.reg();
        let rowid = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, width as i32, record);
        self.b.add(Opcode::NewRowid, cursor, rowid, 0);
        self.b.add(Opcode::Insert, cursor, record, rowid);
        Ok(())
    }

    /// Column names and rows of the table-valued pragma `pragma` for
    /// argument `arg`.
    fn schema_pragma_rows(&mut self, pragma: &str, arg: Option<&str>, db: Option<usize>) -> Result<(Vec<String>, Vec<Vec<crate::value::Value>>)> {
        // (Rows known when compiling: the statement checks the schemas.)
        crate::sql::codegen::pragma::verify_schemas(self, db);
        if let Some((names, mut rows)) = crate::sql::codegen::pragma::list_rows(self, pragma) {
            // SQLite registers the module of a PRAGMA table when a
            // statement first names it, this one's before it runs.
            if pragma == "module_list" {
                crate::sql::codegen::pragma::add_module_name(&mut rows, "pragma_module_list");
            }
            return Ok((names.into_iter().map(str::to_string).collect(), rows));
        }
        if pragma == "table_list" {
            let rows = self.table_list_rows(db, arg)?;
            return Ok((crate::sql::codegen::pragma::table_list::TABLE_LIST_COLUMNS.iter().map(|n| n.to_string()).collect(), rows));
        }
        if pragma == "foreign_key_list" {
            let names = ["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"];
            return Ok((names.iter().map(|n| n.to_string()).collect(), arg.map(|a| self.foreign_key_list(db, a)).unwrap_or_default()));
        }
        let view_columns = self.view_columns_for_pragma(db, pragma, arg)?;
        let vtab = match arg.and_then(|n| self.env.schema.table_in(db, n)) {
            Some(t) if pragma == "table_info" || pragma == "table_xinfo" => self.connected_vtab(t)?.map(|(_, d)| d),
            _ => None,
        };
        let (names, rows) =
            crate::sql::codegen::pragma::schema_rows(self.env.schema, db, pragma, arg, view_columns.as_deref(), vtab.as_ref()).unwrap_or_default();
        Ok((names.into_iter().map(|n| n.to_string()).collect(), rows))
    }

    /// The pragma's rows for every table (or index, for index_info and
    /// index_xinfo) with its name in a last, hidden `arg` column, joined
    /// to the argument column `col`.
    fn open_correlated_schema_pragma<'a>(&mut self, pragma: &str, arg: PragmaArg<'a, 'b>, alias: String, out: &mut Vec<FromItem<'a, 'b>>) -> Result<()> {
        let by_index = matches!(pragma, "index_info" | "index_xinfo");
        let mut objects: Vec<String> = if by_index {
            self.env.schema.indexes.iter().filter(|(k, _)| !k.contains('\0')).map(|(_, i)| i.name.clone()).collect()
        } else {
            self.env.schema.tables.iter().filter(|(k, _)| !k.contains('\0')).map(|(_, t)| t.name.clone()).collect()
        };
        crate::util::cold_sort::sort(&mut objects);
        let mut names = Vec::new();
        let mut rows = Vec::new();
        // Virtual tables whose module is missing: SQLite's pragma fails
        // when it runs for one (see `JoinTerm::FailWhen`).
        let mut unconnected: Vec<(String, Error)> = Vec::new();
        for object in &objects {
            if matches!(pragma, "table_info" | "table_xinfo") {
                let connected = match self.env.schema.table(object) {
                    Some(t) => Some(self.connect_deferred(t)?),
                    None => None,
                };
                if let Some(Err(e)) = connected {
                    unconnected.push((object.clone(), e));
                    continue;
                }
            }
            // (A view that no longer compiles shows no columns here.)
            let Ok((n, r)) = self.schema_pragma_rows(pragma, Some(object), None) else { continue };
            names = n;
            rows.extend(r.into_iter().map(|mut row| {
                row.push(crate::value::Value::text(object.clone()));
                row
            }));
        }
        if names.is_empty() {
            names = self.schema_pragma_rows(pragma, None, None)?.0;
        }
        names.push("arg".to_string());
        // The hidden `schema` column, not given: NULL (left out when the
        // WHERE or ON clauses constrain it, see `from_mentioned_names`).
        let with_schema = pragma != "table_list" && !self.select.from_mentioned_names.iter().any(|m| m == "schema");
        if with_schema {
            for r in rows.iter_mut() {
                r.push(crate::value::Value::Null);
            }
            names.push("schema".to_string());
        }
        if !unconnected.is_empty() {
            let width = names.len();
            for r in rows.iter_mut() {
                r.push(crate::value::Value::Null);
            }
            for (n, (object, _)) in unconnected.iter().enumerate() {
                let mut r = vec![crate::value::Value::Null; width];
                r[width - 1 - with_schema as usize] = crate::value::Value::text(object.clone());
                r.push(crate::value::Value::Integer(n as i64 + 1));
                rows.push(r);
            }
            names.push("ringlite_unconnected".to_string());
        }
        self.stmt.dbs_used |= 1;
        let sql = values_subquery(&names, &rows);
        self.open_subquery_text(&sql, alias, None, out)?;
        let it = out.last_mut().expect("the item just opened");
        let scope = self.names.scopes.last_mut().expect("the FROM scope");
        let item = &mut scope.items[it.item];
        let marker_col = (!unconnected.is_empty()).then(|| item.columns.len() - 1);
        if let Some(m) = marker_col {
            std::sync::Arc::make_mut(&mut item.columns)[m].hidden = true;
        }
        let arg_col = item.columns.len() - 1 - marker_col.is_some() as usize - with_schema as usize;
        std::sync::Arc::make_mut(&mut item.columns)[arg_col].argument = true;
        if with_schema {
            std::sync::Arc::make_mut(&mut item.columns)[arg_col + 1].argument = true;
        }
        let arg_ref = crate::sql::resolve::ColumnRef {
            depth: 0,
            item: it.item,
            cursor: item.cursor,
            column: Some(arg_col),
            affinity: Affinity::Blob,
            collation: Some("NOCASE".to_string()),
        };
        it.on.push(match arg {
            PragmaArg::Column(col) => crate::sql::model::from::JoinTerm::ColEq(vec![col], arg_ref),
            PragmaArg::Expr(e) => crate::sql::model::from::JoinTerm::ExprEq(e, arg_ref),
        });
        if let Some(m) = marker_col {
            let marker = crate::sql::resolve::ColumnRef { column: Some(m), affinity: Affinity::Blob, collation: None, ..arg_ref_of(it.item, item.cursor) };
            it.on.push(crate::sql::model::from::JoinTerm::FailWhen(marker, unconnected.into_iter().map(|(_, e)| e).collect()));
        }
        Ok(())
    }
}

/// Every column name `where_clause` and the ON clauses of `from` mention
/// (the column part, lower case).
pub(in crate::sql::codegen) fn mentioned_names(where_clause: Option<&Expr<'_>>, from: Option<&sqlite3_parser::ast::FromClause<'_>>) -> Vec<String> {
    let mut out = Vec::new();
    let mut note = |e: &Expr<'_>| {
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            match x {
                Expr::Id(n) => out.push(unquote(n.0).ascii_lower()),
                Expr::Qualified(_, n) | Expr::DoublyQualified(_, _, n) => out.push(unquote(n.0).ascii_lower()),
                _ => {}
            }
            true
        })
    };
    if let Some(w) = where_clause {
        note(w);
    }
    for j in from.and_then(|f| f.joins.as_ref()).into_iter().flatten() {
        if let Some(sqlite3_parser::ast::JoinConstraint::On(e)) = &j.constraint {
            note(e);
        }
    }
    out
}

/// The `name = 'text'` (or `'text' = name`) terms ANDed at the top of a
/// WHERE clause, as (qualifier, name, text), names lower case. (Not `IS`:
/// SQLite hands a virtual table only `=` as an argument.)
pub(in crate::sql::codegen) fn where_equalities(e: &Expr<'_>) -> Vec<(Option<String>, String, String)> {
    use sqlite3_parser::ast::{Literal, Operator};
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        let Expr::Binary(l, op, r) = e else { continue };
        match op {
            Operator::And => {
                stack.push(r);
                stack.push(l);
            }
            Operator::Equals => {
                for (name, value) in [(l, r), (r, l)] {
                    let Expr::Literal(Literal::String(text)) = &**value else { continue };
                    let column = match &**name {
                        Expr::Id(id) => (None, unquote(id.0)),
                        Expr::Qualified(t, n) => (Some(unquote(t.0).ascii_lower()), unquote(n.0)),
                        _ => continue,
                    };
                    out.push((column.0, column.1.ascii_lower(), unquote(text)));
                }
            }
            _ => {}
        }
    }
    out
}

/// A column reference to `item` of the innermost scope (its column and
/// type filled in by the caller).
fn arg_ref_of(item: usize, cursor: i32) -> crate::sql::resolve::ColumnRef {
    crate::sql::resolve::ColumnRef { depth: 0, item, cursor, column: None, affinity: Affinity::Blob, collation: None }
}

/// A SELECT giving `rows` under column names `names`.
fn values_subquery(names: &[String], rows: &[Vec<crate::value::Value>]) -> String {
    let literal = |v: &crate::value::Value| match v {
        crate::value::Value::Integer(i) => i.to_string(),
        crate::value::Value::Text(t) => format!("'{}'", String::from_utf8_lossy(t).replace('\'', "''")),
        _ => "NULL".to_string(),
    };
    if rows.is_empty() {
        let cols: Vec<String> = names.iter().map(|n| format!("NULL AS \"{n}\"")).collect();
        format!("SELECT {} WHERE 0", cols.join(", "))
    } else {
        let cols: Vec<String> = names.iter().enumerate().map(|(i, n)| format!("column{} AS \"{n}\"", i + 1)).collect();
        let values: Vec<String> = rows.iter().map(|r| format!("({})", r.iter().map(literal).collect::<Vec<_>>().join(", "))).collect();
        format!("SELECT {} FROM (VALUES {})", cols.join(", "), values.join(", "))
    }
}
