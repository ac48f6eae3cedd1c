//! # `.import`
//!
//! Reads a CSV file (RFC 4180 quoting: `"..."` fields, `""` for a quote,
//! separators and newlines inside quotes kept) with the current or the
//! `--csv` separators, and inserts its records into a table, creating the
//! table from the first record's names (all columns TEXT) when it does
//! not exist, as SQLite's shell does. Records with too few fields are
//! filled with NULL, extra fields dropped, each with SQLite's warning.
//!
//! Invariants: the inserts run in one transaction when none is open; the
//! file is read as bytes (no UTF-8 requirement).

use crate::shell::{Flow, Shell};
use std::ffi::c_int;

/// A CSV reader over the whole file's bytes.
struct Csv<'a> {
    data: &'a [u8],
    pos: usize,
    col_sep: u8,
    row_sep: u8,
    /// Newlines read so far (the line a record ends on, for messages).
    line: usize,
}

impl Csv<'_> {
    /// The next record's fields, or None at the end of the file.
    fn record(&mut self) -> Option<Vec<Vec<u8>>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let mut fields = Vec::new();
        loop {
            let (field, more) = self.field();
            fields.push(field);
            if !more {
                return Some(fields);
            }
        }
    }

    /// One field and whether another follows in the same record.
    fn field(&mut self) -> (Vec<u8>, bool) {
        let d = self.data;
        let mut f = Vec::new();
        if self.pos < d.len() && d[self.pos] == b'"' {
            self.pos += 1;
            while self.pos < d.len() {
                let c = d[self.pos];
                self.pos += 1;
                if c == b'\n' {
                    self.line += 1;
                }
                if c != b'"' {
                    f.push(c);
                    continue;
                }
                if self.pos < d.len() && d[self.pos] == b'"' {
                    f.push(b'"');
                    self.pos += 1;
                    continue;
                }
                if self.pos + 1 < d.len() && d[self.pos] == b'\r' && d[self.pos + 1] == b'\n' && self.row_sep == b'\n' {
                    self.pos += 1;
                }
                break;
            }
            // After the closing quote: up to the separator ending the field.
            while self.pos < d.len() && d[self.pos] != self.col_sep && d[self.pos] != self.row_sep {
                f.push(d[self.pos]);
                self.pos += 1;
            }
        } else {
            while self.pos < d.len() && d[self.pos] != self.col_sep && d[self.pos] != self.row_sep {
                f.push(d[self.pos]);
                self.pos += 1;
            }
            if self.row_sep == b'\n' && f.last() == Some(&b'\r') && (self.pos >= d.len() || d[self.pos] == b'\n') {
                f.pop();
            }
        }
        if self.pos >= d.len() {
            self.line += 1;
            return (f, false);
        }
        let sep = d[self.pos];
        self.pos += 1;
        if sep == b'\n' {
            self.line += 1;
        }
        (f, sep == self.col_sep && sep != self.row_sep)
    }
}

pub fn import(sh: &mut Shell, args: &[&str]) -> Flow {
    let mut csv = false;
    let mut ascii = false;
    let mut skip = 0usize;
    let mut schema: Option<String> = None;
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "--csv" | "-csv" => csv = true,
            "--ascii" | "-ascii" => ascii = true,
            "-v" => {}
            "--skip" | "-skip" if i + 1 < args.len() => {
                i += 1;
                skip = args[i].parse().unwrap_or(0);
            }
            "--schema" | "-schema" if i + 1 < args.len() => {
                i += 1;
                schema = Some(args[i].to_string());
            }
            a if a.starts_with('-') && names.len() < 2 => {
                sh.error(&format!("ERROR: unknown option: \"{a}\".  Usage:\n.import FILE TABLE"));
                return Flow::Failed;
            }
            a => names.push(a),
        }
        i += 1;
    }
    let [file, table] = names[..] else {
        sh.error("ERROR: missing FILE and/or TABLE argument. Usage:\n.import FILE TABLE");
        return Flow::Failed;
    };
    let (col_sep, row_sep) = if ascii {
        (0x1f, 0x1e)
    } else if csv {
        (b',', b'\n')
    } else {
        // The output separators; a "\r\n" row separator becomes "\n" for
        // good (SQLite's shell changes the setting itself).
        if sh.set.row_sep == "\r\n" {
            sh.set.row_sep = "\n".into();
        }
        let (c, r) = (sh.set.col_sep.as_bytes(), sh.set.row_sep.as_bytes());
        if c.len() != 1 {
            sh.error("Error: multi-character column separators not allowed for import");
            return Flow::Failed;
        }
        // "\r\n" rows are read as "\n" rows whose fields lose a final "\r".
        let r = if r.len() == 1 { r[0] } else { 0 };
        if r == 0 {
            sh.error("Error: multi-character row separators not allowed for import");
            return Flow::Failed;
        }
        (c[0], r)
    };
    let data = match std::fs::read(file) {
        Ok(d) => d,
        Err(_) => {
            sh.error(&format!("Error: cannot open \"{file}\""));
            return Flow::Failed;
        }
    };
    let mut rd = Csv { data: &data, pos: 0, col_sep, row_sep, line: 0 };
    for _ in 0..skip {
        if rd.record().is_none() {
            break;
        }
    }
    let schema = schema.unwrap_or_else(|| "main".to_string());
    let qschema = format!("\"{}\"", schema.replace('"', "\"\""));
    let qtable = format!("\"{}\"", table.replace('"', "\"\""));
    let exists = sh
        .conn
        .column_strings(&format!("SELECT count(*) FROM {qschema}.sqlite_schema WHERE type IN ('table','view') AND name=?1 COLLATE nocase"), &[table])
        .map(|v| v.first().is_some_and(|n| n != "0"));
    let exists = match exists {
        Ok(e) => e,
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            return Flow::Failed;
        }
    };
    if !exists {
        let Some(header) = rd.record() else {
            sh.error(&format!("{file}: empty file"));
            return Flow::Failed;
        };
        let cols: Vec<String> = header.iter().map(|h| format!("\"{}\" TEXT", String::from_utf8_lossy(h).replace('"', "\"\""))).collect();
        let prefix = if schema == "main" { String::new() } else { format!("{qschema}.") };
        let create = format!("CREATE TABLE {prefix}{qtable}(\n{})", cols.join(", "));
        if let Err(e) = sh.conn.exec(&create) {
            sh.error(&format!("{create} failed:\n{}", e.text.trim_start_matches("stepping, ").trim_start_matches("in prepare, ")));
            return Flow::Failed;
        }
    }
    let ncol = match sh
        .conn
        .column_strings(&format!("SELECT count(*) FROM pragma_table_info({}, {})", crate::render::sql_string(table), crate::render::sql_string(&schema)), &[])
    {
        Ok(v) => v.first().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0),
        Err(e) => {
            sh.error(&format!("Error: {}", e.text));
            return Flow::Failed;
        }
    };
    if ncol == 0 {
        return Flow::Continue;
    }
    let marks = vec!["?"; ncol].join(",");
    let insert = format!("INSERT INTO {qschema}.{qtable} VALUES({marks})");
    let began = sh.conn.autocommit();
    if began {
        let _ = sh.conn.exec("BEGIN");
    }
    let mut warnings = Vec::new();
    let prepare_error = match sh.conn.prepare(&insert) {
        Ok((Some(mut st), _)) => {
            while let Some(fields) = rd.record() {
                let n = fields.len();
                if n < ncol {
                    warnings.push(format!("{file}:{}: expected {ncol} columns but found {n} - filling the rest with NULL", rd.line));
                } else if n > ncol {
                    warnings.push(format!("{file}:{}: expected {ncol} columns but found {n} - extras ignored", rd.line));
                }
                for i in 0..ncol {
                    match fields.get(i) {
                        Some(f) => st.bind_text(i as c_int + 1, &String::from_utf8_lossy(f)),
                        None => st.bind_null(i as c_int + 1),
                    }
                }
                if let Err(e) = st.step() {
                    warnings.push(format!("{file}:{}: INSERT failed: {}", rd.line, e.text.trim_start_matches("stepping, ")));
                }
                st.reset();
            }
            None
        }
        Ok((None, _)) => None,
        Err(e) => Some(e.text.trim_start_matches("in prepare, ").to_string()),
    };
    for w in warnings {
        sh.error(&w);
    }
    if began {
        let _ = sh.conn.exec("COMMIT");
    }
    match prepare_error {
        Some(msg) => {
            sh.error(&format!("Error: {msg}"));
            Flow::Failed
        }
        None => Flow::Continue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(data: &[u8], col: u8) -> Vec<Vec<String>> {
        let mut rd = Csv { data, pos: 0, col_sep: col, row_sep: b'\n', line: 0 };
        std::iter::from_fn(|| rd.record()).map(|r| r.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect()).collect()
    }

    #[test]
    fn quoting_and_line_ends() {
        assert_eq!(records(b"a,b\r\n\"x,\"\"y\"\"\",2\n", b','), [vec!["a", "b"], vec!["x,\"y\"", "2"]]);
        assert_eq!(records(b"\"multi\nline\",3", b','), [vec!["multi\nline", "3"]]);
        assert_eq!(records(b"1,\n\n", b','), [vec!["1", ""], vec![""]]);
        assert_eq!(records(b"a|b\n", b'|'), [vec!["a", "b"]]);
    }

    #[test]
    fn line_numbers_count_quoted_newlines() {
        let mut rd = Csv { data: b"h\n\"a\nb\"\nc\n", pos: 0, col_sep: b',', row_sep: b'\n', line: 0 };
        rd.record();
        assert_eq!(rd.line, 1);
        rd.record();
        assert_eq!(rd.line, 3);
        rd.record();
        assert_eq!(rd.line, 4);
    }
}
