//! # Automatic extensions: `sqlite3_auto_extension` and friends
//!
//! A process-wide list of entry points that every successful open calls, in
//! list order, with the new connection and the API table (as an extension
//! loaded from a library would be). Rules, as SQLite documents and does:
//! - registering an entry point already in the list changes nothing;
//! - cancelling removes it and moves the last entry into its place (the
//!   order later opens see), answering 1, or 0 when it was not there;
//! - an entry point returning non-zero stops the walk and records
//!   "automatic extension loading failed: MSG" with its code on the
//!   connection; the open then fails with that code as the connection
//!   reports it (a code whose primary part is 0, such as
//!   `SQLITE_OK_LOAD_PERMANENTLY`, leaves the open successful).
//!
//! Invariant: the list's lock is held only to read or change the list,
//! never while an entry point runs, so an entry point may (un)register
//! entry points or open connections itself; it then affects the walk in
//! progress from the next index on, as in SQLite.

use crate::consts::*;
use crate::error::{set_error, visible_code};
use crate::handle::sqlite3;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Mutex;

/// The registered entry points' addresses, as `sqlite3_auto_extension`
/// received them (0 for a NULL one, which SQLite accepts and never calls).
static ENTRIES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn entries() -> std::sync::MutexGuard<'static, Vec<usize>> {
    ENTRIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Register `xEntryPoint` to run on every connection opened from now on, as a
/// loadable extension's entry point would. Registering it twice has no effect.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_auto_extension(xEntryPoint: Option<unsafe extern "C" fn()>) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        crate::config::initialize();
        let x = xEntryPoint.map_or(0, |f| f as usize);
        let mut list = entries();
        if !list.contains(&x) {
            list.push(x);
        }
        SQLITE_OK
    })
}

/// Remove `xEntryPoint` from the automatic extensions; returns 1 if it was
/// registered, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_cancel_auto_extension(xEntryPoint: Option<unsafe extern "C" fn()>) -> c_int {
    ffi_guard!(0, {
        let x = xEntryPoint.map_or(0, |f| f as usize);
        let mut list = entries();
        match list.iter().rposition(|&e| e == x) {
            Some(i) => {
                list.swap_remove(i);
                1
            }
            None => 0,
        }
    })
}

/// Forget every automatic extension registered with sqlite3_auto_extension.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_reset_auto_extension() {
    ffi_guard!((), {
        entries().clear();
    })
}

/// Run the automatic extensions on the connection `open` has just made.
/// Returns the code the open returns (`SQLITE_OK` when all succeeded).
pub unsafe fn run_on_open(db: *mut sqlite3) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let d = &*db;
        let _g = d.lock.lock();
        let mut i = 0;
        loop {
            let Some(x) = entries().get(i).copied() else { return SQLITE_OK };
            i += 1;
            if x == 0 {
                continue;
            }
            // SAFETY: registered as an extension entry point (a non-NULL
            // function address); SQLite calls it with sqlite3_loadext_entry's
            // signature.
            let init = std::mem::transmute::<usize, crate::extension::EntryPoint>(x);
            let mut msg: *mut c_char = std::ptr::null_mut();
            let rc = init(db, &mut msg, crate::api_routines::table());
            let text = (!msg.is_null()).then(|| CStr::from_ptr(msg).to_string_lossy().into_owned());
            crate::memory::sqlite3_free(msg as *mut c_void);
            if rc != SQLITE_OK {
                let message = format!("automatic extension loading failed: {}", text.unwrap_or_default());
                set_error(d, rc, Some(&message));
                return visible_code(d, rc);
            }
        }
    }
}
