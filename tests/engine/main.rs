//! The engine's integration tests, as one test binary. Each module was
//! its own binary once; linked together they share one copy of the engine
//! and of the bundled reference SQLite, which keeps `cargo test` within the
//! disk a CI machine has. Tests that must own their process stay separate
//! in `tests/`: a global allocator (`storage_memory`), environment
//! variables set while running (`func_localtime`, `uring_select`), and
//! child processes re-executing the test binary (`storage_recovery`,
//! `wal_process`). Run one module with `cargo test --test engine sql_fuzz::`.

// Test data is written as SQLite's tests write it: literal values such as
// 3.14159 are inputs, not stand-ins for constants, and case tables are
// tuples of closures spelt out where they are used. wal_support brings its
// own copy of storage_support, as it must for the wal_process binary.
#![allow(clippy::approx_constant, clippy::excessive_precision, clippy::type_complexity, clippy::duplicate_mod)]

#[path = "../async_support/mod.rs"]
mod async_support;
#[path = "../func_support/mod.rs"]
mod func_support;
#[path = "../sql_common/mod.rs"]
mod sql_common;
#[path = "../storage_support/mod.rs"]
mod storage_support;
#[path = "../vtab_support/mod.rs"]
mod vtab_support;
#[path = "../wal_support/mod.rs"]
mod wal_support;

mod async_durability;
mod async_errors;
mod async_in_list;
mod async_paths;
mod async_pragma_limits;
mod async_quantum;
mod async_resume;
mod async_sort;
mod copy_backup;
mod copy_blob;
mod copy_serialize;
mod copy_vacuum;
mod crash_power;
mod ext_dbstat;
mod ext_fts3;
mod ext_fts3_merge;
mod ext_fts5;
mod ext_fts5_build;
mod ext_fts5_content;
mod ext_fts5_contentless;
mod ext_fts5_detail;
mod ext_fts5_guards;
mod ext_fts5_locale;
mod ext_fts5_secure;
mod ext_fts5_snippet;
mod ext_fts5_tokenize;
mod ext_fts5_vocab;
mod ext_fts_sql_edges;
mod ext_rtree;
mod ext_session;
mod func_aggregate;
mod func_core;
mod func_datetime;
mod func_fuzz;
mod func_json;
mod func_math;
mod func_robust;
mod func_window;
mod sql_354;
mod sql_alter_columns;
mod sql_analyze_order;
mod sql_async;
mod sql_attach;
mod sql_auth_query_order;
mod sql_auth_schema_rows;
mod sql_auth_tvf_order;
mod sql_bulk_values;
mod sql_column_names;
mod sql_compiled_cache;
mod sql_concurrency;
mod sql_cte_self_reference;
mod sql_damaged_record;
mod sql_direct_only;
mod sql_distinct_ordered;
mod sql_dml_forms;
mod sql_dqs;
mod sql_error_order;
mod sql_error_phase;
mod sql_error_texts;
mod sql_expiry;
mod sql_expr;
mod sql_expr_index;
mod sql_failed_read_keeps_writes;
mod sql_file_moved;
mod sql_fuzz;
mod sql_generated_errors;
mod sql_generated_stored;
mod sql_height_checks;
mod sql_hooks;
mod sql_in_bloom;
mod sql_in_parenthesized_subquery;
mod sql_index_terms_consumed;
mod sql_insert_select_rows;
mod sql_integrity;
mod sql_integrity_chains;
mod sql_integrity_pages;
mod sql_integrity_records;
mod sql_introspection;
mod sql_limits_edges;
mod sql_limits_hostile;
mod sql_limits_lowered;
mod sql_name_levels;
mod sql_not_utf8;
mod sql_null_test_fold;
mod sql_onepass;
mod sql_parser_depth;
mod sql_plan;
mod sql_plan_collation;
mod sql_plan_flatten;
mod sql_plan_left_join;
mod sql_plan_one_row_outer;
mod sql_plan_or;
mod sql_plan_pushdown;
mod sql_plan_stat1;
mod sql_plan_transitive;
mod sql_plan_using;
mod sql_plan_without_rowid;
mod sql_pragma;
mod sql_pragma_files;
mod sql_pragma_tvf;
mod sql_regress;
mod sql_rename_compound_order;
mod sql_shared_memory;
mod sql_subquery_windows;
mod sql_super_journal;
mod sql_tables;
mod sql_tcl_collation;
mod sql_tcl_messages;
mod sql_tcl_reprepare;
mod sql_tcl_triggers;
mod sql_threads_one_file;
mod sql_transient_spill;
mod sql_transient_tree;
mod sql_trusted_schema;
mod sql_unused_order;
mod sql_update_delete_limit;
mod sql_uri_params;
mod sql_utf16;
mod sql_vtab;
mod sql_vtab_schema;
mod sql_window_index_order;
mod sql_window_range_edges;
mod sql_without_rowid;
mod sql_write_beside_read;
mod storage_alternating_writers;
mod storage_autovacuum;
mod storage_corrupt;
mod storage_corrupt_schema;
mod storage_dir_sync;
mod storage_fuzz;
mod storage_header_checks;
mod storage_index_paths;
mod storage_insert_paths;
mod storage_model;
mod storage_perf_smoke;
mod storage_rowid_seek;
mod storage_without_rowid;
mod storage_write_read;
mod uring_backend;
mod uring_storage;
mod uring_wal;
mod value_zeroblob;
mod values_nan;
mod vfs_temp_journal;
mod wal_checkpoint_restart;
mod wal_concurrency;
mod wal_interop;
mod wal_sim;
mod watched_main_db;
