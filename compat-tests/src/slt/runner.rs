//! # Running one script
//!
//! Three modes over the same record loop:
//! * `Validate`: one engine against the expected results in the file;
//! * `Diff`: the engine under test against the reference, record by
//!   record (results, and error messages of failing statements);
//! * `Complete`: the reference's results written into the script.
//!
//! Every file gets fresh connections. A panic inside an engine is caught,
//! counted as a failure, and ends the file (the engine's state is then
//! unknown); so does a timeout, enforced by the watchdog interrupting
//! the running statement (see `crate::watchdog`). Records left unrun
//! count as failed, so a file's record total never depends on how far the
//! engine got.

use super::format::{format_rows, matches_expected, render};
use super::parser::{parse, Expect, Record, RecordKind, SortMode};
use crate::engine::{Cell, Engine, EngineError, EngineKind, Rows};
use crate::watchdog;
use regex::Regex;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// `SQLITE_INTERRUPT`: a timeout, never a result.
const SQLITE_INTERRUPT: i32 = 9;

/// The database name `skipif`/`onlyif` test against.
pub const DB_NAME: &str = "sqlite";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Validate,
    Diff,
    Complete,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    /// The engine under test (validate, diff); complete always uses the
    /// reference.
    pub engine: EngineKind,
    pub timeout: Duration,
    /// How many differences to keep per file.
    pub max_diffs: usize,
}

/// One record whose result differed.
#[derive(Debug, Clone)]
pub struct Failure {
    pub line: usize,
    pub sql: String,
    pub expected: String,
    pub got: String,
}

#[derive(Debug, Clone, Default)]
pub struct FileReport {
    pub path: String,
    /// The path relative to its corpus root: the ratchet's key.
    pub name: String,
    /// Records (statements and queries) that apply to `sqlite`.
    pub total: usize,
    pub passed: usize,
    /// The first `max_diffs` failures.
    pub failures: Vec<Failure>,
    /// Why the file stopped early (parse error, panic, timeout, open).
    pub fatal: Option<String>,
    /// Stopped by the timeout: how many records passed depends on the
    /// machine's load, so the ratchet does not judge this file.
    pub timed_out: bool,
    /// Every failure's cause (see [`cause_of`]) with its count, for
    /// STATUS.md.
    pub causes: std::collections::BTreeMap<String, usize>,
    /// `Complete` mode: the rewritten script.
    pub completed: Option<String>,
    pub elapsed: Duration,
}

impl FileReport {
    /// Records that did not pass; a file that stopped before its first
    /// record (unreadable, unparsable) counts as one failure.
    pub fn failed(&self) -> usize {
        let missing = self.total - self.passed;
        if missing == 0 && self.fatal.is_some() {
            1
        } else {
            missing
        }
    }
}

/// What running one record's SQL produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Rows(Rows),
    Error(EngineError),
    Panic(String),
}

impl Outcome {
    fn describe(&self) -> String {
        match self {
            Outcome::Rows(r) => format!("ok ({} rows)", r.rows.len()),
            Outcome::Error(e) => format!("error {e}"),
            Outcome::Panic(m) => format!("panic: {m}"),
        }
    }
}

fn execute(engine: &mut dyn Engine, sql: &str) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| engine.run(sql))) {
        Ok(Ok(rows)) => Outcome::Rows(rows),
        Ok(Err(e)) => Outcome::Error(e),
        Err(payload) => Outcome::Panic(panic_message(&payload)),
    }
}

pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

/// Types for formatting when the record gives none: by storage class of
/// the first row (`T` for NULL, text and blob).
pub fn infer_types(rows: &Rows) -> String {
    match rows.rows.first() {
        Some(row) => row
            .iter()
            .map(|c| match c {
                Cell::Integer(_) => 'I',
                Cell::Real(_) => 'R',
                _ => 'T',
            })
            .collect(),
        None => "T".repeat(rows.columns),
    }
}

/// The records that run on sqlite, up to the first applicable `halt`.
fn applicable(records: &[Record]) -> Vec<&Record> {
    let mut out = Vec::new();
    for r in records {
        if !r.applies_to(DB_NAME) {
            continue;
        }
        if r.kind == RecordKind::Halt {
            break;
        }
        out.push(r);
    }
    out
}

fn is_counted(r: &Record) -> bool {
    matches!(r.kind, RecordKind::Statement { .. } | RecordKind::Query { .. })
}

/// Two value lists shown from their first difference (at most 8 values
/// each), so a long result does not bury it.
fn show_difference(want: &[String], got: &[String]) -> (String, String) {
    let first = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let show = |v: &[String]| {
        let end = (first + 8).min(v.len());
        let mut s = if first > 0 { format!("[{} values, from #{}] ", v.len(), first + 1) } else { String::new() };
        s.push_str(&v[first.min(v.len())..end].join("\n"));
        if end < v.len() {
            s.push_str("\n...");
        }
        s
    };
    (show(want), show(got))
}

/// A failure's cause for grouping: an error message with numbers and
/// quoted names masked, or "wrong result".
pub fn cause_of(got: &str) -> String {
    let text = got.lines().next().unwrap_or("");
    let is_error =
        text.starts_with("error ") || text.starts_with("panic") || text.contains("cannot open") || text.starts_with("timeout") || text.starts_with("line ");
    if !is_error {
        return "wrong result".into();
    }
    let text = text.find("panic:").map(|i| &text[i..]).unwrap_or(text);
    let mut out = String::new();
    let mut last_digit = false;
    for c in text.chars().take(100) {
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
        } else {
            last_digit = false;
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// Escape `text` so it matches itself as a regex.
fn regex_literal(text: &str) -> String {
    regex::escape(text)
}

/// Run one script file.
pub fn run_file(path: &str, opts: &Options) -> FileReport {
    let start = Instant::now();
    let mut report = FileReport { path: path.to_string(), ..Default::default() };
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            report.fatal = Some(format!("cannot read: {e}"));
            return report;
        }
    };
    let records = match parse(&text) {
        Ok(r) => r,
        Err(e) => {
            report.fatal = Some(format!("line {}: {}", e.line, e.message));
            return report;
        }
    };
    let todo = applicable(&records);
    report.total = todo.iter().filter(|r| is_counted(r)).count();
    if report.total == 0 && opts.mode != Mode::Complete {
        report.elapsed = start.elapsed();
        return report; // nothing to run (an empty or fully skipped file)
    }

    let mut state = State { report, opts, labels: HashMap::new(), threshold: 0, edits: HashMap::new() };
    let under_test = if opts.mode == Mode::Complete { EngineKind::Reference } else { opts.engine.clone() };
    let mut primary = match under_test.open() {
        Ok(e) => e,
        Err(e) => {
            state.report.fatal = Some(format!("cannot open {}: {e}", under_test.name()));
            state.report.elapsed = start.elapsed();
            return account_unrun(state.report);
        }
    };
    let mut reference = if opts.mode == Mode::Diff {
        match EngineKind::Reference.open() {
            Ok(e) => Some(e),
            Err(e) => {
                state.report.fatal = Some(format!("cannot open the reference: {e}"));
                return account_unrun(state.report);
            }
        }
    } else {
        None
    };

    let deadline = Instant::now() + opts.timeout;
    let mut guards = vec![watchdog::watch(path, deadline, primary.interrupter())];
    if let Some(r) = &reference {
        guards.push(watchdog::watch(path, deadline, r.interrupter()));
    }
    for record in todo {
        if guards.iter().any(|g| g.expired()) {
            state.report.fatal = Some(format!("timeout after {:?}", opts.timeout));
            state.report.timed_out = true;
            break;
        }
        if let Some(fatal) = state.record(record, primary.as_mut(), reference.as_mut().map(|r| r.as_mut() as &mut dyn Engine)) {
            state.report.fatal = Some(fatal);
            break;
        }
    }
    if guards.iter().any(|g| g.expired()) {
        state.report.timed_out = true;
        if state.report.fatal.is_none() {
            state.report.fatal = Some(format!("timeout after {:?}", opts.timeout));
        }
    }
    // Stop the watchdog before the connections close.
    drop(guards);
    drop(reference);
    drop(primary);
    if opts.mode == Mode::Complete {
        state.report.completed = Some(apply_edits(&text, &records, &state.edits));
    }
    state.report.elapsed = start.elapsed();
    account_unrun(state.report)
}

/// Attribute records a fatal stop left unrun to its cause.
fn account_unrun(mut report: FileReport) -> FileReport {
    if let Some(fatal) = &report.fatal {
        let recorded: usize = report.causes.values().sum();
        let unrun = (report.total - report.passed).saturating_sub(recorded);
        if unrun > 0 {
            *report.causes.entry(format!("not run: {}", cause_of(fatal))).or_insert(0) += unrun;
        }
    }
    report
}

/// Replacement lines for a record: new header, new result section.
struct Edit {
    header: String,
    results: Vec<String>,
}

struct State<'a> {
    report: FileReport,
    opts: &'a Options,
    labels: HashMap<String, Vec<String>>,
    threshold: usize,
    edits: HashMap<usize, Edit>,
}

impl State<'_> {
    fn fail(&mut self, record: &Record, sql: &str, expected: String, got: String) {
        *self.report.causes.entry(cause_of(&got)).or_insert(0) += 1;
        if self.report.failures.len() < self.opts.max_diffs {
            self.report.failures.push(Failure { line: record.line, sql: sql.to_string(), expected, got });
        }
    }

    /// Run one record; `Some(reason)` ends the file.
    fn record(&mut self, record: &Record, engine: &mut dyn Engine, reference: Option<&mut dyn Engine>) -> Option<String> {
        match &record.kind {
            RecordKind::HashThreshold(n) => {
                self.threshold = *n;
                None
            }
            RecordKind::Halt => None,
            RecordKind::Statement { expect, sql } => {
                let got = execute(engine, sql);
                let fatal = match &got {
                    Outcome::Panic(m) => Some(format!("line {}: panic: {m}", record.line)),
                    _ => None,
                };
                match self.opts.mode {
                    Mode::Validate => self.check_statement(record, expect, sql, &got),
                    Mode::Complete => self.complete_statement(record, expect, &got),
                    Mode::Diff => {
                        let want = execute(reference.expect("diff mode has a reference"), sql);
                        self.compare(record, sql, &want, &got, "", SortMode::NoSort);
                    }
                }
                fatal
            }
            RecordKind::Query { types, sort, label, sql, expected } => {
                let got = execute(engine, sql);
                let fatal = match &got {
                    Outcome::Panic(m) => Some(format!("line {}: panic: {m}", record.line)),
                    _ => None,
                };
                match self.opts.mode {
                    Mode::Validate => self.check_query(record, types, *sort, label, sql, expected, &got),
                    Mode::Complete => self.complete_query(record, types, *sort, label, &got),
                    Mode::Diff => {
                        let want = execute(reference.expect("diff mode has a reference"), sql);
                        self.compare(record, sql, &want, &got, types, *sort);
                    }
                }
                fatal
            }
        }
    }

    fn check_statement(&mut self, record: &Record, expect: &Expect, sql: &str, got: &Outcome) {
        let ok = match (expect, got) {
            (Expect::Ok, Outcome::Rows(_)) => true,
            (Expect::Error(None), Outcome::Error(_)) => true,
            (Expect::Error(Some(pattern)), Outcome::Error(e)) => match Regex::new(pattern) {
                Ok(re) => re.is_match(&e.message),
                Err(_) => false,
            },
            _ => false,
        };
        if ok {
            self.report.passed += 1;
        } else {
            let want = match expect {
                Expect::Ok => "ok".to_string(),
                Expect::Error(None) => "error".to_string(),
                Expect::Error(Some(p)) => format!("error matching /{p}/"),
            };
            self.fail(record, sql, want, got.describe());
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_query(&mut self, record: &Record, types: &str, sort: SortMode, label: &Option<String>, sql: &str, expected: &Option<Vec<String>>, got: &Outcome) {
        let rows = match got {
            Outcome::Rows(rows) => rows,
            // The classic runner ends a query's result silently at a step
            // error (the corpus expects that, e.g. sum() overflowing). An
            // engine's own "not supported" is never SQLite behaviour.
            Outcome::Error(EngineError { partial: Some(rows), message, code })
                if !message.contains("not supported by ringlite") && code & 0xff != SQLITE_INTERRUPT =>
            {
                rows
            }
            other => {
                let want = expected.as_ref().map(|e| e.join("\n")).unwrap_or_default();
                return self.fail(record, sql, want, other.describe());
            }
        };
        if !types.is_empty() && types.len() != rows.columns {
            return self.fail(record, sql, format!("{} columns", types.len()), format!("{} columns", rows.columns));
        }
        let values = format_rows(rows, types, sort);
        let empty = Vec::new();
        let want = expected.as_ref().unwrap_or(&empty);
        if !matches_expected(&values, want) {
            if super::format::parse_hash_line(want).is_some() {
                return self.fail(record, sql, want.join("\n"), render(&values, 1).join("\n"));
            }
            let (w, g) = show_difference(want, &values);
            return self.fail(record, sql, w, g);
        }
        if let Some(label) = label {
            if let Some(previous) = self.labels.get(label) {
                if *previous != values {
                    return self.fail(record, sql, format!("same result as earlier {label}"), render(&values, 1).join("\n"));
                }
            } else {
                self.labels.insert(label.clone(), values);
            }
        }
        self.report.passed += 1;
    }

    fn compare(&mut self, record: &Record, sql: &str, want: &Outcome, got: &Outcome, types: &str, sort: SortMode) {
        let same = match (want, got) {
            (Outcome::Rows(a), Outcome::Rows(b)) => {
                let types = if types.is_empty() { infer_types(a) } else { types.to_string() };
                a.columns == b.columns && format_rows(a, &types, sort) == format_rows(b, &types, sort)
            }
            (Outcome::Error(a), Outcome::Error(b)) => a.message == b.message,
            _ => false,
        };
        if same {
            self.report.passed += 1;
        } else if let (Outcome::Rows(a), Outcome::Rows(b)) = (want, got) {
            let types = if types.is_empty() { infer_types(a) } else { types.to_string() };
            let (w, g) = show_difference(&format_rows(a, &types, sort), &format_rows(b, &types, sort));
            let cols = |r: &Rows| if a.columns != b.columns { format!("{} columns: ", r.columns) } else { String::new() };
            self.fail(record, sql, cols(a) + &w, cols(b) + &g);
        } else {
            let show = |o: &Outcome| match o {
                Outcome::Rows(r) => {
                    let t = if types.is_empty() { infer_types(r) } else { types.to_string() };
                    render(&format_rows(r, &t, sort), 16).join("\n")
                }
                other => other.describe(),
            };
            self.fail(record, sql, show(want), show(got));
        }
    }

    fn complete_statement(&mut self, record: &Record, expect: &Expect, got: &Outcome) {
        let header = match (expect, got) {
            (_, Outcome::Rows(_)) => "statement ok".to_string(),
            (Expect::Error(Some(p)), Outcome::Error(e)) if Regex::new(p).map(|re| re.is_match(&e.message)).unwrap_or(false) => {
                format!("statement error {p}")
            }
            (_, Outcome::Error(e)) => format!("statement error {}", regex_literal(&e.message)),
            (_, Outcome::Panic(m)) => format!("# reference panicked: {m}"),
        };
        self.report.passed += 1;
        self.edits.insert(record.header, Edit { header, results: Vec::new() });
    }

    fn complete_query(&mut self, record: &Record, types: &str, sort: SortMode, label: &Option<String>, got: &Outcome) {
        let edit = match got {
            // A "query" that returns no columns is a statement.
            Outcome::Rows(rows) if rows.columns == 0 => Edit { header: "statement ok".into(), results: Vec::new() },
            Outcome::Rows(rows) => {
                let types = if types.len() == rows.columns { types.to_string() } else { infer_types(rows) };
                let values = format_rows(rows, &types, sort);
                let mut header = format!("query {types} {}", sort.as_str());
                if let Some(l) = label {
                    header.push(' ');
                    header.push_str(l);
                }
                let mut results = vec!["----".to_string()];
                results.extend(render(&values, self.threshold));
                Edit { header, results }
            }
            Outcome::Error(e) => {
                self.fail(record, "", "rows".into(), format!("error {e}; rewritten as statement error"));
                Edit { header: format!("statement error {}", regex_literal(&e.message)), results: Vec::new() }
            }
            Outcome::Panic(m) => Edit { header: format!("# reference panicked: {m}"), results: Vec::new() },
        };
        self.report.passed += 1;
        self.edits.insert(record.header, edit);
    }
}

/// Rebuild the script text with each edited record's header and results
/// replaced.
fn apply_edits(text: &str, records: &[Record], edits: &HashMap<usize, Edit>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let spans: HashMap<usize, (usize, usize)> = records.iter().map(|r| (r.header, r.results)).collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(edit) = edits.get(&i) {
            let (rs, re) = spans[&i];
            out.push_str(&edit.header);
            out.push('\n');
            for l in &lines[i + 1..rs] {
                out.push_str(l);
                out.push('\n');
            }
            for l in &edit.results {
                out.push_str(l);
                out.push('\n');
            }
            i = re;
            continue;
        }
        out.push_str(lines[i]);
        out.push('\n');
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(mode: Mode, engine: EngineKind) -> Options {
        Options { mode, engine, timeout: Duration::from_secs(60), max_diffs: 10 }
    }

    fn script(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("ringlite-compat-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    const SCRIPT: &str = "statement ok\nCREATE TABLE t(a INTEGER, b TEXT)\n\n\
        statement ok\nINSERT INTO t VALUES(1, 'x'), (2, ''), (NULL, 'a\tb')\n\n\
        query IT rowsort\nSELECT a, b FROM t\n----\n1\nx\n2\n(empty)\nNULL\na@b\n\n\
        hash-threshold 2\n\n\
        query R nosort\nSELECT a * 1.5 FROM t ORDER BY a\n\n\
        statement error no such table: nope\nSELECT * FROM nope\n\n\
        onlyif mysql\nquery I nosort\nSELECT 'never run'\n----\n0\n\n\
        skipif sqlite\nhalt\n\n\
        query nosort\nSELECT 1, 2.5, 'z'\n";

    #[test]
    fn complete_then_validate_round_trips_on_the_reference() {
        let path = script("round_trip.test", SCRIPT);
        let done = run_file(&path, &opts(Mode::Complete, EngineKind::Reference));
        let text = done.completed.expect("complete mode rewrites");
        assert!(text.contains("query R nosort\nSELECT a * 1.5 FROM t ORDER BY a\n----\n3 values hashing to "), "{text}");
        assert!(text.contains("query IRT nosort\nSELECT 1, 2.5, 'z'\n----\n3 values hashing to "), "{text}");
        assert!(text.contains("onlyif mysql\nquery I nosort\nSELECT 'never run'\n----\n0\n"), "untouched: {text}");
        std::fs::write(&path, &text).unwrap();
        let report = run_file(&path, &opts(Mode::Validate, EngineKind::Reference));
        assert_eq!((report.passed, report.total), (6, 6), "{:?}", report.failures);
        assert!(report.fatal.is_none());
    }

    #[test]
    fn validate_reports_the_first_difference() {
        let wrong = SCRIPT.replace("1\nx\n2\n(empty)", "1\nx\n3\n(empty)");
        let path = script("wrong.test", &wrong);
        let report = run_file(&path, &opts(Mode::Validate, EngineKind::Reference));
        assert_eq!(report.failed(), 3, "the changed row and the two queries without results");
        assert_eq!(report.failures[0].line, 7);
        assert!(report.failures[0].got.contains('2'));
        assert_eq!(report.causes.get("wrong result"), Some(&3));
    }

    #[test]
    fn an_engine_that_cannot_open_fails_every_record() {
        let path = script("broken.test", SCRIPT);
        let report = run_file(&path, &opts(Mode::Validate, EngineKind::Capi("/nonexistent/lib.so".into())));
        assert_eq!((report.passed, report.total, report.failed()), (0, 6, 6));
        assert!(report.fatal.as_deref().unwrap().contains("cannot open"));
    }

    #[test]
    fn diff_mode_compares_the_reference_with_itself() {
        let path = script("diff.test", SCRIPT);
        let report = run_file(&path, &opts(Mode::Diff, EngineKind::Reference));
        assert_eq!(report.failed(), 0, "{:?}", report.failures);
    }

    #[test]
    fn the_c_abi_backend_runs_the_system_library() {
        let lib = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0";
        if !std::path::Path::new(lib).exists() {
            return; // no system SQLite on this machine
        }
        let path = script("capi.test", SCRIPT);
        let report = run_file(&path, &opts(Mode::Diff, EngineKind::Capi(lib.into())));
        assert_eq!(report.failed(), 0, "{:?}", report.failures);
    }
}
