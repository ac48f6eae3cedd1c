//! # Online backup: copying one connection's database into another's
//!
//! The engine side of `sqlite3_backup_*` (`c3ref/backup_finish.txt`). A
//! [`Backup`] copies the source database page by page into the
//! destination database, `n` pages per [`Backup::step`]:
//!
//! - each step holds a read transaction on the source only while it runs,
//!   so writers may commit between steps: as in SQLite, pages the source's
//!   own connection commits to a file database are copied again if the
//!   copy already passed them, and any other change (another connection's
//!   commit, any commit to an in-memory source) restarts the copy from
//!   page 1 (`pager/backup_watch.rs`);
//! - the destination's write transaction is taken by the first step and
//!   held until the copy is complete, when the destination is cut to the
//!   source's size and committed (one atomic change of the destination),
//!   or until [`Backup::finish`], which rolls an incomplete copy back;
//! - the destination takes the source's page size: an empty one at once;
//!   a file destination not in WAL mode by being replaced whole in one
//!   step (journaled at its old page size); in-memory and WAL
//!   destinations refuse with `SQLITE_READONLY`, as in SQLite;
//! - once complete, the destination connection reloads its schema.
//!
//! Both connections are passed to every call; the backup holds neither.

use super::Connection;
use crate::btree::{Pgno, TxnState};
use crate::error::{Error, Result, SQLITE_ERROR, SQLITE_READONLY};
use crate::pager::backup_watch::BackupChanges;
use crate::pager::header;
use crate::util::ascii::AsciiLower;

/// Offsets of the file format read/write versions in page 1.
const FORMAT_VERSIONS: std::ops::Range<usize> = header::WRITE_VERSION..header::READ_VERSION + 1;

/// An online backup in progress.
#[derive(Debug)]
pub struct Backup {
    src_db: usize,
    dest_db: usize,
    /// The next source page to copy.
    next: Pgno,
    /// Pages in the source at the last step.
    src_pages: Pgno,
    /// The source pager's record of changes for this backup (taken at the
    /// first step).
    watch: Option<u64>,
    /// The destination's write transaction belongs to this backup.
    holds_dest: bool,
    /// Every page copied and committed.
    done: bool,
    /// Steps have been run (`remaining`/`pagecount` are meaningful).
    stepped: bool,
}

/// The index of schema `name` ("main", "temp") among `conn`'s databases.
fn db_index(conn: &Connection, name: &str) -> Result<usize> {
    let name = if name.is_empty() { "main" } else { name };
    conn.state.dbs.iter().position(|d| d.name.eq_ci(name)).ok_or_else(|| Error::new(SQLITE_ERROR, format!("unknown database {name}")))
}

impl Backup {
    /// `sqlite3_backup_init`: check both ends; nothing is copied yet.
    pub fn new(dest: &Connection, dest_name: &str, src: &Connection, src_name: &str) -> Result<Backup> {
        let src_db = db_index(src, src_name)?;
        let dest_db = db_index(dest, dest_name)?;
        if dest.state.dbs[dest_db].btree.txn_state() != TxnState::None || !dest.state.autocommit {
            return Err(Error::new(SQLITE_ERROR, "destination database is in use"));
        }
        Ok(Backup { src_db, dest_db, next: 1, src_pages: 0, watch: None, holds_dest: false, done: false, stepped: false })
    }

    /// Pages still to copy after the last step.
    pub fn remaining(&self) -> u32 {
        if !self.stepped {
            return 0;
        }
        (self.src_pages + 1).saturating_sub(self.next)
    }

    /// Pages in the source at the last step.
    pub fn page_count(&self) -> u32 {
        self.src_pages
    }

    /// Whether the copy is complete.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// `sqlite3_backup_step`: copy up to `n_pages` pages (all if negative).
    /// `Ok(true)` once everything is copied and committed.
    pub fn step(&mut self, dest: &mut Connection, src: &mut Connection, n_pages: i32) -> Result<bool> {
        if self.done {
            return Ok(true);
        }
        let src_bt = &mut src.state.dbs[self.src_db].btree;
        let started_read = src_bt.txn_state() == TxnState::None;
        if started_read {
            src_bt.block_on(|b| b.begin_read())?;
        }
        let result = self.copy_pages(dest, src, n_pages);
        if started_read {
            let src_bt = &mut src.state.dbs[self.src_db].btree;
            let _ = src_bt.block_on(|b| b.commit());
        }
        result
    }

    fn copy_pages(&mut self, dest: &mut Connection, src: &mut Connection, n_pages: i32) -> Result<bool> {
        let src_bt = &mut src.state.dbs[self.src_db].btree;
        let src_size = src_bt.pager().db_size();
        let src_page_size = src_bt.page_size();
        let recopy = match self.watch {
            None => {
                self.watch = Some(src_bt.pager_mut().watch_for_backup());
                Default::default()
            }
            Some(id) => match src_bt.pager_mut().take_backup_changes(id) {
                BackupChanges::Restart => {
                    self.next = 1;
                    Default::default()
                }
                BackupChanges::Pages(pages) => pages,
            },
        };
        self.src_pages = src_size;
        self.stepped = true;

        let dest_bt = &mut dest.state.dbs[self.dest_db].btree;
        if !self.holds_dest {
            if dest_bt.pager().read_only() {
                return Err(Error::code(SQLITE_READONLY));
            }
            dest_bt.block_on(|b| b.pager_mut().begin_read())?;
            if dest_bt.page_size() != src_page_size && dest_bt.pager().db_size() == 0 {
                dest_bt.pager_mut().end_read()?;
                dest_bt.set_page_size(src_page_size);
            }
            if dest_bt.page_size() != src_page_size {
                let in_memory = dest.memory && self.dest_db == 0 || self.dest_db == 1;
                if in_memory || dest_bt.journal_mode() == "wal" || src_size == 0 {
                    // SQLite's rule: these destinations cannot change
                    // their page size.
                    let _ = dest_bt.block_on(|b| b.rollback());
                    return Err(Error::code(SQLITE_READONLY));
                }
                return self.replace_whole_destination(dest, src);
            }
            dest_bt.block_on(|b| b.pager_mut().begin_write(false)).inspect_err(|_| {
                let _ = dest_bt.block_on(|b| b.rollback());
            })?;
            self.holds_dest = true;
        }
        let dest_wal = dest_bt.journal_mode() == "wal";

        // Pages the source's connection committed behind the copy (SQLite
        // copies them as they are written; not counted in this step's n).
        for pgno in recopy.into_iter().take_while(|p| *p < self.next && *p <= src_size) {
            self.copy_page(dest, src, pgno, dest_wal)?;
        }
        let last = if n_pages < 0 { src_size } else { src_size.min(self.next.saturating_add(n_pages as u32).saturating_sub(1)) };
        while self.next <= last {
            self.copy_page(dest, src, self.next, dest_wal)?;
            self.next += 1;
        }
        if self.next <= src_size {
            return Ok(false);
        }
        self.unwatch(src);
        let dest_bt = &mut dest.state.dbs[self.dest_db].btree;
        dest_bt.block_on(|b| b.pager_mut().truncate_to(src_size))?;
        // On SQLITE_BUSY the next step finds every page copied and resumes
        // the commit where it stopped.
        dest_bt.block_on(|b| b.commit())?;
        self.holds_dest = false;
        self.done = true;
        dest.schema_loaded = false;
        Ok(true)
    }

    fn copy_page(&self, dest: &mut Connection, src: &mut Connection, pgno: Pgno, dest_wal: bool) -> Result<()> {
        let src_bt = &mut src.state.dbs[self.src_db].btree;
        let mut image = src_bt.block_on(|b| b.pager_mut().read_page(pgno))?;
        if pgno == 1 && dest_wal {
            // A WAL destination keeps saying so in its header.
            image[FORMAT_VERSIONS].fill(2);
        }
        let dest_bt = &mut dest.state.dbs[self.dest_db].btree;
        dest_bt.block_on(|b| b.pager_mut().put_page(pgno, &image))
    }

    /// Stop the source's record of changes for this backup.
    fn unwatch(&mut self, src: &mut Connection) {
        if let (Some(id), Some(db)) = (self.watch.take(), src.state.dbs.get_mut(self.src_db)) {
            db.btree.pager_mut().unwatch_backup(id);
        }
    }

    /// A file destination with another page size: no page can be copied
    /// on its own, so the whole source image replaces the destination in
    /// one go (journaled at the old page size), and this step completes
    /// the backup.
    fn replace_whole_destination(&mut self, dest: &mut Connection, src: &mut Connection) -> Result<bool> {
        let src_bt = &mut src.state.dbs[self.src_db].btree;
        let mut image = Vec::with_capacity(self.src_pages as usize * src_bt.page_size() as usize);
        for pgno in 1..=self.src_pages {
            image.extend_from_slice(&src_bt.block_on(|b| b.pager_mut().read_page(pgno))?);
        }
        let dest_bt = &mut dest.state.dbs[self.dest_db].btree;
        let replaced = dest_bt.block_on(|b| b.pager_mut().begin_write(false)).and_then(|()| dest_bt.pager_mut().replace_with_new_page_size(&mut image));
        if let Err(e) = replaced {
            let _ = dest_bt.block_on(|b| b.rollback());
            return Err(e);
        }
        self.next = self.src_pages + 1;
        self.done = true;
        self.unwatch(src);
        dest.schema_loaded = false;
        Ok(true)
    }

    /// `sqlite3_backup_finish`: an incomplete copy is rolled back, leaving
    /// the destination as it was.
    pub fn finish(&mut self, dest: &mut Connection, src: Option<&mut Connection>) -> Result<()> {
        if let Some(src) = src {
            self.unwatch(src);
        }
        if self.holds_dest {
            self.holds_dest = false;
            let dest_bt = &mut dest.state.dbs[self.dest_db].btree;
            dest_bt.block_on(|b| b.rollback())?;
            dest.schema_loaded = false;
        }
        Ok(())
    }
}
