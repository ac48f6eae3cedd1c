//! # Commits that write several databases: the super-journal
//!
//! SQLite's multi-file commit (`atomiccommit.txt`, section 5): when a
//! transaction writes two or more databases whose commits need a journal
//! (synchronous not OFF; DELETE, PERSIST or TRUNCATE journal; files, the
//! main database a named file), a super-journal named after the main
//! database (`-mj`, six hex digits, `9`, two hex digits, from the
//! process's random generator) lists their journals and is synced before
//! any is committed; each journal records its name (`pager/super_journal.rs`),
//! each database is written and synced with its journal kept, then the
//! super-journal's deletion (with a directory sync) commits them all and
//! the journals are finalized. A crash before that deletion rolls every
//! database back; after it, none.
//!
//! [`begin`] runs before the databases' first commit phase, [`finish`]
//! after every database is written. Both are idempotent across the
//! re-entries of a resumable commit: the pagers remember the name.
//!
//! Invariant: the super-journal is on disk (synced) before any journal
//! names it, and deleted only once every database it lists is synced
//! (checked: super_journal_synced_first, super_journal_deleted_last).

use crate::btree::TxnState;
use crate::error::Result;
use crate::io::{Buffer, FileKind, OpenOptions};
use crate::vdbe::ConnState;
use std::sync::Arc;

/// The super-journal a commit of the written databases is under: the one
/// an earlier attempt of this transaction made, or a new one when SQLite
/// would make one; `None` when the commit needs none.
pub fn begin(env: &mut ConnState) -> Result<Option<Arc<str>>> {
    let written = |env: &ConnState| env.dbs.iter().enumerate().filter(|(_, d)| d.btree.txn_state() == TxnState::Write).map(|(i, _)| i).collect::<Vec<_>>();
    let dbs = written(env);
    if let Some(name) = dbs.iter().find_map(|&i| env.dbs[i].btree.pager().super_journal_name()) {
        return Ok(Some(name));
    }
    let Some(main) = env.dbs.first().map(|d| d.btree.pager()) else { return Ok(None) };
    if main.journal_name_for_super().is_none() || dbs.iter().filter(|&&i| i != 1 && env.dbs[i].btree.pager().needs_super_journal()).count() < 2 {
        return Ok(None);
    }
    let main_path = main.full_path();
    // Each journal exists before the super-journal, as SQLite's are
    // created by the transaction's first change to each database.
    for &i in &dbs {
        env.dbs[i].btree.pager_mut().create_journal()?;
    }
    let backend = env.io.backend();
    let name = loop {
        let r = crate::util::prng::next_u32();
        let name = format!("{main_path}-mj{:06X}9{:02X}", (r >> 8) & 0xff_ffff, r & 0xff);
        if !backend.exists(&name)? {
            break name;
        }
    };
    let f = backend.open(&name, OpenOptions { create: true, exclusive: true, kind: FileKind::SuperJournal, ..Default::default() })?;
    let write = || -> Result<()> {
        let mut off = 0u64;
        for &i in &dbs {
            let Some(j) = env.dbs[i].btree.pager().journal_name_for_super() else { continue };
            let mut bytes = j.into_bytes();
            bytes.push(0);
            let len = bytes.len() as u64;
            let c = f.write(off, Buffer::from_vec(bytes))?;
            env.io.wait(&c)?;
            c.take()?;
            off += len;
        }
        if f.device_characteristics() & crate::io::iocap::SEQUENTIAL == 0 {
            let c = f.sync(false)?;
            env.io.wait(&c)?;
            c.take()?;
        }
        Ok(())
    };
    // invariant: super_journal_synced_first
    if let Err(e) = write() {
        // No journal names it yet: it can go.
        drop(f);
        let _ = backend.delete(&name, false);
        return Err(e);
    }
    env.super_journal_file = Some(f);
    let name: Arc<str> = Arc::from(name);
    for i in written(env) {
        env.dbs[i].btree.pager_mut().set_super_journal(Some(name.clone()));
    }
    Ok(Some(name))
}

/// Every database of the transaction is written and synced: delete the
/// super-journal (the commit point) and let the journals be finalized.
/// Nothing to do when no database is held for one.
pub fn finish(env: &mut ConnState) -> Result<()> {
    let Some(name) = env.dbs.iter().find_map(|d| d.btree.pager().super_journal_name()) else { return Ok(()) };
    // invariant: super_journal_deleted_last
    #[cfg(debug_assertions)]
    debug_assert!(
        env.dbs.iter().map(|d| d.btree.pager()).filter(|p| p.super_journal_name().is_some()).all(|p| p.commit_written()),
        "super-journal {name} deleted before every database it lists is synced"
    );
    env.super_journal_file = None;
    env.io.backend().delete(&name, true)?;
    for d in env.dbs.iter_mut() {
        d.btree.pager_mut().set_super_journal(None);
    }
    Ok(())
}
