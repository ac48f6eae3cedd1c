//! # Fuzzing in a child process: crashes and hangs become reported failures
//!
//! `fuzz --mode deep|corrupt` runs its cases in a worker process (this
//! same binary with `--worker`), which reports each case on its stdout:
//!
//! ```text
//! case <seed>                  about to run it
//! fail <seed> <kind> <text>    a failure (one line)
//! done <seed> <tag>            finished; the tag classifies it for the summary
//! end                          no more cases (all run, or the time is up)
//! ```
//!
//! The supervisor reads those lines. A worker that dies (a stack overflow
//! aborts the process, a signal kills it) is a `crash` of the case it was
//! running; one silent for longer than two case timeouts plus the
//! watchdog's grace is killed and the case is a `hang`. The case is saved
//! (regenerated from its seed), and a new worker continues after it: one
//! crash never hides the cases behind it.
//!
//! Failure kinds: `crash`, `hang` (also: a case the watchdog had to
//! interrupt), `panic` (caught in the worker), and the differences `diff`
//! (deep: outcome or rows), `verdict` (corrupt: integrity_check or
//! quick_check ok against not ok), `class` (corrupt: a read or write
//! succeeded on one engine and failed on the other, or failed with other
//! codes), `rows` (corrupt: different rows from a file both call sound),
//! and `slow` (deep: ours over 2 s and ten times the reference; never
//! fatal, timings on a shared machine vary).

use super::{corrupt, deep, FuzzArgs, FuzzMode};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What one case found, as the worker reports it.
pub struct CaseResult {
    pub tag: String,
    /// (kind, one-line description)
    pub failures: Vec<(&'static str, String)>,
}

/// Kinds that fail a run even without `--strict`.
const ALWAYS_FATAL: &[&str] = &["crash", "hang", "panic"];
/// Kinds reported only (timings on a shared machine).
const NEVER_FATAL: &[&str] = &["slow"];

fn run_case(mode: FuzzMode, seed: u64, f: &FuzzArgs) -> CaseResult {
    match mode {
        FuzzMode::Deep => deep::run_case(seed, f),
        FuzzMode::Corrupt => corrupt::run_case(seed, f),
        FuzzMode::Query => unreachable!("the query fuzzer runs in-process"),
    }
}

fn save_case(mode: FuzzMode, seed: u64, dir: &str) -> Option<String> {
    // (A harness bug regenerating the case must not end the supervisor.)
    std::panic::catch_unwind(|| save_case_unguarded(mode, seed, dir)).ok().flatten()
}

fn save_case_unguarded(mode: FuzzMode, seed: u64, dir: &str) -> Option<String> {
    match mode {
        FuzzMode::Deep => deep::save_case(seed, dir),
        FuzzMode::Corrupt => corrupt::save_case(seed, dir),
        FuzzMode::Query => None,
    }
}

fn one_line(s: &str) -> String {
    s.replace('\n', " \u{23ce} ")
}

/// The worker: run seeds in order, report each on stdout.
pub fn worker(mode: FuzzMode, f: &FuzzArgs) -> ExitCode {
    let end = f.duration.map(|d| Instant::now() + d);
    let out = std::io::stdout();
    for seed in f.seed..f.seed.saturating_add(f.cases) {
        if end.is_some_and(|e| Instant::now() >= e) {
            break;
        }
        let _ = writeln!(out.lock(), "case {seed}");
        let _ = out.lock().flush();
        let r = run_case(mode, seed, f);
        let mut o = out.lock();
        for (kind, text) in &r.failures {
            let _ = writeln!(o, "fail {seed} {kind} {}", one_line(text));
        }
        let _ = writeln!(o, "done {seed} {}", r.tag);
        let _ = o.flush();
    }
    let _ = writeln!(out.lock(), "end");
    ExitCode::SUCCESS
}

struct Summary {
    cases: u64,
    tags: BTreeMap<String, u64>,
    kinds: BTreeMap<&'static str, u64>,
    failures: Vec<String>,
}

impl Summary {
    fn fail(&mut self, kind: &'static str, seed: u64, text: &str, saved: Option<String>) {
        *self.kinds.entry(kind).or_default() += 1;
        let saved = saved.map(|p| format!(" (saved {p})")).unwrap_or_default();
        let line = format!("seed {seed}: {kind}: {text}{saved}");
        println!("{line}");
        self.failures.push(line);
    }
}

fn kind_name(k: &str) -> &'static str {
    ["crash", "hang", "panic", "diff", "verdict", "class", "rows", "slow"].into_iter().find(|n| *n == k).unwrap_or("other")
}

/// The supervisor: run workers until every case ran or the time is up.
pub fn supervise(mode: FuzzMode, f: &FuzzArgs) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("fuzz: cannot find this executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let start = Instant::now();
    let end_seed = f.seed.saturating_add(f.cases);
    let silence = f.case_timeout * 2 + Duration::from_secs(60);
    let mut s = Summary { cases: 0, tags: BTreeMap::new(), kinds: BTreeMap::new(), failures: Vec::new() };
    let mut next = f.seed;
    let mut finished = false;
    while !finished && next < end_seed {
        let mut cmd = Command::new(&exe);
        cmd.args(["fuzz", "--worker", "--mode", mode.name()])
            .args(["--seed", &next.to_string(), "--cases", &(end_seed - next).to_string()])
            .args(["--case-timeout", &f.case_timeout.as_secs().to_string(), "--save-dir", &f.save_dir])
            .args(["--engine", &f.engine.name()]);
        if let Some(d) = f.duration {
            let left = d.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            cmd.args(["--duration", &left.as_secs().max(1).to_string()]);
        }
        let mut child = match cmd.stdout(Stdio::piped()).spawn() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("fuzz: cannot start a worker: {e}");
                return ExitCode::FAILURE;
            }
        };
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<u64> = None;
        loop {
            match rx.recv_timeout(silence) {
                Ok(line) => {
                    let mut parts = line.splitn(4, ' ');
                    match (parts.next(), parts.next().and_then(|x| x.parse::<u64>().ok())) {
                        (Some("case"), Some(seed)) => current = Some(seed),
                        (Some("done"), Some(seed)) => {
                            s.cases += 1;
                            *s.tags.entry(parts.next().unwrap_or("").to_string()).or_default() += 1;
                            current = None;
                            next = seed + 1;
                        }
                        (Some("fail"), Some(seed)) => {
                            let kind = kind_name(parts.next().unwrap_or(""));
                            let text = parts.next().unwrap_or("").to_string();
                            // (Class differences and slow cases are too
                            // many to keep a file of each.)
                            let saved = if ["class", "slow"].contains(&kind) { None } else { save_case(mode, seed, &f.save_dir) };
                            s.fail(kind, seed, &text, saved);
                        }
                        (Some("end"), _) => finished = true,
                        _ => eprintln!("fuzz: worker: {line}"),
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let seed = current.unwrap_or(next);
                    let saved = save_case(mode, seed, &f.save_dir);
                    s.fail("hang", seed, &format!("no answer for {silence:?}; worker killed"), saved);
                    s.cases += 1;
                    next = seed + 1;
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait();
                    if let Some(seed) = current {
                        let how = match &status {
                            Ok(st) if st.code() == Some(124) => "the watchdog ended the worker (an engine ignored the interrupt)".to_string(),
                            Ok(st) => format!("worker died: {st}"),
                            Err(e) => format!("worker lost: {e}"),
                        };
                        let kind = if how.starts_with("the watchdog") { "hang" } else { "crash" };
                        let saved = save_case(mode, seed, &f.save_dir);
                        s.fail(kind, seed, &how, saved);
                        s.cases += 1;
                        next = seed + 1;
                    } else if !finished {
                        eprintln!("fuzz: the worker stopped between cases ({status:?})");
                        finished = true;
                    }
                    break;
                }
            }
        }
    }
    let tags: Vec<String> = s.tags.iter().map(|(t, n)| format!("{t} {n}")).collect();
    let kinds: Vec<String> = s.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "fuzz --mode {} [{}]: {} cases from seed {} in {:.0}s; cases by tag: {}; failures: {}",
        mode.name(),
        f.engine.name(),
        s.cases,
        f.seed,
        start.elapsed().as_secs_f64(),
        tags.join(", "),
        if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") }
    );
    let fatal = s.kinds.keys().any(|k| ALWAYS_FATAL.contains(k) || (f.strict && !NEVER_FATAL.contains(k)));
    if fatal {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
