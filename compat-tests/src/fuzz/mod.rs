//! # Differential fuzzer
//!
//! `ringlite-compat fuzz [--mode query|deep|corrupt] [--seed S] [--cases N]
//! [--engine E] [--save-dir D] [--budget R] [--strict] [--duration SECS]
//! [--case-timeout SECS]`. Modes `deep` ([`deep`]: deep and wide
//! statements) and `corrupt` ([`corrupt`]: damaged database files) run in
//! a supervised child process ([`supervise`]): crashes and hangs are
//! reported with their seed. What follows describes the default mode,
//! `query`.
//!
//! `query` runs cases `S..S+N`, each generated from its own
//! seed (ChaCha8, so a seed means the same case on every machine), on the
//! reference and on the engine under test. A mismatch is shrunk and saved
//! as `<save-dir>/<seed>.test`, a script completed from the reference (it
//! passes on SQLite by construction and fails on the engine until fixed),
//! unless a saved script has the same statements, or (for an error or a
//! panic) the same masked message: one script per failure mode.
//!
//! Exit status is 0 unless `--strict` is given and some case mismatched:
//! while the engine is young, mismatches are the expected output.

pub mod ast;
pub mod corrupt;
pub mod deep;
pub mod deep_gen;
pub mod gen;
pub mod isolate;
pub mod layout;
pub mod shrink;
pub mod supervise;

use crate::engine::EngineKind;
use crate::slt::runner::{cause_of, Outcome};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shrink::{render, replay, Step};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuzzMode {
    /// Random schemas and queries, shrunk to regression scripts.
    Query,
    /// Deep and wide statements around the limits.
    Deep,
    /// Damaged database files.
    Corrupt,
}

impl FuzzMode {
    pub fn name(self) -> &'static str {
        match self {
            FuzzMode::Query => "query",
            FuzzMode::Deep => "deep",
            FuzzMode::Corrupt => "corrupt",
        }
    }
}

pub struct FuzzArgs {
    pub mode: FuzzMode,
    pub seed: u64,
    pub cases: u64,
    pub engine: EngineKind,
    pub save_dir: String,
    pub budget: usize,
    pub strict: bool,
    /// Stop starting cases after this long (deep and corrupt modes).
    pub duration: Option<Duration>,
    /// Per engine and case: past it the watchdog interrupts (a hang).
    pub case_timeout: Duration,
    /// This process is the supervised child.
    pub worker: bool,
}

fn parse(args: Vec<String>) -> Result<FuzzArgs, String> {
    let mut f = FuzzArgs {
        mode: FuzzMode::Query,
        duration: None,
        case_timeout: Duration::from_secs(10),
        worker: false,
        seed: 1,
        cases: 200,
        engine: EngineKind::Ringlite,
        save_dir: "compat-tests/scripts/regressions".into(),
        budget: 300,
        strict: false,
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut value = |n: &str| it.next().ok_or_else(|| format!("{n} needs a value"));
        match a.as_str() {
            "--seed" => f.seed = value("--seed")?.parse().map_err(|_| "--seed: number")?,
            "--cases" => f.cases = value("--cases")?.parse().map_err(|_| "--cases: number")?,
            "--engine" => f.engine = EngineKind::parse(&value("--engine")?)?,
            "--save-dir" => f.save_dir = value("--save-dir")?,
            "--budget" => f.budget = value("--budget")?.parse().map_err(|_| "--budget: number")?,
            "--strict" => f.strict = true,
            "--worker" => f.worker = true,
            "--mode" => {
                f.mode = match value("--mode")?.as_str() {
                    "query" => FuzzMode::Query,
                    "deep" => FuzzMode::Deep,
                    "corrupt" => FuzzMode::Corrupt,
                    m => return Err(format!("--mode: {m}? (query, deep, corrupt)")),
                }
            }
            "--duration" => {
                f.duration = Some(Duration::from_secs(value("--duration")?.parse().map_err(|_| "--duration: seconds")?));
                if f.cases == 200 {
                    f.cases = u64::MAX / 2;
                }
            }
            "--case-timeout" => f.case_timeout = Duration::from_secs(value("--case-timeout")?.parse().map_err(|_| "--case-timeout: seconds")?),
            other => return Err(format!("fuzz: unknown option {other}")),
        }
    }
    Ok(f)
}

/// The case for one seed, as steps.
pub fn case_steps(seed: u64) -> Vec<Step> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let case = gen::generate(&mut rng);
    case.setup.into_iter().map(Step::Setup).chain(case.queries.into_iter().map(|q| Step::Query(Box::new(q)))).collect()
}

/// A script recording the reference's outcome of every step.
fn script(seed: u64, engine: &EngineKind, steps: &[Step], outcomes: &[Outcome]) -> (String, String) {
    let mut body = String::new();
    for (step, outcome) in steps.iter().zip(outcomes) {
        let sql = step.sql();
        match outcome {
            Outcome::Rows(rows) if matches!(step, Step::Query(_)) || rows.columns > 0 => {
                let types = "T".repeat(rows.columns);
                body.push_str(&format!("query {types} rowsort\n{sql}\n----\n"));
                for v in render(outcome) {
                    body.push_str(&v);
                    body.push('\n');
                }
                body.push('\n');
            }
            Outcome::Rows(_) => body.push_str(&format!("statement ok\n{sql}\n\n")),
            Outcome::Error(e) => body.push_str(&format!("statement error {}\n{sql}\n\n", regex::escape(&e.message))),
            Outcome::Panic(_) => {}
        }
    }
    let header = format!("# Found by `ringlite-compat fuzz --seed {seed} --cases 1 --engine {}`, shrunk;\n# results from the reference.\n\n", engine.name());
    (header, body)
}

/// What the engine under test did wrong, for de-duplication: an error or
/// panic by its masked message (one regression script per failure mode is
/// enough); a wrong result has no signature (every one is kept, unless
/// the same statements were saved already).
fn signature(got: &Outcome) -> Option<String> {
    match got {
        Outcome::Rows(_) => None,
        Outcome::Error(e) => Some(cause_of(&format!("error {}", e.message))),
        Outcome::Panic(m) => Some(cause_of(&format!("panic: {m}"))),
    }
}

const SIGNATURE_PREFIX: &str = "# mismatch: ";

fn already_saved(dir: &Path, body: &str, signature: &Option<String>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.filter_map(|e| e.ok()).any(|e| {
        let Ok(text) = std::fs::read_to_string(e.path()) else { return false };
        let same_body = text.split_once("\n\n").map(|(_, b)| b) == Some(body);
        let same_signature = signature.as_ref().is_some_and(|s| text.lines().any(|l| l.strip_prefix(SIGNATURE_PREFIX) == Some(s.as_str())));
        same_body || same_signature
    })
}

pub fn main(args: Vec<String>) -> ExitCode {
    let f = match parse(args) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match (f.mode, f.worker) {
        (FuzzMode::Query, _) => {}
        (mode, true) => return supervise::worker(mode, &f),
        (mode, false) => return supervise::supervise(mode, &f),
    }
    let dir = Path::new(&f.save_dir);
    let (mut mismatches, mut saved) = (0u64, 0u64);
    // Generator health: queries the reference itself rejects test little.
    let (mut queries, mut rejected) = (0u64, 0u64);
    for seed in f.seed..f.seed + f.cases {
        let steps = case_steps(seed);
        let (reference, first) = replay(&steps, &f.engine);
        for (step, outcome) in steps.iter().zip(&reference) {
            if matches!(step, Step::Query(_)) {
                queries += 1;
                rejected += matches!(outcome, Outcome::Error(_)) as u64;
            }
        }
        let Some((at, got)) = first else { continue };
        mismatches += 1;
        let small = shrink::shrink(steps, &f.engine, f.budget);
        let (outcomes, _) = replay(&small, &f.engine);
        let (_, got) = replay(&small, &f.engine).1.unwrap_or((at, got));
        let sig = signature(&got);
        let (mut header, body) = script(seed, &f.engine, &small, &outcomes);
        if let Some(s) = &sig {
            header = format!("{}{SIGNATURE_PREFIX}{s}\n\n", header.trim_end_matches('\n').to_owned() + "\n");
        }
        if already_saved(dir, &body, &sig) {
            continue;
        }
        let _ = std::fs::create_dir_all(dir);
        let path = dir.join(format!("{seed}.test"));
        match std::fs::write(&path, format!("{header}{body}")) {
            Ok(()) => {
                saved += 1;
                println!("seed {seed}: mismatch at statement {} ({}); saved {}", at + 1, render(&got).join(" | "), path.display());
            }
            Err(e) => eprintln!("{}: {e}", path.display()),
        }
    }
    println!(
        "fuzz [{}]: {} cases from seed {} ({queries} queries, {rejected} rejected by the reference), {mismatches} mismatched, {saved} new regression scripts",
        f.engine.name(),
        f.cases,
        f.seed
    );
    if f.strict && mismatches > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_always_means_the_same_case() {
        let a: Vec<String> = case_steps(42).iter().map(Step::sql).collect();
        let b: Vec<String> = case_steps(42).iter().map(Step::sql).collect();
        assert_eq!(a, b);
        assert_ne!(a, case_steps(43).iter().map(Step::sql).collect::<Vec<_>>());
    }

    #[test]
    fn the_reference_agrees_with_itself() {
        for seed in 0..100 {
            let steps = case_steps(seed);
            assert!(replay(&steps, &EngineKind::Reference).1.is_none(), "seed {seed}");
        }
    }

    #[test]
    fn a_mismatch_shrinks_to_a_script_the_reference_passes() {
        // The C ABI backend on a library that does not exist fails to
        // open: every case mismatches at its first statement.
        let broken = EngineKind::Capi("/nonexistent/libsqlite3.so.0".into());
        let steps = case_steps(7);
        let small = shrink::shrink(steps.clone(), &broken, 100);
        assert_eq!(small.len(), 1);
        assert_eq!(small[0], steps[0]);
    }
}
