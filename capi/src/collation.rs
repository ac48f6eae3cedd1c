//! # Application-defined collating sequences
//!
//! A C comparison function becomes a [`Collation`] whose closure calls it;
//! the destructor runs when the engine drops the last reference (replaced,
//! removed, or the connection closed).

use crate::consts::*;
use crate::error::{finish, misuse};
use crate::handle::{db_ref, sqlite3};
use crate::slots::{NeededSlot, SendPtr};
use ringlite::value::collation::Collation;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

type XCompare = unsafe extern "C" fn(*mut c_void, c_int, *const c_void, c_int, *const c_void) -> c_int;

/// Owns the user data of a collation; runs `xDestroy` when dropped.
struct CollationData {
    arg: SendPtr,
    cmp: XCompare,
    destroy: Option<unsafe extern "C" fn(*mut c_void)>,
}

impl Drop for CollationData {
    fn drop(&mut self) {
        if let Some(d) = self.destroy {
            unsafe { d(self.arg.get()) };
        }
    }
}

unsafe fn create(
    db: *mut sqlite3,
    name: String,
    rep: c_int,
    arg: *mut c_void,
    cmp: Option<XCompare>,
    destroy: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `arg` is NULL or valid for what the API does with it (read for the length given, or handed back to
    // callbacks untouched); `destroy`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
        let Some(d) = db_ref(db) else { return misuse() };
        let _g = d.lock.lock();
        let enc = rep & !SQLITE_UTF16_ALIGNED;
        if !(SQLITE_UTF8..=SQLITE_UTF16_ALIGNED).contains(&enc) && enc != SQLITE_ANY {
            return crate::error::report(d, &ringlite::Error::code(SQLITE_MISUSE));
        }
        // The encoding the function wants its texts in (the engine's are
        // UTF-8); SQLITE_ANY gets the database's.
        use ringlite::value::encoding::{current, utf8_to_utf16, TextEncoding};
        let native = if cfg!(target_endian = "little") { TextEncoding::Utf16le } else { TextEncoding::Utf16be };
        let wants = move || match enc {
            SQLITE_UTF16LE => TextEncoding::Utf16le,
            SQLITE_UTF16BE => TextEncoding::Utf16be,
            SQLITE_UTF16 | SQLITE_UTF16_ALIGNED => native,
            SQLITE_ANY => current(),
            _ => TextEncoding::Utf8,
        };
        let collation = cmp.map(|cmp| {
            let data = Arc::new(CollationData { arg: SendPtr(arg), cmp, destroy });
            Collation {
                name: name.as_str().into(),
                cmp: Arc::new(move |a: &[u8], b: &[u8]| {
                    let call = |a: &[u8], b: &[u8]| {
                        (data.cmp)(data.arg.get(), a.len() as c_int, a.as_ptr() as *const c_void, b.len() as c_int, b.as_ptr() as *const c_void)
                    };
                    let r = match wants() {
                        TextEncoding::Utf8 => call(a, b),
                        e => call(&utf8_to_utf16(a, e), &utf8_to_utf16(b, e)),
                    };
                    r.cmp(&0)
                }),
            }
        });
        let r = d.with_conn(|c| c.create_collation(&name, collation)).and_then(|r| r);
        finish(d, r)
    }
}

/// Register the collating sequence `zName` on `db`: `xCompare(pArg, n1, p1,
/// n2, p2)` returns a negative, zero or positive number. `eTextRep` is the
/// text encoding `xCompare` expects. A NULL `xCompare` removes the collation.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_collation(
    db: *mut sqlite3,
    zName: *const c_char,
    eTextRep: c_int,
    pArg: *mut c_void,
    xCompare: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_void, c_int, *const c_void) -> c_int>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zName` is NULL or NUL-terminated (or readable for the length given
    // with it); `pArg` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `xCompare`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe { sqlite3_create_collation_v2(db, zName, eTextRep, pArg, xCompare, None) }
}

/// sqlite3_create_collation with `xDestroy`, called on `pArg` when the
/// collation is replaced or the connection closes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_collation_v2(
    db: *mut sqlite3,
    zName: *const c_char,
    eTextRep: c_int,
    pArg: *mut c_void,
    xCompare: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_void, c_int, *const c_void) -> c_int>,
    xDestroy: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zName` is NULL or NUL-terminated (or readable for the length given
    // with it); `pArg` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `xCompare`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if zName.is_null() {
                return misuse();
            }
            create(db, CStr::from_ptr(zName).to_string_lossy().into_owned(), eTextRep, pArg, xCompare, xDestroy)
        })
    }
}

/// sqlite3_create_collation with a UTF-16 name (machine byte order).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_collation16(
    db: *mut sqlite3,
    zName: *const c_void,
    eTextRep: c_int,
    pArg: *mut c_void,
    xCompare: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_void, c_int, *const c_void) -> c_int>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zName`, `pArg` are NULL or valid for what the API does with them
    // (read for the length given, or handed back to callbacks untouched); `xCompare`, when set, is safe to
    // call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if zName.is_null() {
                return misuse();
            }
            let name = String::from_utf8_lossy(&crate::convert::utf16_to_utf8(zName, -1)).into_owned();
            create(db, name, eTextRep, pArg, xCompare, None)
        })
    }
}

/// A statement being prepared names collation `name`, unknown to the
/// engine: call the collation-needed callback (looked up now). Returns
/// whether one was called.
pub unsafe fn ask_for_collation(d: &sqlite3, db: *mut sqlite3, name: &str) -> bool {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let Some(slot) = d.hooks.try_borrow().ok().and_then(|h| h.collation_needed) else { return false };
        if let Some(f) = slot.utf8 {
            let n = crate::error::cstring(name);
            f(slot.arg.get(), db, SQLITE_UTF8, n.as_ptr());
            true
        } else if let Some(f) = slot.utf16 {
            let mut n: Vec<u16> = name.encode_utf16().collect();
            n.push(0);
            f(slot.arg.get(), db, if cfg!(target_endian = "little") { SQLITE_UTF16LE } else { SQLITE_UTF16BE }, n.as_ptr() as *const c_void);
            true
        } else {
            false
        }
    }
}

/// Ask `db` to call `xCollNeeded(pCollNeededArg, db, eTextRep, zName)` when a
/// statement names a collation it does not know, so the callback may register
/// it. NULL removes the callback.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_collation_needed(
    db: *mut sqlite3,
    pCollNeededArg: *mut c_void,
    xCollNeeded: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_char)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pCollNeededArg` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched); `xCollNeeded`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            // Setting one flavour clears the other, as in SQLite.
            d.hooks.borrow_mut().collation_needed = xCollNeeded.map(|f| NeededSlot { arg: SendPtr(pCollNeededArg), utf8: Some(f), utf16: None });
            SQLITE_OK
        })
    }
}

/// sqlite3_collation_needed whose callback receives the name in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_collation_needed16(
    db: *mut sqlite3,
    pCollNeededArg: *mut c_void,
    xCollNeeded16: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pCollNeededArg` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched); `xCollNeeded16`, when set, is safe to
    // call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            d.hooks.borrow_mut().collation_needed = xCollNeeded16.map(|f| NeededSlot { arg: SendPtr(pCollNeededArg), utf8: None, utf16: Some(f) });
            SQLITE_OK
        })
    }
}
