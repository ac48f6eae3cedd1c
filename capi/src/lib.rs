//! # ringlite-capi: SQLite's C ABI over the ringlite engine
//!
//! This crate is `libsqlite3.so.0`: every function of SQLite's public API,
//! with SQLite's C signatures, as `extern "C"` entry points. Each group of the
//! API has its own module; what is not implemented yet lives in
//! [`unsupported`] (generated) and says so through the error message.
//!
//! Invariants every entry point keeps:
//! - it never unwinds into C: its body runs inside [`ffi_guard!`], which turns
//!   a panic into `SQLITE_INTERNAL` (or the function's neutral value);
//! - it touches a connection's state only while holding that connection's
//!   re-entrant lock ([`lock::DbLock`]), so any thread may use any
//!   connection (SQLite's "serialized" mode, `sqlite3_threadsafe() == 1`);
//! - pointers it hands out (`sqlite3_column_text`, `sqlite3_errmsg`, ...)
//!   live exactly as long as SQLite documents, owned by the handle they came
//!   from.
//! - what it does with the caller's pointers is said where it is done: the
//!   crate denies `unsafe_op_in_unsafe_fn`, so the body of each `unsafe fn`
//!   is one `unsafe {}` block under a `// SAFETY:` comment naming what the
//!   caller guarantees (a live handle or NULL, a NUL-terminated string,
//!   writable out-pointers, callbacks safe to call with their user data).
//!
//! ## Layers
//! The base every API module stands on imports no API module: the handles
//! and what they hold ([`handle`], [`slots`] for callbacks, [`lock`]),
//! error reporting ([`error`]), the C types and layouts ([`types`],
//! [`abi`], [`consts`]) and conversions ([`convert`], [`memory`],
//! [`value`], [`pointer`]). API modules (one per group of the API) use the
//! base and each other; `.ci/module_cycles.py capi/src` prints the import
//! cycles left among them (at most 12 modules, issue #23's bound).
//!
//! The variadic functions (`sqlite3_mprintf`, `sqlite3_config`, ...) are C
//! (`shim/*.c`): stable Rust cannot define C variadics, so the shim pulls the
//! arguments with `va_arg` and calls the Rust functions of [`printf`] and
//! [`config`].

#![allow(
    non_camel_case_types,
    non_snake_case,
    reason = "SQLite's C names: type and parameter names (`sqlite3_stmt`, `zSql`) are the ABI and the documentation's words"
)]
#![allow(clippy::missing_safety_doc, reason = "each entry point's safety contract is SQLite's documentation of it")]
#![deny(unsafe_op_in_unsafe_fn)]

// The engine's result codes (`src/error/codes.rs`), read here only so that
// cbindgen, which parses this crate and not the engine, emits their
// `#define`s and doc comments first, ahead of `consts`' (as SQLite's header
// has them); the C API uses the engine's own (`consts` re-exports them).
// Declared apart from the modules below, which rustfmt keeps sorted: it
// must come before `consts`.
#[path = "../../src/error/codes.rs"]
#[allow(dead_code, reason = "read by cbindgen only: the crate uses the engine's codes through `consts`")]
mod result_codes;

#[macro_use]
pub mod guard;
pub mod abi;
pub mod api_routines;
pub mod async_io;
pub mod authorizer;
pub mod auto_extension;
pub mod bind;
pub mod c_array;
pub mod close;
pub mod collation;
pub mod column;
pub mod complete;
pub mod config;
pub mod consts;
pub mod convert;
pub mod error;
pub mod exec;
pub mod extension;
pub mod file_control;
pub mod fts3_tokenizer;
pub mod fts5_abi;
pub mod fts5_api;
pub mod fts5_aux;
pub mod function;
pub mod handle;
pub mod hooks;
pub mod keywords;
pub mod lock;
pub mod memory;
pub mod metadata;
pub mod misc;
pub mod mutex;
pub mod open;
pub mod open_handles;
pub mod pointer;
pub mod prepare;
pub mod preupdate;
pub mod printf;
pub mod random;
pub mod result;
pub mod rtree;
pub mod step;
pub mod stmt;
pub mod string;
pub mod trace;
pub mod types;
pub mod unsupported;
pub mod uri;
pub mod value;
pub mod version;
pub mod vfs;
pub mod vfs_backend;
pub mod vfs_unix;
pub mod vtab;
pub mod vtab_index;
// Whole-database copies and blob I/O.
pub mod backup;
pub mod blob;
pub mod serialize;
pub mod session;
pub mod session_group;
pub mod session_iter;
pub mod slots;

/// The engine's heap. A prepare builds and drops a hundred or so small
/// objects (AST nodes, names, instructions); SQLite serves those from its
/// per-connection lookaside slabs rather than `malloc`. mimalloc's
/// thread-local free lists do the same job for every Rust allocation of the
/// library and take about 7% off a prepare against glibc `malloc` (bench/
/// RESULTS.md, "The library's allocator"). It is the global allocator of
/// this library only: memory handed to C (`sqlite3_malloc`, `sqlite3_mprintf`
/// results) still comes from the C heap, as `sqlite3_free` expects, and the
/// host program's own allocations are untouched. `local_dynamic_tls`
/// because the library is often loaded with `dlopen` (Python, Tcl), where
/// the initial-exec TLS model can fail.
#[global_allocator]
static ENGINE_HEAP: mimalloc::MiMalloc = mimalloc::MiMalloc;
