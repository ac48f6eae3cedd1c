//! # Built-in window functions
//!
//! row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead
//! (the *partition* functions) and first_value, last_value, nth_value (the
//! *frame* functions), as aggregate states the VM drives. The protocol the
//! VM must follow:
//!
//! **Frame functions** (first_value, last_value, nth_value) follow the
//! ordinary aggregate-window protocol: `step(args)` when a row enters the
//! frame, `inverse(args)` when the oldest row leaves it, `value()` for the
//! current row's result. Arguments are the SQL arguments (`expr`, and `N`
//! for nth_value).
//!
//! **Partition functions** ignore the frame. For each partition the VM
//! creates a fresh state, calls `step` once for *every* row of the
//! partition in window order, then calls `value()` once per row in the
//! same order (the state keeps a cursor), then `finalize`. `step`'s
//! arguments:
//! - row_number(): none;
//! - rank(), dense_rank(), percent_rank(), cume_dist() (registered with
//!   0 SQL arguments; the VM adds this one): one argument,
//!   `Integer(1)` when the row starts a new peer group, else `Integer(0)`
//!   (the first row of a partition always starts one; without ORDER BY all
//!   rows are peers, so only the first row gets 1);
//! - ntile(N): `N`; lag/lead(expr[, offset[, default]]): the SQL arguments.
//!
//! Errors are SQLite's: "argument of ntile must be a positive integer",
//! "second argument to nth_value must be a positive integer".

use super::conv::{numeric_value, value_i64};
use super::{aggregate, DETERMINISTIC};
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::func::{AggregateState, FunctionContext, FunctionRegistry};
use std::collections::VecDeque;

/// How the VM drives a built-in used as a window function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowProtocol {
    /// Ordinary aggregate protocol over the frame (every aggregate, and
    /// first_value/last_value/nth_value).
    Frame,
    /// Step every partition row, then one value per row; frame ignored.
    Partition,
    /// Like `Partition`, with the VM adding the new-peer-group flag as the
    /// only argument (rank, dense_rank, percent_rank, cume_dist).
    PartitionWithPeers,
}

/// The protocol for the built-in named `name` (case-insensitive).
pub fn protocol(name: &str) -> WindowProtocol {
    match name.ascii_lower().as_str() {
        "rank" | "dense_rank" | "percent_rank" | "cume_dist" => WindowProtocol::PartitionWithPeers,
        "row_number" | "ntile" | "lag" | "lead" => WindowProtocol::Partition,
        _ => WindowProtocol::Frame,
    }
}

/// Register the window functions.
pub fn register(r: &mut FunctionRegistry) {
    let d = DETERMINISTIC;
    aggregate(r, "row_number", &[0], d, false, || Box::new(Partition::new(Kind::RowNumber)));
    aggregate(r, "rank", &[0], d, false, || Box::new(Partition::new(Kind::Rank)));
    aggregate(r, "dense_rank", &[0], d, false, || Box::new(Partition::new(Kind::DenseRank)));
    aggregate(r, "percent_rank", &[0], d, false, || Box::new(Partition::new(Kind::PercentRank)));
    aggregate(r, "cume_dist", &[0], d, false, || Box::new(Partition::new(Kind::CumeDist)));
    aggregate(r, "ntile", &[1], d, false, || Box::new(Partition::new(Kind::Ntile)));
    aggregate(r, "lag", &[1, 2, 3], d, false, || Box::new(Partition::new(Kind::Lag)));
    aggregate(r, "lead", &[1, 2, 3], d, false, || Box::new(Partition::new(Kind::Lead)));
    aggregate(r, "first_value", &[1], d, true, || Box::new(Frame::new(FrameKind::First)));
    aggregate(r, "last_value", &[1], d, true, || Box::new(Frame::new(FrameKind::Last)));
    aggregate(r, "nth_value", &[2], d, true, || Box::new(Frame::new(FrameKind::Nth)));
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
}

/// A partition function: all rows' arguments, then one value per row.
struct Partition {
    kind: Kind,
    rows: Vec<Vec<Value>>,
    /// Index of the row the next `value()` is for.
    cursor: usize,
    /// Per row (rank, dense rank, end of its peer group), computed once
    /// at the first `value()` so the partition costs linear time.
    peers: Vec<(i64, i64, usize)>,
}

impl Partition {
    fn new(kind: Kind) -> Self {
        Partition { kind, rows: Vec::new(), cursor: 0, peers: Vec::new() }
    }

    fn compute_peers(&mut self) {
        let n = self.rows.len();
        self.peers = Vec::with_capacity(n);
        let (mut rank, mut dense) = (0i64, 0i64);
        for i in 0..n {
            if self.new_peer(i) {
                rank = i as i64 + 1;
                dense += 1;
            }
            self.peers.push((rank, dense, 0));
        }
        let mut end = n;
        for i in (0..n).rev() {
            self.peers[i].2 = end;
            if self.new_peer(i) {
                end = i;
            }
        }
    }

    fn new_peer(&self, i: usize) -> bool {
        i == 0 || self.rows[i].first().is_none_or(|v| value_i64(v) != 0)
    }

    fn value_at(&self, i: usize) -> Result<Value> {
        let n = self.rows.len() as i64;
        Ok(match self.kind {
            Kind::RowNumber => Value::Integer(i as i64 + 1),
            Kind::Rank => Value::Integer(self.peers[i].0),
            Kind::DenseRank => Value::Integer(self.peers[i].1),
            Kind::PercentRank => {
                let rank = self.peers[i].0 - 1;
                Value::Real(if n > 1 { rank as f64 / (n - 1) as f64 } else { 0.0 })
            }
            Kind::CumeDist => Value::Real(self.peers[i].2 as f64 / n as f64),
            Kind::Ntile => {
                let buckets = value_i64(&self.rows[i][0]);
                if buckets <= 0 {
                    return Err(Error::sql("argument of ntile must be a positive integer"));
                }
                let size = n / buckets;
                let i = i as i64;
                if size == 0 {
                    Value::Integer(i + 1)
                } else {
                    let large = n - buckets * size;
                    let in_large = large * (size + 1);
                    if i < in_large {
                        Value::Integer(i / (size + 1) + 1)
                    } else {
                        Value::Integer((i - in_large) / size + 1 + large)
                    }
                }
            }
            Kind::Lag | Kind::Lead => {
                let args = &self.rows[i];
                let offset = args.get(1).map_or(1, value_i64);
                let target = if self.kind == Kind::Lag { (i as i64).checked_sub(offset) } else { (i as i64).checked_add(offset) };
                match target {
                    Some(t) if (0..n).contains(&t) => self.rows[t as usize][0].clone(),
                    _ => args.get(2).cloned().unwrap_or(Value::Null),
                }
            }
        })
    }
}

impl AggregateState for Partition {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if self.kind == Kind::Ntile && self.rows.is_empty() && value_i64(&args[0]) <= 0 {
            return Err(Error::sql("argument of ntile must be a positive integer"));
        }
        self.rows.push(args.to_vec());
        Ok(())
    }

    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        if self.rows.is_empty() {
            return Ok(Value::Null);
        }
        if self.peers.len() != self.rows.len() {
            self.compute_peers();
        }
        let i = self.cursor.min(self.rows.len() - 1);
        self.cursor += 1;
        self.value_at(i)
    }

    fn finalize(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        Ok(Value::Null)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    First,
    Last,
    Nth,
}

/// A frame function: the frame's rows, oldest first.
struct Frame {
    kind: FrameKind,
    rows: VecDeque<Value>,
    /// nth_value's N, from the most recent row.
    n: i64,
}

impl Frame {
    fn new(kind: FrameKind) -> Self {
        Frame { kind, rows: VecDeque::new(), n: 1 }
    }
}

/// nth_value's N: a positive integer (an integral REAL counts).
fn nth_argument(v: &Value) -> Result<i64> {
    let bad = || Error::sql("second argument to nth_value must be a positive integer");
    let n = match numeric_value(v) {
        Value::Integer(i) if !matches!(v, Value::Blob(_)) => i,
        Value::Real(r) => {
            if (r as i64) as f64 != r {
                return Err(bad());
            }
            r as i64
        }
        _ => return Err(bad()),
    };
    if n <= 0 {
        return Err(bad());
    }
    Ok(n)
}

impl AggregateState for Frame {
    fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        if self.kind == FrameKind::Nth {
            self.n = nth_argument(&args[1])?;
        }
        self.rows.push_back(args[0].clone());
        Ok(())
    }

    fn inverse(&mut self, _: &mut FunctionContext<'_>, _: &[Value]) -> Result<()> {
        self.rows.pop_front();
        Ok(())
    }

    fn value(&mut self, _: &mut FunctionContext<'_>) -> Result<Value> {
        let v = match self.kind {
            FrameKind::First => self.rows.front(),
            FrameKind::Last => self.rows.back(),
            FrameKind::Nth => self.rows.get((self.n - 1) as usize),
        };
        Ok(v.cloned().unwrap_or(Value::Null))
    }

    fn finalize(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        self.value(ctx)
    }
}
