//! Differential tests: every conversion here is checked against the real
//! SQLite (`libsqlite3-sys`, bundled) on thousands of generated inputs.
#![allow(clippy::approx_constant, clippy::excessive_precision, reason = "test inputs are exact decimal literals, π-like ones included")]

mod diff_numeric;
mod diff_printf;
mod diff_record;
mod refdb;
