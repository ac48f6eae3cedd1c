//! # Test data: deterministic generation and shared database files
//!
//! Every suite builds its data once, with real SQLite, into a base file in
//! the run's temporary directory, then gives each engine its own byte
//! copy: both engines read exactly the same pages, and neither sees the
//! other's cache or locks. Generation is deterministic (a fixed-seed
//! xorshift generator), so runs are repeatable.
//!
//! Invariant: every file is created with the same settings on both sides:
//! page size 4096, `cache_size=-2000` (2 MB, SQLite's default), rollback
//! journal (`DELETE`) with `synchronous=FULL`, unless a workload states
//! otherwise.

use crate::engine::{Engine, Sqlite, R};
use std::path::{Path, PathBuf};

/// The settings both engines run with (see the module invariant).
pub const PRAGMAS: &str = "PRAGMA cache_size=-2000; PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;";

/// xorshift64*: small, fast, deterministic.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A lowercase ASCII word of `len` letters.
    pub fn word(&mut self, len: usize) -> String {
        (0..len).map(|_| (b'a' + self.below(26) as u8) as char).collect()
    }
}

/// A permutation of `1..=n` (used for unique indexed keys).
pub fn permutation(n: u64, rng: &mut Rng) -> Vec<i64> {
    let mut v: Vec<i64> = (1..=n as i64).collect();
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// Create `path` fresh (removing leftovers and journals).
pub fn remove_db(path: &Path) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// The tenants' base file: `users(id, username)` with `users` rows of
/// random 20-59 letter names drawn from `seed`.
pub fn build_users_base(path: &Path, users: u64, seed: u64) -> R<()> {
    build_base(path, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT);", |db| {
        let mut rng = Rng::new(seed);
        let mut s = db.prepare("INSERT INTO users(username) VALUES (?1)")?;
        for _ in 0..users {
            let len = 20 + rng.below(40) as usize;
            let w = rng.word(len);
            db.bind_text(&mut s, 1, &w)?;
            db.step(&mut s)?;
            db.reset(&mut s);
        }
        db.finalize(s);
        Ok(())
    })
}

/// Build a base file with real SQLite: `schema` then `fill` in one
/// transaction.
pub fn build_base(path: &Path, schema: &str, fill: impl FnOnce(&mut Sqlite) -> R<()>) -> R<()> {
    remove_db(path);
    let mut db = Sqlite::open(path)?;
    db.exec("PRAGMA page_size=4096;")?;
    db.exec(PRAGMAS)?;
    db.exec(schema)?;
    db.exec("BEGIN")?;
    fill(&mut db)?;
    db.exec("COMMIT")?;
    Ok(())
}

/// Copy the base file for one engine and open it there with the shared
/// settings.
pub fn open_copy<E: Engine>(base: &Path, dir: &Path, tag: &str) -> R<E> {
    let path = dir.join(format!("{tag}-{}.db", E::NAME));
    remove_db(&path);
    std::fs::copy(base, &path).map_err(|e| format!("copy {}: {e}", base.display()))?;
    let mut db = E::open(&path)?;
    db.exec(PRAGMAS)?;
    Ok(db)
}

/// Insert rows `(a, b, c)` into table `t` of a SQLite base being built:
/// `a` the rowid 1..=n, `b` a word of 10..60 letters, `c` from `cvals`.
pub fn fill_t(db: &mut Sqlite, n: u64, cvals: &[i64], rng: &mut Rng) -> R<()> {
    let mut ins = db.prepare("INSERT INTO t(a, b, c) VALUES (?1, ?2, ?3)")?;
    for i in 0..n {
        let len = 10 + rng.below(50) as usize;
        let w = rng.word(len);
        db.bind_i64(&mut ins, 1, i as i64 + 1)?;
        db.bind_text(&mut ins, 2, &w)?;
        db.bind_i64(&mut ins, 3, cvals[i as usize])?;
        db.step(&mut ins)?;
        db.reset(&mut ins);
    }
    db.finalize(ins);
    Ok(())
}
