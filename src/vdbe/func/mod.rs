//! # SQL functions: the interface between the VM and function bodies
//!
//! Built-in functions (`builtins/`: core scalar, math, date/time, JSON,
//! aggregates, window functions) and functions registered through the C API
//! (`sqlite3_create_function*`) all implement the traits here; the VM calls
//! them with argument values and a [`FunctionContext`].
//!
//! Invariants: a function never sees the VM or the connection directly, only
//! the context; an error returned from `call`/`step`/`finalize` aborts the
//! statement with that error's code and message.

pub mod builtins;

use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use std::sync::Arc;

/// Flags of a function definition (`SQLITE_DETERMINISTIC` and friends).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FuncFlags {
    /// Same output for same inputs within a statement (usable in indexes).
    pub deterministic: bool,
    /// `SQLITE_DIRECTONLY`: not usable from triggers, views, schema.
    pub direct_only: bool,
    /// `SQLITE_INNOCUOUS`.
    pub innocuous: bool,
    /// `SQLITE_SUBTYPE`/`SQLITE_RESULT_SUBTYPE`: reads or sets subtypes.
    pub subtype: bool,
    /// One of ringlite's own functions (not one an application registered
    /// under that name): the compiler may replace a call by what it knows
    /// the function computes (`count(*)` of a table).
    pub builtin: bool,
}

/// What the VM lets a function see and set besides its arguments.
pub struct FunctionContext<'a> {
    /// `last_insert_rowid()` of the connection.
    pub last_insert_rowid: i64,
    /// `changes()` of the connection.
    pub changes: i64,
    /// `total_changes()` of the connection.
    pub total_changes: i64,
    /// `PRAGMA case_sensitive_like`.
    pub case_sensitive_like: bool,
    /// Statement time for `'now'`, as a Julian day number in milliseconds;
    /// the first function that needs it sets it, so every call within one
    /// `sqlite3_step` sees the same time.
    pub now_jd_ms: &'a mut Option<i64>,
    /// The connection's I/O backend, whose clock (an application VFS's
    /// `xCurrentTimeInt64`) gives `'now'` when it has one.
    pub clock: Option<std::sync::Arc<dyn crate::io::IoBackend>>,
    /// Subtypes of the arguments (0 when none), parallel to `args`.
    pub arg_subtypes: &'a [u32],
    /// Subtype to attach to the result (`sqlite3_result_subtype`).
    pub result_subtype: u32,
    /// The connection's pseudo-random generator, for random()/randomblob().
    pub prng: &'a mut dyn FnMut(&mut [u8]),
    /// The call computes an index key, a CHECK constraint or a generated
    /// column ("an index", ...): a function whose result depends on the
    /// time ('now', 'localtime') fails there, as in SQLite.
    pub pure_context: Option<&'static str>,
    /// The function's name, for that error.
    pub func_name: &'a str,
    /// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH` of the connection.
    pub max_like_pattern: usize,
    /// The connection, lent to an application's function for the call
    /// (`None` for ringlite's own): SQL it runs there nests in the
    /// calling statement (see [`crate::vdbe::host`]).
    pub host: Option<&'a mut dyn crate::vdbe::host::VmHost>,
}

/// Where a `Function` instruction's P1 says the call is made (see
/// `FunctionContext::pure_context`): 0 anywhere, 1 an index key or
/// partial index WHERE, 2 a CHECK constraint, 3 a generated column.
pub fn pure_context_name(code: i32) -> Option<&'static str> {
    match code {
        1 => Some("an index"),
        2 => Some("a CHECK constraint"),
        3 => Some("a generated column"),
        _ => None,
    }
}

impl FunctionContext<'_> {
    /// The error SQLite gives for a time-dependent call where the result
    /// must not change (`sqlite3NotPureFunc`).
    pub fn require_pure(&self) -> Result<()> {
        match self.pure_context {
            Some(what) => Err(crate::error::Error::sql(format!("non-deterministic use of {}() in {what}", self.func_name))),
            None => Ok(()),
        }
    }
}

/// A scalar function.
pub trait ScalarFunction: Send + Sync {
    /// Compute the result for one row.
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value>;
}

/// The running state of one aggregate (or window) computation.
pub trait AggregateState: Send {
    /// Add one row.
    fn step(&mut self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<()>;
    /// Whether [`AggregateState::step_choosing`] answers for this
    /// function; otherwise the VM compares the values before and after
    /// a step to find out.
    fn tells_choice(&self) -> bool {
        false
    }
    /// Add one row and tell whether its value is now the one the
    /// aggregate reports, or it still has none to report (min()/max():
    /// the row set the best value; bare columns come from that row).
    /// Called only when [`AggregateState::tells_choice`].
    fn step_choosing(&mut self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<bool> {
        self.step(ctx, args).map(|_| true)
    }
    /// Remove one row (window functions with a moving frame).
    fn inverse(&mut self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        let _ = (ctx, args);
        Err(crate::error::Error::sql("this aggregate cannot be used as a window function"))
    }
    /// Current value (window functions), state kept.
    fn value(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value>;
    /// Final value; called once, also when no row was stepped.
    fn finalize(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value>;
}

/// An aggregate function: makes a fresh state per group.
pub trait AggregateFunction: Send + Sync {
    /// A new, empty state.
    fn start(&self) -> Box<dyn AggregateState>;
    /// Whether `inverse` is implemented (usable with moving window frames).
    fn has_inverse(&self) -> bool {
        false
    }
}

/// The body of a function.
#[derive(Clone)]
pub enum FuncKind {
    /// One value per row.
    Scalar(Arc<dyn ScalarFunction>),
    /// Aggregate (and window, when it has an inverse).
    Aggregate(Arc<dyn AggregateFunction>),
}

/// A registered function.
#[derive(Clone)]
pub struct FuncDef {
    /// Name as registered (matched case-insensitively).
    pub name: String,
    /// Number of arguments, or -1 for any number.
    pub n_args: i32,
    /// Flags.
    pub flags: FuncFlags,
    /// The body.
    pub kind: FuncKind,
}

/// Functions known to a connection, looked up by name and argument count.
#[derive(Clone, Default)]
pub struct FunctionRegistry {
    by_name: crate::util::fast_hash::FastMap<String, Vec<Arc<FuncDef>>>,
}

impl FunctionRegistry {
    /// A registry holding every built-in function.
    pub fn with_builtins() -> Self {
        let mut r = FunctionRegistry::default();
        builtins::register_all(&mut r);
        r
    }

    /// Add or replace a function (same name and argument count).
    pub fn register(&mut self, def: FuncDef) {
        let list = self.by_name.entry(def.name.ascii_lower()).or_default();
        list.retain(|d| d.n_args != def.n_args);
        list.push(Arc::new(def));
    }

    /// Remove a function (same name and argument count).
    pub fn unregister(&mut self, name: &str, n_args: i32) {
        if let Some(list) = self.by_name.get_mut(&name.ascii_lower()) {
            list.retain(|d| d.n_args != n_args);
        }
    }

    /// Whether a function of this name takes exactly `n_args` (-1: any
    /// number) arguments.
    pub fn has_exact(&self, name: &str, n_args: i32) -> bool {
        self.list(name).is_some_and(|l| l.iter().any(|d| d.n_args == n_args))
    }

    /// Find the best match: exact argument count first, then any-count.
    pub fn find(&self, name: &str, n_args: usize) -> Option<Arc<FuncDef>> {
        let list = self.list(name)?;
        list.iter().find(|d| d.n_args == n_args as i32).or_else(|| list.iter().find(|d| d.n_args < 0)).cloned()
    }

    /// Every function, by name then argument count.
    pub fn all(&self) -> Vec<Arc<FuncDef>> {
        let mut v: Vec<Arc<FuncDef>> = self.by_name.values().flatten().cloned().collect();
        crate::util::cold_sort::sort_by(&mut v, |a, b| a.name.ascii_lower().cmp(&b.name.ascii_lower()).then(a.n_args.cmp(&b.n_args)));
        v
    }

    /// Whether any function of this name exists (for "wrong number of
    /// arguments" versus "no such function").
    pub fn has_name(&self, name: &str) -> bool {
        self.list(name).is_some_and(|l| !l.is_empty())
    }

    /// The functions named `name` (any case; names are usually written
    /// in lower case, looked up then without a copy).
    fn list(&self, name: &str) -> Option<&Vec<Arc<FuncDef>>> {
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.by_name.get(name);
        }
        self.by_name.get(&name.ascii_lower())
    }
}
