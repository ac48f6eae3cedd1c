//! # FTS5's C structures (`fts5.txt`, "Extending FTS5")
//!
//! The layouts of SQLite's `fts5.h`, which applications compile against:
//! `fts5_api` (what `SELECT fts5(?1)` hands out), the two tokenizer
//! method tables, the auxiliary functions' `Fts5ExtensionApi` and its
//! phrase iterator. Member order is the ABI; `fts5_api.rs` and
//! `fts5_aux.rs` fill them.

// (The member types are spelled out as C declares them, not aliased.)
#![allow(clippy::type_complexity, reason = "the C callback tables, spelled as SQLite's header has them")]

use crate::function::sqlite3_context;
use crate::types::sqlite3_int64;
use crate::value::sqlite3_value;
use std::ffi::{c_char, c_int, c_uchar, c_void};

/// An auxiliary function's view of the row (opaque to C).
pub use crate::fts5_aux::Fts5Context;

/// A tokenizer instance made by a tokenizer's xCreate (opaque to FTS5).
#[repr(C)]
pub struct Fts5Tokenizer {
    _opaque: [u8; 0],
}

/// The callback a tokenizer reports each token to: context, FTS5_TOKEN_*
/// flags, token bytes and length, byte offsets of its start and end.
pub(crate) type fts5_token_callback =
    Option<unsafe extern "C" fn(pCtx: *mut c_void, tflags: c_int, pToken: *const c_char, nToken: c_int, iStart: c_int, iEnd: c_int) -> c_int>;

/// An auxiliary function: the API, the row's context, the SQL function's
/// context, and the SQL arguments after the table column.
pub type fts5_extension_function = Option<
    unsafe extern "C" fn(pApi: *const Fts5ExtensionApi, pFts: *mut Fts5Context, pCtx: *mut sqlite3_context, nVal: c_int, apVal: *mut *mut sqlite3_value),
>;

/// Where xPhraseFirst/xPhraseNext (or the column variants) are in the
/// phrase's instances.
#[repr(C)]
pub struct Fts5PhraseIter {
    /// The next entry.
    pub a: *const c_uchar,
    /// The end of the entries.
    pub b: *const c_uchar,
}

/// What an auxiliary function may ask of the row it is called for.
#[repr(C)]
pub struct Fts5ExtensionApi {
    /// Which members exist (4: up to xTokenize_v2).
    pub iVersion: c_int,
    /// The user data the function was registered with.
    pub xUserData: Option<unsafe extern "C" fn(*mut Fts5Context) -> *mut c_void>,
    /// Number of columns of the table.
    pub xColumnCount: Option<unsafe extern "C" fn(*mut Fts5Context) -> c_int>,
    /// Number of rows of the table.
    pub xRowCount: Option<unsafe extern "C" fn(*mut Fts5Context, *mut sqlite3_int64) -> c_int>,
    /// Tokens in a column (all columns if negative) over all rows.
    pub xColumnTotalSize: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut sqlite3_int64) -> c_int>,
    /// Tokenize text with the table's tokenizer.
    pub xTokenize: Option<
        unsafe extern "C" fn(
            *mut Fts5Context,
            *const c_char,
            c_int,
            *mut c_void,
            Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int>,
        ) -> c_int,
    >,
    /// Number of phrases of the query.
    pub xPhraseCount: Option<unsafe extern "C" fn(*mut Fts5Context) -> c_int>,
    /// Number of tokens of a phrase.
    pub xPhraseSize: Option<unsafe extern "C" fn(*mut Fts5Context, c_int) -> c_int>,
    /// Number of phrase instances in the row.
    pub xInstCount: Option<unsafe extern "C" fn(*mut Fts5Context, *mut c_int) -> c_int>,
    /// Phrase, column and token offset of an instance.
    pub xInst: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int>,
    /// The row's rowid.
    pub xRowid: Option<unsafe extern "C" fn(*mut Fts5Context) -> sqlite3_int64>,
    /// The text of a column of the row.
    pub xColumnText: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut *const c_char, *mut c_int) -> c_int>,
    /// Tokens in a column (all columns if negative) of the row.
    pub xColumnSize: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut c_int) -> c_int>,
    /// Run a query for one phrase over the whole table.
    pub xQueryPhrase: Option<
        unsafe extern "C" fn(
            *mut Fts5Context,
            c_int,
            *mut c_void,
            Option<unsafe extern "C" fn(*const Fts5ExtensionApi, *mut Fts5Context, *mut c_void) -> c_int>,
        ) -> c_int,
    >,
    /// Keep data for the next calls of this function in the query.
    pub xSetAuxdata: Option<unsafe extern "C" fn(*mut Fts5Context, *mut c_void, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int>,
    /// The data kept with xSetAuxdata (and forget it if asked).
    pub xGetAuxdata: Option<unsafe extern "C" fn(*mut Fts5Context, c_int) -> *mut c_void>,
    /// First instance of a phrase in the row.
    pub xPhraseFirst: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut Fts5PhraseIter, *mut c_int, *mut c_int) -> c_int>,
    /// Next instance of the phrase.
    pub xPhraseNext: Option<unsafe extern "C" fn(*mut Fts5Context, *mut Fts5PhraseIter, *mut c_int, *mut c_int)>,
    /// First column holding a phrase in the row.
    pub xPhraseFirstColumn: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut Fts5PhraseIter, *mut c_int) -> c_int>,
    /// Next column holding the phrase.
    pub xPhraseNextColumn: Option<unsafe extern "C" fn(*mut Fts5Context, *mut Fts5PhraseIter, *mut c_int)>,
    /// A token of a phrase of the query.
    pub xQueryToken: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, c_int, *mut *const c_char, *mut c_int) -> c_int>,
    /// The document token an instance matched.
    pub xInstToken: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, c_int, *mut *const c_char, *mut c_int) -> c_int>,
    /// The locale of a column of the row.
    pub xColumnLocale: Option<unsafe extern "C" fn(*mut Fts5Context, c_int, *mut *const c_char, *mut c_int) -> c_int>,
    /// xTokenize with a locale.
    pub xTokenize_v2: Option<
        unsafe extern "C" fn(
            *mut Fts5Context,
            *const c_char,
            c_int,
            *const c_char,
            c_int,
            *mut c_void,
            Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int>,
        ) -> c_int,
    >,
}

/// A tokenizer's methods, version 1.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct fts5_tokenizer {
    /// Make an instance from the `tokenize=` arguments.
    pub xCreate: Option<unsafe extern "C" fn(*mut c_void, *mut *const c_char, c_int, *mut *mut Fts5Tokenizer) -> c_int>,
    /// Free an instance.
    pub xDelete: Option<unsafe extern "C" fn(*mut Fts5Tokenizer)>,
    /// Report the tokens of a text (FTS5_TOKENIZE_* flags) to the callback.
    pub xTokenize: Option<
        unsafe extern "C" fn(
            *mut Fts5Tokenizer,
            *mut c_void,
            c_int,
            *const c_char,
            c_int,
            Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int>,
        ) -> c_int,
    >,
}

/// A tokenizer's methods, version 2 (with locales).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct fts5_tokenizer_v2 {
    /// Always 2.
    pub iVersion: c_int,
    /// Make an instance from the `tokenize=` arguments.
    pub xCreate: Option<unsafe extern "C" fn(*mut c_void, *mut *const c_char, c_int, *mut *mut Fts5Tokenizer) -> c_int>,
    /// Free an instance.
    pub xDelete: Option<unsafe extern "C" fn(*mut Fts5Tokenizer)>,
    /// Report the tokens of a text in a locale to the callback.
    pub xTokenize: Option<
        unsafe extern "C" fn(
            *mut Fts5Tokenizer,
            *mut c_void,
            c_int,
            *const c_char,
            c_int,
            *const c_char,
            c_int,
            Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int>,
        ) -> c_int,
    >,
}

/// What `SELECT fts5(?1)` hands out: registration of tokenizers and
/// auxiliary functions.
#[repr(C)]
pub struct fts5_api {
    /// Which members exist (3: up to xFindTokenizer_v2).
    pub iVersion: c_int,
    /// Register a version-1 tokenizer.
    pub xCreateTokenizer:
        Option<unsafe extern "C" fn(*mut fts5_api, *const c_char, *mut c_void, *mut fts5_tokenizer, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int>,
    /// Find a tokenizer, as version-1 methods.
    pub xFindTokenizer: Option<unsafe extern "C" fn(*mut fts5_api, *const c_char, *mut *mut c_void, *mut fts5_tokenizer) -> c_int>,
    /// Register an auxiliary function.
    pub xCreateFunction:
        Option<unsafe extern "C" fn(*mut fts5_api, *const c_char, *mut c_void, fts5_extension_function, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int>,
    /// Register a version-2 tokenizer.
    pub xCreateTokenizer_v2:
        Option<unsafe extern "C" fn(*mut fts5_api, *const c_char, *mut c_void, *mut fts5_tokenizer_v2, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int>,
    /// Find a tokenizer, as version-2 methods.
    pub xFindTokenizer_v2: Option<unsafe extern "C" fn(*mut fts5_api, *const c_char, *mut *mut c_void, *mut *mut fts5_tokenizer_v2) -> c_int>,
}
