//! `pragma_foreign_key_check` in FROM: the table-valued form of `PRAGMA
//! foreign_key_check`, with columns table, rowid, parent, fkid and the
//! hidden arguments `arg` (the table to check) and `schema` (its
//! database). The violations are found when the FROM item is opened
//! (before the loops over the query's items start) and kept in a
//! temporary table the item reads.
//!
//! A constant argument checks that table (`no such table` if there is
//! none); a column argument (`FROM sqlite_schema, pragma_foreign_key_check
//! (name)`) checks every table of the database, each row carrying its
//! table's name in `arg`, joined to the argument column case-insensitively
//! (as names match); no argument checks every table of main, `arg` NULL.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::sql::model::query::SelectInfo;
use crate::sql::parse::unquote;
use crate::sql::resolve::ColumnRef;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, Literal};

/// The visible columns, then the hidden argument columns.
const COLUMNS: [&str; 6] = ["table", "rowid", "parent", "fkid", "arg", "schema"];

/// One argument of the function: a constant, or a column of a table to
/// the left.
enum Arg {
    Const(String),
    Column(ColumnRef),
}

impl<'b> Compiler<'_> {
    /// Open the FROM item `pragma_foreign_key_check(args) AS alias`.
    pub(in crate::sql::codegen) fn open_foreign_key_check<'a>(&mut self, args: &'a [Expr<'b>], alias: String, out: &mut Vec<FromItem<'a, 'b>>) -> Result<()> {
        self.check_builtin_vtab_read("pragma_foreign_key_check")?;
        if args.len() > 2 {
            return Err(Error::sql("too many arguments on pragma_foreign_key_check() - max 2"));
        }
        let mut values = Vec::new();
        for a in args {
            values.push(self.fk_check_argument(a)?);
        }
        let schema = match values.get(1) {
            Some(Arg::Const(n)) => Some(n.clone()),
            Some(Arg::Column(_)) => return Err(Error::unsupported("pragma_foreign_key_check with a column as schema argument")),
            None => None,
        };
        let db = match &schema {
            Some(n) => Some(self.db_index(n).ok_or_else(|| Error::sql(format!("unknown database '{n}'")))?),
            None => None,
        };
        let (tables, correlated) = match values.first() {
            Some(Arg::Const(t)) => (self.fk_check_tables(db, Some(t))?, None),
            Some(Arg::Column(c)) => (self.fk_check_tables(db, None)?, Some(c.clone())),
            None => (self.fk_check_tables(db, None)?, None),
        };
        let arg_value = match values.first() {
            Some(Arg::Const(t)) => Some(t.clone()),
            _ => None,
        };
        let cur = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, cur, COLUMNS.len() as i32, 0);
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.emit_fk_check(&tables, &mut |c, regs, table| {
            // The hidden columns: the argument (each row's own table when
            // the argument is a column) and the schema as given.
            let arg = if correlated.is_some() { Some(table.name.clone()) } else { arg_value.clone() };
            for (r, v) in [(regs + 4, arg), (regs + 5, schema.clone())] {
                match v {
                    Some(t) => c.b.add4(Opcode::String8, 0, r, 0, P4::bytes(t.into_bytes()), 0),
                    None => c.b.add(Opcode::Null, 0, r, 0),
                };
            }
            c.b.add(Opcode::MakeRecord, regs, COLUMNS.len() as i32, rec);
            c.b.add(Opcode::NewRowid, cur, rid, 0);
            c.b.add(Opcode::Insert, cur, rec, rid);
            Ok(())
        })?;
        let info = SelectInfo {
            n_columns: COLUMNS.len(),
            names: COLUMNS.iter().map(|n| n.to_string()).collect(),
            affinities: vec![None; COLUMNS.len()],
            collations: vec![None; COLUMNS.len()],
            decltypes: vec![None; COLUMNS.len()],
            ..Default::default()
        };
        self.push_subquery_item(cur, alias, &info, None, out);
        let it = out.last_mut().expect("the item just opened");
        let item = &mut self.names.scopes.last_mut().expect("the FROM scope").items[it.item];
        for c in std::sync::Arc::make_mut(&mut item.columns).iter_mut().skip(4) {
            c.argument = true;
        }
        if let Some(col) = correlated {
            let arg_ref = ColumnRef { depth: 0, item: it.item, cursor: cur, column: Some(4), affinity: Affinity::Blob, collation: Some("NOCASE".to_string()) };
            it.on.push(JoinTerm::ColEq(vec![col], arg_ref));
        }
        Ok(())
    }

    /// An argument of pragma_foreign_key_check: a string, a name that is
    /// a column in scope, or a double-quoted name that is none (a string).
    fn fk_check_argument(&mut self, a: &Expr<'_>) -> Result<Arg> {
        let column = |c: &mut Self, q: Option<&str>, n: &str| c.resolve_name(q, &unquote(n)).ok().flatten();
        Ok(match a {
            Expr::Literal(Literal::String(s)) => Arg::Const(unquote(s)),
            Expr::Id(id) => match column(self, None, id.0) {
                Some(c) => Arg::Column(c),
                None if id.0.starts_with('"') => Arg::Const(unquote(id.0)),
                None => return Err(Error::sql(format!("no such column: {}", unquote(id.0)))),
            },
            Expr::Qualified(t, n) => match column(self, Some(&unquote(t.0)), n.0) {
                Some(c) => Arg::Column(c),
                None => return Err(Error::sql(format!("no such column: {}.{}", unquote(t.0), unquote(n.0)))),
            },
            _ => return Err(Error::unsupported("pragma functions with an argument other than a constant or a column")),
        })
    }
}
