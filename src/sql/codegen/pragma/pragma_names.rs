//! What SQLite's PRAGMA table-valued functions look like as tables: the
//! names of the pragmas (`PRAGMA pragma_list`, as SQLite 3.54.1 lists
//! them in a default build) and the columns of each eponymous
//! `pragma_NAME` table ringlite provides, its visible result columns then
//! the hidden argument columns (`arg`, `schema`), as `PRAGMA
//! table_info(pragma_NAME)` and `table_xinfo` describe them.

use crate::util::ascii::AsciiLower;
/// The pragmas SQLite knows, in its order (`PRAGMA pragma_list`).
pub const PRAGMA_NAMES: &[&str] = &[
    "analysis_limit",
    "application_id",
    "auto_vacuum",
    "automatic_index",
    "busy_timeout",
    "cache_size",
    "cache_spill",
    "case_sensitive_like",
    "cell_size_check",
    "checkpoint_fullfsync",
    "collation_list",
    "compile_options",
    "count_changes",
    "data_version",
    "database_list",
    "default_cache_size",
    "defer_foreign_keys",
    "empty_result_callbacks",
    "encoding",
    "foreign_key_check",
    "foreign_key_list",
    "foreign_keys",
    "freelist_count",
    "full_column_names",
    "fullfsync",
    "function_list",
    "hard_heap_limit",
    "ignore_check_constraints",
    "incremental_vacuum",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "journal_mode",
    "journal_size_limit",
    "legacy_alter_table",
    "locking_mode",
    "max_page_count",
    "mmap_size",
    "module_list",
    "optimize",
    "page_count",
    "page_size",
    "pragma_list",
    "query_only",
    "quick_check",
    "read_uncommitted",
    "recursive_triggers",
    "reverse_unordered_selects",
    "schema_version",
    "secure_delete",
    "short_column_names",
    "shrink_memory",
    "soft_heap_limit",
    "synchronous",
    "table_info",
    "table_list",
    "table_xinfo",
    "temp_store",
    "temp_store_directory",
    "threads",
    "trusted_schema",
    "user_version",
    "wal_autocheckpoint",
    "wal_checkpoint",
    "writable_schema",
];

/// The columns of the table-valued function `pragma_NAME` for `pragma`
/// (NAME, lower case): the visible ones, and how many hidden argument
/// columns follow (`arg`, then `schema`).
pub fn pragma_function_columns(pragma: &str) -> Option<(&'static [&'static str], usize)> {
    Some(match pragma {
        "table_info" => (&["cid", "name", "type", "notnull", "dflt_value", "pk"], 2),
        "table_xinfo" => (&["cid", "name", "type", "notnull", "dflt_value", "pk", "hidden"], 2),
        "index_list" => (&["seq", "name", "unique", "origin", "partial"], 2),
        "index_info" => (&["seqno", "cid", "name"], 2),
        "index_xinfo" => (&["seqno", "cid", "name", "desc", "coll", "key"], 2),
        "foreign_key_list" => (&["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"], 2),
        "foreign_key_check" => (&["table", "rowid", "parent", "fkid"], 2),
        "table_list" => (&["schema", "name", "type", "ncol", "wr", "strict"], 1),
        "function_list" => (&["name", "builtin", "type", "enc", "narg", "flags"], 0),
        "collation_list" => (&["seq", "name"], 0),
        "database_list" => (&["seq", "name", "file"], 0),
        "compile_options" => (&["compile_options"], 0),
        "module_list" | "pragma_list" => (&["name"], 0),
        _ => return None,
    })
}

/// The rows `PRAGMA table_info(pragma_NAME)` (or `table_xinfo`, with
/// `xinfo`) shows for the eponymous table `table`, if it is one.
pub fn pragma_table_rows(table: &str, xinfo: bool) -> Option<Vec<Vec<crate::value::Value>>> {
    use crate::value::Value;
    let lower = table.ascii_lower();
    let pragma = lower.strip_prefix("pragma_")?;
    // (A pragma reporting one value has its column and, when it is about
    // one database, the hidden `schema`.)
    let (visible, hidden): (Vec<&str>, Vec<&str>) = match pragma_function_columns(pragma) {
        Some((visible, hidden)) => (visible.to_vec(), ["arg", "schema"].into_iter().take(hidden).collect()),
        None => {
            let (column, has_schema, _) = crate::sql::codegen::pragma::pragma_names::value_pragma_shape(pragma)?;
            let hidden: &[&str] = match pragma {
                "integrity_check" | "quick_check" => &["arg", "schema"],
                "optimize" => &["arg"],
                _ if has_schema => &["schema"],
                _ => &[],
            };
            (vec![column], hidden.to_vec())
        }
    };
    let names = visible.into_iter().map(|n| (n, 0)).chain(hidden.into_iter().map(|n| (n, 1)));
    let rows = names
        .filter(|(_, h)| xinfo || *h == 0)
        .enumerate()
        .map(|(i, (n, h))| {
            let mut r = vec![Value::Integer(i as i64), Value::text(n), Value::text(""), Value::Integer(0), Value::Null, Value::Integer(0)];
            if xinfo {
                r.push(Value::Integer(h));
            }
            r
        })
        .collect();
    Some(rows)
}

/// Whether the table-valued function `pragma_NAME` (`pragma`, lower case)
/// is served by the eponymous virtual table that runs the PRAGMA when the
/// statement reads it (`connection::pragma_vtab`): every pragma with a
/// table shape here.
pub(crate) fn pragma_vtab_routed(pragma: &str) -> bool {
    pragma_function_columns(pragma).is_some() || value_pragma_shape(pragma).is_some()
}

/// How the table-valued function `pragma_NAME` of a pragma that reports
/// one value reads it: its column's name, whether it has the hidden
/// `schema` column (SQLite's pragmas about one database), and whether
/// ringlite answers it (the others are refused as unsupported).
pub(crate) fn value_pragma_shape(pname: &str) -> Option<(&'static str, bool, bool)> {
    Some(match pname {
        "user_version" => ("user_version", false, true),
        "schema_version" => ("schema_version", false, true),
        "application_id" => ("application_id", false, true),
        "freelist_count" => ("freelist_count", false, true),
        "data_version" => ("data_version", false, true),
        "encoding" => ("encoding", false, true),
        "secure_delete" => ("secure_delete", false, true),
        "threads" => ("threads", false, true),
        "busy_timeout" => ("timeout", false, true),
        "foreign_keys" => ("foreign_keys", false, true),
        "defer_foreign_keys" => ("defer_foreign_keys", false, true),
        "writable_schema" => ("writable_schema", false, true),
        "query_only" => ("query_only", false, true),
        "count_changes" => ("count_changes", false, true),
        "ignore_check_constraints" => ("ignore_check_constraints", false, true),
        "recursive_triggers" => ("recursive_triggers", false, true),
        "legacy_alter_table" => ("legacy_alter_table", false, true),
        "full_column_names" => ("full_column_names", false, true),
        "short_column_names" => ("short_column_names", false, true),
        "reverse_unordered_selects" => ("reverse_unordered_selects", false, true),
        "automatic_index" => ("automatic_index", false, true),
        "cell_size_check" => ("cell_size_check", false, true),
        "temp_store" => ("temp_store", false, true),
        "trusted_schema" => ("trusted_schema", false, true),
        "read_uncommitted" => ("read_uncommitted", false, true),
        "checkpoint_fullfsync" => ("checkpoint_fullfsync", false, true),
        "fullfsync" => ("fullfsync", false, true),
        "page_count" => ("page_count", true, true),
        "page_size" => ("page_size", true, true),
        "auto_vacuum" => ("auto_vacuum", true, true),
        "journal_size_limit" => ("journal_size_limit", true, true),
        "max_page_count" => ("max_page_count", true, true),
        "journal_mode" => ("journal_mode", true, true),
        "cache_size" => ("cache_size", true, true),
        "synchronous" => ("synchronous", true, true),
        "locking_mode" => ("locking_mode", true, true),
        // Exposed by SQLite, not answered by ringlite's PRAGMA yet.
        "analysis_limit" => ("analysis_limit", false, false),
        "empty_result_callbacks" => ("empty_result_callbacks", false, false),
        "hard_heap_limit" => ("hard_heap_limit", false, false),
        "soft_heap_limit" => ("soft_heap_limit", false, false),
        "cache_spill" => ("cache_spill", true, false),
        // (Several rows; refused too.)
        "integrity_check" => ("integrity_check", true, false),
        "quick_check" => ("quick_check", true, false),
        "optimize" => ("optimize", true, false),
        "default_cache_size" => ("cache_size", true, false),
        _ => return None,
    })
}
