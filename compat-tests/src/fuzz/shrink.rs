//! # Running a case on both engines, and shrinking a mismatch
//!
//! A case is replayed from scratch on fresh connections every time (the
//! engine under test may have panicked or be in any state). Two outcomes
//! match when both are errors with the same message, or both are rows
//! that print the same under `T` formatting once sorted (`rowsort`).
//!
//! Shrinking is greedy: try dropping each statement, then each one-step
//! simplification of each query (see `ast`), keep any change under which
//! the engines still disagree, repeat until nothing more can go, within a
//! budget of replays.

use super::ast::Select;
use crate::engine::{Engine, EngineError, EngineKind};
use crate::slt::format::format_rows;
use crate::slt::parser::SortMode;
use crate::slt::runner::{panic_message, Outcome};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One statement of a case.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Setup(String),
    Query(Box<Select>),
}

impl Step {
    pub fn sql(&self) -> String {
        match self {
            Step::Setup(s) => s.clone(),
            Step::Query(q) => q.sql(),
        }
    }
}

fn run_one(engine: &mut Option<Box<dyn Engine>>, open_error: &Option<EngineError>, sql: &str) -> Outcome {
    let Some(e) = engine.as_mut() else {
        return Outcome::Error(open_error.clone().expect("no engine means an open error"));
    };
    match catch_unwind(AssertUnwindSafe(|| e.run(sql))) {
        Ok(Ok(rows)) => Outcome::Rows(rows),
        Ok(Err(err)) => Outcome::Error(err),
        Err(p) => {
            *engine = None; // its state is unknown now
            Outcome::Panic(panic_message(&p))
        }
    }
}

/// Printed form of an outcome, for comparing and for reports.
pub fn render(o: &Outcome) -> Vec<String> {
    match o {
        Outcome::Rows(r) => format_rows(r, &"T".repeat(r.columns), SortMode::RowSort),
        Outcome::Error(e) => vec![format!("error: {}", e.message)],
        Outcome::Panic(m) => vec![format!("panic: {m}")],
    }
}

/// Replay `steps` on both engines; the reference's outcomes and the index
/// of the first disagreement with what the engine under test produced.
pub fn replay(steps: &[Step], test: &EngineKind) -> (Vec<Outcome>, Option<(usize, Outcome)>) {
    let mut reference = EngineKind::Reference.open().ok();
    let (mut engine, open_error) = match catch_unwind(AssertUnwindSafe(|| test.open())) {
        Ok(Ok(e)) => (Some(e), None),
        Ok(Err(e)) => (None, Some(e)),
        Err(p) => (None, Some(EngineError { code: 1, message: format!("panic: {}", panic_message(&p)), partial: None })),
    };
    // A case is small: one that runs for long has hung the engine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let _guard = engine.as_ref().map(|e| crate::watchdog::watch("fuzz case", deadline, e.interrupter()));
    let mut outcomes = Vec::new();
    let mut first = None;
    for (i, step) in steps.iter().enumerate() {
        let sql = step.sql();
        let want = run_one(&mut reference, &None, &sql);
        let got =
            if engine.is_none() && open_error.is_none() { Outcome::Panic("engine panicked earlier".into()) } else { run_one(&mut engine, &open_error, &sql) };
        let same = match (&want, &got) {
            (Outcome::Error(a), Outcome::Error(b)) => a.message == b.message,
            (Outcome::Rows(a), Outcome::Rows(b)) => a.columns == b.columns && render(&want) == render(&got),
            _ => false,
        };
        if !same && first.is_none() {
            first = Some((i, got));
        }
        outcomes.push(want);
    }
    (outcomes, first)
}

/// Whether the reference failed at the first disagreement (`None`: they
/// agree).
fn reference_failed_at_mismatch(steps: &[Step], test: &EngineKind) -> Option<bool> {
    let (outcomes, first) = replay(steps, test);
    first.map(|(i, _)| !matches!(outcomes[i], Outcome::Rows(_)))
}

/// Shrink a mismatching case within `budget` replays. A candidate is kept
/// only if the engines still disagree *and* the reference's side of the
/// disagreement is of the same kind (rows or error) as originally: a
/// shrink that merely makes the query invalid (two engines wording an
/// error differently) is not the bug being chased.
pub fn shrink(mut steps: Vec<Step>, test: &EngineKind, mut budget: usize) -> Vec<Step> {
    let Some(original) = reference_failed_at_mismatch(&steps, test) else { return steps };
    let still_fails = |candidate: &[Step], budget: &mut usize| -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        reference_failed_at_mismatch(candidate, test) == Some(original)
    };
    let mut progress = true;
    while progress && budget > 0 {
        progress = false;
        // Statements, last first: later ones depend on earlier ones.
        let mut i = steps.len();
        while i > 0 {
            i -= 1;
            if steps.len() == 1 {
                break;
            }
            let mut candidate = steps.clone();
            candidate.remove(i);
            if still_fails(&candidate, &mut budget) {
                steps = candidate;
                progress = true;
            }
        }
        // Clauses and sub-expressions of the queries.
        for i in 0..steps.len() {
            while let Step::Query(q) = &steps[i] {
                let mut improved = false;
                for simpler in q.simpler() {
                    let mut candidate = steps.clone();
                    candidate[i] = Step::Query(Box::new(simpler));
                    if still_fails(&candidate, &mut budget) {
                        steps = candidate;
                        improved = true;
                        progress = true;
                        break;
                    }
                    if budget == 0 {
                        break;
                    }
                }
                if !improved {
                    break;
                }
            }
        }
    }
    steps
}
