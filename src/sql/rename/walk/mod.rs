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
//!
//! Here: the walker, its sources and name resolution; `schema_objects`
//! walks CREATE TABLE / INDEX / VIEW / TRIGGER, `query` SELECTs, FROM
//! clauses and expressions.

use super::tagged::{index, plain};
use crate::sql::schema::{Schema, Table};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, Name, OneSelect, QualifiedName, ResultColumn, Select, SelectTable, Stmt, TriggerCmd};

mod query;
mod schema_objects;

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
    a.eq_ci(b)
}

/// A name that is no schema table but still reads as one: the schema
/// tables, table-valued functions used without arguments.
fn is_builtin_table(name: &str) -> bool {
    let lower = name.ascii_lower();
    lower.starts_with("sqlite_")
        || lower.starts_with("pragma_")
        || ["json_each", "json_tree", "jsonb_each", "jsonb_tree", "generate_series", "dbstat"].contains(&lower.as_str())
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
            *self.name_counts.entry(crate::sql::parse::unquote(t).ascii_lower()).or_default() += 1;
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
        inner.count_names(
            tagged
                .toks
                .iter()
                .filter(|k| matches!(k.kind, sqlite3_parser::dialect::TokenType::TK_ID | sqlite3_parser::dialect::TokenType::TK_STRING))
                .map(|k| &select[k.start..k.end]),
        );
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
                    let found: Vec<bool> =
                        self.levels[level].iter().filter(|s| !s.qualified_only && s.columns.iter().any(|c| eq(c, &col))).map(|s| s.is_target).collect();
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
}
