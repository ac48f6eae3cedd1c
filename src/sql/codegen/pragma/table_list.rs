//! `PRAGMA table_list` and its table-valued form `pragma_table_list`:
//! one row (schema, name, type, ncol, wr, strict) for each table and view
//! of each database (main, temp, then the attached ones), or of the one
//! named, or only those called `name`.
//!
//! Within a database the rows come in the order SQLite's schema hash
//! lists them for a small schema: the most recently created first, the
//! schema table itself (`sqlite_schema`, `sqlite_temp_schema`; five
//! columns) last. (A schema of ten objects or more is listed in that same
//! order, where SQLite's hash buckets would reorder it.)

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::util::ascii::AsciiLower;
use crate::value::Value;

/// The column names of PRAGMA table_list.
pub const TABLE_LIST_COLUMNS: [&str; 6] = ["schema", "name", "type", "ncol", "wr", "strict"];

impl Compiler<'_> {
    /// The rows of PRAGMA table_list for database `db` (every one when
    /// None) and table `name` (every one when None).
    pub(in crate::sql::codegen) fn table_list_rows(&mut self, db: Option<usize>, name: Option<&str>) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        for d in 0..self.env.databases.len() {
            if db.is_some_and(|x| x != d) {
                continue;
            }
            let schema_name = self.db_name(d);
            let objects: Vec<String> = (0..self.env.schema.rows.len())
                .rev()
                .filter(|&i| self.env.schema.row_db(i) == d && matches!(self.env.schema.rows[i].0.as_str(), "table" | "view"))
                .map(|i| self.env.schema.rows[i].1.clone())
                .collect();
            for object in objects {
                if name.is_some_and(|n| !n.eq_ci(&object)) {
                    continue;
                }
                let Some(t) = self.env.schema.table_in(Some(d), &object).cloned() else { continue };
                let (kind, ncol) = if t.view_select.is_some() {
                    // (A view that no longer compiles counts no columns.)
                    ("view", self.view_column_types(&t).map_or(0, |c| c.len()))
                } else if t.virtual_table.is_some() {
                    // (Not connected: the module declares the columns.)
                    ("virtual", t.columns.len())
                } else {
                    ("table", t.columns.len())
                };
                out.push(vec![
                    Value::text(schema_name.clone()),
                    Value::text(t.name.clone()),
                    Value::text(kind),
                    Value::Integer(ncol as i64),
                    Value::Integer(t.without_rowid.is_some() as i64),
                    Value::Integer(t.strict as i64),
                ]);
            }
            // The schema table, named as SQLite prefers (matched by its
            // internal name).
            let (internal, shown) = if d == 1 { ("sqlite_temp_master", "sqlite_temp_schema") } else { ("sqlite_master", "sqlite_schema") };
            if name.is_none_or(|n| n.eq_ci(internal)) {
                out.push(vec![Value::text(schema_name), Value::text(shown), Value::text("table"), Value::Integer(5), Value::Integer(0), Value::Integer(0)]);
            }
        }
        Ok(out)
    }
}
