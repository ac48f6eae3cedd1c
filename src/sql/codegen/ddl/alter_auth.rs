//! The authorizer checks of the statements SQLite runs to rewrite the
//! schema for ALTER TABLE (after `SQLITE_ALTER_TABLE` itself): ringlite
//! rewrites the schema rows directly, so the checks SQLite's own
//! `UPDATE sqlite_master ...` / `SELECT ... sqlite_rename_test(...)`
//! statements would make are asked here, in their order (measured on
//! 3.54.1 with an authorizer logging every call).
//!
//! Each sequence is a list of steps: `F name` a function call, `R X col`
//! / `U X col` a read / update of a column of the table's own schema
//! table (`X`), the temp schema table (`T`), `sqlite_sequence` (`Q`) or
//! `pragma_quick_check` (`P`); `S` a SELECT; `Pragma` the quick_check
//! pragma on the table. A table of the main (or an attached) database
//! also has the temp schema's triggers and views fixed, which a TEMP
//! table does not repeat.
//!
//! As for the other schema statements (`auth.rs`), a denial fails the
//! ALTER and an IGNORE is taken as OK.

use crate::error::{Error, Result, SQLITE_AUTH};
use crate::sql::codegen::auth::{action, Verdict};
use crate::sql::codegen::Compiler;
use crate::sql::schema::Table;

/// The check that the schema of database `X` still parses.
const TEST: &[&str] = &["S", "F like", "R X name", "F like", "R X sql", "F sqlite_rename_test", "R X sql", "R X type", "R X name"];
/// The re-quoting of names in database `X`'s schema.
const QUOTEFIX: &[&str] = &["F sqlite_rename_quotefix", "R X sql", "U X sql", "F like", "R X name", "F like", "R X sql"];

/// RENAME TO: the table's own schema rows.
const RENAME_TABLE: &[&str] = &[
    "F sqlite_rename_table",
    "R X type",
    "R X name",
    "R X sql",
    "U X sql",
    "R X type",
    "R X tbl_name",
    "F like",
    "R X name",
    "U X tbl_name",
    "R X type",
    "F like",
    "R X name",
    "R X type",
    "F substr",
    "R X name",
    "R X name",
    "U X name",
    "R X tbl_name",
    "R X type",
    "R X type",
    "R X type",
];
/// RENAME TO: its AUTOINCREMENT row.
const RENAME_SEQUENCE: &[&str] = &["U Q name", "R Q name"];
/// RENAME TO: the temp schema's triggers on it.
const RENAME_TABLE_TEMP: &[&str] = &[
    "F sqlite_rename_table",
    "R T type",
    "R T name",
    "R T sql",
    "U T sql",
    "R T tbl_name",
    "F sqlite_rename_test",
    "R T sql",
    "R T type",
    "R T name",
    "R T tbl_name",
    "U T tbl_name",
    "R T type",
];
/// RENAME COLUMN: the table's database, then the temp schema's triggers
/// (asked for a TEMP table too).
const RENAME_COLUMN: &[&str] = &[
    "F sqlite_rename_column",
    "R X sql",
    "R X type",
    "R X name",
    "U X sql",
    "F like",
    "R X name",
    "R X type",
    "R X tbl_name",
    "F sqlite_rename_column",
    "R T sql",
    "R T type",
    "R T name",
    "U T sql",
    "R T type",
];
/// DROP COLUMN: the table's schema row.
const DROP_COLUMN: &[&str] = &["F sqlite_drop_column", "R X sql", "U X sql", "R X type", "R X tbl_name"];
/// ADD COLUMN: the table's schema row.
const ADD_COLUMN: &[&str] = &["F printf", "R X sql", "F substr", "R X sql", "F length", "F printf", "R X sql", "U X sql", "R X type", "R X name"];
/// ADD COLUMN to a table with CHECK constraints or a NOT NULL generated
/// column: the existing rows checked through `pragma_quick_check`.
const ADD_COLUMN_VERIFY: &[&str] = &[
    "S",
    "F glob",
    "R P quick_check",
    "F glob",
    "R P quick_check",
    "F glob",
    "R P quick_check",
    "F glob",
    "R P quick_check",
    "F glob",
    "R P quick_check",
    "Pragma",
];

/// Which ALTER TABLE rewrite is being authorized.
pub enum AlterKind {
    RenameTable,
    RenameColumn,
    DropColumn,
    /// ADD COLUMN; `true` when the rows are then verified.
    AddColumn(bool),
}

impl Compiler<'_> {
    /// `SQLITE_ALTER_TABLE` on `table` (DROP COLUMN names the column);
    /// `true` when the authorizer said IGNORE: the ALTER does nothing.
    pub(in crate::sql::codegen) fn authorize_alter_table(&mut self, table: &Table, column: Option<&str>) -> Result<bool> {
        let db = self.db_name(table.db);
        Ok(self.authorize(action::ALTER_TABLE, Some(&db), Some(&table.name), column)? == Verdict::Ignore)
    }

    /// Ask the checks of the statements SQLite runs for this ALTER TABLE
    /// on `table` (see the module doc).
    pub(in crate::sql::codegen) fn authorize_alter_rewrite(&mut self, table: &Table, kind: AlterKind) -> Result<()> {
        if self.stmt.authorizer.is_none() {
            return Ok(());
        }
        let temp = table.db == 1;
        let mut steps: Vec<&'static str> = Vec::new();
        // The schema test runs on the table's database, then (for a table
        // outside temp) on temp's.
        let tests = |steps: &mut Vec<&'static str>| {
            steps.extend(TEST);
            if !temp {
                steps.extend(TEST.iter().map(|s| temp_form(s)));
            }
        };
        match kind {
            AlterKind::RenameTable => {
                steps.extend(RENAME_TABLE);
                // (Whenever the database has a sqlite_sequence table.)
                if self.env.schema.table_in(Some(table.db), "sqlite_sequence").is_some() {
                    steps.extend(RENAME_SEQUENCE);
                }
                if !temp {
                    steps.extend(RENAME_TABLE_TEMP);
                }
                tests(&mut steps);
            }
            AlterKind::RenameColumn | AlterKind::DropColumn => {
                tests(&mut steps);
                steps.extend(QUOTEFIX);
                if !temp {
                    steps.extend(QUOTEFIX.iter().map(|s| temp_form(s)));
                }
                steps.extend(if matches!(kind, AlterKind::RenameColumn) { RENAME_COLUMN } else { DROP_COLUMN });
                tests(&mut steps);
            }
            AlterKind::AddColumn(verify) => {
                steps.extend(ADD_COLUMN);
                if verify {
                    steps.extend(ADD_COLUMN_VERIFY);
                }
            }
        }
        let own = self.db_name(table.db);
        for step in steps {
            self.authorize_alter_step(step, table, &own)?;
        }
        Ok(())
    }

    fn authorize_alter_step(&mut self, step: &str, table: &Table, own: &str) -> Result<()> {
        let mut words = step.split(' ');
        let (op, place, col) = (words.next().unwrap_or(""), words.next(), words.next());
        debug_assert!(words.next().is_none(), "one step: {step}");
        match op {
            "S" => self.authorize(action::SELECT, None, None, None).map(|_| ()),
            "F" => self.authorize_function(place.unwrap_or("")).map(|_| ()),
            "Pragma" => self.authorize(action::PRAGMA, Some("quick_check"), Some(&table.name), Some(own)).map(|_| ()),
            "R" | "U" => {
                let (tname, db): (&str, String) = match place {
                    Some("T") => ("sqlite_temp_master", "temp".to_string()),
                    Some("Q") => ("sqlite_sequence", own.to_string()),
                    Some("P") => ("pragma_quick_check", own.to_string()),
                    _ if table.db == 1 => ("sqlite_temp_master", own.to_string()),
                    _ => ("sqlite_master", own.to_string()),
                };
                let code = if op == "R" { action::READ } else { action::UPDATE };
                match self.authorize(code, Some(tname), col, Some(&db)) {
                    Ok(Verdict::Allow | Verdict::Ignore) => Ok(()),
                    Err(e) if e.code == SQLITE_AUTH && code == action::READ => {
                        // (SQLite's statements name the database.)
                        Err(Error::new(SQLITE_AUTH, format!("access to {db}.{tname}.{} is prohibited", col.unwrap_or(""))))
                    }
                    Err(e) => Err(e),
                }
            }
            _ => {
                debug_assert!(false, "unknown step {step}");
                Ok(())
            }
        }
    }
}

/// A step of the table's own database as asked of the temp schema.
fn temp_form(step: &'static str) -> &'static str {
    match step {
        "R X name" => "R T name",
        "R X sql" => "R T sql",
        "R X type" => "R T type",
        "U X sql" => "U T sql",
        other => other,
    }
}
