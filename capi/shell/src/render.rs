//! # Output modes
//!
//! How a statement's rows are written in each `.mode`, byte for byte as
//! SQLite's shell writes them (3.40.1's legacy formats, which 3.54's shell
//! keeps for batch use; README "Shell" lists where 3.54's differs).
//! Row modes (list, csv, tabs, line, quote, insert, json) write each row
//! as it comes; columnar modes (column, table, box, markdown) keep the
//! statement's rows to size their columns and write them at its end.
//!
//! Invariants: [`Query::row`] is called only between [`Query::new`] and
//! [`Query::finish`]; a columnar query writes nothing before `finish`.

use crate::api::{Api, SQLITE_BLOB, SQLITE_FLOAT, SQLITE_INTEGER, SQLITE_NULL, SQLITE_TEXT};
use crate::conn::Cell;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    List,
    Csv,
    Tabs,
    Line,
    Quote,
    Insert,
    Json,
    Column,
    Table,
    Box,
    Markdown,
    Html,
    Tcl,
    Ascii,
}

impl Mode {
    pub const NAMES: [(&'static str, Mode); 14] = [
        ("ascii", Mode::Ascii),
        ("box", Mode::Box),
        ("column", Mode::Column),
        ("csv", Mode::Csv),
        ("html", Mode::Html),
        ("insert", Mode::Insert),
        ("json", Mode::Json),
        ("line", Mode::Line),
        ("list", Mode::List),
        ("markdown", Mode::Markdown),
        ("quote", Mode::Quote),
        ("table", Mode::Table),
        ("tabs", Mode::Tabs),
        ("tcl", Mode::Tcl),
    ];

    pub fn name(self) -> &'static str {
        Mode::NAMES.iter().find(|(_, m)| *m == self).map_or("list", |(n, _)| n)
    }

    pub fn columnar(self) -> bool {
        matches!(self, Mode::Column | Mode::Table | Mode::Box | Mode::Markdown)
    }
}

/// The output settings dot-commands change.
#[derive(Clone, Debug)]
pub struct Settings {
    pub mode: Mode,
    pub headers: bool,
    /// `.headers` was given: columnar modes no longer turn headers on.
    pub headers_set: bool,
    pub col_sep: String,
    pub row_sep: String,
    pub null: String,
    /// `.mode insert TABLE`'s table, already quoted as an SQL name.
    pub insert_table: String,
    /// `.width`: per-column widths of the columnar modes (0: fit).
    pub widths: Vec<i32>,
    /// Columnar modes: values wider than this are cut into lines (0: never).
    pub wrap: usize,
    /// Columnar modes: values written as SQL literals (qbox, `--quote`).
    pub quote: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::List,
            headers: false,
            headers_set: false,
            col_sep: "|".into(),
            row_sep: "\n".into(),
            null: String::new(),
            insert_table: "\"table\"".into(),
            widths: Vec::new(),
            wrap: 0,
            quote: false,
        }
    }
}

/// One statement's output in progress.
pub struct Query<'a> {
    set: &'a Settings,
    api: &'static Api,
    cols: Vec<String>,
    rows: Vec<Vec<Cell>>,
    count: usize,
}

impl<'a> Query<'a> {
    pub fn new(set: &'a Settings, api: &'static Api, cols: Vec<String>) -> Query<'a> {
        Query { set, api, cols, rows: Vec::new(), count: 0 }
    }

    pub fn row(&mut self, out: &mut Vec<u8>, row: Vec<Cell>) {
        if self.set.mode.columnar() {
            self.rows.push(row);
            return;
        }
        let first = self.count == 0;
        self.count += 1;
        let s = self.set;
        match s.mode {
            Mode::List | Mode::Tabs | Mode::Ascii => {
                if first && s.headers {
                    out.extend(self.cols.join(&s.col_sep).as_bytes());
                    out.extend(s.row_sep.as_bytes());
                }
                for (i, c) in row.iter().enumerate() {
                    if i > 0 {
                        out.extend(s.col_sep.as_bytes());
                    }
                    out.extend(self.plain(c));
                }
                out.extend(s.row_sep.as_bytes());
            }
            Mode::Csv => {
                if first && s.headers {
                    for (i, name) in self.cols.iter().enumerate() {
                        self.csv_field(out, Some(name.as_bytes()), i + 1 < self.cols.len());
                    }
                    out.extend(s.row_sep.as_bytes());
                }
                for (i, c) in row.iter().enumerate() {
                    self.csv_field(out, (!c.is_null()).then_some(&c.bytes[..]), i + 1 < row.len());
                }
                out.extend(s.row_sep.as_bytes());
            }
            Mode::Line => {
                let w = self.cols.iter().map(|c| c.len()).max().unwrap_or(0).max(5);
                if !first {
                    out.extend(s.row_sep.as_bytes());
                }
                for (name, c) in self.cols.iter().zip(&row) {
                    // Padded to `w` bytes, as C's printf pads.
                    out.extend(" ".repeat(w.saturating_sub(name.len())).as_bytes());
                    out.extend(format!("{name} = ").as_bytes());
                    out.extend(self.plain(c));
                    out.extend(s.row_sep.as_bytes());
                }
            }
            Mode::Quote => {
                if first && s.headers {
                    let names: Vec<String> = self.cols.iter().map(|n| sql_string(n)).collect();
                    out.extend(names.join(&s.col_sep).as_bytes());
                    out.extend(s.row_sep.as_bytes());
                }
                for (i, c) in row.iter().enumerate() {
                    if i > 0 {
                        out.extend(s.col_sep.as_bytes());
                    }
                    self.sql_literal(out, c, false);
                }
                out.extend(s.row_sep.as_bytes());
            }
            Mode::Insert => {
                out.extend(b"INSERT INTO ");
                out.extend(s.insert_table.as_bytes());
                if s.headers {
                    let names: Vec<String> = self.cols.iter().map(|n| sql_name(self.api, n)).collect();
                    out.extend(format!("({})", names.join(",")).as_bytes());
                }
                self.values(out, &row);
            }
            Mode::Json => {
                out.extend(if first { &b"[{"[..] } else { &b",\n{"[..] });
                for (i, (name, c)) in self.cols.iter().zip(&row).enumerate() {
                    json_string(out, name.as_bytes());
                    out.push(b':');
                    match c.kind {
                        SQLITE_NULL => out.extend(b"null"),
                        SQLITE_FLOAT if c.real.is_infinite() => out.extend(if c.real > 0.0 { &b"1e999"[..] } else { &b"-1e999"[..] }),
                        SQLITE_FLOAT => out.extend(self.api.format_f64("%!.20g", c.real).as_bytes()),
                        SQLITE_TEXT | SQLITE_BLOB => json_string(out, &c.bytes),
                        _ => out.extend(&c.bytes),
                    }
                    if i + 1 < row.len() {
                        out.push(b',');
                    }
                }
                out.push(b'}');
            }
            Mode::Html => {
                if first && s.headers {
                    out.extend(b"<TR>");
                    for name in &self.cols {
                        out.extend(b"<TH>");
                        html_escape(out, name.as_bytes());
                        out.extend(b"</TH>\n");
                    }
                    out.extend(b"</TR>\n");
                }
                out.extend(b"<TR>");
                for c in &row {
                    out.extend(b"<TD>");
                    html_escape(out, &self.plain(c));
                    out.extend(b"</TD>\n");
                }
                out.extend(b"</TR>\n");
            }
            Mode::Tcl => {
                if first && s.headers {
                    for (i, name) in self.cols.iter().enumerate() {
                        tcl_string(out, name.as_bytes());
                        if i + 1 < self.cols.len() {
                            out.extend(s.col_sep.as_bytes());
                        }
                    }
                    out.extend(s.row_sep.as_bytes());
                }
                for (i, c) in row.iter().enumerate() {
                    tcl_string(out, &self.plain(c));
                    if i + 1 < row.len() {
                        out.extend(s.col_sep.as_bytes());
                    }
                }
                out.extend(s.row_sep.as_bytes());
            }
            Mode::Column | Mode::Table | Mode::Box | Mode::Markdown => unreachable!("columnar modes are buffered"),
        }
    }

    /// Ends the statement's output (columnar tables, json's bracket).
    pub fn finish(self, out: &mut Vec<u8>) {
        match self.set.mode {
            Mode::Json if self.count > 0 => out.extend(b"]\n"),
            m if m.columnar() && !self.rows.is_empty() => self.columnar(out),
            _ => {}
        }
    }

    /// The value as list mode shows it: its text, or the null string.
    fn plain(&self, c: &Cell) -> Vec<u8> {
        if c.is_null() {
            self.set.null.as_bytes().to_vec()
        } else {
            c.bytes.clone()
        }
    }

    /// A CSV field: quoted when empty, or holding a control character, a
    /// quote, a byte above 127 or the column separator.
    fn csv_field(&self, out: &mut Vec<u8>, v: Option<&[u8]>, sep_after: bool) {
        match v {
            None => out.extend(self.set.null.as_bytes()),
            Some(z) => {
                let sep = self.set.col_sep.as_bytes();
                let needs =
                    z.is_empty() || z.iter().any(|&b| b <= 0x20 || b == b'"' || b >= 0x7f) || (!sep.is_empty() && z.windows(sep.len()).any(|w| w == sep));
                if needs {
                    out.push(b'"');
                    for &b in z {
                        if b == b'"' {
                            out.push(b'"');
                        }
                        out.push(b);
                    }
                    out.push(b'"');
                } else {
                    out.extend(z);
                }
            }
        }
        if sep_after {
            out.extend(self.set.col_sep.as_bytes());
        }
    }

    /// "VALUES(...);\n" of insert mode and of `.dump`.
    pub fn values(&self, out: &mut Vec<u8>, row: &[Cell]) {
        values(self.api, out, row)
    }

    fn sql_literal(&self, out: &mut Vec<u8>, c: &Cell, escape_newlines: bool) {
        sql_literal(self.api, out, c, escape_newlines)
    }

    fn columnar(self, out: &mut Vec<u8>) {
        let s = self.set;
        let mode = s.mode;
        let n = self.cols.len();
        // `.width`: a non-zero width fixes the column's width (values
        // wider are cut into lines of that many characters), a negative
        // one aligns it right; zero or none sizes it to fit.
        let fixed: Vec<i32> = (0..n).map(|j| s.widths.get(j).copied().unwrap_or(0)).collect();
        let limit: Vec<usize> = fixed
            .iter()
            .map(|&f| {
                if f != 0 {
                    f.unsigned_abs() as usize
                } else if s.wrap > 0 {
                    s.wrap
                } else {
                    usize::MAX
                }
            })
            .collect();
        let shown = |c: &Cell| -> Vec<u8> {
            if !s.quote {
                return self.plain(c);
            }
            match c.kind {
                SQLITE_NULL => b"NULL".to_vec(),
                SQLITE_TEXT => sql_string(&String::from_utf8_lossy(&c.bytes)).into_bytes(),
                SQLITE_BLOB => {
                    let mut x = b"x'".to_vec();
                    for b in &c.bytes {
                        x.extend(format!("{b:02x}").as_bytes());
                    }
                    x.push(b'\'');
                    x
                }
                _ => c.bytes.clone(),
            }
        };
        let bw = |v: &[u8]| display_width(&String::from_utf8_lossy(v));
        let mut width: Vec<usize> = self.cols.iter().map(|c| display_width(c)).collect();
        for (j, f) in fixed.iter().enumerate() {
            if *f != 0 {
                width[j] = f.unsigned_abs() as usize;
            }
        }
        let mut cells: Vec<Vec<Vec<u8>>> = Vec::new();
        for r in &self.rows {
            let parts: Vec<Vec<Vec<u8>>> = r
                .iter()
                .enumerate()
                .take(n)
                .map(|(j, c)| {
                    let v = shown(c);
                    if bw(&v) <= limit[j] {
                        return vec![v];
                    }
                    let text = String::from_utf8_lossy(&v).into_owned();
                    let mut pieces = Vec::new();
                    let mut cur = String::new();
                    for ch in text.chars() {
                        if display_width(&cur) + display_width(ch.encode_utf8(&mut [0; 4])) > limit[j] {
                            pieces.push(std::mem::take(&mut cur).into_bytes());
                        }
                        cur.push(ch);
                    }
                    pieces.push(cur.into_bytes());
                    pieces
                })
                .collect();
            let lines = parts.iter().map(Vec::len).max().unwrap_or(1);
            for k in 0..lines {
                cells.push(parts.iter().map(|p| p.get(k).cloned().unwrap_or_default()).collect());
            }
            for (j, p) in parts.iter().enumerate() {
                if fixed[j] == 0 {
                    for piece in p {
                        width[j] = width[j].max(bw(piece));
                    }
                }
            }
        }
        let right: Vec<bool> = fixed.iter().map(|f| *f < 0).collect();
        let padj = |v: &[u8], w: usize, right: bool| {
            let fill = " ".repeat(w.saturating_sub(bw(v)));
            let mut x = Vec::new();
            if right {
                x.extend(fill.as_bytes());
                x.extend(v);
            } else {
                x.extend(v);
                x.extend(fill.as_bytes());
            }
            x
        };
        let center = |v: &str, w: usize| {
            let d = w.saturating_sub(display_width(v));
            format!("{}{v}{}", " ".repeat(d / 2), " ".repeat(d.div_ceil(2)))
        };
        let line = |l: &str, m: &str, r: &str, h: &str| {
            let parts: Vec<String> = width.iter().map(|&w| h.repeat(w + 2)).collect();
            format!("{l}{}{r}\n", parts.join(m))
        };
        let join = |parts: Vec<Vec<u8>>, sep: &str| -> Vec<u8> {
            let mut x = Vec::new();
            for (i, p) in parts.into_iter().enumerate() {
                if i > 0 {
                    x.extend(sep.as_bytes());
                }
                x.extend(p);
            }
            x
        };
        let mut o: Vec<u8> = Vec::new();
        match mode {
            Mode::Column => {
                if s.headers {
                    let h: Vec<Vec<u8>> = self.cols.iter().enumerate().map(|(j, c)| padj(c.as_bytes(), width[j], right[j])).collect();
                    o.extend(join(h, "  "));
                    o.extend(s.row_sep.as_bytes());
                    let d: Vec<Vec<u8>> = width.iter().map(|&w| "-".repeat(w).into_bytes()).collect();
                    o.extend(join(d, "  "));
                    o.extend(s.row_sep.as_bytes());
                }
                for r in &cells {
                    let v: Vec<Vec<u8>> = r.iter().enumerate().map(|(j, c)| padj(c, width[j], right[j])).collect();
                    o.extend(join(v, "  "));
                    o.extend(s.row_sep.as_bytes());
                }
            }
            Mode::Table | Mode::Box | Mode::Markdown => {
                let (v, h) = if mode == Mode::Box { ("│", "─") } else { ("|", "-") };
                match mode {
                    Mode::Table => o.extend(line("+", "+", "+", "-").as_bytes()),
                    Mode::Box => o.extend(line("┌", "┬", "┐", "─").as_bytes()),
                    _ => {}
                }
                let hd: Vec<Vec<u8>> = self.cols.iter().zip(&width).map(|(c, &w)| center(c, w).into_bytes()).collect();
                o.extend(format!("{v} ").as_bytes());
                o.extend(join(hd, &format!(" {v} ")));
                o.extend(format!(" {v}\n").as_bytes());
                match mode {
                    Mode::Table => o.extend(line("+", "+", "+", "-").as_bytes()),
                    Mode::Box => o.extend(line("├", "┼", "┤", "─").as_bytes()),
                    _ => o.extend(line("|", "|", "|", h).as_bytes()),
                }
                for r in &cells {
                    let c: Vec<Vec<u8>> = r.iter().enumerate().map(|(j, c)| padj(c, width[j], right[j])).collect();
                    o.extend(format!("{v} ").as_bytes());
                    o.extend(join(c, &format!(" {v} ")));
                    o.extend(format!(" {v}\n").as_bytes());
                }
                match mode {
                    Mode::Table => o.extend(line("+", "+", "+", "-").as_bytes()),
                    Mode::Box => o.extend(line("└", "┴", "┘", "─").as_bytes()),
                    _ => {}
                }
            }
            _ => unreachable!(),
        }
        out.extend(o);
    }
}

/// Columns a string takes on a fixed-pitch screen: one per character,
/// two for East Asian wide ones (as SQLite's shell counts since 3.51).
pub fn display_width(s: &str) -> usize {
    s.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum()
}

fn is_wide(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD)
}

/// "VALUES(v1,v2,...);\n" with each value an SQL literal.
pub fn values(api: &Api, out: &mut Vec<u8>, row: &[Cell]) {
    out.extend(b" VALUES(");
    for (i, c) in row.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        sql_literal(api, out, c, true);
    }
    out.extend(b");\n");
}

/// A value as an SQL literal: NULL, the integer, a float with 20
/// significant digits, 'text' (newlines as `replace(...)` where
/// `escape_newlines`), X'blob'.
pub fn sql_literal(api: &Api, out: &mut Vec<u8>, c: &Cell, escape_newlines: bool) {
    match c.kind {
        SQLITE_NULL => out.extend(b"NULL"),
        SQLITE_INTEGER => out.extend(&c.bytes),
        SQLITE_FLOAT if escape_newlines && c.real.is_infinite() => out.extend(if c.real > 0.0 { &b"1e999"[..] } else { &b"-1e999"[..] }),
        SQLITE_FLOAT => out.extend(api.format_f64("%!.20g", c.real).as_bytes()),
        SQLITE_BLOB => {
            out.extend(b"X'");
            for b in &c.bytes {
                out.extend(format!("{b:02x}").as_bytes());
            }
            out.push(b'\'');
        }
        _ if escape_newlines => escaped_sql_string(out, &c.bytes),
        _ => out.extend(sql_string(&String::from_utf8_lossy(&c.bytes)).as_bytes()),
    }
}

/// 'text' with quotes doubled.
pub fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// 'text' whose newlines and carriage returns are written as escape
/// strings put back by `replace(..., char(10))`, so a dump line stays one
/// line; the escape chosen is one the text does not contain.
fn escaped_sql_string(out: &mut Vec<u8>, z: &[u8]) {
    let has = |b: u8| z.contains(&b);
    let contains = |pat: &[u8]| z.windows(pat.len()).any(|w| w == pat);
    let unused = |a: &'static str, b: &'static str| -> String {
        if !contains(a.as_bytes()) {
            a.to_string()
        } else if !contains(b.as_bytes()) {
            b.to_string()
        } else {
            (0..).map(|i| format!("({a}{i})")).find(|c| !contains(c.as_bytes())).unwrap_or_default()
        }
    };
    let nl = has(b'\n').then(|| unused("\\n", "\\012"));
    let cr = has(b'\r').then(|| unused("\\r", "\\015"));
    if nl.is_some() {
        out.extend(b"replace(");
    }
    if cr.is_some() {
        out.extend(b"replace(");
    }
    out.push(b'\'');
    for &b in z {
        match b {
            b'\'' => out.extend(b"''"),
            b'\n' => out.extend(nl.as_deref().unwrap_or("\n").as_bytes()),
            b'\r' => out.extend(cr.as_deref().unwrap_or("\r").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
    if let Some(cr) = cr {
        out.extend(format!(",'{cr}',char(13))").as_bytes());
    }
    if let Some(nl) = nl {
        out.extend(format!(",'{nl}',char(10))").as_bytes());
    }
}

/// An SQL name as SQLite's shell writes it: bare when it is a plain
/// identifier and not a keyword, else in double quotes.
pub fn sql_name(api: &Api, name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // SAFETY: pointer and length of a live string.
    if plain && unsafe { (api.keyword_check)(name.as_ptr().cast(), name.len() as i32) } == 0 {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

fn json_string(out: &mut Vec<u8>, z: &[u8]) {
    out.push(b'"');
    for &b in z {
        match b {
            b'"' | b'\\' => {
                out.push(b'\\');
                out.push(b);
            }
            b'\x08' => out.extend(b"\\b"),
            b'\x0c' => out.extend(b"\\f"),
            b'\n' => out.extend(b"\\n"),
            b'\r' => out.extend(b"\\r"),
            b'\t' => out.extend(b"\\t"),
            0..=0x1f => out.extend(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

fn html_escape(out: &mut Vec<u8>, z: &[u8]) {
    for &b in z {
        match b {
            b'<' => out.extend(b"&lt;"),
            b'&' => out.extend(b"&amp;"),
            b'>' => out.extend(b"&gt;"),
            b'"' => out.extend(b"&quot;"),
            b'\'' => out.extend(b"&#39;"),
            _ => out.push(b),
        }
    }
}

fn tcl_string(out: &mut Vec<u8>, z: &[u8]) {
    out.push(b'"');
    for &b in z {
        match b {
            b'\\' => out.extend(b"\\\\"),
            b'"' => out.extend(b"\\\""),
            b'\t' => out.extend(b"\\t"),
            b'\n' => out.extend(b"\\n"),
            b'\r' => out.extend(b"\\r"),
            0..=0x1f | 0x7f.. => out.extend(format!("\\{b:03o}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str) -> String {
        let mut out = Vec::new();
        escaped_sql_string(&mut out, s.as_bytes());
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn newlines_become_replace_calls() {
        // As SQLite 3.40.1's shell writes them (seen in its .dump).
        assert_eq!(escaped("a\nb"), "replace('a\\nb','\\n',char(10))");
        assert_eq!(escaped("it's"), "'it''s'");
        assert_eq!(escaped("a\\nb\nc"), "replace('a\\nb\\012c','\\012',char(10))");
        assert_eq!(escaped("x\r\ny"), "replace(replace('x\\r\\ny','\\r',char(13)),'\\n',char(10))");
    }

    #[test]
    fn widths_count_wide_characters_twice() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("ünï"), 3);
        assert_eq!(display_width("漢字"), 4);
    }
}
