//! # Timing and the ratio table
//!
//! A workload is measured as: one untimed warm-up run, then `runs` timed
//! runs, reporting the median (robust against the spikes a shared, loaded
//! machine produces). Each run returns a checksum; the two engines'
//! checksums must agree, otherwise the row is flagged, since a fast wrong
//! answer is not a result.
//!
//! Invariant: a [`Row`] holds both engines' outcomes for one workload;
//! the ratio is ringlite / SQLite and exists only when both are numbers of
//! the same kind.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// One engine's outcome for one workload.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Median wall time of the timed runs, with the work's checksum.
    Time(Duration, u64),
    /// A byte count (memory rows).
    Bytes(u64),
    /// The engine refuses the configuration; the reason is shown.
    Unsupported(String),
    /// The workload failed with this error.
    Failed(String),
}

impl Outcome {
    fn number(&self) -> Option<f64> {
        match self {
            Outcome::Time(d, _) => Some(d.as_secs_f64()),
            Outcome::Bytes(b) => Some(*b as f64),
            _ => None,
        }
    }

    fn cell(&self) -> String {
        match self {
            Outcome::Time(d, _) => fmt_duration(*d),
            Outcome::Bytes(b) => fmt_bytes(*b),
            Outcome::Unsupported(why) => format!("unsupported ({why})"),
            Outcome::Failed(e) => format!("FAILED: {}", e.chars().take(80).collect::<String>()),
        }
    }
}

/// One workload's line in the table.
#[derive(Debug, Clone)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Units of work per run, for a throughput column (0: none).
    pub ops: u64,
    /// Real SQLite.
    pub sqlite: Outcome,
    /// ringlite.
    pub ringlite: Outcome,
}

impl Row {
    /// ringlite / SQLite, when both are numbers.
    pub fn ratio(&self) -> Option<f64> {
        let (a, b) = (self.ringlite.number()?, self.sqlite.number()?);
        (b > 0.0).then(|| a / b)
    }

    fn checksum_note(&self) -> &'static str {
        match (&self.sqlite, &self.ringlite) {
            (Outcome::Time(_, a), Outcome::Time(_, b)) if a != b => " (results differ!)",
            _ => "",
        }
    }
}

/// How many timed runs per workload.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Timed runs (the median is reported).
    pub runs: usize,
    /// Smoke mode: tiny data, one run.
    pub quick: bool,
    /// Run only workloads whose name contains this (for profiling).
    pub only: Option<&'static str>,
    /// Skip workloads whose name contains this.
    pub skip: Option<&'static str>,
}

/// Measure one workload on both engines, unless `cfg.only` excludes it.
pub fn pair(cfg: Config, rows: &mut Vec<Row>, name: String, ops: u64, sqlite: impl FnOnce() -> Outcome, ringlite: impl FnOnce() -> Outcome) {
    if cfg.only.is_some_and(|f| !name.contains(f)) || cfg.skip.is_some_and(|f| name.contains(f)) {
        return;
    }
    eprintln!("  {name}");
    let sqlite = sqlite();
    let ringlite = ringlite();
    rows.push(Row { name, ops, sqlite, ringlite });
}

/// Run `work` once untimed, then `cfg.runs` times timed; the median.
/// `work` returns a checksum of what it computed.
pub fn measure(cfg: Config, mut work: impl FnMut() -> Result<u64, String>) -> Outcome {
    if let Err(e) = work() {
        return Outcome::Failed(e);
    }
    let mut times = Vec::with_capacity(cfg.runs);
    let mut sum = 0;
    for _ in 0..cfg.runs.max(1) {
        let t = Instant::now();
        match work() {
            Ok(s) => sum = s,
            Err(e) => return Outcome::Failed(e),
        }
        times.push(t.elapsed());
    }
    times.sort();
    Outcome::Time(times[times.len() / 2], sum)
}

/// Like [`measure`] but every run gets a fresh state from `setup`
/// (untimed), for workloads that change what they run on.
pub fn measure_with_setup<S>(cfg: Config, mut setup: impl FnMut() -> Result<S, String>, mut work: impl FnMut(S) -> Result<u64, String>) -> Outcome {
    let mut times = Vec::with_capacity(cfg.runs);
    let mut sum = 0;
    // Warm-up run included: run + 1 iterations, the first discarded.
    for i in 0..cfg.runs.max(1) + 1 {
        let s = match setup() {
            Ok(s) => s,
            Err(e) => return Outcome::Failed(e),
        };
        let t = Instant::now();
        match work(s) {
            Ok(c) => sum = c,
            Err(e) => return Outcome::Failed(e),
        }
        if i > 0 {
            times.push(t.elapsed());
        }
    }
    times.sort();
    Outcome::Time(times[times.len() / 2], sum)
}

/// Human-readable duration with three significant digits.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} µs", s * 1e6)
    }
}

fn fmt_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b as f64 / 1024.0)
    }
}

fn throughput(ops: u64, o: &Outcome) -> String {
    match o {
        Outcome::Time(d, _) if ops > 0 && d.as_secs_f64() > 0.0 => {
            let r = ops as f64 / d.as_secs_f64();
            if r >= 1e6 {
                format!("{:.2} M/s", r / 1e6)
            } else if r >= 1e3 {
                format!("{:.1} k/s", r / 1e3)
            } else {
                format!("{r:.1} /s")
            }
        }
        _ => "".into(),
    }
}

/// The suite's Markdown table.
pub fn markdown(title: &str, rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### {title}\n");
    let _ = writeln!(s, "| workload | SQLite | ringlite | ratio (ringlite/SQLite) | SQLite rate | ringlite rate |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    for r in rows {
        let ratio = r.ratio().map_or("n/a".to_string(), |x| format!("{x:.2}×"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}{} | {} | {} |",
            r.name,
            r.sqlite.cell(),
            r.ringlite.cell(),
            ratio,
            r.checksum_note(),
            throughput(r.ops, &r.sqlite),
            throughput(r.ops, &r.ringlite)
        );
    }
    s
}
