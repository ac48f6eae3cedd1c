//! # FTS5 query expressions: lexer and parser
//!
//! Turns the right-hand side of `MATCH` into a tree of phrases, NEAR
//! groups and boolean operators, as `fts5.txt` section 3 describes:
//! precedence NOT over AND over OR (all left-associative), implicit AND
//! between juxtaposed phrases and NEAR groups (never next to a
//! parenthesis), column filters (`col :`, `{a b} :`, `- col :`) pushed
//! down into every phrase they cover, `^` for a phrase at the start of a
//! column, `*` for a prefix token, `+` to join phrases.
//!
//! Invariants: every [`Node::Phrase`]/[`Node::Near`] index is a valid
//! index into [`Query::phrases`], phrases are numbered in the order they
//! appear in the text (the order of `xPhraseCount`), and each phrase's
//! column mask has one entry per table column (checked: fts5_query_phrases).

use super::config::Detail;
use super::tokenizer::Tokenizer;
use super::tokenizer::{TOKENIZE_PREFIX, TOKENIZE_QUERY};
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;

/// One phrase: tokens that must appear one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase {
    /// The folded tokens, each with whether it is a prefix.
    pub tokens: Vec<(String, bool)>,
    /// Per token, the synonyms the tokenizer reported at its position
    /// (`FTS5_TOKEN_COLOCATED`; usually none): any of them matches there.
    pub alts: Vec<Vec<String>>,
    /// `tokendata=1`: a token also matches itself followed by a zero
    /// byte and data.
    pub tokendata: bool,
    /// `^`: the phrase must start at the first token of a column.
    pub initial: bool,
    /// The columns it may match in.
    pub cols: Vec<bool>,
}

impl Phrase {
    /// Whether token `k` of the phrase matches `d`, a token of a row
    /// (itself or one of its synonyms; a prefix token any token it starts).
    pub fn holds(&self, k: usize, d: &str) -> bool {
        let (t, prefix) = &self.tokens[k];
        let hit = |t: &str| {
            if *prefix {
                d.starts_with(t)
            } else {
                d == t || (self.tokendata && d.len() > t.len() && d.starts_with(t) && d.as_bytes()[t.len()] == 0)
            }
        };
        hit(t) || self.alts.get(k).is_some_and(|a| a.iter().any(|t| hit(t)))
    }
}

/// An expression node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A phrase (index into the phrases).
    Phrase(usize),
    /// A NEAR group: the phrases and the greatest distance.
    Near(Vec<usize>, usize),
    /// Both.
    And(Box<Node>, Box<Node>),
    /// Either.
    Or(Box<Node>, Box<Node>),
    /// The left and not the right.
    Not(Box<Node>, Box<Node>),
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The phrases in text order.
    pub phrases: Vec<Phrase>,
    /// The expression.
    pub root: Node,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Lp,
    Rp,
    Lcp,
    Rcp,
    Colon,
    Comma,
    Plus,
    Star,
    Minus,
    Caret,
    And,
    Or,
    Not,
    Near,
    Eof,
}

fn syntax(near: &str) -> Error {
    Error::sql(format!("fts5: syntax error near \"{near}\""))
}

fn is_bareword(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_alphanumeric() || c == '_' || c == '\u{1a}'
}

/// The tokens of the query, each with its text as written (for errors).
fn lex(q: &str) -> Result<Vec<(Tok, String)>> {
    let mut out = Vec::new();
    let cs: Vec<char> = q.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c') {
            i += 1;
            continue;
        }
        let single = match c {
            '(' => Some(Tok::Lp),
            ')' => Some(Tok::Rp),
            '{' => Some(Tok::Lcp),
            '}' => Some(Tok::Rcp),
            ':' => Some(Tok::Colon),
            ',' => Some(Tok::Comma),
            '+' => Some(Tok::Plus),
            '*' => Some(Tok::Star),
            '-' => Some(Tok::Minus),
            '^' => Some(Tok::Caret),
            _ => None,
        };
        if let Some(t) = single {
            out.push((t, c.to_string()));
            i += 1;
            continue;
        }
        if c == '"' {
            let mut s = String::new();
            let st = i;
            i += 1;
            loop {
                if i >= cs.len() {
                    return Err(Error::sql("unterminated string"));
                }
                if cs[i] == '"' {
                    if i + 1 < cs.len() && cs[i + 1] == '"' {
                        s.push('"');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                s.push(cs[i]);
                i += 1;
            }
            // Errors quote the string as written, quotes included.
            out.push((Tok::Str(s), cs[st..i].iter().collect()));
            continue;
        }
        if is_bareword(c) {
            let st = i;
            while i < cs.len() && is_bareword(cs[i]) {
                i += 1;
            }
            let w: String = cs[st..i].iter().collect();
            let t = match w.as_str() {
                "AND" => Tok::And,
                "OR" => Tok::Or,
                "NOT" => Tok::Not,
                "NEAR" if i < cs.len() && cs[i] == '(' => Tok::Near,
                _ => Tok::Str(w.clone()),
            };
            out.push((t, w));
            continue;
        }
        return Err(syntax(&c.to_string()));
    }
    out.push((Tok::Eof, String::new()));
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<(Tok, String)>,
    pos: usize,
    columns: &'a [String],
    tokenizer: &'a Tokenizer,
    /// The locale the MATCH value carried (`fts5_locale()`), for the tokenizer.
    locale: Option<&'a [u8]>,
    /// The table's `tokendata=` option.
    tokendata: bool,
    detail: Detail,
    phrases: Vec<Phrase>,
}

/// SQLite's refusal of what an index without positions cannot answer.
fn not_supported(what: &str) -> Error {
    let mode = if what == "column" { "detail=none" } else { "detail!=full" };
    Error::sql(format!("fts5: {what} queries are not supported ({mode})"))
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }
    fn peek2(&self) -> &Tok {
        &self.toks[(self.pos + 1).min(self.toks.len() - 1)].0
    }
    fn err(&self) -> Error {
        syntax(&self.toks[self.pos].1)
    }
    fn expect(&mut self, t: Tok) -> Result<()> {
        if *self.peek() == t {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err())
        }
    }

    fn or(&mut self, cols: &[bool]) -> Result<(Node, bool)> {
        let (mut l, mut paren) = self.and(cols)?;
        while *self.peek() == Tok::Or {
            self.pos += 1;
            let (r, _) = self.and(cols)?;
            l = Node::Or(Box::new(l), Box::new(r));
            paren = false;
        }
        Ok((l, paren))
    }

    /// Whether the next token starts a unit that an implicit AND joins.
    fn starts_simple(&self) -> bool {
        matches!(self.peek(), Tok::Str(_) | Tok::Near | Tok::Caret | Tok::Minus | Tok::Lcp)
    }

    fn and(&mut self, cols: &[bool]) -> Result<(Node, bool)> {
        let (mut l, mut paren) = self.not(cols)?;
        loop {
            if *self.peek() == Tok::And {
                self.pos += 1;
                let (r, _) = self.not(cols)?;
                l = Node::And(Box::new(l), Box::new(r));
                paren = false;
            } else if self.starts_simple() || *self.peek() == Tok::Lp {
                if paren || *self.peek() == Tok::Lp {
                    return Err(self.err());
                }
                let (r, p) = self.not(cols)?;
                if p {
                    return Err(self.err());
                }
                l = self.implicit_and(l, r);
            } else {
                return Ok((l, paren));
            }
        }
    }

    /// `l r` joined by juxtaposition, as SQLite joins them: a phrase or
    /// NEAR group that matches nothing (all its phrases empty) on the
    /// right is dropped, and one last on the left is replaced by `r`; an
    /// explicit AND keeps it (and so matches nothing).
    fn implicit_and(&self, l: Node, r: Node) -> Node {
        if is_eof(&r, &self.phrases) {
            return l;
        }
        fn last(n: &mut Node) -> &mut Node {
            match n {
                Node::And(_, r) => last(r),
                other => other,
            }
        }
        let mut l = l;
        let prev = last(&mut l);
        if is_eof(prev, &self.phrases) {
            *prev = r;
            return l;
        }
        Node::And(Box::new(l), Box::new(r))
    }

    fn not(&mut self, cols: &[bool]) -> Result<(Node, bool)> {
        let (mut l, mut paren) = self.unit(cols)?;
        while *self.peek() == Tok::Not {
            self.pos += 1;
            let (r, _) = self.unit(cols)?;
            l = Node::Not(Box::new(l), Box::new(r));
            paren = false;
        }
        Ok((l, paren))
    }

    fn column_index(&self, name: &str) -> Result<usize> {
        self.columns.iter().position(|c| c.eq_ci(name)).ok_or_else(|| Error::sql(format!("no such column: {name}")))
    }

    /// A unit: `( query )`, a column filter and what it covers, a NEAR
    /// group or a (possibly `^`) phrase. The flag says it was in
    /// parentheses (no implicit AND next to it).
    fn unit(&mut self, cols: &[bool]) -> Result<(Node, bool)> {
        match self.peek().clone() {
            Tok::Lp => {
                self.pos += 1;
                let (n, _) = self.or(cols)?;
                self.expect(Tok::Rp)?;
                Ok((n, true))
            }
            Tok::Minus | Tok::Lcp => self.filtered(cols),
            Tok::Str(_) if *self.peek2() == Tok::Colon => self.filtered(cols),
            Tok::Near => Ok((self.near(cols)?, false)),
            Tok::Caret => {
                self.pos += 1;
                if !matches!(self.peek(), Tok::Str(_)) {
                    return Err(self.err());
                }
                let i = self.phrase(cols, true)?;
                self.check_phrase(i)?;
                Ok((Node::Phrase(i), false))
            }
            Tok::Str(_) => {
                let i = self.phrase(cols, false)?;
                self.check_phrase(i)?;
                Ok((Node::Phrase(i), false))
            }
            _ => Err(self.err()),
        }
    }

    fn filtered(&mut self, cols: &[bool]) -> Result<(Node, bool)> {
        let negate = *self.peek() == Tok::Minus;
        if negate {
            self.pos += 1;
        }
        let mut named = vec![false; self.columns.len()];
        match self.peek().clone() {
            Tok::Lcp => {
                self.pos += 1;
                loop {
                    match self.peek().clone() {
                        Tok::Str(s) => {
                            named[self.column_index(&s)?] = true;
                            self.pos += 1;
                        }
                        Tok::Rcp => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(self.err()),
                    }
                }
            }
            Tok::Str(s) => {
                named[self.column_index(&s)?] = true;
                self.pos += 1;
            }
            _ => return Err(self.err()),
        }
        self.expect(Tok::Colon)?;
        let sub: Vec<bool> = cols.iter().zip(&named).map(|(c, n)| *c && (*n != negate)).collect();
        match self.peek() {
            Tok::Lp | Tok::Near | Tok::Caret | Tok::Str(_) => {
                let (n, _) = self.unit(&sub)?;
                // As SQLite: refused once the filter's operand is parsed.
                if self.detail == Detail::None {
                    return Err(not_supported("column"));
                }
                Ok((n, false))
            }
            _ => Err(self.err()),
        }
    }

    fn near(&mut self, cols: &[bool]) -> Result<Node> {
        self.pos += 1;
        self.expect(Tok::Lp)?;
        let mut list = Vec::new();
        while matches!(self.peek(), Tok::Str(_)) {
            list.push(self.phrase(cols, false)?);
        }
        if list.is_empty() {
            return Err(self.err());
        }
        let mut dist = 10;
        if *self.peek() == Tok::Comma {
            self.pos += 1;
            match self.peek().clone() {
                Tok::Str(s) if s.bytes().all(|b| b.is_ascii_digit()) => {
                    dist = s.parse::<usize>().map_err(|_| self.err())?;
                    self.pos += 1;
                }
                _ => return Err(self.err()),
            }
        }
        self.expect(Tok::Rp)?;
        if self.detail != Detail::Full {
            // Empty phrases take no part; one phrase left is no NEAR.
            let live: Vec<usize> = list.iter().copied().filter(|&i| !self.phrases[i].tokens.is_empty()).collect();
            if live.len() > 1 {
                return Err(not_supported("NEAR"));
            }
            if let Some(&i) = live.first() {
                self.check_phrase(i)?;
            }
        }
        if list.len() == 1 {
            return Ok(Node::Phrase(list[0]));
        }
        Ok(Node::Near(list, dist))
    }

    /// Without positions a phrase is one token, never anchored with `^`
    /// (empty phrases pass: they take no part in the query).
    fn check_phrase(&self, i: usize) -> Result<()> {
        let p = &self.phrases[i];
        if self.detail != Detail::Full && (p.tokens.len() > 1 || (p.initial && !p.tokens.is_empty())) {
            return Err(not_supported("phrase"));
        }
        Ok(())
    }

    /// `string [*] (+ string [*])*` as one phrase; returns its index.
    fn phrase(&mut self, cols: &[bool], initial: bool) -> Result<usize> {
        let mut tokens = Vec::new();
        let mut alts = Vec::new();
        loop {
            let Tok::Str(s) = self.peek().clone() else {
                return Err(self.err());
            };
            self.pos += 1;
            let reason = if *self.peek() == Tok::Star { TOKENIZE_QUERY | TOKENIZE_PREFIX } else { TOKENIZE_QUERY };
            let mut t: Vec<(String, bool)> = Vec::new();
            let mut a: Vec<Vec<String>> = Vec::new();
            for tok in self.tokenizer.tokenize_in(s.as_bytes(), reason, self.locale)? {
                match a.last_mut() {
                    Some(syn) if tok.colocated => syn.push(tok.text),
                    _ => {
                        t.push((tok.text, false));
                        a.push(Vec::new());
                    }
                }
            }
            if *self.peek() == Tok::Star {
                self.pos += 1;
                if let Some(last) = t.last_mut() {
                    last.1 = true;
                }
            }
            tokens.extend(t);
            alts.extend(a);
            if *self.peek() == Tok::Plus {
                self.pos += 1;
                continue;
            }
            break;
        }
        debug_assert_eq!(tokens.len(), alts.len());
        self.phrases.push(Phrase { tokens, alts, tokendata: self.tokendata, initial, cols: cols.to_vec() });
        Ok(self.phrases.len() - 1)
    }
}

/// Parse `q` for a table with these columns; `only` restricts every
/// phrase to one column (`col MATCH q`). Under `detail=column` or
/// `detail=none` what the index cannot answer is refused with SQLite's
/// errors, in the order SQLite meets them.
pub fn parse(q: &str, columns: &[String], only: Option<usize>, tokenizer: &Tokenizer, detail: Detail) -> Result<Query> {
    parse_in(q, columns, only, tokenizer, detail, None, false)
}

/// [`parse`] of a MATCH value that carried `locale` (`fts5_locale()`):
/// its phrases are tokenized with it; `tokendata`: the table's option.
pub fn parse_in(
    q: &str,
    columns: &[String],
    only: Option<usize>,
    tokenizer: &Tokenizer,
    detail: Detail,
    locale: Option<&[u8]>,
    tokendata: bool,
) -> Result<Query> {
    // A value starting with '*' is a special query; the error names its
    // first word (after spaces).
    if let Some(rest) = q.strip_prefix('*') {
        let word = rest.trim_start_matches(' ').split(' ').next().unwrap_or("");
        return Err(Error::sql(format!("unknown special query: {word}")));
    }
    let toks = lex(q)?;
    let cols: Vec<bool> = (0..columns.len()).map(|i| only.is_none_or(|o| o == i)).collect();
    let mut p = Parser { toks, pos: 0, columns, tokenizer, locale, tokendata, detail, phrases: Vec::new() };
    let (root, _) = p.or(&cols)?;
    if *p.peek() != Tok::Eof {
        return Err(p.err());
    }
    if only.is_some() && detail == Detail::None {
        return Err(not_supported("column"));
    }
    // invariant: fts5_query_phrases
    debug_assert!(well_formed(&p.phrases, &root, columns.len()), "malformed fts5 query tree {root:?}");
    Ok(Query { phrases: p.phrases, root })
}

/// Whether `root` names phrases of `phrases` in text order and each
/// phrase has a column mask of `ncols` entries.
fn well_formed(phrases: &[Phrase], root: &Node, ncols: usize) -> bool {
    fn walk(n: &Node, last: &mut Option<usize>, count: usize) -> bool {
        let mut next = |i: usize| {
            let ok = i < count && last.is_none_or(|l| l < i);
            *last = Some(i);
            ok
        };
        match n {
            Node::Phrase(i) => next(*i),
            Node::Near(v, _) => v.iter().all(|&i| next(i)),
            Node::And(a, b) | Node::Or(a, b) | Node::Not(a, b) => walk(a, last, count) && walk(b, last, count),
        }
    }
    phrases.iter().all(|p| p.cols.len() == ncols) && walk(root, &mut None, phrases.len())
}

/// Whether `n` is a phrase or NEAR group that matches no row: its
/// phrases all empty (strings that tokenize to nothing; in a group with
/// others an empty phrase is left out).
fn is_eof(n: &Node, phrases: &[Phrase]) -> bool {
    match n {
        Node::Phrase(i) => phrases[*i].tokens.is_empty(),
        Node::Near(l, _) => l.iter().all(|&i| phrases[i].tokens.is_empty()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn precedence() {
        let q = parse("one OR two NOT three", &cols(), None, &Tokenizer::default(), Detail::Full).unwrap();
        assert!(matches!(q.root, Node::Or(_, ref r) if matches!(**r, Node::Not(..))));
        assert!(parse("(one OR two) three", &cols(), None, &Tokenizer::default(), Detail::Full).is_err());
        assert!(parse("x:one", &cols(), None, &Tokenizer::default(), Detail::Full).unwrap_err().to_string().contains("no such column"));
    }
}
