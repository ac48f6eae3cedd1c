//! Schema changes on disk: `CreateBtree`, `Destroy`, `Clear`,
//! `ParseSchema` (flags the connection to reload its schema after the
//! statement), `DropTable`/`DropIndex` (same), `IntegrityCk`.

use super::{set_reg, Flow};
use crate::btree::TreeKind;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::{ConnState, Vm};
use std::task::Poll;

macro_rules! pend {
    ($e:expr) => {
        match $e? {
            Poll::Ready(v) => v,
            Poll::Pending => return Ok(Flow::Pending),
        }
    };
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    match insn.opcode {
        Opcode::CreateBtree => {
            let kind = if p3 == 2 { TreeKind::Index } else { TreeKind::Table };
            let bt = &mut env.dbs[p1 as usize].btree;
            let root = pend!(bt.create_tree(kind));
            set_reg(vm, p2, Value::Integer(root as i64));
        }
        Opcode::Destroy => {
            // Another running statement or open blob handle may have a
            // cursor on the tree (SQLite: "database table is locked").
            if env.active_statements > 1 + env.vdestroy_depth {
                return Err(crate::error::Error::code(crate::error::SQLITE_LOCKED));
            }
            let bt = &mut env.dbs[p3 as usize].btree;
            let moved = pend!(bt.drop_tree(p1 as u32));
            set_reg(vm, p2, Value::Integer(moved.unwrap_or(0) as i64));
        }
        Opcode::Clear => {
            let bt = &mut env.dbs[p2 as usize].btree;
            let n = pend!(bt.clear_tree(p1 as u32));
            match p3 {
                1 => vm.n_change += n as i64,
                2 => vm.n_trigger_change += n as i64,
                _ => {}
            }
        }
        // P5 = 1: the statement only added rows at the end of the schema
        // table; 2: it only deleted rows. With auto-vacuum a new or freed
        // root page may have moved another tree's root, which rewrites an
        // older row: read everything then.
        // P3: the objects the database's schema then holds (0: not
        // counted), past SQLITE_LIMIT_SCHEMA an error as SQLite's parse of
        // the new rows meets it; the statement's changes are undone.
        Opcode::ParseSchema if p3 > 0 && p3 as usize > env.max_schema_objects => {
            return Err(Error::new(crate::error::SQLITE_ABORT, "too many schema objects"));
        }
        Opcode::ParseSchema if matches!(insn.p5, 1 | 2) && p1 < 64 => {
            let bt = &mut env.dbs[p1 as usize].btree;
            if pend!(bt.auto_vacuum_mode()) == 0 {
                vm.schema_appended = true;
                if insn.p5 == 1 {
                    env.schema_appended |= 1 << p1;
                } else {
                    env.schema_deleted |= 1 << p1;
                }
            } else {
                env.schema_changed = true;
            }
        }
        Opcode::ParseSchema | Opcode::DropTable | Opcode::DropIndex => {
            env.schema_changed = true;
        }
        Opcode::IntegrityCk => {
            let roots = match &insn.p4 {
                P4::Roots(r) => Vec::clone(r),
                _ => Vec::new(),
            };
            let bt = &mut env.dbs[p3 as usize].btree;
            if insn.p5 == 0 {
                let errs = pend!(bt.integrity_check_records(&roots, p2.max(1) as usize));
                let v = if errs.is_empty() { "ok".to_string() } else { errs.join("\n") };
                set_reg(vm, p1, Value::text(v));
            } else {
                // P2 is the register of errors still allowed: reduced by
                // those found; the result is NULL when there are none.
                let allowed = crate::value::numeric::value_to_i64(super::reg(vm, p2).as_ref()).max(1);
                let errs = pend!(bt.integrity_check_records(&roots, allowed as usize));
                set_reg(vm, p2, Value::Integer(allowed - errs.len() as i64));
                let v = if errs.is_empty() {
                    Value::Null
                } else {
                    let name = env.dbs[p3 as usize].name.clone();
                    Value::text(format!("*** in database {name} ***\n{}", errs.join("\n")))
                };
                set_reg(vm, p1, v);
            }
        }
        Opcode::Pagecount => {
            let bt = &mut env.dbs[p1 as usize].btree;
            let n = pend!(bt.page_count());
            set_reg(vm, p2, Value::Integer(n as i64));
        }
        Opcode::PragmaBtree => {
            let P4::Text(spec) = &insn.p4 else {
                return Err(super::internal("PragmaBtree without a pragma"));
            };
            let (name, value) = match spec.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (spec.as_str(), None),
            };
            // Setting one of SQLite's flag pragmas expires every statement
            // (SQLite's OP_Expire after them): a cached statement compiled
            // under the old value is compiled again before its next run.
            if value.is_some() && matches!(name, "case_sensitive_like" | "query_only" | "defer_foreign_keys" | "foreign_keys" | "writable_schema") {
                env.settings_generation += 1;
            }
            if name == "case_sensitive_like" {
                env.settings.case_sensitive_like = value.is_some_and(pragma_bool);
                return Ok(Flow::Next);
            }
            if name == "locking_mode_default" {
                env.exclusive_locking_default = value == Some("exclusive");
                return Ok(Flow::Next);
            }
            if name == "query_only" {
                match value {
                    Some(v) => env.query_only = pragma_bool(v),
                    None => set_reg(vm, p2, Value::Integer(env.query_only as i64)),
                }
                return Ok(Flow::Next);
            }
            if matches!(
                name,
                "count_changes"
                    | "ignore_check_constraints"
                    | "recursive_triggers"
                    | "legacy_alter_table"
                    | "full_column_names"
                    | "short_column_names"
                    | "trusted_schema"
            ) {
                let flag = match name {
                    "count_changes" => &mut env.settings.count_changes,
                    "full_column_names" => &mut env.settings.full_column_names,
                    "short_column_names" => &mut env.settings.short_column_names,
                    "recursive_triggers" => &mut env.settings.recursive_triggers,
                    "legacy_alter_table" => &mut env.settings.legacy_alter_table,
                    "trusted_schema" => &mut env.settings.trusted_schema,
                    _ => &mut env.settings.ignore_check_constraints,
                };
                match value {
                    Some(v) => {
                        *flag = pragma_bool(v);
                        env.settings_generation += 1;
                    }
                    None => set_reg(vm, p2, Value::Integer(*flag as i64)),
                }
                return Ok(Flow::Next);
            }
            if name == "writable_schema" {
                match value {
                    Some("reset") => {
                        env.settings.writable_schema = false;
                        env.schema_changed = true;
                    }
                    // (Under SQLITE_DBCONFIG_DEFENSIVE it cannot be turned on.)
                    Some(v) => {
                        let on = pragma_bool(v);
                        if !on || !env.settings.defensive {
                            env.settings.writable_schema = on;
                        }
                    }
                    None => set_reg(vm, p2, Value::Integer(env.settings.writable_schema as i64)),
                }
                return Ok(Flow::Next);
            }
            if name == "defer_foreign_keys" {
                match value {
                    Some(v) => {
                        env.defer_foreign_keys = pragma_bool(v);
                        env.fk_deferred.1 = 0;
                    }
                    None => set_reg(vm, p2, Value::Integer(env.defer_foreign_keys as i64)),
                }
                return Ok(Flow::Next);
            }
            if let Some(i) = KEPT_PRAGMAS.iter().position(|(n, _)| *n == name) {
                match value {
                    Some(v) => env.kept_pragmas[i] = kept_value(name, v).unwrap_or(env.kept_pragmas[i]),
                    None => set_reg(vm, p2, Value::Integer(env.kept_pragmas[i])),
                }
                if name == "temp_store" {
                    // temp_store=MEMORY keeps statement journals in memory.
                    let memory = env.kept_pragmas[i] == 2;
                    for d in env.dbs.iter_mut() {
                        d.btree.pager_mut().set_temp_store_memory(memory);
                    }
                }
                return Ok(Flow::Next);
            }
            if name == "encoding" {
                encoding_pragma(vm, p2, value, env)?;
                return Ok(Flow::Next);
            }
            if name == "analysis_limit" {
                // (Kept and read back; ANALYZE scans every row whatever
                // the limit: its statistics are the unlimited ones.)
                if let Some(n) = value.and_then(|v| v.parse::<i64>().ok()).filter(|n| *n >= 0) {
                    env.analysis_limit = (n & 0x7fff_ffff) as i32;
                }
                set_reg(vm, p2, Value::Integer(env.analysis_limit as i64));
                return Ok(Flow::Next);
            }
            if name == "soft_heap_limit" || name == "hard_heap_limit" {
                let n = value.and_then(|v| v.parse::<i64>().ok());
                let now = if name == "soft_heap_limit" {
                    crate::pager::cache::soft_heap_limit64(n.unwrap_or(-1));
                    crate::pager::cache::soft_heap_limit64(-1)
                } else {
                    // (The pragma only lowers the hard limit.)
                    let prior = crate::pager::cache::hard_heap_limit64(-1);
                    if let Some(n) = n.filter(|n| *n > 0 && (prior == 0 || prior > *n)) {
                        crate::pager::cache::hard_heap_limit64(n);
                    }
                    crate::pager::cache::hard_heap_limit64(-1)
                };
                set_reg(vm, p2, Value::Integer(now));
                return Ok(Flow::Next);
            }
            if name == "threads" {
                if let Some(n) = value.and_then(|v| v.parse::<i64>().ok()).filter(|n| *n >= 0) {
                    env.worker_threads = n.min(i64::from(MAX_WORKER_THREADS)) as i32;
                }
                set_reg(vm, p2, Value::Integer(env.worker_threads as i64));
                return Ok(Flow::Next);
            }
            if name == "step_quantum" {
                // µs; 0 or less: no quantum. Kept only where a step can
                // hand the yield to its caller (async connections).
                if let Some(v) = value {
                    let us = v.trim().parse::<i64>().unwrap_or(0).clamp(0, i64::from(i32::MAX));
                    env.step_quantum = (us > 0 && env.async_steps).then(|| std::time::Duration::from_micros(us as u64));
                }
                set_reg(vm, p2, Value::Integer(env.step_quantum.map_or(0, |q| q.as_micros() as i64)));
                return Ok(Flow::Next);
            }
            if name == "busy_timeout" {
                // (A negative timeout is none, as sqlite3_busy_timeout has it.)
                if let Some(v) = value {
                    env.busy_timeout_ms = v.trim().parse::<i64>().unwrap_or(0).clamp(0, i32::MAX as i64) as i32;
                    env.busy_handler = None;
                }
                set_reg(vm, p2, Value::Integer(env.busy_timeout_ms as i64));
                return Ok(Flow::Next);
            }
            if name == "foreign_keys" {
                match value {
                    // A no-op inside a transaction, as in SQLite.
                    Some(v) if env.autocommit => env.settings.foreign_keys = pragma_bool(v),
                    Some(_) => {}
                    None => set_reg(vm, p2, Value::Integer(env.settings.foreign_keys as i64)),
                }
                return Ok(Flow::Next);
            }
            // (A change into WAL leaves its header's transaction to this
            // statement's commit when the statement will make one.)
            let defer = env.autocommit && env.active_statements <= 1;
            let bt = &mut env.dbs[p1 as usize].btree;
            match name {
                "journal_mode" => {
                    let mode = match value {
                        Some(v) => bt.set_journal_mode(v, defer),
                        None => bt.journal_mode(),
                    };
                    set_reg(vm, p2, Value::text(mode));
                }
                "cache_size" => match value {
                    Some(v) => bt.set_cache_size(v.trim().parse().unwrap_or(-2000)),
                    None => set_reg(vm, p2, Value::Integer(bt.cache_size())),
                },
                "cache_spill" => match value {
                    // A number sets this database's spill threshold; the
                    // value read as a boolean (a word, else that number)
                    // turns spilling on or off for every database of the
                    // connection, as SQLite's connection flag does.
                    Some(v) => {
                        let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
                        let size = v.parse::<i32>().ok();
                        if let Some(n) = size {
                            bt.pager_mut().set_spill_size(n);
                        }
                        let on = match v.ascii_lower().as_str() {
                            "on" | "true" | "yes" | "full" | "extra" => true,
                            "off" | "false" | "no" => false,
                            _ => size.is_none_or(|n| n != 0),
                        };
                        for d in env.dbs.iter_mut() {
                            d.btree.pager_mut().set_cache_spill(on);
                        }
                    }
                    None => set_reg(vm, p2, Value::Integer(bt.pager().cache_spill_report())),
                },
                "synchronous" => match value {
                    Some(v) => bt.set_synchronous(synchronous_level(v)),
                    None => set_reg(vm, p2, Value::Integer(bt.synchronous() as i64)),
                },
                "page_size" => match value {
                    Some(v) => {
                        bt.set_page_size(v.trim().parse().unwrap_or(0));
                    }
                    None => set_reg(vm, p2, Value::Integer(bt.page_size() as i64)),
                },
                "wal_autocheckpoint" => {
                    if let Some(v) = value {
                        bt.set_wal_autocheckpoint(v.trim().parse::<i64>().unwrap_or(0).max(0) as u32);
                    }
                    set_reg(vm, p2, Value::Integer(bt.wal_autocheckpoint() as i64));
                }
                "wal_checkpoint" => {
                    use crate::pager::wal::CheckpointMode;
                    let mode = match value.map(|v| v.ascii_lower()).as_deref() {
                        Some("full") => CheckpointMode::Full,
                        Some("restart") => CheckpointMode::Restart,
                        Some("truncate") => CheckpointMode::Truncate,
                        _ => CheckpointMode::Passive,
                    };
                    let (busy, log, done) = pend!(bt.checkpoint(mode));
                    set_reg(vm, p2, Value::Integer(busy as i64));
                    set_reg(vm, p2 + 1, Value::Integer(log as i64));
                    set_reg(vm, p2 + 2, Value::Integer(done as i64));
                }
                "auto_vacuum" => match value {
                    Some(v) => {
                        // Refused silently on a database with tables, as in
                        // SQLite; VACUUM applies it then.
                        let mode = v.parse().unwrap_or(0);
                        // (NONE never writes, as in SQLite: an empty file
                        // stays empty, its page size still open; a file
                        // with pages cannot turn auto_vacuum off.)
                        if mode != 0 {
                            pend!(bt.set_auto_vacuum(mode));
                        }
                        env.next_auto_vacuum = Some(mode);
                    }
                    None => {
                        let mode = pend!(bt.auto_vacuum_mode());
                        set_reg(vm, p2, Value::Integer(mode as i64));
                    }
                },
                "incremental_vacuum" => {
                    let n: u32 = value.and_then(|v| v.parse().ok()).unwrap_or(0);
                    pend!(bt.incremental_vacuum((n > 0).then_some(n)));
                }
                "io_backend" => set_reg(vm, p2, Value::text(bt.io_backend())),
                "locking_mode" => {
                    // (`default`: the connection's default, which a query
                    // without a database name reports.)
                    let exclusive = match value {
                        Some("default") => env.exclusive_locking_default,
                        Some(v) => {
                            let mode = match v {
                                "exclusive" => Some(true),
                                "normal" => Some(false),
                                _ => None,
                            };
                            bt.pager_mut().set_locking_mode(mode)?
                        }
                        None => bt.pager_mut().set_locking_mode(None)?,
                    };
                    set_reg(vm, p2, Value::text(if exclusive { "exclusive" } else { "normal" }));
                }
                "data_version" => set_reg(vm, p2, Value::Integer(bt.pager().data_version() as i64)),
                "journal_size_limit" => {
                    let pager = bt.pager_mut();
                    let limit = match value {
                        Some(v) => pager.set_journal_size_limit(v.parse().unwrap_or(-1)),
                        None => pager.journal_size_limit(),
                    };
                    set_reg(vm, p2, Value::Integer(limit));
                }
                "max_page_count" => {
                    let pager = bt.pager_mut();
                    let n = pager.set_max_page_count(value.and_then(|v| v.parse().ok()).unwrap_or(0));
                    set_reg(vm, p2, Value::Integer(n as i64));
                }
                _ => return Err(super::internal("PragmaBtree: unknown pragma")),
            }
        }
        _ => return Err(super::internal("schema: unexpected opcode")),
    }
    Ok(Flow::Next)
}

/// `PRAGMA synchronous` accepts a level name or number.
fn synchronous_level(v: &str) -> u8 {
    match v.trim().ascii_lower().as_str() {
        "off" | "0" => 0,
        "normal" | "1" => 1,
        "extra" | "3" => 3,
        _ => 2,
    }
}

/// A pragma's boolean argument: `ON`/`TRUE`/`YES` or a non-zero number.
/// The PRAGMA settings a connection keeps without acting on them, with
/// SQLite's defaults: `read_uncommitted` matters only with a shared cache
/// (which ringlite does not share between connections), the sync flags
/// only on macOS, the others only for plans and checks ringlite makes its
/// own way.
/// `empty_result_callbacks` is kept here and acted on by `sqlite3_exec`
/// (in the C API), which reads it back.
pub const KEPT_PRAGMAS: [(&str, i64); 8] = [
    ("reverse_unordered_selects", 0),
    ("automatic_index", 1),
    ("cell_size_check", 0),
    ("temp_store", 0),
    ("read_uncommitted", 0),
    ("checkpoint_fullfsync", 0),
    ("fullfsync", 0),
    ("empty_result_callbacks", 0),
];

/// `SQLITE_MAX_WORKER_THREADS` of a default build.
pub const MAX_WORKER_THREADS: i32 = 8;

/// The value `PRAGMA name = v` stores (None: not one SQLite accepts, the
/// setting is left as it was).
fn kept_value(name: &str, v: &str) -> Option<i64> {
    let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
    if name == "temp_store" {
        return match v.ascii_lower().as_str() {
            "default" => Some(0),
            "file" => Some(1),
            "memory" => Some(2),
            n => n.parse::<i64>().ok().filter(|n| (0..=2).contains(n)),
        };
    }
    Some(pragma_bool(v) as i64)
}

fn pragma_bool(v: &str) -> bool {
    let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
    match v.ascii_lower().as_str() {
        "on" | "true" | "yes" => true,
        "off" | "false" | "no" | "none" => false,
        n => n.parse::<i64>().is_ok_and(|i| i != 0),
    }
}

/// `PRAGMA encoding`: the connection's encoding (into register `out`),
/// or setting it, which only a connection whose main and temp databases
/// are still empty does (later it is ignored, as in SQLite).
fn encoding_pragma(vm: &mut Vm, out: i32, value: Option<&str>, env: &mut ConnState) -> Result<()> {
    use crate::value::encoding::TextEncoding;
    let Some(v) = value else {
        set_reg(vm, out, Value::text(env.text_encoding.name()));
        return Ok(());
    };
    let main = &mut env.dbs[0].btree;
    let empty = env.io.block_on(|| main.page_count())? == 0 && !env.temp_used;
    if !empty {
        return Ok(());
    }
    // (An unknown name is an error only while it could take effect.)
    let Some(enc) = TextEncoding::from_pragma(v) else {
        return Err(Error::sql(format!("unsupported encoding: {v}")));
    };
    if enc != env.text_encoding {
        env.text_encoding = enc;
        for d in env.dbs.iter_mut() {
            let bt = &mut d.btree;
            if env.io.block_on(|| bt.page_count()).unwrap_or(1) == 0 {
                bt.set_text_encoding(enc);
            }
        }
        env.settings_generation += 1;
    }
    Ok(())
}
