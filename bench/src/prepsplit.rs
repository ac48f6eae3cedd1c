//! The `prepsplit` suite: where ringlite's prepare time of the `sql`
//! suite's SIMPLE and COMPLEX statements goes, next to SQLite's whole
//! prepare_v2+finalize of the same text (issue #3's prepare goal).
//!
//! Both engines run on a database holding only the `sql` suite's schema
//! (prepare reads no table data). Each part is timed by the process's CPU
//! time over a loop of many statements, median of `--runs` runs after a
//! warm-up:
//! - `sqlite prepare+finalize`: the reference;
//! - `parser crate alone`: `sqlite3-parser`'s `Parser::new` and `next` on
//!   a reused arena (what no change of ours can make cheaper);
//! - `parse through the glue`: `ringlite::sql::parse::with_first_statement`
//!   (the crate plus stack growth, panic containment and the checks the
//!   glue adds);
//! - `prepare`: `Connection::prepare` (parse, name resolution, planning,
//!   code generation, the `Statement`), statements kept;
//! - `finalize`: dropping the statements the previous part kept;
//! - `prepare+finalize, one after the other`: each statement dropped
//!   before the next is prepared, as the `sql` suite measures (cheaper
//!   than the two parts apart: the allocator reuses the same memory).
//!
//! Name resolution, planning and code generation interleave (the code
//! generator calls them as it goes), so they are split with
//! `perf record -g` on `examples/prepare_prof`, not here.

use crate::engine::{Engine, Sqlite};
use crate::harness::Config;
use crate::sql::{COMPLEX, SCHEMA, SIMPLE};
use ringlite::{Connection, OpenFlags};
use sqlite3_parser::FallibleIterator;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

type R<T> = Result<T, String>;

fn cpu_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Median CPU time of `runs` runs of `work` (after one untimed run).
/// `work` times its own part and returns it.
fn median(runs: usize, mut work: impl FnMut() -> R<Duration>) -> R<Duration> {
    work()?;
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        times.push(work()?);
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn timed(f: impl FnOnce() -> R<()>) -> R<Duration> {
    let t = cpu_now();
    f()?;
    Ok(cpu_now().saturating_sub(t))
}

fn exec_ringlite(c: &mut Connection, sql: &str) -> R<()> {
    let mut rest = sql.as_bytes();
    loop {
        let (st, tail) = c.prepare(rest).map_err(|e| e.to_string())?;
        if let Some(mut st) = st {
            while matches!(st.step(c).map_err(|e| e.to_string())?, ringlite::StepResult::Row | ringlite::StepResult::Io) {}
        }
        if tail == 0 || tail >= rest.len() {
            return Ok(());
        }
        rest = &rest[tail..];
    }
}

/// The markdown table of the split.
pub fn run(cfg: Config, dir: &Path) -> R<String> {
    let path = dir.join("prepsplit.db");
    {
        let mut s = Sqlite::open(&path)?;
        s.exec(SCHEMA)?;
    }
    let mut sqlite = Sqlite::open(&path)?;
    let mut conn = Connection::open(path.to_str().ok_or("path")?, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).map_err(|e| e.to_string())?;
    exec_ringlite(&mut conn, "SELECT 1")?;
    let mut md = String::new();
    let _ = writeln!(md, "### prepsplit (CPU µs per statement, median of {} runs)\n", cfg.runs);
    let _ = writeln!(md, "| part | simple | complex |\n|---|---:|---:|");
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for (sql, n) in [(SIMPLE, 20_000usize), (COMPLEX, 4_000)] {
        let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        let sq = median(cfg.runs, || {
            timed(|| {
                for _ in 0..n {
                    let s = sqlite.prepare(sql)?;
                    sqlite.finalize(s);
                }
                Ok(())
            })
        })?;
        let mut bump = sqlite3_parser::Bump::new();
        let crate_only = median(cfg.runs, || {
            timed(|| {
                for _ in 0..n {
                    bump.reset();
                    let mut p = sqlite3_parser::lexer::sql::Parser::new(&bump, sql.as_bytes());
                    let cmd = p.next().map_err(|e| e.to_string())?;
                    std::hint::black_box(&cmd);
                }
                Ok(())
            })
        })?;
        let glue = median(cfg.runs, || {
            timed(|| {
                for _ in 0..n {
                    ringlite::sql::parse::with_first_statement(sql.as_bytes(), |cmd, tail| {
                        std::hint::black_box((cmd, tail));
                        Ok(())
                    })
                    .map_err(|e| e.to_string())?;
                }
                Ok(())
            })
        })?;
        let interleaved = median(cfg.runs, || {
            timed(|| {
                for _ in 0..n {
                    let (st, _) = conn.prepare(sql.as_bytes()).map_err(|e| e.to_string())?;
                    drop(std::hint::black_box(st));
                }
                Ok(())
            })
        })?;
        let mut kept = Vec::with_capacity(n);
        let mut drops = Vec::new();
        let prep = median(cfg.runs, || {
            let t = timed(|| {
                for _ in 0..n {
                    let (st, _) = conn.prepare(sql.as_bytes()).map_err(|e| e.to_string())?;
                    kept.push(st);
                }
                Ok(())
            })?;
            drops.push(timed(|| {
                kept.clear();
                Ok(())
            })?);
            Ok(t)
        })?;
        drops.sort();
        let fin = drops[drops.len() / 2];
        cols.push(vec![per(sq), per(crate_only), per(glue), per(prep), per(fin), per(prep + fin), per(interleaved), per(interleaved) / per(sq)]);
    }
    let names = [
        "SQLite prepare_v2+finalize",
        "sqlite3-parser crate alone",
        "parse through ringlite's glue",
        "ringlite prepare (Statement kept)",
        "ringlite finalize (drop)",
        "ringlite prepare, then finalize (the two rows above)",
        "ringlite prepare+finalize, one after the other",
        "ratio ringlite/SQLite (one after the other)",
    ];
    for (i, name) in names.iter().enumerate() {
        if i == names.len() - 1 {
            let _ = writeln!(md, "| {name} | {:.2}× | {:.2}× |", cols[0][i], cols[1][i]);
        } else {
            let _ = writeln!(md, "| {name} | {:.2} | {:.2} |", cols[0][i], cols[1][i]);
        }
    }
    Ok(md)
}
