//! # Watchdog: per-file deadlines
//!
//! A runner registers each open engine with its file's deadline; a single
//! background thread interrupts engines past their deadline (through the
//! engine's own interrupt: `sqlite3_interrupt` or ringlite's flag) and, if
//! one ignores the interrupt for a grace period, ends the whole process:
//! a hung engine must fail `make test`, not hang it.
//!
//! Invariant: a registration is dropped before its engine is closed, so an
//! interrupter is never called on a closed connection.

use crate::engine::Interrupter;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long an engine may ignore an interrupt before the whole run is
/// abandoned: a hung engine must not hang `make test`.
const GRACE: Duration = Duration::from_secs(30);

struct Entry {
    what: String,
    id: u64,
    deadline: Instant,
    interrupt: Interrupter,
    expired: Arc<AtomicBool>,
}

static ENTRIES: OnceLock<Mutex<Vec<Entry>>> = OnceLock::new();
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn entries() -> &'static Mutex<Vec<Entry>> {
    ENTRIES.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(100));
            let now = Instant::now();
            for e in entries().lock().unwrap().iter() {
                if now >= e.deadline {
                    e.expired.store(true, Ordering::SeqCst);
                    (e.interrupt)();
                }
                if now >= e.deadline + GRACE {
                    eprintln!("ringlite-compat: {} ignored the timeout interrupt for {GRACE:?}; aborting the run", e.what);
                    std::process::exit(124);
                }
            }
        });
        Mutex::new(Vec::new())
    })
}

/// Registration; dropping it unregisters (before the engine closes).
pub struct Guard {
    id: u64,
    expired: Arc<AtomicBool>,
}

impl Guard {
    pub fn expired(&self) -> bool {
        self.expired.load(Ordering::SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        entries().lock().unwrap().retain(|e| e.id != self.id);
    }
}

pub fn watch(what: &str, deadline: Instant, interrupt: Interrupter) -> Guard {
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
    let expired = Arc::new(AtomicBool::new(false));
    entries().lock().unwrap().push(Entry { what: what.to_string(), id, deadline, interrupt, expired: expired.clone() });
    Guard { id, expired }
}
