//! The order `PRAGMA collation_list` lists collations in.
//!
//! SQLite lists the entries of its per-connection collation hash table in
//! the table's iteration order, which applications can observe (and
//! tests compare). That order follows from how the table grows, modelled
//! here (behaviour observed on SQLite 3.54.1, not its code):
//! - entries are kept on one list; a new entry goes in front of the first
//!   entry of its bucket, or at the very front when its bucket is empty
//!   (or there are no buckets yet);
//! - once the table holds at least 5 entries and more than twice as many
//!   as it has buckets, the buckets are rebuilt with three per entry (at
//!   most 64), re-inserting the old list front to back under that rule;
//! - a name hashes by folding each byte with `& 0xdf` (ASCII upper case),
//!   adding it and multiplying by 0x9e3779b1 (Knuth's multiplicative
//!   hash), wrapping at 32 bits.
//!
//! Entries are never removed: a collation removed through
//! `create_collation` keeps its entry.

/// The built-in collations, in the order SQLite creates them when it
/// opens a connection.
const BUILTIN: [&str; 3] = ["BINARY", "NOCASE", "RTRIM"];

/// The largest bucket array (SQLite's 1024-byte soft allocation limit
/// over 16-byte buckets).
const MAX_BUCKETS: usize = 64;

fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, c| h.wrapping_add((c & 0xdf) as u32).wrapping_mul(0x9e37_79b1))
}

#[derive(Clone, Copy, Default)]
struct Bucket {
    count: usize,
    /// The entry that went into this bucket last (it leads the bucket's
    /// run on the list).
    head: usize,
}

/// The list in iteration order, as indexes into the entries.
struct Table {
    list: Vec<usize>,
    buckets: Vec<Bucket>,
}

impl Table {
    fn link(&mut self, entry: usize, hash: u32) {
        let bucket = (!self.buckets.is_empty()).then(|| hash as usize % self.buckets.len());
        let at = match bucket.map(|b| self.buckets[b]) {
            Some(b) if b.count > 0 => self.list.iter().position(|&e| e == b.head).unwrap_or(0),
            _ => 0,
        };
        self.list.insert(at, entry);
        if let Some(b) = bucket {
            self.buckets[b].count += 1;
            self.buckets[b].head = entry;
        }
    }
}

/// The names `PRAGMA collation_list` shows, in order, given the names
/// the application registered (each once, first registration first; the
/// built-in names excluded: they have entries already).
pub fn ordered(registered: &[String]) -> Vec<String> {
    let names: Vec<String> = BUILTIN.iter().map(|s| s.to_string()).chain(registered.iter().cloned()).collect();
    let hashes: Vec<u32> = names.iter().map(|n| name_hash(n)).collect();
    let mut t = Table { list: Vec::new(), buckets: Vec::new() };
    for entry in 0..names.len() {
        let count = entry + 1;
        if count >= 5 && count > 2 * t.buckets.len() {
            let size = (count * 3).min(MAX_BUCKETS);
            if size != t.buckets.len() {
                let old = std::mem::take(&mut t.list);
                t.buckets = vec![Bucket::default(); size];
                for e in old {
                    t.link(e, hashes[e]);
                }
            }
        }
        t.link(entry, hashes[entry]);
    }
    t.list.into_iter().map(|e| names[e].clone()).collect()
}
