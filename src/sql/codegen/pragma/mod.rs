//! PRAGMAs: the schema-describing ones answered from the compiled-in
//! schema (`table_info`, `table_xinfo`, `index_list`, `index_info`,
//! `index_xinfo`; `schema_rows` also serves their table-valued forms in
//! FROM), `table_list` (`table_list.rs`), the lists (`database_list`, `compile_options`, `function_list`,
//! `collation_list`; `list_rows`), the header ones through cookies
//! (`user_version`, `schema_version`, `page_count`), `integrity_check`, and
//! the settings ringlite records or fixes (`page_size`, `cache_size`,
//! `journal_mode`, `synchronous`, `foreign_keys`, `journal_size_limit`,
//! `max_page_count`, `data_version`, ...). `value_pragma_shape` (`pragma_names.rs`) and
//! `emit_pragma_value` serve the table-valued form of the one-value ones.
//!
//! The pragma family: this file, the pragma names and the shape of their
//! table-valued functions (`pragma_names.rs`), the integrity check
//! (`integrity.rs`), `table_list.rs` and `collation_list.rs`.

pub(in crate::sql::codegen) mod collation_list;
pub(in crate::sql::codegen) mod integrity;
pub(crate) mod pragma_names;
pub(in crate::sql::codegen) mod table_list;

use crate::btree::Meta;
use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::arg_text;
use crate::sql::parse::unquoted;
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{Expr, PragmaBody, Stmt};

fn const_rows(c: &mut Compiler<'_>, prog: &mut Program, names: &[&str], rows: Vec<Vec<Value>>) {
    prog.column_names = names.iter().map(|s| s.to_string()).collect();
    for r in rows {
        c.b.add4(Opcode::ResultRowConst, 0, 0, 0, P4::row(r), 0);
    }
}

/// A PRAGMA answered from the compiled-in schema checks, when it runs, the
/// schema cookie of the database it is about (of every database when
/// none is named: the table may be in any), so that a cached statement is
/// compiled again after a schema change, here or by another connection.
pub(in crate::sql::codegen) fn verify_schemas(c: &mut Compiler<'_>, qualified: Option<usize>) {
    c.stmt.dbs_used |= match qualified {
        Some(db) => 1 << db,
        // (temp only once it is in use: a transaction on it would bring
        // it into `database_list`, which SQLite does not.)
        None => (0..c.env.databases.len().clamp(1, 32)).filter(|&db| db != 1 || c.env.temp_listed).fold(0, |m, db| m | 1 << db),
    };
}

fn arg_int(e: &Expr<'_>) -> Option<i64> {
    let t = arg_text(e);
    match t.ascii_lower().as_str() {
        "on" | "true" | "yes" | "full" => Some(1),
        "off" | "false" | "no" => Some(0),
        "normal" => Some(1),
        "extra" => Some(3),
        _ => t.parse().ok(),
    }
}

/// A pragma's integer argument as SQLite reads one: decimal (the number
/// its leading sign and digits make, saturating) or `0x` hexadecimal.
/// The flag says whether the whole text was that number.
fn dec_or_hex_prefix(text: &str) -> (i64, bool) {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let digits: String = hex.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        let whole = !digits.is_empty() && digits.len() == hex.len() && digits.len() <= 16;
        return (u64::from_str_radix(&digits, 16).map_or(0, |v| v as i64), whole);
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let mut v: i128 = 0;
    for b in body.bytes().take(digits) {
        v = (v * 10 + (b - b'0') as i128).min(i64::MAX as i128 + 1);
    }
    let v = if neg { -v } else { v };
    let n = v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    (n, digits > 0 && digits == body.len() && v >= i64::MIN as i128 && v <= i64::MAX as i128)
}

/// Compile a PRAGMA.
pub fn compile_pragma(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Pragma(name, body) = stmt else { return Err(Error::sql("not a PRAGMA")) };
    let pname = unquoted(name.name.0).ascii_lower();
    let arg = body.as_ref().map(|b| match b {
        PragmaBody::Equals(e) | PragmaBody::Call(e) => e,
    });
    // `PRAGMA aux.x`: the database it is about (main when not named; the
    // schema-describing ones search every database then).
    let qualified = c.qualifier_db(name.db_name.as_ref())?;
    let pdb = qualified.unwrap_or(0);
    let pdb_op = pdb as i32;
    let init = c.begin_program();
    // The database's file may answer first (an application VFS's own
    // pragmas, SQLITE_FCNTL_PRAGMA): its text is the one row, named by
    // itself, as SQLite names it.
    // (Asked once: the connection may have asked it before reading the
    // schema, as SQLite asks while parsing.)
    let answer = match c.env.early_pragma {
        Some((db, answer)) if *db == pdb => answer.clone(),
        _ => c.env.db_file.and_then(|f| f(pdb)).and_then(|file| file.pragma(&unquoted(name.name.0), arg.map(arg_text).as_deref())),
    };
    if let Some(answer) = answer {
        if let Some(text) = answer? {
            const_rows(c, prog, &[text.as_str()], vec![vec![Value::text(text.clone())]]);
        }
        c.end_program(init, None);
        return Ok(());
    }
    let mut txn = None;
    let schema = c.env.schema;
    // The header fields are read (or written) without the schema, as
    // SQLite's: no schema cookie is checked for them.
    c.stmt.schema_unverified = matches!(pname.as_str(), "user_version" | "schema_version" | "application_id" | "data_version" | "freelist_count");
    match pname.as_str() {
        "table_info" | "table_xinfo" | "index_list" | "index_info" | "index_xinfo" => {
            let arg = arg.map(arg_text);
            let view_columns = c.view_columns_for_pragma(qualified, &pname, arg.as_deref())?;
            let vtab = match arg.as_deref().and_then(|n| schema.table_in(qualified, n)) {
                Some(t) if pname == "table_info" || pname == "table_xinfo" => c.connected_vtab(t)?.map(|(_, d)| d),
                _ => None,
            };
            let (names, rows) = schema_rows(schema, qualified, &pname, arg.as_deref(), view_columns.as_deref(), vtab.as_ref()).unwrap_or_default();
            const_rows(c, prog, &names, rows);
            // The rows describe the schema the statement was compiled
            // with: its transaction checks the schema cookie, so that a
            // cached statement is compiled again after a schema change.
            verify_schemas(c, qualified);
            txn = Some(false);
        }
        "table_list" => {
            let name = arg.map(arg_text);
            let rows = c.table_list_rows(qualified, name.as_deref())?;
            const_rows(c, prog, &crate::sql::codegen::pragma::table_list::TABLE_LIST_COLUMNS, rows);
            verify_schemas(c, qualified);
            txn = Some(false);
        }
        "database_list" => {
            let rows = c
                .database_list()
                .into_iter()
                .map(|(i, n, f)| vec![Value::Integer(i as i64), Value::text(n), Value::Text(crate::io::os_path::to_bytes(&f).into_owned())])
                .collect();
            const_rows(c, prog, &["seq", "name", "file"], rows);
        }
        "compile_options" | "function_list" | "collation_list" | "pragma_list" | "module_list" => {
            let (names, rows) = list_rows(c, &pname).unwrap_or_default();
            const_rows(c, prog, &names, rows);
        }
        "user_version" | "schema_version" | "application_id" => {
            let field = match pname.as_str() {
                "user_version" => Meta::UserVersion,
                "schema_version" => Meta::SchemaCookie,
                _ => Meta::ApplicationId,
            };
            match arg {
                Some(e) => {
                    let v = arg_int(e).unwrap_or(0);
                    c.stmt.writes = true;
                    // Under SQLITE_DBCONFIG_DEFENSIVE setting the schema
                    // cookie is a silent no-op (the write transaction is
                    // still begun, as SQLite's program does).
                    let refused = field == Meta::SchemaCookie && c.env.settings.defensive;
                    if !refused {
                        c.b.add(Opcode::SetCookie, pdb_op, field as i32, v as i32);
                    }
                    if field == Meta::SchemaCookie && !refused {
                        prog.changes_schema = true;
                    }
                    txn = Some(true);
                }
                None => {
                    let r = c.b.reg();
                    c.b.add(Opcode::ReadCookie, pdb_op, r, field as i32);
                    c.b.add(Opcode::ResultRow, r, 1, 0);
                    prog.column_names = vec![pname.clone()];
                    txn = Some(false);
                }
            }
        }
        "page_count" => {
            let r = c.b.reg();
            c.b.add(Opcode::Pagecount, pdb_op, r, 0);
            c.b.add(Opcode::ResultRow, r, 1, 0);
            prog.column_names = vec![pname.clone()];
            txn = Some(false);
        }
        "encoding" => {
            // The connection's encoding (main's); setting it takes effect
            // only while main is empty, and returns no row, as in SQLite.
            let out = c.b.reg();
            let spec = match arg {
                Some(e) => format!("encoding={}", arg_text(e)),
                None => pname.clone(),
            };
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(spec), 0);
            if arg.is_none() {
                c.b.add(Opcode::ResultRow, out, 1, 0);
                prog.column_names = vec!["encoding".to_string()];
            }
            txn = Some(false);
        }
        "journal_mode" | "cache_size" | "cache_spill" | "synchronous" | "page_size" | "wal_autocheckpoint" | "wal_checkpoint" | "io_backend" => {
            let mut value = arg.map(arg_text);
            // Journal mode OFF lets ordinary SQL corrupt the file: under
            // SQLITE_DBCONFIG_DEFENSIVE asking for it only reports the mode.
            if pname == "journal_mode" && c.env.settings.defensive && value.as_deref().is_some_and(|v| v.trim().eq_ignore_ascii_case("off")) {
                value = None;
            }
            // Setting these returns no row, as in SQLite; the others always
            // report the resulting value.
            let silent_set = value.is_some() && matches!(pname.as_str(), "cache_size" | "cache_spill" | "synchronous" | "page_size");
            let spec = match &value {
                Some(v) => format!("{pname}={v}"),
                None => pname.clone(),
            };
            if pname == "page_size" && value.is_none() && pdb == 0 {
                const_rows(c, prog, &["page_size"], vec![vec![Value::Integer(c.env.page_size as i64)]]);
            } else {
                let n = if pname == "wal_checkpoint" { 3 } else { 1 };
                let out = c.b.reg();
                for _ in 1..n {
                    c.b.reg();
                }
                if pname == "journal_mode" && value.is_some() && qualified.is_none() {
                    // Unqualified, the new mode goes to temp and every
                    // attached database too (main's result is reported).
                    for db in 1..c.env.databases.len() {
                        let scratch = c.b.reg();
                        c.b.add4(Opcode::PragmaBtree, db as i32, scratch, 0, P4::text(spec.clone()), 0);
                    }
                }
                c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text(spec), 0);
                if !silent_set {
                    c.b.add(Opcode::ResultRow, out, n, 0);
                    prog.column_names = if pname == "wal_checkpoint" { vec!["busy".into(), "log".into(), "checkpointed".into()] } else { vec![pname.clone()] };
                }
            }
        }
        // Connection flags kept by the VM (a value that is not a number or
        // ON/TRUE/YES, such as writable_schema's RESET, turns one off).
        "foreign_keys"
        | "defer_foreign_keys"
        | "writable_schema"
        | "query_only"
        | "count_changes"
        | "ignore_check_constraints"
        | "recursive_triggers"
        | "legacy_alter_table"
        | "full_column_names"
        | "short_column_names"
        | "trusted_schema" => {
            let out = c.b.reg();
            match arg {
                // writable_schema=RESET also drops the schema read so far:
                // the next statement reads it again (from rows edited meanwhile).
                Some(v) if pname == "writable_schema" && arg_text(v).eq_ci("reset") => {
                    c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(format!("{pname}=reset")), 0);
                }
                Some(v) => {
                    let on = arg_int(v).unwrap_or(0) != 0;
                    c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(format!("{pname}={}", on as i32)), 0);
                }
                None => {
                    c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(pname.clone()), 0);
                    c.b.add(Opcode::ResultRow, out, 1, 0);
                    prog.column_names = vec![pname.clone()];
                }
            }
        }
        "foreign_key_list" => {
            let rows = arg.map(|a| c.foreign_key_list(qualified, &arg_text(a))).unwrap_or_default();
            const_rows(c, prog, &["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"], rows);
            verify_schemas(c, qualified);
            txn = Some(false);
        }
        "foreign_key_check" => {
            let t = arg.map(arg_text);
            c.pragma_foreign_key_check(prog, qualified, t.as_deref())?;
            txn = Some(false);
        }
        "integrity_check" | "quick_check" => {
            // The argument is an error limit or a table name; every
            // database is checked unless one is named (temp only when asked).
            // (A quoted argument is a table name even when it reads as a
            // number, as SQLite takes the number from the token as written.)
            let quoted = matches!(arg, Some(Expr::Literal(sqlite3_parser::ast::Literal::String(_))))
                || match arg {
                    Some(Expr::Id(id)) => id.0.starts_with(['"', '[', '`', '\'']),
                    Some(Expr::Name(n)) => n.0.starts_with(['"', '[', '`', '\'']),
                    _ => false,
                };
            let (max_errors, table) = match arg.map(arg_text) {
                Some(a) if quoted => (100, Some(a)),
                Some(a) => match a.parse::<i64>() {
                    Ok(n) if n > 0 => (n, None),
                    Ok(_) => (100, None),
                    Err(_) => (100, Some(a)),
                },
                None => (100, None),
            };
            let dbs: Vec<(usize, String)> = match qualified {
                Some(d) => vec![d],
                None => std::iter::once(0).chain(2..c.env.databases.len()).collect(),
            }
            .into_iter()
            .map(|d| (d, c.env.databases.get(d).map_or_else(|| "main".to_string(), |x| x.0.clone())))
            .collect();
            let scope = crate::sql::codegen::pragma::integrity::IntegrityScope {
                dbs,
                quick: pname == "quick_check",
                max_errors,
                table: table.as_deref(),
                named_db: qualified.is_some(),
            };
            c.integrity_check(&scope)?;
            prog.column_names = vec![pname.clone()];
            prog.corruption_is_a_row = true;
            txn = Some(false);
        }
        "data_version" => {
            // Read-only: an argument is ignored, as in SQLite.
            let out = c.b.reg();
            c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text(pname.clone()), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
            txn = Some(false);
        }
        "journal_size_limit" | "max_page_count" => {
            // journal_size_limit takes what number the argument begins
            // with (below -1: -1, no limit); max_page_count only a whole
            // number, negative or anything else meaning "just report".
            let spec = match arg.map(arg_text) {
                None => pname.clone(),
                Some(a) if pname == "journal_size_limit" => format!("{pname}={}", dec_or_hex_prefix(&a).0.max(-1)),
                Some(a) => {
                    let n = match dec_or_hex_prefix(&a) {
                        (n, true) => n.clamp(0, 0xffff_fffe),
                        (_, false) => 0,
                    };
                    format!("{pname}={n}")
                }
            };
            let out = c.b.reg();
            c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text(spec), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
            // (max_page_count compares with the database's current size.)
            if pname == "max_page_count" {
                txn = Some(false);
            }
        }
        "locking_mode" => {
            // Without a database name a mode goes to main and every
            // attached database (not temp, always exclusive) and becomes
            // the default for later ones; a query reports that default.
            let mode = arg.map(|a| arg_text(a).ascii_lower()).filter(|m| m == "exclusive" || m == "normal");
            let out = c.b.reg();
            let set = |c: &mut Compiler<'_>, db: usize, spec: String| {
                c.b.add4(Opcode::PragmaBtree, db as i32, out, 0, P4::text(spec), 0);
            };
            match (qualified, mode) {
                (None, None) => set(c, 0, "locking_mode=default".into()),
                (None, Some(m)) => {
                    for db in 2..c.env.databases.len() {
                        set(c, db, format!("locking_mode={m}"));
                    }
                    set(c, 0, format!("locking_mode_default={m}"));
                    set(c, 0, format!("locking_mode={m}"));
                }
                (Some(_), Some(m)) => set(c, pdb, format!("locking_mode={m}")),
                (Some(_), None) => set(c, pdb, "locking_mode".into()),
            }
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
        }
        "mmap_size" => {
            // As SQLite, while compiling: a new limit goes to the database
            // files (every one unless the pragma names a schema), then the
            // schema's file answers. ringlite's own files are never mapped
            // and report 0 (as SQLite built without mmap); an application
            // VFS's file gets SQLITE_FCNTL_MMAP_SIZE and answers itself; an
            // in-memory database reports nothing, as in SQLite.
            let file_of = |i: usize| c.env.databases.get(i).is_some_and(|d| !d.1.is_empty()).then(|| c.env.db_file.and_then(|f| f(i))).flatten();
            if let Some(a) = arg {
                let sz = dec_or_hex_prefix(&arg_text(a)).0.max(0);
                for i in (0..c.env.databases.len()).rev() {
                    if qualified.is_none() || i == pdb {
                        if let Some(f) = file_of(i) {
                            f.hint(crate::io::FileHint::MmapSize(sz));
                        }
                    }
                }
            }
            let is_file = c.env.databases.get(pdb).is_some_and(|d| !d.1.is_empty());
            let answer = if is_file { file_of(pdb).map_or(Some(Ok(0)), |f| f.mmap_size()) } else { None };
            let rows = match answer {
                Some(n) => vec![vec![Value::Integer(n?)]],
                None => Vec::new(),
            };
            const_rows(c, prog, &["mmap_size"], rows);
        }
        "freelist_count" => {
            let r = c.b.reg();
            c.b.add(Opcode::ReadCookie, pdb_op, r, Meta::FreelistCount as i32);
            c.b.add(Opcode::ResultRow, r, 1, 0);
            prog.column_names = vec![pname.clone()];
            txn = Some(false);
        }
        "auto_vacuum" => {
            let out = c.b.reg();
            match arg {
                // Setting returns no row; turning auto_vacuum on or off takes
                // effect only on a database without tables, as in SQLite.
                Some(v) => {
                    let mode = match arg_text(v).ascii_lower().as_str() {
                        "none" => 0,
                        "full" => 1,
                        "incremental" => 2,
                        other => other.parse::<i64>().unwrap_or(0),
                    };
                    // (NONE writes nothing: a read transaction, so that
                    // an empty file gets no page 1 yet.)
                    c.stmt.writes = mode != 0;
                    c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text(format!("auto_vacuum={mode}")), 0);
                    txn = Some(mode != 0);
                }
                None => {
                    c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text("auto_vacuum".into()), 0);
                    c.b.add(Opcode::ResultRow, out, 1, 0);
                    prog.column_names = vec![pname.clone()];
                    txn = Some(false);
                }
            }
        }
        "incremental_vacuum" => {
            // N < 1 (or no argument) empties the whole freelist.
            let n = arg.and_then(arg_int).filter(|n| *n > 0).map_or(0, |n| n.min(u32::MAX as i64));
            let out = c.b.reg();
            c.stmt.writes = true;
            c.b.add4(Opcode::PragmaBtree, pdb_op, out, 0, P4::text(format!("incremental_vacuum={n}")), 0);
            txn = Some(true);
        }
        "case_sensitive_like" => {
            // Write-only, as in SQLite: LIKE reads the connection's flag.
            if let Some(v) = arg {
                let on = arg_int(v).unwrap_or(0) != 0;
                let out = c.b.reg();
                c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(format!("case_sensitive_like={}", on as i32)), 0);
            }
        }
        // Settings the connection keeps without acting on them (their
        // effect is nil or only on plans and timing here): read back as
        // set, SQLite's default until then.
        "reverse_unordered_selects"
        | "automatic_index"
        | "cell_size_check"
        | "temp_store"
        | "read_uncommitted"
        | "checkpoint_fullfsync"
        | "fullfsync"
        | "empty_result_callbacks" => {
            let out = c.b.reg();
            match arg {
                Some(v) => {
                    c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(format!("{pname}={}", arg_text(v))), 0);
                }
                None => {
                    c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(pname.clone()), 0);
                    c.b.add(Opcode::ResultRow, out, 1, 0);
                    prog.column_names = vec![pname.clone()];
                }
            }
        }
        // Limits that answer their value after setting it: a whole
        // decimal or hexadecimal integer sets (a negative one only reads,
        // as the C calls do; see `pager::cache` for the heap limits).
        "analysis_limit" | "soft_heap_limit" | "hard_heap_limit" => {
            let out = c.b.reg();
            let spec = match arg.map(|v| dec_or_hex_prefix(&arg_text(v))) {
                Some((n, true)) => format!("{pname}={n}"),
                _ => pname.clone(),
            };
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(spec), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
        }
        // The suggested cache size the database header keeps (offset 48):
        // reported as a positive number, SQLite's default (-2000) when 0.
        // Setting it stores the absolute value and sets cache_size.
        "default_cache_size" => match arg {
            Some(v) => {
                let size = arg_int(v).unwrap_or(0).unsigned_abs().min(i32::MAX as u64) as i32;
                c.stmt.writes = true;
                c.b.add(Opcode::SetCookie, pdb_op, Meta::DefaultCacheSize as i32, size);
                let scratch = c.b.reg();
                c.b.add4(Opcode::PragmaBtree, pdb_op, scratch, 0, P4::text(format!("cache_size={size}")), 0);
                txn = Some(true);
            }
            None => {
                let out = c.b.reg();
                let zero = c.b.reg();
                let done = c.b.label();
                c.b.add(Opcode::ReadCookie, pdb_op, out, Meta::DefaultCacheSize as i32);
                c.b.add(Opcode::IfPos, out, done, 0);
                c.b.add(Opcode::Integer, 0, zero, 0);
                c.b.add(Opcode::Subtract, out, zero, out);
                c.b.add(Opcode::IfPos, out, done, 0);
                c.b.add(Opcode::Integer, -2000, out, 0);
                c.b.bind(done);
                c.b.add(Opcode::ResultRow, out, 1, 0);
                // (SQLite names the column `cache_size`.)
                prog.column_names = vec!["cache_size".to_string()];
                txn = Some(false);
            }
        },
        // sqlite3_limit(SQLITE_LIMIT_WORKER_THREADS): answers the limit,
        // after setting it.
        "threads" => {
            let out = c.b.reg();
            let spec = match arg.and_then(arg_int) {
                Some(n) => format!("threads={n}"),
                None => pname.clone(),
            };
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(spec), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
        }
        // secure_delete: only off, the way ringlite deletes.
        "secure_delete" => {
            if let Some(v) = arg {
                let on = arg_text(v).eq_ci("fast") || arg_int(v).unwrap_or(0) != 0;
                if on {
                    return Err(Error::unsupported(&format!("PRAGMA {pname}={}", arg_text(v))));
                }
            } else {
                const_rows(c, prog, &[pname.as_str()], vec![vec![Value::Integer(0)]]);
            }
        }
        "busy_timeout" => {
            let out = c.b.reg();
            let spec = match arg.and_then(arg_int) {
                Some(ms) => format!("busy_timeout={ms}"),
                None => pname.clone(),
            };
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(spec), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            // (SQLite names the column `timeout`.)
            prog.column_names = vec!["timeout".to_string()];
        }
        // ringlite's: the time quantum of an async connection's step, µs
        // (answers the value in force: always 0 on blocking connections).
        "step_quantum" => {
            let out = c.b.reg();
            let spec = match arg.and_then(arg_int) {
                Some(us) => format!("step_quantum={us}"),
                None => pname.clone(),
            };
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(spec), 0);
            c.b.add(Opcode::ResultRow, out, 1, 0);
            prog.column_names = vec![pname.clone()];
        }
        "legacy_file_format" => {}
        _ => {}
    }
    c.end_program(init, txn);
    Ok(())
}

/// The rows of the schema-describing pragmas (`table_info`,
/// `table_xinfo`, `index_list`, `index_info`, `index_xinfo`) for argument
/// `arg`: column names and rows, known when the statement is compiled.
/// Shared by the PRAGMA statement and its table-valued form
/// (`pragma_table_info('t')` in FROM).
pub(crate) fn schema_rows(
    schema: &crate::sql::schema::Schema,
    db: Option<usize>,
    pname: &str,
    arg: Option<&str>,
    view_columns: Option<&[(String, String)]>,
    vtab: Option<&crate::sql::vtab_decl::DeclaredTable>,
) -> Option<(Vec<&'static str>, Vec<Vec<Value>>)> {
    match pname {
        "table_info" | "table_xinfo" => {
            // A virtual table's columns are the ones its module declared.
            let t = match vtab {
                Some(d) => Some((*d.table).clone()),
                None => arg.map(str::to_string).and_then(|n| schema.table_in(db, &n).cloned()),
            };
            let mut rows = Vec::new();
            for (i, (name, ty)) in view_columns.unwrap_or_default().iter().enumerate() {
                let mut r =
                    vec![Value::Integer(i as i64), Value::text(name.clone()), Value::text(ty.clone()), Value::Integer(0), Value::Null, Value::Integer(0)];
                if pname == "table_xinfo" {
                    r.push(Value::Integer(0));
                }
                rows.push(r);
            }
            // The schema table itself, under any of its names.
            let schema_table = ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"];
            if t.is_none() && rows.is_empty() && arg.is_some_and(|a| schema_table.iter().any(|n| n.eq_ci(a))) {
                for (i, (name, ty)) in [("type", "TEXT"), ("name", "TEXT"), ("tbl_name", "TEXT"), ("rootpage", "INT"), ("sql", "TEXT")].into_iter().enumerate()
                {
                    let mut r = vec![Value::Integer(i as i64), Value::text(name), Value::text(ty), Value::Integer(0), Value::Null, Value::Integer(0)];
                    if pname == "table_xinfo" {
                        r.push(Value::Integer(0));
                    }
                    rows.push(r);
                }
            }
            // The eponymous pragma tables (`pragma_function_list`, ...).
            if t.is_none() && rows.is_empty() {
                if let Some(r) = arg.and_then(|a| crate::sql::codegen::pragma::pragma_names::pragma_table_rows(a, pname == "table_xinfo")) {
                    rows = r;
                }
            }
            if let Some(t) = t {
                // The pk column numbers the PRIMARY KEY's own order.
                let pk_cols: Vec<usize> = match (t.rowid_alias, &t.without_rowid) {
                    (Some(r), _) => vec![r],
                    (None, Some(key)) => key.iter().map(|k| k.0).collect(),
                    (None, None) => t.auto_indexes.iter().find(|(_, is_pk)| *is_pk).map(|(cols, _)| cols.iter().map(|k| k.0).collect()).unwrap_or_default(),
                };
                // table_info leaves generated columns out (later cids
                // close up); table_xinfo shows them as hidden 2 (VIRTUAL)
                // or 3 (STORED).
                let mut n_hidden = 0;
                for (i, col) in t.columns.iter().enumerate() {
                    let hidden = col.generated.as_ref().map_or(0, |g| if g.stored { 3 } else { 2 });
                    let hidden = if vtab.is_some_and(|d| d.hidden[i]) { 1 } else { hidden };
                    if hidden != 0 && pname == "table_info" {
                        n_hidden += 1;
                        continue;
                    }
                    let pk = pk_cols.iter().position(|&p| p == i).map_or(0, |p| p + 1);
                    let mut r = vec![
                        Value::Integer((i - n_hidden) as i64),
                        Value::text(col.name.clone()),
                        Value::text(col.decltype.clone().unwrap_or_default()),
                        Value::Integer(col.not_null as i64),
                        col.default.clone().map_or(Value::Null, Value::text),
                        Value::Integer(pk as i64),
                    ];
                    if pname == "table_xinfo" {
                        r.push(Value::Integer(hidden));
                    }
                    rows.push(r);
                }
            }
            let names = if pname == "table_xinfo" {
                vec!["cid", "name", "type", "notnull", "dflt_value", "pk", "hidden"]
            } else {
                vec!["cid", "name", "type", "notnull", "dflt_value", "pk"]
            };
            Some((names, rows))
        }
        "index_list" => {
            let tname = arg.map(str::to_string).unwrap_or_default();
            let mut idxs = schema.table_in(db, &tname).map(|t| schema.indexes_with_pk_of(t)).unwrap_or_default();
            idxs.reverse();
            let rows = idxs
                .iter()
                .enumerate()
                .map(|(i, ix)| {
                    vec![
                        Value::Integer(i as i64),
                        Value::text(ix.name.clone()),
                        Value::Integer(ix.unique as i64),
                        Value::text(ix.origin),
                        Value::Integer(ix.where_sql.is_some() as i64),
                    ]
                })
                .collect();
            Some((vec!["seq", "name", "unique", "origin", "partial"], rows))
        }
        "index_info" => {
            let iname = arg.map(str::to_string).unwrap_or_default();
            let mut rows = Vec::new();
            if let Some(ix) = schema.index_or_pk_in(db, &iname) {
                let t = schema.table_in(Some(ix.db), &ix.table);
                for (i, col) in ix.columns.iter().enumerate() {
                    let cname = t.and_then(|t| t.columns.get(col.column?)).map_or(Value::Null, |c| Value::text(c.name.clone()));
                    rows.push(vec![Value::Integer(i as i64), Value::Integer(col.column.map_or(-2, |c| c as i64)), cname]);
                }
            }
            Some((vec!["seqno", "cid", "name"], rows))
        }
        "index_xinfo" => {
            let iname = arg.map(str::to_string).unwrap_or_default();
            let mut rows = Vec::new();
            if let Some(ix) = schema.index_or_pk_in(db, &iname) {
                let ix = &ix;
                let t = schema.table_in(Some(ix.db), &ix.table);
                for (i, col) in ix.columns.iter().enumerate() {
                    let tcol = t.and_then(|t| t.columns.get(col.column?));
                    let cname = tcol.map_or(Value::Null, |c| Value::text(c.name.clone()));
                    let coll = col.collation.clone().or_else(|| tcol.and_then(|c| c.collation.clone())).unwrap_or_else(|| "BINARY".into());
                    rows.push(vec![
                        Value::Integer(i as i64),
                        Value::Integer(col.column.map_or(-2, |c| c as i64)),
                        cname,
                        Value::Integer(col.descending as i64),
                        Value::text(coll),
                        Value::Integer(1),
                    ]);
                }
                // Then what follows the key in each entry: the rowid, or a
                // WITHOUT ROWID table's PRIMARY KEY suffix (for the
                // PRIMARY KEY itself, the table's other columns).
                let aux: Vec<(usize, bool, String)> = match t.filter(|t| t.without_rowid.is_some()) {
                    Some(t) if ix.origin == "pk" && ix.root == t.root => t
                        .record_columns()
                        .into_iter()
                        .skip(t.key_width())
                        .map(|c| (c, false, t.columns[c].collation.clone().unwrap_or_else(|| "BINARY".into())))
                        .collect(),
                    Some(t) => t.index_suffix(ix),
                    None => Vec::new(),
                };
                if t.is_some_and(|t| t.without_rowid.is_some()) {
                    for (k, (c, desc, coll)) in aux.into_iter().enumerate() {
                        let name = t.and_then(|t| t.columns.get(c)).map_or(Value::Null, |col| Value::text(col.name.clone()));
                        rows.push(vec![
                            Value::Integer((ix.columns.len() + k) as i64),
                            Value::Integer(c as i64),
                            name,
                            Value::Integer(desc as i64),
                            Value::text(coll),
                            Value::Integer(0),
                        ]);
                    }
                } else {
                    rows.push(vec![
                        Value::Integer(ix.columns.len() as i64),
                        Value::Integer(-1),
                        Value::Null,
                        Value::Integer(0),
                        Value::text("BINARY"),
                        Value::Integer(0),
                    ]);
                }
            }
            Some((vec!["seqno", "cid", "name", "desc", "coll", "key"], rows))
        }
        _ => None,
    }
}

/// The rows of the list pragmas that read no schema (`compile_options`,
/// `function_list`, `database_list`, `collation_list`): column names and
/// rows.
/// Add module `name` to the rows of `module_list` (kept sorted) unless
/// listed.
pub fn add_module_name(rows: &mut Vec<Vec<Value>>, name: &str) {
    let listed = |r: &Vec<Value>, above: bool| match r.first() {
        Some(Value::Text(t)) if above => t.as_slice() > name.as_bytes(),
        Some(Value::Text(t)) => t.as_slice() == name.as_bytes(),
        _ => false,
    };
    if !rows.iter().any(|r| listed(r, false)) {
        let at = rows.iter().position(|r| listed(r, true)).unwrap_or(rows.len());
        rows.insert(at, vec![Value::text(name)]);
    }
}

pub fn list_rows(c: &Compiler<'_>, pragma: &str) -> Option<(Vec<&'static str>, Vec<Vec<Value>>)> {
    match pragma {
        "collation_list" => Some((
            vec!["seq", "name"],
            crate::sql::codegen::pragma::collation_list::ordered(c.env.collation_order)
                .into_iter()
                .enumerate()
                .map(|(i, n)| vec![Value::Integer(i as i64), Value::text(n)])
                .collect(),
        )),
        "compile_options" => {
            Some((vec!["compile_options"], crate::vdbe::func::builtins::core::COMPILE_OPTIONS.iter().map(|s| vec![Value::text(*s)]).collect()))
        }
        "database_list" => Some((
            vec!["seq", "name", "file"],
            c.database_list()
                .into_iter()
                .map(|(i, n, f)| vec![Value::Integer(i as i64), Value::text(n), Value::Text(crate::io::os_path::to_bytes(&f).into_owned())])
                .collect(),
        )),
        "pragma_list" => Some((vec!["name"], crate::sql::codegen::pragma::pragma_names::PRAGMA_NAMES.iter().map(|n| vec![Value::text(*n)]).collect())),
        "module_list" => {
            // The modules registered on the connection (the built-in
            // extensions' and the application's) and, as SQLite registers
            // theirs when first used, the PRAGMA tables used so far, in a
            // stable order.
            let mut names = c.env.vtabs.map(|r| r.module_names()).unwrap_or_default();
            let used = c.env.vtabs.map(|r| r.all_tables()).unwrap_or_default();
            for inst in used {
                if inst.name.ascii_lower().starts_with("pragma_") && !names.iter().any(|n| n.eq_ci(&inst.name)) {
                    names.push(inst.name.ascii_lower());
                }
            }
            crate::util::cold_sort::sort(&mut names);
            Some((vec!["name"], names.into_iter().map(|n| vec![Value::text(n)]).collect()))
        }
        "function_list" => {
            use crate::vdbe::func::{FuncKind, FunctionRegistry};
            let builtins = FunctionRegistry::with_builtins();
            let rows = c
                .env
                .funcs
                .all()
                .into_iter()
                .map(|d| {
                    let builtin = builtins.find(&d.name, d.n_args.max(0) as usize).is_some_and(|b| b.n_args == d.n_args);
                    // (Every built-in aggregate is also a window function.)
                    let kind = match &d.kind {
                        FuncKind::Scalar(_) => "s",
                        FuncKind::Aggregate(a) if builtin || a.has_inverse() => "w",
                        FuncKind::Aggregate(_) => "a",
                    };
                    // A variadic built-in with a minimum of N arguments is
                    // listed as -(N + 2).
                    let min = crate::vdbe::func::builtins::variadic_min_args(&d.name);
                    let narg = if d.n_args < 0 && builtin && min > 0 { -(min as i64 + 2) } else { d.n_args as i64 };
                    // SQLITE_DETERMINISTIC, SQLITE_DIRECTONLY, SQLITE_SUBTYPE, SQLITE_INNOCUOUS.
                    let flags = (d.flags.deterministic as i64) * 0x800
                        + (d.flags.direct_only as i64) * 0x80000
                        + (d.flags.subtype as i64) * 0x100000
                        + (d.flags.innocuous as i64) * 0x200000;
                    vec![
                        Value::text(d.name.ascii_lower()),
                        Value::Integer(builtin as i64),
                        Value::text(kind),
                        Value::text("utf8"),
                        Value::Integer(narg),
                        Value::Integer(flags),
                    ]
                })
                .collect();
            Some((vec!["name", "builtin", "type", "enc", "narg", "flags"], rows))
        }
        _ => None,
    }
}

/// Emit the code reading the value the query form of `pname` (no
/// argument; one of `value_pragma_shape`'s answered pragmas) reports, for
/// database `db` (`None`: as when no database is named); the register
/// holding it.
pub(crate) fn emit_pragma_value(c: &mut Compiler<'_>, pname: &str, db: Option<usize>) -> i32 {
    let pdb = db.unwrap_or(0) as i32;
    let out = c.b.reg();
    let cookie = match pname {
        "user_version" => Some(Meta::UserVersion),
        "schema_version" => Some(Meta::SchemaCookie),
        "application_id" => Some(Meta::ApplicationId),
        "freelist_count" => Some(Meta::FreelistCount),
        _ => None,
    };
    if let Some(field) = cookie {
        c.b.add(Opcode::ReadCookie, pdb, out, field as i32);
        return out;
    }
    match pname {
        "page_count" => {
            c.b.add(Opcode::Pagecount, pdb, out, 0);
        }
        "encoding" => {
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text("encoding".into()), 0);
        }
        "secure_delete" => {
            c.b.add(Opcode::Integer, 0, out, 0);
        }
        "page_size" if pdb == 0 => {
            c.b.add(Opcode::Integer, c.env.page_size as i32, out, 0);
        }
        // (Unqualified, locking_mode reports the connection's default.)
        "locking_mode" if db.is_none() => {
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text("locking_mode=default".into()), 0);
        }
        "data_version" | "auto_vacuum" | "journal_size_limit" | "max_page_count" | "journal_mode" | "cache_size" | "synchronous" | "page_size"
        | "locking_mode" => {
            c.b.add4(Opcode::PragmaBtree, pdb, out, 0, P4::text(pname.to_string()), 0);
        }
        // Connection settings.
        _ => {
            c.b.add4(Opcode::PragmaBtree, 0, out, 0, P4::text(pname.to_string()), 0);
        }
    }
    out
}
