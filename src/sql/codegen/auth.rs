//! # The authorizer: compile-time access checks (`sqlite3_set_authorizer`)
//!
//! While a statement is compiled, the connection's [`Authorizer`] (if any)
//! is asked about each action with SQLite's action codes and arguments:
//! the statement kind (here, before any code is generated), every column a
//! real table is read at (`emit_column`), every assigned column of an
//! UPDATE, every scalar function called, each SELECT SQLite codes (a
//! subquery, a compound's arms, a trigger body's statements). The order
//! is SQLite's: its resolver's for names (`query/auth_order.rs`, a
//! subquery's asked ahead by `query/auth_ahead.rs` and kept here,
//! [`AuthAhead`]), its code generator's for the rest. Answers:
//! - `SQLITE_OK`: go on;
//! - `SQLITE_DENY`: compilation fails with `SQLITE_AUTH` ("not authorized",
//!   or "access to T.C is prohibited" for a column read);
//! - `SQLITE_IGNORE`: a column read yields NULL, an assignment is dropped,
//!   a function call yields NULL, a DELETE goes on, and any other statement
//!   compiles to a program that does nothing;
//! - anything else: "authorizer malfunction" (`SQLITE_ERROR`).
//!
//! The fourth argument SQLite passes (database name) is "main" or "temp";
//! the fifth is the view being expanded or the trigger whose body is being
//! compiled, if any.
//!
//! Invariant: a failure found where code generation cannot return an error
//! (a column read) is parked in `Compiler::auth_error` and reported when
//! the statement's compilation ends; the first one wins, and nothing more
//! is asked after it (SQLite stops there) (checked: auth_error_first).

use super::Compiler;
use crate::error::{Error, Result, SQLITE_AUTH};
use crate::sql::parse::{unquote, unquoted};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, PragmaBody, Stmt};

/// The authorizer callback: (action, arg1, arg2, database, trigger) to
/// `SQLITE_OK` (0), `SQLITE_DENY` (1) or `SQLITE_IGNORE` (2).
pub type Authorizer = Box<dyn FnMut(i32, Option<&str>, Option<&str>, Option<&str>, Option<&str>) -> i32 + Send>;

/// Where a compile finds the authorizer: the connection moves it here for
/// the compile and back into the connection while xBestIndex runs SQL on
/// it (a statement prepared there is authorized too, as in SQLite, by
/// whatever authorizer is installed then).
pub type AuthorizerSlot = std::cell::RefCell<Option<Authorizer>>;

/// One authorizer call: its action and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthCall {
    code: i32,
    args: [Option<String>; 4],
}

/// The authorizer calls of a compile that starts again: a compile that
/// finds a virtual table unconnected fails, the connection connects it and
/// compiles again (`sql::codegen::vtab`), where SQLite connects it in the
/// middle of its one pass. The calls the earlier attempt made are made
/// again, in the same order, up to where it stopped: their answers are
/// taken from it rather than asked twice, so the application sees each
/// call once, as with SQLite. Invariant: only a prefix of identical calls
/// is replayed; from the first call that differs on, every call is asked.
#[derive(Debug, Default)]
pub struct AuthReplay {
    /// The calls of the attempt before, with their answers.
    earlier: Vec<(AuthCall, i32)>,
    /// How many of them this attempt has replayed (`usize::MAX`: it
    /// made a different call, so nothing more is replayed).
    at: usize,
    /// This attempt's calls, replayed or asked.
    now: Vec<(AuthCall, i32)>,
}

impl AuthReplay {
    /// The answer of `call` when it is the next call of the attempt
    /// before.
    fn replayed(&mut self, call: &AuthCall) -> Option<i32> {
        match self.earlier.get(self.at) {
            Some((c, answer)) if c == call => {
                let answer = *answer;
                self.at += 1;
                self.now.push((call.clone(), answer));
                Some(answer)
            }
            _ => {
                self.at = usize::MAX;
                None
            }
        }
    }

    fn record(&mut self, call: AuthCall, answer: i32) {
        self.now.push((call, answer));
    }

    /// Start another attempt, replaying this one's calls.
    pub fn next_attempt(&mut self) {
        self.earlier = std::mem::take(&mut self.now);
        self.at = 0;
    }
}

/// The authorizer calls of subqueries asked ahead: SQLite resolves the
/// names of a subquery in an expression where the enclosing SELECT's
/// resolution meets it, while ringlite resolves them when it compiles the
/// subquery, later. The enclosing SELECT's walk asks them in SQLite's
/// order (`query/auth_order.rs`) and keeps the answers here by subquery;
/// the subquery's compile then takes each of its calls' answers from
/// here rather than asking again. Invariant: an answer is taken only by
/// the compile of the subquery it was asked for, the first identical
/// call taking it; a call not asked ahead is asked when it is made.
#[derive(Debug, Default)]
pub struct AuthAhead {
    /// (subquery, call, answer) in the order asked.
    answers: Vec<(usize, AuthCall, i32)>,
    /// The subqueries asked about ahead (by the address of their SELECT).
    asked: Vec<usize>,
    /// The subquery whose calls are being asked ahead.
    asking: Option<usize>,
    /// The subqueries asked about ahead being compiled, innermost last.
    compiling: Vec<usize>,
}

/// The key a subquery's calls are kept under: its text, the same for the
/// SELECT of the statement and for its copy in the SQL text an UPDATE or
/// DELETE compiles its WHERE clause from (two subqueries of one text make
/// the same calls, whichever takes them).
pub fn ahead_key(sel: &sqlite3_parser::ast::Select<'_>) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    crate::sql::parse::ast_text(sel).hash(&mut h);
    h.finish() as usize
}

impl AuthAhead {
    /// Whether subquery `sel` was asked about ahead.
    pub fn was_asked(&self, sel: usize) -> bool {
        self.asked.contains(&sel)
    }

    /// Start asking ahead for subquery `sel`; returns the one asked for
    /// before (to give back to [`Self::end_asking`]).
    pub fn begin_asking(&mut self, sel: usize) -> Option<usize> {
        self.asked.push(sel);
        self.asking.replace(sel)
    }

    pub fn end_asking(&mut self, before: Option<usize>) {
        self.asking = before;
    }

    /// The compile of `sel` starts: it takes the answers asked ahead for
    /// it (`false`: none were).
    pub fn begin_compile(&mut self, sel: usize) -> bool {
        let asked = self.was_asked(sel);
        if asked {
            self.compiling.push(sel);
        }
        asked
    }

    pub fn end_compile(&mut self) {
        self.compiling.pop();
    }

    /// [`Self::end_compile`] of `sel` if its compile is the innermost.
    pub fn end_compile_of(&mut self, sel: usize) {
        if self.compiling.last() == Some(&sel) {
            self.compiling.pop();
        }
    }

    fn take(&mut self, call: &AuthCall) -> Option<i32> {
        let sel = *self.compiling.last()?;
        let at = self.answers.iter().position(|(s, c, _)| *s == sel && c == call)?;
        Some(self.answers.remove(at).2)
    }

    fn record(&mut self, call: &AuthCall, answer: i32) {
        if let Some(sel) = self.asking {
            self.answers.push((sel, call.clone(), answer));
        }
    }
}

/// `SQLITE_DENY`.
pub const DENY: i32 = 1;
/// `SQLITE_IGNORE`.
pub const IGNORE: i32 = 2;

/// SQLite's action codes.
pub mod action {
    pub const CREATE_INDEX: i32 = 1;
    pub const CREATE_TABLE: i32 = 2;
    pub const CREATE_TEMP_INDEX: i32 = 3;
    pub const CREATE_TEMP_TABLE: i32 = 4;
    pub const CREATE_TEMP_TRIGGER: i32 = 5;
    pub const CREATE_TEMP_VIEW: i32 = 6;
    pub const CREATE_TRIGGER: i32 = 7;
    pub const CREATE_VIEW: i32 = 8;
    pub const DELETE: i32 = 9;
    pub const DROP_INDEX: i32 = 10;
    pub const DROP_TABLE: i32 = 11;
    pub const DROP_TEMP_INDEX: i32 = 12;
    pub const DROP_TEMP_TABLE: i32 = 13;
    pub const DROP_TEMP_TRIGGER: i32 = 14;
    pub const DROP_TEMP_VIEW: i32 = 15;
    pub const DROP_TRIGGER: i32 = 16;
    pub const DROP_VIEW: i32 = 17;
    pub const INSERT: i32 = 18;
    pub const PRAGMA: i32 = 19;
    pub const READ: i32 = 20;
    pub const SELECT: i32 = 21;
    pub const TRANSACTION: i32 = 22;
    pub const UPDATE: i32 = 23;
    pub const ATTACH: i32 = 24;
    pub const DETACH: i32 = 25;
    pub const ALTER_TABLE: i32 = 26;
    pub const REINDEX: i32 = 27;
    pub const ANALYZE: i32 = 28;
    pub const CREATE_VTABLE: i32 = 29;
    pub const DROP_VTABLE: i32 = 30;
    pub const FUNCTION: i32 = 31;
    pub const SAVEPOINT: i32 = 32;
    pub const RECURSIVE: i32 = 33;
}

/// What the authorizer allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Allow,
    /// Leave this action out (its meaning depends on the action).
    Ignore,
}

fn schema_table(db: usize) -> &'static str {
    if db == 1 {
        "sqlite_temp_master"
    } else {
        "sqlite_master"
    }
}

impl Compiler<'_> {
    /// The innermost view being expanded or trigger being compiled (the
    /// authorizer's last argument).
    fn auth_context(&self) -> Option<String> {
        // (A CTE's marker in `expanding` ends with its name as written.)
        let expanding =
            self.expansion.expanding.last().map(|e| if e.starts_with('\0') { e.rsplit('\0').next().unwrap_or_default().to_string() } else { e.clone() });
        expanding.or_else(|| self.dml.firing.last().map(|(name, _)| name.clone()))
    }

    /// The authorizer's answer about one action (`None`: there is none).
    fn ask_authorizer(&mut self, code: i32, a: Option<&str>, b: Option<&str>, db: Option<&str>, trigger: Option<&str>) -> Option<i32> {
        let mut slot = self.stmt.authorizer?.try_borrow_mut().ok()?;
        let auth = slot.as_mut()?;
        let call = AuthCall { code, args: [a, b, db, trigger].map(|x| x.map(str::to_string)) };
        // (Asked already, in SQLite's order, for the subquery compiled.)
        if let Some(answer) = self.stmt.auth_ahead.take(&call) {
            return Some(answer);
        }
        let mut replay = self.env.auth_replay.and_then(|r| r.try_borrow_mut().ok());
        let answer = match replay.as_mut().and_then(|r| r.replayed(&call)) {
            Some(answer) => answer,
            None => {
                let answer = auth(code, a, b, db, trigger);
                if let Some(r) = replay.as_mut() {
                    r.record(call.clone(), answer);
                }
                answer
            }
        };
        self.stmt.auth_ahead.record(&call, answer);
        Some(answer)
    }

    /// Ask the authorizer about one action; a denial is an error.
    pub fn authorize(&mut self, code: i32, a: Option<&str>, b: Option<&str>, db: Option<&str>) -> Result<Verdict> {
        // (After a denied read SQLite's resolution stops and codes nothing:
        // nothing more is asked.)
        // invariant: auth_error_first
        if self.stmt.auth_error.is_some() {
            return Ok(Verdict::Allow);
        }
        let trigger = self.auth_context();
        self.authorize_in_context(trigger.as_deref(), code, a, b, db)
    }

    /// `SQLITE_READ` of column `col` (`None`: the rowid) of table `table`;
    /// `false` when the read must yield NULL. A denial is parked in
    /// `auth_error`.
    pub fn authorize_read(&mut self, table: &str, col: Option<usize>) -> bool {
        self.authorize_read_named(table, col, None)
    }

    /// `authorize_read`, the column named `declared` where the schema's
    /// table has no column list (a virtual table's comes from its module).
    pub fn authorize_read_named(&mut self, table: &str, col: Option<usize>, declared: Option<&str>) -> bool {
        if self.stmt.authorizer.is_none() || self.stmt.auth_error.is_some() {
            return true;
        }
        let Some(t) = self.env.schema.table(table) else {
            // An eponymous virtual table (not in the schema): its columns
            // as its module declared them, in main.
            let Some(inst) = self.env.vtabs.and_then(|r| r.eponymous(table)).cloned() else { return true };
            let column = match (declared, col) {
                (Some(d), _) => d.to_string(),
                (None, Some(i)) => crate::sql::vtab_decl::declared_table(&inst.declared, &inst.name, 0, "")
                    .ok()
                    .and_then(|d| d.table.columns.get(i).map(|c| c.name.clone()))
                    .unwrap_or_else(|| "ROWID".to_string()),
                (None, None) => "ROWID".to_string(),
            };
            return self.authorize_column_read(&inst.name, &column, 0);
        };
        if t.root == 0 && t.virtual_table.is_none() {
            // A view: its columns are read from the tables it selects
            // (and asked about as the view's where a SELECT names them:
            // `query/auth_order.rs`).
            return true;
        }
        let column = match col.or(t.rowid_alias) {
            Some(i) => t.columns.get(i).map(|c| c.name.clone()).or_else(|| declared.map(str::to_string)).unwrap_or_else(|| "ROWID".to_string()),
            None => "ROWID".to_string(),
        };
        let (tname, db) = (t.name.clone(), t.db);
        self.authorize_column_read(&tname, &column, db)
    }

    /// Ask `SQLITE_READ` of `table.column` in database `db`; `false` when
    /// the read must yield NULL. A denial is parked in `auth_error`.
    pub fn authorize_column_read(&mut self, tname: &str, column: &str, db: usize) -> bool {
        // invariant: auth_error_first
        if self.stmt.authorizer.is_none() || self.stmt.auth_error.is_some() {
            return true;
        }
        let dbn = self.db_name(db);
        let trigger = self.auth_context();
        let Some(answer) = self.ask_authorizer(action::READ, Some(tname), Some(column), Some(&dbn), trigger.as_deref()) else { return true };
        match answer {
            0 => true,
            IGNORE => false,
            DENY => {
                let msg = if db == 0 { format!("access to {tname}.{column} is prohibited") } else { format!("access to {dbn}.{tname}.{column} is prohibited") };
                self.stmt.auth_error = Some(Error::new(SQLITE_AUTH, msg));
                true
            }
            _ => {
                self.stmt.auth_error = Some(Error::sql("authorizer malfunction"));
                true
            }
        }
    }

    /// [`Self::authorize`] with `context` as the authorizer's last
    /// argument (SQLite's `zAuthContext` set for a FROM item's body).
    pub fn authorize_in_context(&mut self, context: Option<&str>, code: i32, a: Option<&str>, b: Option<&str>, db: Option<&str>) -> Result<Verdict> {
        let Some(answer) = self.ask_authorizer(code, a, b, db, context) else { return Ok(Verdict::Allow) };
        match answer {
            0 => Ok(Verdict::Allow),
            IGNORE => Ok(Verdict::Ignore),
            DENY => Err(Error::new(SQLITE_AUTH, "not authorized")),
            _ => Err(Error::sql("authorizer malfunction")),
        }
    }

    /// `SQLITE_SELECT` for a view or CTE in FROM, its name the context
    /// (as SQLite asks when it flattens or compiles one).
    pub fn authorize_from_select(&mut self, name: &str) -> Result<Verdict> {
        self.expansion.expanding.push(name.to_string());
        let r = self.authorize(action::SELECT, None, None, None);
        self.expansion.expanding.pop();
        r
    }

    /// `SQLITE_SELECT` for a subquery of an expression about to be coded,
    /// as SQLite asks at the start of each `sqlite3Select`; not for an
    /// `EXISTS` of WHERE that SQLite makes a join of (its EXISTS-to-JOIN:
    /// one table, no GROUP BY, LIMIT or compound). IGNORE is taken as OK.
    pub fn authorize_subquery(&mut self, sel: &sqlite3_parser::ast::Select<'_>, exists: bool) -> Result<()> {
        if self.stmt.authorizer.is_none() {
            return Ok(());
        }
        let body = &sel.body.select;
        // (Not in an UPDATE's or DELETE's own WHERE, no SELECT's in SQLite.)
        let joined = exists
            && !self.frame.internal_rowid_read
            && self.select.exists_as_join.contains(&(body as *const sqlite3_parser::ast::OneSelect<'_> as usize))
            && matches!(body, sqlite3_parser::ast::OneSelect::Select { from: Some(f), group_by: None, .. }
                if f.joins.as_ref().is_none_or(|j| j.is_empty()) && matches!(f.select, Some(sqlite3_parser::ast::SelectTable::Table(..))));
        if joined {
            return Ok(());
        }
        self.authorize(action::SELECT, None, None, None).map(|_| ())
    }

    /// [`Self::authorize_subquery`] for the subquery of an IN: not asked
    /// where SQLite reads the values straight from the table's rowid or an
    /// index instead of coding the SELECT (`SELECT col FROM t`, one table,
    /// nothing else, col the rowid or the first column of an index).
    pub fn authorize_in_subquery(&mut self, sel: &sqlite3_parser::ast::Select<'_>) -> Result<()> {
        use sqlite3_parser::ast::{OneSelect, ResultColumn, SelectTable};
        if self.stmt.authorizer.is_none() {
            return Ok(());
        }
        let OneSelect::Select {
            distinctness: None, columns: [ResultColumn::Expr(e, _)], from: Some(f), where_clause: None, group_by: None, having: None, ..
        } = &sel.body.select
        else {
            return self.authorize_subquery(sel, false);
        };
        let simple = sel.limit.is_none() && sel.body.compounds.as_ref().is_none_or(|c| c.is_empty()) && f.joins.as_ref().is_none_or(|j| j.is_empty());
        let table = match f.select {
            Some(SelectTable::Table(qn, _, None)) if simple && qn.db_name.is_none() && self.cte_at(&unquote(qn.name.0)).is_none() => {
                self.env.schema.table(&unquote(qn.name.0))
            }
            _ => None,
        };
        let column = match crate::sql::model::expr_shape::strip_parens(e) {
            Expr::Id(id) => Some(unquote(id.0)),
            Expr::Qualified(_, c) => Some(unquote(c.0)),
            _ => None,
        };
        let direct = match (table.filter(|t| t.root != 0 && t.virtual_table.is_none()), column) {
            (Some(t), Some(col)) => match t.column_index(&col) {
                Some(i) => t.rowid_alias == Some(i) || self.env.schema.indexes_of(t).iter().any(|x| x.columns.first().is_some_and(|k| k.column == Some(i))),
                None => t.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&col)),
            },
            _ => false,
        };
        if direct {
            self.stmt.auth_in_not_coded = true;
            return Ok(());
        }
        self.authorize_subquery(sel, false)
    }

    /// `authorize_function` for the call `e`, unless the SELECT's
    /// resolution asked already (`query/auth_order.rs`).
    pub fn call_authorized(&mut self, e: &sqlite3_parser::ast::Expr<'_>, name: &str) -> Result<bool> {
        let at = e as *const sqlite3_parser::ast::Expr<'_> as usize;
        match self.stmt.auth_answers.last().and_then(|a| a.calls.get(&at)) {
            Some(allowed) => Ok(*allowed),
            None => self.authorize_function(name),
        }
    }

    /// `SQLITE_FUNCTION` for a call of `name`; `false` when the call must
    /// yield NULL.
    pub fn authorize_function(&mut self, name: &str) -> Result<bool> {
        if self.stmt.authorizer.is_none() {
            return Ok(true);
        }
        match self.authorize(action::FUNCTION, None, Some(name), None) {
            Ok(v) => Ok(v == Verdict::Allow),
            // SQLite reports this one as a plain SQL error.
            Err(e) if e.code == SQLITE_AUTH => Err(Error::sql(format!("not authorized to use function: {name}"))),
            Err(e) => Err(e),
        }
    }

    /// The statement-level checks, before any code is generated. `Ignore`
    /// means the statement compiles to a program that does nothing.
    pub fn authorize_statement(&mut self, stmt: &Stmt<'_>) -> Result<Verdict> {
        if self.stmt.authorizer.is_none() {
            return Ok(Verdict::Allow);
        }
        let qualified_db = |q: &sqlite3_parser::ast::QualifiedName<'_>| q.db_name.as_ref().map(|d| unquote(d.0));
        let table_db = |c: &Compiler<'_>, name: &str| c.env.schema.table(name).map_or(0, |t| t.db);
        match stmt {
            Stmt::Select(_) => self.authorize(action::SELECT, None, None, None),
            Stmt::Insert { tbl_name, .. } => {
                let n = unquoted(tbl_name.name.0);
                let db = table_db(self, &n);
                self.authorize(action::INSERT, Some(&n), None, Some(self.db_name(db).as_str()))
            }
            Stmt::Delete { tbl_name, .. } => {
                let n = unquoted(tbl_name.name.0);
                let db = table_db(self, &n);
                // IGNORE: the rows are still deleted (one by one in SQLite).
                self.authorize(action::DELETE, Some(&n), None, Some(self.db_name(db).as_str())).map(|_| Verdict::Allow)
            }
            // Each assigned column is checked in `update.rs`.
            Stmt::Update { .. } => Ok(Verdict::Allow),
            Stmt::CreateTable { temporary, tbl_name, .. } | Stmt::CreateView { temporary, view_name: tbl_name, .. } => {
                let temp = *temporary || qualified_db(tbl_name).is_some_and(|d| d.eq_ci("temp"));
                let db = temp as usize;
                let view = matches!(stmt, Stmt::CreateView { .. });
                let code = match (view, temp) {
                    (false, false) => action::CREATE_TABLE,
                    (false, true) => action::CREATE_TEMP_TABLE,
                    (true, false) => action::CREATE_VIEW,
                    (true, true) => action::CREATE_TEMP_VIEW,
                };
                let as_select = matches!(stmt, Stmt::CreateTable { body: sqlite3_parser::ast::CreateTableBody::AsSelect(_), .. });
                let v = self.then(action::INSERT, Some(schema_table(db)), None, db, code, Some(&unquoted(tbl_name.name.0)), None)?;
                let if_not_exists = matches!(stmt, Stmt::CreateTable { if_not_exists: true, .. } | Stmt::CreateView { if_not_exists: true, .. });
                let exists = self.env.schema.table_in(Some(db), &unquoted(tbl_name.name.0)).is_some();
                if v == Verdict::Ignore || as_select || (if_not_exists && exists) {
                    return Ok(v);
                }
                // Each automatic index (UNIQUE, PRIMARY KEY) is created as
                // CREATE INDEX would be, before the table's row is filled.
                if !view {
                    let sql = crate::sql::parse::schema_sql(self.stmt.sql, "TABLE");
                    if let Ok(t) = crate::sql::schema::table_from_stmt(stmt, &sql, 0) {
                        let code = if temp { action::CREATE_TEMP_INDEX } else { action::CREATE_INDEX };
                        let dbn = self.db_name(db);
                        for (n, (cols, is_pk)) in t.auto_indexes.iter().enumerate() {
                            if *is_pk && t.without_rowid.is_some() {
                                continue;
                            }
                            let idx = format!("sqlite_autoindex_{}_{}", t.name, n + 1);
                            self.authorize(action::INSERT, Some(schema_table(db)), None, Some(&dbn))?;
                            self.authorize(code, Some(&idx), Some(&t.name), Some(&dbn))?;
                            for (c, _, _) in cols {
                                if let Some(col) = t.columns.get(*c) {
                                    self.authorize(action::READ, Some(&t.name), Some(&col.name), Some(&dbn))?;
                                }
                            }
                            self.authorize_nested(db, &[(action::INSERT, None)])?;
                        }
                    }
                }
                self.authorize_schema_row_fill(db)
            }
            Stmt::DropTable { tbl_name: q, .. } | Stmt::DropView { view_name: q, .. } => {
                let n = unquoted(q.name.0);
                let Some(t) = self.env.schema.table(&n) else { return Ok(Verdict::Allow) };
                let (name, db) = (t.name.clone(), t.db);
                let code = match (matches!(stmt, Stmt::DropView { .. }), db == 1) {
                    (false, false) => action::DROP_TABLE,
                    (false, true) => action::DROP_TEMP_TABLE,
                    (true, false) => action::DROP_VIEW,
                    (true, true) => action::DROP_TEMP_VIEW,
                };
                // A virtual table: SQLITE_DROP_VTABLE with its module's name.
                let module = t.virtual_table.as_ref().map(|v| v.module.clone());
                let code = if module.is_some() { action::DROP_VTABLE } else { code };
                // The b-trees it frees: its own and its indexes'.
                let roots = if t.root == 0 {
                    0
                } else {
                    1 + self.env.schema.indexes.values().filter(|i| i.db == db && i.table.eq_ci(&name) && i.root != t.root).count()
                };
                let dbn = self.db_name(db);
                if self.authorize(action::DELETE, Some(schema_table(db)), None, Some(&dbn))? == Verdict::Ignore
                    || self.authorize(code, Some(&name), module.as_deref(), Some(&dbn))? == Verdict::Ignore
                    || self.authorize(action::DELETE, Some(&name), None, Some(&dbn))? == Verdict::Ignore
                {
                    return Ok(Verdict::Ignore);
                }
                // The triggers dropped with it (TEMP ones first), each
                // with its own checks and row deletion.
                let mut triggers: Vec<(String, usize)> = Vec::new();
                for (i, r) in self.env.schema.rows.iter().enumerate() {
                    if r.0 == "trigger" && r.2.eq_ci(&name) {
                        triggers.push((r.1.clone(), self.env.schema.row_db(i)));
                    }
                }
                triggers.reverse();
                crate::util::cold_sort::sort_by_key(&mut triggers, |(_, d)| *d != 1);
                for (tr, tdb) in triggers {
                    let code = if tdb == 1 { action::DROP_TEMP_TRIGGER } else { action::DROP_TRIGGER };
                    let tdbn = self.db_name(tdb);
                    if self.authorize(code, Some(&tr), Some(&name), Some(&tdbn))? == Verdict::Ignore
                        || self.authorize(action::DELETE, Some(schema_table(tdb)), None, Some(&tdbn))? == Verdict::Ignore
                    {
                        continue;
                    }
                    self.authorize_nested(tdb, &[(action::DELETE, None), (action::READ, Some("name")), (action::READ, Some("type"))])?;
                }
                self.authorize_nested(db, &[(action::DELETE, None), (action::READ, Some("tbl_name")), (action::READ, Some("type"))])?;
                for _ in 0..roots {
                    self.authorize_nested(db, &[(action::UPDATE, Some("rootpage")), (action::READ, Some("rootpage"))])?;
                }
                Ok(Verdict::Allow)
            }
            Stmt::CreateIndex { idx_name, tbl_name, columns, .. } => {
                let t = unquoted(tbl_name.0);
                let db = table_db(self, &t);
                let code = if db == 1 { action::CREATE_TEMP_INDEX } else { action::CREATE_INDEX };
                let idx = unquoted(idx_name.name.0);
                if self.then(action::INSERT, Some(schema_table(db)), None, db, code, Some(&idx), Some(&t))? == Verdict::Ignore {
                    return Ok(Verdict::Ignore);
                }
                // The indexed columns are read to fill the index.
                for col in columns.iter() {
                    let name = match &col.expr {
                        Expr::Id(n) => Some(unquote(n.0)),
                        Expr::Name(n) => Some(unquote(n.0)),
                        _ => None,
                    };
                    if let Some(n) = name {
                        let i = self.env.schema.table(&t).and_then(|tb| tb.column_index(&n));
                        if let Some(i) = i {
                            self.authorize_read(&t, Some(i));
                        }
                    }
                }
                self.authorize_nested(db, &[(action::INSERT, None)])?;
                self.authorize(action::REINDEX, Some(&idx), None, Some(self.db_name(db).as_str()))
            }
            Stmt::DropIndex { idx_name, .. } => {
                let n = unquoted(idx_name.name.0);
                let Some(i) = self.env.schema.index(&n) else { return Ok(Verdict::Allow) };
                let (name, table, db) = (i.name.clone(), i.table.clone(), i.db);
                let code = if db == 1 { action::DROP_TEMP_INDEX } else { action::DROP_INDEX };
                let dbn = self.db_name(db);
                if self.authorize(action::DELETE, Some(schema_table(db)), None, Some(&dbn))? == Verdict::Ignore
                    || self.authorize(code, Some(&name), Some(&table), Some(&dbn))? == Verdict::Ignore
                {
                    return Ok(Verdict::Ignore);
                }
                self.authorize_nested(db, &[(action::DELETE, None), (action::READ, Some("name")), (action::READ, Some("type"))])?;
                self.authorize_nested(db, &[(action::UPDATE, Some("rootpage")), (action::READ, Some("rootpage"))])?;
                Ok(Verdict::Allow)
            }
            Stmt::CreateTrigger { temporary, trigger_name, tbl_name, .. } => {
                let t = unquoted(tbl_name.name.0);
                let temp = *temporary || qualified_db(trigger_name).is_some_and(|d| d.eq_ci("temp"));
                let db = temp as usize;
                let code = if temp { action::CREATE_TEMP_TRIGGER } else { action::CREATE_TRIGGER };
                // (The first INSERT check names the table's database, the
                // row's own insertion the trigger's.)
                let tdb = if temp { table_db(self, &t) } else { db };
                let tn = self.db_name(tdb);
                if self.authorize(code, Some(&unquoted(trigger_name.name.0)), Some(&t), Some(self.db_name(db).as_str()))? == Verdict::Ignore
                    || self.authorize(action::INSERT, Some(schema_table(tdb)), None, Some(&tn))? == Verdict::Ignore
                {
                    return Ok(Verdict::Ignore);
                }
                self.authorize_nested(db, &[(action::INSERT, None)])?;
                Ok(Verdict::Allow)
            }
            Stmt::DropTrigger { trigger_name, .. } => {
                let n = unquoted(trigger_name.name.0);
                let Some(row) = self.env.schema.rows.iter().find(|r| r.0 == "trigger" && r.1.eq_ci(&n)) else {
                    return Ok(Verdict::Allow);
                };
                let i = self.env.schema.rows.iter().position(|r| r.0 == "trigger" && r.1.eq_ci(&n)).unwrap_or(0);
                let (name, table) = (row.1.clone(), row.2.clone());
                let db = if self.env.schema.row_dbs.is_empty() { table_db(self, &table) } else { self.env.schema.row_db(i) };
                let code = if db == 1 { action::DROP_TEMP_TRIGGER } else { action::DROP_TRIGGER };
                if self.then(code, Some(&name), Some(&table), db, action::DELETE, Some(schema_table(db)), None)? == Verdict::Ignore {
                    return Ok(Verdict::Ignore);
                }
                self.authorize_nested(db, &[(action::DELETE, None), (action::READ, Some("name")), (action::READ, Some("type"))])?;
                Ok(Verdict::Allow)
            }
            Stmt::Begin(..) => self.authorize(action::TRANSACTION, Some("BEGIN"), None, None),
            Stmt::Commit(..) => self.authorize(action::TRANSACTION, Some("COMMIT"), None, None),
            Stmt::Rollback { savepoint_name: None, .. } => self.authorize(action::TRANSACTION, Some("ROLLBACK"), None, None),
            Stmt::Rollback { savepoint_name: Some(s), .. } => self.authorize(action::SAVEPOINT, Some("ROLLBACK"), Some(&unquoted(s.0)), None),
            Stmt::Savepoint(s) => self.authorize(action::SAVEPOINT, Some("BEGIN"), Some(&unquoted(s.0)), None),
            Stmt::Release(s) => self.authorize(action::SAVEPOINT, Some("RELEASE"), Some(&unquoted(s.0)), None),
            Stmt::Pragma(name, body) => {
                let arg = body.as_ref().map(|b| match b {
                    PragmaBody::Equals(e) | PragmaBody::Call(e) => crate::sql::parse::arg_text(e),
                });
                let db = qualified_db(name);
                self.authorize(action::PRAGMA, Some(&unquoted(name.name.0)), arg.as_deref(), db.as_deref())
            }
            // Asked in `ddl/alter.rs`, after the checks SQLite makes first.
            Stmt::AlterTable(
                _,
                sqlite3_parser::ast::AlterTableBody::RenameTo(_)
                | sqlite3_parser::ast::AlterTableBody::RenameColumn { .. }
                | sqlite3_parser::ast::AlterTableBody::DropColumn(_)
                | sqlite3_parser::ast::AlterTableBody::AddColumn(_),
            ) => Ok(Verdict::Allow),
            Stmt::AlterTable(q, _) => {
                let n = unquoted(q.name.0);
                let db = table_db(self, &n);
                self.authorize(action::ALTER_TABLE, Some(self.db_name(db).as_str()), Some(&n), None)
            }
            Stmt::Analyze(q) => {
                let n = q.as_ref().map(|q| unquote(q.name.0));
                self.authorize(action::ANALYZE, n.as_deref(), None, Some("main"))
            }
            Stmt::Reindex { obj_name } => {
                let n = obj_name.as_ref().map(|q| unquote(q.name.0));
                self.authorize(action::REINDEX, n.as_deref(), None, Some("main"))
            }
            Stmt::CreateVirtualTable { tbl_name, module_name, if_not_exists, .. } => {
                let db = qualified_db(tbl_name).unwrap_or_else(|| "main".to_string());
                let n = if db.eq_ci("temp") { 1 } else { 0 };
                // (SQLite names main's schema table here whatever the
                // database, and asks nothing more when the table exists.)
                if self.authorize(action::INSERT, Some("sqlite_master"), None, Some(&db))? == Verdict::Ignore {
                    return Ok(Verdict::Ignore);
                }
                if *if_not_exists && self.env.schema.table_in(Some(n), &unquoted(tbl_name.name.0)).is_some() {
                    return Ok(Verdict::Allow);
                }
                if self.authorize(action::CREATE_VTABLE, Some(&unquoted(tbl_name.name.0)), Some(&unquoted(module_name.0)), Some(&db))? == Verdict::Ignore {
                    return Ok(Verdict::Ignore);
                }
                self.authorize_schema_row_fill(n)
            }
            // The file (ATTACH) or schema name (DETACH) when written as a
            // string or a name, NULL for any other expression; IGNORE
            // makes the statement do nothing, as in SQLite.
            Stmt::Attach { expr, .. } => self.authorize(action::ATTACH, attach_auth_arg(expr).as_deref(), None, None),
            Stmt::Detach(e) => self.authorize(action::DETACH, attach_auth_arg(e).as_deref(), None, None),
            Stmt::Vacuum(..) => Ok(Verdict::Allow),
        }
    }

    /// The checks of a statement SQLite runs on database `db`'s schema
    /// table to maintain it: (action, column) each, on that table. A
    /// denial fails the statement; an IGNORE is taken as OK (SQLite's
    /// statement would then leave the schema table half changed).
    fn authorize_nested(&mut self, db: usize, calls: &[(i32, Option<&str>)]) -> Result<()> {
        let name = self.db_name(db);
        for (code, col) in calls {
            self.authorize(*code, Some(schema_table(db)), *col, Some(&name)).map_err(|e| {
                if e.code == SQLITE_AUTH && *code == action::READ {
                    let prefix = if db == 0 { String::new() } else { format!("{name}.") };
                    Error::new(SQLITE_AUTH, format!("access to {prefix}{}.{} is prohibited", schema_table(db), col.unwrap_or("")))
                } else {
                    e
                }
            })?;
        }
        Ok(())
    }

    /// The checks of the statement SQLite runs to fill in the schema row
    /// of a new table, view or virtual table (`UPDATE sqlite_master SET
    /// type, name, tbl_name, rootpage, sql WHERE rowid = ...`): an UPDATE
    /// of each column, then the read of the rowid. A denial fails the
    /// CREATE; an IGNORE is taken as OK (SQLite would leave that column of
    /// the row blank, a schema it cannot read back).
    fn authorize_schema_row_fill(&mut self, db: usize) -> Result<Verdict> {
        let mut calls: Vec<(i32, Option<&str>)> = ["type", "name", "tbl_name", "rootpage", "sql"].into_iter().map(|c| (action::UPDATE, Some(c))).collect();
        calls.push((action::READ, Some("ROWID")));
        self.authorize_nested(db, &calls)?;
        Ok(Verdict::Allow)
    }

    /// Two checks in a row on database `db`; the second is skipped when the
    /// first says IGNORE.
    fn then(&mut self, first: i32, a1: Option<&str>, b1: Option<&str>, db: usize, second: i32, a2: Option<&str>, b2: Option<&str>) -> Result<Verdict> {
        if self.authorize(first, a1, b1, Some(self.db_name(db).as_str()))? == Verdict::Ignore {
            return Ok(Verdict::Ignore);
        }
        self.authorize(second, a2, b2, Some(self.db_name(db).as_str()))
    }
}

/// The argument `SQLITE_ATTACH`/`SQLITE_DETACH` is asked with: the text of
/// a string or a name (SQLite takes a name there as a string), else none.
fn attach_auth_arg(e: &Expr<'_>) -> Option<String> {
    match e {
        Expr::Literal(sqlite3_parser::ast::Literal::String(s)) => Some(unquote(s)),
        Expr::Id(id) => Some(unquote(id.0)),
        Expr::Name(n) => Some(unquote(n.0)),
        _ => None,
    }
}
