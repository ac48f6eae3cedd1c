//! # Built-in SQL functions
//!
//! The functions SQLite 3.54 builds in (all but the FTS and R-tree ones, and
//! the table-valued json_each/json_tree), plus the math functions, registered
//! by [`register_all`] with SQLite's argument counts
//! (one [`FuncDef`] per arity; `-1` for variadic functions, whose bodies
//! check any minimum themselves and report "wrong number of arguments to
//! function X()" as SQLite does). Families live in their own modules:
//! `core` (string, type and misc scalars), `pattern` (LIKE/GLOB matching),
//! `math`, `datetime`, `aggregate`, `window` (and the protocol the VM must
//! follow for window functions), `json` (JSON text and JSONB); `conv` adapts
//! the value layer's conversions to the `sqlite3_value_*` accessors.
//!
//! Invariants: bodies are pure functions of their arguments and the
//! [`FunctionContext`]; they never panic on any input; errors carry SQLite's
//! own message text. Text comparisons in scalar min/max, nullif and the
//! min/max aggregates use BINARY (the context has no collation); see
//! `core::scalar_min_max`, `core::nullif_with`, `aggregate::min_max_state`
//! for collation-aware forms.

pub mod aggregate;
pub mod conv;
pub mod core;
pub mod datetime;
pub mod json;
pub mod math;
pub mod pattern;
pub mod window;

pub use self::core::SQLITE_VERSION;

use super::{AggregateFunction, AggregateState, FuncDef, FuncFlags, FuncKind, FunctionContext, FunctionRegistry, ScalarFunction};
use crate::error::Result;
use crate::value::Value;
use std::sync::Arc;

/// Register every built-in function.
pub fn register_all(registry: &mut FunctionRegistry) {
    core::register(registry);
    math::register(registry);
    aggregate::register(registry);
    datetime::register(registry);
    window::register(registry);
    json::register(registry);
}

/// A scalar function given as a closure.
struct ClosureScalar<F>(F);

impl<F> ScalarFunction for ClosureScalar<F>
where
    F: Fn(&mut FunctionContext<'_>, &[Value]) -> Result<Value> + Send + Sync,
{
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        (self.0)(ctx, args)
    }
}

/// Flags of a deterministic built-in.
pub(crate) const DETERMINISTIC: FuncFlags = FuncFlags { deterministic: true, direct_only: false, innocuous: true, subtype: false, builtin: true };

/// Flags of a built-in whose result may change between calls (random(),
/// changes(), 'now').
pub(crate) const VOLATILE: FuncFlags = FuncFlags { deterministic: false, direct_only: false, innocuous: false, subtype: false, builtin: true };

/// Register a scalar function for each arity in `arities`.
pub(crate) fn scalar<F>(registry: &mut FunctionRegistry, name: &str, arities: &[i32], flags: FuncFlags, body: F)
where
    F: Fn(&mut FunctionContext<'_>, &[Value]) -> Result<Value> + Send + Sync + 'static,
{
    let f: Arc<dyn ScalarFunction> = Arc::new(ClosureScalar(body));
    for &n in arities {
        registry.register(FuncDef { name: name.to_string(), n_args: n, flags, kind: FuncKind::Scalar(f.clone()) });
    }
}

/// An aggregate function made from a state constructor.
struct ClosureAggregate<F> {
    start: F,
    inverse: bool,
}

impl<F> AggregateFunction for ClosureAggregate<F>
where
    F: Fn() -> Box<dyn AggregateState> + Send + Sync,
{
    fn start(&self) -> Box<dyn AggregateState> {
        (self.start)()
    }
    fn has_inverse(&self) -> bool {
        self.inverse
    }
}

/// Register an aggregate function for each arity in `arities`.
pub(crate) fn aggregate<F>(registry: &mut FunctionRegistry, name: &str, arities: &[i32], flags: FuncFlags, has_inverse: bool, start: F)
where
    F: Fn() -> Box<dyn AggregateState> + Send + Sync + 'static,
{
    let f: Arc<dyn AggregateFunction> = Arc::new(ClosureAggregate { start, inverse: has_inverse });
    for &n in arities {
        registry.register(FuncDef { name: name.to_string(), n_args: n, flags, kind: FuncKind::Aggregate(f.clone()) });
    }
}

/// The fewest arguments a variadic built-in accepts (0 for most). SQLite
/// rejects fewer at prepare time with "wrong number of arguments to
/// function X()"; the bodies here report the same error when called, but a
/// code generator can check this up front to fail at the same moment.
pub fn variadic_min_args(name: &str) -> usize {
    match name.to_ascii_lowercase().as_str() {
        "coalesce" | "concat_ws" | "iif" | "if" => 2,
        "concat" | "max" | "min" => 1,
        _ => 0,
    }
}

/// The "wrong number of arguments" error for variadic functions that need
/// a minimum the registry cannot express.
pub(crate) fn wrong_arg_count(name: &str) -> crate::error::Error {
    crate::error::Error::sql(format!("wrong number of arguments to function {name}()"))
}
