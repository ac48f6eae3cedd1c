//! Glue around `sqlite3-parser`: parse the first statement of a byte
//! slice, find where it ends, map parser errors to SQLite's messages, and
//! recover source text spans the AST does not keep (result column names,
//! the text stored in `sqlite_schema`).
//!
//! The parser recurses on nested expressions and may panic on hostile
//! input: parsing runs on a grown stack (`stacker`) inside `catch_unwind`,
//! and a panic becomes an ordinary syntax error.

use crate::error::{Error, Result};
use sqlite3_parser::ast::Cmd;
use sqlite3_parser::dialect::TokenType;
use sqlite3_parser::lexer::sql::{Error as ParseError, Parser, ParserError, Tokenizer};
use sqlite3_parser::lexer::Scanner;
use sqlite3_parser::{Bump, FallibleIterator};
use std::sync::atomic::{AtomicBool, Ordering};

/// Stack kept free before recursing code grows the stack. Walks that do
/// not call [`with_stack`] themselves recurse at most once per height or
/// parenthesis a statement may have (`sql::parse_limits`: 1,000 and
/// 2,500), and must fit in it: 2 MiB holds them with a margin in a
/// release build; a debug build's frames are several times larger.
#[cfg(not(debug_assertions))]
pub const STACK_RED_ZONE: usize = 2 * 1024 * 1024;
#[cfg(debug_assertions)]
pub const STACK_RED_ZONE: usize = 16 * 1024 * 1024;
/// Stack added each time the red zone is reached (mapped, touched only as
/// used).
#[cfg(not(debug_assertions))]
pub const STACK_GROWTH: usize = 16 * 1024 * 1024;
#[cfg(debug_assertions)]
pub const STACK_GROWTH: usize = 64 * 1024 * 1024;

/// Run `f` with a large stack available (recursive parse and codegen).
pub fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, f)
}

/// The entries SQLite's parser stack holds before it first grows: it is
/// refused growth only past `SQLITE_LIMIT_PARSER_DEPTH`, so a lower limit
/// still allows this many.
const PARSER_INITIAL_STACK: usize = 50;

/// The parser crate's stack limit (`Parser::set_max_depth`) for
/// `SQLITE_LIMIT_PARSER_DEPTH` = `limit`: SQLite's parser fails when its
/// stack would hold more than `max(limit, 50)` entries, and the crate's
/// grammar (the same rules as SQLite's) stacks the same symbols, so a
/// statement fails on the same token in both (measured per nesting
/// shape in `tests/engine/sql_parser_depth.rs`).
pub fn parser_stack_limit(limit: usize) -> usize {
    // (Its stack's first entry is the initial state: the deepest index
    // allowed is one less than the entries allowed.)
    limit.max(PARSER_INITIAL_STACK) - 1
}

/// Byte offset of a (1-based line, 1-based byte column) position.
fn offset_of(input: &[u8], line: usize, column: usize) -> usize {
    let mut cur_line = 1;
    let mut line_start = 0;
    for (i, &b) in input.iter().enumerate() {
        if cur_line == line {
            break;
        }
        if b == b'\n' {
            cur_line += 1;
            line_start = i + 1;
        }
    }
    (line_start + column.saturating_sub(1)).min(input.len())
}

/// Parse the first statement of `sql` and hand it to `f` together with
/// the offset just past it. `None` when only whitespace/comments remain.
pub fn with_first_statement<R>(sql: &[u8], f: impl FnOnce(Option<&Cmd<'_>>, usize) -> Result<R>) -> Result<R> {
    with_first_statement_interruptible(sql, None, usize::MAX, &|_| None, f)
}

/// [`with_first_statement`] whose parse stops with SQLITE_INTERRUPT once
/// `interrupt` is set: the parser crate polls it every few hundred tokens
/// (`Parser::set_interrupt`), as SQLite's parser loop checks
/// `sqlite3_interrupt` between tokens, so a huge statement's prepare stops
/// within microseconds instead of when its parse ends. `parser_depth` is
/// `SQLITE_LIMIT_PARSER_DEPTH`: the parse stops with "Recursion limit" as
/// soon as its stack would grow past it (see [`parser_stack_limit`]).
/// Where the stack overflows, `built` is asked first for an error of the
/// expressions the parse had built (SQLite checks a node's height as it
/// builds it: that error came before the overflow).
pub fn with_first_statement_interruptible<R>(
    sql: &[u8],
    interrupt: Option<&AtomicBool>,
    parser_depth: usize,
    built: BuiltCheck<'_>,
    f: impl FnOnce(Option<&Cmd<'_>>, usize) -> Result<R>,
) -> Result<R> {
    // The parse and its checks are compiled once, with `f` behind `dyn`
    // (they were ~6 KB per caller's `R` and closure). On success `f` has
    // run: every `Ok` of `first_statement_in` is the one of its call.
    let mut f = Some(f);
    let mut out = None;
    parse_first_statement(sql, interrupt, parser_depth, built, &mut |cmd, end| {
        let f = f.take().expect("the statement is handed over once");
        out = Some(f(cmd, end)?);
        Ok(())
    })?;
    Ok(out.expect("a parse that succeeds hands its statement over"))
}

/// [`with_first_statement`] for a callback returning nothing.
/// The check of the expressions built before the parser's stack
/// overflowed (see [`with_first_statement_interruptible`]).
pub type BuiltCheck<'a> = &'a dyn Fn(&[&sqlite3_parser::ast::Expr<'_>]) -> Option<Error>;

fn parse_first_statement(
    sql: &[u8],
    interrupt: Option<&AtomicBool>,
    parser_depth: usize,
    built: BuiltCheck<'_>,
    f: &mut dyn FnMut(Option<&Cmd<'_>>, usize) -> Result<()>,
) -> Result<()> {
    // The AST lives in an arena kept by the thread between statements (a
    // parse nested in `f` finds none and makes its own).
    // (Counted only for a long text: a bulk INSERT's text, whose rows but
    // the first are blanked, `sql::value_rows`, reserves nothing.)
    let spelled = if sql.len() >= ARENA_RESERVE_FROM { sql.iter().filter(|b| !b.is_ascii_whitespace()).count() } else { 0 };
    let mut bump = if spelled >= ARENA_RESERVE_FROM {
        // A long list grows in the arena by doubling. When the arena's
        // chunk is full, the list moves to a new chunk twice as large and
        // its old copy stays behind (a 150,000-item IN list touched
        // 66 MB of chunks for a 21 MB list). One chunk reserved for the
        // whole parse lets the list grow where it is (the parser crate no
        // longer copies token texts into the arena between two items);
        // the pages the parse never reaches are never touched, so they
        // cost address space, not memory. If the reservation is refused,
        // the arena grows chunk by chunk as before.
        Bump::try_with_capacity(spelled.saturating_mul(ARENA_BYTES_PER_TEXT_BYTE)).unwrap_or_default()
    } else {
        ARENA.with(|a| a.take()).unwrap_or_default()
    };
    let result = first_statement_in(&bump, sql, interrupt, parser_stack_limit(parser_depth), built, f);
    if bump.allocated_bytes() <= ARENA_KEPT_BYTES {
        bump.reset();
        ARENA.with(|a| a.set(Some(bump)));
    }
    result
}

thread_local! {
    /// The parse arena reused by successive statements of this thread.
    static ARENA: std::cell::Cell<Option<Bump>> = const { std::cell::Cell::new(None) };
}

/// Texts with at least this many bytes besides white space parse into an
/// arena reserved for them whole (see `parse_first_statement`).
const ARENA_RESERVE_FROM: usize = 64 * 1024;

/// The arena reserved per such byte: the densest list (`1,`:
/// two bytes, one 80-byte expression) needs 40 bytes per byte, twice that
/// while it doubles.
const ARENA_BYTES_PER_TEXT_BYTE: usize = 100;

/// An arena grown larger than this by a big statement is freed, not kept.
const ARENA_KEPT_BYTES: usize = 1 << 20;

fn first_statement_in(
    bump: &Bump,
    sql: &[u8],
    interrupt: Option<&AtomicBool>,
    max_depth: usize,
    built: BuiltCheck<'_>,
    f: &mut dyn FnMut(Option<&Cmd<'_>>, usize) -> Result<()>,
) -> Result<()> {
    let interrupted = move || interrupt.is_some_and(|flag| flag.load(Ordering::Relaxed));
    let interrupted: &dyn Fn() -> bool = &interrupted;
    fn parse<'a>(
        bump: &'a Bump,
        text: &'a [u8],
        interrupted: &'a dyn Fn() -> bool,
        max_depth: usize,
        built: BuiltCheck<'_>,
    ) -> std::thread::Result<(std::result::Result<Option<Cmd<'a>>, ParseError>, usize)> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_stack(|| {
                let mut parser = Parser::new(bump, text);
                parser.set_interrupt(interrupted);
                parser.set_max_depth(max_depth);
                let mut r = parser.next();
                // An expression built too high before the stack overflowed
                // is the error SQLite met first.
                if matches!(r, Err(ParseError::ParserError(ParserError::StackOverflow, _))) {
                    if let Some(e) = built(parser.overflow_exprs()) {
                        r = Err(ParseError::ParserError(ParserError::Custom(e.message), None));
                    }
                }
                let pos = parser.position();
                (r, offset_of(text, pos.line, pos.column))
            })
        }))
    }
    // Byte-order marks between tokens are white space (`sql::bom`); the
    // copy has the original's length, so offsets need no mapping.
    let sql: &[u8] = match super::bom::marks_as_space(sql) {
        Some(spaced) => bump.alloc_slice_copy(&spaced),
        None => sql,
    };
    // (Declared first: a reparse borrows from it.)
    let renamed: Option<super::repeated_set_columns::Rewritten>;
    let mut parsed = parse(bump, sql, interrupted, max_depth, built);
    // SQLite's tokenizer reads "/*" at the very end as "/" and "*", and
    // any other unterminated comment as running to the end of the input,
    // i.e. as whitespace: the text before it is parsed alone.
    let mut text = sql;
    if let Ok((Err(ParseError::UnterminatedBlockComment(_)), _)) = &parsed {
        if let Some(start) = unterminated_comment_start(sql) {
            if start + 2 == sql.len() {
                return Err(Error::sql("near \"*\": syntax error"));
            }
            text = &sql[..start];
            parsed = parse(bump, text, interrupted, max_depth, built);
        }
    }
    // `SET (a, a) = ...`, which the parser crate refuses: parsed again
    // with the repeated names renamed (`repeated_set_columns`), when that
    // parses.
    if let Ok((Err(ParseError::ParserError(ParserError::Custom(msg), _)), _)) = &parsed {
        if msg.ends_with("specified more than once") {
            renamed = super::repeated_set_columns::rename_repeated_set_columns(text);
            if let Some(r) = &renamed {
                let again = parse(bump, &r.text, interrupted, max_depth, built);
                if let Ok((Ok(cmd), end)) = again {
                    let end = if end >= r.text.len() { text.len() } else { r.original_offset(end) };
                    parsed = Ok((Ok(cmd), end));
                }
            }
        }
    }
    let (result, mut end) = match parsed {
        Ok(v) => v,
        Err(_) => return Err(Error::sql("syntax error: statement too complex or malformed")),
    };
    if text.len() < sql.len() && end >= text.len() {
        end = sql.len();
    }
    let sql = text;
    match result {
        Ok(Some(cmd)) => {
            let r = (|| {
                // The schema keeps a definition's text as a `String`: one
                // holding bytes that are not UTF-8 (a Latin-1 literal,
                // kept as such by SQLite) would be stored altered.
                if is_definition(&cmd) && std::str::from_utf8(&sql[..end.min(sql.len())]).is_err() {
                    return Err(Error::sql(sqlite3_parser::lexer::sql::NOT_UTF8));
                }
                if let Some(t) = register_token(sql, end) {
                    return Err(near(sql, t));
                }
                if let Some(t) = values_order_limit(sql, end) {
                    return Err(near(sql, t));
                }
                // Whatever handles the tree (compiling, building the
                // schema) starts on a large stack: not every walk over it
                // grows the stack itself (the parser crate's formatting of
                // a subtree as text recurses once per level).
                with_stack(|| f(Some(&cmd), end))
            })();
            // Dropping a tree is recursive too: a statement nested as deep
            // as the parser allows (parentheses: 2,500) must not exhaust a
            // small thread stack there either.
            with_stack(move || drop(cmd));
            r
        }
        Ok(None) => {
            // Only whitespace, comments, or empty statements.
            f(None, end.max(sql.len()))
        }
        Err(ParseError::Interrupted) => Err(Error::code(crate::error::SQLITE_INTERRUPT)),
        Err(e) => {
            let stop = error_position(&e).map_or(sql.len(), |(line, column)| offset_of(sql, line, column));
            if let Some(t) = register_token(sql, stop) {
                return Err(near(sql, t));
            }
            match values_order_limit(sql, stop) {
                Some(t) => Err(near(sql, t)),
                None => Err(map_error(sql, e)),
            }
        }
    }
}

/// Where the block comment that is never closed starts, if one is.
fn unterminated_comment_start(sql: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < sql.len() {
        match sql[i] {
            q @ (b'\'' | b'"' | b'`' | b'[') => {
                let close = if q == b'[' { b']' } else { q };
                i += 1;
                while i < sql.len() && sql[i] != close {
                    i += 1;
                }
                i += 1;
            }
            b'-' if sql.get(i + 1) == Some(&b'-') => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => match sql[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(n) => i += n + 4,
                None => return Some(i),
            },
            _ => i += 1,
        }
    }
    None
}

/// Where the parser stopped on an error, as (line, column).
fn error_position(e: &ParseError) -> Option<(usize, usize)> {
    match e {
        ParseError::ParserError(_, Some(p))
        | ParseError::UnterminatedLiteral(Some(p))
        | ParseError::UnterminatedBracket(Some(p))
        | ParseError::UnrecognizedToken(Some(p))
        | ParseError::BadVariableName(Some(p))
        | ParseError::BadNumber(Some(p))
        | ParseError::ExpectedEqualsSign(Some(p))
        | ParseError::MalformedBlobLiteral(Some(p))
        | ParseError::MalformedHexInteger(Some(p)) => Some((p.line, p.column)),
        _ => None,
    }
}

fn near(sql: &[u8], t: Tok) -> Error {
    Error::sql(format!("near \"{}\": syntax error", String::from_utf8_lossy(&sql[t.start..t.end])))
}

/// The first `#` followed by a digit (SQLite's tokenizer reads `#1` as a
/// variable, which its parser refuses outside of its own nested parses)
/// before `stop`: a syntax error there. The parser crate takes it for a
/// parameter.
fn register_token(sql: &[u8], stop: usize) -> Option<Tok> {
    let stop = stop.min(sql.len());
    // (Most statements have no `#` at all: a memchr scan says so.)
    if !sql[..stop].contains(&b'#') || !sql[..stop].windows(2).any(|w| w[0] == b'#' && w[1].is_ascii_digit()) {
        return None;
    }
    tokens(sql)
        .take_while(|t| t.start < stop)
        .find(|t| t.kind == TokenType::TK_VARIABLE && sql[t.start] == b'#' && sql.get(t.start + 1).is_some_and(|b| b.is_ascii_digit()))
}

/// The ORDER or LIMIT token right after a VALUES clause's last row (of a
/// statement, a compound's last term, a subquery, a CTE, a trigger body)
/// starting before `stop`: SQLite's grammar has no ORDER BY or LIMIT after
/// a VALUES clause and reports its syntax error there; the parser crate
/// accepts them.
pub fn values_order_limit(sql: &[u8], stop: usize) -> Option<Tok> {
    use TokenType::*;
    let stop = stop.min(sql.len());
    // (Most statements have no VALUES, or neither ORDER nor LIMIT: a byte
    // scan says so without tokenizing.)
    let has = |word: &[u8]| sql[..stop].windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    if !has(b"values") || !(has(b"order") || has(b"limit")) {
        return None;
    }
    let mut depth = 0i32;
    // The parenthesis depth of each VALUES clause whose rows may still
    // continue (innermost last).
    let mut open: Vec<i32> = Vec::new();
    let mut prev: Option<TokenType> = None;
    for t in tokens(sql) {
        if t.start >= stop {
            break;
        }
        match t.kind {
            TK_LP => depth += 1,
            TK_RP => {
                depth -= 1;
                while open.last().is_some_and(|&d| d > depth) {
                    open.pop();
                }
            }
            TK_VALUES if prev != Some(TK_DEFAULT) => open.push(depth),
            _ if open.last() == Some(&depth) => match t.kind {
                TK_COMMA => {}
                TK_ORDER | TK_LIMIT => return Some(t),
                _ => {
                    open.pop();
                }
            },
            _ => {}
        }
        prev = Some(t.kind);
    }
    None
}

/// Byte offset of the token the first statement of `sql` fails to parse
/// at (`sqlite3_error_offset` after a syntax error); `None` when it parses
/// or the input just ends early.
pub fn syntax_error_offset(sql: &[u8]) -> Option<usize> {
    let bump = Bump::new();
    let (err, end) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        with_stack(|| {
            let mut parser = Parser::new(&bump, sql);
            let r = parser.next();
            let pos = parser.position();
            (r.err(), offset_of(sql, pos.line, pos.column))
        })
    }))
    .ok()?;
    let stop = match &err {
        None => end,
        Some(e) => error_position(e).map_or(sql.len(), |(line, column)| offset_of(sql, line, column)),
    };
    if let Some(t) = values_order_limit(sql, stop) {
        return Some(t.start);
    }
    match err? {
        ParseError::ParserError(ParserError::SyntaxError(tok), Some(p)) if !tok.is_empty() => {
            // The parser reports where it stopped, at (or just past) the
            // token it could not use: the last token there with its text.
            let stop = offset_of(sql, p.line, p.column);
            tokens(sql).take_while(|t| t.start <= stop).filter(|t| sql.get(t.start..t.end) == Some(tok.as_bytes())).last().map(|t| t.start)
        }
        ParseError::UnterminatedLiteral(Some(p))
        | ParseError::UnterminatedBracket(Some(p))
        | ParseError::UnrecognizedToken(Some(p))
        | ParseError::BadVariableName(Some(p))
        | ParseError::BadNumber(Some(p))
        | ParseError::ExpectedEqualsSign(Some(p))
        | ParseError::MalformedBlobLiteral(Some(p))
        | ParseError::MalformedHexInteger(Some(p)) => Some(offset_of(sql, p.line, p.column)),
        _ => None,
    }
}

/// The error of the parse of `sql`'s first statement (complete or not)
/// when it overflows the parser's stack under `SQLITE_LIMIT_PARSER_DEPTH`
/// = `parser_depth` before it ends: "Recursion limit", or the error
/// `built` finds in the expressions built before the overflow.
pub fn stack_overflow_error(sql: &[u8], parser_depth: usize, built: BuiltCheck<'_>) -> Option<Error> {
    let bump = Bump::new();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        with_stack(|| {
            let mut parser = Parser::new(&bump, sql);
            parser.set_max_depth(parser_stack_limit(parser_depth));
            match parser.next() {
                Err(ParseError::ParserError(ParserError::StackOverflow, _)) => {
                    Some(built(parser.overflow_exprs()).unwrap_or_else(|| Error::sql("Recursion limit")))
                }
                _ => None,
            }
        })
    }));
    err.ok().flatten()
}

/// SQLite's message for a join operator of unknown words: all of its
/// words (the parser names only the first it did not know).
fn unknown_join_type(sql: &[u8], msg: &str) -> String {
    let bad = msg["unknown join type: ".len()..].trim_end();
    if bad.contains(' ') {
        return msg.trim_end().to_string();
    }
    let is_kw = |w: &[u8]| ["CROSS", "FULL", "INNER", "LEFT", "NATURAL", "OUTER", "RIGHT"].iter().any(|k| k.as_bytes().eq_ignore_ascii_case(w));
    let toks = tokens(sql).collect::<Vec<_>>();
    let words: Vec<&[u8]> = toks.iter().map(|t| &sql[t.start..t.end]).collect();
    for (i, w) in words.iter().enumerate() {
        if !w.eq_ignore_ascii_case(b"JOIN") {
            continue;
        }
        // JOIN_KW [name [name]] JOIN
        let before = &words[i.saturating_sub(3)..i];
        let Some(start) = before.iter().position(|w| is_kw(w)) else { continue };
        let op = &before[start..];
        if op.iter().any(|w| w.eq_ignore_ascii_case(bad.as_bytes())) {
            let text: Vec<String> = op.iter().map(|w| String::from_utf8_lossy(w).into_owned()).collect();
            return format!("unknown join type: {}", text.join(" "));
        }
    }
    msg.trim_end().to_string()
}

fn map_error(sql: &[u8], e: ParseError) -> Error {
    macro_rules! at {
        ($p:expr) => {
            $p.map(|p| offset_of(sql, p.line, p.column)).unwrap_or(0)
        };
    }
    match e {
        ParseError::ParserError(ParserError::SyntaxError(tok), pos) => {
            if tok.is_empty() {
                Error::sql("incomplete input")
            } else if let Some(bad) = pos.as_ref().filter(|_| tok == "(").and_then(|p| unterminated_tcl_suffix(sql, offset_of(sql, p.line, p.column))) {
                // (`::` in a Tcl name was rewritten for the parser as
                // `sql::params::TCL_SEPARATOR`, named here by its value so
                // that this module does not depend on that one.)
                Error::sql(format!("unrecognized token: \"{}\"", String::from_utf8_lossy(bad).replace('\u{1c2}', "::")))
            } else if let Some(clause) = pos.and_then(|p| clause_before_compound(sql, offset_of(sql, p.line, p.column), &tok)) {
                Error::sql(clause)
            } else {
                Error::sql(format!("near \"{tok}\": syntax error"))
            }
        }
        ParseError::ParserError(ParserError::UnexpectedEof, _) => Error::sql("incomplete input"),
        ParseError::ParserError(ParserError::StackOverflow, _) => Error::sql("Recursion limit"),
        ParseError::ParserError(ParserError::Custom(msg), pos) if msg == "a JOIN clause is required before ON" => {
            // The parser says ON for USING too: the clause is the last ON
            // or USING before where it stopped.
            use sqlite3_parser::dialect::TokenType;
            // (ON and USING both, which the parser takes, are a syntax
            // error at USING.)
            let stop = pos.map_or(sql.len(), |p| offset_of(sql, p.line, p.column));
            let toks = tokens(sql).collect::<Vec<_>>();
            let clauses: Vec<TokenType> = toks
                .iter()
                .filter(|t| matches!(t.kind, TokenType::TK_ON | TokenType::TK_USING | TokenType::TK_JOIN | TokenType::TK_COMMA))
                .map(|t| t.kind)
                .collect();
            if clauses.windows(2).any(|w| w[0] == TokenType::TK_ON && w[1] == TokenType::TK_USING) {
                return Error::sql("near \"USING\": syntax error");
            }
            let using = toks
                .iter()
                .rfind(|t| t.start < stop && matches!(t.kind, TokenType::TK_ON | TokenType::TK_USING))
                .is_some_and(|t| t.kind == TokenType::TK_USING);
            Error::sql(if using { "a JOIN clause is required before USING" } else { "a JOIN clause is required before ON" })
        }
        // (The parser joins the two or three words with spaces whether
        // the third is there or not.)
        ParseError::ParserError(ParserError::Custom(msg), _) if msg.starts_with("unknown join type: ") => Error::sql(unknown_join_type(sql, &msg)),
        // (The parser quotes the name as written; SQLite shows it unquoted.)
        ParseError::ParserError(ParserError::Custom(msg), _) if msg.starts_with("duplicate column name: ") => {
            Error::sql(format!("duplicate column name: {}", unquote(&msg["duplicate column name: ".len()..])))
        }
        ParseError::ParserError(ParserError::Custom(msg), _) => Error::sql(msg),
        ParseError::UnterminatedLiteral(p) | ParseError::UnterminatedBracket(p) => {
            let o = at!(p);
            Error::sql(format!("unrecognized token: \"{}\"", String::from_utf8_lossy(&sql[o..])))
        }
        ParseError::UnterminatedBlockComment(_) => Error::sql("incomplete input"),
        ParseError::BadNumber(p) => {
            let rest = &sql[at!(p)..];
            let n = illegal_number_len(rest).max(rest.len().min(1));
            Error::sql(format!("unrecognized token: \"{}\"", String::from_utf8_lossy(&rest[..n])))
        }
        // A character no token starts with (and `!` without `=`) is a
        // token of its own: SQLite names that one character.
        ParseError::UnrecognizedToken(p) | ParseError::ExpectedEqualsSign(p) => {
            let rest = String::from_utf8_lossy(&sql[at!(p)..]).into_owned();
            Error::sql(format!("unrecognized token: \"{}\"", rest.chars().next().map(String::from).unwrap_or_default()))
        }
        ParseError::BadVariableName(ref p) if sql.get(at!(p.as_ref())).is_some_and(|b| matches!(b, b'$' | b'@' | b':' | b'#')) => {
            let rest = &sql[at!(p.as_ref())..];
            Error::sql(format!("unrecognized token: \"{}\"", String::from_utf8_lossy(&rest[..named_parameter_len(rest)])))
        }
        ParseError::BadVariableName(p) | ParseError::MalformedBlobLiteral(p) | ParseError::MalformedHexInteger(p) => {
            let o = at!(p);
            let rest = &sql[o..];
            let mut n = rest.iter().position(|c| c.is_ascii_whitespace() || matches!(c, b',' | b')' | b'(' | b';')).unwrap_or(rest.len());
            if n == 0 {
                n = rest.len().min(1);
            }
            Error::sql(format!("unrecognized token: \"{}\"", String::from_utf8_lossy(&rest[..n])))
        }
        ParseError::Io(e) => Error::sql(e.to_string()),
        other => Error::sql(other.to_string()),
    }
}

/// The length of the token SQLite's tokenizer reads at `rest`, which
/// starts with a parameter's sigil (`$`, `@`, `:` or `#`): identifier
/// characters and `::` pairs, then a Tcl-style `(...)` suffix after at
/// least one identifier character (to a space or past its `)`).
fn named_parameter_len(rest: &[u8]) -> usize {
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let (mut i, mut n) = (1, 0);
    while let Some(&c) = rest.get(i) {
        if is_id(c) {
            n += 1;
        } else if c == b'(' && n > 0 {
            i += 1;
            while rest.get(i).is_some_and(|&c| !c.is_ascii_whitespace() && c != b')') {
                i += 1;
            }
            return i + usize::from(rest.get(i) == Some(&b')'));
        } else if c == b':' && rest.get(i + 1) == Some(&b':') {
            i += 1;
        } else {
            break;
        }
        i += 1;
    }
    i
}

/// A parameter with a Tcl array suffix left open (`$abc(` or `$abc(x`,
/// the suffix ending at a space or the end of the text before any `)`):
/// one illegal token to SQLite's tokenizer, where the parser crate's
/// stops at the `(` (near `at`, the syntax error's position) as a token
/// of its own. The token's text, from the parameter's sigil.
fn unterminated_tcl_suffix(sql: &[u8], at: usize) -> Option<&[u8]> {
    // (The reported position may be the parenthesis, or near it.)
    let open = sql[..(at + 2).min(sql.len())].iter().rposition(|&b| b == b'(')?;
    if open + 2 < at {
        return None;
    }
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let mut start = open;
    while start > 0 && (is_id(sql[start - 1]) || sql[start - 1] == b':') {
        start -= 1;
    }
    // The token: a sigil, then a name of at least one character ('$'
    // and ':' are met by the walk back, '@' and '#' are not name
    // characters).
    let sigil = if start > 0 && matches!(sql[start - 1], b'@' | b'#') { start - 1 } else { start };
    if !matches!(sql[sigil], b'$' | b'@' | b':' | b'#') || sigil + 1 >= open {
        return None;
    }
    let stop = sql[open..].iter().position(|b| b.is_ascii_whitespace() || *b == b')').map_or(sql.len(), |n| open + n);
    (sql.get(stop) != Some(&b')')).then(|| &sql[sigil..stop])
}

/// The length of the malformed number token at the start of `s`, as
/// SQLite's tokenizer cuts it: the number as far as it is well formed
/// (an exponent only with its digits), then every identifier character
/// glued to it (`1.0e+` reports "1.0e", `1.0F+5` "1.0F").
fn illegal_number_len(s: &[u8]) -> usize {
    let digits = |mut i: usize, hex: bool| {
        while i < s.len() && (s[i].is_ascii_digit() || (hex && s[i].is_ascii_hexdigit()) || s[i] == b'_') {
            i += 1;
        }
        i
    };
    let mut i;
    if s.len() > 1 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') {
        i = digits(2, true);
    } else {
        i = digits(0, false);
        if i < s.len() && s[i] == b'.' {
            i = digits(i + 1, false);
        }
        if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
            let sign = usize::from(s.get(i + 1).is_some_and(|c| *c == b'+' || *c == b'-'));
            if s.get(i + 1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                i = digits(i + 1 + sign, false);
            }
        }
    }
    while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || s[i] == b'$' || s[i] >= 0x80) {
        i += 1;
    }
    i
}

/// A compound operator met right after an ORDER BY or LIMIT of the same
/// SELECT: SQLite's grammar accepts that and reports it with a clearer
/// message than the syntax error the parser crate gives.
fn clause_before_compound(sql: &[u8], err_at: usize, tok: &str) -> Option<String> {
    use TokenType::*;
    let toks = tokens(sql).collect::<Vec<_>>();
    // (The reported position may be the token's start or its end.)
    let is_tok = |t: &Tok| sql[t.start..t.end].eq_ignore_ascii_case(tok.as_bytes());
    let at = toks.iter().rposition(|t| is_tok(t) && t.start <= err_at).or_else(|| toks.iter().position(is_tok))?;
    let op = match toks[at].kind {
        TK_UNION if toks.get(at + 1).is_some_and(|t| t.kind == TK_ALL) => "UNION ALL",
        TK_UNION => "UNION",
        TK_INTERSECT => "INTERSECT",
        TK_EXCEPT => "EXCEPT",
        _ => return None,
    };
    let mut depth = 0i32;
    for t in toks[..at].iter().rev() {
        match t.kind {
            TK_RP => depth += 1,
            TK_LP if depth == 0 => return None,
            TK_LP => depth -= 1,
            TK_SELECT | TK_VALUES if depth == 0 => return None,
            TK_ORDER if depth == 0 => return Some(format!("ORDER BY clause should come after {op} not before")),
            TK_LIMIT if depth == 0 => return Some(format!("LIMIT clause should come after {op} not before")),
            _ => {}
        }
    }
    None
}

/// A token with its byte span.
#[derive(Debug, Clone, Copy)]
pub struct Tok {
    /// Kind.
    pub kind: TokenType,
    /// Start offset.
    pub start: usize,
    /// End offset (exclusive).
    pub end: usize,
}

/// Tokens of `sql` (stops at the first lexer error), scanned as they are
/// asked for. Byte-order marks between tokens are space, as for the
/// parser (`sql::bom`). Callers that only walk forward iterate; the few
/// that index collect: a huge statement's token list (24 bytes a token,
/// hundreds of MB for a million-row VALUES) is never built to be walked
/// once.
pub fn tokens(sql: &[u8]) -> Tokens<'_> {
    let text = match super::bom::marks_as_space(sql) {
        Some(spaced) => std::borrow::Cow::Owned(spaced),
        None => std::borrow::Cow::Borrowed(sql),
    };
    Tokens { text, scanner: Scanner::new(Tokenizer::new()) }
}

/// The lazy token sequence of [`tokens`].
pub struct Tokens<'a> {
    text: std::borrow::Cow<'a, [u8]>,
    scanner: Scanner<Tokenizer>,
}

impl Iterator for Tokens<'_> {
    type Item = Tok;
    fn next(&mut self) -> Option<Tok> {
        match self.scanner.scan(&self.text) {
            Ok((start, Some((_, kind)), end)) => {
                debug_assert!(start <= end && end <= self.text.len(), "a token lies inside its text");
                Some(Tok { kind, start, end })
            }
            _ => None,
        }
    }
}

fn ends_result_list(k: TokenType) -> bool {
    use TokenType::*;
    matches!(k, TK_FROM | TK_WHERE | TK_GROUP | TK_HAVING | TK_WINDOW | TK_ORDER | TK_LIMIT | TK_UNION | TK_EXCEPT | TK_INTERSECT | TK_SEMI)
}

/// Source text of each result column of the first top-level SELECT in
/// `sql` (for column names of unaliased expressions).
pub fn result_column_spans(sql: &[u8]) -> Vec<String> {
    let mut toks = tokens(sql);
    let mut depth = 0i32;
    for t in toks.by_ref() {
        match t.kind {
            TokenType::TK_LP => depth += 1,
            TokenType::TK_RP => depth -= 1,
            TokenType::TK_SELECT if depth == 0 => return spans_after_select(sql, toks),
            _ => {}
        }
    }
    Vec::new()
}

/// Source text of the result columns of every SELECT in `sql`, nested
/// ones included, in source order (a subquery's column names are its
/// result columns' text; see `codegen::query::select`).
pub fn all_result_column_spans(sql: &[u8]) -> Vec<String> {
    // Each SELECT's list is read by a scan of its own from just after the
    // keyword (the tokenizer has no state between tokens), so no token
    // list of the whole text is kept.
    let mut out = Vec::new();
    for t in tokens(sql) {
        if t.kind == TokenType::TK_SELECT {
            out.extend(spans_after_select(sql, tokens_from(sql, t.end)));
        }
    }
    out
}

/// The tokens of `sql` from byte `at` (a token boundary) on, with offsets
/// into `sql`.
pub fn tokens_from(sql: &[u8], at: usize) -> impl Iterator<Item = Tok> + '_ {
    tokens(&sql[at..]).map(move |t| Tok { kind: t.kind, start: t.start + at, end: t.end + at })
}

/// The result column texts of the SELECT whose tokens after the keyword
/// are `toks`: up to the clause ending the list, or the parenthesis
/// closing a subquery.
fn spans_after_select(sql: &[u8], toks: impl Iterator<Item = Tok>) -> Vec<String> {
    // A column's text runs from its first token to the token that ends it
    // (a comma, FROM, a closing parenthesis...) or the end of the text, less
    // trailing white space: comments after the expression are part of it,
    // as in SQLite (`SELECT 1 -- one` names its column "1 -- one").
    let span = |first: usize, end: usize| {
        let mut end = end;
        while end > first && matches!(sql[end - 1], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            end -= 1;
        }
        String::from_utf8_lossy(&sql[first..end]).into_owned()
    };
    let mut toks = toks.peekable();
    toks.next_if(|t| matches!(t.kind, TokenType::TK_DISTINCT | TokenType::TK_ALL));
    let mut spans = Vec::new();
    // The start of the column being read.
    let mut first: Option<usize> = None;
    let mut depth = 0;
    for t in toks {
        let closes = t.kind == TokenType::TK_RP && depth == 0;
        if depth == 0 && (ends_result_list(t.kind) || t.kind == TokenType::TK_COMMA || closes) {
            if let Some(f) = first {
                spans.push(span(f, t.start));
            }
            first = None;
            if t.kind != TokenType::TK_COMMA {
                return spans;
            }
        } else {
            match t.kind {
                TokenType::TK_LP => depth += 1,
                TokenType::TK_RP => depth -= 1,
                _ => {}
            }
            if first.is_none() {
                first = Some(t.start);
            }
        }
    }
    if let Some(f) = first {
        spans.push(span(f, sql.len()));
    }
    spans
}

/// The text SQLite stores in `sqlite_schema.sql` for a CREATE statement:
/// `CREATE <KIND> ` followed by the source from the object's name to the
/// end of the statement (schema prefix and IF NOT EXISTS dropped).
pub fn schema_sql(sql: &[u8], kind_words: &str) -> String {
    let toks = tokens(sql).collect::<Vec<_>>();
    // Find the keyword that introduces the object name.
    let mut i = 0;
    while i < toks.len() && !matches!(toks[i].kind, TokenType::TK_TABLE | TokenType::TK_INDEX | TokenType::TK_VIEW | TokenType::TK_TRIGGER) {
        i += 1;
    }
    i += 1;
    if i < toks.len() && toks[i].kind == TokenType::TK_IF {
        i += 3;
    }
    // Skip "schema." when present.
    if i + 1 < toks.len() && toks[i + 1].kind == TokenType::TK_DOT {
        i += 2;
    }
    let start = toks.get(i).map_or(sql.len(), |t| t.start);
    let mut end = toks.iter().rev().find(|t| t.kind != TokenType::TK_SEMI).map_or(sql.len(), |t| t.end);
    if end < start {
        end = start;
    }
    format!("CREATE {kind_words} {}", String::from_utf8_lossy(&sql[start..end]))
}

/// A statement whose text the schema stores (CREATE, ALTER TABLE).
fn is_definition(cmd: &Cmd<'_>) -> bool {
    use sqlite3_parser::ast::Stmt;
    matches!(
        cmd,
        Cmd::Stmt(
            Stmt::CreateTable { .. }
                | Stmt::CreateIndex { .. }
                | Stmt::CreateTrigger { .. }
                | Stmt::CreateView { .. }
                | Stmt::CreateVirtualTable { .. }
                | Stmt::AlterTable(..)
        )
    )
}

/// Remove SQL quoting from an identifier (`"a""b"`, `[a]`, `` `a` ``, `'a'`).
/// (Out of line: called from ~150 places, none hot.)
#[inline(never)]
pub fn unquote(s: &str) -> String {
    unquoted(s).into_owned()
}

/// The bytes of a string literal's value: unquoted, and with the bytes
/// that are not UTF-8, which SQLite keeps as they are, given back
/// (the parser carries them encoded: `sqlite3_parser::dialect::raw_bytes`).
pub fn string_literal_bytes(s: &str) -> Vec<u8> {
    sqlite3_parser::dialect::literal_bytes(&unquoted(s)).into_owned()
}

/// A copy of a parsed literal (the parser's AST types are not `Clone`;
/// a literal borrows only the statement's text).
pub fn copy_literal<'a>(l: &sqlite3_parser::ast::Literal<'a>) -> sqlite3_parser::ast::Literal<'a> {
    use sqlite3_parser::ast::Literal;
    match l {
        Literal::Numeric(s) => Literal::Numeric(s),
        Literal::String(s) => Literal::String(s),
        Literal::Blob(s) => Literal::Blob(s),
        Literal::Keyword(s) => Literal::Keyword(s),
        Literal::Null => Literal::Null,
        Literal::CurrentDate => Literal::CurrentDate,
        Literal::CurrentTime => Literal::CurrentTime,
        Literal::CurrentTimestamp => Literal::CurrentTimestamp,
    }
}

/// [`unquote`] without a copy when the identifier holds no doubled quote
/// (the usual case: names are looked up, rarely kept).
pub fn unquoted(s: &str) -> std::borrow::Cow<'_, str> {
    let b = s.as_bytes();
    if b.len() >= 2 {
        let (q, close) = match b[0] {
            b'"' => (b'"', b'"'),
            b'\'' => (b'\'', b'\''),
            b'`' => (b'`', b'`'),
            b'[' => (b'[', b']'),
            _ => return s.into(),
        };
        if b[b.len() - 1] == close {
            let inner = &s[1..s.len() - 1];
            if q == b'[' || !inner.as_bytes().contains(&q) {
                return inner.into();
            }
            let qs = (q as char).to_string();
            return inner.replace(&format!("{qs}{qs}"), &qs).into();
        }
    }
    s.into()
}

/// SQL text of an AST node (normalised spacing), for re-parsing later.
pub fn ast_text<T: sqlite3_parser::ast::fmt::ToTokens>(node: &T) -> String {
    struct Show<'x, T>(&'x T);
    impl<T: sqlite3_parser::ast::fmt::ToTokens> std::fmt::Display for Show<'_, T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0.to_fmt(f)
        }
    }
    with_stack(|| Show(node).to_string())
}

/// Parse `text` as one expression (the result column of `SELECT text`)
/// and run `f` on it.
pub fn with_expr<R>(text: &str, f: impl FnOnce(&sqlite3_parser::ast::Expr<'_>) -> Result<R>) -> Result<R> {
    use sqlite3_parser::ast;
    let sql = format!("SELECT {text}");
    with_first_statement(sql.as_bytes(), |cmd, _| {
        if let Some(Cmd::Stmt(ast::Stmt::Select(sel))) = cmd {
            if let ast::OneSelect::Select { columns, .. } = &sel.body.select {
                if let Some(ast::ResultColumn::Expr(e, _)) = columns.first() {
                    return f(e);
                }
            }
        }
        Err(crate::error::Error::sql(format!("malformed expression: {text}")))
    })
}

/// `n` as an English ordinal (`1st`, `2nd`, `11th`), as SQLite's messages write it.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A PRAGMA argument as text: a name or string unquoted, a number as
/// written, a negative number with its sign.
pub fn arg_text(e: &sqlite3_parser::ast::Expr<'_>) -> String {
    use sqlite3_parser::ast::Expr;
    match e {
        Expr::Id(id) => unquote(id.0),
        Expr::Name(n) => unquote(n.0),
        Expr::Literal(sqlite3_parser::ast::Literal::String(s)) => unquote(s),
        Expr::Literal(sqlite3_parser::ast::Literal::Numeric(s)) => s.to_string(),
        Expr::Unary(sqlite3_parser::ast::UnaryOperator::Negative, x) => format!("-{}", arg_text(x)),
        other => other.to_string(),
    }
}

/// The errors SQLite's parser raises for a window call, found in the text
/// of a statement that is stored rather than compiled (CREATE VIEW, CREATE
/// TRIGGER): an ORDER BY inside the call, then DISTINCT. (A compiled
/// statement reports them from `collect_windows`.)
pub fn parse_time_window_errors(sql: &[u8]) -> Result<()> {
    use sqlite3_parser::dialect::TokenType;
    let toks = crate::sql::parse::tokens(sql).collect::<Vec<_>>();
    // The LP matching the RP at `close`.
    let open_of = |close: usize| -> Option<usize> {
        let mut depth = 0;
        for i in (0..=close).rev() {
            match toks[i].kind {
                TokenType::TK_RP => depth += 1,
                TokenType::TK_LP => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    };
    for (i, t) in toks.iter().enumerate() {
        // (`f(x) over FROM t` names a column "over".)
        let windowed = toks.get(i + 1).is_some_and(|n| matches!(n.kind, TokenType::TK_LP | TokenType::TK_ID));
        if t.kind != TokenType::TK_OVER || !windowed || i == 0 || toks[i - 1].kind != TokenType::TK_RP {
            continue;
        }
        let Some(mut open) = open_of(i - 1) else { continue };
        let mut close = i - 1;
        // `f(...) FILTER (WHERE ...) OVER`: the call is before FILTER.
        if open >= 2 && toks[open - 1].kind == TokenType::TK_FILTER && toks[open - 2].kind == TokenType::TK_RP {
            close = open - 2;
            let Some(o) = open_of(close) else { continue };
            open = o;
        }
        // (Only a call: `(SELECT ... ORDER BY x) over` is a subquery with
        // the alias "over".)
        if open == 0 || toks[open - 1].kind != TokenType::TK_ID {
            continue;
        }
        let name = String::from_utf8_lossy(&sql[toks[open - 1].start..toks[open - 1].end]).into_owned();
        let mut depth = 0;
        for t in &toks[open + 1..close] {
            match t.kind {
                TokenType::TK_LP => depth += 1,
                TokenType::TK_RP => depth -= 1,
                TokenType::TK_ORDER if depth == 0 => {
                    return Err(Error::sql(format!("ORDER BY may not be used with non-aggregate {}()", unquote(&name))));
                }
                _ => {}
            }
        }
        if toks.get(open + 1).is_some_and(|t| t.kind == TokenType::TK_DISTINCT) {
            return Err(Error::sql("DISTINCT is not supported for window functions"));
        }
    }
    Ok(())
}
