//! # `fts3tokenize`: a tokenizer as a table (fts3.txt, "fts3tokenize")
//!
//! `CREATE VIRTUAL TABLE tok USING fts3tokenize(NAME, ARGS...)` makes a
//! read-only table whose rows, for `WHERE input = 'text'`, are the tokens
//! the tokenizer NAME (simple by default; porter, unicode61, or one the
//! application registered with `fts3_tokenizer()`) makes of the
//! text: `input`, `token`, `start` and `end` (byte offsets), `position`,
//! and a rowid counting the tokens from 1.
//!
//! Each module argument is dequoted on its own; the first is the
//! tokenizer's name, the rest its arguments. An unknown name fails with
//! `unknown tokenizer: NAME`; arguments the tokenizer refuses fail as a
//! constructor without a message (`vtable constructor failed: TABLE`), as
//! in SQLite. A scan without an `input =` constraint fails (SQLITE_ERROR),
//! and a NULL input gives no rows.
//!
//! Invariant: a cursor's tokens are those of one input, in text order, and
//! `at` never passes their count (checked: fts3_tokenize_cursor_at).

use super::config::dequote;
use super::tokenizer::registry::Registry;
use super::tokenizer::{self, Token, Tokenizer};
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{constructor_failed, ColumnContext, Connected, ConstraintOp, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::sync::Arc;

/// The `fts3tokenize` module.
pub struct TokenizeModule;

const SCHEMA: &str = "CREATE TABLE x(input, token, start, end, position)";

/// The plan with the `input =` argument.
const IDX_INPUT: i32 = 1;

impl Module for TokenizeModule {
    fn kind(&self) -> ModuleKind {
        ModuleKind::Regular
    }

    fn connect(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let words: Vec<String> = args.iter().skip(3).map(|a| dequote(a.trim())).collect();
        let (name, rest) = match words.split_first() {
            Some((n, r)) => (n.as_str(), r),
            None => ("simple", &[][..]),
        };
        let reg = super::shadow::conn(host)?.extension_state::<Registry>();
        let known = reg.knows(name).unwrap_or(matches!(name, "simple" | "porter" | "unicode61"));
        if !known {
            return Err(Error::sql(format!("unknown tokenizer: {name}")));
        }
        let table_name = args.get(2).map(String::as_str).unwrap_or("");
        let tok = tokenizer::create_in(&reg, name, rest).map_err(|_| constructor_failed(table_name))?;
        Ok(Connected { table: Arc::new(TokenizeTable { tok: Arc::from(tok) }), schema: SCHEMA.to_string(), config: VtabConfig::default() })
    }
}

struct TokenizeTable {
    tok: Arc<dyn Tokenizer>,
}

impl VTab for TokenizeTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        match info.constraints.iter().position(|c| c.usable && c.op == ConstraintOp::EQ && c.column == 0) {
            Some(i) => {
                info.usage[i].argv_index = 1;
                info.usage[i].omit = true;
                info.idx_num = IDX_INPUT;
                info.estimated_cost = 1.0;
            }
            // Without an input the plan keeps the default (huge) cost, so
            // a join puts the table where `input =` is usable.
            None => info.idx_num = 0,
        }
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(TokenizeCursor { tok: self.tok.clone(), input: Vec::new(), tokens: Vec::new(), at: 0, error: None }))
    }
}

struct TokenizeCursor {
    tok: Arc<dyn Tokenizer>,
    input: Vec<u8>,
    tokens: Vec<Token>,
    at: usize,
    /// The application's tokenizer's error after the last token.
    error: Option<Error>,
}

impl VTabCursor for TokenizeCursor {
    fn filter(&mut self, _host: &mut dyn VmHost, idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        self.tokens.clear();
        self.input.clear();
        self.at = 0;
        if idx_num != IDX_INPUT {
            return Err(Error::code(SQLITE_ERROR));
        }
        self.error = None;
        if let Some(text) = args.first().and_then(|v| v.as_ref().to_text().map(|t| t.into_owned())) {
            let (tokens, error) = self.tok.tokenize_until_error(&text, 0);
            self.tokens = tokens;
            self.input = text;
            self.error = error;
            // A tokenizer failing at its first token fails the scan; later,
            // the step past the last good token fails (SQLite reads one
            // token per step).
            if self.tokens.is_empty() {
                if let Some(e) = self.error.take() {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        if self.at == self.tokens.len() {
            if let Some(e) = self.error.take() {
                return Err(e);
            }
        }
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.tokens.len()
    }

    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        // invariant: fts3_tokenize_cursor_at
        debug_assert!(self.at <= self.tokens.len());
        let Some(t) = self.tokens.get(self.at) else { return Ok(Value::Null) };
        Ok(match ctx.column {
            0 => Value::Text(self.input.clone()),
            1 => Value::Text(t.term.clone()),
            2 => Value::Integer(t.start as i64),
            3 => Value::Integer(t.end as i64),
            _ => Value::Integer(t.pos),
        })
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64 + 1)
    }
}
