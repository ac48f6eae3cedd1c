//! # The full-text query language (enhanced syntax)
//!
//! Parses a MATCH operand into a tree (fts3.txt §3, §3.1, as SQLite is
//! built with `SQLITE_ENABLE_FTS3_PARENTHESIS`): terms, `term*`
//! prefixes, `"phrases"`, `col:` filters, `^` first-token anchors,
//! `NEAR` and `NEAR/N` between phrases, `NOT` binding tightest, then
//! `AND` (written or implied by juxtaposition), then `OR`, and
//! parentheses (`^` only in FTS4 tables; FTS3 ignores it). Operators
//! are recognised in capitals only, followed by a
//! space, a quote, a parenthesis or the end. A bare word is split by the
//! table's tokenizer into one phrase per token.
//!
//! Invariants: phrases are numbered left to right as written (the order
//! `matchinfo()` reports them in) (checked: fts3_phrase_order); a NEAR
//! group holds only phrases, each but the last with its distance; an
//! empty query or one with an empty phrase parses to `None` (matches no
//! row), a malformed one to SQLite's "malformed MATCH expression" error.

use super::tokenizer::Tokenizer;
use crate::error::{Error, Result};

/// One token of a phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QToken {
    /// The term (as the tokenizer made it).
    pub term: Vec<u8>,
    /// `term*`: every term starting with it.
    pub prefix: bool,
    /// `^term`: only as the first token of a column.
    pub first: bool,
}

/// A phrase: tokens that must be consecutive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phrase {
    /// Its tokens.
    pub tokens: Vec<QToken>,
    /// The column it is restricted to (`col:`), if any.
    pub column: Option<usize>,
}

/// A query tree; leaves are phrase numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// One phrase.
    Phrase(usize),
    /// Phrases each within `dists[i]` tokens of the next.
    Near(Vec<usize>, Vec<i64>),
    /// Both.
    And(Box<Expr>, Box<Expr>),
    /// Either.
    Or(Box<Expr>, Box<Expr>),
    /// The left without the right.
    Not(Box<Expr>, Box<Expr>),
}

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The tree (`None`: matches nothing).
    pub root: Option<Expr>,
    /// The phrases, numbered as the tree refers to them.
    pub phrases: Vec<Phrase>,
}

#[derive(Debug, Clone, PartialEq)]
enum Lex {
    Open,
    Close,
    And,
    Or,
    Not,
    Near(i64),
    /// A phrase (column filter already applied).
    Phrase(Phrase),
}

/// Parse `q` for a table with `columns`; `default_col` is the column the
/// MATCH's left side names (`None`: the table, all columns).
pub fn parse(q: &[u8], tok: &dyn Tokenizer, columns: &[String], default_col: Option<usize>, fts4: bool) -> Result<Query> {
    let malformed = || Error::sql(format!("malformed MATCH expression: [{}]", String::from_utf8_lossy(q)));
    let lexes = lex(q, tok, columns, default_col, fts4).ok_or_else(malformed)?;
    if lexes.is_empty() {
        return Ok(Query { root: None, phrases: Vec::new() });
    }
    let mut p = Parser { lexes, at: 0, phrases: Vec::new(), empty: false };
    let root = p.or_expr().ok_or_else(malformed)?;
    if p.at != p.lexes.len() {
        return Err(malformed());
    }
    if p.empty {
        return Ok(Query { root: None, phrases: p.phrases });
    }
    // invariant: fts3_phrase_order
    debug_assert!(in_text_order(&root, &mut None, p.phrases.len()), "fts3 query tree out of order: {root:?}");
    Ok(Query { root: Some(root), phrases: p.phrases })
}

/// Whether `e` names phrases below `count` in ascending order (after
/// `last`), each NEAR group with one distance fewer than phrases.
fn in_text_order(e: &Expr, last: &mut Option<usize>, count: usize) -> bool {
    let mut next = |i: usize| {
        let ok = i < count && last.is_none_or(|l| l < i);
        *last = Some(i);
        ok
    };
    match e {
        Expr::Phrase(i) => next(*i),
        Expr::Near(v, d) => d.len() + 1 == v.len() && v.iter().all(|&i| next(i)),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Not(a, b) => in_text_order(a, last, count) && in_text_order(b, last, count),
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Whether `q[i..]` starts with keyword `kw` standing alone.
fn keyword(q: &[u8], i: usize, kw: &[u8], allow_slash: bool) -> bool {
    if !q[i..].starts_with(kw) {
        return false;
    }
    match q.get(i + kw.len()) {
        None => true,
        Some(&b) => is_space(b) || b == b'"' || b == b'(' || b == b')' || (allow_slash && b == b'/'),
    }
}

fn lex(q: &[u8], tok: &dyn Tokenizer, columns: &[String], default_col: Option<usize>, fts4: bool) -> Option<Vec<Lex>> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut col_filter: Option<usize> = None;
    while i < q.len() {
        let b = q[i];
        if is_space(b) {
            i += 1;
            continue;
        }
        let column = col_filter.or(default_col);
        match b {
            b'(' => {
                out.push(Lex::Open);
                i += 1;
                continue;
            }
            b')' => {
                out.push(Lex::Close);
                i += 1;
                continue;
            }
            b'"' => {
                let end = q[i + 1..].iter().position(|&c| c == b'"').map(|p| i + 1 + p)?;
                let body = &q[i + 1..end];
                let toks = tok.tokenize(body);
                let tokens = toks
                    .iter()
                    .map(|t| QToken { term: t.term.clone(), prefix: body.get(t.end) == Some(&b'*'), first: fts4 && t.start > 0 && body[t.start - 1] == b'^' })
                    .collect();
                out.push(Lex::Phrase(Phrase { tokens, column }));
                col_filter = None;
                i = end + 1;
                continue;
            }
            _ => {}
        }
        if keyword(q, i, b"AND", false) {
            out.push(Lex::And);
            i += 3;
            continue;
        }
        if keyword(q, i, b"OR", false) {
            out.push(Lex::Or);
            i += 2;
            continue;
        }
        if keyword(q, i, b"NOT", false) {
            out.push(Lex::Not);
            i += 3;
            continue;
        }
        if keyword(q, i, b"NEAR", true) {
            i += 4;
            let mut n = 10;
            if q.get(i) == Some(&b'/') {
                let s = i + 1;
                let mut e = s;
                while e < q.len() && q[e].is_ascii_digit() {
                    e += 1;
                }
                if e == s {
                    // "NEAR/" without a number: a plain term.
                    i -= 4;
                } else {
                    n = std::str::from_utf8(&q[s..e]).ok()?.parse::<i64>().ok()?;
                    i = e;
                    out.push(Lex::Near(n));
                    continue;
                }
            } else {
                out.push(Lex::Near(n));
                continue;
            }
        }
        // A column filter "name:".
        let mut filtered = false;
        for (ci, c) in columns.iter().enumerate() {
            let n = c.len();
            if q.len() > i + n && q[i + n] == b':' && q[i..i + n].eq_ignore_ascii_case(c.as_bytes()) {
                col_filter = Some(ci);
                i += n + 1;
                filtered = true;
                break;
            }
        }
        if filtered {
            continue;
        }
        // A bare word: up to a space, quote or parenthesis; its first
        // token is one phrase, the rest is read again.
        let mut e = i;
        while e < q.len() && !is_space(q[e]) && q[e] != b'"' && q[e] != b'(' && q[e] != b')' {
            e += 1;
        }
        let word = &q[i..e];
        let toks = tok.tokenize(word);
        match toks.first() {
            None => {
                i = e;
            }
            Some(t) => {
                let prefix = word.get(t.end) == Some(&b'*');
                let first = fts4 && t.start > 0 && word[t.start - 1] == b'^';
                out.push(Lex::Phrase(Phrase { tokens: vec![QToken { term: t.term.clone(), prefix, first }], column }));
                col_filter = None;
                i += t.end + usize::from(prefix);
            }
        }
    }
    Some(out)
}

struct Parser {
    lexes: Vec<Lex>,
    at: usize,
    phrases: Vec<Phrase>,
    empty: bool,
}

impl Parser {
    fn peek(&self) -> Option<&Lex> {
        self.lexes.get(self.at)
    }
    fn or_expr(&mut self) -> Option<Expr> {
        let mut l = self.and_expr()?;
        while self.peek() == Some(&Lex::Or) {
            self.at += 1;
            let r = self.and_expr()?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        Some(l)
    }
    fn and_expr(&mut self) -> Option<Expr> {
        let mut l = self.not_expr()?;
        loop {
            match self.peek() {
                Some(Lex::And) => {
                    self.at += 1;
                }
                Some(Lex::Open) | Some(Lex::Phrase(_)) => {}
                _ => return Some(l),
            }
            let r = self.not_expr()?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
    }
    fn not_expr(&mut self) -> Option<Expr> {
        let mut l = self.near_expr()?;
        while self.peek() == Some(&Lex::Not) {
            self.at += 1;
            let r = self.near_expr()?;
            l = Expr::Not(Box::new(l), Box::new(r));
        }
        Some(l)
    }
    fn near_expr(&mut self) -> Option<Expr> {
        let first = self.primary()?;
        if !matches!(self.peek(), Some(Lex::Near(_))) {
            return Some(first);
        }
        let Expr::Phrase(p0) = first else { return None };
        let mut ps = vec![p0];
        let mut ds = Vec::new();
        while let Some(Lex::Near(n)) = self.peek() {
            let n = *n;
            self.at += 1;
            match self.primary()? {
                Expr::Phrase(p) => {
                    ps.push(p);
                    ds.push(n);
                }
                _ => return None,
            }
        }
        Some(Expr::Near(ps, ds))
    }
    fn primary(&mut self) -> Option<Expr> {
        match self.peek()?.clone() {
            Lex::Open => {
                self.at += 1;
                let e = self.or_expr()?;
                if self.peek() != Some(&Lex::Close) {
                    return None;
                }
                self.at += 1;
                Some(e)
            }
            Lex::Phrase(p) => {
                self.at += 1;
                if p.tokens.is_empty() {
                    self.empty = true;
                }
                self.phrases.push(p);
                Some(Expr::Phrase(self.phrases.len() - 1))
            }
            _ => None,
        }
    }
}
