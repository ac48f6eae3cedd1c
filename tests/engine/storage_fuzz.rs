//! A stable-toolchain fuzz driver for page decoding: valid databases made
//! by real SQLite (several page sizes; tables with overflow chains, an
//! index, a freelist) are mutated with a seeded generator, aiming at the
//! structures the decoder trusts (file header, b-tree page headers, cell
//! pointers, cell varints, child and overflow page numbers, freelist
//! trunks, page-number loops), then opened, scanned, integrity-checked and
//! written through the B-tree and through SQL.
//!
//! Every case must end in success or an error: through the B-tree only
//! `SQLITE_CORRUPT` or `SQLITE_NOTADB`, or `SQLITE_READONLY` for a write
//! to a file whose header's write version is past 2 (anything else means a decoder let
//! corruption through as a different failure); through SQL any error. A
//! panic, or a case running longer than [`CASE_TIMEOUT`] (a loop), fails
//! the test with the seed that replays it.
//!
//! `RINGLITE_FUZZ_SECS=n` runs for `n` seconds instead of the short default
//! count; `RINGLITE_FUZZ_SEED=s` starts at seed `s` (with
//! `RINGLITE_FUZZ_CASES=1`, replays one case; `RINGLITE_FUZZ_TRACE=1` prints
//! each step's outcome).

use crate::storage_support;

use ringlite::btree::{Btree, BtreeOptions, Cursor, InsertKey, SeekOp, TreeKind};
use ringlite::connection::{Connection, OpenFlags, StepResult};
use ringlite::error::{Error, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_READONLY};
use ringlite::io::memory::MemoryBackend;
use ringlite::io::IoContext;
use ringlite::value::record::KeyInfo;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use storage_support::*;

const CASE_TIMEOUT: Duration = Duration::from_secs(20);
const DEFAULT_CASES: u64 = 150;

/// One valid database and the root pages of its trees.
struct Base {
    image: Vec<u8>,
    page_size: usize,
    roots: Vec<u32>,
}

fn make_base(page_size: u32, auto_vacuum: bool) -> Base {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("base.db");
    let db = Sqlite::open(path.to_str().unwrap());
    db.exec(&format!("PRAGMA page_size={page_size}; PRAGMA auto_vacuum={};", if auto_vacuum { 1 } else { 0 }));
    db.exec("CREATE TABLE t(a INTEGER, b TEXT); CREATE INDEX i ON t(b); CREATE TABLE u(x); CREATE TABLE w(k PRIMARY KEY, v);");
    db.exec("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<300) INSERT INTO t SELECT n, hex(randomblob(n % 900)) FROM c;");
    db.exec("INSERT INTO w SELECT b, a FROM t WHERE a % 5 = 0;");
    db.exec("INSERT INTO u SELECT b FROM t; DELETE FROM t WHERE a % 4 = 0; DELETE FROM u WHERE rowid % 3 = 0;");
    let roots = db
        .query("SELECT rootpage FROM sqlite_schema WHERE rootpage > 0")
        .into_iter()
        .map(|r| match r[0] {
            V::Int(i) => i as u32,
            _ => 0,
        })
        .collect();
    drop(db);
    Base { image: std::fs::read(&path).unwrap(), page_size: page_size as usize, roots }
}

fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// A page number worth planting: itself, its neighbours, page 1, a root,
/// the last page, one past the end, or garbage.
fn evil_pgno(rng: &mut Rng, here: u32, pages: u32, roots: &[u32]) -> u32 {
    match rng.below(8) {
        0 => here,
        1 => here.saturating_sub(1).max(1),
        2 => 1,
        3 => roots[rng.below(roots.len() as u64) as usize],
        4 => pages,
        5 => pages + 1 + rng.below(3) as u32,
        6 => 0,
        _ => rng.next() as u32,
    }
}

/// Apply 1..=4 mutations to a copy of `base`.
fn mutate(base: &Base, rng: &mut Rng) -> Vec<u8> {
    let mut img = base.image.clone();
    let ps = base.page_size;
    let pages = (img.len() / ps) as u32;
    for _ in 0..1 + rng.below(4) {
        let pgno = 1 + rng.below(pages as u64) as u32;
        let start = (pgno as usize - 1) * ps;
        // Where this page's b-tree header is (page 1: after the file header).
        let hdr = start + if pgno == 1 { 100 } else { 0 };
        let kind = img[hdr];
        let interior = kind == 2 || kind == 5;
        let hdr_len = if interior { 12 } else { 8 };
        let ncells = u16::from_be_bytes([img[hdr + 3], img[hdr + 4]]) as usize;
        match rng.below(10) {
            // A random byte anywhere on the page.
            0 => img[start + rng.below(ps as u64) as usize] = rng.next() as u8,
            // A file header field.
            1 => {
                let off = [16, 18, 19, 20, 21, 22, 23, 28, 32, 36, 40, 44, 48, 52, 56, 64, 92, 96][rng.below(18) as usize];
                if rng.below(2) == 0 {
                    img[off] = rng.next() as u8;
                } else {
                    let v = evil_pgno(rng, 1, pages, &base.roots);
                    put32(&mut img, off & !3, v);
                }
            }
            // The page header: type, freeblock, cell count, content start,
            // fragmented bytes.
            2 => img[hdr + rng.below(8) as usize] = rng.next() as u8,
            // A cell pointer.
            3 if ncells > 0 => {
                let at = hdr + hdr_len + 2 * rng.below(ncells as u64) as usize;
                let v: u16 = match rng.below(3) {
                    0 => rng.next() as u16,
                    1 => (ps as u16).wrapping_sub(rng.below(8) as u16),
                    _ => u16::from_be_bytes([img[hdr + hdr_len], img[hdr + hdr_len + 1]]),
                };
                img[at..at + 2].copy_from_slice(&v.to_be_bytes());
            }
            // The first bytes of a cell: child pointer, payload-size and
            // rowid varints.
            4 if ncells > 0 => {
                let ptr_at = hdr + hdr_len + 2 * rng.below(ncells as u64) as usize;
                let cell = u16::from_be_bytes([img[ptr_at], img[ptr_at + 1]]) as usize;
                if cell < ps - 4 {
                    let off = start + cell + rng.below(4) as usize;
                    img[off] = if rng.below(2) == 0 { 0xff } else { rng.next() as u8 };
                }
            }
            // A child pointer (interior pages): a loop, an out-of-range page.
            5 if interior => {
                let v = evil_pgno(rng, pgno, pages, &base.roots);
                if rng.below(2) == 0 || ncells == 0 {
                    put32(&mut img, hdr + 8, v);
                } else {
                    let ptr_at = hdr + hdr_len + 2 * rng.below(ncells as u64) as usize;
                    let cell = u16::from_be_bytes([img[ptr_at], img[ptr_at + 1]]) as usize;
                    if cell + 4 <= ps {
                        put32(&mut img, start + cell, v);
                    }
                }
            }
            // The last four bytes of a cell's local payload are often its
            // overflow pointer; on overflow pages the first four are the
            // next page of the chain.
            6 => {
                let v = evil_pgno(rng, pgno, pages, &base.roots);
                if ncells > 0 && kind != 0 && rng.below(2) == 0 {
                    let ptr_at = hdr + hdr_len + 2 * rng.below(ncells as u64) as usize;
                    let next_cell = if ptr_at + 4 <= hdr + hdr_len + 2 * ncells { u16::from_be_bytes([img[ptr_at + 2], img[ptr_at + 3]]) as usize } else { ps };
                    let cell = u16::from_be_bytes([img[ptr_at], img[ptr_at + 1]]) as usize;
                    let end = if next_cell > cell { next_cell } else { ps };
                    if end >= 4 && end <= ps {
                        put32(&mut img, start + end - 4, v);
                    }
                } else {
                    put32(&mut img, start, v);
                }
            }
            // The freelist: trunk pointer and count in the header, or a
            // trunk page's next pointer, leaf count and leaves.
            7 => {
                let trunk = be32(&img, 32);
                if trunk == 0 || trunk > pages || rng.below(3) == 0 {
                    let off = if rng.below(2) == 0 { 32 } else { 36 };
                    let v = evil_pgno(rng, trunk, pages, &base.roots);
                    put32(&mut img, off, v);
                } else {
                    let t = (trunk as usize - 1) * ps;
                    let n = be32(&img, t + 4).min((ps as u32 - 8) / 4) as usize;
                    let slot = rng.below(2 + n as u64) as usize;
                    let v = if slot == 1 { rng.below(ps as u64) as u32 } else { evil_pgno(rng, trunk, pages, &base.roots) };
                    put32(&mut img, t + 4 * slot, v);
                }
            }
            // Page-number loops through the pointer map or schema roots:
            // overwrite a whole u32 at a random aligned spot.
            8 => {
                let off = start + 4 * rng.below(ps as u64 / 4) as usize;
                let v = evil_pgno(rng, pgno, pages, &base.roots);
                put32(&mut img, off, v);
            }
            // Truncate or extend the file.
            _ => {
                if rng.below(2) == 0 {
                    let keep = rng.below(img.len() as u64) as usize;
                    img.truncate(keep);
                    return img;
                }
                img.extend(std::iter::repeat_n(0u8, ps * (1 + rng.below(3) as usize)));
            }
        }
    }
    img
}

/// B-tree-level errors must say the file is corrupt (or not a database,
/// or, for a header whose write version is past 2, read-only as SQLite
/// makes it).
fn check(r: Result<(), Error>, what: &str) -> Result<(), String> {
    if std::env::var("RINGLITE_FUZZ_TRACE").is_ok() {
        eprintln!("{what}: {r:?}");
    }
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.primary() == SQLITE_CORRUPT || e.primary() == SQLITE_NOTADB => Ok(()),
        Err(e) if e.primary() == SQLITE_READONLY && what == "begin_write" => Ok(()),
        Err(e) => Err(format!("{what}: unexpected error {} ({})", e.code, e.message)),
    }
}

fn btree_pass(image: Vec<u8>, roots: &[u32]) -> Result<(), String> {
    let mem = Arc::new(MemoryBackend::new());
    mem.fs().put("c.db", image);
    let io = IoContext::new(mem);
    let mut bt = match Btree::open(&io, "c.db", BtreeOptions::default()) {
        Ok(bt) => bt,
        Err(e) => return check(Err(e), "open"),
    };
    if let Err(e) = io.block_on(|| bt.begin_read()) {
        return check(Err(e), "begin_read");
    }
    let mut all = vec![1];
    all.extend_from_slice(roots);
    check(io.block_on(|| bt.integrity_check(&all, 100)).map(|_| ()), "integrity_check")?;
    for &root in &all {
        for ki in [None, Some(Arc::new(KeyInfo::binary(2)))] {
            let mut c = Cursor::new(root, false, ki.clone());
            let mut more = match io.block_on(|| c.first(&mut bt)) {
                Ok(m) => m,
                Err(e) => {
                    check(Err(e), "first")?;
                    false
                }
            };
            let mut steps = 0;
            while more && steps < 20_000 {
                check(io.block_on(|| c.payload(&mut bt).map(|p| p.map(|s| s.len()))).map(|_| ()), "payload")?;
                more = match io.block_on(|| c.next(&mut bt)) {
                    Ok(m) => m,
                    Err(e) => {
                        check(Err(e), "next")?;
                        false
                    }
                };
                steps += 1;
            }
            check(io.block_on(|| c.last(&mut bt)).map(|_| ()), "last")?;
            check(io.block_on(|| c.prev(&mut bt)).map(|_| ()), "prev")?;
            check(io.block_on(|| c.count(&mut bt)).map(|_| ()), "count")?;
            if ki.is_some() {
                let key = [ringlite::value::ValueRef::Text(b"41")];
                check(io.block_on(|| c.seek_index(&mut bt, &key, SeekOp::Ge)).map(|_| ()), "seek_index")?;
            } else {
                check(io.block_on(|| c.seek_rowid(&mut bt, 77)).map(|_| ()), "seek_rowid")?;
            }
        }
    }
    check(io.block_on(|| bt.commit()), "end read")?;
    // Writing into a corrupt file must fail cleanly too, and so must the
    // commit of whatever it did.
    match io.block_on(|| bt.begin_write(false)) {
        Err(e) if e.primary() == ringlite::error::SQLITE_ERROR && e.message.contains("auto_vacuum") => return Ok(()),
        Err(e) => return check(Err(e), "begin_write"),
        Ok(()) => {}
    }
    for &root in roots {
        let mut c = Cursor::new(root, true, None);
        let rec = encode(&[V::Int(1), V::Text("x".repeat(3000))]);
        check(io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(5), &rec)), "insert")?;
        if io.block_on(|| c.seek_rowid(&mut bt, 9)).is_ok() && c.is_valid() {
            check(io.block_on(|| c.delete(&mut bt)), "delete")?;
        }
    }
    if let Some(&root) = roots.last() {
        check(io.block_on(|| bt.clear_tree(root)).map(|_| ()), "clear_tree")?;
    }
    check(io.block_on(|| bt.create_tree(TreeKind::Index)).map(|_| ()), "create_tree")?;
    let committed = io.block_on(|| bt.commit());
    if std::env::var("RINGLITE_FUZZ_TRACE").is_ok() {
        eprintln!("commit: {committed:?}");
    }
    if committed.is_err() {
        let _ = io.block_on(|| bt.rollback());
    }
    Ok(())
}

/// The same image through SQL: no panic, no hang; errors are fine.
fn sql_pass(image: Vec<u8>) {
    let mem = Arc::new(MemoryBackend::new());
    mem.fs().put("c.db", image);
    let io = IoContext::new(mem);
    let Ok(mut conn) = Connection::open_with_io("c.db", OpenFlags(OpenFlags::READWRITE), io) else { return };
    for sql in [
        "PRAGMA integrity_check",
        "SELECT * FROM t",
        "SELECT * FROM t WHERE b > 'A' ORDER BY b",
        "SELECT count(*) FROM u",
        "SELECT * FROM w WHERE k > '5'",
        "INSERT INTO t VALUES(1000, hex(randomblob(3000)))",
        "DELETE FROM t WHERE a % 3 = 0",
        "UPDATE w SET v = v + 1",
        "CREATE TABLE n(x)",
        "DROP TABLE u",
        "PRAGMA quick_check",
    ] {
        if std::env::var("RINGLITE_FUZZ_TRACE").is_ok() {
            eprintln!("sql: {sql}");
        }
        let Ok((Some(mut stmt), _)) = conn.prepare(sql.as_bytes()) else { continue };
        for _ in 0..100_000 {
            match stmt.step(&mut conn) {
                Ok(StepResult::Row) => {}
                Ok(StepResult::Io) => {
                    let _ = conn.io().wait_any();
                }
                _ => break,
            }
        }
    }
}

/// Run one case on a worker thread: a panic or a timeout is a finding.
fn run_case(base: &Arc<Base>, seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let image = mutate(base, &mut rng);
    let roots = base.roots.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("fuzz-{seed}"))
        .spawn(move || {
            let r = std::panic::catch_unwind(move || {
                let r = btree_pass(image.clone(), &roots);
                sql_pass(image);
                r
            });
            let _ = tx.send(r.unwrap_or_else(|p| {
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                Err(format!("panic: {}", msg.unwrap_or_default()))
            }));
        })
        .unwrap();
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(r) => r,
        Err(_) => Err(format!("no answer within {CASE_TIMEOUT:?} (loop?)")),
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn mutated_databases_fail_cleanly() {
    let bases: Vec<Arc<Base>> =
        vec![Arc::new(make_base(512, false)), Arc::new(make_base(1024, false)), Arc::new(make_base(4096, false)), Arc::new(make_base(1024, true))];
    for b in &bases {
        // The unmutated databases go through every step without error
        // (writes included; the auto_vacuum one vacuums at commit).
        btree_pass(b.image.clone(), &b.roots).unwrap_or_else(|e| panic!("unmutated base: {e}"));
    }
    let first = env_u64("RINGLITE_FUZZ_SEED").unwrap_or(1);
    let deadline = env_u64("RINGLITE_FUZZ_SECS").map(|s| Instant::now() + Duration::from_secs(s));
    let cases = env_u64("RINGLITE_FUZZ_CASES").unwrap_or(if deadline.is_some() { u64::MAX } else { DEFAULT_CASES });
    let started = Instant::now();
    let mut findings = Vec::new();
    let mut n = 0;
    for seed in first.. {
        if n >= cases || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let base = &bases[(seed % bases.len() as u64) as usize];
        if let Err(e) = run_case(base, seed) {
            eprintln!("seed {seed} (page size {}): {e}", base.page_size);
            findings.push((seed, e));
            if findings.len() >= 20 {
                break;
            }
        }
        n += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!("{n} fuzz cases in {secs:.1}s ({:.0}/s), {} findings", n as f64 / secs, findings.len());
    assert!(findings.is_empty(), "{findings:?}");
}
