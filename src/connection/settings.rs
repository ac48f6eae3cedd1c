//! The connection's limits and settings: the `SQLITE_LIMIT_*` values
//! (SQLite 3.54's defaults, clamped to its compile-time maxima),
//! `sqlite3_db_config` flags, the busy timeout and handler.
//!
//! Invariant: every limit stays within `0..=LIMIT_HARD_MAX[id]`; the
//! copies the VM reads (`ConnState::max_length`, `max_like_pattern`,
//! `max_trigger_depth`, `worker_threads`, `max_schema_objects`) change
//! together with it (checked: limits_in_range).

use super::{ConfigFlag, Connection};
use crate::vdbe::BusyHandler;

/// How many `SQLITE_LIMIT_*` categories there are (LENGTH .. TRIGGER_STEPS).
pub(super) const LIMIT_COUNT: usize = 15;
/// `SQLITE_LIMIT_LENGTH`: the longest string or blob.
pub const LIMIT_LENGTH: i32 = 0;
/// `SQLITE_LIMIT_SQL_LENGTH`: the longest SQL text `prepare` accepts.
pub const LIMIT_SQL_LENGTH: i32 = 1;
/// `SQLITE_LIMIT_COLUMN`: columns of a table, index, result set, terms
/// of ORDER BY and GROUP BY.
pub(super) const LIMIT_COLUMN: i32 = 2;
/// `SQLITE_LIMIT_EXPR_DEPTH`: the highest expression tree.
pub(super) const LIMIT_EXPR_DEPTH: i32 = 3;
/// `SQLITE_LIMIT_COMPOUND_SELECT`: terms of a compound SELECT.
pub(super) const LIMIT_COMPOUND_SELECT: i32 = 4;
/// `SQLITE_LIMIT_VDBE_OP`: instructions of one program.
pub(super) const LIMIT_VDBE_OP: i32 = 5;
/// `SQLITE_LIMIT_FUNCTION_ARG`: arguments of a function call.
pub(super) const LIMIT_FUNCTION_ARG: i32 = 6;
/// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH`: the longest LIKE or GLOB pattern.
pub(super) const LIMIT_LIKE_PATTERN_LENGTH: i32 = 8;
/// `SQLITE_LIMIT_VARIABLE_NUMBER`: the largest parameter number.
pub(super) const LIMIT_VARIABLE_NUMBER: i32 = 9;
/// `SQLITE_LIMIT_TRIGGER_DEPTH`.
pub(super) const LIMIT_TRIGGER_DEPTH: i32 = 10;
/// `SQLITE_LIMIT_WORKER_THREADS` (also `PRAGMA threads`).
pub(super) const LIMIT_WORKER_THREADS: i32 = 11;
/// `SQLITE_LIMIT_PARSER_DEPTH`: the deepest parser stack.
pub(super) const LIMIT_PARSER_DEPTH: i32 = 12;
/// `SQLITE_LIMIT_SCHEMA`: the most objects (tables, indexes, views,
/// triggers, the schema table itself) one database's schema may hold.
pub(super) const LIMIT_SCHEMA: i32 = 13;
/// `SQLITE_LIMIT_TRIGGER_STEPS`: the most statements in one trigger.
pub(super) const LIMIT_TRIGGER_STEPS: i32 = 14;
/// SQLite 3.54's default for each limit, indexed by its `SQLITE_LIMIT_*`.
pub(super) const LIMIT_DEFAULTS: [i32; LIMIT_COUNT] =
    [1_000_000_000, 1_000_000_000, 2000, 1000, 500, 250_000_000, 1000, 10, 50_000, 32766, 1000, 0, 2500, 10_000_000, 65000];
/// The compile-time maximum of each limit: a larger value is clamped to it.
pub(super) const LIMIT_HARD_MAX: [i32; LIMIT_COUNT] =
    [1_000_000_000, 1_000_000_000, 2000, 1000, 500, 250_000_000, 1000, 10, 50_000, 32766, 1000, 8, 2500, 10_000_000, 65000];

impl Connection {
    /// `PRAGMA empty_result_callbacks`: whether `sqlite3_exec` calls its
    /// callback once, with no values, for a statement that returns no row.
    pub fn empty_result_callbacks(&self) -> bool {
        let i = crate::vdbe::exec::schema::KEPT_PRAGMAS.iter().position(|(n, _)| *n == "empty_result_callbacks");
        i.is_some_and(|i| self.state.kept_pragmas[i] != 0)
    }

    /// A connection setting that `sqlite3_db_config` and a PRAGMA both
    /// reach: its value, after setting it to `set` if given (directly, even
    /// inside a transaction, as `sqlite3_db_config` does).
    pub fn config_flag(&mut self, flag: ConfigFlag, set: Option<bool>) -> bool {
        let f = match flag {
            ConfigFlag::ForeignKeys => &mut self.state.settings.foreign_keys,
            ConfigFlag::LegacyAlterTable => &mut self.state.settings.legacy_alter_table,
            ConfigFlag::WritableSchema => &mut self.state.settings.writable_schema,
            ConfigFlag::TrustedSchema => &mut self.state.settings.trusted_schema,
            ConfigFlag::DqsDml => &mut self.state.settings.dqs_dml,
            ConfigFlag::DqsDdl => &mut self.state.settings.dqs_ddl,
            ConfigFlag::Defensive => &mut self.state.settings.defensive,
            ConfigFlag::EnableTrigger => &mut self.state.settings.enable_trigger,
            ConfigFlag::EnableView => &mut self.state.settings.enable_view,
        };
        if let Some(v) = set {
            // (A changed setting expires every statement, as in SQLite.)
            if *f != v {
                *f = v;
                self.state.settings_generation += 1;
            }
        }
        *f
    }

    /// `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`: whether closing the connection
    /// leaves its WAL files alone (no checkpoint, no delete), after
    /// setting it to `set` if given; databases attached later inherit it.
    pub fn no_checkpoint_on_close(&mut self, set: Option<bool>) -> bool {
        let mut now = false;
        for (i, d) in self.state.dbs.iter_mut().enumerate() {
            let v = d.btree.pager_mut().no_checkpoint_on_close(set);
            if i == 0 {
                now = v;
            }
        }
        now
    }

    /// `sqlite3_busy_timeout`: retry locked databases for up to `ms`
    /// milliseconds (0 or less: no retry). Replaces any busy handler.
    pub fn set_busy_timeout(&mut self, ms: i32) {
        self.state.busy_timeout_ms = ms;
        self.state.busy_handler = None;
    }

    /// `sqlite3_busy_handler`: called with the retry count; returning
    /// `false` gives up with `SQLITE_BUSY`.
    pub fn set_busy_handler(&mut self, handler: Option<BusyHandler>) {
        self.state.busy_handler = handler;
        self.state.busy_timeout_ms = 0;
    }

    /// Count the busy handler's retries in `count` (shared with an
    /// application VFS's calls to the handler; see
    /// [`crate::vdbe::ConnState::shared_busy_count`]).
    pub fn share_busy_count(&mut self, count: std::sync::Arc<std::sync::atomic::AtomicI32>) {
        self.state.shared_busy_count = Some(count);
    }

    /// `sqlite3_limit`: returns the old limit; sets it when `new >= 0`.
    pub fn limit(&mut self, id: i32, new: i32) -> i32 {
        // (PRAGMA threads sets this one from a statement.)
        self.limits[LIMIT_WORKER_THREADS as usize] = self.state.worker_threads;
        let Some(slot) = usize::try_from(id).ok().and_then(|i| self.limits.get_mut(i)) else { return -1 };
        let old = *slot;
        if new >= 0 {
            // Values above the compile-time maximum are clamped to it, as
            // in SQLite; a string limit below 30 bytes would break the
            // engine's own messages, so SQLite keeps at least that.
            let hard = LIMIT_HARD_MAX[id as usize];
            let floor = if id == LIMIT_LENGTH { 30 } else { 0 };
            *slot = new.clamp(floor, hard);
            if id == LIMIT_LENGTH {
                self.state.max_length = i64::from(*slot);
            }
            if id == LIMIT_LIKE_PATTERN_LENGTH {
                self.state.max_like_pattern = *slot as usize;
            }
            if id == LIMIT_TRIGGER_DEPTH {
                self.state.max_trigger_depth = *slot as usize;
            }
            if id == LIMIT_WORKER_THREADS {
                self.state.worker_threads = *slot;
            }
            if id == LIMIT_SCHEMA {
                self.state.max_schema_objects = *slot as usize;
            }
        }
        // invariant: limits_in_range
        debug_assert!(
            self.limits.iter().zip(LIMIT_HARD_MAX).all(|(v, hard)| (0..=hard).contains(v))
                && self.state.max_length == i64::from(self.limits[LIMIT_LENGTH as usize])
                && self.state.max_like_pattern == self.limits[LIMIT_LIKE_PATTERN_LENGTH as usize] as usize
                && self.state.max_trigger_depth == self.limits[LIMIT_TRIGGER_DEPTH as usize] as usize
                && self.state.max_schema_objects == self.limits[LIMIT_SCHEMA as usize] as usize,
            "limits {:?} out of range or out of step with the VM's copies",
            self.limits
        );
        old
    }

    /// The current value of one `SQLITE_LIMIT_*` (-1 for an unknown one).
    pub fn limit_value(&self, id: i32) -> i32 {
        if id == LIMIT_WORKER_THREADS {
            return self.state.worker_threads;
        }
        usize::try_from(id).ok().and_then(|i| self.limits.get(i)).copied().unwrap_or(-1)
    }
}
