//! # Database filenames and URI parameters
//!
//! SQLite hands out database filenames (`sqlite3_db_filename`, and to VFSes)
//! in a layout the `sqlite3_uri_*` and `sqlite3_filename_*` functions read:
//! the path, NUL, then `key NUL value NUL` pairs, an empty key, then the
//! journal name and the WAL name, each NUL-terminated. Every filename this
//! library returns is built that way by [`build`].

use crate::abi::sqlite3_file;
use crate::handle::{db_ref, sqlite3};
use crate::types::sqlite3_int64;
use std::ffi::{c_char, c_int, CStr};

/// The filename layout for `path` with `params`.
pub fn build(path: &[u8], params: &[(Vec<u8>, Vec<u8>)], journal: bool) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(path);
    v.push(0);
    for (k, val) in params {
        v.extend_from_slice(k);
        v.push(0);
        v.extend_from_slice(val);
        v.push(0);
    }
    v.push(0);
    if journal && !path.is_empty() {
        v.extend_from_slice(path);
        v.extend_from_slice(b"-journal\0");
        v.extend_from_slice(path);
        v.extend_from_slice(b"-wal\0");
    } else {
        v.extend_from_slice(b"\0\0");
    }
    v
}

/// Query parameters of a `file:` URI, decoded (empty for plain names): the
/// engine's reading (`ringlite::connection::uri`), the one the open acts on.
pub fn uri_params(name: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    ringlite::connection::uri::query_params(name)
}

/// Walk the key/value pairs of a filename in the layout above.
unsafe fn pairs<'a>(z: *const c_char) -> Vec<(&'a [u8], &'a [u8])> {
    // SAFETY: the caller guarantees: `z` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        let mut out = Vec::new();
        if z.is_null() {
            return out;
        }
        let mut p = z.add(CStr::from_ptr(z).to_bytes().len() + 1);
        loop {
            let k = CStr::from_ptr(p).to_bytes();
            if k.is_empty() {
                break;
            }
            p = p.add(k.len() + 1);
            let v = CStr::from_ptr(p).to_bytes();
            p = p.add(v.len() + 1);
            out.push((k, v));
        }
        out
    }
}

/// Pointer just past the pairs (the journal name).
unsafe fn after_pairs(z: *const c_char) -> *const c_char {
    // SAFETY: the caller guarantees: `z` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        let mut p = z.add(CStr::from_ptr(z).to_bytes().len() + 1);
        loop {
            let k = CStr::from_ptr(p).to_bytes().len();
            if k == 0 {
                return p.add(1);
            }
            p = p.add(k + 1);
            p = p.add(CStr::from_ptr(p).to_bytes().len() + 1);
        }
    }
}

/// The value of query parameter `zParam` of the database file name `z` handed
/// to a VFS's xOpen, or NULL if absent.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_uri_parameter(z: *const c_char, zParam: *const c_char) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z`, `zParam` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(std::ptr::null(), {
            if z.is_null() || zParam.is_null() {
                return std::ptr::null();
            }
            let want = CStr::from_ptr(zParam).to_bytes();
            let mut p = z.add(CStr::from_ptr(z).to_bytes().len() + 1);
            loop {
                let k = CStr::from_ptr(p).to_bytes();
                if k.is_empty() {
                    return std::ptr::null();
                }
                let v = p.add(k.len() + 1);
                if k == want {
                    return v;
                }
                p = v.add(CStr::from_ptr(v).to_bytes().len() + 1);
            }
        })
    }
}

/// SQLite's boolean spellings.
fn parse_bool(v: &[u8], default: bool) -> bool {
    let l = v.to_ascii_lowercase();
    match l.as_slice() {
        b"yes" | b"true" | b"on" => true,
        b"no" | b"false" | b"off" => false,
        _ if !l.is_empty() && l.iter().all(|c| c.is_ascii_digit()) => l.iter().any(|&c| c != b'0'),
        _ => default,
    }
}

/// Query parameter `zParam` of `z` as a boolean (1/yes/true/on, 0/no/false/
/// off); `bDefault` when absent or not a boolean.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_uri_boolean(z: *const c_char, zParam: *const c_char, bDefault: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z`, `zParam` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(bDefault, {
            let v = sqlite3_uri_parameter(z, zParam);
            if v.is_null() {
                return (bDefault != 0) as c_int;
            }
            parse_bool(CStr::from_ptr(v).to_bytes(), bDefault != 0) as c_int
        })
    }
}

/// Query parameter `zParam` of `zFilename` as a 64-bit integer, or `iDefault`
/// when absent or not an integer.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_uri_int64(zFilename: *const c_char, zParam: *const c_char, iDefault: sqlite3_int64) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zFilename`, `zParam` are NULL or
    // NUL-terminated (or readable for the length given with them).
    unsafe {
        ffi_guard!(iDefault, {
            let v = sqlite3_uri_parameter(zFilename, zParam);
            if v.is_null() {
                return iDefault;
            }
            let s = CStr::from_ptr(v).to_string_lossy();
            s.trim().parse::<i64>().unwrap_or(iDefault)
        })
    }
}

/// The name of query parameter `N` (0-based) of `z`, or NULL past the last.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_uri_key(z: *const c_char, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z` is NULL or NUL-terminated (or
    // readable for the length given with it).
    unsafe {
        ffi_guard!(std::ptr::null(), {
            if z.is_null() || N < 0 {
                return std::ptr::null();
            }
            pairs(z).get(N as usize).map_or(std::ptr::null(), |(k, _)| k.as_ptr() as *const c_char)
        })
    }
}

/// The database file's name for the file name `zFilename` handed to xOpen (of
/// the database, its journal or its WAL).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_filename_database(zFilename: *const c_char) -> *const c_char {
    // A journal's or WAL's name handed to an application VFS leads back
    // to its database's name.
    crate::vfs_backend::database_of(zFilename).unwrap_or(zFilename)
}

/// The database file object (`sqlite3_file`) of the database whose file,
/// journal or WAL was handed `zName` by xOpen; NULL for any other name.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_database_file_object(zName: *const c_char) -> *mut sqlite3_file {
    // (SQLite finds its pager just before the database's name; ringlite
    // keeps a table of the names it handed out. A name SQLite did not
    // make is undefined behaviour there, NULL here.)
    ffi_guard!(std::ptr::null_mut(), { crate::vfs_backend::file_object_of(zName).unwrap_or(std::ptr::null_mut()) })
}

/// The rollback journal's name for `zFilename`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_filename_journal(zFilename: *const c_char) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zFilename` is NULL or
    // NUL-terminated (or readable for the length given with it).
    unsafe {
        ffi_guard!(std::ptr::null(), {
            if zFilename.is_null() {
                std::ptr::null()
            } else {
                after_pairs(zFilename)
            }
        })
    }
}

/// The WAL file's name for `zFilename`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_filename_wal(zFilename: *const c_char) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zFilename` is NULL or
    // NUL-terminated (or readable for the length given with it).
    unsafe {
        ffi_guard!(std::ptr::null(), {
            if zFilename.is_null() {
                return std::ptr::null();
            }
            let j = after_pairs(zFilename);
            j.add(CStr::from_ptr(j).to_bytes().len() + 1)
        })
    }
}

/// Build a file name in the form xOpen receives: the database, journal and WAL
/// names and `nParam` key/value pairs from `azParam`. Free it with
/// sqlite3_free_filename; for testing VFSes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_filename(
    zDatabase: *const c_char,
    zJournal: *const c_char,
    zWal: *const c_char,
    nParam: c_int,
    azParam: *mut *const c_char,
) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zDatabase`, `zJournal`, `zWal` are
    // NULL or NUL-terminated (or readable for the length given with them); `azParam` is NULL or writable.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            let s = |p: *const c_char| {
                if p.is_null() {
                    Vec::new()
                } else {
                    CStr::from_ptr(p).to_bytes().to_vec()
                }
            };
            let mut params = Vec::new();
            for i in 0..nParam.max(0) as usize {
                params.push((s(*azParam.add(2 * i)), s(*azParam.add(2 * i + 1))));
            }
            let mut v = build(&s(zDatabase), &params, false);
            v.truncate(v.len() - 2);
            v.extend_from_slice(&s(zJournal));
            v.push(0);
            v.extend_from_slice(&s(zWal));
            v.push(0);
            let p = crate::memory::alloc(v.len() as u64) as *mut u8;
            if p.is_null() {
                return std::ptr::null();
            }
            std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
            p as *const c_char
        })
    }
}

/// Free a file name from sqlite3_create_filename (NULL is harmless).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_free_filename(zFilename: *const c_char) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zFilename` is NULL or
    // NUL-terminated (or readable for the length given with it).
    unsafe { crate::memory::sqlite3_free(zFilename as *mut std::ffi::c_void) }
}

/// The absolute file name of schema `zDbName` of `db`; "" for an in-memory or
/// temporary database, NULL for an unknown schema.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_filename(db: *mut sqlite3, zDbName: *const c_char) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDbName` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        ffi_guard!(std::ptr::null(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null();
            };
            let _g = d.lock.lock();
            let schema = if zDbName.is_null() { "main".to_string() } else { CStr::from_ptr(zDbName).to_string_lossy().into_owned() };
            let Ok(Some(path)) = d.with_conn(|c| c.db_filename(&schema)) else {
                return std::ptr::null();
            };
            let params = if schema.eq_ignore_ascii_case("main") { uri_params(d.filename.to_bytes()) } else { Vec::new() };
            d.keep(build(&ringlite::io::os_path::to_bytes(&path), &params, true))
        })
    }
}

/// The name of schema `N` of `db` (0 is "main", 1 "temp", then attached ones),
/// or NULL when out of range.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_name(db: *mut sqlite3, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null();
            };
            match N {
                0 => c"main".as_ptr(),
                1 => c"temp".as_ptr(),
                n if n > 1 => {
                    // Attached databases, in the order PRAGMA database_list
                    // gives them after main and temp.
                    let _g = d.lock.lock();
                    let names = crate::metadata::database_names(db);
                    let attached: Vec<String> = names.into_iter().filter(|s| !s.eq_ignore_ascii_case("main") && !s.eq_ignore_ascii_case("temp")).collect();
                    match attached.get(n as usize - 2) {
                        Some(name) => d.keep(crate::error::cstring(name.as_str()).into_bytes_with_nul()),
                        None => std::ptr::null(),
                    }
                }
                _ => std::ptr::null(),
            }
        })
    }
}

/// 1 if schema `zDbName` of `db` is read-only, 0 if writable, -1 if there is
/// no such schema.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_readonly(db: *mut sqlite3, zDbName: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDbName` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        ffi_guard!(-1, {
            let Some(d) = db_ref(db) else { return -1 };
            let _g = d.lock.lock();
            let schema = if zDbName.is_null() { "main".to_string() } else { CStr::from_ptr(zDbName).to_string_lossy().into_owned() };
            d.with_conn(|c| c.db_readonly(&schema)).unwrap_or(-1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn uri_query_parameters_are_decoded() {
        let p = uri_params(b"file:data.db?mode=ro&cache=shared&x=a%20b");
        assert_eq!(p.len(), 3);
        assert_eq!(p[2], (b"x".to_vec(), b"a b".to_vec()));
        assert!(uri_params(b"plain.db?mode=ro").is_empty());
    }

    #[test]
    fn the_filename_layout_answers_the_uri_functions() {
        let params = vec![(b"mode".to_vec(), b"ro".to_vec()), (b"n".to_vec(), b"42".to_vec())];
        let layout = build(b"/tmp/a.db", &params, true);
        let z = layout.as_ptr() as *const c_char;
        unsafe {
            assert_eq!(CStr::from_ptr(sqlite3_uri_parameter(z, c"mode".as_ptr())).to_bytes(), b"ro");
            assert_eq!(sqlite3_uri_int64(z, c"n".as_ptr(), 0), 42);
            assert!(sqlite3_uri_parameter(z, c"none".as_ptr()).is_null());
            assert_eq!(CStr::from_ptr(sqlite3_uri_key(z, 1)).to_bytes(), b"n");
            assert_eq!(CStr::from_ptr(sqlite3_filename_journal(z)).to_bytes(), b"/tmp/a.db-journal");
            assert_eq!(CStr::from_ptr(sqlite3_filename_wal(z)).to_bytes(), b"/tmp/a.db-wal");
        }
    }
}
