//! # ringlite-bench: ringlite against real SQLite, as ratios
//!
//! `cargo run -p ringlite-bench --release -- <storage|sql|tenants|slow|openloop|idle|readahead|prepsplit|memory|all> [--quick] [--runs N] [--out FILE] [--only SUBSTRING] [--skip SUBSTRING] [--counts N,N,...] [--set KEY=VALUE;...]`
//!
//! Every workload runs on both engines in the same process, on byte copies
//! of the same database file, with the same page size, cache size,
//! journal mode and synchronous setting; the result is the ratio
//! ringlite / SQLite. Absolute times depend on the machine and its load,
//! the ratio much less, so only ratios are meant to be compared across
//! runs (and tests never assert timings).
//!
//! Why a hand-rolled harness rather than `criterion`: criterion measures
//! one closure at a time and reports absolute statistics per benchmark; we
//! need paired SQLite/ringlite measurements of workloads with expensive
//! untimed setup (fresh files for every insert run) collected into one
//! ratio table, plus a seconds-long smoke mode. A warm-up run and the
//! median of N timed runs (see [`harness`]) is enough at the
//! millisecond-to-second scale of these workloads.
//!
//! `--only SUBSTRING` runs only the workloads whose name contains it (for
//! profiling one workload under `perf`; in the `slow` suite the name is
//! "workload configuration", e.g. `--only "mixed (30% updates) ringlite async"`); `--runs N` sets the timed runs;
//! `--skip SUBSTRING` leaves out the workloads whose name contains it;
//! `--counts 1,100` runs the tenants suite at those tenant counts only.
//! `prepsplit` splits the prepare of the sql suite's statements into its
//! parts (parser crate, glue, compile, finalize) next to SQLite's whole
//! prepare (not part of `all`).
//!
//! `openloop` is the open-loop multi-tenant benchmark (Poisson arrivals,
//! latency from arrival; see [`openloop`]); `--counts` sets its tenant
//! counts and `--set "loads=50,80;pools=2,8;secs=2;storage=cached;mix=read"`
//! the rest. `idle` measures memory and open cost per idle tenant (see
//! [`idle`]); `readahead` one cold statement's latency on slow storage
//! (see [`readahead`]); `steady` CPU per request once the tenants are
//! open, one thread, `--only sqlite|blocking|async` for a profile (see
//! [`steady`]). None of them is part of `all`.
//!
//! `memory` runs each large-value step (a zero-blob of nearly 1 GB, a
//! 100 MB random blob) in a child process and reports each engine's peak
//! RSS (not part of `all`: it writes two 1 GB files).
//!
//! `--quick` shrinks every suite to a few seconds and exits non-zero if
//! any workload failed; the smoke test runs it.

mod data;
mod engine;
mod harness;
mod heap;
mod idle;
mod memory;
mod openloop;
mod openloop_plot;
mod openloop_run;
mod plot;
mod prepsplit;
mod readahead;
mod sched;
mod slow;
mod slowvfs;
mod sql;
mod steady;
mod storage;
mod tenants;

#[global_allocator]
static RUST_HEAP: heap::RustHeap = heap::RustHeap;

use harness::{markdown, Config, Outcome, Row};
use std::fmt::Write as _;
use std::path::PathBuf;

struct Args {
    suites: Vec<String>,
    quick: bool,
    runs: Option<usize>,
    out: Option<PathBuf>,
    only: Option<&'static str>,
    skip: Option<&'static str>,
    counts: Option<Vec<usize>>,
    set: Option<String>,
}

fn usage() -> ! {
    eprintln!("usage: ringlite-bench <storage|sql|tenants|slow|openloop|idle|readahead|prepsplit|memory|steady|all>... [--quick] [--runs N] [--out FILE.md] [--only SUBSTRING] [--skip SUBSTRING] [--counts N,N,...] [--set KEY=VALUE;...]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args { suites: Vec::new(), quick: false, runs: None, out: None, only: None, skip: None, counts: None, set: None };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--quick" => a.quick = true,
            "--runs" => a.runs = Some(it.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| usage())),
            "--only" => a.only = Some(Box::leak(it.next().unwrap_or_else(|| usage()).into_boxed_str())),
            "--skip" => a.skip = Some(Box::leak(it.next().unwrap_or_else(|| usage()).into_boxed_str())),
            "--counts" => a.counts = Some(it.next().and_then(|l| l.split(',').map(|n| n.trim().parse().ok()).collect()).unwrap_or_else(|| usage())),
            "--set" => a.set = Some(it.next().unwrap_or_else(|| usage())),
            "--out" => a.out = Some(PathBuf::from(it.next().unwrap_or_else(|| usage()))),
            "storage" | "sql" | "tenants" | "slow" | "openloop" | "idle" | "readahead" | "prepsplit" | "memory" | "steady" => a.suites.push(x),
            "all" => a.suites.extend(["storage", "sql", "tenants", "slow"].map(String::from)),
            _ => usage(),
        }
    }
    if a.suites.is_empty() {
        usage();
    }
    a
}

fn failed(rows: &[Row]) -> bool {
    rows.iter().any(|r| matches!(r.sqlite, Outcome::Failed(_)) || matches!(r.ringlite, Outcome::Failed(_)))
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("memory-child") && argv.len() == 5 {
        let step = argv[3].parse().unwrap_or(usize::MAX);
        if let Err(e) = memory::child(&argv[2], step, std::path::Path::new(&argv[4])) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let args = parse_args();
    let cfg = Config { runs: args.runs.unwrap_or(if args.quick { 1 } else { 5 }), quick: args.quick, only: args.only, skip: args.skip };
    let dir = match tempfile::Builder::new().prefix("ringlite-bench").tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot create a temporary directory: {e}");
            std::process::exit(1);
        }
    };
    let mut report = String::new();
    let _ = writeln!(
        report,
        "## ringlite-bench {}{} (median of {} runs after a warm-up)\n",
        args.suites.join(" "),
        if args.quick { " --quick" } else { "" },
        cfg.runs
    );
    let mut any_failed = false;
    for suite in &args.suites {
        eprintln!("running suite {suite}...");
        let result = match suite.as_str() {
            "storage" => storage::run(cfg, dir.path()).map(|rows| {
                any_failed |= failed(&rows);
                markdown("storage", &rows)
            }),
            "sql" => sql::run(cfg, dir.path()).map(|rows| {
                any_failed |= failed(&rows);
                markdown("sql", &rows)
            }),
            "prepsplit" => prepsplit::run(cfg, dir.path()),
            "memory" => memory::run(dir.path(), args.only).map(|(failed, md)| {
                any_failed |= failed;
                md
            }),
            "tenants" => tenants::run(args.quick, args.counts.clone(), dir.path()).map(|(points, md)| {
                any_failed |= points.iter().any(|p| p.result.is_err());
                let plot_base = args.out.as_ref().map_or(PathBuf::from("tenants"), |o| o.with_file_name("tenants"));
                let made = if args.quick { Vec::new() } else { plot::write(&points, &plot_base) };
                if made.is_empty() {
                    md
                } else {
                    format!("{md}\nPlot: {}\n", made.join(", "))
                }
            }),
            "openloop" => {
                let mut sz = openloop::Sizes::new(args.quick);
                if let Some(c) = args.counts.clone().filter(|c| !c.is_empty()) {
                    sz.counts = c;
                }
                match args.set.as_deref().map_or(Ok(()), |s| sz.set(s)) {
                    Err(e) => Err(e),
                    Ok(()) => openloop::run(&sz, dir.path()).map(|(points, md)| {
                        any_failed |= points.iter().any(|p| p.result.is_err());
                        let base = args.out.as_ref().map_or(PathBuf::from("openloop"), |o| o.with_file_name("openloop"));
                        let made = if args.quick { Vec::new() } else { openloop_plot::write(&points, &base) };
                        if made.is_empty() {
                            md
                        } else {
                            format!("{md}\nPlots: {}\n", made.join(", "))
                        }
                    }),
                }
            }
            "idle" => idle::run(args.quick, args.counts.clone(), dir.path()),
            "steady" => steady::run(args.quick, args.counts.clone(), args.only, dir.path()),
            "readahead" => readahead::run(args.quick, dir.path()),
            "slow" => slow::run(args.quick, args.only, args.skip, dir.path()).map(|(failed, md)| {
                any_failed |= failed;
                md
            }),
            _ => unreachable!("parse_args accepts only known suites"),
        };
        match result {
            Ok(md) => {
                println!("{md}");
                report.push_str(&md);
                report.push('\n');
            }
            Err(e) => {
                any_failed = true;
                eprintln!("suite {suite} failed during setup: {e}");
                let _ = writeln!(report, "### {suite}\n\nsetup failed: {e}\n");
            }
        }
    }
    if let Some(out) = &args.out {
        if let Err(e) = std::fs::write(out, &report) {
            eprintln!("cannot write {}: {e}", out.display());
            any_failed = true;
        }
    }
    if any_failed {
        eprintln!("some workloads FAILED (see the table)");
        std::process::exit(1);
    }
}
