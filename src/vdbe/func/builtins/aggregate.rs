//! # Aggregate functions (`lang_aggfunc`)
//!
//! count(*), count(X), sum, total, avg, min, max, group_concat (1 and 2
//! arguments) and string_agg. All but min/max have an `inverse`, so they
//! work over moving window frames; min/max do not (as in SQLite, a moving
//! frame must recompute them from the frame's rows).
//!
//! sum/total/avg keep an exact integer sum while every input is an
//! integer, and switch to Kahan–Babuška–Neumaier compensated summation of
//! doubles at the first non-integer input or integer overflow; sum() of
//! integers that overflowed is the error "integer overflow" (unless a
//! non-integer follows the overflow).

use super::conv::{compare, numeric_value, value_f64, value_i64, value_text};
use super::{aggregate, DETERMINISTIC};
use crate::error::{Error, Result};
use crate::value::collation::Collation;
use crate::value::Value;
use crate::vdbe::func::{AggregateState, FunctionContext, FunctionRegistry};
use std::cmp::Ordering;
use std::collections::VecDeque;

/// Register the aggregates.
pub fn register(r: &mut FunctionRegistry) {
    let d = DETERMINISTIC;
    aggregate(r, "count", &[0, 1], d, true, || Box::new(Count(0)));
    aggregate(r, "sum", &[1], d, true, || Box::new(Sum::new(SumKind::Sum)));
    aggregate(r, "total", &[1], d, true, || Box::new(Sum::new(SumKind::Total)));
    aggregate(r, "avg", &[1], d, true, || Box::new(Sum::new(SumKind::Avg)));
    aggregate(r, "min", &[1], d, false, || Box::new(MinMax { best: None, is_max: false, coll: None }));
    aggregate(r, "max", &[1], d, false, || Box::new(MinMax { best: None, is_max: true, coll: None }));
    aggregate(r, "group_concat", &[1, 2], d, true, || Box::new(GroupConcat::default()));
    aggregate(r, "string_agg", &[2], d, true, || Box::new(GroupConcat::default()));
}

/// count(*) (no arguments: every row) and count(X) (non-NULL rows).
struct Count(i64);

impl AggregateState for Count {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if args.first().is_none_or(|a| !a.is_null()) {
            self.0 += 1;
        }
        Ok(())
    }
    fn inverse(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if args.first().is_none_or(|a| !a.is_null()) {
            self.0 -= 1;
        }
        Ok(())
    }
    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        Ok(Value::Integer(self.0))
    }
    fn finalize(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        Ok(Value::Integer(self.0))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SumKind {
    Sum,
    Total,
    Avg,
}

/// Shared state of sum(), total() and avg().
struct Sum {
    kind: SumKind,
    /// Exact sum while `approx` is false.
    int_sum: i64,
    /// Compensated sum and its error term once `approx` is true.
    real_sum: f64,
    real_err: f64,
    /// Non-NULL rows currently summed.
    count: i64,
    /// A non-integer was seen or the integer sum overflowed.
    approx: bool,
    /// The integer sum overflowed (an error for sum()).
    overflow: bool,
}

/// Doubles beyond ±2^52 cannot hold every integer: such integers are added
/// in two parts so that no bits are lost.
const EXACT_LIMIT: i64 = 4_503_599_627_370_496;

impl Sum {
    fn new(kind: SumKind) -> Sum {
        Sum { kind, int_sum: 0, real_sum: 0.0, real_err: 0.0, count: 0, approx: false, overflow: false }
    }

    fn kbn_add(&mut self, r: f64) {
        let s = self.real_sum;
        let t = s + r;
        if s.abs() > r.abs() {
            self.real_err += (s - t) + r;
        } else {
            self.real_err += (r - t) + s;
        }
        self.real_sum = t;
    }

    fn kbn_add_int(&mut self, v: i64) {
        if !(-EXACT_LIMIT < v && v < EXACT_LIMIT) {
            let small = v % 16384;
            self.kbn_add((v - small) as f64);
            self.kbn_add(small as f64);
        } else {
            self.kbn_add(v as f64);
        }
    }

    fn start_approx(&mut self) {
        self.approx = true;
        let v = self.int_sum;
        if !(-EXACT_LIMIT < v && v < EXACT_LIMIT) {
            let small = v % 16384;
            self.real_sum = (v - small) as f64;
            self.real_err = small as f64;
        } else {
            self.real_sum = v as f64;
            self.real_err = 0.0;
        }
    }

    fn approx_total(&self) -> f64 {
        if self.real_err.is_finite() {
            self.real_sum + self.real_err
        } else {
            self.real_sum
        }
    }

    /// The result as SQLite gives it: a NaN (from `+inf` and `-inf` summed)
    /// is NULL, as every NaN a function returns.
    fn result(&self) -> Result<Value> {
        self.raw_result().map(|v| match v {
            Value::Real(r) if r.is_nan() => Value::Null,
            v => v,
        })
    }

    fn raw_result(&self) -> Result<Value> {
        match self.kind {
            SumKind::Sum => {
                if self.count == 0 {
                    Ok(Value::Null)
                } else if self.approx {
                    if self.overflow {
                        Err(Error::sql("integer overflow"))
                    } else {
                        Ok(Value::Real(self.approx_total()))
                    }
                } else {
                    Ok(Value::Integer(self.int_sum))
                }
            }
            SumKind::Total => Ok(Value::Real(if self.approx { self.approx_total() } else { self.int_sum as f64 })),
            SumKind::Avg => {
                if self.count == 0 {
                    return Ok(Value::Null);
                }
                let total = if self.approx { self.approx_total() } else { self.int_sum as f64 };
                Ok(Value::Real(total / self.count as f64))
            }
        }
    }
}

impl AggregateState for Sum {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        let v = &args[0];
        // An exact integer sum taking an integer (the usual row): added.
        if let (Value::Integer(i), false) = (v, self.approx) {
            if let Some(s) = self.int_sum.checked_add(*i) {
                self.count += 1;
                self.int_sum = s;
                return Ok(());
            }
        }
        if v.is_null() {
            return Ok(());
        }
        self.count += 1;
        match numeric_value(v) {
            Value::Integer(i) if !matches!(v, Value::Blob(_)) => {
                if !self.approx {
                    match self.int_sum.checked_add(i) {
                        Some(s) => self.int_sum = s,
                        None => {
                            self.overflow = true;
                            self.start_approx();
                            self.kbn_add_int(i);
                        }
                    }
                } else {
                    self.kbn_add_int(i);
                }
            }
            _ => {
                if !self.approx {
                    self.start_approx();
                }
                // A non-integer after an overflow makes the sum an
                // approximate one, not an error (as SQLite's sumStep).
                self.overflow = false;
                self.kbn_add(value_f64(v));
            }
        }
        Ok(())
    }

    fn inverse(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        let v = &args[0];
        if v.is_null() {
            return Ok(());
        }
        self.count -= 1;
        let as_int = match numeric_value(v) {
            Value::Integer(i) if !matches!(v, Value::Blob(_)) => Some(i),
            _ => None,
        };
        if !self.approx {
            match self.int_sum.checked_sub(value_i64(v)) {
                Some(s) => self.int_sum = s,
                None => {
                    self.overflow = true;
                    self.approx = true;
                }
            }
        } else if let Some(i) = as_int {
            if i != i64::MIN {
                self.kbn_add_int(-i);
            } else {
                self.kbn_add_int(i64::MAX);
                self.kbn_add_int(1);
            }
        } else {
            self.kbn_add(-value_f64(v));
        }
        Ok(())
    }

    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        self.result()
    }

    fn finalize(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        self.result()
    }
}

/// A min(X)/max(X) state comparing text under `coll` (the registered
/// aggregates use BINARY; see `super::with_collation`).
pub fn min_max_state(is_max: bool, coll: Option<Collation>) -> Box<dyn AggregateState> {
    Box::new(MinMax { best: None, is_max, coll })
}

/// min(X)/max(X): the least/greatest non-NULL value (the first of equal
/// values wins).
struct MinMax {
    best: Option<Value>,
    is_max: bool,
    coll: Option<Collation>,
}

impl MinMax {
    /// Take `v` when it beats the best value; whether it did.
    fn offer(&mut self, v: &Value) -> bool {
        if v.is_null() {
            return false;
        }
        let replace = match &self.best {
            None => true,
            Some(b) => {
                let c = compare(b, v, self.coll.as_ref());
                if self.is_max {
                    c == Ordering::Less
                } else {
                    c == Ordering::Greater
                }
            }
        };
        if replace {
            match &mut self.best {
                Some(b) => crate::vdbe::register::assign(b, v),
                None => self.best = Some(v.clone()),
            }
        }
        replace
    }
}

impl AggregateState for MinMax {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        self.offer(&args[0]);
        Ok(())
    }
    fn tells_choice(&self) -> bool {
        true
    }
    fn step_choosing(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<bool> {
        let had_none = self.best.is_none();
        let replaced = self.offer(&args[0]);
        Ok(had_none || replaced)
    }
    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        Ok(self.best.clone().unwrap_or(Value::Null))
    }
    fn finalize(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        Ok(self.best.take().unwrap_or(Value::Null))
    }
}

/// group_concat(X[,SEP]) / string_agg(X,SEP). Each non-NULL value after the
/// first is preceded by the separator given on its own row (',' when
/// there is no separator argument; NULL separators add nothing). The text
/// is kept in one buffer with each entry's extent, so that `inverse` drops
/// the oldest entry and `value` is a copy, both without rescanning.
#[derive(Default)]
struct GroupConcat {
    buf: Vec<u8>,
    /// Start of the live text in `buf` (entries before it were removed).
    start: usize,
    /// Per live entry, oldest first: (length in `buf` including its
    /// separator, length of that separator).
    entries: VecDeque<(usize, usize)>,
}

impl AggregateState for GroupConcat {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if args[0].is_null() {
            return Ok(());
        }
        let sep = if self.entries.is_empty() {
            Vec::new()
        } else if args.len() == 2 {
            value_text(&args[1]).unwrap_or_default()
        } else {
            b",".to_vec()
        };
        let val = value_text(&args[0]).unwrap_or_default();
        if (self.buf.len() - self.start + sep.len() + val.len()) as i64 > super::core::MAX_LENGTH {
            return Err(Error::too_big());
        }
        self.buf.extend_from_slice(&sep);
        self.buf.extend_from_slice(&val);
        self.entries.push_back((sep.len() + val.len(), sep.len()));
        Ok(())
    }

    fn inverse(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if args[0].is_null() {
            return Ok(());
        }
        if let Some((len, _)) = self.entries.pop_front() {
            self.start += len;
        }
        if self.entries.is_empty() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 4096 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(())
    }

    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        let Some(&(_, first_sep)) = self.entries.front() else { return Ok(Value::Null) };
        // The oldest live entry's separator is not shown.
        Ok(Value::Text(self.buf[self.start + first_sep..].to_vec()))
    }

    fn finalize(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        self.value(ctx)
    }
}
