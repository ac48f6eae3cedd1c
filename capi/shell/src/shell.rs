//! # The shell's state and its input loop
//!
//! Input (a terminal, a pipe, a `.read` file, a command-line argument) is
//! read line by line as SQLite's shell reads it: a line starting with `.`
//! while no SQL is pending is a dot-command; other lines gather into SQL
//! text that runs once `sqlite3_complete` says it ends a statement (or a
//! line holds only `go` or `/`), and what is left at the end of input
//! runs too. Errors are reported as "Parse error near line N: ..." or
//! "Runtime error near line N: ..." with N the line the SQL started on.
//!
//! Invariants: standard output is flushed before anything is written to
//! standard error, so the two interleave as the statements ran; `conn`
//! is always an open connection (a failed `.open` keeps the old one).

use crate::api::Api;
use crate::conn::{Conn, SqlError};
use crate::render::{Query, Settings};
use std::io::Write;
use std::time::Instant;

/// Input loops one inside another at most (SQLite's shell's limit).
const MAX_NESTING: usize = 25;

/// What a dot-command asks of the input loop.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The command failed (counted as an error; `.bail on` stops).
    Failed,
    /// `.exit CODE`.
    Exit(i32),
    /// `.quit`: stop reading; the exit code says whether errors happened.
    Quit,
}

/// A source of input lines.
pub trait Lines {
    /// The next line without its newline, or None at the end of input.
    fn next_line(&mut self, prompt: &str) -> Option<String>;
}

/// Lines of any reader (a pipe, a file).
pub struct ReaderLines<R: std::io::BufRead>(pub R);

impl<R: std::io::BufRead> Lines for ReaderLines<R> {
    fn next_line(&mut self, _prompt: &str) -> Option<String> {
        let mut buf = Vec::new();
        match self.0.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                Some(String::from_utf8_lossy(&buf).into_owned())
            }
        }
    }
}

pub struct Shell {
    pub api: &'static Api,
    pub conn: Conn,
    pub set: Settings,
    pub bail: bool,
    pub timer: bool,
    pub eqp: bool,
    pub changes: bool,
    pub echo: bool,
    /// Open connections with SQLITE_OPEN_ASYNC (ringlite).
    pub async_on: bool,
    /// Print each statement's suspensions and polls after it.
    pub async_stats: bool,
    /// Reading from a terminal: errors say no line number.
    pub interactive: bool,
    pub out: Vec<u8>,
    pub exit_code: Option<i32>,
    /// `.output FILE` / `.once FILE`: where results go instead of
    /// standard output, and whether only for the next SQL.
    pub redirect: Option<(std::fs::File, bool)>,
    /// Input loops running now (standard input, `.read` files inside it).
    pub nesting: usize,
    /// The line being run by the innermost input loop.
    pub line_no: usize,
    /// `.quit` was read: every input loop stops.
    pub quit: bool,
    /// Errors so far in all input (the exit code is 1 when any).
    pub errors: usize,
}

impl Shell {
    pub fn flush(&mut self) {
        emit(&mut self.redirect, &mut self.out);
    }

    /// An error line on standard error, after what was printed before it.
    pub fn error(&mut self, msg: &str) {
        self.flush();
        eprintln!("{msg}");
    }

    /// Reads and runs all of `input`; returns the number of errors.
    pub fn run_lines(&mut self, input: &mut dyn Lines) -> usize {
        // `.read` of a file reading itself stops at SQLite's limit.
        if self.nesting >= MAX_NESTING {
            let msg = format!("Input nesting limit ({MAX_NESTING}) reached at line {}. Check recursion.", self.line_no);
            self.error(&msg);
            return 1;
        }
        self.nesting += 1;
        let saved_line = self.line_no;
        let errors = self.run_lines_nested(input);
        self.nesting -= 1;
        self.line_no = saved_line;
        errors
    }

    fn run_lines_nested(&mut self, input: &mut dyn Lines) -> usize {
        let mut errors = 0;
        let mut sql = String::new();
        let mut start_line = 0;
        let mut line_no = 0;
        let prompt_main = "ringlite> ";
        let prompt_more = "     ...> ";
        while let Some(line) = input.next_line(if sql.is_empty() { prompt_main } else { prompt_more }) {
            line_no += 1;
            self.line_no = line_no;
            if self.exit_code.is_some() || self.quit {
                break;
            }
            if self.bail && errors > 0 {
                self.exit_code.get_or_insert(1);
                break;
            }
            if sql.is_empty() && only_whitespace_or_comments(&line) {
                if self.echo {
                    self.out.extend(format!("{line}\n").as_bytes());
                }
                continue;
            }
            if sql.is_empty() && (line.starts_with('.') || line.starts_with('#')) {
                if self.echo {
                    self.out.extend(format!("{line}\n").as_bytes());
                }
                if line.starts_with('#') {
                    continue;
                }
                match crate::dot::run(self, &line) {
                    Flow::Continue => {}
                    Flow::Failed => {
                        errors += 1;
                        if self.bail {
                            self.exit_code.get_or_insert(1);
                            break;
                        }
                    }
                    Flow::Exit(code) => {
                        self.exit_code = Some(code);
                        break;
                    }
                    Flow::Quit => {
                        self.quit = true;
                        break;
                    }
                }
                self.flush();
                continue;
            }
            let terminator = !sql.is_empty() && is_go_line(&line);
            if sql.is_empty() {
                start_line = line_no;
                sql.push_str(line.trim_start());
            } else if terminator {
                sql.push(';');
            } else {
                sql.push('\n');
                sql.push_str(&line);
            }
            if terminator || self.api.is_complete(&sql) {
                let text = std::mem::take(&mut sql);
                if !self.run_sql_text(&text, start_line) {
                    errors += 1;
                    if self.bail {
                        self.exit_code.get_or_insert(1);
                        break;
                    }
                }
            }
        }
        if !sql.trim().is_empty() && self.exit_code.is_none() && !self.quit && !self.run_sql_text(&sql, start_line) {
            errors += 1;
            if self.bail {
                self.exit_code.get_or_insert(1);
            }
        }
        self.flush();
        self.errors += errors;
        errors
    }

    /// Runs one chunk of SQL text read starting at `line`, reporting its
    /// error as SQLite's shell does; false on error.
    pub fn run_sql_text(&mut self, text: &str, line: usize) -> bool {
        if self.echo {
            self.out.extend(format!("{text}\n").as_bytes());
        }
        let start = Instant::now();
        let cpu0 = cpu_times();
        crate::interrupt::running(self.conn.db);
        let result = self.exec_statements(text);
        crate::interrupt::running(std::ptr::null_mut());
        if self.timer {
            let cpu1 = cpu_times();
            self.out.extend(format!("Run Time: real {:.3} user {:.6} sys {:.6}\n", start.elapsed().as_secs_f64(), cpu1.0 - cpu0.0, cpu1.1 - cpu0.1).as_bytes());
        }
        if self.redirect.as_ref().is_some_and(|r| r.1) {
            self.flush();
            self.redirect = None;
        }
        match result {
            Ok(()) => {
                if self.changes {
                    let (c, t) = self.conn.changes();
                    self.out.extend(format!("changes: {c}   total_changes: {t}\n").as_bytes());
                }
                self.flush();
                true
            }
            Err(e) => {
                let (kind, tail) = if let Some(t) = e.text.strip_prefix("in prepare, ") {
                    ("Parse error", t)
                } else if let Some(t) = e.text.strip_prefix("stepping, ") {
                    ("Runtime error", t)
                } else {
                    ("Error", e.text.as_str())
                };
                let msg = if self.interactive { format!("{kind}: {tail}") } else { format!("{kind} near line {line}: {tail}") };
                self.error(&msg);
                false
            }
        }
    }

    /// Prepares and runs each statement of `text` in turn, printing rows
    /// in the current mode; stops at the first error.
    pub fn exec_statements(&mut self, text: &str) -> Result<(), SqlError> {
        let mut rest = text;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Ok(());
            }
            let before = self.conn.counts.get();
            let ring_before = if self.async_stats && self.conn.is_async { crate::ring_stats::submitted() } else { None };
            let (st, used) = self.conn.prepare(rest)?;
            let stmt_text = &rest[..used];
            rest = &rest[used..];
            let Some(mut st) = st else { continue };
            if st.has_params() {
                // A missing table leaves every parameter NULL, as in SQLite.
                if let Ok((Some(mut table), _)) = self.conn.prepare("SELECT value FROM temp.sqlite_parameters WHERE key = ?1") {
                    st.bind_from_table(&mut table);
                }
            }
            if self.eqp && st.is_explain() == 0 {
                let plan = self.plan_rows(&format!("EXPLAIN QUERY PLAN {}", stmt_text.trim()));
                if let Ok(rows) = plan {
                    render_plan(&mut self.out, &rows);
                }
            }
            let mut result = Ok(());
            if st.is_explain() == 2 {
                let mut rows = Vec::new();
                loop {
                    match st.step() {
                        Ok(true) => rows.push(plan_row(&st.row())),
                        Ok(false) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                render_plan(&mut self.out, &rows);
            } else {
                let mut q = Query::new(&self.set, self.api, st.column_names());
                loop {
                    match st.step() {
                        Ok(true) => q.row(&mut self.out, st.row()),
                        Ok(false) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                    if self.out.len() > 1 << 16 {
                        emit(&mut self.redirect, &mut self.out);
                    }
                }
                q.finish(&mut self.out);
            }
            result?;
            st.finish()?;
            if self.async_stats && self.conn.is_async {
                let after = self.conn.counts.get();
                let requests = match (ring_before, crate::ring_stats::submitted()) {
                    (Some(b), Some(a)) => format!("{} I/O request(s) submitted to io_uring", a.wrapping_sub(b)),
                    _ => "no io_uring ring (blocking I/O)".to_string(),
                };
                self.out.extend(
                    format!(
                        "-- async: {} SQLITE_IO suspension(s), {} io_poll call(s), {requests}\n",
                        after.suspensions - before.suspensions,
                        after.polls - before.polls
                    )
                    .as_bytes(),
                );
            }
        }
    }

    fn plan_rows(&self, sql: &str) -> Result<Vec<(i64, i64, String)>, SqlError> {
        let (st, _) = self.conn.prepare(sql)?;
        let Some(mut st) = st else { return Ok(Vec::new()) };
        let mut rows = Vec::new();
        while st.step()? {
            rows.push(plan_row(&st.row()));
        }
        st.finish()?;
        Ok(rows)
    }
}

/// Writes and clears `out`: to the `.output` file, else standard output.
fn emit(redirect: &mut Option<(std::fs::File, bool)>, out: &mut Vec<u8>) {
    match redirect {
        Some((f, _)) => {
            let _ = f.write_all(out);
        }
        None => {
            let mut so = std::io::stdout().lock();
            let _ = so.write_all(out);
            let _ = so.flush();
        }
    }
    out.clear();
}

fn plan_row(row: &[crate::conn::Cell]) -> (i64, i64, String) {
    let num = |i: usize| row.get(i).map_or(0, |c| String::from_utf8_lossy(&c.bytes).parse().unwrap_or(0));
    (num(0), num(1), row.get(3).map_or(String::new(), |c| String::from_utf8_lossy(&c.bytes).into_owned()))
}

/// "QUERY PLAN" and the plan's rows as a tree, children under parents.
fn render_plan(out: &mut Vec<u8>, rows: &[(i64, i64, String)]) {
    if rows.is_empty() {
        return;
    }
    out.extend(b"QUERY PLAN\n");
    fn level(out: &mut Vec<u8>, rows: &[(i64, i64, String)], parent: i64, prefix: &str, depth: usize) {
        if depth > 1000 {
            return;
        }
        let kids: Vec<&(i64, i64, String)> = rows.iter().filter(|r| r.1 == parent && r.0 != parent).collect();
        for (i, r) in kids.iter().enumerate() {
            let last = i + 1 == kids.len();
            out.extend(format!("{prefix}{}{}\n", if last { "`--" } else { "|--" }, r.2).as_bytes());
            level(out, rows, r.0, &format!("{prefix}{}", if last { "   " } else { "|  " }), depth + 1);
        }
    }
    level(out, rows, 0, "", 0);
}

/// True for a line of only whitespace and SQL comments (skipped while no
/// SQL is pending, as SQLite's shell skips it).
fn only_whitespace_or_comments(line: &str) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"--") {
            return true;
        } else if b[i..].starts_with(b"/*") {
            match line[i + 2..].find("*/") {
                Some(j) => i += j + 4,
                None => return false,
            }
        } else {
            return false;
        }
    }
    true
}

/// A line holding only `go` or `/`: ends the pending SQL like a semicolon.
fn is_go_line(line: &str) -> bool {
    let t = line.trim();
    t == "/" || t.eq_ignore_ascii_case("go")
}

/// User and system CPU seconds of the process so far.
fn cpu_times() -> (f64, f64) {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return (0.0, 0.0) };
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = 100.0;
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / tick;
    (get(11), get(12))
}
