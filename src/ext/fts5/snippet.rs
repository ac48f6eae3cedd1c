//! # highlight() and snippet(): marking phrase instances in column text
//!
//! Both walk a column's tokens once, copying its text and inserting the
//! open and close markers around each run of overlapping phrase
//! instances; snippet() first picks a window of tokens and copies only
//! that. The rules below were established by observing SQLite 3.54.1 on
//! generated documents and queries (tests/engine/ext_fts5_snippet.rs):
//!
//! - Instances are taken in `xInst` order: by column, then position,
//!   then phrase number. Runs are built from that order; an instance
//!   joins the run when it starts at or before the run's last token
//!   (adjacent instances make separate runs).
//! - A window of `n` tokens starting at `s` scores 1000 for each
//!   distinct phrase with an instance starting inside it, 1 for each
//!   further instance. For every instance (in the chosen column, or in
//!   every column for a negative column argument) the window starting
//!   at it is scored, then moved so that the instances it holds sit in
//!   the middle (`first - (n - (end - first)) / 2`, `end` the end of the
//!   last instance in order, C division), clamped to the column. If the
//!   column has more than `n` tokens, the window starting at the
//!   sentence that holds the instance (a token preceded by `.` or `:`
//!   and white space, or the first token) is scored too, with 100 more
//!   (120 at the column's start), when that sentence starts before the
//!   instance. Strictly higher scores win; the first column (or the given
//!   one) and token 0 when nothing scores.
//! - The fragment is the text of the window's tokens with the text
//!   between them; before the first token only at the column's start,
//!   after the last only when the window reaches the column's last token
//!   (by `xColumnSize`), else the ellipsis text on that side; a column
//!   of size 0 (no tokens, or UNINDEXED) is copied whole. A run that
//!   starts before the window is not marked; one that runs past its end
//!   is closed at the window's end. `n` below 1 from token 0 leaves the
//!   window without an end (the column up to its last instance, then
//!   the ellipsis), from a later token makes it empty; more than 64
//!   reads as 64.
//! - Marker arguments are read as C strings (up to a NUL); a NULL one is
//!   the empty string. A NULL column gives NULL.
//!
//! Invariant: the output is built only from the column's bytes and the
//! markers; token offsets outside the text are clamped, never indexed.

use super::matcher::Inst;
use super::row::Row;
use super::tokenizer::Token;
use crate::error::{Error, Result, SQLITE_CORRUPT_VTAB, SQLITE_RANGE};
use crate::value::Value;

/// One phrase instance as `xInst` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    col: usize,
    pos: i64,
    phrase: usize,
    len: i64,
}

/// The row's instances in `xInst` order.
fn hits(row: &Row) -> Vec<Hit> {
    let mut v: Vec<Hit> = row
        .inst
        .iter()
        .enumerate()
        .flat_map(|(phrase, l)| l.iter().map(move |x: &Inst| Hit { col: x.col, pos: x.pos as i64, phrase, len: x.len as i64 }))
        .collect();
    crate::util::cold_sort::sort(&mut v);
    v
}

/// A marker argument: its text up to the first NUL ("" for NULL).
fn marker(v: &Value) -> Vec<u8> {
    let mut t = v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default();
    if let Some(z) = t.iter().position(|&b| b == 0) {
        t.truncate(z);
    }
    t
}

/// An integer argument, read whole (64 bits): a column number past the
/// 32-bit range is out of range, not wrapped (observed).
fn int_arg(v: &Value) -> i64 {
    v.as_ref().to_i64()
}

/// Runs of overlapping instances in one column: (first, last) token.
fn runs(hits: &[Hit], col: usize) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut cur: Option<(i64, i64)> = None;
    for h in hits.iter().filter(|h| h.col == col) {
        let last = h.pos + h.len - 1;
        cur = Some(match cur {
            None => (h.pos, last),
            Some((a, b)) if h.pos <= b => (a, b.max(last)),
            Some(run) => {
                out.push(run);
                (h.pos, last)
            }
        });
    }
    out.extend(cur);
    out
}

/// The text being marked and the output built from it.
struct Marking<'a> {
    text: &'a [u8],
    open: &'a [u8],
    close: &'a [u8],
    out: Vec<u8>,
    /// Bytes of `text` consumed so far.
    at: usize,
    is_open: bool,
}

impl Marking<'_> {
    /// Copy `text[at..to]`. A `to` before `at` copies the rest of the
    /// text, as SQLite's negative length (a C string length) does.
    fn copy_to(&mut self, to: usize) {
        let to = to.min(self.text.len());
        let from = self.at.min(self.text.len());
        let end = if to >= from { to } else { self.text.len() };
        self.out.extend_from_slice(&self.text[from..end]);
    }

    fn push_open(&mut self) {
        self.out.extend_from_slice(self.open);
        self.is_open = true;
    }

    fn push_close(&mut self) {
        self.out.extend_from_slice(self.close);
        self.is_open = false;
    }

    /// Walk the tokens, marking the `runs` that start at or after
    /// `skip_before`; with a window, only the tokens in it are copied
    /// (the text before the first at the column's start).
    fn walk(&mut self, tokens: &[Token], runs: &[(i64, i64)], skip_before: i64, window: Option<(i64, i64)>) {
        let mut next = runs.iter().take_while(|r| r.0 < skip_before).count();
        // A colocated token (a synonym) marks nothing of its own, as in
        // SQLite: its position is the token's before it.
        for (pos, t) in tokens.iter().filter(|t| !t.colocated).enumerate() {
            let pos = pos as i64;
            if let Some((first, last)) = window {
                if pos < first || pos > last {
                    continue;
                }
                if first > 0 && pos == first {
                    self.at = t.start;
                }
            }
            let run = runs.get(next).copied();
            if self.is_open && run.is_none_or(|r| pos <= r.0) && t.start > self.at {
                self.push_close();
            }
            if let Some((a, b)) = run {
                if pos == a && !self.is_open {
                    self.copy_to(t.start);
                    self.push_open();
                    self.at = t.start;
                }
                if pos == b {
                    if !self.is_open {
                        self.push_open();
                    }
                    self.copy_to(t.end);
                    self.at = t.end;
                    next += 1;
                }
            }
            if window.is_some_and(|(_, last)| pos == last) {
                if self.is_open {
                    if runs.get(next).is_some_and(|r| pos >= r.0) {
                        self.copy_to(t.end);
                        self.at = t.end;
                    }
                    self.push_close();
                }
                self.copy_to(t.end);
                self.at = t.end;
            }
        }
    }
}

/// The column's text, or None for NULL; SQLITE_RANGE past the last
/// column, corruption for a row the external content table lacks.
fn column_text(row: &Row, col: i64) -> Result<Option<Vec<u8>>> {
    if col < 0 || col as usize >= row.values.len() {
        return Err(Error::new(SQLITE_RANGE, "column index out of range"));
    }
    if row.missing {
        return Err(corrupt());
    }
    Ok(row.values[col as usize].as_ref().to_text().map(|t| t.into_owned()))
}

fn corrupt() -> Error {
    Error::new(SQLITE_CORRUPT_VTAB, "database disk image is malformed")
}

/// `highlight(t, col, open, close)`. A column out of range gives the
/// empty string (snippet() says SQLITE_RANGE).
pub fn highlight(row: &Row, args: &[Value]) -> Result<Value> {
    let col = int_arg(&args[0]);
    let text = match column_text(row, col) {
        Err(e) if e.primary() == SQLITE_RANGE => return Ok(Value::Text(Vec::new())),
        t => t?,
    };
    let Some(text) = text else {
        return Ok(Value::Null);
    };
    let (open, close) = (marker(&args[1]), marker(&args[2]));
    let col = col as usize;
    let runs = runs(&hits(row), col);
    let mut m = Marking { text: &text, open: &open, close: &close, out: Vec::with_capacity(text.len()), at: 0, is_open: false };
    m.walk(row.tokens.get(col).map(Vec::as_slice).unwrap_or(&[]), &runs, 0, None);
    if m.is_open {
        m.push_close();
    }
    m.copy_to(text.len());
    Ok(Value::Text(m.out))
}

/// The positions at which sentences start: the first token, and each
/// token preceded (after spaces, tabs and line ends, at least one) by
/// `.` or `:`.
fn sentence_starts(text: &[u8], tokens: &[Token]) -> Vec<i64> {
    let mut out = Vec::new();
    for (pos, t) in tokens.iter().filter(|t| !t.colocated).enumerate() {
        if pos == 0 {
            out.push(0);
            continue;
        }
        let before = &text[..t.start.min(text.len())];
        let trimmed = before.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        if let Some(i) = trimmed {
            if i + 1 < before.len() && matches!(before[i], b'.' | b':') {
                out.push(pos as i64);
            }
        }
    }
    out
}

/// Score of the window of `n` tokens starting at `start` in `col`, and
/// the start that centres its instances (clamped to `size` tokens).
fn score(hits: &[Hit], col: usize, start: i64, n: i64, size: i64, nphrase: usize) -> (i64, i64) {
    let mut seen = vec![false; nphrase];
    let (mut total, mut first, mut end) = (0, -1, 0);
    for h in hits.iter().filter(|h| h.col == col && h.pos >= start && h.pos < start + n) {
        total += if seen[h.phrase] { 1 } else { 1000 };
        seen[h.phrase] = true;
        if first < 0 {
            first = h.pos;
        }
        end = h.pos + h.len;
    }
    let mut centred = first - (n - (end - first)) / 2;
    if centred + n > size {
        centred = size - n;
    }
    (total, centred.max(0))
}

/// `snippet(t, col, open, close, ellipsis, n)`.
pub fn snippet(row: &Row, args: &[Value]) -> Result<Value> {
    let ncol = row.values.len();
    let want = int_arg(&args[0]);
    let (open, close, ellipsis) = (marker(&args[1]), marker(&args[2]), marker(&args[3]));
    let n = int_arg(&args[4]).min(64);
    let hits = hits(row);
    let nphrase = row.inst.len();
    // A contentless table without sizes has -1 for its indexed columns
    // (whose values are NULL) and, as observed, 0 for the UNINDEXED ones
    // it keeps (the only non-NULL values such a row has).
    let size_of = |c: usize| match row.size.get(c).copied().unwrap_or(0) {
        s if s < 0 && !row.values.get(c).is_none_or(Value::is_null) => 0,
        s => s,
    };
    // An instance past the column's size is corruption; SQLite's error
    // is lost when a later column is examined (observed with the column
    // argument -1), so only the last examined column's counts.
    let mut corrupt_column = false;
    let (mut best_col, mut best_start, mut best_score, mut best_size) = (want.max(0), 0i64, 0i64, 0i64);
    for c in 0..ncol {
        if want >= 0 && want != c as i64 {
            continue;
        }
        let text = column_text(row, c as i64)?.unwrap_or_default();
        let tokens = row.tokens.get(c).map(Vec::as_slice).unwrap_or(&[]);
        let starts = sentence_starts(&text, tokens);
        let size = size_of(c);
        corrupt_column = false;
        for h in hits.iter().filter(|h| h.col == c) {
            if h.pos > size {
                corrupt_column = true;
                break;
            }
            let (s, centred) = score(&hits, c, h.pos, n, size, nphrase);
            if s > best_score {
                (best_col, best_start, best_score, best_size) = (c as i64, centred, s, size);
            }
            if starts.is_empty() || size <= n {
                continue;
            }
            let k = starts.iter().skip(1).take_while(|&&p| p <= h.pos).count();
            let sentence = starts[k];
            if sentence < h.pos {
                let bonus = if sentence == 0 { 120 } else { 100 };
                let s = score(&hits, c, sentence, n, size, nphrase).0 + bonus;
                if s > best_score {
                    (best_col, best_start, best_score, best_size) = (c as i64, sentence, s, size);
                }
            }
        }
    }
    if corrupt_column {
        return Err(corrupt());
    }
    let Some(text) = column_text(row, best_col)? else {
        return Ok(Value::Null);
    };
    let col = best_col as usize;
    if best_size == 0 {
        best_size = size_of(col);
    }
    let runs = runs(&hits, col);
    let last = best_start.saturating_add(n).saturating_sub(1);
    let mut m = Marking { text: &text, open: &open, close: &close, out: Vec::new(), at: 0, is_open: false };
    if best_start > 0 {
        m.out.extend_from_slice(&ellipsis);
    }
    // A window that ends before token 0 (n < 1) marks the whole column
    // as highlight() does, unless it starts after token 0 (then nothing
    // is copied): observed, e.g. n = -3 from a sentence at token 2.
    let window = (last >= 0 || best_start > 0).then_some((best_start, last));
    m.walk(row.tokens.get(col).map(Vec::as_slice).unwrap_or(&[]), &runs, best_start, window);
    if m.is_open {
        m.push_close();
    }
    // An empty column (no tokens, or UNINDEXED) is copied whole.
    if last >= best_size - 1 || best_size == 0 {
        m.copy_to(text.len());
    } else {
        m.out.extend_from_slice(&ellipsis);
    }
    Ok(Value::Text(m.out))
}
