//! Queries: SELECT and what it is made of. `select.rs` (result columns,
//! WHERE, DISTINCT, ORDER BY, destinations; LIMIT/OFFSET in `limit.rs`,
//! VALUES in `values.rs`) with `from.rs` (FROM
//! and join loops; `outer_join_reduction.rs` for LEFT JOINs that are
//! inner joins; `index_scan.rs`, `inner_table.rs`, `vtab_scan.rs`,
//! `recursive_cte.rs`, `multi_or.rs` for particular loops; `partial_index.rs`
//! for when a partial index may drive one), `compound.rs`, aggregates
//! (`aggregate.rs`, `group_stream.rs`, `ordered_aggregate.rs`,
//! `outer_aggregate.rs`, `simple_count.rs`, `count_of_view.rs`,
//! `having_*.rs`), window
//! functions (`window.rs`, `window_spec.rs`, `window_frame.rs`), table-valued pragmas in
//! FROM (`table_fn.rs`), result-column naming (`legacy_names.rs`,
//! `view_columns.rs`, `column_text.rs`), the order of name errors
//! (`name_order.rs`) and of the authorizer's calls (`auth_order.rs`); WHERE
//! terms pushed into materialised FROM items (`pushdown.rs`).
//!
//! Uses the shared core of `codegen/` (the `Compiler`, the builder,
//! expressions, `target.rs`, `loop_kind.rs`), the query model
//! (`sql/model/`) and the planner (`sql/plan/`); no file here names a
//! DML or DDL module.

pub(in crate::sql::codegen) mod access_path;
pub mod aggregate;
pub(in crate::sql::codegen) mod auth_ahead;
pub(in crate::sql::codegen) mod auth_order;
pub mod column_text;
pub mod compound;
pub(in crate::sql::codegen) mod const_propagation;
pub(in crate::sql::codegen) mod count_of_view;
pub(in crate::sql::codegen) mod distinct_redundant;
pub mod from;
pub(in crate::sql::codegen) mod group_stream;
pub(in crate::sql::codegen) mod having_check;
pub(in crate::sql::codegen) mod having_to_where;
pub(in crate::sql::codegen) mod index_scan;
pub(in crate::sql::codegen) mod inner_table;
pub(in crate::sql::codegen) mod join_height;
pub(in crate::sql::codegen) mod legacy_names;
pub(in crate::sql::codegen) mod like_range;
pub(in crate::sql::codegen) mod limit;
pub(in crate::sql::codegen) mod missing_tables;
pub(in crate::sql::codegen) mod multi_or;
pub(in crate::sql::codegen) mod name_order;
pub(in crate::sql::codegen) mod nested_loops;
pub(in crate::sql::codegen) mod null_fold;
pub(in crate::sql::codegen) mod order_served;
pub(in crate::sql::codegen) mod ordered_aggregate;
pub(in crate::sql::codegen) mod ordered_distinct;
pub(in crate::sql::codegen) mod outer_aggregate;
pub(in crate::sql::codegen) mod outer_join_reduction;
pub(crate) mod partial_index;
pub(in crate::sql::codegen) mod pushdown;
pub(in crate::sql::codegen) mod recursive_cte;
pub mod select;
pub(in crate::sql::codegen) mod simple_count;
pub(in crate::sql::codegen) mod subquery_refs;
pub(in crate::sql::codegen) mod subquery_text;
pub(in crate::sql::codegen) mod table_fn;
pub(in crate::sql::codegen) mod term_deps;
pub(in crate::sql::codegen) mod top_n;
pub(in crate::sql::codegen) mod unused_order;
pub(in crate::sql::codegen) mod values;
pub(in crate::sql::codegen) mod view_columns;
pub(in crate::sql::codegen) mod vtab_scan;
pub mod window;
pub(in crate::sql::codegen) mod window_frame;
pub(in crate::sql::codegen) mod window_spec;
