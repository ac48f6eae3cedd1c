//! # Math functions (`lang_mathfunc`)
//!
//! acos … trunc, pi, pow/power, ln/log/log10/log2 (and two-argument log),
//! mod, ceil/ceiling/floor/trunc, degrees/radians, sqrt, exp.
//!
//! Arguments must be numbers or text that is entirely a number (numeric
//! affinity); anything else, NULL, or a domain error (a NaN result) gives
//! NULL. ceil/floor/trunc keep integers as integers.

use super::conv::numeric_value;
use super::{scalar, DETERMINISTIC};
use crate::value::Value;
use crate::vdbe::func::FunctionRegistry;

/// The argument as a double, if it is numeric after numeric affinity.
fn num(v: &Value) -> Option<f64> {
    match numeric_value(v) {
        Value::Integer(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        _ => None,
    }
}

/// A double result; NaN (a domain error) is NULL.
fn real(r: f64) -> Value {
    if r.is_nan() {
        Value::Null
    } else {
        Value::Real(r)
    }
}

fn unary(r: &mut FunctionRegistry, name: &str, f: fn(f64) -> f64) {
    scalar(r, name, &[1], DETERMINISTIC, move |_, a| Ok(num(&a[0]).map_or(Value::Null, |x| real(f(x)))));
}

fn binary(r: &mut FunctionRegistry, name: &str, f: fn(f64, f64) -> f64) {
    scalar(r, name, &[2], DETERMINISTIC, move |_, a| {
        Ok(match (num(&a[0]), num(&a[1])) {
            (Some(x), Some(y)) => real(f(x, y)),
            _ => Value::Null,
        })
    });
}

/// ceil/floor/trunc: integers pass through unchanged.
fn rounding(r: &mut FunctionRegistry, name: &str, f: fn(f64) -> f64) {
    scalar(r, name, &[1], DETERMINISTIC, move |_, a| {
        Ok(match numeric_value(&a[0]) {
            Value::Integer(i) => Value::Integer(i),
            Value::Real(x) => real(f(x)),
            _ => Value::Null,
        })
    });
}

/// Logarithm of `x` (must be positive) in the base `which` picks.
fn log_of(x: f64, base: fn(f64) -> f64) -> Value {
    if x <= 0.0 {
        Value::Null
    } else {
        real(base(x))
    }
}

// SQLite computes base-10 and base-2 logarithms as quotients of natural
// logarithms, which differs from log10()/log2() in the last bit for some
// arguments; so does this.
fn log10(x: f64) -> f64 {
    x.ln() / std::f64::consts::LN_10
}

fn log2(x: f64) -> f64 {
    x.ln() / std::f64::consts::LN_2
}

// The inverse hyperbolic functions as the C library computes them (Rust's
// own formulas lose precision near 1 and 0).
const TWO_POW_28: f64 = 268_435_456.0;

fn acosh(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else if x >= TWO_POW_28 {
        x.ln() + std::f64::consts::LN_2
    } else if x > 2.0 {
        (2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt())).ln()
    } else {
        let t = x - 1.0;
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    }
}

fn asinh(x: f64) -> f64 {
    let a = x.abs();
    let w = if a < 1.0 / TWO_POW_28 {
        return x;
    } else if a > TWO_POW_28 {
        a.ln() + std::f64::consts::LN_2
    } else if a > 2.0 {
        (2.0 * a + 1.0 / ((x * x + 1.0).sqrt() + a)).ln()
    } else {
        let t = x * x;
        (a + t / (1.0 + (1.0 + t).sqrt())).ln_1p()
    };
    w.copysign(x)
}

fn atanh(x: f64) -> f64 {
    let a = x.abs();
    let t = if a < 0.5 {
        let t = a + a;
        0.5 * (t + t * a / (1.0 - a)).ln_1p()
    } else {
        0.5 * ((a + a) / (1.0 - a)).ln_1p()
    };
    t.copysign(x)
}

/// Register the math functions.
pub fn register(r: &mut FunctionRegistry) {
    unary(r, "acos", f64::acos);
    unary(r, "acosh", acosh);
    unary(r, "asin", f64::asin);
    unary(r, "asinh", asinh);
    unary(r, "atan", f64::atan);
    unary(r, "atanh", atanh);
    unary(r, "cos", f64::cos);
    unary(r, "cosh", f64::cosh);
    unary(r, "sin", f64::sin);
    unary(r, "sinh", f64::sinh);
    unary(r, "tan", f64::tan);
    unary(r, "tanh", f64::tanh);
    unary(r, "exp", f64::exp);
    unary(r, "sqrt", f64::sqrt);
    unary(r, "degrees", |x| x * (180.0 / std::f64::consts::PI));
    unary(r, "radians", |x| x * (std::f64::consts::PI / 180.0));
    binary(r, "atan2", f64::atan2);
    binary(r, "pow", f64::powf);
    binary(r, "power", f64::powf);
    binary(r, "mod", |x, y| x % y);
    rounding(r, "ceil", f64::ceil);
    rounding(r, "ceiling", f64::ceil);
    rounding(r, "floor", f64::floor);
    rounding(r, "trunc", f64::trunc);
    scalar(r, "pi", &[0], DETERMINISTIC, |_, _| Ok(Value::Real(std::f64::consts::PI)));
    scalar(r, "ln", &[1], DETERMINISTIC, |_, a| Ok(num(&a[0]).map_or(Value::Null, |x| log_of(x, f64::ln))));
    scalar(r, "log10", &[1], DETERMINISTIC, |_, a| Ok(num(&a[0]).map_or(Value::Null, |x| log_of(x, log10))));
    scalar(r, "log2", &[1], DETERMINISTIC, |_, a| Ok(num(&a[0]).map_or(Value::Null, |x| log_of(x, log2))));
    scalar(r, "log", &[1, 2], DETERMINISTIC, |_, a| {
        if a.len() == 1 {
            return Ok(num(&a[0]).map_or(Value::Null, |x| log_of(x, log10)));
        }
        // log(B, X): base first. A base whose logarithm is not positive
        // (B <= 1) gives NULL, as in SQLite.
        let (Some(b), Some(x)) = (num(&a[0]), num(&a[1])) else { return Ok(Value::Null) };
        if b <= 0.0 || x <= 0.0 {
            return Ok(Value::Null);
        }
        let lb = b.ln();
        if lb <= 0.0 {
            return Ok(Value::Null);
        }
        Ok(real(x.ln() / lb))
    });
}

#[cfg(test)]
mod tests {
    //! Expected values from the sqlite3 shell (math functions are not
    //! compiled into the bundled reference library).
    use super::*;
    use crate::vdbe::func::{FuncKind, FunctionContext, FunctionRegistry};

    fn call(name: &str, args: &[Value]) -> Value {
        let reg = FunctionRegistry::with_builtins();
        let def = reg.find(name, args.len()).unwrap();
        let FuncKind::Scalar(f) = &def.kind else { panic!() };
        let mut now = None;
        let mut prng = |_: &mut [u8]| {};
        let mut ctx = FunctionContext {
            last_insert_rowid: 0,
            changes: 0,
            total_changes: 0,
            case_sensitive_like: false,
            now_jd_ms: &mut now,
            clock: None,
            arg_subtypes: &[],
            arg_from_bind: &[],
            result_subtype: 0,
            prng: &mut prng,
            pure_context: None,
            func_name: name,
            max_like_pattern: 50_000,
            host: None,
        };
        f.call(&mut ctx, args).unwrap()
    }

    fn r(x: f64) -> Value {
        Value::Real(x)
    }

    #[test]
    fn domains_and_types() {
        let i = Value::Integer;
        assert!(matches!(call("sqrt", &[i(-1)]), Value::Null));
        assert!(matches!(call("ln", &[i(0)]), Value::Null));
        assert!(matches!(call("log", &[i(-1)]), Value::Null));
        assert!(matches!(call("acos", &[i(2)]), Value::Null));
        assert!(matches!(call("sqrt", &[Value::text("4x")]), Value::Null));
        assert!(matches!(call("sqrt", &[Value::text(" 4 ")]), Value::Real(x) if x == 2.0));
        assert!(matches!(call("ceil", &[i(5)]), Value::Integer(5)));
        assert!(matches!(call("ceil", &[r(1.2)]), Value::Real(x) if x == 2.0));
        assert!(matches!(call("floor", &[r(-1.2)]), Value::Real(x) if x == -2.0));
        assert!(matches!(call("trunc", &[r(-1.7)]), Value::Real(x) if x == -1.0));
        assert!(matches!(call("mod", &[i(7), i(-3)]), Value::Real(x) if x == 1.0));
        assert!(matches!(call("mod", &[i(7), i(0)]), Value::Null));
        assert!(matches!(call("log", &[i(2), i(8)]), Value::Real(x) if (x - 3.0).abs() < 1e-15));
        assert!(matches!(call("log", &[i(100)]), Value::Real(x) if x == 2.0));
        assert!(matches!(call("pow", &[i(2), r(0.5)]), Value::Real(x) if x == std::f64::consts::SQRT_2));
        assert!(matches!(call("pi", &[]), Value::Real(x) if x == std::f64::consts::PI));
        assert!(matches!(call("degrees", &[call("pi", &[])]), Value::Real(x) if x == 180.0));
    }
}
