//! # Peak memory of large values (the `memory` suite)
//!
//! Each step runs in a child process of this binary (`memory-child ENGINE
//! STEP DIR`), so the parent can read that child's own peak resident set
//! from `wait4`'s `ru_maxrss`: a large value's cost shows there, not in a
//! heap counter (a zero-filled allocation the kernel has not backed yet
//! costs nothing until written). Steps run in order on one database file
//! per engine, so the read steps read what the insert steps wrote, on a
//! cold process (no cache carried over).
//!
//! The zero-blob size is the largest a record may hold under the default
//! `SQLITE_LIMIT_LENGTH` of 1,000,000,000 (the record's header counts too:
//! `zeroblob(1000000000)` itself is "string or blob too big" in SQLite).

use crate::engine::{Engine, Ringlite, Sqlite, R};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// The zero-blob's size: 1e9 less room for the record header.
const ZERO_BYTES: u64 = 999_999_000;
/// The random blob's size.
const RANDOM_BYTES: u64 = 100_000_000;

/// The steps: name, SQL, and whether the statement's first column of the
/// first row is fetched as a blob (its length checked) rather than text.
fn steps() -> Vec<(&'static str, String, Fetch)> {
    vec![
        ("zeroblob: INSERT zeroblob(999999000)", format!("CREATE TABLE z(x); INSERT INTO z VALUES(zeroblob({ZERO_BYTES}))"), Fetch::None),
        ("zeroblob: SELECT length(x)", "SELECT length(x) FROM z".into(), Fetch::Text(ZERO_BYTES.to_string())),
        ("zeroblob: SELECT typeof(x) || octet_length(x)", "SELECT typeof(x) || octet_length(x) FROM z".into(), Fetch::Text(format!("blob{ZERO_BYTES}"))),
        ("zeroblob: SELECT hex(substr(x, 500000000, 10))", "SELECT hex(substr(x, 500000000, 10)) FROM z".into(), Fetch::Text("00".repeat(10))),
        ("randomblob: INSERT randomblob(100000000)", format!("CREATE TABLE r(x); INSERT INTO r VALUES(randomblob({RANDOM_BYTES}))"), Fetch::None),
        ("randomblob: SELECT x (fetched as a blob)", "SELECT x FROM r".into(), Fetch::BlobLen(RANDOM_BYTES as usize)),
        ("randomblob: SELECT length(x)", "SELECT length(x) FROM r".into(), Fetch::Text(RANDOM_BYTES.to_string())),
        ("randomblob: SELECT length(hex(substr(x, 50000000, 4)))", "SELECT length(hex(substr(x, 50000000, 4))) FROM r".into(), Fetch::Text("8".into())),
    ]
}

/// What a step fetches from its statement's first row.
#[derive(Clone)]
enum Fetch {
    /// Nothing: the statements run to the end.
    None,
    /// Column 0 as text, which must equal this.
    Text(String),
    /// Column 0 as a blob of this many bytes.
    BlobLen(usize),
}

/// The child's side: run step `step` on `engine` in `dir`.
pub fn child(engine: &str, step: usize, dir: &Path) -> R<()> {
    let (_, sql, fetch) = steps().into_iter().nth(step).ok_or("no such step")?;
    let path = dir.join(format!("{engine}.db"));
    match engine {
        "sqlite" => run_step(&mut Sqlite::open(&path)?, &sql, &fetch, |e, s| e.blob_len(s)),
        "ringlite" => run_step(&mut Ringlite::open(&path)?, &sql, &fetch, |e, s| e.blob_len(s)),
        _ => Err(format!("unknown engine {engine}")),
    }
}

fn run_step<E: Engine>(e: &mut E, sql: &str, fetch: &Fetch, blob_len: impl Fn(&E, &E::Stmt) -> usize) -> R<()> {
    match fetch {
        Fetch::None => e.exec(sql),
        Fetch::Text(want) => {
            let got = e.query_text(sql)?;
            if &got != want {
                return Err(format!("{sql}: got {got:?}, want {want:?}"));
            }
            Ok(())
        }
        Fetch::BlobLen(want) => {
            let mut s = e.prepare(sql)?;
            let got = if e.step(&mut s)? { blob_len(e, &s) } else { 0 };
            e.finalize(s);
            if got != *want {
                return Err(format!("{sql}: blob of {got} bytes, want {want}"));
            }
            Ok(())
        }
    }
}

/// Run one child step; its peak RSS in KiB and wall time.
fn measure(engine: &str, step: usize, dir: &Path) -> R<(u64, Duration)> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let child = std::process::Command::new(exe).arg("memory-child").arg(engine).arg(step.to_string()).arg(dir).spawn().map_err(|e| e.to_string())?;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child just spawned; `status` and `usage` are
    // valid for writes.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    if pid < 0 {
        return Err("wait4 failed".into());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("{engine} step {step} failed (status {status})"));
    }
    Ok((usage.ru_maxrss as u64, elapsed))
}

/// The parent's side: every step on both engines, as a markdown table
/// (`only`: just the steps whose name contains it, e.g. `randomblob`;
/// the steps that read need the ones that wrote before them).
pub fn run(dir: &Path, only: Option<&str>) -> R<(bool, String)> {
    let mut md = String::new();
    let _ = writeln!(md, "### memory (peak RSS of a child process per step)\n");
    let _ = writeln!(md, "| step | SQLite 3.54.1 peak RSS | ringlite peak RSS | ratio | SQLite time | ringlite time |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|");
    let mut failed = false;
    for (i, (name, _, _)) in steps().iter().enumerate() {
        if only.is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let s = measure("sqlite", i, dir);
        let r = measure("ringlite", i, dir);
        let cell = |m: &R<(u64, Duration)>| match m {
            Ok((kib, _)) => format!("{:.1} MiB", *kib as f64 / 1024.0),
            Err(e) => format!("FAILED: {e}"),
        };
        let time = |m: &R<(u64, Duration)>| match m {
            Ok((_, t)) => format!("{:.2} s", t.as_secs_f64()),
            Err(_) => "-".into(),
        };
        let ratio = match (&s, &r) {
            (Ok((a, _)), Ok((b, _))) => format!("{:.2}x", *b as f64 / (*a).max(1) as f64),
            _ => "-".into(),
        };
        failed |= s.is_err() || r.is_err();
        let _ = writeln!(md, "| {name} | {} | {} | {ratio} | {} | {} |", cell(&s), cell(&r), time(&s), time(&r));
        eprintln!("  {name}: sqlite {} ringlite {}", cell(&s), cell(&r));
    }
    Ok((failed, md))
}
