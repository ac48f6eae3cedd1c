//! # `fuzz --mode corrupt`: mutated database files on both engines
//!
//! Each seed builds a database with the reference (page size 512, 1024 or
//! 4096; auto_vacuum none, full or incremental; rollback journal; a rowid
//! table with two indexes and rows long enough to overflow, in the table
//! and in an index, a WITHOUT ROWID table with an index, a table with a
//! UNIQUE constraint, deleted rows and a dropped or emptied table, hence
//! freeblocks and freelist trunks and leaves), damages it with one to
//! three seeded mutations aimed with [`layout`] (bytes anywhere, page
//! header fields, cell pointers, freeblock chains, overflow pointers and
//! chains, freelist trunks and leaves, pointer maps, record headers,
//! child pointers, whole pages, truncation, database header fields), and
//! gives each engine its own copy to run [`STEPS`] on: integrity_check,
//! quick_check, reads, writes, VACUUM, integrity_check again.
//!
//! Compared: the verdict (`ok` or not: a report or an error) of every
//! check; the outcome class (success, or the primary error code) of every
//! read and write until the first class difference (after it the files
//! differ); and, on a file both engines call sound, the rows too. A
//! mismatch is reported with the seed; the mutated file is saved as
//! `<save-dir>/corrupt-<seed>.db` with its mutations in `.txt`.

use super::isolate::{self, describe, sorted_rows, StepOutcome, Target};
use super::layout::{self, u16_at, u32_at, Layout};
use super::supervise::CaseResult;
use super::FuzzArgs;
use crate::engine::reference::Reference;
use crate::engine::{Cell, Engine, EngineKind};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

const STACK: usize = 8 * 1024 * 1024;

/// What each engine runs on its copy. Checks are the steps whose verdict
/// is compared ([`CHECKS`]); reads' rows are compared on sound files.
pub const STEPS: &[&str] = &[
    "PRAGMA integrity_check",
    "PRAGMA quick_check",
    "SELECT count(*) FROM t1",
    "SELECT a, b, length(c), d FROM t1",
    "SELECT b FROM t1 INDEXED BY t1b WHERE b > ''",
    "SELECT count(*), sum(length(w)) FROM t2",
    "SELECT k, v FROM t2 INDEXED BY t2v WHERE v >= 0",
    "SELECT x, y FROM t3 WHERE x > 10",
    "UPDATE t1 SET d = d + 1, b = b || 'u' WHERE a % 5 = 1",
    "DELETE FROM t1 WHERE a % 7 = 2",
    "INSERT INTO t1(b, c, d) VALUES('new', zeroblob(3000), 1)",
    "INSERT INTO t2 VALUES('zz', 1, printf('%.*c', 2000, 'z'))",
    "DELETE FROM t3 WHERE x % 2 = 0",
    "VACUUM",
    "PRAGMA integrity_check",
];
const CHECKS: &[usize] = &[0, 1, 14];
/// Steps that change the file: past the first one that differs in class,
/// later steps run on different databases and are not compared.
const FIRST_WRITE: usize = 8;

struct Built {
    bytes: Vec<u8>,
    mutations: Vec<String>,
    settings: String,
}

fn temp_dir(seed: u64) -> PathBuf {
    std::env::temp_dir().join(format!("ringlite-fuzz-{}-{seed}", std::process::id()))
}

/// The sound file for a seed, and the settings it was built with.
fn build(rng: &mut ChaCha8Rng, dir: &Path) -> Result<(Vec<u8>, String, Vec<u32>), String> {
    let page_size = *[512usize, 1024, 4096].choose(rng).unwrap();
    let auto_vacuum = rng.gen_range(0..3);
    let secure_delete = rng.gen_bool(0.3) as u8;
    let n1 = rng.gen_range(5..=200);
    let n2 = rng.gen_range(5..=120);
    let n3 = rng.gen_range(5..=100);
    let big = page_size * rng.gen_range(1..=3);
    let (m1, m2, m3) = (rng.gen_range(1..500), rng.gen_range(1..500), rng.gen_range(1..500));
    let delete_every = rng.gen_range(2..=5);
    let drop_t4 = rng.gen_bool(0.5);
    let settings = format!("page_size {page_size}, auto_vacuum {auto_vacuum}, secure_delete {secure_delete}, rows {n1}/{n2}/{n3}");
    let sql = format!(
        "PRAGMA page_size = {page_size}; PRAGMA auto_vacuum = {auto_vacuum}; PRAGMA secure_delete = {secure_delete};
         CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c BLOB, d);
         CREATE INDEX t1b ON t1(b);
         CREATE INDEX t1d ON t1(d, a);
         CREATE TABLE t2(k TEXT PRIMARY KEY, v, w) WITHOUT ROWID;
         CREATE INDEX t2v ON t2(v);
         CREATE TABLE t3(x UNIQUE, y);
         CREATE TABLE t4(z);
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < {n1})
           INSERT INTO t1 SELECT i, printf('%.*c', (i * {m1}) % {big} + 1, char(97 + i % 26)),
             CAST(printf('%.*c', (i * {m2}) % {big}, char(65 + i % 26)) AS BLOB), i % 13 FROM c;
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < {n2})
           INSERT INTO t2 SELECT printf('k%05d', i) || printf('%.*c', (i * {m3}) % 300, 'q'), i % 7,
             printf('%.*c', (i * {m1}) % {big}, 'w') FROM c;
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < {n3})
           INSERT INTO t3 SELECT i * 3, printf('y%d', i) FROM c;
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 40)
           INSERT INTO t4 SELECT printf('%.*c', {page_size} / 2, 'z') FROM c;
         DELETE FROM t1 WHERE a % {delete_every} = 0;
         DELETE FROM t2 WHERE v = 3;
         {}",
        if drop_t4 { "DROP TABLE t4;" } else { "DELETE FROM t4;" }
    );
    let path = dir.join("build.db");
    let path_s = path.to_string_lossy().into_owned();
    let mut r = Reference::create(&path_s).map_err(|e| format!("build: {e}"))?;
    r.run(&sql).map_err(|e| format!("build: {e}"))?;
    let roots = r.run("SELECT rootpage FROM sqlite_schema WHERE rootpage > 0").map_err(|e| format!("build: {e}"))?;
    drop(r);
    let mut roots: Vec<u32> = roots
        .rows
        .iter()
        .filter_map(|row| match row.first() {
            Some(Cell::Integer(p)) => Some(*p as u32),
            _ => None,
        })
        .collect();
    roots.push(1);
    let bytes = std::fs::read(&path).map_err(|e| format!("build: {e}"))?;
    let _ = std::fs::remove_file(&path);
    Ok((bytes, settings, roots))
}

fn put16(b: &mut [u8], at: usize, v: usize) -> String {
    if at + 2 <= b.len() {
        b[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes());
    }
    format!("u16 at {at} = {v}")
}

fn put32(b: &mut [u8], at: usize, v: u32) -> String {
    if at + 4 <= b.len() {
        b[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
    format!("u32 at {at} = {v}")
}

fn put8(b: &mut [u8], at: usize, v: u8) -> String {
    if at < b.len() {
        b[at] = v;
    }
    format!("byte at {at} = {v}")
}

/// A page number worth pointing at: nothing, itself, page 1, past the
/// end, a random page.
fn some_page(rng: &mut ChaCha8Rng, l: &Layout, own: u32) -> u32 {
    match rng.gen_range(0..6) {
        0 => 0,
        1 => own,
        2 => 1,
        3 => l.pages + rng.gen_range(1..3),
        4 => u32::MAX - rng.gen_range(0..2),
        _ => rng.gen_range(1..=l.pages.max(1)),
    }
}

/// An in-page offset worth pointing at.
fn some_offset(rng: &mut ChaCha8Rng, l: &Layout, near: usize) -> usize {
    match rng.gen_range(0..6) {
        0 => 0,
        1 => l.page_size - rng.gen_range(1..5),
        2 => near.saturating_add(rng.gen_range(0..3)).saturating_sub(1),
        3 => 0xffff,
        _ => rng.gen_range(0..l.page_size),
    }
}

/// Apply one mutation; its description.
fn mutate(rng: &mut ChaCha8Rng, b: &mut Vec<u8>, l: &Layout) -> String {
    let len = b.len();
    let pick_bt = |rng: &mut ChaCha8Rng| l.btree.choose(rng);
    let kind = rng.gen_range(0..16);
    match kind {
        0 | 1 => {
            let at = rng.gen_range(0..len);
            let v = if rng.gen_bool(0.5) { b[at] ^ (1 << rng.gen_range(0..8)) } else { rng.gen() };
            format!("byte: {}", put8(b, at, v))
        }
        2 | 3 => {
            let Some(p) = pick_bt(rng) else { return "none".into() };
            let h = p.hdr;
            match rng.gen_range(0..6) {
                0 => format!("page {} type: {}", p.pgno, put8(b, h, *[0u8, 1, 2, 5, 10, 13, rng.gen()].choose(rng).unwrap())),
                1 => {
                    let v = some_offset(rng, l, p.cells.first().map_or(0, |c| c - p.base));
                    format!("page {} first freeblock: {}", p.pgno, put16(b, h + 1, v))
                }
                2 => {
                    let n = u16_at(b, h + 3);
                    let v = *[n + 1, n.saturating_sub(1), 0, 0xffff, rng.gen_range(0..400)].choose(rng).unwrap();
                    format!("page {} cell count: {}", p.pgno, put16(b, h + 3, v))
                }
                3 => {
                    let v = some_offset(rng, l, u16_at(b, h + 5));
                    format!("page {} content start: {}", p.pgno, put16(b, h + 5, v))
                }
                4 => format!("page {} fragmented bytes: {}", p.pgno, put8(b, h + 7, rng.gen())),
                _ => match p.children.first() {
                    Some(&at) => {
                        let v = some_page(rng, l, p.pgno);
                        format!("page {} right child: {}", p.pgno, put32(b, at, v))
                    }
                    None => format!("page {} fragmented bytes: {}", p.pgno, put8(b, h + 7, rng.gen_range(0..70))),
                },
            }
        }
        4 | 5 => {
            let Some(p) = l.btree.iter().filter(|p| !p.slots.is_empty()).collect::<Vec<_>>().choose(rng).copied() else { return "none".into() };
            let i = rng.gen_range(0..p.slots.len());
            let other = p.cells[rng.gen_range(0..p.cells.len())] - p.base;
            let v = if rng.gen_bool(0.3) { other } else { some_offset(rng, l, p.cells[i] - p.base) };
            format!("page {} cell pointer {i}: {}", p.pgno, put16(b, p.slots[i], v))
        }
        6 => {
            let Some(p) = pick_bt(rng) else { return "none".into() };
            let fb = u16_at(b, p.hdr + 1);
            if fb == 0 || fb + 4 > l.page_size {
                // Make one: over a cell, or somewhere.
                let at = p.cells.choose(rng).map_or(l.page_size - 8, |c| c - p.base);
                let size = *[4usize, 8, 16, 200, 0xffff].choose(rng).unwrap();
                put16(b, p.base + at, 0);
                put16(b, p.base + at + 2, size);
                return format!("page {} new freeblock at {at} size {size}: {}", p.pgno, put16(b, p.hdr + 1, at));
            }
            let at = p.base + fb;
            if rng.gen_bool(0.5) {
                let v = *[fb, fb.saturating_sub(4), 0xffff, rng.gen_range(0..l.page_size), fb + 1].choose(rng).unwrap();
                format!("page {} freeblock next: {}", p.pgno, put16(b, at, v))
            } else {
                let v = *[0usize, 1, 3, 0xffff, l.page_size, rng.gen_range(0..l.page_size)].choose(rng).unwrap();
                format!("page {} freeblock size: {}", p.pgno, put16(b, at + 2, v))
            }
        }
        7 | 8 => {
            let ptrs: Vec<(u32, usize)> = l.btree.iter().flat_map(|p| p.overflow_ptrs.iter().map(move |&a| (p.pgno, a))).collect();
            if rng.gen_bool(0.3) && !l.overflow.is_empty() {
                let o = *l.overflow.choose(rng).unwrap();
                let v = some_page(rng, l, o);
                return format!("overflow page {o} next: {}", put32(b, (o as usize - 1) * l.page_size, v));
            }
            let Some(&(pg, at)) = ptrs.choose(rng) else { return "none (no overflow)".into() };
            let v = if rng.gen_bool(0.3) { l.btree.choose(rng).map_or(0, |p| p.pgno) } else { some_page(rng, l, pg) };
            format!("page {pg} overflow pointer: {}", put32(b, at, v))
        }
        9 => {
            if let Some(&t) = l.free_trunks.choose(rng) {
                let base = (t as usize - 1) * l.page_size;
                match rng.gen_range(0..4) {
                    0 => {
                        let n = u32_at(b, base + 4);
                        let v = *[0, n + 1, n.saturating_sub(1), u32::MAX, (l.page_size / 4) as u32, rng.gen()].choose(rng).unwrap();
                        format!("freelist trunk {t} count: {}", put32(b, base + 4, v))
                    }
                    1 => format!("freelist trunk {t} next: {}", put32(b, base, some_page(rng, l, t))),
                    _ => {
                        let n = (u32_at(b, base + 4) as usize).clamp(1, l.page_size / 4 - 2);
                        let i = rng.gen_range(0..n);
                        let v = if rng.gen_bool(0.4) { l.btree.choose(rng).map_or(0, |p| p.pgno) } else { some_page(rng, l, t) };
                        format!("freelist trunk {t} leaf {i}: {}", put32(b, base + 8 + 4 * i, v))
                    }
                }
            } else if rng.gen_bool(0.5) {
                format!("freelist head: {}", put32(b, 32, some_page(rng, l, 0)))
            } else {
                format!("freelist count: {}", put32(b, 36, rng.gen_range(0..l.pages + 3)))
            }
        }
        10 => {
            let new_len = if rng.gen_bool(0.6) { l.page_size * rng.gen_range(1..l.pages.max(2) as usize) } else { rng.gen_range(50..len) };
            b.truncate(new_len.min(len));
            format!("truncated to {} bytes (of {len})", b.len())
        }
        11 => {
            let fields: &[(usize, usize)] = &[
                (16, 2),
                (18, 1),
                (19, 1),
                (20, 1),
                (21, 1),
                (22, 1),
                (23, 1),
                (24, 4),
                (28, 4),
                (32, 4),
                (36, 4),
                (40, 4),
                (44, 4),
                (48, 4),
                (52, 4),
                (56, 4),
                (60, 4),
                (64, 4),
                (68, 4),
                (92, 4),
                (96, 4),
            ];
            let &(at, width) = fields.choose(rng).unwrap();
            let cur = if width == 4 {
                u32_at(b, at)
            } else if width == 2 {
                u16_at(b, at) as u32
            } else {
                b[at] as u32
            };
            let v: u32 = *[0, 1, 2, 3, 4, 5, cur + 1, cur.wrapping_sub(1), 255, 256, 1024, 65535, 65536, u32::MAX, rng.gen()].choose(rng).unwrap();
            let d = match width {
                4 => put32(b, at, v),
                2 => put16(b, at, v as usize & 0xffff),
                _ => put8(b, at, v as u8),
            };
            format!("header: {d}")
        }
        12 => {
            if l.ptrmap.is_empty() {
                return format!("header (no ptrmap): {}", put32(b, 52, some_page(rng, l, 0)));
            }
            let p = *l.ptrmap.choose(rng).unwrap();
            let base = (p as usize - 1) * l.page_size;
            let entry = base + 5 * rng.gen_range(0..(l.page_size / 5).min(l.pages as usize).max(1));
            if rng.gen_bool(0.5) {
                format!("ptrmap {p} type: {}", put8(b, entry, rng.gen_range(0..8)))
            } else {
                format!("ptrmap {p} parent: {}", put32(b, entry + 1, some_page(rng, l, p)))
            }
        }
        13 => {
            let payloads: Vec<(u32, usize)> = l.btree.iter().flat_map(|p| p.payloads.iter().map(move |&a| (p.pgno, a))).collect();
            let Some(&(pg, at)) = payloads.choose(rng) else { return "none".into() };
            let off = at + rng.gen_range(0..6);
            format!("page {pg} record header: {}", put8(b, off, *[0u8, 1, 9, 10, 11, 12, 13, 0x7f, 0x80, 0xff, rng.gen()].choose(rng).unwrap()))
        }
        14 => {
            let Some(p) = l.btree.iter().filter(|p| !p.children.is_empty()).collect::<Vec<_>>().choose(rng).copied() else {
                return "none (no interior page)".into();
            };
            let at = *p.children.choose(rng).unwrap();
            let v = if rng.gen_bool(0.3) { l.btree.choose(rng).map_or(0, |q| q.pgno) } else { some_page(rng, l, p.pgno) };
            format!("page {} child pointer: {}", p.pgno, put32(b, at, v))
        }
        _ => {
            let (Some(from), Some(to)) = (pick_bt(rng), pick_bt(rng)) else { return "none".into() };
            if to.pgno == 1 {
                return "none (page 1)".into();
            }
            let ps = l.page_size;
            // (An earlier mutation may have truncated the file.)
            if from.base.max(to.base) + ps > b.len() {
                return "none (truncated)".into();
            }
            if rng.gen_bool(0.5) && from.pgno != 1 {
                let src = b[from.base..from.base + ps].to_vec();
                b[to.base..to.base + ps].copy_from_slice(&src);
                format!("page {} copied over page {}", from.pgno, to.pgno)
            } else {
                b[to.base..to.base + ps].fill(0);
                format!("page {} zeroed", to.pgno)
            }
        }
    }
}

/// The damaged file for a seed.
fn make(seed: u64, dir: &Path) -> Result<Built, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut bytes, settings, roots) = build(&mut rng, dir)?;
    let l = layout::read(&bytes, &roots);
    layout::clear_unallocated(&mut bytes, &l);
    let mut mutations = Vec::new();
    // One case in twenty stays sound: both engines must call it ok.
    if !rng.gen_bool(0.05) {
        for _ in 0..*[1, 1, 1, 2, 2, 3].choose(&mut rng).unwrap() {
            mutations.push(mutate(&mut rng, &mut bytes, &l));
        }
    }
    Ok(Built { bytes, mutations, settings })
}

#[derive(Debug, PartialEq)]
enum Verdict {
    Ok,
    NotOk,
}

fn verdict(o: &StepOutcome) -> Verdict {
    match o {
        Ok(r) if r.rows.len() == 1 && r.rows[0] == vec![Cell::Text(b"ok".to_vec())] => Verdict::Ok,
        _ => Verdict::NotOk,
    }
}

fn class(o: &StepOutcome) -> Option<i32> {
    o.as_ref().err().map(|e| e.code & 0xff)
}

fn first_report_line(o: &StepOutcome) -> String {
    match o {
        Ok(r) => r.rows.first().map_or("(no rows)".into(), |row| match row.first() {
            Some(Cell::Text(t)) => String::from_utf8_lossy(t).chars().take(150).collect(),
            v => format!("{v:?}"),
        }),
        Err(e) => format!("error [{}] {}", e.code, e.message),
    }
}

pub fn run_case(seed: u64, f: &FuzzArgs) -> CaseResult {
    let dir = temp_dir(seed);
    let _ = std::fs::create_dir_all(&dir);
    let result = run_in(seed, f, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(seed: u64, f: &FuzzArgs, dir: &Path) -> CaseResult {
    let built = match make(seed, dir) {
        Ok(b) => b,
        Err(e) => return CaseResult { tag: "build-failed".into(), failures: vec![("other", e)] },
    };
    let steps: Vec<String> = STEPS.iter().map(|s| s.to_string()).collect();
    let run_on = |kind: &EngineKind, name: &str| {
        let path = dir.join(name);
        let _ = std::fs::write(&path, &built.bytes);
        let mut ran = isolate::run(kind, &Target::File(path.to_string_lossy().into_owned()), &[], &steps, f.case_timeout, STACK);
        if ran.open_failed && ran.panic.is_none() {
            let e = ran.outcomes.pop().expect("the open error");
            ran.outcomes = vec![e; steps.len()];
        }
        ran
    };
    let reference = run_on(&EngineKind::Reference, "ref.db");
    let ours = run_on(&f.engine, "ours.db");
    let what = format!("{}; {}", built.settings, if built.mutations.is_empty() { "sound".into() } else { built.mutations.join("; ") });
    let mut failures = Vec::new();
    if let Some(p) = &ours.panic {
        failures.push(("panic", format!("{what}: {p}")));
    }
    if ours.expired {
        failures.push(("hang", format!("{what}: still running after {:?} (interrupted)", f.case_timeout)));
    }
    if reference.expired || reference.panic.is_some() || reference.outcomes.len() != steps.len() {
        return CaseResult { tag: "ref-timeout".into(), failures };
    }
    let tag = match &reference.outcomes[0] {
        Ok(_) if verdict(&reference.outcomes[0]) == Verdict::Ok => "ref-ok",
        Ok(_) => "ref-report",
        Err(_) => "ref-error",
    };
    if !failures.is_empty() || ours.outcomes.len() != steps.len() {
        return CaseResult { tag: tag.into(), failures };
    }
    if std::env::var_os("RINGLITE_FUZZ_VERBOSE").is_some() {
        eprintln!("seed {seed}: {what}");
        for (i, (a, b)) in ours.outcomes.iter().zip(&reference.outcomes).enumerate() {
            eprintln!("  {}: ours {}\n  {}  ref  {}", steps[i], describe(a), " ".repeat(steps[i].len()), describe(b));
        }
    }
    let sound = verdict(&reference.outcomes[0]) == Verdict::Ok && verdict(&ours.outcomes[0]) == Verdict::Ok;
    let mut diverged = false;
    for (i, (a, b)) in ours.outcomes.iter().zip(&reference.outcomes).enumerate() {
        if CHECKS.contains(&i) {
            // After the writes, only on a file both called sound: on a
            // damaged one, what VACUUM carries over differs by design
            // (SQLite copies index b-trees as they are, damage included).
            let compared = i < FIRST_WRITE || sound;
            if compared && !diverged && verdict(a) != verdict(b) {
                failures.push((
                    "verdict",
                    format!(
                        "{what}: step {} {}: ours {:?} ({}), reference {:?} ({})",
                        i + 1,
                        steps[i],
                        verdict(a),
                        first_report_line(a),
                        verdict(b),
                        first_report_line(b)
                    ),
                ));
            }
            continue;
        }
        if diverged {
            continue;
        }
        if class(a) != class(b) {
            failures.push(("class", format!("{what}: step {} {}: ours {}; reference {}", i + 1, steps[i], describe(a), describe(b))));
            // A read that differs leaves the files alike; a write does not.
            if i >= FIRST_WRITE {
                diverged = true;
            }
            continue;
        }
        if sound {
            if let (Ok(x), Ok(y)) = (a, b) {
                if sorted_rows(x) != sorted_rows(y) {
                    failures.push(("rows", format!("{what}: step {} {}: ours {}; reference {}", i + 1, steps[i], describe(a), describe(b))));
                }
            }
        }
    }
    CaseResult { tag: tag.into(), failures }
}

/// Save the damaged file of a seed (and what was done to it).
pub fn save_case(seed: u64, dir: &str) -> Option<String> {
    let path = Path::new(dir).join(format!("corrupt-{seed}.db"));
    if path.exists() {
        return Some(path.display().to_string());
    }
    let work = temp_dir(seed).with_extension("save");
    std::fs::create_dir_all(&work).ok()?;
    let built = make(seed, &work);
    let _ = std::fs::remove_dir_all(&work);
    let built = built.ok()?;
    std::fs::create_dir_all(dir).ok()?;
    std::fs::write(&path, &built.bytes).ok()?;
    let notes = format!(
        "ringlite-compat fuzz --mode corrupt --seed {seed} --cases 1\n{}\nmutations:\n{}\nsteps:\n{}\n",
        built.settings,
        built.mutations.join("\n"),
        STEPS.join(";\n")
    );
    std::fs::write(path.with_extension("txt"), notes).ok()?;
    Some(path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_always_means_the_same_file() {
        let dir = temp_dir(u64::MAX).with_extension("test");
        std::fs::create_dir_all(&dir).unwrap();
        for seed in 0..6 {
            let a = make(seed, &dir).unwrap();
            let b = make(seed, &dir).unwrap();
            assert_eq!(a.mutations, b.mutations);
            assert!(a.bytes == b.bytes, "seed {seed}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
