//! # One engine, one case: on a thread of a chosen stack, under a deadline
//!
//! The deep and corrupt fuzzers run each engine's steps here: the engine
//! is opened on a fresh thread whose stack size the caller picks (the
//! deep fuzzer's small-stack cases), registered with the watchdog for the
//! case's deadline (an engine still running then is interrupted and the
//! case counts as a hang), and each step runs under `catch_unwind` (a
//! panic ends the case and is reported, it does not abort the worker).
//! A stack overflow cannot be caught: it aborts the worker process, which
//! the supervisor reports as a crash.

use crate::engine::{EngineError, EngineKind, Rows};
use crate::watchdog;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

pub type StepOutcome = Result<Rows, EngineError>;

/// Which database to open.
#[derive(Clone)]
pub enum Target {
    Memory,
    File(String),
}

/// What one engine did with a case.
pub struct Ran {
    /// One per step run (the open's error, if any, is the only one).
    pub outcomes: Vec<StepOutcome>,
    /// The watchdog interrupted it at the deadline.
    pub expired: bool,
    pub panic: Option<String>,
    pub open_failed: bool,
    /// Time spent running the steps (not opening).
    pub elapsed: Duration,
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_else(|| "panic".into())
}

/// Open `target` on `kind`, set `limits`, run `steps` in order (every
/// step, whatever the earlier ones did), on a thread of `stack` bytes.
pub fn run(kind: &EngineKind, target: &Target, limits: &[(i32, i32)], steps: &[String], timeout: Duration, stack: usize) -> Ran {
    let (kind, target, limits, steps) = (kind.clone(), target.clone(), limits.to_vec(), steps.to_vec());
    let spawned = std::thread::Builder::new().name(format!("fuzz-{}", kind.name())).stack_size(stack).spawn(move || {
        let opened = catch_unwind(AssertUnwindSafe(|| match &target {
            Target::Memory => kind.open(),
            Target::File(p) => kind.open_file(p),
        }));
        let mut engine = match opened {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => return Ran { outcomes: vec![Err(e)], expired: false, panic: None, open_failed: true, elapsed: Duration::ZERO },
            Err(p) => return Ran { outcomes: Vec::new(), expired: false, panic: Some(panic_text(p)), open_failed: true, elapsed: Duration::ZERO },
        };
        for &(id, v) in &limits {
            engine.limit(id, v);
        }
        let guard = watchdog::watch(&format!("fuzz case on {}", kind.name()), Instant::now() + timeout, engine.interrupter());
        let started = Instant::now();
        let mut ran = Ran { outcomes: Vec::new(), expired: false, panic: None, open_failed: false, elapsed: Duration::ZERO };
        for sql in &steps {
            match catch_unwind(AssertUnwindSafe(|| engine.run(sql))) {
                Ok(o) => ran.outcomes.push(o),
                Err(p) => {
                    ran.panic = Some(panic_text(p));
                    break;
                }
            }
            if guard.expired() {
                break;
            }
        }
        ran.expired = guard.expired();
        ran.elapsed = started.elapsed();
        drop(guard);
        // Closing may panic too (a poisoned engine): not a harness abort.
        if let Err(p) = catch_unwind(AssertUnwindSafe(move || drop(engine))) {
            ran.panic.get_or_insert(panic_text(p));
        }
        ran
    });
    match spawned.map(|h| h.join()) {
        Ok(Ok(ran)) => ran,
        Ok(Err(p)) => Ran { outcomes: Vec::new(), expired: false, panic: Some(panic_text(p)), open_failed: false, elapsed: Duration::ZERO },
        Err(e) => Ran { outcomes: Vec::new(), expired: false, panic: Some(format!("cannot spawn a thread: {e}")), open_failed: true, elapsed: Duration::ZERO },
    }
}

/// A short description of an outcome for reports.
pub fn describe(o: &StepOutcome) -> String {
    match o {
        Ok(rows) => {
            let shown: String = format!("{:?}", rows.rows).chars().take(160).collect();
            format!("{} rows x {} columns {shown}", rows.rows.len(), rows.columns)
        }
        Err(e) => format!("error [{}] {}", e.code, e.message.chars().take(200).collect::<String>()),
    }
}

/// Rows as a multiset: sorted by their debug text.
pub fn sorted_rows(rows: &Rows) -> Vec<String> {
    let mut v: Vec<String> = rows.rows.iter().map(|r| format!("{r:?}")).collect();
    v.sort();
    v
}
