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
//! min/max aggregates use BINARY as registered; a call whose arguments
//! carry another collating sequence gets a copy of the function bound to
//! it at compile time ([`with_collation`], SQLite's "needs collation"
//! functions).

pub mod aggregate;
pub mod conv;
pub mod core;
pub mod datetime;
pub mod json;
pub mod math;
pub mod pattern;
pub mod window;

pub use self::core::{report_sqlite_version, sqlite_source_id, sqlite_version};

use super::{AggregateFunction, AggregateState, FuncDef, FuncFlags, FuncKind, FunctionContext, FunctionRegistry, ScalarFunction};
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
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
/// changes(), 'now'): still innocuous, as every built-in SQLite lists but
/// load_extension() and sqlite_log().
pub(crate) const VOLATILE: FuncFlags = FuncFlags { deterministic: false, direct_only: false, innocuous: true, subtype: false, builtin: true };

/// Register a scalar function for each arity in `arities`.
pub(crate) fn scalar<F>(registry: &mut FunctionRegistry, name: &str, arities: &[i32], flags: FuncFlags, body: F)
where
    F: Fn(&mut FunctionContext<'_>, &[Value]) -> Result<Value> + Send + Sync + 'static,
{
    register_each(registry, name, arities, flags, FuncKind::Scalar(Arc::new(ClosureScalar(body))));
}

/// The part of [`scalar`] and [`aggregate`] that does not depend on the
/// body: compiled once rather than into each of the ~150 registrations
/// (bench/RESULTS.md, "Installed size").
#[inline(never)]
fn register_each(registry: &mut FunctionRegistry, name: &str, arities: &[i32], flags: FuncFlags, kind: FuncKind) {
    for &n in arities {
        registry.register(FuncDef { name: name.to_string(), n_args: n, flags, kind: kind.clone() });
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

/// Whether `def` is a built-in whose text comparisons follow the
/// collating sequence of its arguments, as SQLite's min(), max() and
/// nullif() do (the first argument that has one, BINARY if none).
pub fn needs_collation(def: &FuncDef) -> bool {
    def.flags.builtin && ["min", "max", "nullif"].iter().any(|n| def.name.eq_ci(n))
}

/// `def` (one of [`needs_collation`]'s functions) comparing text under
/// `coll`: the scalar min()/max()/nullif() or the min()/max() aggregate.
pub fn with_collation(def: &Arc<FuncDef>, coll: &Collation) -> Arc<FuncDef> {
    debug_assert!(needs_collation(def));
    let is_max = def.name.eq_ci("max");
    let kind = match &def.kind {
        FuncKind::Aggregate(f) => {
            let coll = coll.clone();
            let start = move || aggregate::min_max_state(is_max, Some(coll.clone()));
            FuncKind::Aggregate(Arc::new(ClosureAggregate { start, inverse: f.has_inverse() }))
        }
        FuncKind::Scalar(_) if def.name.eq_ci("nullif") => {
            let coll = coll.clone();
            FuncKind::Scalar(Arc::new(ClosureScalar(move |_: &mut FunctionContext<'_>, a: &[Value]| Ok(core::nullif_with(&a[0], &a[1], Some(&coll))))))
        }
        FuncKind::Scalar(_) => {
            let (coll, name) = (coll.clone(), def.name.ascii_lower());
            FuncKind::Scalar(Arc::new(ClosureScalar(move |_: &mut FunctionContext<'_>, a: &[Value]| core::min_max_with(&name, a, is_max, Some(&coll)))))
        }
    };
    Arc::new(FuncDef { kind, ..(**def).clone() })
}

/// Register an aggregate function for each arity in `arities`.
pub(crate) fn aggregate<F>(registry: &mut FunctionRegistry, name: &str, arities: &[i32], flags: FuncFlags, has_inverse: bool, start: F)
where
    F: Fn() -> Box<dyn AggregateState> + Send + Sync + 'static,
{
    register_each(registry, name, arities, flags, FuncKind::Aggregate(Arc::new(ClosureAggregate { start, inverse: has_inverse })));
}

/// The fewest arguments a variadic built-in accepts (0 for most). SQLite
/// rejects fewer at prepare time with "wrong number of arguments to
/// function X()"; the bodies here report the same error when called, but a
/// code generator can check this up front to fail at the same moment.
pub fn variadic_min_args(name: &str) -> usize {
    match name.ascii_lower().as_str() {
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
