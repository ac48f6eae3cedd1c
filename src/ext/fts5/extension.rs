//! # Tokenizers and auxiliary functions added by the host application
//!
//! What SQLite's `fts5_api` lets an application register
//! (`fts5.txt`, "Extending FTS5"), seen from the engine: a connection's
//! [`Extensions`] hold tokenizer factories and auxiliary functions by
//! case-insensitive name. The engine knows them only through the safe
//! traits below; the C layer (`capi/src/fts5_api.rs`) implements them
//! over the application's callbacks.
//!
//! A registered name shadows a built-in tokenizer or function of the same
//! name, as in SQLite. Tables look names up when they are connected
//! (`tokenize=`) and when a statement is compiled (xFindFunction).
//!
//! Invariant: entries are only added or replaced, never mutated, so an
//! `Arc` handed out stays a consistent definition; a replaced one is
//! kept until the connection closes, as SQLite keeps it.

use super::query::Query;
use super::table::{Row, Stats};
use super::tokenizer::Tokenizer;
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::func::FunctionContext;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// `FTS5_TOKENIZE_QUERY`: the text is (part of) a MATCH query.
pub const TOKENIZE_QUERY: i32 = 1;
/// `FTS5_TOKENIZE_PREFIX`: a query term followed by `*`.
pub const TOKENIZE_PREFIX: i32 = 2;
/// `FTS5_TOKENIZE_DOCUMENT`: a value being indexed.
pub const TOKENIZE_DOCUMENT: i32 = 4;
/// `FTS5_TOKENIZE_AUX`: an auxiliary function's xTokenize.
pub const TOKENIZE_AUX: i32 = 8;

/// A token a tokenizer reports: its bytes, its byte range in the input,
/// and whether it sits at the position of the previous token.
pub type EmitToken<'a> = dyn FnMut(&[u8], usize, usize, bool) -> Result<()> + 'a;

/// A configured tokenizer of the application's.
pub trait CustomTokenizer: Send + Sync {
    /// Report the tokens of `text` for `reason` (`TOKENIZE_*`) through
    /// `emit`, stopping at the first error `emit` returns.
    fn tokenize(&self, text: &[u8], reason: i32, locale: Option<&[u8]>, emit: &mut EmitToken<'_>) -> Result<()>;
}

/// What the application registered under a tokenizer name.
pub trait TokenizerFactory: Send + Sync {
    /// A tokenizer configured with the words after the name in
    /// `tokenize=` (`SQLITE_ERROR`-style failures as errors).
    fn create(&self, args: &[String]) -> Result<Arc<dyn CustomTokenizer>>;

    /// The factory itself, for the layer that made it to recognise its own.
    fn as_any(&self) -> &dyn Any;
}

/// What an auxiliary function sees of the row it is called for.
pub struct AuxRow<'a> {
    /// The query in force (None: a full scan).
    pub query: Option<&'a Query>,
    /// Figures over the whole table.
    pub stats: &'a Stats,
    /// The row.
    pub row: &'a Row,
    /// The table's tokenizer.
    pub tokenizer: &'a Tokenizer,
    /// The table's column names.
    pub columns: &'a [String],
    /// The data this function kept on the cursor (`xSetAuxdata`),
    /// kept until the cursor closes.
    pub aux_data: &'a mut Option<Box<dyn Any + Send>>,
}

/// An auxiliary function of the application's.
pub trait AuxFunction: Send + Sync {
    /// The function's value for `row`, with the SQL arguments after the
    /// first (the table column).
    fn call(&self, ctx: &mut FunctionContext<'_>, row: AuxRow<'_>, args: &[Value]) -> Result<Value>;
}

/// The tokenizers and auxiliary functions registered on one connection.
#[derive(Default)]
pub struct Extensions {
    tokenizers: Mutex<HashMap<String, Arc<dyn TokenizerFactory>>>,
    functions: Mutex<HashMap<String, Arc<dyn AuxFunction>>>,
    /// Definitions a later one of the same name replaced: SQLite keeps
    /// them (and their user data) until the connection closes.
    replaced: Mutex<Vec<Box<dyn Any + Send + Sync>>>,
}

impl Extensions {
    /// Register (or replace) tokenizer `name`.
    pub fn add_tokenizer(&self, name: &str, t: Arc<dyn TokenizerFactory>) {
        if let Some(old) = lock(&self.tokenizers).insert(name.to_ascii_lowercase(), t) {
            lock(&self.replaced).push(Box::new(old));
        }
    }

    /// The tokenizer registered as `name`.
    pub fn tokenizer(&self, name: &str) -> Option<Arc<dyn TokenizerFactory>> {
        lock(&self.tokenizers).get(&name.to_ascii_lowercase()).cloned()
    }

    /// Register (or replace) auxiliary function `name`.
    pub fn add_function(&self, name: &str, f: Arc<dyn AuxFunction>) {
        if let Some(old) = lock(&self.functions).insert(name.to_ascii_lowercase(), f) {
            lock(&self.replaced).push(Box::new(old));
        }
    }

    /// The auxiliary function registered as `name`.
    pub fn function(&self, name: &str) -> Option<Arc<dyn AuxFunction>> {
        lock(&self.functions).get(&name.to_ascii_lowercase()).cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
