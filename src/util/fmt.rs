//! Text formatting compiled once.
//!
//! The crate's `format!` (crate root) calls [`format_string`], so the check
//! std's `fmt::format` makes for arguments that are one constant string,
//! and its call into the formatter, exist once instead of at every site.

use std::fmt::Arguments;

/// The text of `args`, as `std::fmt::format`.
#[inline(never)]
pub fn format_string(args: Arguments<'_>) -> String {
    std::fmt::format(args)
}
