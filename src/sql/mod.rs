//! # The SQL compiler
//!
//! From SQL text to a VDBE [`Program`](crate::vdbe::program::Program):
//! [`parse`] (glue around `sqlite3-parser`, with [`bom`] turning byte-order
//! marks between tokens into space), [`parse_limits`] (the limits
//! SQLite enforces while parsing), [`params`] (parameter
//! numbering), [`schema`] (tables and
//! indexes read from `sqlite_schema`), [`resolve`] (name resolution with
//! SQLite's messages), [`plan`] (WHERE analysis and index choice) and
//! [`codegen`] (one folder per statement family around a shared core),
//! with [`model`] holding the resolved query (FROM items, join terms,
//! result columns, row contexts) that `plan` and `codegen` both use and
//! that depends on neither. Reading the schema table from a database is
//! the connection's (`connection/schema_load.rs`), not this layer's.
//!
//! Invariant: compiling never touches the database; everything a program
//! needs from the schema is baked into it together with the schema cookie
//! it was compiled against, checked again by `Transaction` before the
//! program reads anything (checked: schema_cookie_current).

pub mod bom;
pub mod codegen;
pub mod column_rules;
pub mod column_spans;
pub mod error_offset;
pub mod huge_prefix;
pub mod model;
pub mod params;
pub mod parse;
pub mod parse_limits;
pub mod plan;
pub mod rename;
pub mod repeated_set_columns;
pub mod resolve;
pub mod schema;
pub mod schema_visit_order;
pub mod value_rows;
pub mod vtab_decl;
