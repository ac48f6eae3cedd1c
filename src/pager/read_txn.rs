//! Read transactions of the pager: taking SHARED, the hot-journal probe
//! and its rollback, the header read that tells whether another
//! connection committed (dropping the cache then), the WAL read snapshot;
//! and ending them. Resumable: the probes are submitted together and
//! `ReadStep` (`mod.rs`, a field of the pager) records how far opening got.

use super::{busy, checked_db_size, header, HeaderBytes, Pager, PagerState, ReadStep};
use crate::error::Result;
use crate::io::{Buffer, Completion, CompletionResult, LockLevel};
use crate::{IoPoll, Poll};

impl Pager {
    /// Begin a read transaction: SHARED lock, roll back a hot journal,
    /// read the header and drop the cache if another connection committed.
    pub fn begin_read(&mut self) -> IoPoll<()> {
        if self.state != PagerState::Idle {
            return Ok(Poll::Ready(()));
        }
        // A checkpoint the last commit started finishes first: its locks
        // and in-flight writes must not outlive it unnoticed.
        if self.wal_autocheckpoint_running() {
            crate::ready!(self.wal_autocheckpoint()?);
        }
        match self.begin_read_steps() {
            Err(e) => {
                self.read_step = None;
                self.wal_probe = None;
                self.size_probe = None;
                // In exclusive mode the lock taken stays, as in SQLite
                // (which then keeps other connections from the database).
                if self.releases_lock() {
                    self.change_count_done = false;
                    let _ = self.file.unlock(LockLevel::None);
                }
                Err(e)
            }
            ok => ok,
        }
    }

    fn begin_read_steps(&mut self) -> IoPoll<()> {
        loop {
            match self.read_step.take() {
                None => {
                    self.wal_probe = None;
                    self.size_probe = None;
                    if self.locks_file() {
                        if !self.file.lock(LockLevel::Shared)? {
                            return Err(busy());
                        }
                        // (With the log open, a rollback journal is never
                        // hot: SQLite skips the check in WAL mode too, and
                        // the header read needs no probes then. A shared
                        // in-memory database has neither journal file nor
                        // log.)
                        if self.wal.is_none() && !self.opts.memory {
                            if let Some(step) = self.probe_now()? {
                                self.read_step = Some(step);
                                continue;
                            }
                            // (A journal kept in exclusive mode is this
                            // connection's, its header zeroed: not probed.)
                            let journal = if self.journal_kept {
                                Completion::ready(Ok(CompletionResult { bytes: 0, buffer: None }))
                            } else {
                                self.probe_beside("-journal")?
                            };
                            let header = self.header_read()?;
                            let size = self.file.size_request()?;
                            let wal = if self.wal_probe_wanted() { Some(self.probe_beside("-wal")?) } else { None };
                            self.read_step = Some(ReadStep::Probe { journal, header, size, wal });
                            continue;
                        }
                    }
                    self.read_step = Some(self.header_step()?);
                }
                Some(ReadStep::Probe { journal, header, size, wal }) => {
                    if !journal.is_done() || !header.is_done() || !size.is_done() || wal.as_ref().is_some_and(|c| !c.is_done()) {
                        self.read_step = Some(ReadStep::Probe { journal, header, size, wal });
                        return Ok(Poll::Pending);
                    }
                    let journal_exists = journal.take()?.bytes > 0;
                    if let Some(step) = self.start_recovery(journal_exists)? {
                        // The header (and WAL) seen before the rollback
                        // are stale: read them again after it.
                        self.read_step = Some(ReadStep::Recover(step));
                        continue;
                    }
                    if let Some(c) = wal {
                        self.wal_probe = Some(c.take()?.bytes > 0);
                    }
                    self.size_probe = Some(size.take()?.bytes as u64);
                    let (bytes, buf) = header_of(header.take()?);
                    self.read_step = Some(ReadStep::Header(bytes, buf));
                }
                Some(ReadStep::Recover(step)) => match self.step_recovery(step)? {
                    Poll::Pending => return Ok(Poll::Pending),
                    Poll::Ready(Some(next)) => self.read_step = Some(ReadStep::Recover(next)),
                    Poll::Ready(None) => self.read_step = Some(self.header_step()?),
                },
                Some(ReadStep::ReadHeader(c)) => {
                    if !c.is_done() {
                        self.read_step = Some(ReadStep::ReadHeader(c));
                        return Ok(Poll::Pending);
                    }
                    let (bytes, buf) = header_of(c.take()?);
                    self.read_step = Some(ReadStep::Header(bytes, buf));
                }
                Some(ReadStep::Header(bytes, buf)) => {
                    if self.load_header(bytes, &buf)?.is_pending() {
                        self.read_step = Some(ReadStep::Header(bytes, buf));
                        return Ok(Poll::Pending);
                    }
                    // The header was read before the WAL read lock was
                    // taken: a checkpoint may have copied a newer page 1
                    // (with another database size) into the file since, and
                    // a TRUNCATE or restart then left a log without
                    // frames, so that the database size comes from the
                    // file's header. Read it again under the lock (which
                    // keeps checkpoints from writing the file).
                    // (In exclusive mode nobody else checkpoints.)
                    if bytes > 0 && self.wal.as_ref().is_some_and(|w| w.in_read() && !w.is_exclusive() && w.db_size().is_none()) {
                        self.read_step = Some(ReadStep::WalHeader(self.header_read()?));
                        continue;
                    }
                    debug_assert_eq!(self.state, PagerState::Idle, "a read transaction opened twice");
                    self.state = PagerState::Read;
                    self.admit_size();
                    return Ok(Poll::Ready(()));
                }
                Some(ReadStep::WalHeader(c)) => {
                    if !c.is_done() {
                        self.read_step = Some(ReadStep::WalHeader(c));
                        return Ok(Poll::Pending);
                    }
                    let res = c.take()?;
                    let file_size = self.file.size()?;
                    let in_header = if res.bytes == 0 { None } else { header::parse(&res.buffer.unwrap_or_default())?.db_size };
                    self.db_size = super::checked_db_size(in_header, file_size, self.page_size)?.unwrap_or((file_size / self.page_size as u64) as u32);
                    debug_assert_eq!(self.state, PagerState::Idle, "a read transaction opened twice");
                    self.state = PagerState::Read;
                    self.admit_size();
                    return Ok(Poll::Ready(()));
                }
            }
        }
    }

    /// The probes of [`ReadStep::Probe`] when the backend answers the
    /// file-existence ones at once (beside the database file): their
    /// answers are taken directly, and with no hot journal and the header
    /// read at once (a blocking backend, or cached data) the step goes
    /// straight to the header, without a completion for each probe (most
    /// of what starting a read transaction on an unchanged file cost).
    /// `None`: submit every probe as a request.
    fn probe_now(&mut self) -> Result<Option<ReadStep>> {
        let journal = if self.journal_kept { Some(false) } else { self.file.sibling_exists("-journal") };
        let Some(journal) = journal else { return Ok(None) };
        let wal = if self.wal_probe_wanted() {
            match self.file.sibling_exists("-wal") {
                Some(w) => Some(w),
                None => return Ok(None),
            }
        } else {
            None
        };
        let mut buf = [0; 100];
        let bytes = match self.file.read_now(0, &mut buf) {
            Some(r) if !journal => r?,
            now => {
                // (A journal to look at, or a header read to wait for.)
                let header = match now {
                    Some(r) => Completion::ready(r.map(|bytes| CompletionResult { bytes, buffer: Some(Buffer::from_vec(buf.to_vec())) })),
                    None => self.file.read(0, Buffer::zeroed(100))?,
                };
                let answered = |b: bool| Completion::ready(Ok(CompletionResult { bytes: b as usize, buffer: None }));
                return Ok(Some(ReadStep::Probe { journal: answered(journal), header, size: self.file.size_request()?, wal: wal.map(answered) }));
            }
        };
        // (The header came at once: no write or truncate of the file is
        // in flight, so its size is as current.)
        self.size_probe = Some(self.file.size()?);
        if let Some(w) = wal {
            self.wal_probe = Some(w);
        }
        Ok(Some(ReadStep::Header(bytes, buf)))
    }

    /// Whether this database's path + `suffix` (`-journal`, `-wal`)
    /// exists: asked beside the open database file when its backend can
    /// (cheaper, see [`crate::io::sibling`]), else of the backend by path.
    fn probe_beside(&self, suffix: &str) -> Result<Completion> {
        match self.file.sibling_exists(suffix) {
            Some(exists) => Ok(Completion::ready(Ok(crate::io::CompletionResult { bytes: exists as usize, buffer: None }))),
            None => self.io.backend().exists_request(&format!("{}{suffix}", self.path)),
        }
    }

    /// The step reading the header: [`ReadStep::Header`] when the
    /// backend answers at once ([`crate::io::File::read_now`]: no buffer
    /// or completion allocated, and cached data costs an async
    /// transaction no suspension), else the request's.
    fn header_step(&self) -> Result<ReadStep> {
        let mut buf = [0; 100];
        Ok(match self.file.read_now(0, &mut buf) {
            Some(r) => ReadStep::Header(r?, buf),
            None => ReadStep::ReadHeader(self.file.read(0, Buffer::zeroed(100))?),
        })
    }

    /// The 100-byte header read as a request, answered at once when the
    /// backend can (as in [`Pager::header_step`]).
    fn header_read(&self) -> Result<Completion> {
        let mut buf = Buffer::zeroed(100);
        match self.file.read_now(0, &mut buf) {
            Some(r) => Ok(Completion::ready(r.map(|bytes| CompletionResult { bytes, buffer: Some(buf) }))),
            None => self.file.read(0, buf),
        }
    }

    fn load_header(&mut self, bytes: usize, buf: &HeaderBytes) -> IoPoll<()> {
        // (An empty file reads no bytes; its size is asked only when the
        // log does not give the database size.)
        let info = if bytes == 0 { None } else { Some(header::parse(buf)?) };
        if crate::ready!(self.wal_begin_read(info)?) {
            return Ok(Poll::Ready(()));
        }
        // (Probed with the header when the read transaction began; asked
        // again if this is re-entered after a WAL recovery step.)
        let file_size = match self.size_probe.take() {
            Some(probed) => probed,
            None => self.file.size()?,
        };
        let Some(info) = info.filter(|_| file_size > 0) else {
            self.db_size = 0;
            if self.last_change_counter.is_some() {
                self.note_foreign_commit();
                self.invalidate_cache();
            }
            self.last_change_counter = None;
            return Ok(Poll::Ready(()));
        };
        self.header_read_only = info.write_version > 2;
        if info.page_size != self.page_size || info.reserved != self.reserved {
            self.page_size = info.page_size;
            self.reserved = info.reserved;
            self.invalidate_cache();
            self.apply_cache_size();
        }
        if self.last_change_counter != Some(info.change_counter) {
            // (This connection's own commits record their counter.)
            if self.last_change_counter.is_some() {
                self.note_foreign_commit();
            }
            self.invalidate_cache();
        }
        self.last_change_counter = Some(info.change_counter);
        let from_file = (file_size / self.page_size as u64) as u32;
        self.db_size = checked_db_size(info.db_size, file_size, self.page_size)?.unwrap_or(from_file);
        Ok(Poll::Ready(()))
    }

    /// The file changed under the cache (another connection, a new page
    /// size or image): drop it, and every backup reading this database
    /// starts over.
    pub(super) fn invalidate_cache(&mut self) {
        self.restart_backups();
        self.clear_cache();
    }

    /// Drop every cached page (the file changed under them).
    pub(super) fn clear_cache(&mut self) {
        self.cache.clear();
        self.reads.clear();
        self.generation += 1;
    }

    /// End a read transaction (no-op inside a write transaction).
    pub fn end_read(&mut self) -> Result<()> {
        // Read-ahead nobody used: another connection may change those
        // pages before the next transaction.
        for p in self.ahead.drain(..) {
            self.reads.remove(&p);
        }
        if self.state == PagerState::Read {
            self.state = PagerState::Idle;
            self.cache.unpin_all();
            self.cache.trim_idle(self.page_size as usize);
            self.end_txn_locks()?;
        }
        Ok(())
    }

    /// What a transaction held, given back as it ends: in WAL mode its
    /// snapshot (the database's SHARED lock stays while attached, and
    /// EXCLUSIVE is given back where NORMAL was asked, as SQLite ends a
    /// transaction); otherwise the database lock, unless the locking mode
    /// keeps it.
    pub(super) fn end_txn_locks(&mut self) -> Result<()> {
        if self.wal.is_some() {
            self.wal_leave_exclusive()?;
            if let Some(w) = self.wal.as_mut() {
                w.end_read();
            }
        } else if self.releases_lock() {
            self.drop_kept_journal();
            self.change_count_done = false;
            self.file.unlock(LockLevel::None)?;
        }
        Ok(())
    }
}

/// A header read's bytes as [`ReadStep::Header`] keeps them.
fn header_of(res: CompletionResult) -> (usize, HeaderBytes) {
    let mut buf = [0; 100];
    if let Some(b) = &res.buffer {
        let n = b.len().min(100);
        buf[..n].copy_from_slice(&b[..n]);
    }
    (res.bytes.min(100), buf)
}
