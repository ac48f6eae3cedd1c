//! # `fuzz --mode deep`: deep and wide statements on both engines
//!
//! Each seed's case ([`deep_gen`]) runs on a fresh `:memory:` database of
//! the reference and of the engine under test, with the same lowered
//! limits. Every step must end alike: both succeed with the same rows (as
//! a multiset), or both fail with the same extended code and message.
//! Odd seeds run the engine under test on a thread with a 256 KiB stack
//! (the reference always gets 64 MiB): a deep-but-legal statement must
//! not need more. A case either engine is still running after the case
//! timeout is interrupted by the watchdog: the reference's is skipped
//! (tag `ref-timeout`), ours is a hang. Ours taking over 2 s and ten times
//! the reference's time is reported as `slow` (not a failure of the run).

use super::deep_gen::{self, DeepCase};
use super::isolate::{self, describe, sorted_rows, Target};
use super::supervise::CaseResult;
use super::FuzzArgs;
use crate::engine::EngineKind;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

pub const SMALL_STACK: usize = 256 * 1024;
const NORMAL_STACK: usize = 8 * 1024 * 1024;
const REFERENCE_STACK: usize = 64 * 1024 * 1024;

pub fn case_for(seed: u64) -> DeepCase {
    deep_gen::generate(&mut ChaCha8Rng::seed_from_u64(seed))
}

pub fn stack_for(seed: u64) -> usize {
    if seed % 2 == 1 {
        SMALL_STACK
    } else {
        NORMAL_STACK
    }
}

/// The messages both engines give, with volatile parts masked (none so
/// far: SQLite's messages for these statements hold no addresses or
/// timings).
fn normalized(m: &str) -> &str {
    m
}

pub fn run_case(seed: u64, f: &FuzzArgs) -> CaseResult {
    let case = case_for(seed);
    let reference = isolate::run(&EngineKind::Reference, &Target::Memory, &case.limits, &case.steps, f.case_timeout, REFERENCE_STACK);
    let stack = stack_for(seed);
    let ours = isolate::run(&f.engine, &Target::Memory, &case.limits, &case.steps, f.case_timeout, stack);
    let mut failures = Vec::new();
    let where_ = format!("family {}, stack {} KiB", case.family, stack / 1024);
    if let Some(p) = &ours.panic {
        failures.push(("panic", format!("{where_}: {p}")));
    }
    if ours.expired {
        failures.push(("hang", format!("{where_}: still running after {:?} (interrupted)", f.case_timeout)));
    }
    // Slow, not hung: past 2 s and ten times the reference's time (a
    // cost that grows faster than SQLite's); reported, never fatal.
    let slow = ours.elapsed > Duration::from_secs(2) && ours.elapsed > reference.elapsed * 10;
    if slow && !ours.expired {
        failures.push(("slow", format!("{where_}: {:.1}s, the reference {:.2}s", ours.elapsed.as_secs_f64(), reference.elapsed.as_secs_f64())));
    }
    if reference.expired || reference.panic.is_some() {
        return CaseResult { tag: format!("{}/ref-timeout", case.family), failures };
    }
    if failures.iter().all(|f| f.0 == "slow") {
        for (i, (a, b)) in ours.outcomes.iter().zip(&reference.outcomes).enumerate() {
            let same = match (a, b) {
                (Ok(x), Ok(y)) => x.columns == y.columns && sorted_rows(x) == sorted_rows(y),
                (Err(x), Err(y)) => x.code == y.code && normalized(&x.message) == normalized(&y.message),
                _ => false,
            };
            if !same {
                let sql: String = case.steps[i].chars().take(120).collect();
                failures.push((
                    "diff",
                    format!("{where_}, step {} ({} bytes: {sql}...): ours {}; reference {}", i + 1, case.steps[i].len(), describe(a), describe(b)),
                ));
                break;
            }
        }
        if failures.is_empty() && ours.outcomes.len() != reference.outcomes.len() {
            failures.push(("diff", format!("{where_}: ran {} steps, the reference {}", ours.outcomes.len(), reference.outcomes.len())));
        }
    }
    let verdict = match reference.outcomes.last() {
        Some(Ok(_)) => "ok",
        _ => "error",
    };
    CaseResult { tag: format!("{}/{verdict}", case.family), failures }
}

/// The case as an SQL file: limits as comments, then each step.
pub fn save_case(seed: u64, dir: &str) -> Option<String> {
    let case = case_for(seed);
    let path = std::path::Path::new(dir).join(format!("deep-{seed}.sql"));
    if path.exists() {
        return Some(path.display().to_string());
    }
    let mut text =
        format!("-- ringlite-compat fuzz --mode deep --seed {seed} --cases 1 (family {}, engine stack {} KiB)\n", case.family, stack_for(seed) / 1024);
    for (id, v) in &case.limits {
        text.push_str(&format!("-- sqlite3_limit({id}, {v})\n"));
    }
    for s in &case.steps {
        text.push_str(s);
        text.push_str(";\n");
    }
    std::fs::create_dir_all(dir).ok()?;
    std::fs::write(&path, text).ok()?;
    Some(path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_always_means_the_same_case() {
        for seed in 0..50 {
            assert_eq!(case_for(seed).steps, case_for(seed).steps);
        }
        assert_ne!(case_for(1).steps, case_for(2).steps);
    }
}
