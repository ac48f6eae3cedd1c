//! # ringlite-compat: differential sqllogictest runner and fuzzer
//!
//! ```text
//! ringlite-compat [validate|diff|complete] [options] <file.test|dir>...
//! ringlite-compat fuzz [--seed S] [--cases N] [--engine E] [--save-dir D]
//!                      [--budget REPLAYS] [--strict]
//! ringlite-compat fuzz --mode deep|corrupt [--seed S] [--cases N] [--duration SECS]
//!                      [--case-timeout SECS] [--engine E] [--save-dir D] [--strict]
//! options: --engine reference|ringlite|capi:<path.so>   (default reference)
//!          --jobs N  --timeout SECS  --max-diffs N  --quiet
//!          --ratchet FILE [--update-ratchet]  [--root DIR] --list FILE (paths under DIR, one a line)
//!          --status FILE (write pass rates and failure causes as Markdown)
//!          --async (ringlite: file-backed database, async connection on io_uring)
//!          --sim-seed N (ringlite: async connection on the simulated backend,
//!                        completions delayed and reordered from seed N)
//! ```
//! Directories are searched recursively for `*.test`. Each argument is a
//! corpus: a total line is printed per corpus, then `N passed, M failed`
//! over all records. Exit status: with `--ratchet`, non-zero only on a
//! regression; without, non-zero on any failure. Backends, formatting and
//! modes are described in `engine`, `slt::format` and `slt::runner`.

mod engine;
mod fuzz;
mod ratchet;
mod slt;
mod status;
mod watchdog;

use engine::EngineKind;
use slt::runner::{run_file, FileReport, Mode, Options};
use std::collections::VecDeque;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Args {
    opts: Options,
    jobs: usize,
    quiet: bool,
    ratchet: Option<String>,
    update_ratchet: bool,
    status: Option<String>,
    /// (name, root the ratchet keys are relative to, files)
    corpora: Vec<(String, String, Vec<String>)>,
    root: Option<String>,
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("ringlite-compat: {msg}");
    eprintln!("usage: ringlite-compat [validate|diff|complete] [--engine reference|ringlite|capi:<so>] [--jobs N] [--timeout S] [--max-diffs N] [--quiet] [--ratchet F [--update-ratchet]] [--list F] [--async | --sim-seed N] files|dirs...");
    eprintln!("       ringlite-compat fuzz [--seed S] [--cases N] [--engine E] [--save-dir D] [--budget R] [--strict]");
    eprintln!("       ringlite-compat fuzz --mode deep|corrupt [--seed S] [--cases N] [--duration S] [--case-timeout S] [--save-dir D] [--strict]");
    ExitCode::from(2)
}

fn collect_tests(path: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)?.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() || p.extension().is_some_and(|e| e == "test") {
                collect_tests(&p, out)?;
            }
        }
    } else {
        out.push(path.to_string_lossy().into_owned());
    }
    Ok(())
}

fn parse_args(mut argv: VecDeque<String>) -> Result<Args, String> {
    let mode = match argv.front().map(String::as_str) {
        Some("validate") => Mode::Validate,
        Some("diff") => Mode::Diff,
        Some("complete") => Mode::Complete,
        _ => {
            argv.push_front("validate".into());
            Mode::Validate
        }
    };
    argv.pop_front();
    let mut args = Args {
        opts: Options { mode, engine: EngineKind::Reference, timeout: Duration::from_secs(900), max_diffs: 3 },
        jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        quiet: false,
        ratchet: None,
        update_ratchet: false,
        status: None,
        root: None,
        corpora: Vec::new(),
    };
    if mode == Mode::Diff {
        args.opts.engine = EngineKind::Ringlite;
    }
    while let Some(a) = argv.pop_front() {
        let mut value = |name: &str| argv.pop_front().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--engine" => args.opts.engine = EngineKind::parse(&value("--engine")?)?,
            "--jobs" => args.jobs = value("--jobs")?.parse().map_err(|_| "--jobs: not a number")?,
            "--timeout" => args.opts.timeout = Duration::from_secs(value("--timeout")?.parse().map_err(|_| "--timeout: seconds")?),
            "--max-diffs" => args.opts.max_diffs = value("--max-diffs")?.parse().map_err(|_| "--max-diffs: number")?,
            "--quiet" => args.quiet = true,
            "--ratchet" => args.ratchet = Some(value("--ratchet")?),
            "--update-ratchet" => args.update_ratchet = true,
            "--status" => args.status = Some(value("--status")?),
            "--root" => args.root = Some(value("--root")?),
            "--async" => engine::ringlite::set_io_mode(engine::ringlite::IoMode::AsyncFile),
            "--sim-seed" => {
                let seed = value("--sim-seed")?.parse().map_err(|_| "--sim-seed: a number")?;
                engine::ringlite::set_io_mode(engine::ringlite::IoMode::AsyncSim(seed));
            }
            "--list" => {
                let list = value("--list")?;
                let text = std::fs::read_to_string(&list).map_err(|e| format!("{list}: {e}"))?;
                let root = args.root.clone().unwrap_or_else(|| ".".into());
                let files = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(|l| Path::new(&root).join(l).to_string_lossy().into_owned())
                    .collect();
                args.corpora.push((list, root, files));
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            path => {
                let mut files = Vec::new();
                collect_tests(Path::new(path), &mut files).map_err(|e| format!("{path}: {e}"))?;
                let p = Path::new(path);
                let root = if p.is_dir() { p } else { p.parent().unwrap_or(Path::new("")) };
                args.corpora.push((path.trim_end_matches('/').to_string(), root.to_string_lossy().into_owned(), files));
            }
        }
    }
    if args.corpora.is_empty() {
        return Err("no scripts given".into());
    }
    args.jobs = args.jobs.max(1);
    Ok(args)
}

/// Run every file on `jobs` threads, biggest first; reports in input order.
fn run_all(files: &[String], opts: &Options, jobs: usize) -> Vec<FileReport> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(std::fs::metadata(&files[i]).map(|m| m.len()).unwrap_or(0)));
    let queue = Arc::new(Mutex::new(VecDeque::from(order)));
    let results: Arc<Mutex<Vec<Option<FileReport>>>> = Arc::new(Mutex::new(vec![None; files.len()]));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let queue = queue.clone();
            let results = results.clone();
            s.spawn(move || loop {
                let Some(i) = queue.lock().unwrap().pop_front() else { break };
                let report = run_file(&files[i], opts);
                results.lock().unwrap()[i] = Some(report);
            });
        }
    });
    let results = match Arc::try_unwrap(results) {
        Ok(results) => results.into_inner().unwrap(),
        Err(_) => unreachable!("every worker has been joined by the scope"),
    };
    results.into_iter().map(|r| r.expect("every file ran")).collect()
}

fn print_report(r: &FileReport, quiet: bool) {
    let ok = r.failed() == 0 && r.fatal.is_none();
    if ok {
        if !quiet {
            println!("PASS {} ({} records, {:.1}s)", r.path, r.total, r.elapsed.as_secs_f64());
        }
        return;
    }
    println!("FAIL {}: {}/{} records passed ({:.1}s)", r.path, r.passed, r.total, r.elapsed.as_secs_f64());
    if let Some(f) = &r.fatal {
        println!("  stopped: {f}");
    }
    for f in &r.failures {
        println!("  line {}: {}", f.line, f.sql.replace('\n', "\n    "));
        println!("    expected: {}", f.expected.replace('\n', " | "));
        println!("    got:      {}", f.got.replace('\n', " | "));
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|_| {})); // panics are reported per record
    let argv: VecDeque<String> = std::env::args().skip(1).collect();
    if argv.front().map(String::as_str) == Some("fuzz") {
        return fuzz::main(argv.into_iter().skip(1).collect());
    }
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        return usage("help");
    }
    let args = match parse_args(argv) {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    let start = Instant::now();
    let mut all = Vec::new();
    let mut lines = Vec::new();
    let mut per_corpus = Vec::new();
    for (name, root, files) in &args.corpora {
        let mut reports = run_all(files, &args.opts, args.jobs);
        for r in &mut reports {
            let rel = Path::new(&r.path).strip_prefix(root).map(|p| p.to_string_lossy().into_owned());
            r.name = rel.unwrap_or_else(|_| r.path.clone());
        }
        for r in &reports {
            print_report(r, args.quiet);
            if let Some(text) = &r.completed {
                if let Err(e) = std::fs::write(&r.path, text) {
                    eprintln!("{}: cannot write: {e}", r.path);
                }
            }
        }
        let passed: usize = reports.iter().map(|r| r.passed).sum();
        let total: usize = reports.iter().map(|r| r.total).sum();
        let files_ok = reports.iter().filter(|r| r.failed() == 0 && r.fatal.is_none()).count();
        let pct = if total == 0 { 100.0 } else { 100.0 * passed as f64 / total as f64 };
        lines.push(format!("corpus {name} [{}]: {files_ok}/{} files, {passed}/{total} records passed ({pct:.2}%)", args.opts.engine.name(), reports.len()));
        per_corpus.push((name.clone(), files_ok, reports.len(), passed, total));
        all.extend(reports);
    }
    if let Some(path) = &args.status {
        if let Err(e) = status::write(path, &args.opts.engine.name(), &per_corpus, &all) {
            eprintln!("{path}: {e}");
        }
    }
    for l in &lines {
        println!("{l}");
    }
    let passed: usize = all.iter().map(|r| r.passed).sum();
    let failed: usize = all.iter().map(|r| r.failed()).sum();
    let broken = all.iter().filter(|r| r.fatal.is_some()).count();
    println!("time {:.1}s", start.elapsed().as_secs_f64());
    let mut status = if failed == 0 && broken == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    if let Some(path) = &args.ratchet {
        let mut ratchet = match ratchet::load(path) {
            Ok(r) => r,
            Err(e) => return usage(&e),
        };
        let regressions = ratchet::regressions(&ratchet, &all);
        for r in &regressions {
            println!("REGRESSION {r}");
        }
        for r in all.iter().filter(|r| r.timed_out) {
            println!("TIMEOUT {} ({} records passed; not judged by the ratchet)", r.name, r.passed);
        }
        status = if regressions.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
        if args.update_ratchet {
            ratchet::update(&mut ratchet, &all);
            if let Err(e) = ratchet::save(path, &ratchet, &args.opts.engine.name()) {
                eprintln!("{e}");
                status = ExitCode::FAILURE;
            }
        }
        println!("ratchet {path}: {} regressions", regressions.len());
    }
    println!("{passed} passed, {failed} failed");
    status
}
