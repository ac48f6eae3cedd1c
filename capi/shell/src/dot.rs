//! # Dot-commands
//!
//! The commands of SQLite's shell that ringlite's shell has, parsed as
//! SQLite parses them (words split on spaces, `'...'` taken as is,
//! `"..."` with backslash escapes; a bare `;` ending the line ignored, as
//! since SQLite 3.53), a command named by any unambiguous prefix; and
//! ringlite's own `.async`.
//!
//! Invariants: every command answers [`Flow`]; a failing command prints
//! its error (standard error) itself, leaving the shell's state as it
//! was before the command.

use crate::api::*;
use crate::conn::Conn;
use crate::render::{sql_name, Mode};
use crate::shell::{Flow, ReaderLines, Shell};

const COMMANDS: &[(&str, &str)] = &[
    (".async on|off|stats on|off", "Run statements on an async connection (ringlite): SQLITE_OPEN_ASYNC, waits polled out and counted"),
    (".bail on|off", "Stop after hitting an error.  Default OFF"),
    (".changes on|off", "Show number of rows changed by SQL"),
    (".databases", "List names and files of attached databases"),
    (".dump ?TABLE?", "Render database content as SQL"),
    (".echo on|off", "Turn command echo on or off"),
    (".eqp on|off", "Show the query plan before each statement"),
    (".exit ?CODE?", "Exit this program with return-code CODE"),
    (".headers on|off", "Turn display of headers on or off"),
    (".help", "Show this message"),
    (".import FILE TABLE", "Import data from FILE into TABLE (--csv, --skip N, --schema S)"),
    (".indexes ?TABLE?", "Show names of indexes"),
    (".mode MODE ?TABLE?", "Set output mode"),
    (".nullvalue STRING", "Use STRING in place of NULL values"),
    (".open ?OPTIONS? ?FILE?", "Close existing database and reopen FILE (--new, --readonly)"),
    (".once FILE", "Output for the next SQL command only to FILE"),
    (".output ?FILE?", "Send output to FILE or stdout if FILE is omitted"),
    (".parameter CMD ...", "Manage SQL parameter bindings: clear, init, list, set KEY VALUE, unset KEY"),
    (".print STRING...", "Print literal STRING"),
    (".quit", "Exit this program"),
    (".read FILE", "Read input from FILE"),
    (".schema ?PATTERN?", "Show the CREATE statements matching PATTERN"),
    (".separator COL ?ROW?", "Change the column and row separators"),
    (".show", "Show the current values for various settings"),
    (".tables ?TABLE?", "List names of tables matching LIKE pattern TABLE"),
    (".timer on|off", "Turn SQL timer on or off"),
    (".version", "Show source, library and compiler versions"),
    (".width NUM1 NUM2 ...", "Set minimum column widths for columnar output"),
];

/// Splits a dot-command line into its words.
pub fn split_args(line: &str) -> Vec<String> {
    let b: Vec<char> = line.chars().collect();
    let mut args = Vec::new();
    let mut i = 0;
    let mut last_quoted = false;
    while i < b.len() {
        while i < b.len() && b[i].is_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let mut w = String::new();
        if b[i] == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' && i + 1 < b.len() {
                    i += 1;
                    w.push(match b[i] {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '\\' => '\\',
                        '"' => '"',
                        c => c,
                    });
                } else {
                    w.push(b[i]);
                }
                i += 1;
            }
            i += 1;
            last_quoted = true;
        } else if b[i] == '\'' {
            i += 1;
            while i < b.len() && b[i] != '\'' {
                w.push(b[i]);
                i += 1;
            }
            i += 1;
            last_quoted = true;
        } else {
            while i < b.len() && !b[i].is_whitespace() {
                w.push(b[i]);
                i += 1;
            }
            last_quoted = false;
        }
        args.push(w);
    }
    // SQLite 3.53: bare semicolons at the end of a dot-command are ignored.
    if !last_quoted {
        if let Some(last) = args.last_mut() {
            let kept = last.trim_end_matches(';').len();
            last.truncate(kept);
            if last.is_empty() && args.len() > 1 {
                args.pop();
            }
        }
    }
    args
}

/// `\n`, `\t`, `\r`, `\\` and `\NNN` (octal) resolved, as the separators take them.
fn backslashes(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            v = v * 8 + x;
                            it.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// "on"/"off"/"yes"/"no"/"true"/"false"/a number, as SQLite reads them.
fn boolean(sh: &mut Shell, v: &str) -> bool {
    match v.to_ascii_lowercase().as_str() {
        "on" | "yes" | "true" => true,
        "off" | "no" | "false" => false,
        s if s.parse::<i64>().is_ok() => s.parse::<i64>().unwrap_or(0) != 0,
        _ => {
            sh.error(&format!("ERROR: Not a boolean value: \"{v}\". Assuming \"no\"."));
            false
        }
    }
}

fn name_of(word: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "async",
        "bail",
        "changes",
        "databases",
        "dump",
        "echo",
        "eqp",
        "exit",
        "headers",
        "help",
        "import",
        "indexes",
        "indices",
        "mode",
        "nullvalue",
        "once",
        "open",
        "output",
        "parameter",
        "print",
        "quit",
        "read",
        "schema",
        "separator",
        "show",
        "tables",
        "timer",
        "version",
        "width",
    ];
    if let Some(n) = NAMES.iter().find(|n| **n == word) {
        return Some(n);
    }
    let m: Vec<&&str> = NAMES.iter().filter(|n| n.starts_with(word)).collect();
    match m.as_slice() {
        [one] => Some(one),
        [a, b] if **a == "indexes" && **b == "indices" => Some("indexes"),
        _ => None,
    }
}

pub fn run(sh: &mut Shell, line: &str) -> Flow {
    let args = split_args(&line[1..]);
    let Some(word) = args.first() else { return Flow::Continue };
    let unknown = |sh: &mut Shell| {
        sh.error(&format!("Error: unknown command or invalid arguments:  \"{word}\". Enter \".help\" for help"));
        Flow::Failed
    };
    let Some(cmd) = name_of(word) else { return unknown(sh) };
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let usage = |sh: &mut Shell, u: &str| {
        sh.error(&format!("Usage: {u}"));
        Flow::Failed
    };
    match cmd {
        "bail" | "changes" | "echo" | "eqp" | "headers" | "timer" => {
            if a.len() != 2 {
                return usage(sh, &format!(".{cmd} on|off"));
            }
            let v = boolean(sh, a[1]);
            match cmd {
                "bail" => sh.bail = v,
                "changes" => sh.changes = v,
                "echo" => sh.echo = v,
                "eqp" => sh.eqp = v,
                "headers" => {
                    sh.set.headers = v;
                    sh.set.headers_set = true;
                }
                _ => sh.timer = v,
            }
            Flow::Continue
        }
        "exit" => Flow::Exit(a.get(1).and_then(|v| v.parse().ok()).unwrap_or(0)),
        "quit" => Flow::Quit,
        "help" => {
            for (c, h) in COMMANDS {
                sh.out.extend(format!("{c:<27} {h}\n").as_bytes());
            }
            Flow::Continue
        }
        "mode" => mode(sh, &a),
        "nullvalue" => {
            if a.len() != 2 {
                return usage(sh, ".nullvalue STRING");
            }
            sh.set.null = a[1].to_string();
            Flow::Continue
        }
        "separator" => {
            if a.len() < 2 || a.len() > 3 {
                return usage(sh, ".separator COL ?ROW?");
            }
            sh.set.col_sep = backslashes(a[1]);
            if let Some(r) = a.get(2) {
                sh.set.row_sep = backslashes(r);
            }
            Flow::Continue
        }
        "width" => {
            sh.set.widths = a[1..].iter().map(|w| w.parse::<i32>().unwrap_or(0).clamp(-30000, 30000)).collect();
            Flow::Continue
        }
        "parameter" => parameter(sh, &a[1..]),
        "print" => {
            sh.out.extend(format!("{}\n", a[1..].join(" ")).as_bytes());
            Flow::Continue
        }
        "open" => open(sh, &a),
        "output" | "once" => {
            if a.len() > 2 {
                return usage(sh, &format!(".{cmd} FILE"));
            }
            sh.flush();
            match a.get(1) {
                None | Some(&"stdout") if cmd == "output" => {
                    sh.redirect = None;
                    Flow::Continue
                }
                None => usage(sh, ".once FILE"),
                Some(f) => match std::fs::File::create(f) {
                    Ok(file) => {
                        sh.redirect = Some((file, cmd == "once"));
                        Flow::Continue
                    }
                    Err(_) => {
                        sh.redirect = None;
                        sh.error(&format!("Error: cannot open \"{f}\"\nError: cannot write to \"{f}\""));
                        Flow::Failed
                    }
                },
            }
        }
        "read" => {
            if a.len() != 2 {
                return usage(sh, ".read FILE");
            }
            match std::fs::File::open(a[1]) {
                Ok(f) => {
                    let saved = sh.interactive;
                    sh.interactive = false;
                    let errs = sh.run_lines(&mut ReaderLines(std::io::BufReader::new(f)));
                    sh.interactive = saved;
                    if errs > 0 {
                        Flow::Failed
                    } else {
                        Flow::Continue
                    }
                }
                Err(_) => {
                    sh.error(&format!("Error: cannot open \"{}\"", a[1]));
                    Flow::Failed
                }
            }
        }
        "tables" | "indexes" | "indices" => list_names(sh, cmd != "tables", a.get(1).copied()),
        "schema" => crate::dump::schema(sh, a.get(1).copied()),
        "dump" => crate::dump::dump(sh, &a[1..]),
        "import" => crate::import::import(sh, &a[1..]),
        "databases" => {
            let rows = sh.conn.column_strings("SELECT name || char(1) || file FROM pragma_database_list ORDER BY seq", &[]);
            match rows {
                Ok(rows) => {
                    for r in rows {
                        let (name, file) = r.split_once('\u{1}').unwrap_or((&r, ""));
                        let c = std::ffi::CString::new(name).unwrap_or_default();
                        // SAFETY: `db` is open, the name NUL-terminated.
                        let ro = unsafe { (sh.api.db_readonly)(sh.conn.db, c.as_ptr()) } == 1;
                        let file = if file.is_empty() { "\"\"" } else { file };
                        sh.out.extend(format!("{name}: {file} {}\n", if ro { "r/o" } else { "r/w" }).as_bytes());
                    }
                    Flow::Continue
                }
                Err(e) => {
                    sh.error(&format!("Error: {}", e.text));
                    Flow::Failed
                }
            }
        }
        "show" => {
            let esc = |s: &str| s.escape_default().to_string();
            let onoff = |b: bool| if b { "on" } else { "off" };
            let output = if sh.redirect.is_some() { "file" } else { "stdout" };
            let filename = if sh.conn.name.is_empty() { ":memory:".to_string() } else { sh.conn.name.clone() };
            let lines = [
                ("echo", onoff(sh.echo).to_string()),
                ("eqp", onoff(sh.eqp).to_string()),
                ("headers", onoff(sh.set.headers).to_string()),
                ("mode", sh.set.mode.name().to_string()),
                ("nullvalue", format!("\"{}\"", esc(&sh.set.null))),
                ("output", output.to_string()),
                ("colseparator", format!("\"{}\"", esc(&sh.set.col_sep))),
                ("rowseparator", format!("\"{}\"", esc(&sh.set.row_sep))),
                ("timer", onoff(sh.timer).to_string()),
                ("async", onoff(sh.conn.is_async).to_string()),
                ("filename", filename),
            ];
            for (k, v) in lines {
                sh.out.extend(format!("{k:>12}: {v}\n").as_bytes());
            }
            Flow::Continue
        }
        "version" => {
            let t = format!(
                "SQLite {} {}\nringlite shell {} on {}\n",
                sh.api.libversion_str(),
                sh.api.sourceid_str(),
                env!("CARGO_PKG_VERSION"),
                sh.api.path.display()
            );
            sh.out.extend(t.as_bytes());
            Flow::Continue
        }
        "async" => async_cmd(sh, &a),
        _ => unknown(sh),
    }
}

/// `.parameter`: the table `temp.sqlite_parameters` whose rows bind the
/// parameters of later statements by name.
fn parameter(sh: &mut Shell, a: &[&str]) -> Flow {
    // A name starting "sqlite_" needs writable_schema, as SQLite's shell
    // sets it around this statement (through sqlite3_db_config).
    let writable = sh.conn.column_strings("PRAGMA writable_schema", &[]).ok().and_then(|v| v.into_iter().next()).unwrap_or_default();
    let init = format!(
        "PRAGMA writable_schema=ON;\nCREATE TABLE IF NOT EXISTS temp.sqlite_parameters(\n  key TEXT PRIMARY KEY,\n  value\n) WITHOUT ROWID;\nPRAGMA writable_schema={};",
        if writable == "1" { "ON" } else { "OFF" }
    );
    let init = init.as_str();
    let result = match a {
        ["clear"] => sh.conn.exec("DROP TABLE IF EXISTS temp.sqlite_parameters;"),
        ["init"] => sh.conn.exec(init),
        ["list"] => {
            let rows = sh.conn.column_strings("SELECT key || char(1) || quote(value) FROM temp.sqlite_parameters ORDER BY key", &[]);
            if let Ok(rows) = rows {
                let pairs: Vec<(String, String)> =
                    rows.iter().map(|r| r.split_once('\u{1}').map_or((r.clone(), String::new()), |(k, v)| (k.to_string(), v.to_string()))).collect();
                let w = pairs.iter().map(|p| p.0.len()).max().unwrap_or(0);
                for (k, v) in pairs {
                    sh.out.extend(format!("{k:<w$} {v}\n").as_bytes());
                }
            }
            Ok(())
        }
        ["set", key, expr] => {
            let key_lit = crate::render::sql_string(key);
            let r = sh.conn.exec(init);
            // The value is an SQL expression, or else taken as text.
            r.and_then(|_| {
                sh.conn.exec(&format!("REPLACE INTO temp.sqlite_parameters(key,value) VALUES({key_lit},{expr});")).or_else(|_| {
                    sh.conn.exec(&format!("REPLACE INTO temp.sqlite_parameters(key,value) VALUES({key_lit},{});", crate::render::sql_string(expr)))
                })
            })
        }
        ["unset", key] => sh.conn.exec(&format!("DELETE FROM temp.sqlite_parameters WHERE key={};", crate::render::sql_string(key))),
        _ => {
            sh.error("Usage: .parameter clear|init|list|set KEY VALUE|unset KEY");
            return Flow::Failed;
        }
    };
    match result {
        Ok(()) => Flow::Continue,
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            Flow::Failed
        }
    }
}

fn mode(sh: &mut Shell, a: &[&str]) -> Flow {
    let Some(&want) = a.get(1) else {
        let m = sh.set.mode;
        let t = if m.columnar() {
            format!("current output mode: {} --wrap {} --wordwrap off --{}\n", m.name(), sh.set.wrap, if sh.set.quote { "quote" } else { "noquote" })
        } else {
            format!("current output mode: {}\n", m.name())
        };
        sh.out.extend(t.as_bytes());
        return Flow::Continue;
    };
    let want = want.to_ascii_lowercase();
    let qbox = want == "qbox";
    let found = if qbox { Some(&("box", Mode::Box)) } else { Mode::NAMES.iter().find(|(n, _)| n.starts_with(&want) && !want.is_empty()) };
    let Some(&(_, m)) = found else {
        sh.error("Error: mode should be one of: ascii box column csv html insert json line list markdown qbox quote table tabs tcl");
        return Flow::Failed;
    };
    // The columnar modes' options: wrap at 60 characters, values as they
    // are (qbox: quoted), unless the options say otherwise.
    let (mut wrap, mut quote) = (60usize, qbox);
    let mut rest = a[2..].iter();
    if m.columnar() {
        while let Some(&o) = rest.next() {
            match o.trim_start_matches('-') {
                "wrap" => match rest.next().and_then(|v| v.parse::<usize>().ok()) {
                    Some(n) => wrap = n,
                    None => {
                        sh.error("Error: --wrap needs a number");
                        return Flow::Failed;
                    }
                },
                "quote" => quote = true,
                "noquote" => quote = false,
                "wordwrap" | "ww" => {
                    sh.error("Error: --wordwrap is not supported by ringlite's shell");
                    return Flow::Failed;
                }
                _ => {
                    sh.error(&format!("Error: unknown option \"{o}\" on \".mode\""));
                    return Flow::Failed;
                }
            }
        }
        sh.set.wrap = wrap;
        sh.set.quote = quote;
    }
    let s = &mut sh.set;
    match m {
        Mode::List => {
            if s.col_sep == "," {
                s.col_sep = "|".into();
            }
            if s.row_sep == "\r\n" {
                s.row_sep = "\n".into();
            }
        }
        Mode::Csv => {
            s.col_sep = ",".into();
            s.row_sep = "\r\n".into();
        }
        Mode::Tabs => {
            s.col_sep = "\t".into();
        }
        Mode::Quote => {
            s.col_sep = ",".into();
            s.row_sep = "\n".into();
        }
        Mode::Ascii => {
            s.col_sep = "\x1f".into();
            s.row_sep = "\x1e".into();
        }
        Mode::Tcl => {
            s.col_sep = " ".into();
            s.row_sep = "\n".into();
        }
        Mode::Insert => {
            s.insert_table = sql_name(sh.api, a.get(2).copied().unwrap_or("table"));
        }
        _ if m.columnar() && !s.headers_set => s.headers = true,
        _ => {}
    }
    sh.set.mode = m;
    Flow::Continue
}

fn open(sh: &mut Shell, a: &[&str]) -> Flow {
    let mut new = false;
    let mut readonly = false;
    let mut file = None;
    for &arg in &a[1..] {
        match arg.trim_start_matches('-') {
            "new" if arg.starts_with('-') => new = true,
            "readonly" if arg.starts_with('-') => readonly = true,
            _ if arg.starts_with('-') => {
                sh.error(&format!("unknown option: {arg}"));
                return Flow::Failed;
            }
            _ if file.is_some() => {
                sh.error(&format!("extra argument: \"{arg}\""));
                return Flow::Failed;
            }
            _ => file = Some(arg.to_string()),
        }
    }
    let name = file.unwrap_or_default();
    if new && !name.is_empty() && name != ":memory:" {
        let _ = std::fs::remove_file(&name);
    }
    let flags = if readonly { SQLITE_OPEN_READONLY } else { SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE } | SQLITE_OPEN_URI;
    match Conn::open(sh.api, &name, flags, sh.async_on) {
        Ok(c) => {
            sh.conn = c;
            Flow::Continue
        }
        Err(msg) => {
            sh.error(&format!("Error: unable to open database \"{name}\": {msg}"));
            Flow::Failed
        }
    }
}

/// `.tables` and `.indexes`: names in columns across an 80-column screen,
/// filled down then across.
fn list_names(sh: &mut Shell, indexes: bool, pattern: Option<&str>) -> Flow {
    let dbs = match sh.conn.column_strings("SELECT name FROM pragma_database_list ORDER BY seq", &[]) {
        Ok(d) => d,
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            return Flow::Failed;
        }
    };
    let mut names = Vec::new();
    for db in &dbs {
        let q = if indexes {
            format!("SELECT name FROM \"{}\".sqlite_schema WHERE type='index' AND tbl_name LIKE ?1", db.replace('"', "\"\""))
        } else {
            format!(
                "SELECT name FROM \"{}\".sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' AND name LIKE ?1",
                db.replace('"', "\"\"")
            )
        };
        match sh.conn.column_strings(&q, &[pattern.unwrap_or("%")]) {
            Ok(v) => names.extend(v.into_iter().map(|n| if db == "main" { n } else { format!("{db}.{n}") })),
            Err(e) => {
                sh.error(&format!("Error: {}", e.text));
                return Flow::Failed;
            }
        }
    }
    names.sort();
    if names.is_empty() {
        return Flow::Continue;
    }
    let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let cols = (80 / (w + 2)).max(1);
    let rows = names.len().div_ceil(cols);
    for i in 0..rows {
        let mut j = i;
        while j < names.len() {
            let sp = if j < rows { "" } else { "  " };
            let n = &names[j];
            let pad = w.saturating_sub(n.chars().count());
            sh.out.extend(format!("{sp}{n}{}", " ".repeat(pad)).as_bytes());
            j += rows;
        }
        sh.out.push(b'\n');
    }
    Flow::Continue
}

/// `.async on|off`, `.async stats on|off`, and `.async` alone for the
/// state and the counts so far.
fn async_cmd(sh: &mut Shell, a: &[&str]) -> Flow {
    if sh.api.io_poll.is_none() {
        sh.error(&format!("Error: .async needs the ringlite library ({} has no sqlite3_io_poll)", sh.api.path.display()));
        return Flow::Failed;
    }
    match a.get(1..).unwrap_or(&[]) {
        [] => {
            let backend = sh.conn.column_strings("PRAGMA io_backend", &[]).ok().and_then(|v| v.into_iter().next()).unwrap_or_default();
            let c = sh.conn.counts.get();
            let t = format!(
                "async: {} (io_backend: {backend}); stats: {}; so far: {} SQLITE_IO suspension(s), {} io_poll call(s)\n",
                if sh.conn.is_async { "on" } else { "off" },
                if sh.async_stats { "on" } else { "off" },
                c.suspensions,
                c.polls
            );
            sh.out.extend(t.as_bytes());
            Flow::Continue
        }
        ["stats", v] => {
            sh.async_stats = boolean(sh, v);
            Flow::Continue
        }
        [v] => {
            let on = boolean(sh, v);
            sh.async_on = on;
            if sh.conn.is_async == on {
                return Flow::Continue;
            }
            let name = sh.conn.name.clone();
            if name.is_empty() || name == ":memory:" || name.contains("mode=memory") {
                sh.error("Note: an in-memory database does no I/O; .async applies from the next .open of a file");
                return Flow::Continue;
            }
            if !sh.conn.autocommit() {
                sh.error("Error: cannot reopen the database inside a transaction");
                return Flow::Failed;
            }
            match Conn::open(sh.api, &name, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, on) {
                Ok(c) => {
                    sh.conn = c;
                    Flow::Continue
                }
                Err(msg) => {
                    sh.error(&format!("Error: unable to reopen database \"{name}\": {msg}"));
                    Flow::Failed
                }
            }
        }
        _ => {
            sh.error("Usage: .async on|off | .async stats on|off");
            Flow::Failed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_quotes_and_final_semicolon() {
        assert_eq!(split_args("mode csv"), ["mode", "csv"]);
        assert_eq!(split_args("separator \" :: \" '\\n'"), ["separator", " :: ", "\\n"]);
        assert_eq!(split_args("print \"a\\tb\""), ["print", "a\tb"]);
        assert_eq!(split_args("headers on;"), ["headers", "on"]);
        assert_eq!(split_args("headers on ;"), ["headers", "on"]);
        assert_eq!(split_args("print ';'"), ["print", ";"]);
        assert_eq!(split_args("  "), Vec::<String>::new());
    }

    #[test]
    fn separator_escapes() {
        assert_eq!(backslashes("\\n"), "\n");
        assert_eq!(backslashes("a\\tb\\\\"), "a\tb\\");
        assert_eq!(backslashes("\\054"), ",");
        assert_eq!(backslashes("\\q"), "\\q");
    }

    #[test]
    fn prefixes() {
        assert_eq!(name_of("head"), Some("headers"));
        assert_eq!(name_of("ind"), Some("indexes"));
        assert_eq!(name_of("e"), None);
        assert_eq!(name_of("exit"), Some("exit"));
        assert_eq!(name_of("bogus"), None);
    }
}
