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
    /// Which arguments are bound parameters passed as they are
    /// (`sqlite3_value_frombind`), parallel to `args` (empty: none).
    pub arg_from_bind: &'a [bool],
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

/// Functions by lower-case name; one entry per argument count.
type FuncMap = crate::util::fast_hash::FastMap<String, Vec<Arc<FuncDef>>>;

/// What a connection did to one name and argument count: defined it, or
/// deleted it (`None`: SQLite keeps such an entry, with no body, and it
/// hides the built-in of that name and count).
type OwnEntry = (i32, Option<Arc<FuncDef>>);

/// Functions known to a connection, looked up by name and argument count.
///
/// The built-in functions are one table for the whole process, built on
/// first use and never changed ([`FunctionRegistry::with_builtins`]): each
/// connection holding its own copy cost ~25 KB, half of what an idle
/// tenant held (bench/RESULTS.md, "Memory per idle tenant"). What a
/// connection defines or deletes is its own, looked at first, as
/// SQLite's per-connection functions are looked at before its built-ins:
/// a call matching any of them (by exact argument count, then a variadic
/// one) takes it, or fails if it was deleted; only a call matching none
/// of them goes to the built-ins.
#[derive(Clone, Default)]
pub struct FunctionRegistry {
    /// The process's built-ins (`None`: none).
    base: Option<Arc<FuncMap>>,
    /// This registry's own entries, by lower-case name.
    own: crate::util::fast_hash::FastMap<String, Vec<OwnEntry>>,
}

/// The entry a call with `n_args` arguments takes among `entries` (exact
/// count first, then a variadic one); `n_args == -1` asks for the
/// variadic entry only.
fn best<T>(entries: &[T], n_args: i32, arity: impl Fn(&T) -> i32) -> Option<&T> {
    entries.iter().find(|e| arity(e) == n_args).or_else(|| entries.iter().find(|e| arity(e) < 0))
}

impl FunctionRegistry {
    /// A registry holding every built-in function (shared, not copied).
    pub fn with_builtins() -> Self {
        static BUILTINS: std::sync::OnceLock<Arc<FuncMap>> = std::sync::OnceLock::new();
        let base = BUILTINS.get_or_init(|| {
            let mut r = FunctionRegistry::default();
            builtins::register_all(&mut r);
            let mut map = FuncMap::default();
            for (name, entries) in r.own {
                debug_assert!(entries.iter().all(|e| e.1.is_some()));
                map.insert(name, entries.into_iter().filter_map(|e| e.1).collect());
            }
            Arc::new(map)
        });
        FunctionRegistry { base: Some(base.clone()), own: Default::default() }
    }

    /// Add or replace a function (same name and argument count).
    pub fn register(&mut self, def: FuncDef) {
        let n = def.n_args;
        self.set(def.name.ascii_lower(), n, Some(Arc::new(def)));
    }

    /// Remove a function (same name and argument count); a built-in one
    /// of that name and count is hidden from then on.
    pub fn unregister(&mut self, name: &str, n_args: i32) {
        self.set(name.ascii_lower(), n_args, None);
    }

    fn set(&mut self, key: String, n_args: i32, def: Option<Arc<FuncDef>>) {
        let list = self.own.entry(key).or_default();
        list.retain(|e| e.0 != n_args);
        list.push((n_args, def));
    }

    /// Whether a function of this name takes exactly `n_args` (-1: any
    /// number) arguments.
    pub fn has_exact(&self, name: &str, n_args: i32) -> bool {
        self.resolve(name, n_args).is_some_and(|d| d.n_args == n_args)
    }

    /// Whether a call of `name` with `n_args` arguments is constant for
    /// constant arguments, as SQLite's `SQLITE_FUNC_CONSTANT`: a
    /// deterministic scalar function (not an unknown or aggregate one).
    pub fn is_constant_call(&self, name: &str, n_args: usize) -> bool {
        self.find(name, n_args).is_some_and(|d| d.flags.deterministic && matches!(d.kind, FuncKind::Scalar(_)))
    }

    /// Find the best match: exact argument count first, then any-count.
    pub fn find(&self, name: &str, n_args: usize) -> Option<Arc<FuncDef>> {
        self.resolve(name, i32::try_from(n_args).unwrap_or(i32::MAX)).cloned()
    }

    /// The definition a call of `name` with `n_args` arguments takes.
    fn resolve(&self, name: &str, n_args: i32) -> Option<&Arc<FuncDef>> {
        let key = Self::lower(name);
        if let Some(e) = self.own.get(key.as_ref()).and_then(|l| best(l, n_args, |e| e.0)) {
            return e.1.as_ref();
        }
        best(self.base.as_ref()?.get(key.as_ref())?, n_args, |d| d.n_args)
    }

    /// Every function, by name then argument count.
    pub fn all(&self) -> Vec<Arc<FuncDef>> {
        let shadowed = |k: &str, n: i32| self.own.get(k).is_some_and(|l| l.iter().any(|e| e.0 == n));
        let inherited = self.base.iter().flat_map(|b| b.iter()).flat_map(|(k, l)| l.iter().filter(move |d| !shadowed(k, d.n_args)));
        let mut v: Vec<Arc<FuncDef>> = self.own.values().flatten().filter_map(|e| e.1.as_ref()).chain(inherited).cloned().collect();
        crate::util::cold_sort::sort_by(&mut v, |a, b| a.name.ascii_lower().cmp(&b.name.ascii_lower()).then(a.n_args.cmp(&b.n_args)));
        v
    }

    /// Whether any function of this name exists (for "wrong number of
    /// arguments" versus "no such function"): one of the connection's
    /// own, or a built-in (deleting a built-in leaves its name known, as
    /// in SQLite).
    pub fn has_name(&self, name: &str) -> bool {
        let key = Self::lower(name);
        self.own.get(key.as_ref()).is_some_and(|l| l.iter().any(|e| e.1.is_some()))
            || self.base.as_ref().and_then(|b| b.get(key.as_ref())).is_some_and(|l| !l.is_empty())
    }

    /// `name` in lower case (names are usually written so, looked up
    /// then without a copy).
    fn lower(name: &str) -> std::borrow::Cow<'_, str> {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(name.ascii_lower())
        } else {
            std::borrow::Cow::Borrowed(name)
        }
    }
}
