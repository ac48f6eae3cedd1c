//! # `sqlite3_set_authorizer`
//!
//! The engine asks its authorizer while it compiles a statement (see
//! `ringlite::sql::codegen::auth`); the closure given to it here looks the
//! C callback up in the handle's slots at call time (like every hook, see
//! `hooks.rs`) and converts the arguments to C strings.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::hooks::{handle_ptr, install, slot};
use crate::slots::SendPtr;
use ringlite::connection::Hook;
use std::ffi::{c_char, c_int, c_void, CString};

fn opt_c(s: Option<&str>) -> Option<CString> {
    s.map(crate::error::cstring)
}

fn ptr_of(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

/// Install `xAuth` as the connection's authorizer, called while statements are
/// compiled with an action code and up to four names; it answers SQLITE_OK,
/// SQLITE_IGNORE or SQLITE_DENY. NULL removes it. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_authorizer(
    db: *mut sqlite3,
    xAuth: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, *const c_char, *const c_char) -> c_int>,
    pUserData: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xAuth`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let new = xAuth.map(|f| (f, SendPtr(pUserData)));
            d.hooks.borrow_mut().authorizer = new;
            let h = handle_ptr(d);
            install(
                d,
                Hook::Authorizer(new.map(|_| {
                    Box::new(move |action: i32, a: Option<&str>, b: Option<&str>, c: Option<&str>, e: Option<&str>| {
                        let Some((f, p)) = slot(h, |s| s.authorizer) else { return SQLITE_OK };
                        let (a, b, c, e) = (opt_c(a), opt_c(b), opt_c(c), opt_c(e));
                        f(p.get(), action, ptr_of(&a), ptr_of(&b), ptr_of(&c), ptr_of(&e))
                    }) as ringlite::connection::Authorizer
                })),
            );
            // As in SQLite, statements prepared under the old authorizer are
            // compiled again (and checked by the new one) before their next run.
            for &st in d.stmts.borrow().iter() {
                (*st).stmt.expire();
            }
            SQLITE_OK
        })
    }
}
