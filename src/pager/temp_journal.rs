//! # A temporary database's rollback journal, spilled to a temporary file
//!
//! SQLite journals a temporary database (the `temp` schema, a database
//! named `""`) as any other: each page's image before its first change in
//! a transaction is appended to a rollback journal (a header, then records
//! of page number, image and checksum) that a rollback plays back. That
//! journal lives in memory until it passes 64 KiB (the statement journal's
//! spill size); then its VFS's `xOpen` is called with
//! `SQLITE_OPEN_TEMP_JOURNAL`, no name and delete-on-close, what it held is
//! written there, and the file stays open, emptied (truncated to 0) at
//! each transaction's end, until the database closes. It is never synced
//! nor locked. An application VFS sees exactly that, so a temporary
//! database whose file spills to the connection's VFS
//! ([`crate::io::IoBackend::spills_temp_journal`]) journals the same way:
//! while in memory the images are the pager's `originals`; once the
//! journal is in its file, the images live only there (the `originals`
//! entry is emptied and [`TempJournal::at`] gives the record's offset) and
//! a rollback reads them back.
//!
//! Invariants: `len` is where the next record goes (0: no header yet);
//! every page of `at` has its record in `file` below `len` (checked:
//! temp_journal_len); `file` is
//! `None` until the journal first passed [`SPILL_BYTES`], then kept until
//! the pager closes.

use super::journal;
use super::subjournal::SPILL_BYTES;
use super::Pager;
use crate::error::{Error, Result};
use crate::io::{Buffer, File, FileKind, OpenOptions};
use crate::pager::{cache, Pgno};
use std::sync::Arc;

/// The journal header's size: a temporary file's sector (SQLite uses
/// 512 bytes for every temporary file).
const HEADER_BYTES: u64 = 512;

/// The temporary database's journal (see the module doc).
#[derive(Default)]
pub struct TempJournal {
    /// The pager's backend asked for it, and the journal mode is one that
    /// keeps a journal file (not MEMORY, not OFF).
    pub(super) enabled: bool,
    /// Where the next record goes (the header included).
    len: u64,
    /// The file, once the journal outgrew memory.
    file: Option<Arc<dyn File>>,
    /// Offset of each page's record in `file`.
    at: cache::PgnoMap<u64>,
}

impl std::fmt::Debug for TempJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TempJournal").field("len", &self.len).field("spilled", &self.file.is_some()).finish()
    }
}

impl TempJournal {
    /// A journal that spills to a file when `enabled`.
    pub(super) fn new(enabled: bool) -> TempJournal {
        TempJournal { enabled, ..Default::default() }
    }

    /// Whether `pgno`'s image is in the file (its `originals` entry empty).
    pub(super) fn holds(&self, pgno: Pgno) -> bool {
        self.at.contains_key(&pgno)
    }
}

fn wait_all(pager: &Pager, cs: Vec<crate::io::Completion>) -> Result<()> {
    for c in cs {
        pager.io.wait(&c)?;
        c.take()?;
    }
    Ok(())
}

impl Pager {
    /// Journal `pgno`, whose original image was just put in `originals`:
    /// count its record and, once the journal is past memory, write it to
    /// the file (opening the file, with everything journaled so far, when
    /// this record passes the spill size) and drop it from memory.
    pub(super) fn temp_journal_add(&mut self, pgno: Pgno) -> Result<()> {
        if !self.temp_journal.enabled || self.temp_store_memory {
            return Ok(());
        }
        let ps = self.page_size as u64;
        if self.temp_journal.len == 0 {
            self.temp_journal.len = HEADER_BYTES;
            if let Some(f) = self.temp_journal.file.clone() {
                let hdr = self.temp_journal_header();
                wait_all(self, vec![f.write(0, Buffer::from_vec(hdr))?])?;
            }
        }
        let at = self.temp_journal.len;
        self.temp_journal.len += 8 + ps;
        if self.temp_journal.file.is_none() {
            if self.temp_journal.len <= SPILL_BYTES {
                return Ok(());
            }
            self.temp_journal_open()?;
            return Ok(());
        }
        self.temp_journal_write(pgno, at)
    }

    fn temp_journal_header(&self) -> Vec<u8> {
        let mut hdr = journal::header(self.journal_nonce, journal::COUNT_FROM_SIZE, self.orig_db_size, self.page_size, HEADER_BYTES as u32);
        hdr.resize(HEADER_BYTES as usize, 0);
        hdr
    }

    /// Open the file and write into it the header and every record so far
    /// (one write, as SQLite copies its in-memory journal), then forget the
    /// images it now holds.
    fn temp_journal_open(&mut self) -> Result<()> {
        let opts = OpenOptions { create: true, exclusive: true, delete_on_close: true, kind: FileKind::TempJournal, ..Default::default() };
        let f = self.io.backend().open("", opts)?;
        let ps = self.page_size as usize;
        let mut bytes = self.temp_journal_header();
        let mut at = Vec::new();
        for &pgno in &self.journal_order {
            let Some(image) = self.originals.get(&pgno) else { continue };
            debug_assert!(image.len() == ps);
            at.push((pgno, bytes.len() as u64));
            bytes.extend_from_slice(&pgno.to_be_bytes());
            bytes.extend_from_slice(image);
            bytes.extend_from_slice(&journal::checksum(self.journal_nonce, image).to_be_bytes());
        }
        // invariant: temp_journal_len
        debug_assert!(bytes.len() as u64 == self.temp_journal.len);
        wait_all(self, vec![f.write(0, Buffer::from_vec(bytes))?])?;
        for (pgno, off) in at {
            self.temp_journal.at.insert(pgno, off);
            if let Some(image) = self.originals.get_mut(&pgno) {
                *image = Vec::new();
            }
        }
        self.temp_journal.file = Some(f);
        Ok(())
    }

    /// Write `pgno`'s record at `at` (page number, image, checksum: three
    /// writes, as SQLite's) and forget the image.
    fn temp_journal_write(&mut self, pgno: Pgno, at: u64) -> Result<()> {
        let Some(f) = self.temp_journal.file.clone() else { return Ok(()) };
        let image = self.originals.get_mut(&pgno).map(std::mem::take).unwrap_or_default();
        debug_assert!(image.len() == self.page_size as usize);
        let sum = journal::checksum(self.journal_nonce, &image);
        let ps = image.len() as u64;
        let cs = vec![
            f.write(at, Buffer::from_vec(pgno.to_be_bytes().to_vec()))?,
            f.write(at + 4, Buffer::from_vec(image))?,
            f.write(at + 4 + ps, Buffer::from_vec(sum.to_be_bytes().to_vec()))?,
        ];
        wait_all(self, cs)?;
        self.temp_journal.at.insert(pgno, at);
        Ok(())
    }

    /// The original image of `pgno` that the journal file holds.
    pub(super) fn temp_journal_image(&self, pgno: Pgno) -> Result<Vec<u8>> {
        let (Some(f), Some(&at)) = (&self.temp_journal.file, self.temp_journal.at.get(&pgno)) else {
            return Err(Error::corrupt());
        };
        let ps = self.page_size as usize;
        let c = f.read(at, Buffer::zeroed(8 + ps))?;
        self.io.wait(&c)?;
        let r = c.take()?;
        let rec = r.buffer.map(|b| b.into_vec()).unwrap_or_default();
        if r.bytes != 8 + ps || rec[..4] != pgno.to_be_bytes() {
            return Err(Error::corrupt());
        }
        let image = rec[4..4 + ps].to_vec();
        if journal::checksum(self.journal_nonce, &image).to_be_bytes() != rec[4 + ps..] {
            return Err(Error::corrupt());
        }
        Ok(image)
    }

    /// Read back and check every record the journal file holds (a
    /// rollback that has no page to put back in the database file: the
    /// changes never left the cache). A bad record is corruption.
    pub(super) fn temp_journal_check(&self) -> Result<()> {
        let mut pages: Vec<(u64, Pgno)> = self.temp_journal.at.iter().map(|(p, at)| (*at, *p)).collect();
        crate::util::cold_sort::sort(&mut pages);
        for (_, pgno) in pages {
            self.temp_journal_image(pgno)?;
        }
        Ok(())
    }

    /// Whether a rollback must play the journal back from its file.
    pub(super) fn temp_journal_in_file(&self) -> bool {
        !self.temp_journal.at.is_empty()
    }

    /// The transaction ended: an in-memory journal is forgotten, a file is
    /// emptied and kept (as SQLite's pager keeps a temporary journal).
    pub(super) fn temp_journal_end(&mut self) {
        self.temp_journal.at.clear();
        if self.temp_journal.len > 0 {
            if let Some(f) = self.temp_journal.file.clone() {
                // (Best effort: a journal that cannot be emptied is
                // written over by the next transaction, header first.)
                if let Ok(c) = f.truncate(0) {
                    let _ = wait_all(self, vec![c]);
                }
            }
        }
        self.temp_journal.len = 0;
    }

    /// `PRAGMA journal_mode` of a temporary database: MEMORY and OFF keep
    /// no journal file (nor statement journal file), the others do.
    pub fn set_temp_journal_file(&mut self, file: bool) {
        self.temp_journal.enabled = file && self.opts.memory && self.io.backend().spills_temp_journal();
    }

    /// The pager closes: so does the journal's file.
    pub(super) fn temp_journal_close(&mut self) {
        self.temp_journal = TempJournal::new(self.temp_journal.enabled);
    }
}
