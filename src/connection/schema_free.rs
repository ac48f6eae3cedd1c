//! Statements compiled without reading the schema.
//!
//! SQLite reads a database's schema only when a statement needs it: a
//! pragma whose entry in its pragma table asks for it (the others, and
//! names it does not know, run on a file whose schema cannot be read),
//! and a table looked up by name. A SELECT naming no table (only
//! subqueries and CTEs in its FROM clauses) looks nothing up; but the
//! first statement of a connection reads the schema anyway until some
//! read of it has met a row (SQLite's flag for that, set by the first
//! row, stays set: `rows_met`).
//!
//! Whether a statement needs the schema is decided here from its text
//! and parse, before any compile: the compile itself never reads a file
//! (see `prepare.rs`).

use crate::sql::parse::{tokens, unquoted, with_first_statement, Tok};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::dialect::TokenType;

/// Whether the first statement of `sql` is one SQLite compiles without
/// reading the schema: a pragma not marked in SQLite's pragma table as
/// needing it (the connection's switches, the header fields read through
/// the pager such as `user_version` or `freelist_count`, the lists of
/// functions and collations; `PRAGMA locking_mode`, which must reach the
/// pager before a first read opens a WAL; `PRAGMA writable_schema`, the
/// way to a schema SQLite refuses to read), or, once a read of the schema
/// has met a row (`rows_met`), a SELECT (or VALUES, or their EXPLAIN)
/// naming no table, so that `SELECT 1` or a query of CTEs runs again after
/// the schema read failed on a corrupt row.
pub(super) fn compiles_without_schema(sql: &[u8], rows_met: bool) -> bool {
    use sqlite3_parser::ast::{Cmd, Stmt};
    with_first_statement(sql, |cmd, tail| {
        Ok(match cmd {
            Some(Cmd::Stmt(Stmt::Pragma(name, _))) => !pragma_reads_schema(&unquoted(name.name.0).ascii_lower()),
            Some(Cmd::Stmt(Stmt::Select(_)) | Cmd::Explain(Stmt::Select(_)) | Cmd::ExplainQueryPlan(Stmt::Select(_))) => {
                rows_met && names_no_table(&sql[..tail])
            }
            _ => false,
        })
    })
    .unwrap_or(false)
}

/// Whether the first statement of `sql` is `PRAGMA page_size` or
/// `cache_spill`: their answers depend on main's page size, which SQLite
/// reads from the header when it opens the file, and ringlite with the
/// first transaction; run without the schema, main's header is to be
/// read first.
pub(super) fn compiles_from_main_header(sql: &[u8]) -> bool {
    use sqlite3_parser::ast::{Cmd, Stmt};
    with_first_statement(sql, |cmd, _| {
        Ok(matches!(cmd, Some(Cmd::Stmt(Stmt::Pragma(name, _)))
            if ["page_size", "cache_spill"].iter().any(|p| unquoted(name.name.0).eq_ci(p))))
    })
    .unwrap_or(false)
}

/// Whether the pragma `name` (lower case) reads the schema before it runs:
/// those SQLite's pragma table marks so, `encoding` (whose query reads the
/// schema to learn the encoding it was read in) and ringlite's own
/// pragmas. Every other name, known or not, runs without it (an unknown
/// pragma is a no-op in SQLite, found so before any read).
fn pragma_reads_schema(name: &str) -> bool {
    const READS_SCHEMA: [&str; 23] = [
        "auto_vacuum",
        "cache_size",
        "default_cache_size",
        "foreign_key_check",
        "foreign_key_list",
        "incremental_vacuum",
        "index_info",
        "index_list",
        "index_xinfo",
        "integrity_check",
        "journal_mode",
        "max_page_count",
        "optimize",
        "page_count",
        "quick_check",
        "synchronous",
        "table_info",
        "table_list",
        "table_xinfo",
        "wal_checkpoint",
        "encoding",
        // ringlite's own.
        "io_backend",
        "step_quantum",
    ];
    READS_SCHEMA.contains(&name)
}

/// Whether the text of a SELECT looks no table up by name: every item of
/// its FROM clauses (nested queries' included) and every `IN name` is a
/// subquery or names a CTE the statement defines. Read from the tokens,
/// conservatively: anything else (a qualified name, a table-valued
/// function, a name that is not a plain identifier) counts as a table.
fn names_no_table(select: &[u8]) -> bool {
    let toks: Vec<Tok> = tokens(select).collect();
    let ctes = cte_names(select, &toks);
    let name_of = |t: &Tok| unquoted(&String::from_utf8_lossy(&select[t.start..t.end])).ascii_lower();
    let kind = |i: usize| toks.get(i).map(|t| t.kind);
    let is_query_start = |i: usize| matches!(kind(i), Some(TokenType::TK_SELECT | TokenType::TK_VALUES | TokenType::TK_WITH));
    // An item of a FROM clause (or the operand of IN) starting at token
    // `i`: a subquery, a parenthesized join (whose items are checked as
    // they come, see below) or a CTE's name.
    let item_needs_no_table = |i: usize| match kind(i) {
        Some(TokenType::TK_LP) => true,
        Some(TokenType::TK_ID) => !matches!(kind(i + 1), Some(TokenType::TK_DOT | TokenType::TK_LP)) && ctes.iter().any(|c| *c == name_of(&toks[i])),
        _ => false,
    };
    // The parenthesis depths at which a FROM clause is open, innermost
    // last: a comma at that depth starts another item.
    let mut from_depths: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenType::TK_LP => {
                depth += 1;
                // A parenthesized join in FROM: its items are separated
                // by commas at this depth.
                if from_depths.last() == Some(&(depth - 1)) && i > 0 && starts_item(toks[i - 1].kind) && !is_query_start(i + 1) {
                    from_depths.push(depth);
                    if !item_needs_no_table(i + 1) {
                        return false;
                    }
                }
            }
            TokenType::TK_RP => {
                depth = depth.saturating_sub(1);
                while from_depths.last().is_some_and(|&d| d > depth) {
                    from_depths.pop();
                }
            }
            TokenType::TK_FROM => {
                from_depths.push(depth);
                if !item_needs_no_table(i + 1) {
                    return false;
                }
            }
            TokenType::TK_JOIN | TokenType::TK_COMMA if from_depths.last() == Some(&depth) => {
                if !item_needs_no_table(i + 1) {
                    return false;
                }
            }
            TokenType::TK_IN => {
                if !matches!(kind(i + 1), Some(TokenType::TK_LP)) && !item_needs_no_table(i + 1) {
                    return false;
                }
            }
            // The clauses after FROM end it.
            TokenType::TK_WHERE
            | TokenType::TK_GROUP
            | TokenType::TK_HAVING
            | TokenType::TK_WINDOW
            | TokenType::TK_ORDER
            | TokenType::TK_LIMIT
            | TokenType::TK_UNION
            | TokenType::TK_EXCEPT
            | TokenType::TK_INTERSECT
            | TokenType::TK_SEMI => {
                while from_depths.last() == Some(&depth) {
                    from_depths.pop();
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether a token of kind `k` comes right before an item of a FROM list.
fn starts_item(k: TokenType) -> bool {
    matches!(k, TokenType::TK_FROM | TokenType::TK_JOIN | TokenType::TK_COMMA)
}

/// The names (lower case) of the CTEs `select` defines anywhere: a name,
/// its optional column list, AS, optional [NOT] MATERIALIZED, then a
/// parenthesis opening a query (a window definition's `w AS (...)` opens
/// no query).
fn cte_names(select: &[u8], toks: &[Tok]) -> Vec<String> {
    let mut names = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokenType::TK_AS {
            continue;
        }
        let mut j = i + 1;
        if toks.get(j).is_some_and(|t| t.kind == TokenType::TK_NOT) {
            j += 1;
        }
        if toks.get(j).is_some_and(|t| t.kind == TokenType::TK_MATERIALIZED) {
            j += 1;
        }
        let opens_query = toks.get(j).is_some_and(|t| t.kind == TokenType::TK_LP)
            && toks.get(j + 1).is_some_and(|t| matches!(t.kind, TokenType::TK_SELECT | TokenType::TK_VALUES | TokenType::TK_WITH));
        if !opens_query || i == 0 {
            continue;
        }
        // The name: right before AS, or before the column list's "(".
        let mut k = i - 1;
        if toks[k].kind == TokenType::TK_RP {
            let mut level = 0usize;
            loop {
                match toks[k].kind {
                    TokenType::TK_RP => level += 1,
                    TokenType::TK_LP => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                if k == 0 {
                    break;
                }
                k -= 1;
            }
            if k == 0 {
                continue;
            }
            k -= 1;
        }
        if toks[k].kind == TokenType::TK_ID {
            names.push(unquoted(&String::from_utf8_lossy(&select[toks[k].start..toks[k].end])).ascii_lower());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::names_no_table;

    #[test]
    fn selects_of_ctes_and_subqueries_name_no_table() {
        for sql in [
            "SELECT 1",
            "WITH c(x) AS (SELECT 1) SELECT x FROM c",
            "WITH c AS MATERIALIZED (VALUES(1)) SELECT * FROM c, (SELECT 2) JOIN c AS d ON 1",
            "SELECT * FROM (SELECT 1)",
            "WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a",
            "WITH c AS (SELECT 1) SELECT * FROM c NATURAL JOIN (c AS d, c)",
            "WITH c AS (SELECT 1) SELECT (SELECT count(*) FROM c) WHERE 1 IN c",
        ] {
            assert!(names_no_table(sql.as_bytes()), "{sql}");
        }
        for sql in [
            "SELECT * FROM t",
            "WITH c AS (SELECT 1) SELECT * FROM main.c",
            "WITH c AS (SELECT 1) SELECT * FROM c, t",
            "WITH c AS (SELECT 1) SELECT * FROM c JOIN (c, t)",
            "WITH c AS (SELECT 1) SELECT * FROM c WHERE 1 IN t",
            "SELECT * FROM generate_series(1, 3)",
            "SELECT max(a) OVER w FROM (SELECT 1 AS a) JOIN w WINDOW w AS (ORDER BY a)",
        ] {
            assert!(!names_no_table(sql.as_bytes()), "{sql}");
        }
    }
}
