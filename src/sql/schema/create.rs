//! CREATE TABLE and CREATE INDEX text to [`Table`] and [`Index`]:
//! columns with their declared types, affinities, defaults, collations and
//! generated expressions; the automatic indexes of UNIQUE and PRIMARY KEY
//! constraints (`sqlite_autoindex_<table>_<n>`, numbered in order of
//! appearance); foreign keys and CHECK texts; and the constant values a
//! DEFAULT may hold.

use super::*;
use crate::error::{Error, Result};
use crate::sql::parse::{unquote, with_first_statement};
use crate::value::affinity::Affinity;
use crate::value::Value;
use sqlite3_parser::ast::{self, Cmd, ColumnConstraint, CreateTableBody, SortOrder, Stmt, TableConstraint};

fn type_text(t: &ast::Type<'_>) -> String {
    let mut s = t.name.to_string();
    match &t.size {
        Some(ast::TypeSize::MaxSize(e)) => s.push_str(&format!("({e})")),
        Some(ast::TypeSize::TypeSize(a, b)) => s.push_str(&format!("({a},{b})")),
        None => {}
    }
    s
}

/// Build a table or view from its stored CREATE statement.
pub fn table_from_sql(sql: &str, root: u32) -> Result<Table> {
    with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(Cmd::Stmt(stmt)) => table_from_stmt(stmt, sql, root),
        _ => Err(Error::corrupt()),
    })
}

/// Add the automatic index of a PRIMARY KEY or UNIQUE constraint, as
/// SQLite does: a constraint on the same columns (and collations) as an
/// earlier one makes no index of its own; a PRIMARY KEY then makes the
/// earlier index the PRIMARY KEY, keeping its number and order.
fn add_auto_index(t: &mut Table, cols: Vec<(usize, bool, Option<String>)>, is_pk: bool) {
    let same = |a: &[(usize, bool, Option<String>)]| {
        a.len() == cols.len() && a.iter().zip(&cols).all(|(x, y)| x.0 == y.0 && x.2.as_deref().unwrap_or("").eq_ci(y.2.as_deref().unwrap_or("")))
    };
    match t.auto_indexes.iter_mut().find(|(c, _)| same(c)) {
        Some(existing) => existing.1 |= is_pk,
        None => t.auto_indexes.push((cols, is_pk)),
    }
}

/// Build a table from a CREATE TABLE or CREATE VIEW statement.
pub fn table_from_stmt(stmt: &Stmt<'_>, sql: &str, root: u32) -> Result<Table> {
    match stmt {
        Stmt::CreateTable { tbl_name, body, .. } => {
            let name = unquote(tbl_name.name.0);
            let CreateTableBody::ColumnsAndConstraints { columns, constraints, flags } = body else {
                return Err(Error::unsupported("CREATE TABLE ... AS SELECT"));
            };
            // STORED generated columns are computed on write and read like
            // any other column; VIRTUAL ones are left out of the record and
            // computed on read (in a WITHOUT ROWID table as in any other).
            let unsupported = None;
            let strict = flags.contains(ast::TabFlags::Strict);
            let mut t = Table { name: name.clone(), root, sql: sql.to_string(), unsupported, strict, ..Table::default() };
            let mut has_primary_key = false;
            // Types and defaults as the statement writes them (the AST
            // prints them back normalized).
            let written = crate::sql::column_spans::column_spans(sql.as_bytes()).filter(|w| w.len() == columns.len());
            for (n, cd) in columns.iter().enumerate() {
                let written = written.as_ref().map(|w| &w[n]);
                let decltype = match written {
                    Some(w) => w.decltype.clone(),
                    None => cd.col_type.as_ref().map(type_text).filter(|s| !s.is_empty()),
                };
                let mut col = Column {
                    name: unquote(cd.col_name.0),
                    affinity: Affinity::from_decltype(decltype.as_deref().unwrap_or("")),
                    decltype,
                    not_null: false,
                    not_null_conflict: None,
                    default: None,
                    default_is_name: false,
                    default_value: None,
                    collation: None,
                    primary_key: false,
                    generated: None,
                };
                let idx = t.columns.len();
                for c in cd.constraints.iter() {
                    match &c.constraint {
                        ColumnConstraint::PrimaryKey { order, auto_increment, conflict_clause, .. } => {
                            if std::mem::replace(&mut has_primary_key, true) {
                                return Err(Error::sql(format!("table \"{}\" has more than one primary key", t.name)));
                            }
                            t.pk_conflict = t.pk_conflict.or(*conflict_clause);
                            if *auto_increment {
                                let is_int = col.decltype.as_deref().is_some_and(|d| d.eq_ci("INTEGER"));
                                if !is_int {
                                    return Err(Error::sql("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY"));
                                }
                                t.autoincrement = true;
                            }
                            col.primary_key = true;
                            let is_int = col.decltype.as_deref().is_some_and(|d| d.eq_ci("INTEGER"));
                            if is_int && !matches!(order, Some(SortOrder::Desc)) {
                                t.rowid_alias = Some(idx);
                            } else {
                                add_auto_index(&mut t, vec![(idx, matches!(order, Some(SortOrder::Desc)), None)], true);
                            }
                        }
                        ColumnConstraint::NotNull { nullable, conflict_clause } => {
                            col.not_null = !nullable;
                            col.not_null_conflict = *conflict_clause;
                        }
                        ColumnConstraint::Unique(conflict) => {
                            if let Some(r) = conflict {
                                t.unique_conflicts.push((vec![idx], *r));
                            }
                            add_auto_index(&mut t, vec![(idx, false, None)], false);
                        }
                        ColumnConstraint::Default(e) => {
                            col.default = Some(written.and_then(|w| w.default.clone()).unwrap_or_else(|| e.to_string()));
                            col.default_is_name = matches!(e, ast::Expr::Id(_));
                            // A short record reads the default as the
                            // column would have stored it.
                            col.default_value = default_constant(e).map(|v| crate::value::affinity::apply_column_affinity(v, col.affinity));
                        }
                        ColumnConstraint::Generated { expr, .. } => {
                            col.generated = Some(Generated { expr: expr.to_string(), stored: cd.flags.contains(ast::ColFlags::STORED) });
                        }
                        ColumnConstraint::Collate { collation_name } => col.collation = Some(unquote(collation_name.0)),
                        ColumnConstraint::Check(e) => t.checks.push((c.name.as_ref().map(|n| unquote(n.0)), e.to_string())),
                        ColumnConstraint::ForeignKey { clause, defer_clause } => {
                            t.foreign_keys.push(foreign_key(vec![idx], clause, defer_clause.as_ref()));
                        }
                        // A DEFERRABLE clause after REFERENCES applies to
                        // the foreign key just declared.
                        ColumnConstraint::Defer(d) => {
                            if let Some(fk) = t.foreign_keys.last_mut() {
                                fk.deferred = d.deferrable && matches!(d.init_deferred, Some(ast::InitDeferredPred::InitiallyDeferred));
                            }
                        }
                    }
                }
                t.columns.push(col);
            }
            for c in constraints.iter().flat_map(|c| c.iter()) {
                let cols_of = |cols: &[ast::SortedColumn<'_>], t: &Table| -> Result<Vec<(usize, bool, Option<String>)>> {
                    cols.iter()
                        .map(|sc| {
                            let (e, coll) = match &sc.expr {
                                ast::Expr::Collate(e, c) => (&**e, Some(unquote(c))),
                                e => (e, None),
                            };
                            let n = match e {
                                ast::Expr::Id(id) => unquote(id.0),
                                ast::Expr::Name(n) => unquote(n.0),
                                ast::Expr::Literal(ast::Literal::String(s)) => unquote(s),
                                _ => return Err(Error::sql("expressions prohibited in PRIMARY KEY and UNIQUE constraints")),
                            };
                            let i = t.column_index(&n).ok_or_else(|| Error::sql(format!("no such column: {n}")))?;
                            Ok((i, matches!(sc.order, Some(SortOrder::Desc)), coll))
                        })
                        .collect()
                };
                match &c.constraint {
                    TableConstraint::PrimaryKey { columns: pk, auto_increment, conflict_clause } => {
                        if std::mem::replace(&mut has_primary_key, true) {
                            return Err(Error::sql(format!("table \"{}\" has more than one primary key", t.name)));
                        }
                        let cols = cols_of(pk, &t)?;
                        t.pk_conflict = t.pk_conflict.or(*conflict_clause);
                        t.autoincrement |= *auto_increment;
                        for (i, _, _) in &cols {
                            t.columns[*i].primary_key = true;
                        }
                        let single_int = cols.len() == 1 && t.columns[cols[0].0].decltype.as_deref().is_some_and(|d| d.eq_ci("INTEGER")) && !cols[0].1;
                        if single_int {
                            t.rowid_alias = Some(cols[0].0);
                        } else {
                            add_auto_index(&mut t, cols, true);
                        }
                    }
                    TableConstraint::Check(e, _) => t.checks.push((c.name.as_ref().map(|n| unquote(n.0)), e.to_string())),
                    TableConstraint::ForeignKey { columns: fc, clause, defer_clause } => {
                        let mut cols = Vec::new();
                        for ic in fc.iter() {
                            let n = unquote(ic.col_name.0);
                            let i = t.column_index(&n).ok_or_else(|| Error::sql(format!("unknown column \"{n}\" in foreign key definition")))?;
                            cols.push(i);
                        }
                        t.foreign_keys.push(foreign_key(cols, clause, defer_clause.as_ref()));
                    }
                    TableConstraint::Unique { columns: u, conflict_clause } => {
                        let cols = cols_of(u, &t)?;
                        if let Some(r) = conflict_clause {
                            t.unique_conflicts.push((cols.iter().map(|c| c.0).collect(), *r));
                        }
                        add_auto_index(&mut t, cols, false);
                    }
                }
            }
            if t.strict {
                for c in t.columns.iter_mut() {
                    let ty = c.decltype.clone().unwrap_or_default().ascii_upper();
                    c.affinity = match ty.as_str() {
                        "INT" | "INTEGER" => Affinity::Integer,
                        "REAL" => Affinity::Real,
                        "TEXT" => Affinity::Text,
                        "BLOB" | "ANY" => Affinity::Blob,
                        _ => {
                            let shown = c.decltype.clone().unwrap_or_default();
                            if shown.is_empty() {
                                return Err(Error::sql(format!("missing datatype for {}.{}", t.name, c.name)));
                            }
                            return Err(Error::sql(format!("unknown datatype for {}.{}: \"{}\"", t.name, c.name, shown)));
                        }
                    };
                }
                // The PRIMARY KEY columns of a STRICT table are NOT NULL
                // (but an INTEGER PRIMARY KEY, the rowid).
                let pk: Vec<usize> = t.auto_indexes.iter().filter(|(_, is_pk)| *is_pk).flat_map(|(cols, _)| cols.iter().map(|c| c.0)).collect();
                for c in pk {
                    t.columns[c].not_null = true;
                }
            }
            if flags.contains(ast::TabFlags::WithoutRowid) {
                let Some(pos) = t.auto_indexes.iter().position(|(_, is_pk)| *is_pk).or(t.rowid_alias.map(|_| usize::MAX)) else {
                    return Err(Error::sql(format!("PRIMARY KEY missing on table {}", t.name)));
                };
                if t.autoincrement {
                    return Err(Error::sql("AUTOINCREMENT not allowed on WITHOUT ROWID tables"));
                }
                // An INTEGER PRIMARY KEY is an ordinary key column here.
                // Its automatic index is numbered after the others (SQLite
                // makes it when the table is complete).
                let pk = match t.rowid_alias.take() {
                    Some(c) if pos == usize::MAX => {
                        add_auto_index(&mut t, vec![(c, false, None)], true);
                        t.auto_indexes.iter().find(|(_, is_pk)| *is_pk).map(|(cols, _)| cols.clone()).unwrap_or_default()
                    }
                    _ => t.auto_indexes[pos].0.clone(),
                };
                // PRIMARY KEY columns of a WITHOUT ROWID table are NOT NULL.
                for (c, _, _) in &pk {
                    t.columns[*c].not_null = true;
                }
                t.without_rowid = Some(pk);
            }
            // CHECK messages quote the expression as written.
            let written = check_texts(sql);
            if written.len() == t.checks.len() {
                for (c, w) in t.checks.iter_mut().zip(written) {
                    c.1 = w;
                }
            }
            // invariant: rowid_alias_integer_pk
            debug_assert!(
                t.rowid_alias.is_none_or(|c| t.without_rowid.is_none()
                    && t.columns[c].primary_key
                    && t.columns[c].decltype.as_deref().is_some_and(|d| d.eq_ci("INTEGER"))),
                "{}: rowid alias is not an INTEGER PRIMARY KEY column",
                t.name
            );
            Ok(t)
        }
        Stmt::CreateView { view_name, columns, select, .. } => {
            let name = unquote(view_name.name.0);
            let sel = crate::sql::parse::ast_text(*select);
            Ok(Table {
                name,
                sql: sql.to_string(),
                view_select: Some(sel),
                view_columns: columns.map(|cs| cs.iter().map(|c| unquote(c.col_name.0)).collect()),
                ..Table::default()
            })
        }
        Stmt::CreateVirtualTable { tbl_name, module_name, args, .. } => Ok(virtual_table_entry(
            unquote(tbl_name.name.0),
            VirtualTable { module: unquote(module_name.0), args: args.iter().flat_map(|a| a.iter()).map(|a| a.trim().to_string()).collect() },
            sql,
        )),
        _ => Err(Error::corrupt()),
    }
}

/// The schema entry of a virtual table: no b-tree, no columns (they are
/// declared by its module when it connects).
pub fn virtual_table_entry(name: String, vtab: VirtualTable, sql: &str) -> Table {
    Table { name, sql: sql.to_string(), virtual_table: Some(Arc::new(vtab)), ..Table::default() }
}

/// A foreign key from its parsed clause.
fn foreign_key(columns: Vec<usize>, clause: &ast::ForeignKeyClause<'_>, defer: Option<&ast::DeferSubclause>) -> ForeignKey {
    let action = |a: &ast::RefAct| match a {
        ast::RefAct::SetNull => FkAction::SetNull,
        ast::RefAct::SetDefault => FkAction::SetDefault,
        ast::RefAct::Cascade => FkAction::Cascade,
        ast::RefAct::Restrict => FkAction::Restrict,
        ast::RefAct::NoAction => FkAction::NoAction,
    };
    let mut fk = ForeignKey {
        columns,
        parent: unquote(clause.tbl_name.0),
        parent_columns: clause.columns.map(|cs| cs.iter().map(|c| unquote(c.col_name.0)).collect()).unwrap_or_default(),
        on_delete: FkAction::NoAction,
        on_update: FkAction::NoAction,
        deferred: defer.is_some_and(|d| d.deferrable && matches!(d.init_deferred, Some(ast::InitDeferredPred::InitiallyDeferred))),
    };
    for arg in clause.args.iter() {
        match arg {
            ast::RefArg::OnDelete(a) => fk.on_delete = action(a),
            ast::RefArg::OnUpdate(a) => fk.on_update = action(a),
            _ => {}
        }
    }
    fk
}

/// The source text inside each `CHECK(...)` of a CREATE TABLE, in order.
fn check_texts(sql: &str) -> Vec<String> {
    use sqlite3_parser::dialect::TokenType;
    let b = sql.as_bytes();
    let toks = crate::sql::parse::tokens(b).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokenType::TK_CHECK || toks.get(i + 1).is_none_or(|x| x.kind != TokenType::TK_LP) {
            continue;
        }
        let mut depth = 0;
        let start = toks[i + 1].end;
        for u in &toks[i + 1..] {
            match u.kind {
                TokenType::TK_LP => depth += 1,
                TokenType::TK_RP => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(String::from_utf8_lossy(&b[start..u.start]).trim().to_string());
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The value of a constant expression (literals, signed numbers).
/// The value of a DEFAULT clause when it is constant: `constant_value`,
/// plus the bare names SQLite reads as text there (`DEFAULT abc` is
/// 'abc'; `true` and `false` are 1 and 0).
pub fn default_constant(e: &ast::Expr<'_>) -> Option<Value> {
    match e {
        ast::Expr::Id(id) if id.0.eq_ci("true") => Some(Value::Integer(1)),
        ast::Expr::Id(id) if id.0.eq_ci("false") => Some(Value::Integer(0)),
        ast::Expr::Id(id) => Some(Value::text(unquote(id.0))),
        _ => constant_value(e),
    }
}

impl Column {
    /// The DEFAULT as SQL text to compile (None without one).
    pub fn default_sql(&self) -> Option<String> {
        if !self.default_is_name {
            return self.default.clone();
        }
        Some(match &self.default_value {
            Some(Value::Integer(i)) => i.to_string(),
            Some(Value::Text(t)) => format!("'{}'", String::from_utf8_lossy(t).replace('\'', "''")),
            _ => return self.default.clone(),
        })
    }
}

pub fn constant_value(e: &ast::Expr<'_>) -> Option<Value> {
    use crate::value::literal::{parse_numeric, Number};
    match e {
        ast::Expr::Literal(ast::Literal::Numeric(s)) => Some(match parse_numeric(s).ok()? {
            Number::Int(i) => Value::Integer(i),
            Number::Real(r) => Value::Real(r),
        }),
        ast::Expr::Literal(ast::Literal::String(s)) => Some(Value::Text(crate::sql::parse::string_literal_bytes(s))),
        ast::Expr::Literal(ast::Literal::Null) => Some(Value::Null),
        // -9223372036854775808 is the smallest integer, not a REAL.
        ast::Expr::Unary(ast::UnaryOperator::Negative, x) if matches!(&**x, ast::Expr::Literal(ast::Literal::Numeric(s)) if s.parse::<u64>() == Ok(1u64 << 63)) => {
            Some(Value::Integer(i64::MIN))
        }
        ast::Expr::Unary(ast::UnaryOperator::Negative, x) => match constant_value(x)? {
            // (The smallest integer negated does not fit: a REAL.)
            Value::Integer(i64::MIN) => Some(Value::Real(9223372036854775808.0)),
            Value::Integer(i) => Some(Value::Integer(i.wrapping_neg())),
            Value::Real(r) => Some(Value::Real(-r)),
            // Negating text negates its numeric value ('x' counts as 0).
            t @ Value::Text(_) => match crate::value::affinity::cast(t, Affinity::Numeric) {
                Value::Integer(i) => Some(Value::Integer(i.wrapping_neg())),
                Value::Real(r) => Some(Value::Real(-r)),
                _ => None,
            },
            _ => None,
        },
        ast::Expr::Unary(ast::UnaryOperator::Positive, x) => constant_value(x),
        ast::Expr::Parenthesized(v) if v.len() == 1 => constant_value(&v[0]),
        _ => None,
    }
}

/// Build an index from its stored CREATE INDEX statement.
pub fn index_from_sql(sql: &str, root: u32, schema: &Schema) -> Result<Index> {
    with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(Cmd::Stmt(stmt)) => index_from_stmt(stmt, Some(sql.to_string()), root, schema),
        _ => Err(Error::corrupt()),
    })
}

/// What a CREATE INDEX statement says before its table is looked up:
/// kept by the check of the schema's rows (`stored_check.rs`) so that a
/// read of the schema builds the index without parsing its text again.
#[derive(Debug, Clone)]
pub struct IndexSpec {
    /// The index's and its table's names, unquoted.
    name: String,
    table: String,
    unique: bool,
    terms: Vec<IndexTerm>,
    where_sql: Option<String>,
}

/// One term of an [`IndexSpec`].
#[derive(Debug, Clone)]
struct IndexTerm {
    /// The column it names: a name, also in parentheses, or a string
    /// literal, which SQLite takes as a name there.
    name: Option<String>,
    /// Its expression's text: for a term naming no column, and for a
    /// double-quoted name, which is the string when no column has it.
    expr: Option<String>,
    descending: bool,
    collation: Option<String>,
}

impl IndexSpec {
    /// The parts of a CREATE INDEX statement.
    pub fn from_stmt(stmt: &Stmt<'_>) -> Result<IndexSpec> {
        let Stmt::CreateIndex { unique, idx_name, tbl_name, columns, where_clause, .. } = stmt else {
            return Err(Error::corrupt());
        };
        let terms = columns
            .iter()
            .map(|sc| {
                let (mut e, coll) = match &sc.expr {
                    ast::Expr::Collate(e, c) => (&**e, Some(unquote(c))),
                    e => (e, None),
                };
                // Parentheses around a column name still index the column.
                while let ast::Expr::Parenthesized(v) = e {
                    if v.len() != 1 {
                        break;
                    }
                    e = &v[0];
                }
                let name = match e {
                    ast::Expr::Id(id) => Some(unquote(id.0)),
                    ast::Expr::Name(n) => Some(unquote(n.0)),
                    ast::Expr::Literal(ast::Literal::String(s)) => Some(unquote(s)),
                    _ => None,
                };
                let quoted = matches!(e, ast::Expr::Id(id) if id.0.starts_with('"'));
                let expr = (name.is_none() || quoted).then(|| e.to_string());
                IndexTerm { name, expr, descending: matches!(sc.order, Some(SortOrder::Desc)), collation: coll }
            })
            .collect();
        Ok(IndexSpec {
            name: unquote(idx_name.name.0),
            table: unquote(tbl_name.0),
            unique: *unique,
            terms,
            where_sql: where_clause.as_ref().map(|w| w.to_string()),
        })
    }

    /// The index on its table in `schema` (`sql`: its text, `None` for
    /// the check of the rows, which needs only the outcome).
    pub fn build(&self, sql: Option<String>, root: u32, schema: &Schema) -> Result<Index> {
        let tname = &self.table;
        let t = schema.table(tname).ok_or_else(|| Error::sql(format!("no such table: main.{tname}")))?;
        let mut cols = Vec::with_capacity(self.terms.len());
        for term in &self.terms {
            let (descending, collation) = (term.descending, term.collation.clone());
            let column = match &term.name {
                Some(n) => t.column_index(n),
                None => None,
            };
            match (column, &term.name, &term.expr) {
                (Some(i), ..) => cols.push(IndexColumn { column: Some(i), expr: None, descending, collation }),
                // A double-quoted name no column has is an expression: the
                // string, where double-quoted strings are allowed.
                (None, _, Some(e)) => cols.push(IndexColumn { column: None, expr: Some(e.clone()), descending, collation }),
                (None, Some(n), None) => return Err(Error::sql(format!("no such column: {n}"))),
                (None, None, None) => return Err(Error::corrupt()),
            }
        }
        Ok(Index {
            name: self.name.clone(),
            db: t.db,
            table: t.name.clone(),
            root,
            columns: cols,
            unique: self.unique,
            sql,
            origin: "c",
            where_sql: self.where_sql.clone(),
            on_conflict: None,
            stat: None,
        })
    }
}

/// Build an index from a CREATE INDEX statement.
pub fn index_from_stmt(stmt: &Stmt<'_>, sql: Option<String>, root: u32, schema: &Schema) -> Result<Index> {
    IndexSpec::from_stmt(stmt)?.build(sql, root, schema)
}
