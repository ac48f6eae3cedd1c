//! # Locking styles other than POSIX advisory locks
//!
//! SQLite's unix VFS comes in variants that lock the database file in
//! other ways (`unix-dotfile`, `unix-none`; `vfs.txt`, the `-vfs` names of
//! `sqlite3_open_v2`). A connection opened through one of them asks its
//! native files for that style ([`crate::io::IoContext::with_lock_style`]);
//! the native backends then lock through these functions instead of
//! [`super::lock`]:
//!
//! - **Dotfile**: any lock at all is the directory `<database>.lock`,
//!   created (`mkdir`) when the first lock is taken and removed when the
//!   last is dropped. There is one level only: a reader keeps every other
//!   connection, of this process or another, out (`SQLITE_BUSY`), as in
//!   SQLite; RESERVED is "someone holds the directory".
//! - **None**: no lock is ever refused; no connection sees another's.
//!
//! Neither style has shared memory (SQLite's objects have no `xShmMap`),
//! so WAL works there only in exclusive locking mode.
//!
//! Invariant: a file holds the lock directory exactly while its level is
//! above NONE (checked: dotfile_lock_directory).

use super::LockLevel;
use crate::error::{Error, Result, SQLITE_IOERR_LOCK, SQLITE_IOERR_UNLOCK};

/// How a database file is locked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LockStyle {
    /// SQLite's POSIX byte-range locks, shared with other processes
    /// ([`super::lock`]): the `unix` VFS.
    #[default]
    Posix,
    /// A `<database>.lock` directory: the `unix-dotfile` VFS.
    Dotfile,
    /// No locking: the `unix-none` VFS.
    None,
}

/// The lock directory of database file `path`.
pub fn dotfile_path(path: &str) -> String {
    format!("{path}.lock")
}

/// Take `want` for a file at `*held` in `style` (not POSIX). `Ok(false)`:
/// busy.
pub fn lock(style: LockStyle, path: &str, held: &mut LockLevel, want: LockLevel) -> Result<bool> {
    debug_assert_ne!(style, LockStyle::Posix);
    if *held >= want {
        return Ok(true);
    }
    if style == LockStyle::Dotfile && *held == LockLevel::None {
        match std::fs::create_dir(super::os_path::os_path(&dotfile_path(path))) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
            Err(_) => return Err(Error::new(SQLITE_IOERR_LOCK, "disk I/O error")),
        }
    }
    *held = want;
    Ok(true)
}

/// Drop to `want` (`Shared` or `None`) in `style` (not POSIX).
pub fn unlock(style: LockStyle, path: &str, held: &mut LockLevel, want: LockLevel) -> Result<()> {
    debug_assert_ne!(style, LockStyle::Posix);
    if *held <= want {
        return Ok(());
    }
    if style == LockStyle::Dotfile && want == LockLevel::None {
        match std::fs::remove_dir(super::os_path::os_path(&dotfile_path(path))) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return Err(Error::new(SQLITE_IOERR_UNLOCK, "disk I/O error")),
        }
    }
    *held = want;
    Ok(())
}

/// Whether some connection holds RESERVED or more, as SQLite's styles
/// answer it: under dotfile, any holder of the directory (this file's own
/// SHARED included); under none, nobody.
pub fn check_reserved(style: LockStyle, path: &str, held: LockLevel) -> Result<bool> {
    Ok(match style {
        LockStyle::Posix | LockStyle::None => false,
        LockStyle::Dotfile => held >= LockLevel::Shared || std::fs::metadata(super::os_path::os_path(&dotfile_path(path))).is_ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotfile_lock_is_one_directory_for_every_level() {
        let dir = std::env::temp_dir().join(format!("ringlite-dotlock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("x.db").to_string_lossy().into_owned();
        let (mut a, mut b) = (LockLevel::None, LockLevel::None);
        assert!(lock(LockStyle::Dotfile, &db, &mut a, LockLevel::Shared).unwrap());
        // invariant: dotfile_lock_directory
        assert!(std::path::Path::new(&dotfile_path(&db)).is_dir());
        assert!(!lock(LockStyle::Dotfile, &db, &mut b, LockLevel::Shared).unwrap(), "a reader keeps others out");
        assert!(check_reserved(LockStyle::Dotfile, &db, b).unwrap());
        assert!(lock(LockStyle::Dotfile, &db, &mut a, LockLevel::Exclusive).unwrap());
        unlock(LockStyle::Dotfile, &db, &mut a, LockLevel::Shared).unwrap();
        assert!(std::path::Path::new(&dotfile_path(&db)).is_dir());
        unlock(LockStyle::Dotfile, &db, &mut a, LockLevel::None).unwrap();
        // invariant: dotfile_lock_directory
        assert!(!std::path::Path::new(&dotfile_path(&db)).exists());
        assert!(lock(LockStyle::None, &db, &mut b, LockLevel::Exclusive).unwrap());
        assert!(!check_reserved(LockStyle::None, &db, b).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
