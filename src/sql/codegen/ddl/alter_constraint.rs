//! ALTER TABLE forms that edit constraints (SQLite 3.53): `ALTER COLUMN c
//! SET NOT NULL [ON CONFLICT ...]`, `ALTER COLUMN c DROP NOT NULL`, `ADD
//! [CONSTRAINT name] CHECK (...)` and `DROP CONSTRAINT name`.
//!
//! As SQLite does, each edits the stored CREATE TABLE text: SET NOT NULL
//! drops the column's NOT NULL constraints and appends the statement's own
//! text from `NOT` on after the column definition; DROP NOT NULL removes
//! them (named or not); ADD appends `, ` and the statement's text from
//! `CONSTRAINT`/`CHECK` on before the closing parenthesis; DROP CONSTRAINT
//! removes a named CHECK, foreign key (table or column) or NOT NULL, only
//! the name of another named column constraint (`CONSTRAINT d
//! DEFAULT 3` keeps `DEFAULT 3`), and refuses PRIMARY KEY and UNIQUE. A column
//! constraint is cut from the end of the token before it to the start of
//! the token after it (comments in between go too), leaving one space when
//! a token of the definition follows; a table constraint is cut with the
//! comma before it. Existing rows are checked against the new NOT NULL or
//! CHECK first: a row that fails gives SQLite's bare "constraint failed".
//! Invariant: only `sqlite_schema` changes (and the cookie, in
//! `compile_alter`); the table's B-tree is untouched (checked:
//! alter_schema_only).

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{tokens, unquote, Tok};
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{AlterTableBody, TableConstraint};
use sqlite3_parser::dialect::TokenType;

/// Tokens that start a column constraint.
fn starts_column_constraint(k: TokenType) -> bool {
    matches!(
        k,
        TokenType::TK_CONSTRAINT
            | TokenType::TK_PRIMARY
            | TokenType::TK_NOT
            | TokenType::TK_NULL
            | TokenType::TK_UNIQUE
            | TokenType::TK_CHECK
            | TokenType::TK_DEFAULT
            | TokenType::TK_COLLATE
            | TokenType::TK_REFERENCES
            | TokenType::TK_GENERATED
            | TokenType::TK_AS
    )
}

/// One constraint of the CREATE TABLE text, as token indexes.
struct Span {
    /// Its first token (`CONSTRAINT` when named) and its last.
    first: usize,
    last: usize,
    name: Option<String>,
    /// The token after the name: what kind of constraint it is.
    kind: TokenType,
    /// A column constraint (else a table constraint).
    in_column: Option<String>,
}

/// The column definitions (name, token range without the separator) and
/// table constraints of a CREATE TABLE's token list.
struct Layout {
    toks: Vec<Tok>,
    columns: Vec<(String, usize, usize)>,
    constraints: Vec<Span>,
    /// The closing parenthesis.
    close: usize,
}

/// Index of the last token of the parenthesized group opened at `open`.
fn matching(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.kind {
            TokenType::TK_LP => depth += 1,
            TokenType::TK_RP => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    toks.len() - 1
}

/// The end of a constraint starting at `i` (its kind token) within `end`.
fn constraint_end(toks: &[Tok], mut i: usize, end: usize) -> usize {
    match toks[i].kind {
        TokenType::TK_NOT | TokenType::TK_NULL => {
            if toks[i].kind == TokenType::TK_NOT {
                i += 1;
            }
            if i + 2 < end && toks[i + 1].kind == TokenType::TK_ON && toks[i + 2].kind == TokenType::TK_CONFLICT {
                return (i + 3).min(end - 1);
            }
            i
        }
        TokenType::TK_CHECK => match toks.get(i + 1) {
            Some(t) if t.kind == TokenType::TK_LP => matching(toks, i + 1),
            _ => i,
        },
        _ => {
            // Up to the next constraint start (at this depth).
            let mut j = i + 1;
            while j < end {
                if toks[j].kind == TokenType::TK_LP {
                    j = matching(toks, j) + 1;
                    continue;
                }
                // (As SQLite's: a column `REFERENCES ... NOT DEFERRABLE`
                // ends at its NOT too.)
                if starts_column_constraint(toks[j].kind) {
                    break;
                }
                j += 1;
            }
            j - 1
        }
    }
}

fn layout(sql: &str) -> Option<Layout> {
    let toks = tokens(sql.as_bytes()).collect::<Vec<_>>();
    let open = toks.iter().position(|t| t.kind == TokenType::TK_LP)?;
    let close = matching(&toks, open);
    let text = |t: &Tok| &sql[t.start..t.end];
    let mut columns = Vec::new();
    let mut constraints = Vec::new();
    let mut start = open + 1;
    while start < close {
        // The definition ends at the next comma of this depth.
        let mut end = start;
        while end < close && toks[end].kind != TokenType::TK_COMMA {
            end = if toks[end].kind == TokenType::TK_LP { matching(&toks, end) + 1 } else { end + 1 };
        }
        let k = toks[start].kind;
        let is_table_constraint =
            matches!(k, TokenType::TK_CONSTRAINT | TokenType::TK_PRIMARY | TokenType::TK_UNIQUE | TokenType::TK_CHECK | TokenType::TK_FOREIGN);
        if is_table_constraint {
            let (name, kind) =
                if k == TokenType::TK_CONSTRAINT && start + 2 < end { (Some(unquote(text(&toks[start + 1]))), toks[start + 2].kind) } else { (None, k) };
            constraints.push(Span { first: start, last: end - 1, name, kind, in_column: None });
        } else if start < end {
            let col = unquote(text(&toks[start]));
            columns.push((col.clone(), start, end));
            let mut i = start + 1;
            while i < end {
                if toks[i].kind == TokenType::TK_LP {
                    i = matching(&toks, i) + 1;
                    continue;
                }
                if !starts_column_constraint(toks[i].kind) {
                    i += 1;
                    continue;
                }
                let (name, kind_at) =
                    if toks[i].kind == TokenType::TK_CONSTRAINT && i + 2 < end { (Some(unquote(text(&toks[i + 1]))), i + 2) } else { (None, i) };
                let last = constraint_end(&toks, kind_at, end);
                constraints.push(Span { first: i, last, name, kind: toks[kind_at].kind, in_column: Some(col.clone()) });
                i = last + 1;
            }
        }
        start = end + 1;
    }
    Some(Layout { toks, columns, constraints, close })
}

/// `sql` without the constraint `s` (see the module doc for the cut).
fn cut(sql: &str, l: &Layout, s: &Span) -> String {
    let toks = &l.toks;
    if s.in_column.is_some() {
        let from = toks[s.first - 1].end;
        let next = &toks[s.last + 1];
        let sep = if matches!(next.kind, TokenType::TK_COMMA | TokenType::TK_RP) { "" } else { " " };
        format!("{}{}{}", &sql[..from], sep, &sql[next.start..])
    } else {
        // With the comma before it: from the end of the token before that.
        let from = toks[s.first - 2].end;
        format!("{}{}", &sql[..from], &sql[toks[s.last].end..])
    }
}

/// The text of the ALTER statement from its first token of kind `from`
/// (after the `after`-th token) to its end.
fn statement_tail(stmt: &[u8], from: &[TokenType]) -> String {
    let toks = tokens(stmt).collect::<Vec<_>>();
    let start = toks.iter().position(|t| from.contains(&t.kind)).map_or(stmt.len(), |i| toks[i].start);
    let end = toks.iter().rev().find(|t| t.kind != TokenType::TK_SEMI).map_or(stmt.len(), |t| t.end);
    String::from_utf8_lossy(&stmt[start..end.max(start)]).into_owned()
}

impl Compiler<'_> {
    /// Compile one of the constraint-editing forms on `table`. When the
    /// existing rows are checked, returns the name of the column SQLite's
    /// program shows (its check is a SELECT of `sqlite_fail(...)`: for a
    /// named CHECK the name's check comes first).
    pub(in crate::sql::codegen) fn alter_constraint(&mut self, table: &Table, body: &AlterTableBody<'_>) -> Result<Option<String>> {
        if table.view_select.is_some() {
            return Err(Error::sql(format!("cannot edit constraints of view \"{}\"", table.name)));
        }
        let sql = table.sql.clone();
        let Some(l) = layout(&sql) else { return Err(Error::sql(format!("malformed CREATE TABLE text of {}", table.name))) };
        let column_not_nulls = |col: &str| -> Vec<&Span> {
            l.constraints.iter().filter(|s| s.in_column.as_deref().is_some_and(|c| c.eq_ci(col)) && s.kind == TokenType::TK_NOT).collect()
        };
        let without_not_nulls = |col: &str| -> String {
            let mut text = sql.clone();
            // Last first: earlier offsets stay valid.
            for s in column_not_nulls(col).into_iter().rev() {
                text = cut(&text, &l, s);
            }
            text
        };
        let (new_sql, not_null_col, check) = match body {
            AlterTableBody::DropColumnNotNull(col) | AlterTableBody::SetColumnNotNull(col, _) => {
                let col = unquote(col.0);
                let Some(ci) = table.column_index(&col) else { return Err(Error::sql(format!("no such column: {col}"))) };
                let stripped = without_not_nulls(&col);
                if matches!(body, AlterTableBody::DropColumnNotNull(_)) {
                    (stripped, None, None)
                } else {
                    // Appended after the definition, which may have moved.
                    let Some(nl) = layout(&stripped) else { return Err(Error::sql("malformed CREATE TABLE text")) };
                    let (_, _, end) = nl.columns.iter().find(|(n, _, _)| n.eq_ci(&col)).cloned().ok_or_else(|| Error::sql(format!("no such column: {col}")))?;
                    let at = nl.toks[end - 1].end;
                    let text = statement_tail(self.stmt.sql, &[TokenType::TK_NOT]);
                    (format!("{} {}{}", &stripped[..at], text, &stripped[at..]), Some(ci), None)
                }
            }
            AlterTableBody::AddConstraint(nc) => {
                let TableConstraint::Check(expr, _) = &nc.constraint else {
                    let toks = tokens(self.stmt.sql).collect::<Vec<_>>();
                    let at = toks
                        .iter()
                        .position(|t| matches!(t.kind, TokenType::TK_PRIMARY | TokenType::TK_UNIQUE | TokenType::TK_FOREIGN))
                        .map_or("", |i| std::str::from_utf8(&self.stmt.sql[toks[i].start..toks[i].end]).unwrap_or(""));
                    return Err(Error::sql(format!("near \"{at}\": syntax error")));
                };
                if let Some(name) = &nc.name {
                    let name = unquote(name.0);
                    if l.constraints.iter().any(|s| s.name.as_deref().is_some_and(|n| n.eq_ci(&name))) {
                        return Err(Error::sql(format!("constraint {name} already exists")));
                    }
                }
                self.validate_check(expr)?;
                let text = statement_tail(self.stmt.sql, &[TokenType::TK_CONSTRAINT, TokenType::TK_CHECK]);
                let at = l.toks[l.close - 1].end;
                (format!("{}, {}{}", &sql[..at], text, &sql[at..]), None, Some(expr.to_string()))
            }
            AlterTableBody::DropConstraint(name) => {
                let name = unquote(name.0);
                let Some(s) = l.constraints.iter().find(|s| s.name.as_deref().is_some_and(|n| n.eq_ci(&name))) else {
                    return Err(Error::sql(format!("no such constraint: {name}")));
                };
                if matches!(s.kind, TokenType::TK_PRIMARY | TokenType::TK_UNIQUE) {
                    return Err(Error::sql(format!("constraint may not be dropped: {name}")));
                }
                if s.in_column.is_some() && !matches!(s.kind, TokenType::TK_CHECK | TokenType::TK_NOT | TokenType::TK_REFERENCES) {
                    // A named DEFAULT, COLLATE, ... loses only its name.
                    let name_only = Span { first: s.first, last: s.first + 1, name: None, kind: s.kind, in_column: s.in_column.clone() };
                    (cut(&sql, &l, &name_only), None, None)
                } else {
                    (cut(&sql, &l, s), None, None)
                }
            }
            _ => return Err(Error::sql("not a constraint edit")),
        };
        let checked = match body {
            AlterTableBody::AddConstraint(nc) => nc.name.as_ref().map(|n| format!("sqlite_fail('constraint {} already exists', 1)", unquote(n.0))),
            _ => None,
        };
        let checked = checked.or_else(|| (not_null_col.is_some() || check.is_some()).then(|| "sqlite_fail('constraint failed', 19)".to_string()));
        if checked.is_some() {
            let mut nt = crate::sql::schema::table_from_sql(&new_sql, table.root)?;
            nt.db = table.db;
            self.verify_rows_for_constraint(&nt, not_null_col, check.as_deref())?;
        }
        self.rewrite_schema_rows(vec![(table.name.clone(), "table".into(), table.name.clone(), table.name.clone(), Some(new_sql))]);
        Ok(checked)
    }

    /// SQLite's errors for a CHECK expression: no subquery, no parameter,
    /// no aggregate (names are checked when the rows are).
    fn validate_check(&mut self, e: &sqlite3_parser::ast::Expr<'_>) -> Result<()> {
        use sqlite3_parser::ast::Expr;
        let mut problem: Option<String> = None;
        let me: &Compiler<'_> = self;
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            if problem.is_some() {
                return false;
            }
            match x {
                Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } => problem = Some("subqueries prohibited in CHECK constraints".into()),
                Expr::Variable(_) => problem = Some("parameters prohibited in CHECK constraints".into()),
                Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } if crate::sql::codegen::names_aggregate_function(me, x) => {
                    problem = Some(format!("misuse of aggregate function {}()", unquote(name.0)));
                }
                _ => {}
            }
            true
        });
        match problem {
            Some(p) => Err(Error::sql(p)),
            None => Ok(()),
        }
    }

    /// Every row of `nt` (the table as it will be) must have a value in
    /// column `not_null` and satisfy `check`.
    fn verify_rows_for_constraint(&mut self, nt: &Table, not_null: Option<usize>, check: Option<&str>) -> Result<()> {
        let tc = self.b.cursor();
        self.open_table_read(tc, nt, nt.stored_count())?;
        let end = self.b.label();
        self.b.add(Opcode::Rewind, tc, end, 0);
        let top = self.b.here();
        let (regs, rid) = self.load_row(tc, nt)?;
        let fail = |c: &mut Self| {
            c.b.add4(Opcode::Halt, crate::error::SQLITE_CONSTRAINT, 0, 0, P4::text("constraint failed".into()), 0);
        };
        if let Some(ci) = not_null.filter(|&ci| nt.rowid_alias != Some(ci)) {
            let ok = self.b.label();
            self.b.add(Opcode::NotNull, regs + ci as i32, ok, 0);
            fail(self);
            self.b.bind(ok);
        }
        if let Some(text) = check {
            let v = self.b.reg();
            self.with_pure_context(2, |c| c.with_row_scope(nt, regs, rid, |c| c.expr_text(text, v)))?;
            let ok = self.b.label();
            self.b.add(Opcode::If, v, ok, 1);
            fail(self);
            self.b.bind(ok);
        }
        self.b.add(Opcode::Next, tc, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }
}
