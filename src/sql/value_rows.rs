//! Bulk `INSERT ... VALUES (...), (...), ...` of literal rows without a
//! parse tree per row.
//!
//! The parser crate builds the whole statement's tree before anything is
//! compiled: for a 100,000-row VALUES that is some 640 bytes of arena a
//! row and most of the prepare's time, where SQLite's parser hands each
//! row to code generation as it is reduced (`sqlite3MultiValues`) and
//! keeps no tree. [`split`] recognises the common bulk shape, rows made
//! only of literals (numbers, strings, blobs, NULL, with at most one sign
//! each), and returns a copy of the statement with every row but the
//! first turned into spaces (same length, so every offset, span and error
//! position is unchanged) together with [`ValueRows`], which code
//! generation reads the other rows from, one row at a time, straight from
//! the tokens (`sql::codegen::dml::insert`).
//!
//! Invariants: a statement [`split`] accepts compiles to the same program
//! as the whole tree would (each value is handed to the same expression
//! code as the parser's `Expr::Literal`/`Expr::Unary` node); rows whose
//! parse could fail or depend on anything but their tokens (identifiers,
//! variables, subqueries, nested parentheses, operators, rows of unequal
//! width, a width over `SQLITE_LIMIT_COLUMN`) are never split; a compile
//! that did not consume the rows (another INSERT path: triggers, views,
//! virtual tables) or failed is redone on the whole text by the caller.

use crate::error::{Error, Result};
use crate::sql::parse::copy_literal;
use sqlite3_parser::ast::{Expr, Literal, UnaryOperator};
use sqlite3_parser::dialect::TokenType;
use sqlite3_parser::lexer::sql::Tokenizer;
use sqlite3_parser::lexer::Scanner;

/// Rows below this count are left to the parser (nothing to gain).
pub const MIN_ROWS: usize = 64;

/// The rows after the first of a split statement.
pub struct ValueRows<'a> {
    /// The rows' text: from the comma after the first row to the last
    /// row's closing parenthesis (valid UTF-8, checked by [`split`]).
    text: &'a str,
    /// Values per row.
    width: usize,
    /// Rows in `text`.
    rows: usize,
    /// Whether code generation read the rows (otherwise the compile is
    /// redone on the whole statement).
    pub consumed: std::cell::Cell<bool>,
}

/// A statement split by [`split`].
pub struct Split<'a> {
    /// The statement with every row but the first turned into spaces.
    pub head: Vec<u8>,
    /// The other rows.
    pub rows: ValueRows<'a>,
}

enum Step<'t> {
    Token(TokenType, usize, usize),
    End,
    Bad(std::marker::PhantomData<&'t ()>),
}

fn next<'t>(scanner: &mut Scanner<Tokenizer>, sql: &'t [u8]) -> Step<'t> {
    match scanner.scan(sql) {
        Ok((start, Some((_, kind)), end)) => Step::Token(kind, start, end),
        Ok((_, None, _)) => Step::End,
        Err(_) => Step::Bad(std::marker::PhantomData),
    }
}

fn is_literal(k: TokenType) -> bool {
    matches!(k, TokenType::TK_INTEGER | TokenType::TK_FLOAT | TokenType::TK_STRING | TokenType::TK_BLOB | TokenType::TK_NULL)
}

/// Split `sql` (its first statement) if it is `INSERT`/`REPLACE` ...
/// `VALUES` with at least [`MIN_ROWS`] literal rows, followed by the end
/// of the statement, an upsert or RETURNING. `max_columns` and
/// `max_depth` are the connection's `SQLITE_LIMIT_COLUMN` and
/// `SQLITE_LIMIT_EXPR_DEPTH` (rows the parse-time checks could refuse are
/// not split).
pub fn split(sql: &[u8], max_columns: usize, max_depth: usize) -> Option<Split<'_>> {
    use TokenType::*;
    // (Cheap refusals first: most statements are not bulk inserts.)
    if sql.len() < 1024 || max_depth < 2 || super::bom::marks_as_space(sql).is_some() {
        return None;
    }
    let mut scanner = Scanner::new(Tokenizer::new());
    let Step::Token(first, ..) = next(&mut scanner, sql) else { return None };
    if !matches!(first, TK_INSERT | TK_REPLACE) {
        return None;
    }
    // Up to VALUES, at parenthesis depth 0, with no SELECT before it.
    let mut depth = 0i32;
    loop {
        match next(&mut scanner, sql) {
            Step::Token(TK_VALUES, ..) if depth == 0 => break,
            Step::Token(TK_LP, ..) => depth += 1,
            Step::Token(TK_RP, ..) => depth -= 1,
            Step::Token(TK_SELECT | TK_DEFAULT | TK_VARIABLE | TK_SEMI, ..) | Step::End | Step::Bad(_) => return None,
            Step::Token(..) => {}
        }
    }
    let mut width = None;
    let mut rows = 0usize;
    let mut region_start = 0;
    let mut region_end;
    loop {
        let Step::Token(TK_LP, ..) = next(&mut scanner, sql) else { return None };
        let mut values = 0;
        loop {
            let mut t = next(&mut scanner, sql);
            if let Step::Token(TK_MINUS | TK_PLUS, ..) = t {
                t = next(&mut scanner, sql);
            }
            let Step::Token(k, ..) = t else { return None };
            if !is_literal(k) {
                return None;
            }
            values += 1;
            match next(&mut scanner, sql) {
                Step::Token(TK_COMMA, ..) => {}
                Step::Token(TK_RP, _, end) => {
                    region_end = end;
                    break;
                }
                _ => return None,
            }
        }
        if *width.get_or_insert(values) != values {
            return None;
        }
        rows += 1;
        match next(&mut scanner, sql) {
            Step::Token(TK_COMMA, start, _) => {
                if rows == 1 {
                    region_start = start;
                }
            }
            Step::Token(TK_SEMI, ..) | Step::End => break,
            Step::Token(TK_ON | TK_RETURNING, ..) => {
                // The rest of the statement: nothing the numbering of
                // variables would rewrite.
                loop {
                    match next(&mut scanner, sql) {
                        Step::Token(TK_VARIABLE, ..) | Step::Bad(_) => return None,
                        Step::Token(TK_SEMI, ..) | Step::End => break,
                        Step::Token(..) => {}
                    }
                }
                break;
            }
            _ => return None,
        }
    }
    let width = width?;
    if rows < MIN_ROWS || width > max_columns {
        return None;
    }
    let text = std::str::from_utf8(&sql[region_start..region_end]).ok()?;
    let mut head = sql.to_vec();
    head[region_start..region_end].fill(b' ');
    Some(Split { head, rows: ValueRows { text, width, rows: rows - 1, consumed: std::cell::Cell::new(false) } })
}

impl ValueRows<'_> {
    /// Rows held (the first row of the statement not counted).
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Hand each row's values to `f`, in order, as the parser would have
    /// built them.
    pub fn for_each_row(&self, f: &mut dyn FnMut(&[Expr<'_>]) -> Result<()>) -> Result<()> {
        use TokenType::*;
        let text = self.text.as_bytes();
        let mut scanner = Scanner::new(Tokenizer::new());
        let malformed = || Error::new(crate::error::SQLITE_INTERNAL, "bulk VALUES rows changed after they were checked");
        let mut signs: Vec<Option<UnaryOperator>> = Vec::with_capacity(self.width);
        let mut literals: Vec<Literal<'_>> = Vec::with_capacity(self.width);
        loop {
            // `,` `(` then the values and `)`.
            match next(&mut scanner, text) {
                Step::End => return Ok(()),
                Step::Token(TK_COMMA, ..) => {}
                _ => return Err(malformed()),
            }
            let Step::Token(TK_LP, ..) = next(&mut scanner, text) else { return Err(malformed()) };
            signs.clear();
            literals.clear();
            loop {
                let mut t = next(&mut scanner, text);
                let mut sign = None;
                if let Step::Token(k @ (TK_MINUS | TK_PLUS), ..) = t {
                    sign = Some(if k == TK_MINUS { UnaryOperator::Negative } else { UnaryOperator::Positive });
                    t = next(&mut scanner, text);
                }
                let Step::Token(k, start, end) = t else { return Err(malformed()) };
                let s = &self.text[start..end];
                literals.push(match k {
                    TK_INTEGER | TK_FLOAT => Literal::Numeric(s),
                    TK_STRING => Literal::String(s),
                    // (The token is the digits inside `X'...'`.)
                    TK_BLOB => Literal::Blob(&s[2..s.len() - 1]),
                    TK_NULL => Literal::Null,
                    _ => return Err(malformed()),
                });
                signs.push(sign);
                match next(&mut scanner, text) {
                    Step::Token(TK_COMMA, ..) => {}
                    Step::Token(TK_RP, ..) => break,
                    _ => return Err(malformed()),
                }
            }
            if literals.len() != self.width {
                return Err(malformed());
            }
            // (A sign's operand is a node of its own, as in the tree.)
            let inner: Vec<Expr<'_>> = literals.iter().map(|l| Expr::Literal(copy_literal(l))).collect();
            let row: Vec<Expr<'_>> = inner
                .iter()
                .zip(&signs)
                .zip(&literals)
                .map(|((e, sign), l)| match sign {
                    Some(op) => Expr::Unary(*op, e),
                    None => Expr::Literal(copy_literal(l)),
                })
                .collect();
            f(&row)?;
        }
    }
}
