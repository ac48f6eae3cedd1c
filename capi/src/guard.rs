//! The panic firewall every entry point runs behind.
//!
//! Unwinding out of an `extern "C"` function aborts the process, and a
//! library must never abort its host. [`ffi_guard!`] runs a body under
//! `catch_unwind` and turns a panic into the value the caller gives: for
//! functions returning a result code that is `SQLITE_INTERNAL`; for the others
//! the neutral value of their type (NULL, 0, nothing).

/// `ffi_guard!(fallback, { body })`: the body's value, or `fallback` if the
/// body panicked.
#[macro_export]
macro_rules! ffi_guard {
    ($fallback:expr, $body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(payload) => {
                $crate::guard::drop_panic(payload);
                $fallback
            }
        }
    };
}

/// Drops a caught panic's payload. Out of line and cold: dropping the boxed
/// payload in place (a call through its vtable, then the free) at each of
/// the ~390 guarded entry points took ~20 KB of the installed library.
#[cold]
#[inline(never)]
pub fn drop_panic(payload: Box<dyn std::any::Any + Send>) {
    drop(payload);
}
