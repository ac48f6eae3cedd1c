//! Collating sequences: BINARY, NOCASE, RTRIM and user-defined ones.
//!
//! A collation only orders TEXT; numbers and blobs never reach it. NOCASE
//! folds ASCII letters only (as SQLite does without ICU); RTRIM ignores
//! trailing spaces (0x20) only. User collations come from
//! `sqlite3_create_collation*` and must be a total order.

use crate::util::ascii::AsciiLower;
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The comparison function of a collation: a total order over texts.
pub type CollationFn = dyn Fn(&[u8], &[u8]) -> Ordering + Send + Sync;

/// A named comparison function for text.
#[derive(Clone)]
pub struct Collation {
    /// Name as used in SQL (`COLLATE name`), case-insensitive. (Shared:
    /// the built-in collations are cloned for every comparison a
    /// statement compiles, without an allocation.)
    pub name: Arc<str>,
    /// The comparison.
    pub cmp: Arc<CollationFn>,
}

impl fmt::Debug for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Collation({})", self.name)
    }
}

impl Collation {
    /// memcmp order of the text as the database stores it: of the UTF-8
    /// bytes, or of the UTF-16 ones on a UTF-16 database (the
    /// [`super::encoding::current`] encoding).
    pub fn binary() -> Collation {
        static BINARY: OnceLock<Collation> = OnceLock::new();
        BINARY.get_or_init(|| Collation { name: "BINARY".into(), cmp: Arc::new(super::encoding::binary_order_current) }).clone()
    }

    /// ASCII case folding, then memcmp order.
    pub fn nocase() -> Collation {
        static NOCASE: OnceLock<Collation> = OnceLock::new();
        NOCASE.get_or_init(Self::new_nocase).clone()
    }

    fn new_nocase() -> Collation {
        Collation {
            name: "NOCASE".into(),
            cmp: Arc::new(|a: &[u8], b: &[u8]| {
                let fold = |c: &u8| c.to_ascii_lowercase();
                a.iter().map(fold).cmp(b.iter().map(fold))
            }),
        }
    }

    /// memcmp order, ignoring trailing spaces.
    pub fn rtrim() -> Collation {
        static RTRIM: OnceLock<Collation> = OnceLock::new();
        RTRIM.get_or_init(Self::new_rtrim).clone()
    }

    fn new_rtrim() -> Collation {
        Collation {
            name: "RTRIM".into(),
            cmp: Arc::new(|a: &[u8], b: &[u8]| {
                let trim = |s: &[u8]| -> usize { s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1) };
                a[..trim(a)].cmp(&b[..trim(b)])
            }),
        }
    }

    /// The built-in collation of that name (BINARY, NOCASE, RTRIM; any
    /// case), if it is one.
    pub fn builtin(name: &str) -> Option<Collation> {
        if name.eq_ci("BINARY") {
            Some(Collation::binary())
        } else if name.eq_ci("NOCASE") {
            Some(Collation::nocase())
        } else if name.eq_ci("RTRIM") {
            Some(Collation::rtrim())
        } else {
            None
        }
    }

    /// Whether this is the BINARY collation (memcmp order of the stored
    /// bytes), which lets comparisons of stored records skip the function
    /// call.
    pub fn is_binary(&self) -> bool {
        self.name.eq_ci("BINARY")
    }

    /// Compare two texts.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        (self.cmp)(a, b)
    }
}
