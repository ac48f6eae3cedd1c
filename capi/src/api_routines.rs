//! # The `sqlite3_api_routines` table handed to extensions
//!
//! A loadable extension compiled against `sqlite3ext.h` calls SQLite only
//! through the table its entry point receives: `sqlite3_open(...)` in its
//! source is `sqlite3_api->open(...)`. The table is a C struct of function
//! pointers whose member order is the ABI, so it is built from one list,
//! `api_routines_slots.rs`, generated from SQLite 3.54.1's header by
//! `capi/tools/gen_api_routines.py` (member, then the API function its
//! macro stands for). `capi/tests/api_routines_check.sh` checks every index
//! against the system's and the reference header with `offsetof`, and every
//! slot's value against the exported function of the same name.
//!
//! Invariants: every slot holds the address of the library's exported
//! function the header's macro names (never NULL: every API function is
//! exported, those ringlite cannot honour yet report an error when called);
//! slots are in header order and there are exactly as many as the header
//! has members.
//!
//! Each function is referred to by its symbol, declared here with no
//! parameters: only its address is taken, never a call made through this
//! declaration, so the real signature (which lives with the function, in
//! its module or in the C shim for the variadic ones) need not be repeated.

use std::ffi::c_void;

/// The table: one pointer per member of `sqlite3_api_routines`.
#[repr(C)]
pub struct ApiRoutines(pub [*const c_void; SLOT_COUNT]);

// The table is immutable and holds only code addresses.
unsafe impl Sync for ApiRoutines {}

macro_rules! slots {
    ($($member:ident => $function:ident,)*) => {
        mod symbols {
            extern "C" {
                $(pub fn $function();)*
            }
        }
        /// Number of members of `sqlite3_api_routines` in SQLite 3.54.1.
        pub const SLOT_COUNT: usize = [$(stringify!($member),)*].len();
        /// The member names, in order.
        pub const SLOT_MEMBERS: [&str; SLOT_COUNT] = [$(stringify!($member),)*];
        /// The API function of each member, in order.
        pub const SLOT_FUNCTIONS: [&str; SLOT_COUNT] = [$(stringify!($function),)*];
        /// What every extension entry point receives.
        pub static API_ROUTINES: ApiRoutines = ApiRoutines([$(symbols::$function as *const c_void,)*]);
    };
}

include!("api_routines_slots.rs");

/// The table as the `const sqlite3_api_routines *` an entry point takes.
pub fn table() -> *const c_void {
    &API_ROUTINES as *const ApiRoutines as *const c_void
}
