//! # Parser for classic sqllogictest scripts
//!
//! A script is a sequence of records separated by blank lines. Each record
//! may be preceded by `skipif`/`onlyif` condition lines and `#` comment
//! lines. The parser keeps, for every record, the line span of its header
//! and of its expected results, so `complete` mode can rewrite exactly
//! those lines and leave everything else (comments, conditions, spacing)
//! untouched.
//!
//! Invariant: line numbers are 1-based; spans are 0-based half-open
//! indices into the file's lines.

/// `skipif <db>` (skip = true) or `onlyif <db>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub skip: bool,
    pub db: String,
}

impl Condition {
    /// Whether this condition lets the record run on `db`.
    pub fn allows(&self, db: &str) -> bool {
        (self.db == db) != self.skip
    }
}

/// How a query's values are ordered before comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // named after the script keywords
pub enum SortMode {
    NoSort,
    RowSort,
    ValueSort,
}

impl SortMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SortMode::NoSort => "nosort",
            SortMode::RowSort => "rowsort",
            SortMode::ValueSort => "valuesort",
        }
    }
}

/// What a statement is expected to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Ok,
    /// Fails; when a pattern is given, the message must match it.
    Error(Option<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum RecordKind {
    Statement {
        expect: Expect,
        sql: String,
    },
    Query {
        types: String,
        sort: SortMode,
        label: Option<String>,
        sql: String,
        /// Lines after `----`; `None` when the record has no `----`.
        expected: Option<Vec<String>>,
    },
    HashThreshold(usize),
    Halt,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub kind: RecordKind,
    pub conditions: Vec<Condition>,
    /// 1-based line of the header (`statement`, `query`, ...).
    pub line: usize,
    /// 0-based index of the header line.
    pub header: usize,
    /// 0-based half-open span of the `----` line and result lines
    /// (empty span at the end of the SQL when there is no `----`).
    pub results: (usize, usize),
}

impl Record {
    /// Whether the record runs on `db` under its conditions.
    pub fn applies_to(&self, db: &str) -> bool {
        self.conditions.iter().all(|c| c.allows(db))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Parse a whole script.
pub fn parse(text: &str) -> Result<Vec<Record>, ParseError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    let mut conditions = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        let err = |message: String| ParseError { line: i + 1, message };
        match words[0] {
            "skipif" | "onlyif" => {
                let db = words.get(1).ok_or_else(|| err(format!("{} without a database name", words[0])))?;
                conditions.push(Condition { skip: words[0] == "skipif", db: db.to_string() });
                i += 1;
            }
            "halt" => {
                records.push(Record { kind: RecordKind::Halt, conditions: std::mem::take(&mut conditions), line: i + 1, header: i, results: (i + 1, i + 1) });
                i += 1;
            }
            "hash-threshold" => {
                let n = words.get(1).and_then(|w| w.parse().ok()).ok_or_else(|| err("hash-threshold needs a number".into()))?;
                records.push(Record {
                    kind: RecordKind::HashThreshold(n),
                    conditions: std::mem::take(&mut conditions),
                    line: i + 1,
                    header: i,
                    results: (i + 1, i + 1),
                });
                i += 1;
            }
            "statement" => {
                let expect = match words.get(1).copied() {
                    Some("ok") => Expect::Ok,
                    Some("error") => {
                        let rest = trimmed["statement".len()..].trim_start()["error".len()..].trim();
                        Expect::Error(if rest.is_empty() { None } else { Some(rest.to_string()) })
                    }
                    other => return Err(err(format!("statement {other:?}: expected ok or error"))),
                };
                let header = i;
                i += 1;
                let start = i;
                while i < lines.len() && !is_blank(lines[i]) {
                    i += 1;
                }
                if start == i {
                    return Err(ParseError { line: header + 1, message: "statement without SQL".into() });
                }
                records.push(Record {
                    kind: RecordKind::Statement { expect, sql: join(&lines[start..i]) },
                    conditions: std::mem::take(&mut conditions),
                    line: header + 1,
                    header,
                    results: (i, i),
                });
            }
            "query" => {
                let mut types = String::new();
                let mut sort = SortMode::NoSort;
                let mut label = None;
                for (n, w) in words.iter().enumerate().skip(1) {
                    match *w {
                        "nosort" => sort = SortMode::NoSort,
                        "rowsort" => sort = SortMode::RowSort,
                        "valuesort" => sort = SortMode::ValueSort,
                        w if n == 1 && w.chars().all(|c| c.is_ascii_uppercase()) => types = w.to_string(),
                        w => label = Some(w.to_string()),
                    }
                }
                let header = i;
                i += 1;
                let start = i;
                while i < lines.len() && !is_blank(lines[i]) && lines[i].trim_end() != "----" {
                    i += 1;
                }
                if start == i {
                    return Err(ParseError { line: header + 1, message: "query without SQL".into() });
                }
                let sql = join(&lines[start..i]);
                let results_start = i;
                let expected = if i < lines.len() && lines[i].trim_end() == "----" {
                    i += 1;
                    let rs = i;
                    while i < lines.len() && !is_blank(lines[i]) {
                        i += 1;
                    }
                    Some(lines[rs..i].iter().map(|l| l.trim_end_matches('\r').to_string()).collect())
                } else {
                    None
                };
                records.push(Record {
                    kind: RecordKind::Query { types, sort, label, sql, expected },
                    conditions: std::mem::take(&mut conditions),
                    line: header + 1,
                    header,
                    results: (results_start, i),
                });
            }
            other => return Err(err(format!("unknown record type {other:?}"))),
        }
    }
    Ok(records)
}

fn join(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim_end_matches('\r')).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_classic_forms() {
        let text = "hash-threshold 8\n\n# c\nonlyif mssql # why\nhalt\n\nstatement ok\nCREATE TABLE t(a)\n\n\
                    skipif mysql\nquery IT rowsort label-1\nSELECT 1,\n 'x'\n----\n1\nx\n\nstatement error no such.*\nSELECT * FROM nope\n";
        let r = parse(text).unwrap();
        assert_eq!(r.len(), 5);
        assert_eq!(r[0].kind, RecordKind::HashThreshold(8));
        assert!(!r[1].applies_to("sqlite"));
        assert!(r[3].applies_to("sqlite"));
        match &r[3].kind {
            RecordKind::Query { types, sort, label, sql, expected } => {
                assert_eq!(types, "IT");
                assert_eq!(*sort, SortMode::RowSort);
                assert_eq!(label.as_deref(), Some("label-1"));
                assert_eq!(sql, "SELECT 1,\n 'x'");
                assert_eq!(expected.as_ref().unwrap(), &vec!["1".to_string(), "x".to_string()]);
            }
            k => panic!("{k:?}"),
        }
        assert_eq!(r[4].kind, RecordKind::Statement { expect: Expect::Error(Some("no such.*".into())), sql: "SELECT * FROM nope".into() });
    }
}
