//! ASCII case folding of identifiers, compiled once.
//!
//! `str::to_ascii_lowercase` is inlined where it is called, a vectorised
//! loop of ~370 bytes at each of the ~100 places names are folded
//! (schema lookups, pragma and function names): through this trait the
//! loop exists once (bench/RESULTS.md "Installed size").

/// Lowercase copies of ASCII text.
pub trait AsciiLower {
    /// The text with `A`-`Z` folded to `a`-`z`, as `str::to_ascii_lowercase`.
    fn ascii_lower(&self) -> String;

    /// Whether the text equals `other` with ASCII case folded, as
    /// `str::eq_ignore_ascii_case`, which is otherwise inlined at each of
    /// ~300 call sites.
    fn eq_ci(&self, other: &str) -> bool;

    /// The text with `a`-`z` folded to `A`-`Z`, as `str::to_ascii_uppercase`.
    fn ascii_upper(&self) -> String;
}

impl AsciiLower for str {
    #[inline(never)]
    fn ascii_lower(&self) -> String {
        self.to_ascii_lowercase()
    }

    #[inline(never)]
    fn eq_ci(&self, other: &str) -> bool {
        self.eq_ignore_ascii_case(other)
    }

    #[inline(never)]
    fn ascii_upper(&self) -> String {
        self.to_ascii_uppercase()
    }
}
