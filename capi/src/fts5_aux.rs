//! # `Fts5ExtensionApi`: what an auxiliary function from C asks of a row
//!
//! During one call of an application's auxiliary function (`fts5_api.rs`)
//! an [`Fts5Context`] wraps the engine's `AuxRow` (query, table figures,
//! row, tokens, phrase instances) and the C members of
//! [`EXTENSION_API`] answer from it. Instances are listed as SQLite lists
//! them: by column, then token offset, then phrase.
//!
//! Invariants: a context lives only for the call it was made for (C must
//! not keep it, as in SQLite); pointers it hands out (column text, query
//! tokens) stay valid until the call returns. xQueryPhrase is not
//! supported (it answers SQLITE_ERROR); every other member works.

use crate::consts::*;
use crate::fts5_abi::*;
use crate::types::sqlite3_int64;
use ringlite::ext::fts5::extension::{AuxRow, TOKENIZE_AUX};
use ringlite::util::cold_sort;
use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};

/// The row an auxiliary function is called for (opaque to C).
pub struct Fts5Context {
    /// The engine's view, for this call only (lifetime erased: the
    /// context never outlives the call, see the module doc).
    row: AuxRow<'static>,
    user: *mut c_void,
    /// (phrase, column, offset) of every instance, in SQLite's order.
    inst: Vec<(c_int, c_int, c_int)>,
    /// Per phrase: its (column, offset) pairs, in order.
    phrase_pos: Vec<Vec<[c_int; 2]>>,
    /// Per phrase: the columns holding it, ascending.
    phrase_cols: Vec<Vec<c_int>>,
    /// Buffers handed out to C during the call.
    buffers: RefCell<Vec<Box<[u8]>>>,
}

impl Fts5Context {
    /// The context of one call for `row`.
    pub fn new(row: AuxRow<'_>, user: *mut c_void) -> Fts5Context {
        // SAFETY: the context is dropped before the call returns (see the
        // module doc), so the borrows it erases outlive it.
        let row: AuxRow<'static> = unsafe { std::mem::transmute::<AuxRow<'_>, AuxRow<'static>>(row) };
        let mut inst = Vec::new();
        let nphrase = row.query.map_or(0, |q| q.phrases.len());
        let mut phrase_pos = vec![Vec::new(); nphrase];
        for (p, list) in row.row.inst.iter().enumerate().take(nphrase) {
            for i in list {
                inst.push((p as c_int, i.col as c_int, i.pos as c_int));
                phrase_pos[p].push([i.col as c_int, i.pos as c_int]);
            }
        }
        cold_sort::sort_by_key(&mut inst, |&(p, c, o)| (c, o, p));
        for v in &mut phrase_pos {
            cold_sort::sort(v);
        }
        let phrase_cols = phrase_pos
            .iter()
            .map(|v| {
                let mut c: Vec<c_int> = v.iter().map(|x| x[0]).collect();
                c.dedup();
                c
            })
            .collect();
        Fts5Context { row, user, inst, phrase_pos, phrase_cols, buffers: RefCell::new(Vec::new()) }
    }

    /// Keep `bytes` (NUL-terminated) until the call ends; their address.
    fn keep(&self, bytes: &[u8]) -> *const c_char {
        let b: Box<[u8]> = bytes.iter().copied().chain([0]).collect();
        let p = b.as_ptr() as *const c_char;
        self.buffers.borrow_mut().push(b);
        p
    }

    fn ncol(&self) -> c_int {
        self.row.columns.len() as c_int
    }
}

/// The application's auxdata and its destructor.
struct CAuxData {
    ptr: *mut c_void,
    destroy: Option<unsafe extern "C" fn(*mut c_void)>,
}

// Only touched under the connection's lock.
unsafe impl Send for CAuxData {}

impl Drop for CAuxData {
    fn drop(&mut self) {
        if let Some(d) = self.destroy {
            unsafe { d(self.ptr) };
        }
    }
}

unsafe fn cx<'a>(p: *mut Fts5Context) -> Option<&'a mut Fts5Context> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `Fts5Context` this library or SQLite's API
    // contract provides.
    unsafe { p.as_mut() }
}

unsafe fn put<T>(out: *mut T, v: T) {
    // SAFETY: the caller guarantees: `out` is NULL or a live `T` this library or SQLite's API contract
    // provides.
    unsafe {
        if !out.is_null() {
            *out = v;
        }
    }
}

unsafe extern "C" fn x_user_data(p: *mut Fts5Context) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(std::ptr::null_mut(), { cx(p).map_or(std::ptr::null_mut(), |c| c.user) }) }
}

unsafe extern "C" fn x_column_count(p: *mut Fts5Context) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(0, { cx(p).map_or(0, |c| c.ncol()) }) }
}

unsafe extern "C" fn x_row_count(p: *mut Fts5Context, pn: *mut sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pn` is NULL or a live `sqlite3_int64` this library or
    // SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            put(pn, c.row.stats.nrow);
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_column_total_size(p: *mut Fts5Context, i_col: c_int, pn: *mut sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pn` is NULL or a live `sqlite3_int64` this library or
    // SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let totals = &c.row.stats.col_tokens;
            if i_col < 0 {
                put(pn, totals.iter().sum());
                SQLITE_OK
            } else if i_col < c.ncol() {
                put(pn, totals.get(i_col as usize).copied().unwrap_or(0));
                SQLITE_OK
            } else {
                put(pn, 0);
                SQLITE_RANGE
            }
        })
    }
}

unsafe fn tokenize_with(c: &Fts5Context, text: *const c_char, n: c_int, locale: Option<&[u8]>, ctx: *mut c_void, x_token: fts5_token_callback) -> c_int {
    // SAFETY: the caller guarantees: `text` is NULL or NUL-terminated (or readable for the length given with
    // it); `ctx` is NULL or valid for what the API does with it (read for the length given, or handed back to
    // callbacks untouched).
    unsafe { crate::fts5_api::tokenize_to_c(c.row.tokenizer, text, n, TOKENIZE_AUX, locale, ctx, x_token) }
}

unsafe extern "C" fn x_tokenize(p: *mut Fts5Context, text: *const c_char, n: c_int, ctx: *mut c_void, x_token: fts5_token_callback) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `text` is NULL or NUL-terminated (or readable for the
    // length given with it); `ctx` is NULL or valid for what the API does with it (read for the length given,
    // or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            tokenize_with(c, text, n, None, ctx, x_token)
        })
    }
}

unsafe extern "C" fn x_tokenize_v2(
    p: *mut Fts5Context,
    text: *const c_char,
    n: c_int,
    locale: *const c_char,
    n_locale: c_int,
    ctx: *mut c_void,
    x_token: fts5_token_callback,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `text`, `locale` are NULL or NUL-terminated (or
    // readable for the length given with them); `ctx` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let loc = (!locale.is_null() && n_locale > 0).then(|| std::slice::from_raw_parts(locale as *const u8, n_locale as usize));
            tokenize_with(c, text, n, loc, ctx, x_token)
        })
    }
}

unsafe extern "C" fn x_phrase_count(p: *mut Fts5Context) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(0, { cx(p).and_then(|c| c.row.query).map_or(0, |q| q.phrases.len() as c_int) }) }
}

unsafe extern "C" fn x_phrase_size(p: *mut Fts5Context, i: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            let q = cx(p).and_then(|c| c.row.query);
            match (q, usize::try_from(i)) {
                (Some(q), Ok(i)) => q.phrases.get(i).map_or(0, |ph| ph.tokens.len() as c_int),
                _ => 0,
            }
        })
    }
}

unsafe extern "C" fn x_inst_count(p: *mut Fts5Context, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pn` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            put(pn, c.inst.len() as c_int);
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_inst(p: *mut Fts5Context, i: c_int, pp: *mut c_int, pc: *mut c_int, po: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pp`, `pc`, `po` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            match usize::try_from(i).ok().and_then(|i| c.inst.get(i)) {
                Some(&(ph, col, off)) => {
                    put(pp, ph);
                    put(pc, col);
                    put(po, off);
                    SQLITE_OK
                }
                None => SQLITE_RANGE,
            }
        })
    }
}

unsafe extern "C" fn x_rowid(p: *mut Fts5Context) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(0, { cx(p).map_or(0, |c| c.row.row.rowid) }) }
}

unsafe extern "C" fn x_column_text(p: *mut Fts5Context, i_col: c_int, pz: *mut *const c_char, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pz`, `pn` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            // Out of range, the outputs are left alone (as SQLite leaves them).
            let Some(v) = usize::try_from(i_col).ok().filter(|_| i_col < c.ncol()).and_then(|i| c.row.row.values.get(i)) else {
                return SQLITE_RANGE;
            };
            let v = ringlite::ext::fts5::locale::shown(c.row.locale_header, v);
            match v.as_ref().to_text() {
                Some(t) => {
                    put(pz, c.keep(&t));
                    put(pn, t.len() as c_int);
                }
                None => {
                    put(pz, std::ptr::null());
                    put(pn, 0);
                }
            }
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_column_size(p: *mut Fts5Context, i_col: c_int, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pn` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let size = &c.row.row.size;
            if i_col < 0 {
                put(pn, size.iter().sum::<i64>() as c_int);
                SQLITE_OK
            } else if i_col < c.ncol() {
                put(pn, size.get(i_col as usize).copied().unwrap_or(0) as c_int);
                SQLITE_OK
            } else {
                put(pn, 0);
                SQLITE_RANGE
            }
        })
    }
}

unsafe extern "C" fn x_query_phrase(
    _p: *mut Fts5Context,
    _i: c_int,
    _user: *mut c_void,
    _cb: Option<unsafe extern "C" fn(*const Fts5ExtensionApi, *mut Fts5Context, *mut c_void) -> c_int>,
) -> c_int {
    // Not supported yet: it needs a second scan of the table from inside
    // this one. An error, never a wrong answer.
    SQLITE_ERROR
}

unsafe extern "C" fn x_set_auxdata(p: *mut Fts5Context, ptr: *mut c_void, destroy: Option<unsafe extern "C" fn(*mut c_void)>) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `ptr` is NULL or valid for what the API does with it
    // (read for the length given, or handed back to callbacks untouched); `destroy`, when set, is safe to
    // call with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else {
                if let Some(d) = destroy {
                    d(ptr);
                }
                return SQLITE_MISUSE;
            };
            // The data it replaces is released, as SQLite releases it.
            *c.row.aux_data = Some(Box::new(CAuxData { ptr, destroy }) as Box<dyn Any + Send>);
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_get_auxdata(p: *mut Fts5Context, clear: c_int) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(std::ptr::null_mut(), {
            let Some(c) = cx(p) else { return std::ptr::null_mut() };
            let ptr = c.row.aux_data.as_ref().and_then(|b| b.downcast_ref::<CAuxData>()).map_or(std::ptr::null_mut(), |a| a.ptr);
            if clear != 0 {
                // Forgotten without its destructor: the caller owns it now.
                if let Some(b) = c.row.aux_data.take() {
                    if let Ok(mut a) = b.downcast::<CAuxData>() {
                        a.destroy = None;
                    }
                }
            }
            ptr
        })
    }
}

/// Point `it` at `entries` (of `width` ints each) and step to the first.
unsafe fn iter_start(it: *mut Fts5PhraseIter, entries: &[c_int]) {
    // SAFETY: the caller guarantees: `it` is NULL or a live `Fts5PhraseIter` this library or SQLite's API
    // contract provides.
    unsafe {
        if let Some(it) = it.as_mut() {
            let a = entries.as_ptr() as *const u8;
            it.a = a;
            it.b = a.add(std::mem::size_of_val(entries));
        }
    }
}

/// The next `N` ints of `it`, if any are left.
unsafe fn iter_next<const N: usize>(it: *mut Fts5PhraseIter) -> Option<[c_int; N]> {
    // SAFETY: the caller guarantees: `it` is NULL or a live `Fts5PhraseIter` this library or SQLite's API
    // contract provides.
    unsafe {
        let it = it.as_mut()?;
        if it.a.is_null() || it.a >= it.b {
            return None;
        }
        let v = (it.a as *const [c_int; N]).read_unaligned();
        it.a = it.a.add(std::mem::size_of::<[c_int; N]>());
        Some(v)
    }
}

unsafe extern "C" fn x_phrase_first(p: *mut Fts5Context, i: c_int, it: *mut Fts5PhraseIter, pc: *mut c_int, po: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `it` is NULL or a live `Fts5PhraseIter` this library or
    // SQLite's API contract provides; `pc`, `po` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let Some(list) = usize::try_from(i).ok().and_then(|i| c.phrase_pos.get(i)) else {
                put(pc, -1);
                put(po, -1);
                return SQLITE_RANGE;
            };
            iter_start(it, list.as_flattened());
            x_phrase_next(p, it, pc, po);
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_phrase_next(_p: *mut Fts5Context, it: *mut Fts5PhraseIter, pc: *mut c_int, po: *mut c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `it` is NULL or a live `Fts5PhraseIter` this library or
    // SQLite's API contract provides; `pc`, `po` are NULL or writable.
    unsafe {
        crate::ffi_guard!((), {
            match iter_next::<2>(it) {
                Some([col, off]) => {
                    put(pc, col);
                    put(po, off);
                }
                None => {
                    put(pc, -1);
                    put(po, -1);
                }
            }
        })
    }
}

unsafe extern "C" fn x_phrase_first_column(p: *mut Fts5Context, i: c_int, it: *mut Fts5PhraseIter, pc: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `it` is NULL or a live `Fts5PhraseIter` this library or
    // SQLite's API contract provides; `pc` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let Some(list) = usize::try_from(i).ok().and_then(|i| c.phrase_cols.get(i)) else {
                put(pc, -1);
                return SQLITE_RANGE;
            };
            iter_start(it, list);
            x_phrase_next_column(p, it, pc);
            SQLITE_OK
        })
    }
}

unsafe extern "C" fn x_phrase_next_column(_p: *mut Fts5Context, it: *mut Fts5PhraseIter, pc: *mut c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `it` is NULL or a live `Fts5PhraseIter` this library or
    // SQLite's API contract provides; `pc` is NULL or writable.
    unsafe { crate::ffi_guard!((), { put(pc, iter_next::<1>(it).map_or(-1, |[c]| c)) }) }
}

unsafe extern "C" fn x_query_token(p: *mut Fts5Context, i_phrase: c_int, i_token: c_int, pp: *mut *const c_char, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pp`, `pn` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            let tok = c.row.query.and_then(|q| q.phrases.get(usize::try_from(i_phrase).ok()?)).and_then(|ph| ph.tokens.get(usize::try_from(i_token).ok()?));
            match tok {
                Some((t, _)) => {
                    put(pp, c.keep(t.as_bytes()));
                    put(pn, t.len() as c_int);
                    SQLITE_OK
                }
                None => {
                    put(pp, std::ptr::null());
                    put(pn, 0);
                    SQLITE_RANGE
                }
            }
        })
    }
}

unsafe extern "C" fn x_inst_token(p: *mut Fts5Context, i_idx: c_int, i_token: c_int, pp: *mut *const c_char, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pp`, `pn` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            // Observed: the query token, except that a prefix token (or under
            // `tokendata=1` any token) gives the document token it matched
            // at that position, when there is one.
            let found = usize::try_from(i_idx).ok().and_then(|i| c.inst.get(i)).and_then(|&(ph, col, off)| {
                let phrase = c.row.query?.phrases.get(ph as usize)?;
                let k = usize::try_from(i_token).ok().filter(|&k| k < phrase.tokens.len())?;
                let (query_token, prefix) = &phrase.tokens[k];
                if !*prefix && !phrase.tokendata {
                    return Some(query_token.as_str());
                }
                let at = off as usize + k;
                let toks = c.row.row.tokens.get(col as usize).map(Vec::as_slice).unwrap_or(&[]);
                // (Under tokendata=1 the query token itself, not a synonym.)
                let matched = |d: &str| {
                    if *prefix {
                        phrase.holds(k, d)
                    } else {
                        d == query_token || (d.starts_with(query_token.as_str()) && d.as_bytes().get(query_token.len()) == Some(&0))
                    }
                };
                let doc = ringlite::ext::fts5::tokenizer::positioned(toks).find(|&(p, t)| p == at && matched(&t.text)).map(|(_, t)| t.text.as_str());
                Some(doc.unwrap_or(query_token.as_str()))
            });
            match found {
                Some(t) => {
                    put(pp, c.keep(t.as_bytes()));
                    put(pn, t.len() as c_int);
                    SQLITE_OK
                }
                None => {
                    put(pp, std::ptr::null());
                    put(pn, 0);
                    SQLITE_RANGE
                }
            }
        })
    }
}

unsafe extern "C" fn x_column_locale(p: *mut Fts5Context, i_col: c_int, pz: *mut *const c_char, pn: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `Fts5Context`
    // this library or SQLite's API contract provides; `pz`, `pn` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(c) = cx(p) else { return SQLITE_MISUSE };
            put(pz, std::ptr::null());
            put(pn, 0);
            let Some(v) = usize::try_from(i_col).ok().filter(|_| i_col < c.ncol()).and_then(|i| c.row.row.values.get(i)) else {
                return SQLITE_RANGE;
            };
            if let Some((l, _)) = ringlite::ext::fts5::locale::split_by(c.row.locale_header, v) {
                put(pz, c.keep(l));
                put(pn, l.len() as c_int);
            }
            SQLITE_OK
        })
    }
}

/// The API every auxiliary function from C is given.
pub static EXTENSION_API: Fts5ExtensionApi = Fts5ExtensionApi {
    iVersion: 4,
    xUserData: Some(x_user_data),
    xColumnCount: Some(x_column_count),
    xRowCount: Some(x_row_count),
    xColumnTotalSize: Some(x_column_total_size),
    xTokenize: Some(x_tokenize),
    xPhraseCount: Some(x_phrase_count),
    xPhraseSize: Some(x_phrase_size),
    xInstCount: Some(x_inst_count),
    xInst: Some(x_inst),
    xRowid: Some(x_rowid),
    xColumnText: Some(x_column_text),
    xColumnSize: Some(x_column_size),
    xQueryPhrase: Some(x_query_phrase),
    xSetAuxdata: Some(x_set_auxdata),
    xGetAuxdata: Some(x_get_auxdata),
    xPhraseFirst: Some(x_phrase_first),
    xPhraseNext: Some(x_phrase_next),
    xPhraseFirstColumn: Some(x_phrase_first_column),
    xPhraseNextColumn: Some(x_phrase_next_column),
    xQueryToken: Some(x_query_token),
    xInstToken: Some(x_inst_token),
    xColumnLocale: Some(x_column_locale),
    xTokenize_v2: Some(x_tokenize_v2),
};
