//! The name walk of ALTER TABLE RENAME: one CREATE statement's tree (parsed
//! from its tagged text, see `tagged.rs`) is walked with the scopes SQL
//! name resolution uses (FROM sources by level, CTEs, a trigger's NEW and
//! OLD, result-column aliases in ORDER BY and GROUP BY), and every token
//! that names the renamed table, or the renamed column of that table, is
//! recorded by its token index.
//!
//! Invariants: a name is recorded only when it resolves to the target
//! (the same table of the same database, not an alias or a CTE of the same
//! name); nothing else of the text is touched. A table name that resolves
//! to nothing is reported as SQLite reports it (`no such table: ...`).

use super::tagged::{index, plain};
use crate::sql::schema::{Schema, Table};
use sqlite3_parser::ast::{self, Expr, Name, OneSelect, QualifiedName, ResultColumn, Select, SelectTable, Stmt, TriggerCmd};

/// What is renamed: table `table` of database `db`, or its column `column`.
pub struct Target {
    /// Database of the table.
    pub db: usize,
    /// The table's current name.
    pub table: String,
    /// The column being renamed (RENAME COLUMN), `None` for RENAME TABLE.
    pub column: Option<String>,
    /// `PRAGMA legacy_alter_table`: only CREATE TABLE, CREATE INDEX and a
    /// trigger's ON clause are edited, and nothing is checked.
    pub legacy: bool,
    /// REFERENCES clauses naming the table are edited (not in legacy mode
    /// with foreign keys off).
    pub references: bool,
}

/// One FROM source (or a trigger's NEW/OLD) as name resolution sees it.
struct Source {
    /// The name it is referred to by (its alias, else the table's name).
    name: String,
    /// Referred to by an alias (its table name does not appear there).
    aliased: bool,
    /// It is the target table.
    is_target: bool,
    /// Its column names.
    columns: Vec<String>,
    /// Only `name.column` reaches it (a trigger's NEW and OLD).
    qualified_only: bool,
    /// Its column list is known exactly (a name not in it is an error).
    complete: bool,
}

impl Source {
    fn new(name: String, aliased: bool, is_target: bool, columns: Vec<String>) -> Self {
        Source { name, aliased, is_target, columns, qualified_only: false, complete: true }
    }
}

/// A common table expression in scope.
struct Cte {
    name: String,
    columns: Vec<String>,
    complete: bool,
}

/// The walk of one statement.
pub struct Walker<'a> {
    schema: &'a Schema,
    db_names: &'a [String],
    target: &'a Target,
    /// Database of the object walked (its unqualified names resolve there).
    home_db: usize,
    /// Token indexes naming the target.
    pub hits: Vec<usize>,
    /// The first name that resolved to nothing.
    pub error: Option<String>,
    /// Token indexes of double-quoted names that are strings.
    pub strings: Vec<usize>,
    levels: Vec<Vec<Source>>,
    /// Result-column aliases of the SELECTs being walked, by level.
    aliases: Vec<Vec<String>>,
    ctes: Vec<Cte>,
    /// Views being expanded (their columns), against cycles.
    expanding: Vec<String>,
    /// Sources of unknown columns met so far (table-valued functions).
    unknown_sources: usize,
    /// Inside a CTE the statement never reads: the views it reads are not
    /// expanded (no cycle is reported).
    quiet: usize,
    /// How many identifier tokens of the text spell each name (lower case).
    name_counts: std::collections::HashMap<String, usize>,
}

fn eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// A name that is no schema table but still reads as one: the schema
/// tables, table-valued functions used without arguments.
fn is_builtin_table(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("sqlite_") || lower.starts_with("pragma_") || ["json_each", "json_tree", "jsonb_each", "jsonb_tree", "generate_series", "dbstat"].contains(&lower.as_str())
}

/// The columns the results of a SELECT core read directly (`a`, `t.a`),
/// aliased or not.
fn columns_read(s: &OneSelect<'_>) -> Vec<String> {
    match s {
        OneSelect::Select { columns, .. } => columns
            .iter()
            .filter_map(|rc| match rc {
                ResultColumn::Expr(Expr::Id(c), _) => Some(plain(c.0)),
                ResultColumn::Expr(Expr::Qualified(_, c) | Expr::DoublyQualified(_, _, c), _) => Some(plain(c.0)),
                _ => None,
            })
            .collect(),
        OneSelect::Values(_) => Vec::new(),
    }
}

/// 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn is_rowid(name: &str) -> bool {
    ["rowid", "oid", "_rowid_"].iter().any(|r| eq(r, name))
}

fn alias_of(a: &ast::As<'_>) -> String {
    match a {
        ast::As::As(n) | ast::As::Elided(n) => plain(n.0),
    }
}

impl<'a> Walker<'a> {
    /// A walker for an object of database `home_db`.
    pub fn new(schema: &'a Schema, db_names: &'a [String], target: &'a Target, home_db: usize) -> Self {
        Walker {
            schema,
            db_names,
            target,
            home_db,
            hits: Vec::new(),
            error: None,
            strings: Vec::new(),
            levels: Vec::new(),
            aliases: Vec::new(),
            ctes: Vec::new(),
            expanding: Vec::new(),
            unknown_sources: 0,
            quiet: 0,
            name_counts: Default::default(),
        }
    }

    /// Count the identifier tokens of the walked text (`texts`: each
    /// token's text, quoted as written).
    pub fn count_names<'t>(&mut self, texts: impl Iterator<Item = &'t str>) {
        for t in texts {
            *self.name_counts.entry(crate::sql::parse::unquote(t).to_ascii_lowercase()).or_default() += 1;
        }
    }

    fn renames_table(&self) -> bool {
        self.target.column.is_none()
    }

    fn is_target_column(&self, name: &str) -> bool {
        self.target.column.as_deref().is_some_and(|c| eq(c, &plain(name)))
    }

    fn hit(&mut self, name: &str) {
        if let Some(i) = index(name) {
            self.hits.push(i);
        }
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
    }

    fn db_index(&self, name: &str) -> Option<usize> {
        self.db_names.iter().position(|n| eq(n, name))
    }

    fn db_name(&self, db: usize) -> String {
        self.db_names.get(db).cloned().unwrap_or_else(|| "main".into())
    }

    /// The table a (possibly qualified) name refers to from this object.
    fn resolve_table(&self, db: Option<&Name<'_>>, name: &Name<'_>) -> Option<&'a Table> {
        let name = plain(name.0);
        match db {
            Some(d) => self.schema.table_in(Some(self.db_index(&plain(d.0))?), &name),
            None if self.home_db != 1 => self.schema.table_in(Some(self.home_db), &name).or_else(|| self.schema.table(&name)),
            None => self.schema.table(&name),
        }
    }

    fn is_target_table(&self, t: &Table) -> bool {
        t.db == self.target.db && eq(&t.name, &self.target.table)
    }

    /// Column names of a table or view, and whether they are known.
    fn columns_of(&mut self, t: &Table) -> (Vec<String>, bool) {
        let Some(select) = t.view_select.as_deref() else { return (t.columns.iter().map(|c| c.name.clone()).collect(), true) };
        if self.expanding.iter().any(|v| eq(v, &t.name)) || self.expanding.len() > 32 {
            // (SQLite expands no view for a CTE nothing reads.)
            if self.quiet == 0 {
                self.fail(format!("view {} is circularly defined", t.name));
            }
            return (Vec::new(), false);
        }
        // The view's own names, from its SELECT (walked apart: its
        // tokens are not this text's).
        let tagged = super::tagged::tag(select);
        let mut inner = Walker::new(self.schema, self.db_names, self.target, t.db);
        inner.expanding = self.expanding.clone();
        inner.expanding.push(t.name.clone());
        inner.count_names(tagged.toks.iter().filter(|k| matches!(k.kind, sqlite3_parser::dialect::TokenType::TK_ID | sqlite3_parser::dialect::TokenType::TK_STRING)).map(|k| &select[k.start..k.end]));
        let names = crate::sql::parse::with_first_statement(tagged.text.as_bytes(), |cmd, _| {
            Ok(match cmd {
                Some(ast::Cmd::Stmt(Stmt::Select(sel))) => inner.select(sel),
                _ => Vec::new(),
            })
        })
        .unwrap_or_default();
        if let Some(e) = inner.error.as_ref().filter(|e| e.ends_with("is circularly defined")) {
            self.fail(e.clone());
        }
        // (An unnamed result is named by its text, which is not known.)
        let complete = inner.error.is_none() && inner.unknown_sources == 0 && !names.iter().any(String::is_empty);
        match &t.view_columns {
            Some(declared) => (declared.clone(), complete),
            None => (names, complete),
        }
    }

    /// Walk one CREATE statement.
    pub fn statement(&mut self, stmt: &Stmt<'_>) {
        match stmt {
            // (Legacy mode: the names SQLite edited before 3.25.)
            Stmt::CreateView { .. } if self.target.legacy => {}
            Stmt::CreateTable { tbl_name, body, .. } if self.target.legacy => {
                if self.home_db == self.target.db && eq(&plain(tbl_name.name.0), &self.target.table) {
                    self.hit(tbl_name.name.0);
                }
                let ast::CreateTableBody::ColumnsAndConstraints { columns, constraints, .. } = body else { return };
                for k in columns.iter().flat_map(|c| c.constraints.iter()) {
                    if let ast::ColumnConstraint::ForeignKey { clause, .. } = &k.constraint {
                        self.foreign_key(clause);
                    }
                }
                for k in constraints.iter().flat_map(|c| c.iter()) {
                    if let ast::TableConstraint::ForeignKey { clause, .. } = &k.constraint {
                        self.foreign_key(clause);
                    }
                }
            }
            Stmt::CreateIndex { tbl_name, .. } if self.target.legacy => {
                if self.home_db == self.target.db && eq(&plain(tbl_name.0), &self.target.table) {
                    self.hit(tbl_name.0);
                }
            }
            Stmt::CreateTrigger { tbl_name, .. } if self.target.legacy => {
                if self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name).is_some_and(|t| self.is_target_table(t)) {
                    self.hit(tbl_name.name.0);
                }
            }
            Stmt::CreateTable { tbl_name, body, .. } => self.create_table(tbl_name, body),
            Stmt::CreateIndex { tbl_name, columns, where_clause, .. } => {
                let table = self.schema.table_in(Some(self.home_db), &plain(tbl_name.0));
                let Some(table) = table else { return };
                let is_target = self.is_target_table(table);
                if is_target && self.renames_table() {
                    self.hit(tbl_name.0);
                }
                let (names, complete) = self.columns_of(table);
                let source = Source { complete, ..Source::new(table.name.clone(), false, is_target, names) };
                self.levels.push(vec![source]);
                for c in columns.iter() {
                    self.expr(&c.expr);
                }
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            Stmt::CreateView { view_name, select, .. } => {
                self.expanding.push(plain(view_name.name.0));
                self.select(select);
            }
            Stmt::CreateTrigger { tbl_name, event, when_clause, commands, .. } => self.trigger(tbl_name, event, when_clause.as_ref(), commands),
            _ => {}
        }
    }

    fn create_table(&mut self, tbl_name: &QualifiedName<'_>, body: &ast::CreateTableBody<'_>) {
        let name = plain(tbl_name.name.0);
        let is_target = self.home_db == self.target.db && eq(&name, &self.target.table);
        if is_target && self.renames_table() {
            self.hit(tbl_name.name.0);
        }
        let ast::CreateTableBody::ColumnsAndConstraints { columns, constraints, .. } = body else { return };
        let names = columns.iter().map(|c| plain(c.col_name.0)).collect();
        self.levels.push(vec![Source::new(name, false, is_target, names)]);
        for c in columns.iter() {
            if is_target && self.is_target_column(c.col_name.0) {
                self.hit(c.col_name.0);
            }
            for k in c.constraints.iter() {
                match &k.constraint {
                    ast::ColumnConstraint::Check(e) | ast::ColumnConstraint::Generated { expr: e, .. } => self.expr(e),
                    ast::ColumnConstraint::ForeignKey { clause, .. } => self.foreign_key(clause),
                    _ => {}
                }
            }
        }
        for k in constraints.iter().flat_map(|c| c.iter()) {
            match &k.constraint {
                ast::TableConstraint::PrimaryKey { columns, .. } | ast::TableConstraint::Unique { columns, .. } => {
                    for c in columns.iter() {
                        self.expr(&c.expr);
                    }
                }
                ast::TableConstraint::Check(e, _) => self.expr(e),
                ast::TableConstraint::ForeignKey { columns, clause, .. } => {
                    for c in columns.iter() {
                        if is_target && self.is_target_column(c.col_name.0) {
                            self.hit(c.col_name.0);
                        }
                    }
                    self.foreign_key(clause);
                }
            }
        }
        self.levels.pop();
    }

    /// `REFERENCES parent(columns)`: the parent is in the same database.
    fn foreign_key(&mut self, clause: &ast::ForeignKeyClause<'_>) {
        let parent_is_target = self.home_db == self.target.db && eq(&plain(clause.tbl_name.0), &self.target.table);
        if !parent_is_target || !self.target.references {
            return;
        }
        if self.renames_table() {
            self.hit(clause.tbl_name.0);
        }
        for c in clause.columns.iter().flat_map(|c| c.iter()) {
            if self.is_target_column(c.col_name.0) {
                self.hit(c.col_name.0);
            }
        }
    }

    fn trigger(&mut self, tbl_name: &QualifiedName<'_>, event: &ast::TriggerEvent<'_>, when: Option<&Expr<'_>>, commands: &[TriggerCmd<'_>]) {
        let Some(table) = self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name) else {
            return;
        };
        let is_target = self.is_target_table(table);
        if is_target && self.renames_table() {
            self.hit(tbl_name.name.0);
        }
        if let ast::TriggerEvent::UpdateOf(cols) = event {
            for c in cols.iter() {
                if is_target && self.is_target_column(c.0) {
                    self.hit(c.0);
                }
            }
        }
        let (columns, complete) = self.columns_of(table);
        let row = |name: &str| Source { qualified_only: true, complete, ..Source::new(name.into(), true, is_target, columns.clone()) };
        self.levels.push(vec![row("new"), row("old")]);
        if let Some(w) = when {
            self.expr(w);
        }
        for cmd in commands {
            self.trigger_command(cmd);
        }
        self.levels.pop();
    }

    /// The source a trigger statement writes to.
    fn written_table(&mut self, tbl_name: &QualifiedName<'_>) -> Source {
        let src = self.table_source(tbl_name, None);
        if src.columns.is_empty() && self.error.is_none() && self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name).is_none() {
            let db = self.db_name(if self.home_db == 1 { 0 } else { self.home_db });
            self.fail(format!("no such table: {db}.{}", plain(tbl_name.name.0)));
        }
        src
    }

    fn sets(&mut self, sets: &[ast::Set<'_>], is_target: bool) {
        for s in sets {
            for c in s.col_names.iter() {
                if is_target && self.is_target_column(c.0) {
                    self.hit(c.0);
                }
            }
            self.expr(&s.expr);
        }
    }

    fn trigger_command(&mut self, cmd: &TriggerCmd<'_>) {
        match cmd {
            TriggerCmd::Update { tbl_name, sets, from, where_clause, .. } => {
                let src = self.written_table(tbl_name);
                let is_target = src.is_target;
                self.levels.push(vec![src]);
                if let Some(f) = from {
                    self.from(f);
                }
                self.sets(sets, is_target);
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            TriggerCmd::Insert { tbl_name, col_names, select, upsert, .. } => {
                let src = self.written_table(tbl_name);
                let is_target = src.is_target;
                for c in col_names.iter().flat_map(|c| c.iter()) {
                    if is_target && self.is_target_column(c.0) {
                        self.hit(c.0);
                    }
                }
                self.select(select);
                // (SQLite renames `excluded` itself with the table.)
                let excluded = Source { complete: src.complete, ..Source::new("excluded".into(), false, is_target, src.columns.clone()) };
                self.levels.push(vec![src, excluded]);
                let mut next = *upsert;
                while let Some(u) = next {
                    if let Some(ix) = &u.index {
                        for t in ix.targets.iter() {
                            self.expr(&t.expr);
                        }
                        if let Some(w) = &ix.where_clause {
                            self.expr(w);
                        }
                    }
                    if let ast::UpsertDo::Set { sets, where_clause } = &u.do_clause {
                        self.sets(sets, is_target);
                        if let Some(w) = where_clause {
                            self.expr(w);
                        }
                    }
                    next = u.next;
                }
                self.levels.pop();
            }
            TriggerCmd::Delete { tbl_name, where_clause } => {
                let src = self.written_table(tbl_name);
                self.levels.push(vec![src]);
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            TriggerCmd::Select(s) => {
                self.select(s);
            }
        }
    }

    /// The source a table name in FROM stands for (a CTE first).
    fn table_source(&mut self, qn: &QualifiedName<'_>, alias: Option<&ast::As<'_>>) -> Source {
        let name = plain(qn.name.0);
        let alias = alias.map(alias_of);
        if qn.db_name.is_none() {
            if let Some(cte) = self.ctes.iter().rev().find(|c| eq(&c.name, &name)) {
                return Source { complete: cte.complete, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), false, cte.columns.clone()) };
            }
        }
        match self.resolve_table(qn.db_name.as_ref(), &qn.name) {
            Some(t) => {
                let is_target = self.is_target_table(t);
                if is_target && self.renames_table() {
                    self.hit(qn.name.0);
                }
                let (columns, complete) = self.columns_of(t);
                Source { complete, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), is_target, columns) }
            }
            None => {
                self.unknown_sources += 1;
                Source { complete: false, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), false, Vec::new()) }
            }
        }
    }

    fn missing_table(&mut self, qn: &QualifiedName<'_>) {
        if self.resolve_table(qn.db_name.as_ref(), &qn.name).is_some() {
            return;
        }
        let name = plain(qn.name.0);
        if is_builtin_table(&name) {
            return;
        }
        if qn.db_name.is_none() && self.ctes.iter().any(|c| eq(&c.name, &name)) {
            return;
        }
        let db = match &qn.db_name {
            Some(d) => plain(d.0),
            None => self.db_name(if self.home_db == 1 { 0 } else { self.home_db }),
        };
        self.fail(format!("no such table: {db}.{name}"));
    }

    /// Add a FROM clause's sources to the innermost level, each join's
    /// constraint walked once its right side is there.
    fn from(&mut self, from: &ast::FromClause<'_>) {
        crate::sql::parse::with_stack(|| self.from_inner(from));
    }

    fn from_inner(&mut self, from: &ast::FromClause<'_>) {
        if let Some(first) = from.select {
            self.select_table(first);
        }
        for j in from.joins.iter().flat_map(|j| j.iter()) {
            let before = self.levels.last().map_or(0, |l| l.len());
            self.select_table(&j.table);
            match &j.constraint {
                Some(ast::JoinConstraint::On(e)) => self.expr(e),
                Some(ast::JoinConstraint::Using(names)) => {
                    for n in names.iter() {
                        self.using_column(n.0, before);
                    }
                }
                None => {}
            }
        }
    }

    fn select_table(&mut self, t: &SelectTable<'_>) {
        let source = match t {
            SelectTable::Table(qn, alias, _) => {
                self.missing_table(qn);
                self.table_source(qn, alias.as_ref())
            }
            SelectTable::TableCall(qn, args, alias) => {
                for a in args.iter().flat_map(|a| a.iter()) {
                    self.expr(a);
                }
                let name = alias.as_ref().map_or_else(|| plain(qn.name.0), alias_of);
                self.unknown_sources += 1;
                Source { complete: false, ..Source::new(name, true, false, Vec::new()) }
            }
            SelectTable::Select(sel, alias) => {
                // (A subquery in FROM does not see the sources beside it.)
                let unknown = self.unknown_sources;
                let beside = self.levels.pop();
                let columns = self.select(sel);
                self.levels.extend(beside);
                let name = alias.as_ref().map(alias_of).unwrap_or_default();
                let complete = unknown == self.unknown_sources && !columns.iter().any(String::is_empty);
                Source { complete, ..Source::new(name, true, false, columns) }
            }
            SelectTable::Sub(from, _) => {
                self.from(from);
                return;
            }
        };
        if let Some(level) = self.levels.last_mut() {
            level.push(source);
        }
    }

    fn with(&mut self, with: &ast::With<'_>) {
        for cte in with.ctes.iter() {
            let name = plain(cte.tbl_name.0);
            let declared: Option<Vec<String>> = cte.columns.map(|cs| cs.iter().map(|c| plain(c.col_name.0)).collect());
            // A CTE the statement never names again expands no view.
            let unused = self.name_counts.get(&name.to_ascii_lowercase()).is_some_and(|&n| n <= 1);
            self.quiet += usize::from(unused);
            let unknown = self.unknown_sources;
            if with.recursive {
                // The CTE may read itself.
                self.ctes.push(Cte { name: name.clone(), columns: declared.clone().unwrap_or_default(), complete: declared.is_some() });
                let names = self.select(cte.select);
                self.ctes.pop();
                let complete = unknown == self.unknown_sources && (declared.is_some() || !names.iter().any(String::is_empty));
                self.ctes.push(Cte { name, columns: declared.unwrap_or(names), complete });
            } else {
                let names = self.select(cte.select);
                let complete = unknown == self.unknown_sources && (declared.is_some() || !names.iter().any(String::is_empty));
                self.ctes.push(Cte { name, columns: declared.unwrap_or(names), complete });
            }
            self.quiet -= usize::from(unused);
        }
    }

    /// Walk a SELECT; its result column names.
    pub fn select(&mut self, sel: &Select<'_>) -> Vec<String> {
        crate::sql::parse::with_stack(|| self.select_inner(sel))
    }

    fn select_inner(&mut self, sel: &Select<'_>) -> Vec<String> {
        let ctes = self.ctes.len();
        if let Some(w) = &sel.with {
            self.with(w);
        }
        let compound = sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty());
        let (names, aliases) = self.one_select(&sel.body.select);
        if let Some(order_by) = sel.order_by {
            let read = if compound { columns_read(&sel.body.select) } else { Vec::new() };
            for term in order_by.iter() {
                // A bare name matching a result alias is that column; in
                // a compound, another bare name is a column the first
                // SELECT reads, or no column at all (see
                // `compound_order_by`).
                let mut e = &term.expr;
                while let Expr::Collate(inner, _) = e {
                    e = inner;
                }
                let bare = match e {
                    Expr::Id(id) => Some(plain(id.0)),
                    _ => None,
                };
                if let Some(b) = bare {
                    if aliases.iter().any(|a| eq(a, &b)) || (compound && !read.iter().any(|r| eq(r, &b))) {
                        continue;
                    }
                }
                self.expr(&term.expr);
            }
        }
        self.levels.pop();
        self.aliases.pop();
        for c in sel.body.compounds.iter().flat_map(|c| c.iter()) {
            self.one_select(&c.select);
            self.levels.pop();
            self.aliases.pop();
        }
        if compound {
            self.compound_order_by(sel, &names);
        }
        if let Some(l) = sel.limit {
            self.expr(&l.expr);
            if let Some(o) = &l.offset {
                self.expr(o);
            }
        }
        self.ctes.truncate(ctes);
        names
    }

    /// A compound's ORDER BY terms must name a result column: a bare name
    /// is a result name, or the column a result reads.
    fn compound_order_by(&mut self, sel: &Select<'_>, names: &[String]) {
        let read = columns_read(&sel.body.select);
        // (Names from `*` may be incomplete: no check then.)
        if let OneSelect::Select { columns, .. } = &sel.body.select {
            if columns.iter().any(|rc| !matches!(rc, ResultColumn::Expr(..))) {
                return;
            }
        }
        for (i, term) in sel.order_by.iter().flat_map(|o| o.iter()).enumerate() {
            let mut e = &term.expr;
            while let Expr::Collate(inner, _) = e {
                e = inner;
            }
            let Expr::Id(id) = e else { continue };
            let name = plain(id.0);
            if names.iter().chain(read.iter()).any(|n| eq(n, &name)) {
                continue;
            }
            self.fail(format!("{} ORDER BY term does not match any column in the result set", ordinal(i + 1)));
        }
    }

    /// Walk one SELECT core, leaving its level pushed (the caller pops it
    /// after ORDER BY); its result names and explicit aliases.
    fn one_select(&mut self, s: &OneSelect<'_>) -> (Vec<String>, Vec<String>) {
        self.levels.push(Vec::new());
        let aliases: Vec<String> = match s {
            OneSelect::Select { columns, .. } => columns
                .iter()
                .filter_map(|rc| match rc {
                    ResultColumn::Expr(_, Some(a)) => Some(alias_of(a)),
                    _ => None,
                })
                .collect(),
            OneSelect::Values(_) => Vec::new(),
        };
        self.aliases.push(aliases);
        match s {
            OneSelect::Values(rows) => {
                for row in rows.iter() {
                    for e in row.iter() {
                        self.expr(e);
                    }
                }
                let n = rows.first().map_or(0, |r| r.len());
                ((1..=n).map(|i| format!("column{i}")).collect(), Vec::new())
            }
            OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } => {
                if let Some(f) = from {
                    self.from(f);
                }
                let mut names = Vec::new();
                let aliases = self.aliases.last().cloned().unwrap_or_default();
                for rc in columns.iter() {
                    match rc {
                        ResultColumn::Expr(e, alias) => {
                            self.expr(e);
                            let name = match (alias, e) {
                                (Some(a), _) => alias_of(a),
                                (None, Expr::Id(id)) => plain(id.0),
                                (None, Expr::Qualified(_, c) | Expr::DoublyQualified(_, _, c)) => plain(c.0),
                                _ => String::new(),
                            };
                            names.push(name);
                        }
                        ResultColumn::Star => {
                            let level = self.levels.last().map(|l| l.iter().flat_map(|s| s.columns.clone()).collect::<Vec<_>>()).unwrap_or_default();
                            names.extend(level);
                        }
                        ResultColumn::TableStar(t) => {
                            let found = self.levels.last().and_then(|l| l.iter().find(|s| eq(&s.name, &plain(t.0))));
                            if let Some(s) = found {
                                names.extend(s.columns.clone());
                                if s.is_target && !s.aliased && self.renames_table() {
                                    self.hit(t.0);
                                }
                            }
                        }
                    }
                }
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                for e in group_by.iter().flat_map(|g| g.iter()) {
                    if let Expr::Id(id) = e {
                        if aliases.iter().any(|a| eq(a, &plain(id.0))) {
                            continue;
                        }
                    }
                    self.expr(e);
                }
                if let Some(h) = having {
                    self.expr(h);
                }
                for w in window_clause.iter().flat_map(|w| w.iter()) {
                    self.window(&w.window);
                }
                (names, aliases)
            }
        }
    }

    fn window(&mut self, w: &ast::Window<'_>) {
        for e in w.partition_by.iter().flat_map(|p| p.iter()) {
            self.expr(e);
        }
        for t in w.order_by.iter().flat_map(|o| o.iter()) {
            self.expr(&t.expr);
        }
        if let Some(f) = &w.frame_clause {
            for b in std::iter::once(&f.start).chain(f.end.iter()) {
                if let ast::FrameBound::Following(e) | ast::FrameBound::Preceding(e) = b {
                    self.expr(e);
                }
            }
        }
    }

    /// A USING column, the sources before `split` of the innermost level
    /// being its left side: both sides must have it. (SQLite does not
    /// rename it.)
    fn using_column(&mut self, column: &str, split: usize) {
        let col = plain(column);
        let Some(level) = self.levels.last() else { return };
        let (left, right) = level.split_at(split.min(level.len()));
        let has = |s: &Source| s.columns.iter().any(|c| eq(c, &col));
        let known = level.iter().all(|s| s.complete);
        let missing = known && (!left.iter().any(has) || !right.iter().any(has));
        if missing {
            self.fail(format!("cannot join using column {col} - column not present in both tables"));
        }
    }

    /// A column reference `[table.]column`.
    fn column_ref(&mut self, table: Option<&Name<'_>>, column: &str) {
        let col = plain(column);
        match table {
            None => {
                for level in (0..self.levels.len()).rev() {
                    let found: Vec<bool> = self.levels[level].iter().filter(|s| !s.qualified_only && s.columns.iter().any(|c| eq(c, &col))).map(|s| s.is_target).collect();
                    if found.is_empty() {
                        continue;
                    }
                    if found.iter().any(|&t| t) && self.is_target_column(column) {
                        self.hit(column);
                    }
                    return;
                }
                self.unresolved_column(column);
            }
            Some(t) => {
                let tname = plain(t.0);
                for level in (0..self.levels.len()).rev() {
                    let Some(s) = self.levels[level].iter().find(|s| eq(&s.name, &tname)) else { continue };
                    let (is_target, aliased) = (s.is_target, s.aliased);
                    let missing = s.complete && !s.columns.iter().any(|c| eq(c, &col)) && !is_rowid(&col);
                    if is_target && !aliased && self.renames_table() {
                        self.hit(t.0);
                    }
                    if is_target && self.is_target_column(column) {
                        self.hit(column);
                    }
                    if missing {
                        self.fail(format!("no such column: {tname}.{col}"));
                    }
                    return;
                }
                if self.all_sources_known() {
                    self.fail(format!("no such column: {tname}.{col}"));
                }
            }
        }
    }

    /// Every source in scope has a known column list.
    fn all_sources_known(&self) -> bool {
        self.levels.iter().flatten().all(|s| s.complete)
    }

    /// A bare name no source has: a string in double quotes, TRUE or
    /// FALSE, a rowid, a result alias, or else an error.
    fn unresolved_column(&mut self, column: &str) {
        let written = super::tagged::split(column).0;
        let col = plain(column);
        if written.starts_with('"') {
            if let Some(i) = index(column) {
                self.strings.push(i);
            }
            return;
        }
        if eq(&col, "true") || eq(&col, "false") {
            return;
        }
        if is_rowid(&col) && self.levels.iter().flatten().any(|s| !s.qualified_only) {
            return;
        }
        if self.aliases.iter().flatten().any(|a| eq(a, &col)) || !self.all_sources_known() {
            return;
        }
        self.fail(format!("no such column: {col}"));
    }

    fn exprs(&mut self, es: &[Expr<'_>]) {
        for e in es {
            self.expr(e);
        }
    }

    fn tail(&mut self, t: Option<&ast::FunctionTail<'_>>) {
        let Some(t) = t else { return };
        if let Some(f) = t.filter_clause {
            self.expr(f);
        }
        if let Some(ast::Over::Window(w)) = t.over_clause {
            self.window(w);
        }
    }

    /// Walk an expression.
    pub fn expr(&mut self, e: &Expr<'_>) {
        crate::sql::parse::with_stack(|| self.expr_inner(e));
    }

    fn expr_inner(&mut self, e: &Expr<'_>) {
        match e {
            Expr::Id(id) => self.column_ref(None, id.0),
            Expr::Qualified(t, c) => self.column_ref(Some(t), c.0),
            Expr::DoublyQualified(_, t, c) => self.column_ref(Some(t), c.0),
            Expr::Between { lhs, start, end, .. } => {
                self.expr(lhs);
                self.expr(start);
                self.expr(end);
            }
            Expr::Binary(a, _, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Case { base, when_then_pairs, else_expr } => {
                if let Some(b) = base {
                    self.expr(b);
                }
                for (w, t) in when_then_pairs.iter() {
                    self.expr(w);
                    self.expr(t);
                }
                if let Some(x) = else_expr {
                    self.expr(x);
                }
            }
            Expr::Cast { expr, .. } | Expr::Collate(expr, _) | Expr::IsNull(expr) | Expr::NotNull(expr) | Expr::Unary(_, expr) => self.expr(expr),
            Expr::Exists(s) | Expr::Subquery(s) => {
                self.select(s);
            }
            Expr::FunctionCall { args, order_by, filter_over, .. } => {
                self.exprs(args.unwrap_or(&[]));
                if let Some(ast::FunctionCallOrder::SortList(cols)) = order_by {
                    for c in cols.iter() {
                        self.expr(&c.expr);
                    }
                }
                self.tail(filter_over.as_ref());
            }
            Expr::FunctionCallStar { filter_over, .. } => self.tail(filter_over.as_ref()),
            // (SQLite reads `x IN ()` as a constant: its `x` is no name.)
            Expr::InList { rhs: None, .. } => {}
            Expr::InList { lhs, rhs, .. } => {
                self.expr(lhs);
                self.exprs(rhs.unwrap_or(&[]));
            }
            Expr::InSelect { lhs, rhs, .. } => {
                self.expr(lhs);
                self.select(rhs);
            }
            Expr::InTable { lhs, rhs, args, .. } => {
                self.expr(lhs);
                let cte = rhs.db_name.is_none() && self.ctes.iter().any(|c| eq(&c.name, &plain(rhs.name.0)));
                if !cte && self.renames_table() && self.resolve_table(rhs.db_name.as_ref(), &rhs.name).is_some_and(|t| self.is_target_table(t)) {
                    self.hit(rhs.name.0);
                }
                self.exprs(args.unwrap_or(&[]));
            }
            Expr::Like { lhs, rhs, escape, .. } => {
                self.expr(lhs);
                self.expr(rhs);
                if let Some(x) = escape {
                    self.expr(x);
                }
            }
            Expr::Parenthesized(v) => self.exprs(v),
            Expr::Raise(_, Some(m)) => self.expr(m),
            Expr::Raise(_, None) | Expr::Literal(_) | Expr::Name(_) | Expr::Variable(_) => {}
        }
    }
}
