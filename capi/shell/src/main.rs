//! # ringlite: the command-line shell
//!
//! SQLite's shell, on the ringlite library: the same command line
//! (`ringlite [OPTIONS] [FILENAME [SQL...]]`, options with one or two
//! dashes), the same dot-commands and output for the same input, line
//! editing and history on a terminal (rustyline), and `.async` to run
//! statements on an async connection and count their waits for I/O.
//!
//! Modules: [`api`] loads the C library, [`conn`] owns a connection and
//! its statements, [`render`] writes rows in each output mode, [`shell`]
//! is the input loop, [`dot`] the dot-commands, [`dump`] `.schema` and
//! `.dump`, [`import`] `.import`, [`interrupt`] Ctrl-C, [`ring_stats`] the
//! I/O requests `.async stats` counts.

mod api;
mod conn;
mod dot;
mod dump;
mod import;
mod interrupt;
mod render;
mod ring_stats;
mod shell;

use clap::{Arg, ArgAction, Command};
use render::Mode;
use shell::{Flow, Lines, ReaderLines, Shell};
use std::io::IsTerminal;

/// SQLite's options that take a value (matched after one or two dashes).
const VALUE_OPTIONS: &[&str] = &["cmd", "init", "separator", "newline", "nullvalue", "lib"];
/// SQLite's flag options.
const FLAG_OPTIONS: &[&str] = &[
    "ascii",
    "bail",
    "batch",
    "box",
    "column",
    "csv",
    "echo",
    "header",
    "noheader",
    "headers",
    "html",
    "interactive",
    "json",
    "line",
    "list",
    "markdown",
    "quote",
    "readonly",
    "table",
    "tabs",
    "tcl",
    "version",
    "help",
    "async",
];

fn command() -> Command {
    let mut c = Command::new("ringlite")
        .about("ringlite's shell: SQLite's command-line shell on the ringlite library")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(Arg::new("FILENAME").help("database file (default: a transient in-memory database)"))
        .arg(Arg::new("SQL").num_args(0..).help("SQL statements or dot-commands to run instead of reading standard input"));
    for o in VALUE_OPTIONS {
        let a = Arg::new(*o).long(*o).value_name("VALUE");
        let a = if *o == "cmd" { a.action(ArgAction::Append) } else { a };
        c = c.arg(a.help(match *o {
            "cmd" => "run COMMAND before reading stdin",
            "init" => "read and run FILENAME first",
            "separator" => "set the column separator",
            "newline" => "set the row separator",
            "nullvalue" => "text for NULL values",
            _ => "the libsqlite3.so.0 to run on (default: the ringlite library beside the shell)",
        }));
    }
    for o in FLAG_OPTIONS {
        c = c.arg(Arg::new(*o).long(*o).action(ArgAction::SetTrue).help(match *o {
            "async" => "open the database with SQLITE_OPEN_ASYNC (ringlite)",
            "bail" => "stop after hitting an error",
            "batch" => "force batch I/O",
            "interactive" => "force interactive I/O",
            "echo" => "print inputs before execution",
            "readonly" => "open the database read-only",
            "version" => "show SQLite version",
            "help" => "show this message",
            "header" | "headers" => "turn headers on",
            "noheader" => "turn headers off",
            _ => "set output mode",
        }));
    }
    c
}

/// SQLite accepts `-csv` as well as `--csv`: one dash becomes two for the
/// options it knows, before clap reads them.
fn normalise_args(raw: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut take_value = false;
    for a in raw {
        if take_value {
            take_value = false;
            out.push(a);
            continue;
        }
        let bare = a.trim_start_matches('-');
        let dashes = a.len() - bare.len();
        if (1..=2).contains(&dashes) && (FLAG_OPTIONS.contains(&bare) || VALUE_OPTIONS.contains(&bare)) {
            take_value = VALUE_OPTIONS.contains(&bare);
            out.push(format!("--{bare}"));
        } else {
            out.push(a);
        }
    }
    out
}

/// Lines typed at a terminal, with rustyline's editing and history.
struct Terminal {
    editor: rustyline::DefaultEditor,
    history: Option<std::path::PathBuf>,
}

impl Lines for Terminal {
    fn next_line(&mut self, prompt: &str) -> Option<String> {
        match self.editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = self.editor.add_history_entry(line.as_str());
                }
                Some(line)
            }
            Err(rustyline::error::ReadlineError::Interrupted) => Some(String::new()),
            Err(_) => None,
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(h) = &self.history {
            let _ = self.editor.save_history(h);
        }
    }
}

fn main() {
    let args = normalise_args(std::env::args().collect());
    let m = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            std::process::exit(1);
        }
    };
    if m.get_flag("help") {
        let _ = command().print_help();
        return;
    }
    let api: &'static api::Api = match api::Api::load(m.get_one::<String>("lib").map(std::path::Path::new)) {
        Ok(a) => Box::leak(Box::new(a)),
        Err(e) => {
            eprintln!("ringlite: {e}");
            std::process::exit(1);
        }
    };
    if m.get_flag("version") {
        println!("{} {}", api.libversion_str(), api.sourceid_str());
        return;
    }
    let want_async = m.get_flag("async");
    if want_async && api.io_poll.is_none() {
        eprintln!("Error: --async needs the ringlite library ({} has no sqlite3_io_poll)", api.path.display());
        std::process::exit(1);
    }
    let file = m.get_one::<String>("FILENAME").cloned().unwrap_or_default();
    let flags = if m.get_flag("readonly") { api::SQLITE_OPEN_READONLY } else { api::SQLITE_OPEN_READWRITE | api::SQLITE_OPEN_CREATE } | api::SQLITE_OPEN_URI;
    let conn = match conn::Conn::open(api, &file, flags, want_async) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: unable to open database \"{file}\": {e}");
            std::process::exit(1);
        }
    };
    let sql_args: Vec<String> = m.get_many::<String>("SQL").map(|v| v.cloned().collect()).unwrap_or_default();
    let interactive = m.get_flag("interactive") || (!m.get_flag("batch") && sql_args.is_empty() && std::io::stdin().is_terminal());
    let mut sh = Shell {
        api,
        conn,
        set: render::Settings::default(),
        bail: m.get_flag("bail"),
        timer: false,
        eqp: false,
        changes: false,
        echo: m.get_flag("echo"),
        async_on: want_async,
        async_stats: false,
        interactive,
        out: Vec::new(),
        exit_code: None,
        redirect: None,
        nesting: 0,
        line_no: 0,
        quit: false,
        errors: 0,
    };
    apply_mode_options(&mut sh, &m);
    if let Some(init) = m.get_one::<String>("init") {
        match std::fs::File::open(init) {
            Ok(f) => {
                sh.run_lines(&mut ReaderLines(std::io::BufReader::new(f)));
            }
            Err(_) => eprintln!("cannot open: \"{init}\""),
        }
    }
    if let Some(cmds) = m.get_many::<String>("cmd") {
        for c in cmds {
            if !run_argument(&mut sh, c) && sh.bail {
                sh.flush();
                std::process::exit(1);
            }
            if let Some(code) = sh.exit_code {
                sh.flush();
                std::process::exit(code);
            }
            if sh.quit {
                sh.flush();
                std::process::exit(0);
            }
        }
    }
    let code = if !sql_args.is_empty() {
        let mut code = 0;
        for a in &sql_args {
            if !run_argument(&mut sh, a) {
                code = 1;
                break;
            }
            if let Some(c) = sh.exit_code {
                code = c;
                break;
            }
            if sh.quit {
                break;
            }
        }
        code
    } else if interactive {
        println!("ringlite {} (SQLite {} {})", env!("CARGO_PKG_VERSION"), api.libversion_str(), api.sourceid_str());
        println!("Library: {}", api.path.display());
        println!("Enter \".help\" for usage hints.");
        if file.is_empty() {
            println!("Connected to a transient in-memory database.\nUse \".open FILENAME\" to reopen on a persistent database.");
        }
        interrupt::install(api);
        let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".ringlite_history"));
        match rustyline::DefaultEditor::new() {
            Ok(mut editor) => {
                if let Some(h) = &history {
                    let _ = editor.load_history(h);
                }
                let mut t = Terminal { editor, history };
                sh.run_lines(&mut t);
            }
            Err(_) => {
                sh.run_lines(&mut ReaderLines(std::io::stdin().lock()));
            }
        }
        sh.exit_code.unwrap_or(0)
    } else {
        sh.run_lines(&mut ReaderLines(std::io::stdin().lock()));
        sh.exit_code.unwrap_or(if sh.errors > 0 { 1 } else { 0 })
    };
    sh.flush();
    drop(sh);
    std::process::exit(code);
}

fn apply_mode_options(sh: &mut Shell, m: &clap::ArgMatches) {
    // As SQLite's command line sets them: the mode, and only some of the
    // separators `.mode` would set (-csv keeps "\n" rows).
    for (flag, mode) in [
        ("list", Mode::List),
        ("csv", Mode::Csv),
        ("json", Mode::Json),
        ("line", Mode::Line),
        ("column", Mode::Column),
        ("box", Mode::Box),
        ("table", Mode::Table),
        ("markdown", Mode::Markdown),
        ("quote", Mode::Quote),
        ("tabs", Mode::Tabs),
        ("html", Mode::Html),
        ("tcl", Mode::Tcl),
        ("ascii", Mode::Ascii),
    ] {
        if m.get_flag(flag) {
            sh.set.mode = mode;
            match mode {
                Mode::Csv | Mode::Quote => sh.set.col_sep = ",".into(),
                Mode::Tabs => sh.set.col_sep = "\t".into(),
                Mode::Ascii => {
                    sh.set.col_sep = "\x1f".into();
                    sh.set.row_sep = "\x1e".into();
                }
                _ => {}
            }
        }
    }
    if m.get_flag("header") || m.get_flag("headers") {
        sh.set.headers = true;
        sh.set.headers_set = true;
    }
    if m.get_flag("noheader") {
        sh.set.headers = false;
        sh.set.headers_set = true;
    }
    if let Some(s) = m.get_one::<String>("separator") {
        sh.set.col_sep = s.clone();
    }
    if let Some(s) = m.get_one::<String>("newline") {
        sh.set.row_sep = s.clone();
    }
    if let Some(s) = m.get_one::<String>("nullvalue") {
        sh.set.null = s.clone();
    }
}

/// One `-cmd` or command-line argument: a dot-command, or SQL whose error
/// is printed as "Error: in prepare, ..." (no line number); false on error.
fn run_argument(sh: &mut Shell, text: &str) -> bool {
    if text.starts_with('.') {
        return match dot::run(sh, text) {
            Flow::Continue => {
                sh.flush();
                true
            }
            Flow::Failed => false,
            Flow::Exit(code) => {
                sh.exit_code = Some(code);
                true
            }
            Flow::Quit => {
                sh.quit = true;
                true
            }
        };
    }
    let r = sh.exec_statements(text);
    sh.flush();
    match r {
        Ok(()) => true,
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            false
        }
    }
}
