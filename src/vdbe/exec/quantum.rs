//! The time quantum of one call of the VM (`PRAGMA step_quantum`).
//!
//! A tenant's long statement (a full scan, an aggregate over a whole
//! table) is one `sqlite3_step` that may run for milliseconds on cached
//! data, holding the thread its scheduler shares with other tenants. With
//! a quantum the call stops once it has run that long: the loop checks
//! the clock at a jump every [`CHECK_EVERY`] instructions (where the
//! progress handler is checked too: a program only runs long by
//! looping), and answers `VmStep::Yield` there. The jump has completed
//! and nothing is in flight, so the next call continues at its target
//! with nothing repeated or skipped (the resumability contract of
//! `vdbe`).
//!
//! Invariant: [`Quantum::due`] is always ahead of the instruction count
//! at which the clock was last read, so one call reads the clock once per
//! [`CHECK_EVERY`] instructions at most, plus once when it starts: the
//! clock is read only once `due` is reached (checked: quantum_due_ahead),
//! and `due` then moves [`CHECK_EVERY`] past that count.

use std::time::{Duration, Instant};

/// Instructions between two reads of the clock: a clock read (~25 ns)
/// every 256 instructions (~1-3 µs) costs about 1% and cuts a quantum
/// within a few microseconds of its end.
pub(super) const CHECK_EVERY: i64 = 256;

/// The running call's quantum.
pub(super) struct Quantum {
    deadline: Instant,
    /// Instruction count at which the clock is read next.
    pub(super) due: i64,
}

impl Quantum {
    /// The quantum of a call starting now, at instruction count `steps`.
    pub(super) fn start(quantum: Duration, steps: i64) -> Quantum {
        Quantum { deadline: Instant::now() + quantum, due: steps + CHECK_EVERY }
    }

    /// At a jump with `steps >= self.due`: whether the quantum is spent
    /// (the call should yield); otherwise the next check is scheduled.
    pub(super) fn spent(&mut self, steps: i64) -> bool {
        // invariant: quantum_due_ahead
        debug_assert!(steps >= self.due, "the clock read at {steps}, before {}", self.due);
        if Instant::now() >= self.deadline {
            return true;
        }
        self.due = steps + CHECK_EVERY;
        false
    }
}
