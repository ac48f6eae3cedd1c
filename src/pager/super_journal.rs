//! # The pager's side of a super-journal
//!
//! A transaction that writes several databases in rollback-journal modes
//! commits them all or none through a super-journal (SQLite's
//! `atomiccommit.txt`, "Multi-file Commit"): a file listing the journals
//! of every database written, created and synced before any of them is
//! committed, whose name each journal records at its end (this module's
//! [`record`]). Each database is then written and synced, but keeps its
//! journal ([`Pager::set_super_journal`] holds the commit before the
//! journal is finalized) until the super-journal is deleted: that deletion
//! is the moment the transaction commits. A hot journal naming a
//! super-journal that no longer exists belongs to a committed transaction
//! and is not played back ([`read_name`], used by recovery); one whose
//! super-journal exists is, and the super-journal is deleted once no
//! journal names it any more ([`Pager::delete_super_if_unused`]).
//!
//! The connection-level steps (choosing the name, writing and syncing the
//! file, deleting it) are in `vdbe/exec/super_commit.rs`.
//!
//! Invariant: a journal's super-journal record is written once per
//! transaction, after its page records (no page record follows it) and
//! before its sync (checked: super_record_last).

use super::{journal, JournalMode, Pager, Synchronous};
use crate::error::Result;
use crate::io::{Buffer, Completion, FileKind, OpenOptions};
use std::sync::Arc;

/// The record a journal ends with when its transaction has a
/// super-journal: the locking page's number, the name, its length, the
/// sum of its bytes (as C `char`s, signed), then the journal magic.
pub fn record(name: &str, sj_pgno: u32) -> Vec<u8> {
    let n = name.as_bytes();
    let sum = n.iter().fold(0u32, |s, &b| s.wrapping_add(b as i8 as i32 as u32));
    let mut out = Vec::with_capacity(n.len() + 20);
    out.extend_from_slice(&sj_pgno.to_be_bytes());
    out.extend_from_slice(n);
    out.extend_from_slice(&(n.len() as u32).to_be_bytes());
    out.extend_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&journal::JOURNAL_MAGIC);
    out
}

/// The super-journal name a journal's bytes end with, as SQLite reads it
/// (from the end: magic, checksum, length, name); `None` when there is
/// none or it does not check out.
pub fn read_name(j: &[u8]) -> Option<String> {
    let sz = j.len();
    if sz < 16 || j[sz - 8..] != journal::JOURNAL_MAGIC {
        return None;
    }
    let len = u32::from_be_bytes(j[sz - 16..sz - 12].try_into().ok()?) as usize;
    let sum = u32::from_be_bytes(j[sz - 12..sz - 8].try_into().ok()?);
    if len == 0 || len > sz - 16 || len > 65536 {
        return None;
    }
    let name = &j[sz - 16 - len..sz - 16];
    let left = name.iter().fold(sum, |s, &b| s.wrapping_sub(b as i8 as i32 as u32));
    if left != 0 {
        return None;
    }
    // (A name with a NUL in it ends there, as in C.)
    let end = name.iter().position(|&b| b == 0).unwrap_or(len);
    (end > 0).then(|| String::from_utf8_lossy(&name[..end]).into_owned())
}

impl Pager {
    /// Whether a commit of this database counts towards needing a
    /// super-journal (SQLite's rule: synchronous not OFF, a DELETE,
    /// PERSIST or TRUNCATE journal, a database file).
    pub fn needs_super_journal(&self) -> bool {
        self.synchronous != Synchronous::Off
            && !self.opts.memory
            && self.wal.is_none()
            // (A header's transaction into WAL: SQLite's pager is in WAL
            // mode by its commit, which lists no super-journal.)
            && !(self.pending_wal_switch.is_some() && self.entering_wal)
            && matches!(self.journal_mode, JournalMode::Delete | JournalMode::Persist | JournalMode::Truncate)
    }

    /// The journal's name as a super-journal lists it (`None`: an
    /// in-memory database, which has none).
    pub fn journal_name_for_super(&self) -> Option<String> {
        if self.opts.memory || self.path.is_empty() {
            return None;
        }
        Some(self.io.backend().full_path(&self.journal_path).unwrap_or_else(|_| self.journal_path.clone()))
    }

    /// The database file's full name (the super-journal is named after
    /// the main database's).
    pub fn full_path(&self) -> String {
        self.io.backend().full_path(&self.path).unwrap_or_else(|_| self.path.clone())
    }

    /// This transaction commits under super-journal `name` (written into
    /// the journal at commit, passed with `SQLITE_FCNTL_SYNC`): the commit
    /// then stops once the database is written and synced, its journal
    /// kept, until `None` is set (the super-journal deleted).
    pub fn set_super_journal(&mut self, name: Option<Arc<str>>) {
        self.super_journal = name;
    }

    /// Create the journal file of this write transaction now (before its
    /// super-journal) when its commit will write one.
    pub fn create_journal(&mut self) -> Result<()> {
        if !self.opts.memory && self.wal.is_none() && self.journal_mode.uses_file() {
            self.journal_file(true)?;
        }
        Ok(())
    }

    /// The super-journal this transaction commits under, if any.
    pub fn super_journal_name(&self) -> Option<Arc<str>> {
        self.super_journal.clone()
    }

    /// Whether the commit is held before finalizing its journal.
    pub(super) fn held_for_super_journal(&self) -> bool {
        self.super_journal.is_some() || self.commit_held
    }

    /// Append the super-journal record to the journal (once per
    /// transaction), where SQLite puts it: after the records, at the next
    /// sector boundary under `synchronous=FULL`, the file cut there if a
    /// longer one was kept (PERSIST).
    pub(super) fn write_super_record(&mut self) -> Result<Vec<Completion>> {
        let Some(name) = self.super_journal.clone() else { return Ok(Vec::new()) };
        if self.super_written || self.journal_end == 0 || self.opts.memory || !self.journal_mode.uses_file() {
            return Ok(Vec::new());
        }
        self.super_written = true;
        let at = if self.synchronous >= Synchronous::Full { self.journal_end.div_ceil(self.sector as u64) * self.sector as u64 } else { self.journal_end };
        let bytes = record(&name, self.pending_byte_page());
        let f = self.journal_file(false)?;
        let mut cs = Vec::new();
        // (SQLite writes the record's five fields as five writes.)
        let n = bytes.len();
        let mut pos = 0;
        for len in [4, n - 20, 4, 4, 8] {
            cs.push(f.write(at + pos as u64, Buffer::from_vec(bytes[pos..pos + len].to_vec()))?);
            pos += len;
        }
        self.journal_end = at + n as u64;
        if f.size()? > self.journal_end {
            cs.push(f.truncate(self.journal_end)?);
        }
        Ok(cs)
    }

    /// After a hot journal naming super-journal `name` was played back:
    /// delete the super-journal unless a journal it lists still names it
    /// (that database's recovery still needs it), as SQLite does.
    pub(super) fn delete_super_if_unused(&self, name: &str) -> Result<()> {
        let backend = self.io.backend();
        // (Each journal it lists is opened read-only as a super-journal,
        // with the super-journal still open, as SQLite opens them.)
        let open = |path: &str| backend.open(path, OpenOptions { read_only: true, kind: FileKind::SuperJournal, ..Default::default() });
        let read_all = |f: &Arc<dyn crate::io::File>| -> Result<Vec<u8>> {
            let len = f.size()? as usize;
            let c = f.read(0, Buffer::zeroed(len))?;
            self.io.wait(&c)?;
            Ok(c.take()?.buffer.map(|b| b.into_vec()).unwrap_or_default())
        };
        let Ok(sf) = open(name) else {
            // Gone already (another recovery deleted it).
            return Ok(());
        };
        let list = read_all(&sf)?;
        for child in list.split(|&b| b == 0).filter(|c| !c.is_empty()) {
            let child = String::from_utf8_lossy(child).into_owned();
            if !backend.exists(&child)? {
                continue;
            }
            let bytes = read_all(&open(&child)?)?;
            if read_name(&bytes).as_deref() == Some(name) {
                return Ok(());
            }
        }
        drop(sf);
        backend.delete(name, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_from_the_end_of_a_journal() {
        let mut j = vec![7u8; 1000];
        j.extend(record("/tmp/x.db-mj01ABCD9EF", 262145));
        assert_eq!(read_name(&j).as_deref(), Some("/tmp/x.db-mj01ABCD9EF"));
        let n = j.len();
        j[n - 20] ^= 1;
        assert_eq!(read_name(&j), None, "a wrong checksum");
        assert_eq!(read_name(&[0u8; 40]), None);
    }
}
