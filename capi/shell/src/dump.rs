//! # `.schema` and `.dump`
//!
//! The schema's SQL as SQLite's shell prints it (a quoted table name
//! gets `IF NOT EXISTS`, a view its column names in a comment), and the
//! whole database (or the tables matching a LIKE pattern) as an SQL
//! script: tables with their rows, then `sqlite_sequence`, then indexes,
//! triggers and views, in one transaction with foreign keys off.
//!
//! Invariants: reading only (no statement here writes); an error stops
//! the dump with `ROLLBACK; -- due to errors` as SQLite's does.

use crate::conn::SqlError;
use crate::render::{sql_name, sql_string, values};
use crate::shell::{Flow, Shell};

/// A schema row's SQL as printed: `CREATE TABLE "x"` gains `IF NOT EXISTS`
/// (SQLite's shell writes it so, for scripts that re-create a schema).
fn schema_line(sql: &str) -> String {
    let b = sql.as_bytes();
    if b.len() > 13 && b[..13].eq_ignore_ascii_case(b"CREATE TABLE ") && matches!(b[13], b'"' | b'\'') {
        format!("CREATE TABLE IF NOT EXISTS {}", &sql[13..])
    } else {
        sql.to_string()
    }
}

/// The SQL of an object of another database than main, its name
/// qualified with the database's (`CREATE TABLE temp.x(...)`), as SQLite's
/// `.schema` shows it.
fn with_schema(api: &crate::api::Api, sql: &str, db: &str) -> String {
    const KINDS: [&str; 6] = ["TABLE", "INDEX", "UNIQUE INDEX", "VIEW", "TRIGGER", "VIRTUAL TABLE"];
    let b = sql.as_bytes();
    if b.len() < 7 || !b[..7].eq_ignore_ascii_case(b"CREATE ") {
        return sql.to_string();
    }
    for k in KINDS {
        let n = k.len();
        if b.len() > 7 + n && &b[7..7 + n] == k.as_bytes() && b[7 + n] == b' ' {
            let q = sql_name(api, db);
            let q = if db.eq_ignore_ascii_case("temp") { db.to_string() } else { q };
            return format!("{} {q}.{}", &sql[..7 + n], &sql[8 + n..]);
        }
    }
    sql.to_string()
}

pub fn schema(sh: &mut Shell, pattern: Option<&str>) -> Flow {
    match schema_rows(sh, pattern) {
        Ok(()) => Flow::Continue,
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            Flow::Failed
        }
    }
}

fn schema_rows(sh: &mut Shell, pattern: Option<&str>) -> Result<(), SqlError> {
    let dbs = sh.conn.column_strings("SELECT name FROM pragma_database_list ORDER BY seq", &[])?;
    for db in dbs {
        let q = format!(
            "SELECT type, name, sql FROM \"{}\".sqlite_schema WHERE sql IS NOT NULL AND (?1 IS NULL OR name LIKE ?1 OR tbl_name LIKE ?1) ORDER BY rowid",
            db.replace('"', "\"\"")
        );
        let rows = query_rows(sh, &q, pattern)?;
        for (ty, name, sql) in rows {
            let sql = if db == "main" { sql } else { with_schema(sh.api, &sql, &db) };
            let mut line = schema_line(&sql);
            if ty == "view" {
                // (Literal arguments: a bound schema argument is not
                // supported by ringlite's pragma functions yet.)
                let q = format!("SELECT name FROM pragma_table_info({}, {})", sql_string(&name), sql_string(&db));
                let cols = sh.conn.column_strings(&q, &[])?;
                let cols: Vec<String> = cols.iter().map(|c| sql_name(sh.api, c)).collect();
                let qualified = if db == "main" {
                    sql_name(sh.api, &name)
                } else {
                    format!("{}.{}", if db.eq_ignore_ascii_case("temp") { db.clone() } else { sql_name(sh.api, &db) }, sql_name(sh.api, &name))
                };
                line.push_str(&format!("\n/* {qualified}({}) */", cols.join(",")));
            }
            sh.out.extend(format!("{line};\n").as_bytes());
        }
    }
    Ok(())
}

fn query_rows(sh: &Shell, q: &str, pattern: Option<&str>) -> Result<Vec<(String, String, String)>, SqlError> {
    let (st, _) = sh.conn.prepare(q)?;
    let Some(mut st) = st else { return Ok(Vec::new()) };
    match pattern {
        Some(p) => st.bind_text(1, p),
        None => st.bind_null(1),
    }
    let mut out = Vec::new();
    while st.step()? {
        let r = st.row();
        let s = |i: usize| String::from_utf8_lossy(&r[i].bytes).into_owned();
        out.push((s(0), s(1), s(2)));
    }
    st.finish()?;
    Ok(out)
}

pub fn dump(sh: &mut Shell, args: &[&str]) -> Flow {
    let patterns: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
    if let Some(opt) = args.iter().find(|a| a.starts_with('-')) {
        sh.error(&format!("Unknown option \"{opt}\" on \".dump\""));
        return Flow::Failed;
    }
    sh.out.extend(b"PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n");
    let result = dump_body(sh, &patterns);
    match result {
        Ok(writable) => {
            if writable {
                sh.out.extend(b"PRAGMA writable_schema=OFF;\n");
            }
            sh.out.extend(b"COMMIT;\n");
            Flow::Continue
        }
        Err(e) => {
            sh.out.extend(b"ROLLBACK; -- due to errors\n");
            sh.error(&format!("Error: {}", e.text));
            Flow::Failed
        }
    }
}

/// The dump's statements; true when `writable_schema` was switched on
/// for a virtual table.
fn dump_body(sh: &mut Shell, patterns: &[&str]) -> Result<bool, SqlError> {
    let like = |col: &str| -> String {
        if patterns.is_empty() {
            "1".to_string()
        } else {
            patterns.iter().map(|p| format!("{col} LIKE {}", sql_string(p))).collect::<Vec<_>>().join(" OR ")
        }
    };
    let tables = query_rows(
        sh,
        &format!(
            "SELECT name, type, sql FROM sqlite_schema AS o WHERE ({}) AND type=='table' AND sql NOT NULL AND ?1 IS NULL ORDER BY tbl_name='sqlite_sequence', rowid",
            like("name")
        ),
        None,
    )?;
    let mut writable = false;
    for (name, _, sql) in tables {
        if name == "sqlite_sequence" {
            sh.out.extend(b"DELETE FROM sqlite_sequence;\n");
        } else if name.eq_ignore_ascii_case("sqlite_stat1") {
            sh.out.extend(b"ANALYZE sqlite_schema;\n");
        } else if name.starts_with("sqlite_") {
            continue;
        } else if sql.len() > 20 && sql.as_bytes()[..20].eq_ignore_ascii_case(b"CREATE VIRTUAL TABLE") {
            if !writable {
                sh.out.extend(b"PRAGMA writable_schema=ON;\n");
                writable = true;
            }
            let n = sql_string(&name);
            sh.out.extend(format!("INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table',{n},{n},0,{});\n", sql_string(&sql)).as_bytes());
            continue;
        } else {
            sh.out.extend(format!("{};\n", schema_line(&sql)).as_bytes());
        }
        dump_rows(sh, &name)?;
    }
    let rest = query_rows(
        sh,
        &format!(
            "SELECT name, type, sql FROM sqlite_schema AS o WHERE ({}) AND sql NOT NULL AND type IN ('index','trigger','view') AND ?1 IS NULL",
            like("name")
        ),
        None,
    )?;
    for (_, _, sql) in rest {
        sh.out.extend(format!("{sql};\n").as_bytes());
    }
    Ok(writable)
}

fn dump_rows(sh: &mut Shell, table: &str) -> Result<(), SqlError> {
    let qname = sql_name(sh.api, table);
    let q = format!("SELECT * FROM \"{}\"", table.replace('"', "\"\""));
    let (st, _) = sh.conn.prepare(&q)?;
    let Some(mut st) = st else { return Ok(()) };
    while st.step()? {
        let row = st.row();
        sh.out.extend(format!("INSERT INTO {qname}").as_bytes());
        values(sh.api, &mut sh.out, &row);
    }
    st.finish()
}
