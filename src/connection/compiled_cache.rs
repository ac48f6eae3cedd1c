//! # The connection's cache of compiled programs
//!
//! Re-preparing SQL this connection already compiled (an ORM's statement
//! cache missing, a `sqlite3_exec` loop) costs a lookup and a reference
//! count instead of a parse and a compile: SQLite has no such cache, it
//! is ringlite's (issue #22). It must be invisible, so an entry is used
//! only while everything a compile reads is as it was:
//!
//! - the key is the exact input bytes handed to prepare (so the tail,
//!   an offset into them, is the same), up to [`MAX_KEY_BYTES`];
//! - the [`CompileStamp`] holds every input of a compile that is not the
//!   text: the schema generation (bumped on each schema (re)load, which
//!   is how a change by another connection reaches this one too), the
//!   ATTACH/DETACH and settings generations, the compile-time settings,
//!   the limits, the page size, temp use, the connection's kind, whether
//!   a pre-update hook is set; an entry is used only under an equal stamp;
//! - function, collation and module registration or removal empties the
//!   cache (`Connection::forget_compiled`): a new overload changes what a
//!   fresh compile resolves to without expiring anything in SQLite;
//! - with an authorizer installed the cache is neither read nor filled
//!   (the authorizer is called by every prepare);
//! - only statements whose compile reads nothing else are kept: SELECT,
//!   INSERT, UPDATE, DELETE and the transaction statements, not EXPLAIN,
//!   and not a program that uses a virtual table (`xBestIndex` is the
//!   application's, called at each prepare) or asked a database file
//!   anything; failed compiles are never kept;
//! - the prepare flags of `sqlite3_prepare_v3` do not reach the engine
//!   (none changes a compile here): were one to, it would join the stamp.
//!
//! A text is kept from its second compile on (the first only notes its
//! hash): preparing a stream of distinct texts then costs a lookup and a
//! note, not a key copy and an eviction each.
//!
//! Invariant: a hit yields a program equal to what compiling the same
//! text would give now; the cache holds at most [`CAPACITY`] entries,
//! the least recently used going first (checked: compiled_cache_capacity).

use crate::util::fast_hash::FastHasher;
use crate::vdbe::program::{Opcode, Program};
use crate::vdbe::settings::Settings;
use std::hash::Hasher;
use std::sync::Arc;

/// Entries kept per connection.
pub const CAPACITY: usize = 64;
/// Longer inputs (a whole script handed to `sqlite3_exec`) are not kept:
/// hashing and holding them would cost more than they save.
pub const MAX_KEY_BYTES: usize = 8192;

/// Everything besides the SQL text that a compile reads.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CompileStamp {
    pub schema_generation: u64,
    pub attach_generation: u64,
    pub settings_generation: u64,
    pub settings: Settings,
    pub limits: [i32; super::settings::LIMIT_COUNT],
    pub page_size: u32,
    pub temp_listed: bool,
    pub memory: bool,
    pub internal: bool,
    pub no_vtab: bool,
    pub shadows_read_only: bool,
    pub preupdate_hooked: bool,
    pub text_encoding: crate::value::encoding::TextEncoding,
}

struct Entry {
    hash: u64,
    sql: Box<[u8]>,
    stamp: CompileStamp,
    program: Arc<Program>,
    tail: usize,
    last_used: u64,
}

/// The cache (see the module doc).
#[derive(Default)]
pub struct CompiledCache {
    entries: Vec<Entry>,
    clock: u64,
    /// Hashes of the last texts compiled once: a text is kept on its
    /// second compile, so that preparing distinct texts (nothing to reuse)
    /// pays only for this ring, not for copying keys and evicting.
    seen: Vec<u64>,
    seen_next: usize,
}

fn hash_of(sql: &[u8]) -> u64 {
    let mut h = FastHasher::default();
    h.write(sql);
    h.write_usize(sql.len());
    h.finish()
}

impl CompiledCache {
    /// The program compiled from `sql` under `stamp`, with its tail.
    pub fn get(&mut self, sql: &[u8], stamp: &CompileStamp) -> Option<(Arc<Program>, usize)> {
        if sql.len() > MAX_KEY_BYTES || self.entries.is_empty() {
            return None;
        }
        let hash = hash_of(sql);
        let e = self.entries.iter_mut().find(|e| e.hash == hash && *e.sql == *sql)?;
        if e.stamp != *stamp {
            return None;
        }
        self.clock += 1;
        e.last_used = self.clock;
        Some((e.program.clone(), e.tail))
    }

    /// Keep `program`, compiled from `sql` under `stamp`, if it may be
    /// reused (see [`cacheable_program`]).
    pub fn put(&mut self, sql: &[u8], stamp: CompileStamp, program: &Arc<Program>, tail: usize) {
        if sql.len() > MAX_KEY_BYTES || !cacheable_program(program) {
            return;
        }
        debug_assert!(tail <= sql.len());
        let hash = hash_of(sql);
        if !self.seen.contains(&hash) {
            if self.seen.len() < CAPACITY {
                self.seen.push(hash);
            } else {
                self.seen[self.seen_next] = hash;
                self.seen_next = (self.seen_next + 1) % CAPACITY;
            }
            return;
        }
        self.clock += 1;
        let entry = Entry { hash, sql: sql.into(), stamp, program: program.clone(), tail, last_used: self.clock };
        if let Some(e) = self.entries.iter_mut().find(|e| e.hash == hash && *e.sql == *sql) {
            *e = entry;
        } else if self.entries.len() < CAPACITY {
            self.entries.push(entry);
        } else if let Some(oldest) = self.entries.iter_mut().min_by_key(|e| e.last_used) {
            *oldest = entry;
        }
        // invariant: compiled_cache_capacity
        debug_assert!(self.entries.len() <= CAPACITY);
    }

    /// Forget everything (a registry changed).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Entries held (for tests).
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Whether a compiled program depends only on what the stamp records:
/// not one using a virtual table (its planning called the application's
/// `xBestIndex`), nor an ATTACH, DETACH, VACUUM, ANALYZE or EXPLAIN.
fn cacheable_program(p: &Program) -> bool {
    p.explain == 0
        && p.attach.is_none()
        && p.vacuum.is_none()
        && p.analyze.is_none()
        && !p.insns.iter().any(|i| {
            matches!(
                i.opcode,
                Opcode::VOpen
                    | Opcode::VFilter
                    | Opcode::VNext
                    | Opcode::VColumn
                    | Opcode::VRowid
                    | Opcode::VUpdate
                    | Opcode::VBegin
                    | Opcode::VCreate
                    | Opcode::VDestroy
                    | Opcode::VRename
                    | Opcode::VCheck
                    | Opcode::VInitIn
            )
        })
        && p.subprograms.iter().all(cacheable_program)
}

/// Whether a statement of this kind compiles from the schema, the
/// settings and the registries alone (see the module doc).
pub fn cacheable_statement(cmd: &sqlite3_parser::ast::Cmd<'_>) -> bool {
    use sqlite3_parser::ast::{Cmd, Stmt};
    match cmd {
        Cmd::Stmt(s) => matches!(
            s,
            Stmt::Select(..)
                | Stmt::Insert { .. }
                | Stmt::Update { .. }
                | Stmt::Delete { .. }
                | Stmt::Begin(..)
                | Stmt::Commit(..)
                | Stmt::Rollback { .. }
                | Stmt::Savepoint(..)
                | Stmt::Release(..)
        ),
        Cmd::Explain(_) | Cmd::ExplainQueryPlan(_) => false,
    }
}
