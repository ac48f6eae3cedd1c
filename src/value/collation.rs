//! Collating sequences: BINARY, NOCASE, RTRIM and user-defined ones.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// A named comparison function for text.
#[derive(Clone)]
pub struct Collation {
    /// Name as used in SQL (`COLLATE name`), case-insensitive.
    pub name: String,
    /// The comparison.
    pub cmp: Arc<dyn Fn(&[u8], &[u8]) -> Ordering + Send + Sync>,
}

impl fmt::Debug for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Collation({})", self.name)
    }
}

impl Collation {
    /// memcmp order.
    pub fn binary() -> Collation {
        Collation { name: "BINARY".into(), cmp: Arc::new(|a: &[u8], b: &[u8]| a.cmp(b)) }
    }

    /// ASCII case folding, then memcmp order.
    pub fn nocase() -> Collation {
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
        Collation {
            name: "RTRIM".into(),
            cmp: Arc::new(|a: &[u8], b: &[u8]| {
                let trim = |s: &[u8]| -> usize { s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1) };
                a[..trim(a)].cmp(&b[..trim(b)])
            }),
        }
    }

    /// Compare two texts.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        (self.cmp)(a, b)
    }
}
