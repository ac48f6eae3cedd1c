//! The checks SQLite makes on each row of a database's schema table while
//! it reads the schema, before it lets any statement use that database:
//! a row that fails one makes the whole read fail with `SQLITE_CORRUPT`
//! and "malformed database schema (NAME)", followed by " - DETAIL" when
//! the check has a message of its own (an error of the CREATE statement,
//! "invalid rootpage", "orphan index"). Rows are checked in rowid order
//! against the objects of the rows before them, as SQLite enters them one
//! by one: an index whose row precedes its table's finds no table.
//!
//! What is checked, per row (facts probed on SQLite 3.54.1):
//! - `rootpage` NULL: malformed.
//! - `sql` starting with "cr" (any case): the root page must read as a
//!   page number no larger than the file ("invalid rootpage"), and the
//!   statement must parse and be one SQLite would run to create exactly
//!   this row's object: same type, name and table name (compared without
//!   case), unqualified, not already in the schema, and free of the errors
//!   its CREATE would give (those are the detail).
//! - any other non-empty `sql`, or a NULL name: malformed.
//! - `sql` NULL or empty: the row names the automatic index of an earlier
//!   table ("orphan index" otherwise) and gives its root page, at least 2,
//!   within the file, and not another index's of the same table.
//!
//! `PRAGMA writable_schema` turns these checks off (SQLite then loads what
//! it can); the caller decides that.
//!
//! Every check runs on every read, but a CREATE row's parse, and what the
//! parse alone decides (the statement's kind and names, a table's
//! definition, an index's columns against its table), is kept from one
//! read to the next ([`StoredCheckMemo`], keyed by the row's text): after
//! an ALTER TABLE or a VACUUM only the rows that changed are parsed again,
//! while the checks against the rows before them are made anew.

use super::create::IndexSpec;
use super::{table_from_stmt, Schema, SchemaRow, Table};
use crate::error::{Error, Result, SQLITE_CORRUPT};
use crate::sql::parse::{unquote, with_first_statement};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Cmd, CreateTableBody, Stmt, TriggerTime};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One schema-table row as SQLite's reader sees it: each field as text
/// (numbers rendered, blobs read as text), `None` for NULL.
#[derive(Debug, Clone, Default)]
pub struct StoredRow {
    /// `type`.
    pub ty: Option<String>,
    /// `name`.
    pub name: Option<String>,
    /// `tbl_name`.
    pub tbl: Option<String>,
    /// `rootpage`, as text.
    pub root: Option<String>,
    /// `sql`.
    pub sql: Option<String>,
}

/// What the checks of the CREATE rows read before learned from each row's
/// text alone, by row (its type, name, table name and SQL; not its root
/// page, which VACUUM changes): handed from one read of a schema to the
/// next, it holds the rows of the last read only.
#[derive(Debug, Clone, Default)]
pub struct StoredCheckMemo {
    // (Hashed fast: the keys are whole CREATE statements.)
    rows: crate::util::fast_hash::FastMap<String, Arc<Parsed>>,
}

impl StoredCheckMemo {
    /// The table, view or virtual table a read of the schema builds from
    /// `row` (`table_from_sql` of its text at its root page), when a check
    /// parsed that text: the read then does not parse it again.
    pub fn table(&self, row: &SchemaRow) -> Option<Arc<Table>> {
        let (ty, name, tbl, root, sql) = row;
        let key = row_key([Some(ty), Some(name), Some(tbl)], sql.as_deref()?);
        let (Parsed::TableOrView { table: Ok(t), .. } | Parsed::Virtual { table: Ok(t), .. }) = &**self.rows.get(&key)? else { return None };
        let root = u32::try_from(*root).ok()?;
        Some(if t.root == root { Arc::clone(t) } else { Arc::new(Table { root, ..Table::clone(t) }) })
    }

    /// The index a read of the schema builds from `row` against the tables
    /// of `schema` (`index_from_sql` of its text at its root page), when
    /// a check parsed that text.
    pub fn index(&self, row: &SchemaRow, schema: &Schema) -> Option<Result<super::Index>> {
        let (ty, name, tbl, root, sql) = row;
        let key = row_key([Some(ty), Some(name), Some(tbl)], sql.as_deref()?);
        let Parsed::Index { spec, .. } = &**self.rows.get(&key)? else { return None };
        Some(spec.build(sql.clone(), *root as u32, schema))
    }

    /// Parse the CREATE rows of `rows` (rows a CREATE appended, which the
    /// schema takes unchecked) for the next check of the schema.
    /// `known`: the rows of the schema so far. (The rows DROPs deleted
    /// stay until the next check of the rows; past twice the schema's
    /// rows the memo starts again.)
    pub fn remember(&mut self, rows: &[SchemaRow], known: usize) {
        if self.rows.len() > 2 * (known + rows.len()) + 16 {
            self.rows.clear();
        }
        for (ty, name, tbl, root, sql) in rows {
            let Some(sql) = sql.as_deref().filter(|s| s.as_bytes().get(..2).is_some_and(|p| p.eq_ignore_ascii_case(b"cr"))) else { continue };
            let row = StoredRow { ty: Some(ty.clone()), name: Some(name.clone()), tbl: Some(tbl.clone()), root: None, sql: None };
            let parsed = parse_create(&row, sql, u32::try_from(*root).unwrap_or(0));
            self.rows.insert(row_key([Some(ty), Some(name), Some(tbl)], sql), Arc::new(parsed));
        }
    }
}

/// The memo's key of a row: its type, name and table name (each NULL,
/// written `-`, or text after its length) and its SQL text.
fn row_key(fields: [Option<&str>; 3], sql: &str) -> String {
    let mut key = String::with_capacity(sql.len() + 48);
    for f in fields {
        match f {
            None => key.push('-'),
            Some(t) => {
                key.push_str(&t.len().to_string());
                key.push(':');
                key.push_str(t);
            }
        }
    }
    key.push_str(sql);
    key
}

/// A CREATE row's statement, as far as its text decides it.
#[derive(Debug)]
enum Parsed {
    /// The row fails whatever came before it: the detail.
    Fails(String),
    /// CREATE TABLE (`view` false) or CREATE VIEW.
    TableOrView {
        view: bool,
        /// The name unquoted, and as written.
        name: String,
        written: String,
        if_not_exists: bool,
        /// A view's text holds a parameter.
        has_parameter: bool,
        /// CREATE TABLE ... AS SELECT.
        as_select: bool,
        /// The object, built at the root page of the row first parsed.
        table: std::result::Result<Arc<Table>, String>,
    },
    Virtual {
        name: String,
        written: String,
        if_not_exists: bool,
        table: std::result::Result<Arc<Table>, String>,
    },
    Index {
        name: String,
        written: String,
        /// The table named, unquoted.
        table: String,
        if_not_exists: bool,
        /// What building it against its table needs.
        spec: IndexSpec,
    },
    Trigger {
        name: String,
        written: String,
        table: String,
        if_not_exists: bool,
        time: Option<TriggerTime>,
    },
}

/// The objects entered so far.
struct Entered {
    schema: Schema,
    /// Index name (lower case) to its table (lower case) and root page.
    index_roots: HashMap<String, (String, u32)>,
    triggers: HashSet<String>,
    /// The memo of the read before, and the one of this read.
    memo: Option<StoredCheckMemo>,
    next_memo: StoredCheckMemo,
}

/// Check `rows` (in rowid order) as SQLite checks them when it reads the
/// schema of database `db_name` (`temp`: the TEMP database, whose triggers
/// may watch a table it does not hold); `page_count` is the file's size in
/// pages. The error is SQLite's. `memo` is what the check of an earlier
/// read learned (of this or any database: it is keyed by the rows' text);
/// the one of this read is returned.
pub fn check_stored_rows(rows: &[StoredRow], page_count: u32, db_name: &str, temp: bool, memo: Option<StoredCheckMemo>) -> Result<StoredCheckMemo> {
    let mut entered = Entered { schema: Schema::default(), index_roots: HashMap::new(), triggers: HashSet::new(), memo, next_memo: StoredCheckMemo::default() };
    let own = if temp { "sqlite_temp_master" } else { "sqlite_master" };
    entered.schema.tables.insert(own.into(), Arc::new(Table { name: own.into(), ..super::schema_table() }));
    for row in rows {
        if let Err(detail) = check_row(row, page_count, db_name, temp, &mut entered) {
            let mut message = format!("malformed database schema ({})", row.name.as_deref().unwrap_or("?"));
            if !detail.is_empty() {
                message.push_str(" - ");
                message.push_str(&detail);
            }
            return Err(Error::new(SQLITE_CORRUPT, message));
        }
    }
    Ok(entered.next_memo)
}

/// A root page as SQLite reads it from the row's text: decimal digits
/// (after leading white space) fitting 32 bits.
fn parse_root(text: &str) -> Option<u32> {
    let digits = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().filter(|&v| v <= u32::MAX as u64).map(|v| v as u32)
}

/// One row's check; `Err` holds the detail ("" for none).
fn check_row(row: &StoredRow, page_count: u32, db_name: &str, temp: bool, entered: &mut Entered) -> std::result::Result<(), String> {
    let Some(root_text) = &row.root else { return Err(String::new()) };
    match row.sql.as_deref() {
        Some(sql) if sql.as_bytes().get(..2).is_some_and(|p| p.eq_ignore_ascii_case(b"cr")) => {
            let root = parse_root(root_text);
            if root.is_none_or(|r| r > page_count && page_count > 0) {
                return Err("invalid rootpage".into());
            }
            let key = row_key([row.ty.as_deref(), row.name.as_deref(), row.tbl.as_deref()], sql);
            let parsed = match entered.memo.as_mut().and_then(|m| m.rows.remove(&key)) {
                Some(p) => p,
                None => Arc::new(parse_create(row, sql, root.unwrap_or(0))),
            };
            let r = enter_create(row, &parsed, root.unwrap_or(0), db_name, temp, entered);
            entered.next_memo.rows.insert(key, parsed);
            r
        }
        Some(sql) if !sql.is_empty() => Err(String::new()),
        _ => {
            let Some(name) = &row.name else { return Err(String::new()) };
            let key = name.ascii_lower();
            let Some((table, _)) = entered.index_roots.get(&key).cloned() else { return Err("orphan index".into()) };
            let root = parse_root(root_text).unwrap_or(0);
            let shared = entered.index_roots.iter().any(|(other, (t, r))| *other != key && *t == table && *r == root);
            if root < 2 || root > page_count || shared {
                return Err("invalid rootpage".into());
            }
            entered.index_roots.insert(key, (table, root));
            Ok(())
        }
    }
}

/// Whether the row's type, name and table name are those of the object
/// the statement creates (SQLite compares them without case).
fn same_object(row: &StoredRow, ty: &str, name: &str, table: &str) -> bool {
    let eq = |field: &Option<String>, want: &str| field.as_deref().is_some_and(|f| f.eq_ci(want));
    eq(&row.ty, ty) && eq(&row.name, name) && eq(&row.tbl, table)
}

/// A CREATE row's statement parsed, and what its text alone decides
/// checked (`root`: the row's root page, which the table built records).
fn parse_create(row: &StoredRow, sql: &str, root: u32) -> Parsed {
    let parsed = with_first_statement(sql.as_bytes(), |cmd, end| {
        // Text after the statement's closing semicolon, even white space,
        // is a second statement SQLite refuses here.
        let rest = &sql.as_bytes()[end.min(sql.len())..];
        let closed = sql.as_bytes()[..end.min(sql.len())].trim_ascii_end().ends_with(b";");
        if closed && !rest.is_empty() || rest.trim_ascii_start().first() == Some(&b';') && rest.trim_ascii_start().len() > 1 {
            return Ok(Parsed::Fails(String::new()));
        }
        match cmd {
            Some(Cmd::Stmt(stmt)) => Ok(parse_stmt(row, stmt, sql, root)),
            _ => Ok(Parsed::Fails(String::new())),
        }
    });
    match parsed {
        Ok(p) => p,
        // SQLite checks a table's or view's name before it reads the rest
        // of the statement: a row naming another object fails on that.
        Err(_) if header_names_other_object(row, sql) => Parsed::Fails(String::new()),
        Err(e) => Parsed::Fails(e.message),
    }
}

/// For a CREATE TABLE / VIEW text that does not parse: whether its
/// leading words name an object other than the row's.
fn header_names_other_object(row: &StoredRow, sql: &str) -> bool {
    let mut words = sql.split_ascii_whitespace().map(|w| w.ascii_lower());
    let mut kind = None;
    for w in words.by_ref() {
        match w.as_str() {
            "create" | "temp" | "temporary" | "virtual" => {}
            "table" | "view" => {
                kind = Some(if w == "view" { "view" } else { "table" });
                break;
            }
            _ => return false,
        }
    }
    let Some(kind) = kind else { return false };
    let mut name = words.next();
    if name.as_deref() == Some("if") {
        let _ = (words.next(), words.next());
        name = words.next();
    }
    let Some(name) = name else { return false };
    let name = name.split(['(', ';']).next().unwrap_or("");
    if name.is_empty() || name.contains('.') || name.starts_with(['"', '[', '`', '\'']) {
        return false;
    }
    !same_object(row, kind, name, name)
}

/// What the statement's text decides, in the order SQLite checks it: a
/// qualified name, and for a table, view or virtual table its name
/// against the row's, come before anything the rows before decide.
fn parse_stmt(row: &StoredRow, stmt: &Stmt<'_>, sql: &str, root: u32) -> Parsed {
    let corrupt = || Parsed::Fails("corrupt database".into());
    let build = |root| table_from_stmt(stmt, sql, root).map(Arc::new).map_err(|e| e.message);
    match stmt {
        Stmt::CreateTable { if_not_exists, tbl_name: qname, .. } | Stmt::CreateView { if_not_exists, view_name: qname, .. } => {
            let view = matches!(stmt, Stmt::CreateView { .. });
            if qname.db_name.is_some() {
                return corrupt();
            }
            let name = unquote(qname.name.0);
            if !same_object(row, if view { "view" } else { "table" }, &name, &name) {
                return Parsed::Fails(String::new());
            }
            let as_select = matches!(stmt, Stmt::CreateTable { body: CreateTableBody::AsSelect(_), .. });
            Parsed::TableOrView {
                view,
                name,
                written: qname.name.0.to_string(),
                if_not_exists: *if_not_exists,
                has_parameter: view && has_parameter(sql),
                as_select,
                table: build(root),
            }
        }
        Stmt::CreateVirtualTable { if_not_exists, tbl_name, .. } => {
            if tbl_name.db_name.is_some() {
                return corrupt();
            }
            let name = unquote(tbl_name.name.0);
            if !same_object(row, "table", &name, &name) {
                return Parsed::Fails(String::new());
            }
            Parsed::Virtual { name, written: tbl_name.name.0.to_string(), if_not_exists: *if_not_exists, table: build(0) }
        }
        Stmt::CreateIndex { if_not_exists, idx_name, tbl_name, .. } => {
            if idx_name.db_name.is_some() {
                return corrupt();
            }
            let Ok(spec) = IndexSpec::from_stmt(stmt) else { return Parsed::Fails(String::new()) };
            Parsed::Index {
                name: unquote(idx_name.name.0),
                written: idx_name.name.0.to_string(),
                table: unquote(tbl_name.0),
                if_not_exists: *if_not_exists,
                spec,
            }
        }
        Stmt::CreateTrigger { if_not_exists, trigger_name, time, tbl_name, .. } => {
            if trigger_name.db_name.is_some() {
                return corrupt();
            }
            Parsed::Trigger {
                name: unquote(trigger_name.name.0),
                written: trigger_name.name.0.to_string(),
                table: unquote(tbl_name.name.0),
                if_not_exists: *if_not_exists,
                time: *time,
            }
        }
        _ => Parsed::Fails(String::new()),
    }
}

/// The rest of a CREATE row's check (`parsed`), against the objects of
/// the rows before it, entering its object.
fn enter_create(row: &StoredRow, parsed: &Parsed, root: u32, db_name: &str, temp: bool, entered: &mut Entered) -> std::result::Result<(), String> {
    let schema = &mut entered.schema;
    match parsed {
        Parsed::Fails(detail) => Err(detail.clone()),
        Parsed::TableOrView { view, name, written, if_not_exists, has_parameter, as_select, table } => {
            if let Some(e) = taken(schema, name, written) {
                return if *if_not_exists { Ok(()) } else { Err(e) };
            }
            if entered.index_roots.contains_key(&name.ascii_lower()) {
                return Err(format!("there is already an index named {name}"));
            }
            if *view {
                // A view has no b-tree.
                if root != 0 {
                    return Err(String::new());
                }
                if *has_parameter {
                    return Err("parameters are not allowed in views".into());
                }
            } else if *as_select || root == 1 {
                // (CREATE TABLE ... AS is never stored; page 1 is the schema
                // table's.)
                return Err(String::new());
            }
            match table {
                Err(e) => Err(e.clone()),
                Ok(table) => {
                    for n in 1..=table.auto_indexes.len() + usize::from(table.without_rowid.is_some()) {
                        entered.index_roots.insert(format!("sqlite_autoindex_{name}_{n}").ascii_lower(), (name.ascii_lower(), 0));
                    }
                    let table = if table.root == root { Arc::clone(table) } else { Arc::new(Table { root, ..Table::clone(table) }) };
                    schema.tables.insert(name.ascii_lower(), table);
                    Ok(())
                }
            }
        }
        Parsed::Virtual { name, written, if_not_exists, table } => {
            if let Some(e) = taken(schema, name, written) {
                return if *if_not_exists { Ok(()) } else { Err(e) };
            }
            match table {
                Err(e) => Err(e.clone()),
                Ok(table) => {
                    schema.tables.insert(name.ascii_lower(), Arc::clone(table));
                    Ok(())
                }
            }
        }
        Parsed::Index { name, written, table: tname, if_not_exists, spec } => {
            let Some(table) = schema.table(tname) else { return Err(format!("no such table: {db_name}.{tname}")) };
            if table.view_select.is_some() {
                return Err("views may not be indexed".into());
            }
            if table.virtual_table.is_some() {
                return Err("virtual tables may not be indexed".into());
            }
            let table_key = table.name.ascii_lower();
            if !same_object(row, "index", name, &table.name) {
                return Err(String::new());
            }
            let key = name.ascii_lower();
            if entered.index_roots.contains_key(&key) {
                return if *if_not_exists { Ok(()) } else { Err(format!("index {written} already exists")) };
            }
            spec.build(None, root, schema).map_err(|e| e.message)?;
            if entered.index_roots.values().any(|(t, r)| *t == table_key && *r == root) {
                return Err("invalid rootpage".into());
            }
            entered.index_roots.insert(key, (table_key, root));
            Ok(())
        }
        Parsed::Trigger { name, written, table: tname, if_not_exists, time } => {
            let Some(table) = schema.table(tname) else {
                // A TEMP trigger may outlive the table it watched.
                return if temp { Ok(()) } else { Err(format!("no such table: {db_name}.{tname}")) };
            };
            if table.virtual_table.is_some() {
                return Err("cannot create triggers on virtual tables".into());
            }
            if !same_object(row, "trigger", name, &table.name) {
                return Err(String::new());
            }
            if entered.triggers.contains(&name.ascii_lower()) {
                return if *if_not_exists { Ok(()) } else { Err(format!("trigger {written} already exists")) };
            }
            if crate::sql::schema::is_internal_name(&table.name) {
                return Err("cannot create trigger on system table".into());
            }
            let is_view = table.view_select.is_some();
            match time {
                Some(TriggerTime::InsteadOf) if !is_view => return Err(format!("cannot create INSTEAD OF trigger on table: {tname}")),
                Some(TriggerTime::After) if is_view => return Err(format!("cannot create AFTER trigger on view: {tname}")),
                None | Some(TriggerTime::Before) if is_view => return Err(format!("cannot create BEFORE trigger on view: {tname}")),
                _ => {}
            }
            entered.triggers.insert(name.ascii_lower());
            Ok(())
        }
    }
}

/// The error of a name of the namespace of tables and views already
/// taken (`written` as the statement writes it).
fn taken(schema: &Schema, name: &str, written: &str) -> Option<String> {
    let t = schema.table(name)?;
    let what = if t.view_select.is_some() { "view" } else { "table" };
    Some(format!("{what} {written} already exists"))
}

/// Whether SQL text holds a parameter (`?`, `?N`, `:a`, `@a`, `$a`)
/// outside its literals, quoted names and comments.
fn has_parameter(sql: &str) -> bool {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
            }
            b'[' => {
                while i < b.len() && b[i] != b']' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'?' => return true,
            b':' | b'@' | b'$' if b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c >= 0x80) => return true,
            _ => {}
        }
        i += 1;
    }
    false
}
