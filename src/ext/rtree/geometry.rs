//! # Custom R*Tree queries: `id MATCH shape(...)` (rtree.txt §6)
//!
//! An application registers a query function (the C API's
//! `sqlite3_rtree_query_callback` and the older
//! `sqlite3_rtree_geometry_callback`, both built on [`register`]). Its SQL
//! function, called as `shape(p1, p2, ...)`, returns a *match argument*:
//! a blob naming the callback (an id in a process-wide table, never a
//! pointer, so a forged blob can reach nothing but a registered callback)
//! and holding the call's arguments as a record. `xFilter` turns each
//! MATCH argument back into a [`GeometryMatch`] and walks the tree as the
//! documentation describes: a priority queue of nodes and entries ordered
//! by score (then level, then arrival), a node handing out one child per
//! visit and going back into the queue while it has more; every child is
//! offered to the callbacks, which answer how much of its box lies in the
//! shape and with what score.
//!
//! Invariants: a match argument names a callback that is still registered
//! or the query fails with SQLite's error for a MATCH the module cannot
//! use (checked: rtree_match_registered); the callback's per-query state ([`GeometryMatch`]) lives as long as
//! the cursor's walk and is dropped when the walk ends or restarts (the C
//! layer frees the callback's `pUser` there, as SQLite does at the end of
//! the query).

use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// `eWithin`: the box is outside the shape.
pub const NOT_WITHIN: i32 = 0;
/// `eWithin`: the box overlaps the shape.
pub const PARTLY_WITHIN: i32 = 1;
/// `eWithin`: the box is inside the shape.
pub const FULLY_WITHIN: i32 = 2;

/// What a callback is told about one node box or entry.
pub struct Probe<'a> {
    /// Lower and upper bound per dimension.
    pub coords: &'a [f64],
    /// 0 for an entry, the node's height above the leaves otherwise.
    pub level: i32,
    /// The root's level.
    pub max_level: i32,
    /// The entry's id (an entry only).
    pub rowid: i64,
    /// Score and visibility the callbacks gave the containing node.
    pub parent_score: f64,
    pub parent_within: i32,
    /// Entries waiting in the priority queue, per level.
    pub queue: &'a [u32],
}

/// A registered query function.
pub trait GeometryCallback: Send + Sync {
    /// One MATCH of one query: `params` are the function's arguments as
    /// numbers, `values` as they were passed.
    fn start(&self, params: Vec<f64>, values: Vec<Value>) -> Result<Box<dyn GeometryMatch>>;
}

/// The per-query state of a MATCH.
pub trait GeometryMatch: Send {
    /// How much of the box lies in the shape ([`NOT_WITHIN`],
    /// [`PARTLY_WITHIN`], [`FULLY_WITHIN`]) and its score (smaller scores
    /// are visited first).
    fn test(&mut self, probe: &Probe<'_>) -> Result<(i32, f64)>;
}

const MAGIC: &[u8; 16] = b"ringlite-rtree\x00\x01";

type Registry = Mutex<HashMap<u64, Weak<dyn GeometryCallback>>>;

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The SQL function of a registered callback: it returns the match
/// argument. It owns the callback; the registry only refers to it.
struct ShapeFunction {
    id: u64,
    _callback: Arc<dyn GeometryCallback>,
}

impl ScalarFunction for ShapeFunction {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let mut blob = MAGIC.to_vec();
        blob.extend_from_slice(&self.id.to_le_bytes());
        blob.extend_from_slice(&crate::value::record::encode_record(args));
        Ok(Value::Blob(blob))
    }
}

impl Drop for ShapeFunction {
    fn drop(&mut self) {
        if let Ok(mut r) = registry().lock() {
            r.remove(&self.id);
        }
    }
}

/// Register `name` as a query function on `conn` (replacing one of that
/// name, whose callback is dropped once no statement uses it).
pub fn register(conn: &mut Connection, name: &str, callback: Arc<dyn GeometryCallback>) -> Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    registry().lock().map_err(|_| Error::sql("rtree: registry poisoned"))?.insert(id, Arc::downgrade(&callback));
    let f = Arc::new(ShapeFunction { id, _callback: callback });
    let flags = FuncFlags { deterministic: false, direct_only: false, innocuous: false, subtype: false, builtin: false };
    conn.create_function(FuncDef { name: name.to_string(), n_args: -1, flags, kind: FuncKind::Scalar(f) })
}

/// SQLite's error for a MATCH whose right side is not a match argument.
pub(super) fn bad_match() -> Error {
    Error::code(crate::error::SQLITE_ERROR)
}

/// The match state for a MATCH argument `v` (see the module doc).
pub(super) fn start_match(v: &Value) -> Result<Box<dyn GeometryMatch>> {
    let Value::Blob(b) = v else { return Err(bad_match()) };
    if b.len() < MAGIC.len() + 8 || &b[..MAGIC.len()] != MAGIC {
        return Err(bad_match());
    }
    let mut id = [0u8; 8];
    id.copy_from_slice(&b[MAGIC.len()..MAGIC.len() + 8]);
    // invariant: rtree_match_registered
    let Some(callback) = registry().lock().ok().and_then(|r| r.get(&u64::from_le_bytes(id)).and_then(Weak::upgrade)) else { return Err(bad_match()) };
    let values = crate::value::record::decode_record(&b[MAGIC.len() + 8..]).map_err(|_| bad_match())?;
    let params = values.iter().map(as_double).collect();
    callback.start(params, values)
}

/// `sqlite3_value_double` of a value.
fn as_double(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) => crate::value::numeric::text_to_numeric(t).map_or(0.0, |n| n.as_ref().to_f64()),
        _ => 0.0,
    }
}
