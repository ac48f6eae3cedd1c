//! Completions: the handle a submitter keeps to learn when, and how, its
//! request finished.
//!
//! A completion is shared between the submitter and the backend. The
//! backend calls [`Completion::complete`] exactly once; the submitter polls
//! [`Completion::is_done`] and then takes the result once.

use super::notify::IoNotify;
use super::Buffer;
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What a finished request produced.
#[derive(Debug)]
pub struct CompletionResult {
    /// Bytes transferred (reads may be short at end of file).
    pub bytes: usize,
    /// The request's buffer, returned (reads and writes).
    pub buffer: Option<Buffer>,
}

#[derive(Debug, Default)]
struct State {
    done: AtomicBool,
    result: Mutex<Option<Result<CompletionResult>>>,
    /// The connection this request counts for (see [`IoNotify`]).
    notify: Option<Arc<IoNotify>>,
}

impl Drop for State {
    fn drop(&mut self) {
        if let Some(n) = &self.notify {
            if !*self.done.get_mut() {
                n.finished();
            }
        }
    }
}

/// Shared handle to an in-flight or finished request.
#[derive(Debug, Clone, Default)]
pub struct Completion(Arc<State>);

impl Completion {
    /// A completion not finished yet (counted on the connection whose
    /// statement is running, if any: see [`IoNotify`]).
    pub fn new() -> Self {
        Completion(Arc::new(State { done: AtomicBool::new(false), result: Mutex::new(None), notify: IoNotify::attach_current() }))
    }

    /// A completion already finished with `result` (synchronous backends).
    pub fn ready(result: Result<CompletionResult>) -> Self {
        let c = Completion::default();
        c.complete(result);
        c
    }

    /// Record the outcome. Called once, by the backend.
    pub fn complete(&self, result: Result<CompletionResult>) {
        *self.0.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
        if self.0.done.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(n) = &self.0.notify {
            n.finished();
        }
    }

    /// Whether the request has finished.
    pub fn is_done(&self) -> bool {
        self.0.done.load(Ordering::Acquire)
    }

    /// Take the outcome of a finished request. Errors with
    /// `SQLITE_INTERNAL` if it is not finished or was already taken.
    pub fn take(&self) -> Result<CompletionResult> {
        if !self.is_done() {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "I/O request taken before completion"));
        }
        self.0
            .result
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_else(|| Err(Error::new(crate::error::SQLITE_INTERNAL, "I/O completion taken twice")))
    }
}
