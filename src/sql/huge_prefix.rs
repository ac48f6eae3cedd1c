//! A huge statement's parse-time height errors, found from its beginning.
//!
//! SQLite's parser builds the tree as it reads and stops at the first
//! token that breaks SQLITE_LIMIT_EXPR_DEPTH ("Expression tree is too
//! large"): a chain of a million `AND`s fails after reading a few
//! thousand tokens, in microseconds. The parser crate here stops at the
//! parser depth limit as SQLite's does ("Recursion limit": a million
//! nested parentheses), but builds the tree whole before its heights are
//! checked (seconds for such a chain). So a statement of at least
//! [`HUGE_STATEMENT`] bytes has its first [`PREFIX`] bytes checked alone,
//! as the unterminated statement they are
//! (`parse_limits::limit_error_in_unterminated`): a height broken there is
//! broken by text SQLite has read, and is its error. Otherwise (and for
//! any other outcome of the prefix, a syntax error included) the whole
//! text is parsed as before: the check only ever answers earlier, never
//! differently.

use crate::error::Error;
use crate::sql::parse_limits::ParseLimits;
use sqlite3_parser::dialect::TokenType;
use sqlite3_parser::lexer::sql::Tokenizer;
use sqlite3_parser::lexer::Scanner;

/// Statements shorter than this are parsed whole (the parse is cheap).
pub const HUGE_STATEMENT: usize = 256 * 1024;

/// How much of a huge statement is checked alone: far more than the
/// default limits' 1,000 heights and 2,500 parser entries need, and a
/// small part of the statement's own parse.
pub const PREFIX: usize = 64 * 1024;

/// The limit error SQLite's parser meets within the first [`PREFIX`]
/// bytes of `sql` (its first statement), for a text of at least
/// [`HUGE_STATEMENT`] bytes; `None`: parse the whole text.
pub fn limit_error(sql: &[u8], limits: ParseLimits) -> Option<Error> {
    if sql.len() < HUGE_STATEMENT {
        return None;
    }
    // The prefix ends after the first token that reaches PREFIX; a `;`
    // before it may end the first statement (or be inside a trigger's
    // body): the whole text is parsed then.
    let mut scanner = Scanner::new(Tokenizer::new());
    let cut = loop {
        match scanner.scan(sql) {
            Ok((_, Some((_, TokenType::TK_SEMI)), _)) => return None,
            Ok((_, Some(_), end)) if end >= PREFIX => break end,
            Ok((_, Some(_), _)) => {}
            Ok((_, None, _)) | Err(_) => return None,
        }
    };
    debug_assert!(cut < sql.len(), "a huge text's prefix is shorter than the text");
    // (The prefix is checked as an unterminated statement whether or not
    // it happens to parse as a whole one: its open parentheses closed, an
    // operand added where one is missing. Closing only reduces what was
    // read; a syntax error there is no limit error.)
    let prefix = &sql[..cut];
    crate::sql::parse_limits::limit_error_in_unterminated(prefix, limits)
}
