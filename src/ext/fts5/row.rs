//! A row of an fts5 table as bm25, the auxiliary functions and the
//! writer see it: its values, tokens per column, phrase instances and
//! sizes ([`Row`]), the figures over the whole table ([`Stats`]), and the
//! tokens of a stored value ([`value_tokens`]). Below `table.rs`, so the
//! modules that read rows do not import the virtual table.

use super::config::Config;
use super::matcher::Inst;
use super::tokenizer::Token;
use crate::error::Result;
use crate::value::Value;

/// Figures over the whole table, for bm25.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Rows in the table.
    pub nrow: i64,
    /// Tokens in all rows and columns.
    pub ntoken: i64,
    /// Per phrase: rows in which it occurs at least once.
    pub nhit: Vec<i64>,
    /// Tokens per column in all rows (xColumnTotalSize).
    pub col_tokens: Vec<i64>,
}

/// One matched row.
#[derive(Debug, Clone)]
pub struct Row {
    /// Rowid.
    pub rowid: i64,
    /// The column values as stored.
    pub values: Vec<Value>,
    /// Tokens per column (none for UNINDEXED ones).
    pub tokens: Vec<Vec<Token>>,
    /// Per phrase, its instances that count for this row.
    pub inst: Vec<Vec<Inst>>,
    /// Tokens per column as xColumnSize reports them (bm25's length).
    pub size: Vec<i64>,
    /// The external content table lacks this row (reading its values is
    /// an error).
    pub missing: bool,
}

/// The tokens of a stored value (its text form; NULL has none), a
/// locale value's text tokenized with its locale (`locale.rs`).
pub fn value_tokens(cfg: &Config, v: &Value) -> Result<Vec<Token>> {
    if let Some((locale, text)) = super::locale::split(cfg, v) {
        return cfg.tokenizer.tokenize_in(text, super::tokenizer::TOKENIZE_DOCUMENT, Some(locale));
    }
    v.as_ref().to_text().map(|t| cfg.tokenizer.tokenize(&t)).unwrap_or(Ok(Vec::new()))
}
