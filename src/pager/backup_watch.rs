//! # What an online backup reading this database must copy again
//!
//! `sqlite3_backup_step` copies a source database a few pages per step,
//! and the source may change between steps. SQLite's pager tells each
//! backup reading it what happened (`c3ref/backup_finish.txt`: "If the
//! source database is modified by ... the same database connection as is
//! used by the backup operation, then the backup database is
//! automatically updated at the same time"):
//!
//! - a commit of this connection to a file database: the pages it wrote
//!   are copied again if the backup already passed them (the copy goes on,
//!   its remaining count unchanged);
//! - a commit to an in-memory database, or anything that makes this pager
//!   drop its whole cache (another connection's commit, a rollback that
//!   rewrote spilled pages, a new page size, a deserialized image): the
//!   copy starts over from page 1.
//!
//! A backup registers a watch at its first step ([`Pager::watch_for_backup`])
//! and takes what accumulated at each later step
//! ([`Pager::take_backup_changes`]); the watch goes at finish.
//!
//! Invariant: a watch holds either a restart or a set of page numbers,
//! never both (a restart makes the pages moot) (checked:
//! backup_watch_restart_or_pages).

use super::Pager;
use crate::pager::Pgno;
use std::collections::BTreeSet;

/// Changes seen by one backup since its last step.
#[derive(Debug, Default)]
pub struct BackupWatch {
    id: u64,
    restart: bool,
    pages: BTreeSet<Pgno>,
}

/// What a backup must do before copying on.
#[derive(Debug, PartialEq, Eq)]
pub enum BackupChanges {
    /// Start again from page 1.
    Restart,
    /// Copy these pages again (those before where the copy is).
    Pages(BTreeSet<Pgno>),
}

impl BackupWatch {
    fn note_restart(&mut self) {
        self.restart = true;
        self.pages.clear();
    }

    fn check(&self) {
        // invariant: backup_watch_restart_or_pages
        debug_assert!(!self.restart || self.pages.is_empty(), "backup watch {} holds pages under a restart", self.id);
    }
}

impl Pager {
    /// Start recording changes for a backup; returns its watch id.
    pub fn watch_for_backup(&mut self) -> u64 {
        self.backup_watch_ids += 1;
        let id = self.backup_watch_ids;
        self.backup_watches.push(BackupWatch { id, ..Default::default() });
        id
    }

    /// Stop recording for backup `id`.
    pub fn unwatch_backup(&mut self, id: u64) {
        self.backup_watches.retain(|w| w.id != id);
    }

    /// What changed for backup `id` since it last asked (an unknown id:
    /// a restart).
    pub fn take_backup_changes(&mut self, id: u64) -> BackupChanges {
        let Some(w) = self.backup_watches.iter_mut().find(|w| w.id == id) else {
            return BackupChanges::Restart;
        };
        w.check();
        let pages = std::mem::take(&mut w.pages);
        if std::mem::take(&mut w.restart) {
            BackupChanges::Restart
        } else {
            BackupChanges::Pages(pages)
        }
    }

    /// This connection is committing its dirty pages: file databases
    /// tell their backups which, in-memory ones restart them (as SQLite's
    /// pager does for its in-memory databases).
    pub(super) fn note_commit_for_backups(&mut self) {
        if self.backup_watches.is_empty() {
            return;
        }
        if self.opts.memory {
            return self.restart_backups();
        }
        let dirty = self.cache.dirty_pages();
        self.note_written_for_backups(&dirty);
    }

    /// Pages of this transaction written to the file before its commit (a
    /// cache spill): a rollback then drops the cache and restarts.
    pub(super) fn note_written_for_backups(&mut self, pgnos: &[Pgno]) {
        for w in &mut self.backup_watches {
            if !w.restart {
                w.pages.extend(pgnos.iter().copied());
            }
        }
    }

    /// The cache is being dropped whole: every backup starts over.
    pub(super) fn restart_backups(&mut self) {
        for w in &mut self.backup_watches {
            w.note_restart();
        }
    }
}
