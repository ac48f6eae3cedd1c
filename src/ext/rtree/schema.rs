//! # An R*Tree's arguments: its columns, its declaration, its shadow tables
//!
//! `CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, .., +aux, ..)`: the
//! first token of each argument names a column (the rest is ignored, as
//! rtree.txt says); an argument starting with `+` is an auxiliary column,
//! and those come last. The id column is declared `INT`, coordinates
//! `REAL` (`rtree`) or `INT` (`rtree_i32`), auxiliary columns without a
//! type.
//!
//! Invariants of a parsed [`Columns`]: `1 <= dims <= 5`; `names` holds the
//! id, the `2 * dims` coordinates and then the auxiliary columns
//! (checked: rtree_columns_shape).

use super::node::CoordKind;
use super::shadow::{exec_once, ident, Names};
use crate::connection::Connection;
use crate::error::{Error, Result};

/// Most columns an R*Tree may have, auxiliary ones included.
const MAX_COLUMNS: usize = 100;

/// The parsed column list.
#[derive(Debug, Clone)]
pub struct Columns {
    /// Dimensions.
    pub dims: usize,
    /// Column names as written (quotes included).
    pub decl: Vec<String>,
    /// Column names without quotes (messages).
    pub names: Vec<String>,
    /// The auxiliary columns' names as written.
    pub aux: Vec<String>,
}

/// The first token of an argument (a quoted name kept whole).
fn first_token(arg: &str) -> &str {
    let a = arg.trim_start();
    let close = match a.chars().next() {
        Some('"') => Some('"'),
        Some('\'') => Some('\''),
        Some('`') => Some('`'),
        Some('[') => Some(']'),
        _ => None,
    };
    if let Some(c) = close {
        let mut i = 1;
        let b = a.as_bytes();
        while i < b.len() {
            if b[i] == c as u8 {
                if c != ']' && i + 1 < b.len() && b[i + 1] == c as u8 {
                    i += 2;
                    continue;
                }
                return &a[..=i];
            }
            i += 1;
        }
        return a;
    }
    let end = a.find(|ch: char| ch.is_whitespace()).unwrap_or(a.len());
    &a[..end]
}

fn unquote(t: &str) -> String {
    let b = t.as_bytes();
    if b.len() >= 2 {
        let (o, c) = (b[0], b[b.len() - 1]);
        if (o == b'"' || o == b'\'' || o == b'`') && c == o {
            let q = (o as char).to_string();
            return t[1..t.len() - 1].replace(&q.repeat(2), &q);
        }
        if o == b'[' && c == b']' {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}

impl Columns {
    /// Parse xCreate's argv (module, database, table, arguments).
    pub fn parse(argv: &[String]) -> Result<Columns> {
        let args = &argv[3.min(argv.len())..];
        let mut decl = Vec::new();
        let mut aux = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let a = a.trim();
            if i > 0 && a.starts_with('+') {
                aux.push(first_token(&a[1..]).to_string());
            } else if !aux.is_empty() {
                return Err(Error::sql("Auxiliary rtree columns must be last"));
            } else {
                decl.push(first_token(a).to_string());
            }
        }
        if decl.len() < 3 {
            return Err(Error::sql("Too few columns for an rtree table"));
        }
        if decl.len() > 11 || decl.len() + aux.len() > MAX_COLUMNS {
            return Err(Error::sql("Too many columns for an rtree table"));
        }
        if decl.len() % 2 == 0 {
            return Err(Error::sql("Wrong number of columns for an rtree table"));
        }
        let names: Vec<String> = decl.iter().chain(aux.iter()).map(|t| unquote(t)).collect();
        let dims = (decl.len() - 1) / 2;
        // invariant: rtree_columns_shape
        debug_assert!((1..=5).contains(&dims) && decl.len() == 1 + 2 * dims && names.len() == decl.len() + aux.len());
        Ok(Columns { dims, decl, names, aux })
    }

    /// The `CREATE TABLE` handed to `sqlite3_declare_vtab`.
    pub fn declaration(&self, kind: CoordKind) -> String {
        let ty = match kind {
            CoordKind::Float => "REAL",
            CoordKind::Int => "INT",
        };
        let mut cols = vec![format!("{} INT", self.decl[0])];
        cols.extend(self.decl[1..].iter().map(|c| format!("{c} {ty}")));
        cols.extend(self.aux.iter().cloned());
        format!("CREATE TABLE x({})", cols.join(", "))
    }
}

/// Create the three shadow tables and the empty root node.
pub fn create_shadow(conn: &mut Connection, names: &Names, n_aux: usize, node_size: usize) -> Result<()> {
    let db = ident(&names.db);
    let aux: String = (0..n_aux).map(|i| format!(",a{i}")).collect();
    let t = |s: &str| ident(&format!("{}_{s}", names.table));
    exec_once(conn, &format!("CREATE TABLE {db}.{}(rowid INTEGER PRIMARY KEY,nodeno{aux})", t("rowid")))?;
    exec_once(conn, &format!("CREATE TABLE {db}.{}(nodeno INTEGER PRIMARY KEY,data)", t("node")))?;
    exec_once(conn, &format!("CREATE TABLE {db}.{}(nodeno INTEGER PRIMARY KEY,parentnode)", t("parent")))?;
    exec_once(conn, &format!("INSERT INTO {db}.{}VALUES(1,zeroblob({node_size}))", t("node")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        ["rtree", "main", "t"].iter().chain(a.iter()).map(|s| s.to_string()).collect()
    }

    #[test]
    fn columns_and_errors() {
        let c = Columns::parse(&argv(&["id INTEGER PRIMARY KEY", "x0 real", "x1", "+aux text"])).unwrap();
        assert_eq!(c.dims, 1);
        assert_eq!(c.declaration(CoordKind::Float), "CREATE TABLE x(id INT, x0 REAL, x1 REAL, aux)");
        assert_eq!(Columns::parse(&argv(&["id", "a"])).unwrap_err().message, "Too few columns for an rtree table");
        assert_eq!(Columns::parse(&argv(&["id", "a", "b", "c"])).unwrap_err().message, "Wrong number of columns for an rtree table");
        assert_eq!(Columns::parse(&argv(&["id", "+a", "b", "c"])).unwrap_err().message, "Auxiliary rtree columns must be last");
        assert_eq!(first_token(" \"a b\" x"), "\"a b\"");
    }
}
