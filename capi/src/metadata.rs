//! # `sqlite3_table_column_metadata`
//!
//! Answered from the schema through SQL on the same connection (`PRAGMA
//! table_xinfo` and the table's `CREATE TABLE` text), since the engine
//! exposes no schema objects to the C layer. The collating sequence and
//! AUTOINCREMENT come from the table's SQL text, read with a small
//! tokenizer. Strings handed out live until the connection closes.

use crate::consts::*;
use crate::error::{cstring, misuse, set_error};
use crate::handle::{db_ref, sqlite3, sqlite3_stmt};
use std::ffi::{c_char, c_int, CStr};

/// One row of `PRAGMA table_xinfo`.
struct ColumnInfo {
    name: String,
    decl_type: String,
    not_null: bool,
    pk: i64,
}

/// Run `sql` with text parameters and collect the rows as strings. The
/// connection's error state is left as it was.
unsafe fn query(db: *mut sqlite3, sql: &str, params: &[&str]) -> Option<Vec<Vec<Option<String>>>> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let d = &*db;
        let saved = d.error.try_borrow_mut().map(|mut e| std::mem::take(&mut *e)).ok();
        let rows = run_query(db, sql, params);
        if let (Some(saved), Ok(mut e)) = (saved, d.error.try_borrow_mut()) {
            *e = saved;
        }
        rows
    }
}

unsafe fn run_query(db: *mut sqlite3, sql: &str, params: &[&str]) -> Option<Vec<Vec<Option<String>>>> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let mut st: *mut sqlite3_stmt = std::ptr::null_mut();
        let sqlz = cstring(sql);
        if crate::prepare::sqlite3_prepare_v2(db, sqlz.as_ptr(), -1, &mut st, std::ptr::null_mut()) != SQLITE_OK || st.is_null() {
            return None;
        }
        for (i, p) in params.iter().enumerate() {
            let pz = cstring(*p);
            crate::bind::sqlite3_bind_text(st, i as c_int + 1, pz.as_ptr(), -1, std::mem::transmute::<isize, crate::types::sqlite3_destructor_type>(-1));
        }
        let mut rows = Vec::new();
        loop {
            match crate::step::sqlite3_step(st) {
                SQLITE_ROW => {}
                // An async connection: complete the I/O here.
                crate::consts::SQLITE_IO => {
                    crate::async_io::sqlite3_io_poll(db, -1);
                    continue;
                }
                _ => break,
            }
            let n = crate::column::sqlite3_column_count(st);
            rows.push(
                (0..n)
                    .map(|i| {
                        let t = crate::column::sqlite3_column_text(st, i);
                        (!t.is_null()).then(|| CStr::from_ptr(t as *const c_char).to_string_lossy().into_owned())
                    })
                    .collect(),
            );
        }
        crate::step::sqlite3_finalize(st);
        Some(rows)
    }
}

/// Schema names in `PRAGMA database_list` order.
pub unsafe fn database_names(db: *mut sqlite3) -> Vec<String> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe { query(db, "PRAGMA database_list", &[]).unwrap_or_default().into_iter().filter_map(|r| r.get(1).cloned().flatten()).collect() }
}

fn quote(id: &str) -> String {
    format!("\"{}\"", id.replace('"', "\"\""))
}

/// Tokens of SQL text: identifiers/keywords (unquoted), punctuation; string
/// literals and comments skipped.
fn tokens(sql: &str) -> Vec<String> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b'\'' {
            i += 1;
            while i < b.len() && !(b[i] == b'\'' && b.get(i + 1) != Some(&b'\'')) {
                i += if b[i] == b'\'' { 2 } else { 1 };
            }
            i += 1;
            out.push("'".to_string());
        } else if c == b'"' || c == b'`' || c == b'[' {
            let close = if c == b'[' { b']' } else { c };
            let mut s = Vec::new();
            i += 1;
            while i < b.len() {
                if b[i] == close {
                    if close != b']' && b.get(i + 1) == Some(&close) {
                        s.push(close);
                        i += 2;
                        continue;
                    }
                    break;
                }
                s.push(b[i]);
                i += 1;
            }
            i += 1;
            out.push(String::from_utf8_lossy(&s).into_owned());
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80) {
                i += 1;
            }
            out.push(sql[start..i].to_string());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

/// The COLLATE name in the definition of `column` in a CREATE TABLE text,
/// and whether the table uses AUTOINCREMENT.
fn collation_and_autoinc(create_sql: &str, column: &str) -> (Option<String>, bool) {
    let toks = tokens(create_sql);
    let autoinc = toks.iter().any(|t| t.eq_ignore_ascii_case("AUTOINCREMENT"));
    let Some(open) = toks.iter().position(|t| t == "(") else {
        return (None, autoinc);
    };
    let mut depth = 0;
    let mut start = open + 1;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.as_str() {
            "(" => depth += 1,
            ")" | "," if depth == 1 => {
                let def = &toks[start..k];
                if def.first().is_some_and(|n| n.eq_ignore_ascii_case(column)) {
                    let coll = def.windows(2).find(|w| w[0].eq_ignore_ascii_case("COLLATE")).map(|w| w[1].clone());
                    return (coll, autoinc);
                }
                start = k + 1;
                if t == ")" {
                    break;
                }
            }
            ")" => depth -= 1,
            _ => {}
        }
        if t == ")" && depth == 0 {
            break;
        }
    }
    (None, autoinc)
}

fn is_rowid_name(n: &str) -> bool {
    ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ignore_ascii_case(n))
}

/// Describe column `zColumnName` of table `zTableName` in schema `zDbName`
/// (NULL searches all): its declared type, collation, NOT NULL, PRIMARY KEY
/// and AUTOINCREMENT flags, each written through its non-NULL pointer. With a
/// NULL column name it only checks that the table exists.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_table_column_metadata(
    db: *mut sqlite3,
    zDbName: *const c_char,
    zTableName: *const c_char,
    zColumnName: *const c_char,
    pzDataType: *mut *const c_char,
    pzCollSeq: *mut *const c_char,
    pNotNull: *mut c_int,
    pPrimaryKey: *mut c_int,
    pAutoinc: *mut c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDbName`, `zTableName`, `zColumnName` are NULL or NUL-terminated (or
    // readable for the length given with them); `pzDataType`, `pzCollSeq`, `pNotNull`, `pPrimaryKey`,
    // `pAutoinc` are NULL or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else { return misuse() };
            if zTableName.is_null() {
                return misuse();
            }
            let _g = d.lock.lock();
            let table = CStr::from_ptr(zTableName).to_string_lossy().into_owned();
            let column = (!zColumnName.is_null()).then(|| CStr::from_ptr(zColumnName).to_string_lossy().into_owned());
            let schemas: Vec<String> = if zDbName.is_null() {
                let mut s = database_names(db);
                // Like SQLite's lookup: TEMP first, then main and attached.
                ringlite::util::cold_sort::sort_by_key(&mut s, |n| !n.eq_ignore_ascii_case("temp"));
                if s.is_empty() {
                    s.push("main".into());
                }
                s
            } else {
                vec![CStr::from_ptr(zDbName).to_string_lossy().into_owned()]
            };
            let mut found: Option<(String, Vec<ColumnInfo>, String)> = None;
            for schema in &schemas {
                let master = if schema.eq_ignore_ascii_case("temp") { "sqlite_temp_master".to_string() } else { format!("{}.sqlite_master", quote(schema)) };
                let sql = format!("SELECT name, sql FROM {master} WHERE type = 'table' AND name = ?1 COLLATE NOCASE");
                let Some(rows) = query(db, &sql, &[&table]) else {
                    continue;
                };
                let Some(row) = rows.first() else { continue };
                let name = row[0].clone().unwrap_or_default();
                let create = row.get(1).cloned().flatten().unwrap_or_default();
                let info = query(db, &format!("PRAGMA {}.table_xinfo({})", quote(schema), quote(&name)), &[]).unwrap_or_default();
                let cols = info
                    .into_iter()
                    .map(|r| ColumnInfo {
                        name: r.get(1).cloned().flatten().unwrap_or_default(),
                        decl_type: r.get(2).cloned().flatten().unwrap_or_default(),
                        not_null: r.get(3).cloned().flatten().is_some_and(|v| v != "0"),
                        pk: r.get(5).cloned().flatten().and_then(|v| v.parse().ok()).unwrap_or(0),
                    })
                    .collect();
                found = Some((name, cols, create));
                break;
            }
            // Outputs as SQLite computes them (a NULL column name only checks
            // that the table exists, and reports the rowid's properties).
            let mut data_type: Option<String> = Some("INTEGER".into());
            let mut coll: Option<String> = None;
            let (mut not_null, mut pk, mut autoinc) = (false, true, false);
            let mut ok = found.is_some();
            if let (Some((_, cols, create)), Some(col)) = (&found, &column) {
                match cols.iter().find(|c| c.name.eq_ignore_ascii_case(col)) {
                    Some(c) => {
                        data_type = (!c.decl_type.is_empty()).then(|| c.decl_type.clone());
                        let (cl, ai) = collation_and_autoinc(create, &c.name);
                        coll = cl;
                        not_null = c.not_null;
                        pk = c.pk > 0;
                        let single_int_pk = c.pk == 1 && cols.iter().filter(|x| x.pk > 0).count() == 1 && c.decl_type.eq_ignore_ascii_case("INTEGER");
                        autoinc = ai && single_int_pk;
                    }
                    None if is_rowid_name(col) && !create.to_ascii_uppercase().contains("WITHOUT ROWID") => {
                        if let Some(c) =
                            cols.iter().find(|x| x.pk == 1 && x.decl_type.eq_ignore_ascii_case("INTEGER") && cols.iter().filter(|y| y.pk > 0).count() == 1)
                        {
                            data_type = Some(c.decl_type.clone());
                            let (cl, ai) = collation_and_autoinc(create, &c.name);
                            coll = cl;
                            not_null = c.not_null;
                            autoinc = ai;
                        }
                    }
                    None => ok = false,
                }
            }
            if !ok {
                let msg = format!("no such table column: {}.{}", table, column.as_deref().unwrap_or("(null)"));
                set_error(d, SQLITE_ERROR, Some(&msg));
                return SQLITE_ERROR;
            }
            let coll = coll.unwrap_or_else(|| "BINARY".into());
            if !pzDataType.is_null() {
                *pzDataType = data_type.map_or(std::ptr::null(), |t| d.keep(cstring(t).into_bytes_with_nul()));
            }
            if !pzCollSeq.is_null() {
                *pzCollSeq = d.keep(cstring(coll).into_bytes_with_nul());
            }
            if !pNotNull.is_null() {
                *pNotNull = not_null as c_int;
            }
            if !pPrimaryKey.is_null() {
                *pPrimaryKey = pk as c_int;
            }
            if !pAutoinc.is_null() {
                *pAutoinc = autoinc as c_int;
            }
            set_error(d, SQLITE_OK, None);
            SQLITE_OK
        })
    }
}

#[cfg(test)]
mod tests {
    use super::collation_and_autoinc;

    #[test]
    fn collation_of_a_column_is_read_from_its_definition() {
        let sql = "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, \"b c\" TEXT COLLATE nocase, d CHECK(d IN (1,2)) COLLATE rtrim)";
        assert_eq!(collation_and_autoinc(sql, "b c"), (Some("nocase".into()), true));
        assert_eq!(collation_and_autoinc(sql, "d"), (Some("rtrim".into()), true));
        assert_eq!(collation_and_autoinc(sql, "a"), (None, true));
        assert_eq!(collation_and_autoinc("CREATE TABLE x(y)", "y"), (None, false));
    }
}
