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
use super::row::{Row, Stats};
use super::tokenizer::Tokenizer;
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::func::FunctionContext;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

// The tokenizer interface lives with the tokenizers (which name no
// registry); the application's side of FTS5 is read from here.
pub use super::tokenizer::{CustomTokenizer, EmitToken, TokenizerFactory, TOKENIZE_AUX, TOKENIZE_DOCUMENT, TOKENIZE_PREFIX, TOKENIZE_QUERY};

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
    /// The header of the connection's locale values: a column value
    /// that is one shows its text, its locale through xColumnLocale
    /// (`super::locale`).
    pub locale_header: Option<&'a [u8; super::locale::HEADER_LEN]>,
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
    /// The header of the connection's locale values (`locale.rs`).
    locale_header: Mutex<[u8; super::locale::HEADER_LEN]>,
}

impl Extensions {
    /// Register (or replace) tokenizer `name`.
    pub fn add_tokenizer(&self, name: &str, t: Arc<dyn TokenizerFactory>) {
        if let Some(old) = lock(&self.tokenizers).insert(name.ascii_lower(), t) {
            lock(&self.replaced).push(Box::new(old));
        }
    }

    /// The tokenizer registered as `name`.
    pub fn tokenizer(&self, name: &str) -> Option<Arc<dyn TokenizerFactory>> {
        lock(&self.tokenizers).get(&name.ascii_lower()).cloned()
    }

    /// Register (or replace) auxiliary function `name`.
    pub fn add_function(&self, name: &str, f: Arc<dyn AuxFunction>) {
        if let Some(old) = lock(&self.functions).insert(name.ascii_lower(), f) {
            lock(&self.replaced).push(Box::new(old));
        }
    }

    /// Set the header of the connection's locale values (at registration).
    pub fn set_locale_header(&self, h: [u8; super::locale::HEADER_LEN]) {
        *lock(&self.locale_header) = h;
    }

    /// The header of the connection's locale values.
    pub fn locale_header(&self) -> [u8; super::locale::HEADER_LEN] {
        *lock(&self.locale_header)
    }

    /// The auxiliary function registered as `name`.
    pub fn function(&self, name: &str) -> Option<Arc<dyn AuxFunction>> {
        lock(&self.functions).get(&name.ascii_lower()).cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
