//! # The connection's tokenizer names and `fts3_tokenizer()`
//!
//! fts3.txt 8.1: FTS3/4 tables and `fts3tokenize` find their tokenizer by
//! name in a per-connection table of `sqlite3_tokenizer_module` pointers,
//! which the SQL function `fts3_tokenizer(NAME)` reads (the pointer as a
//! blob of the platform's pointer size) and `fts3_tokenizer(NAME, PTR)`
//! writes. Names are compared case-sensitively, as SQLite's tokenizer
//! hash compares them.
//!
//! The engine holds no pointer it could follow: a [`ModuleHost`] (the C
//! layer, `capi/src/fts3_tokenizer.rs`) installs the built-in names with
//! the addresses of its module objects and makes tokenizers from a
//! pointer. Without a host (the engine used from Rust alone) the names
//! are the built-in tokenizers, `fts3_tokenizer(NAME)` knows none and
//! registering one is an error.
//!
//! The switch `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER` ([`Registry::
//! set_enabled`]) starts on, as in Debian's build (compiled with
//! `SQLITE_ENABLE_FTS3_TOKENIZER`). Off, the two-argument form fails with
//! "fts3tokenize disabled" and the one-argument form answers NULL (SQLite
//! still allows both for bound parameters, which ringlite's functions do
//! not tell apart from other values: with the switch off they are refused
//! too).
//!
//! Invariant: a registered pointer is kept as the bytes given, never
//! interpreted here; a replaced name's tables keep the tokenizer they
//! were made with.

use super::Tokenizer;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What makes tokenizers from module pointers (the C layer).
pub trait ModuleHost: Send + Sync {
    /// A tokenizer made by the module at the address `ptr` holds (native
    /// byte order, the pointer's size), with `args`; the error SQLite
    /// reports when the module's xCreate fails.
    fn create(&self, ptr: &[u8], args: &[String]) -> Result<Box<dyn Tokenizer>>;
}

/// The connection's tokenizer names (`Connection::extension_state`).
pub struct Registry {
    inner: Mutex<Option<Installed>>,
    enabled: AtomicBool,
}

impl Default for Registry {
    fn default() -> Self {
        Registry { inner: Mutex::new(None), enabled: AtomicBool::new(true) }
    }
}

struct Installed {
    host: Arc<dyn ModuleHost>,
    names: HashMap<Vec<u8>, Vec<u8>>,
}

impl Registry {
    /// Install the host, with the built-in names and their modules'
    /// addresses.
    pub fn install(&self, host: Arc<dyn ModuleHost>, builtins: Vec<(&str, Vec<u8>)>) {
        let names = builtins.into_iter().map(|(n, p)| (n.as_bytes().to_vec(), p)).collect();
        *lock(&self.inner) = Some(Installed { host, names });
    }

    /// `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER`.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Set `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER`.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    /// The tokenizer `name` with `args`: None when no host is installed
    /// (the caller uses the built-in of that name).
    pub fn create(&self, name: &str, args: &[String]) -> Option<Result<Box<dyn Tokenizer>>> {
        let (host, ptr) = {
            let g = lock(&self.inner);
            let inst = g.as_ref()?;
            match inst.names.get(name.as_bytes()) {
                Some(p) => (inst.host.clone(), p.clone()),
                None => return Some(Err(Error::sql(format!("unknown tokenizer: {name}")))),
            }
        };
        // (The host runs the application's xCreate without the lock held.)
        Some(host.create(&ptr, args))
    }

    /// Whether `name` is registered (None: no host installed).
    pub fn knows(&self, name: &str) -> Option<bool> {
        lock(&self.inner).as_ref().map(|i| i.names.contains_key(name.as_bytes()))
    }

    fn lookup(&self, name: &[u8]) -> Option<Vec<u8>> {
        lock(&self.inner).as_ref().and_then(|i| i.names.get(name).cloned())
    }

    /// Register `ptr` as `name` (a null pointer removes the name), giving
    /// the pointer it replaced (null when none); None without a host.
    fn insert(&self, name: &[u8], ptr: Vec<u8>) -> Option<Vec<u8>> {
        let mut g = lock(&self.inner);
        let i = g.as_mut()?;
        let old = if ptr.iter().all(|b| *b == 0) { i.names.remove(name) } else { i.names.insert(name.to_vec(), ptr.clone()) };
        Some(old.unwrap_or_else(|| vec![0; ptr.len()]))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The SQL function `fts3_tokenizer(NAME [, PTR])`.
struct Fts3TokenizerFn(Arc<Registry>);

impl ScalarFunction for Fts3TokenizerFn {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let reg = &self.0;
        let name = args.first().and_then(|v| v.as_ref().to_text().map(|t| t.into_owned()));
        let ptr = match args.get(1) {
            Some(v) => {
                if !reg.enabled() {
                    return Err(Error::sql("fts3tokenize disabled"));
                }
                let bytes = match v {
                    Value::Blob(b) => b.clone(),
                    other => other.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default(),
                };
                let Some(name) = name.as_deref().filter(|_| bytes.len() == std::mem::size_of::<usize>()) else {
                    return Err(Error::sql("argument type mismatch"));
                };
                match reg.insert(name, bytes.clone()) {
                    None => return Err(Error::sql("fts3_tokenizer(): tokenizer modules are C objects, registered through the C API")),
                    // SQLite's hash answers an insert that changes nothing
                    // as its failed allocation (observed): the same
                    // pointer again, or removing an absent name.
                    Some(old) if old == bytes => return Err(Error::sql("out of memory")),
                    Some(_) => bytes,
                }
            }
            None => match name.as_deref().and_then(|n| reg.lookup(n)) {
                Some(p) => p,
                None => return Err(Error::sql(format!("unknown tokenizer: {}", String::from_utf8_lossy(name.as_deref().unwrap_or_default())))),
            },
        };
        Ok(if reg.enabled() { Value::Blob(ptr) } else { Value::Null })
    }
}

/// Register `fts3_tokenizer()` (one and two arguments) on `conn`.
pub fn register(conn: &mut Connection) -> Result<()> {
    let reg = conn.extension_state::<Registry>();
    for n_args in [1, 2] {
        let f = Arc::new(Fts3TokenizerFn(reg.clone()));
        conn.create_function(FuncDef { name: "fts3_tokenizer".into(), n_args, flags: FuncFlags::default(), kind: FuncKind::Scalar(f) })?;
    }
    Ok(())
}
