//! # FTS3/4 tokenizer modules from C (`fts3_tokenizer()`)
//!
//! fts3.txt 8.1: an application registers a tokenizer for FTS3/4 as a
//! pointer to a `sqlite3_tokenizer_module` (the layout of SQLite's
//! `fts3_tokenizer.h`, which applications copy: it is not in sqlite3.h),
//! passed as a blob to `SELECT fts3_tokenizer(NAME, PTR)`; the
//! one-argument form hands out the pointer registered for a name. The
//! names live in the engine's `ringlite::ext::fts3::tokenizer::registry`;
//! this module is its [`ModuleHost`]:
//! - the built-in tokenizers (`simple`, `porter`, `unicode61`) are module
//!   objects here, with working C methods over the engine's tokenizers, so
//!   an application can call them or register them under another name;
//!   a table using one of them gets the engine's tokenizer directly;
//! - any other pointer is the application's module: xCreate when a table
//!   (or `fts3tokenize`) is made with it, xDestroy when that table's
//!   tokenizer is dropped, and per text xOpen, xLanguageid (version 1
//!   modules), xNext until SQLITE_DONE, xClose. As in SQLite, the module
//!   must stay valid while tables use it; a bad pointer is the
//!   application's bug, not something this library can check.
//!
//! Invariant: a token handed out by the built-in modules' xNext stays
//! valid until the cursor is closed (the cursor owns all its tokens).

use crate::consts::*;
use ringlite::ext::fts3::tokenizer::registry::{ModuleHost, Registry};
use ringlite::ext::fts3::tokenizer::{self, Token, Tokenizer};
use ringlite::{Error, Result};
use std::ffi::{c_char, c_int, CStr};
use std::sync::Arc;

/// `sqlite3_tokenizer`: what xCreate makes; the caller sets `pModule`.
#[repr(C)]
struct RawTokenizer {
    p_module: *const Module,
}

/// `sqlite3_tokenizer_cursor`: what xOpen makes; the caller sets
/// `pTokenizer`.
#[repr(C)]
struct RawCursor {
    p_tokenizer: *mut RawTokenizer,
}

/// `sqlite3_tokenizer_module`, member for member.
#[repr(C)]
struct Module {
    i_version: c_int,
    x_create: Option<unsafe extern "C" fn(argc: c_int, argv: *const *const c_char, pp: *mut *mut RawTokenizer) -> c_int>,
    x_destroy: Option<unsafe extern "C" fn(p: *mut RawTokenizer) -> c_int>,
    x_open: Option<unsafe extern "C" fn(p: *mut RawTokenizer, input: *const c_char, n: c_int, pp: *mut *mut RawCursor) -> c_int>,
    x_close: Option<unsafe extern "C" fn(c: *mut RawCursor) -> c_int>,
    x_next:
        Option<unsafe extern "C" fn(c: *mut RawCursor, token: *mut *const c_char, n: *mut c_int, start: *mut c_int, end: *mut c_int, pos: *mut c_int) -> c_int>,
    x_languageid: Option<unsafe extern "C" fn(c: *mut RawCursor, langid: c_int) -> c_int>,
}

// ---- the built-in tokenizers as C modules ----

/// A built-in tokenizer made through its C module.
#[repr(C)]
struct BuiltinTokenizer {
    /// First, so that a `*mut RawTokenizer` is a `*mut BuiltinTokenizer`.
    base: RawTokenizer,
    tok: Box<dyn Tokenizer>,
}

/// A text split by a built-in tokenizer, handed out token by token.
#[repr(C)]
struct BuiltinCursor {
    /// First, so that a `*mut RawCursor` is a `*mut BuiltinCursor`.
    base: RawCursor,
    tokens: Vec<Token>,
    at: usize,
}

macro_rules! builtin_module {
    ($stat:ident, $create:ident, $name:literal) => {
        unsafe extern "C" fn $create(argc: c_int, argv: *const *const c_char, pp: *mut *mut RawTokenizer) -> c_int {
            // SAFETY: the C caller keeps fts3_tokenizer.h's contract: `argv` holds `argc` NUL-terminated
            // strings (or is NULL when `argc` is 0); `pp` is writable.
            unsafe { builtin_create($name, argc, argv, pp) }
        }
        static $stat: Module = Module {
            i_version: 0,
            x_create: Some($create),
            x_destroy: Some(builtin_destroy),
            x_open: Some(builtin_open),
            x_close: Some(builtin_close),
            x_next: Some(builtin_next),
            x_languageid: None,
        };
    };
}

builtin_module!(SIMPLE, simple_create, "simple");
builtin_module!(PORTER, porter_create, "porter");
builtin_module!(UNICODE61, unicode61_create, "unicode61");

/// The built-in names and their modules.
fn builtins() -> [(&'static str, &'static Module); 3] {
    [("simple", &SIMPLE), ("porter", &PORTER), ("unicode61", &UNICODE61)]
}

fn address(m: &'static Module) -> usize {
    m as *const Module as usize
}

unsafe fn builtin_create(name: &str, argc: c_int, argv: *const *const c_char, pp: *mut *mut RawTokenizer) -> c_int {
    // SAFETY: the caller guarantees: `argv` holds `argc` NUL-terminated strings or is NULL; `pp` is NULL or
    // writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            if pp.is_null() {
                return SQLITE_MISUSE;
            }
            let mut args = Vec::new();
            for i in 0..argc.max(0) as usize {
                let z = if argv.is_null() { std::ptr::null() } else { *argv.add(i) };
                args.push(if z.is_null() { String::new() } else { String::from_utf8_lossy(CStr::from_ptr(z).to_bytes()).into_owned() });
            }
            match tokenizer::create(name, &args) {
                Ok(tok) => {
                    let t = Box::new(BuiltinTokenizer { base: RawTokenizer { p_module: std::ptr::null() }, tok });
                    *pp = Box::into_raw(t) as *mut RawTokenizer;
                    SQLITE_OK
                }
                Err(_) => SQLITE_ERROR,
            }
        })
    }
}

unsafe extern "C" fn builtin_destroy(p: *mut RawTokenizer) -> c_int {
    // SAFETY: the C caller keeps fts3_tokenizer.h's contract: `p` is NULL or a tokenizer this module's
    // xCreate made, not yet destroyed.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            if !p.is_null() {
                drop(Box::from_raw(p as *mut BuiltinTokenizer));
            }
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn builtin_open(p: *mut RawTokenizer, input: *const c_char, n: c_int, pp: *mut *mut RawCursor) -> c_int {
    // SAFETY: the C caller keeps fts3_tokenizer.h's contract: `p` is a tokenizer this module's xCreate
    // made; `input` is readable for `n` bytes (NUL-terminated when `n` is negative) or NULL; `pp` is
    // writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(t) = (p as *const BuiltinTokenizer).as_ref() else { return SQLITE_MISUSE };
            if pp.is_null() {
                return SQLITE_MISUSE;
            }
            let text: &[u8] = match (input.is_null(), n) {
                (true, _) => &[],
                (false, n) if n < 0 => CStr::from_ptr(input).to_bytes(),
                (false, n) => std::slice::from_raw_parts(input as *const u8, n as usize),
            };
            let c = Box::new(BuiltinCursor { base: RawCursor { p_tokenizer: p }, tokens: t.tok.tokenize(text), at: 0 });
            *pp = Box::into_raw(c) as *mut RawCursor;
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn builtin_close(c: *mut RawCursor) -> c_int {
    // SAFETY: the C caller keeps fts3_tokenizer.h's contract: `c` is NULL or a cursor this module's xOpen
    // made, not yet closed.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            if !c.is_null() {
                drop(Box::from_raw(c as *mut BuiltinCursor));
            }
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn builtin_next(c: *mut RawCursor, token: *mut *const c_char, n: *mut c_int, start: *mut c_int, end: *mut c_int, pos: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps fts3_tokenizer.h's contract: `c` is a cursor this module's xOpen made;
    // the out pointers are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = (c as *mut BuiltinCursor).as_mut() else { return SQLITE_MISUSE };
            let Some(t) = c.tokens.get(c.at) else { return SQLITE_DONE };
            c.at += 1;
            let put = |p: *mut c_int, v: usize| {
                if !p.is_null() {
                    *p = c_int::try_from(v).unwrap_or(c_int::MAX);
                }
            };
            if !token.is_null() {
                *token = t.term.as_ptr() as *const c_char;
            }
            put(n, t.term.len());
            put(start, t.start);
            put(end, t.end);
            put(pos, usize::try_from(t.pos).unwrap_or(0));
            SQLITE_OK
        })
    }
}

// ---- the application's modules ----

/// A tokenizer made by the application's module.
struct CTokenizer {
    m: *const Module,
    tok: *mut RawTokenizer,
}

// The module's methods are called from whichever thread uses the
// connection, one call at a time, as SQLite calls them.
unsafe impl Send for CTokenizer {}
unsafe impl Sync for CTokenizer {}

impl Drop for CTokenizer {
    fn drop(&mut self) {
        // SAFETY: `m` was a valid module when `tok` was made and the application keeps it valid while its
        // tokenizers live (fts3.txt); `tok` came from its xCreate and is destroyed once, here.
        unsafe {
            if let Some(d) = (*self.m).x_destroy {
                d(self.tok);
            }
        }
    }
}

impl CTokenizer {
    /// Make one with module `m`'s xCreate.
    unsafe fn create(m: *const Module, args: &[String]) -> Result<Box<dyn Tokenizer>> {
        // SAFETY: the caller guarantees: `m` is the address the application registered, which it keeps
        // valid (fts3.txt).
        unsafe {
            let x_create = m.as_ref().and_then(|m| m.x_create).ok_or_else(|| Error::sql("unknown tokenizer"))?;
            let owned: Vec<Vec<u8>> = args.iter().map(|a| a.bytes().filter(|b| *b != 0).chain([0]).collect()).collect();
            let argv: Vec<*const c_char> = owned.iter().map(|a| a.as_ptr() as *const c_char).collect();
            let mut tok: *mut RawTokenizer = std::ptr::null_mut();
            // SQLite's array grows from NULL with each argument (fts3_tokenizer.c): with none, NULL.
            let argp = if argv.is_empty() { std::ptr::null() } else { argv.as_ptr() };
            let rc = x_create(argv.len() as c_int, argp, &mut tok);
            if rc != SQLITE_OK || tok.is_null() {
                return Err(Error::sql("unknown tokenizer"));
            }
            (*tok).p_module = m;
            Ok(Box::new(CTokenizer { m, tok }))
        }
    }

    /// The tokens of `text`: all of them, or those before the module's
    /// error and the error.
    fn run(&self, text: &[u8], langid: i64) -> std::result::Result<Vec<Token>, (Vec<Token>, Error)> {
        let mut out = Vec::new();
        // SAFETY: `m` and `tok` as in `Drop`; the cursor is used between its xOpen and its xClose only; the
        // token pointer xNext gives is read before the next call, for the length it gives.
        unsafe {
            let m = &*self.m;
            let (Some(x_open), Some(x_next), Some(x_close)) = (m.x_open, m.x_next, m.x_close) else {
                return Err((out, Error::code(SQLITE_ERROR)));
            };
            let mut cur: *mut RawCursor = std::ptr::null_mut();
            let rc = x_open(self.tok, text.as_ptr() as *const c_char, text.len() as c_int, &mut cur);
            if rc != SQLITE_OK || cur.is_null() {
                return Err((out, Error::code(if rc == SQLITE_OK { SQLITE_ERROR } else { rc })));
            }
            (*cur).p_tokenizer = self.tok;
            if m.i_version >= 1 {
                if let Some(x_lang) = m.x_languageid {
                    let rc = x_lang(cur, c_int::try_from(langid).unwrap_or(0));
                    if rc != SQLITE_OK {
                        x_close(cur);
                        return Err((out, Error::code(rc)));
                    }
                }
            }
            let rc = loop {
                let (mut z, mut n, mut s, mut e, mut pos): (*const c_char, c_int, c_int, c_int, c_int) = (std::ptr::null(), 0, 0, 0, 0);
                let rc = x_next(cur, &mut z, &mut n, &mut s, &mut e, &mut pos);
                if rc != SQLITE_OK {
                    break rc;
                }
                // As SQLite's: positions cannot be negative, tokens not empty.
                if pos < 0 || z.is_null() || n <= 0 {
                    break SQLITE_ERROR;
                }
                // Offsets kept within the text, so that offsets() and
                // snippet() may slice it.
                let start = (s.max(0) as usize).min(text.len());
                let end = (e.max(0) as usize).clamp(start, text.len());
                out.push(Token { term: std::slice::from_raw_parts(z as *const u8, n as usize).to_vec(), start, end, pos: pos as i64 });
            };
            x_close(cur);
            if rc == SQLITE_DONE {
                Ok(out)
            } else {
                Err((out, Error::code(rc)))
            }
        }
    }
}

impl Tokenizer for CTokenizer {
    fn tokenize(&self, text: &[u8]) -> Vec<Token> {
        self.tokenize_until_error(text, 0).0
    }

    fn tokenize_until_error(&self, text: &[u8], langid: i64) -> (Vec<Token>, Option<Error>) {
        match self.run(text, langid) {
            Ok(toks) => (toks, None),
            Err((toks, e)) => (toks, Some(e)),
        }
    }
}

/// The registry's host: the built-in modules' addresses and the
/// application's modules.
struct Host;

impl ModuleHost for Host {
    fn create(&self, ptr: &[u8], args: &[String]) -> Result<Box<dyn Tokenizer>> {
        let addr = usize::from_ne_bytes(ptr.try_into().map_err(|_| Error::sql("unknown tokenizer"))?);
        if let Some((name, _)) = builtins().into_iter().find(|(_, m)| address(m) == addr) {
            return tokenizer::create(name, args);
        }
        // SAFETY: a pointer the application registered with fts3_tokenizer() (fts3.txt: it keeps the module
        // valid while it is registered and used).
        unsafe { CTokenizer::create(addr as *const Module, args) }
    }
}

/// Install the host on the connection `conn`.
pub fn register(conn: &ringlite::connection::Connection) {
    let names = builtins().into_iter().map(|(n, m)| (n, address(m).to_ne_bytes().to_vec())).collect();
    conn.extension_state::<Registry>().install(Arc::new(Host), names);
}
