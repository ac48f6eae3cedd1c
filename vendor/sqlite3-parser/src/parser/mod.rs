//! SQLite parser
use bumpalo::{collections::Vec, Bump};

pub mod ast;
pub mod parse {
    #![expect(unused_braces)]
    #![expect(clippy::absurd_extreme_comparisons)] // FIXME
    #![expect(clippy::needless_return)]
    #![expect(clippy::upper_case_acronyms)]
    #![expect(clippy::manual_range_patterns)]

    include!(concat!(env!("OUT_DIR"), "/parse.rs"));
}
mod stack;

use crate::dialect::Token;
use ast::{Cmd, ExplainKind, Name, Stmt};

/// Parser error
#[derive(Debug, PartialEq)]
pub enum ParserError {
    /// Syntax error
    SyntaxError(String),
    /// Unexpected EOF
    UnexpectedEof,
    /// Custom error
    Custom(String),
    /// The parser's stack grew past its limit (ringlite:
    /// `Parser::set_max_depth`, SQLite's "Recursion limit")
    StackOverflow,
}

impl std::fmt::Display for ParserError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::SyntaxError(s) => {
                write!(f, "near \"{s}\": syntax error")
            }
            Self::UnexpectedEof => f.write_str("unexpected end of input"),
            Self::Custom(s) => f.write_str(s),
            Self::StackOverflow => f.write_str("Recursion limit"),
        }
    }
}

impl std::error::Error for ParserError {}

/// Custom error constructor
#[macro_export]
macro_rules! custom_err {
    ($msg:literal $(,)?) => {
        $crate::parser::ParserError::Custom($msg.to_owned())
    };
    ($err:expr $(,)?) => {
        $crate::parser::ParserError::Custom(format!($err))
    };
    ($fmt:expr, $($arg:tt)*) => {
        $crate::parser::ParserError::Custom(format!($fmt, $($arg)*))
    };
}

/// Parser context
pub struct Context<'input> {
    bump: &'input Bump,
    input: &'input [u8],
    explain: Option<ExplainKind>,
    stmt: Option<Stmt<'input>>,
    constraint_name: Option<Name<'input>>,         // transient
    module_arg: Option<(usize, usize)>,            // Complete text of a module argument
    module_args: Option<Vec<'input, &'input str>>, // CREATE VIRTUAL TABLE args
    done: bool,
    error: Option<ParserError>,
    /// The nodes known to hold a function call, for `x AND 0` folds.
    calls: ast::fold::CallMemo,
    /// The names of the CREATE TABLE columns read so far (duplicates).
    column_names: std::collections::HashSet<String>,
    /// The expressions left on the stack when it overflowed, in the order
    /// they were read (complete trees, built before the overflow).
    overflow_exprs: std::vec::Vec<&'input ast::Expr<'input>>,
}

impl<'input> Context<'input> {
    pub fn new(bump: &'input Bump, input: &'input [u8]) -> Self {
        Context {
            bump,
            input,
            explain: None,
            stmt: None,
            constraint_name: None,
            module_arg: None,
            module_args: None,
            done: false,
            error: None,
            calls: ast::fold::CallMemo::default(),
            column_names: std::collections::HashSet::new(),
            overflow_exprs: std::vec::Vec::new(),
        }
    }

    pub fn new_vec<T>(&mut self, e: T) -> Vec<'input, T> {
        let mut vec = Vec::new_in(self.bump);
        vec.push(e);
        vec
    }

    /// Consume parsed command
    pub fn cmd(&mut self) -> Option<Cmd<'input>> {
        if let Some(stmt) = self.stmt.take() {
            match self.explain.take() {
                Some(ExplainKind::Explain) => Some(Cmd::Explain(stmt)),
                Some(ExplainKind::QueryPlan) => Some(Cmd::ExplainQueryPlan(stmt)),
                None => Some(Cmd::Stmt(stmt)),
            }
        } else {
            None
        }
    }

    fn constraint_name(&mut self) -> Option<Name<'input>> {
        self.constraint_name.take()
    }
    fn no_constraint_name(&self) -> bool {
        self.constraint_name.is_none()
    }

    fn vtab_arg_init(&mut self) {
        self.add_module_arg();
        self.module_arg = None;
    }
    fn vtab_arg_extend(&mut self, any: Token) {
        if let Some((_, ref mut n)) = self.module_arg {
            *n = any.2;
        } else {
            self.module_arg = Some((any.0, any.2));
        }
    }
    fn add_module_arg(&mut self) {
        if let Some((start, end)) = self.module_arg.take() {
            if let Ok(arg) = std::str::from_utf8(&self.input[start..end]) {
                self.module_args
                    .get_or_insert(Vec::new_in(self.bump))
                    .push(self.bump.alloc_str(arg));
            } else if self.error.is_none() {
                // (ringlite: refused rather than left out; the arguments
                // are `str`s.)
                self.error = Some(ParserError::Custom(
                    crate::lexer::sql::NOT_UTF8.to_owned(),
                ));
            }
        }
    }
    fn module_args(&mut self) -> Option<Vec<'input, &'input str>> {
        self.add_module_arg();
        self.module_args.take()
    }

    /// This routine is called after a single SQL statement has been parsed.
    fn sqlite3_finish_coding(&mut self) {
        self.done = true;
    }

    /// Return `true` if parser completes either successfully or with an error.
    pub fn done(&self) -> bool {
        self.done || self.error.is_some()
    }

    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// Consume error generated by parser
    pub fn error(&mut self) -> Option<ParserError> {
        self.error.take()
    }

    /// The expressions built before the parser's stack overflowed (see
    /// `Parser::set_max_depth`), in the order they were read.
    pub fn overflow_exprs(&self) -> &[&'input ast::Expr<'input>] {
        &self.overflow_exprs
    }

    pub fn reset(&mut self) {
        self.explain = None;
        self.stmt = None;
        self.constraint_name = None;
        self.module_arg = None;
        self.module_args = None;
        self.done = false;
        self.error = None;
        self.calls.clear();
        self.column_names.clear();
        self.overflow_exprs.clear();
    }
}
