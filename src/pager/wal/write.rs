//! # Appending transactions to the WAL
//!
//! `begin_write` takes the WRITE lock and fails with
//! `SQLITE_BUSY_SNAPSHOT` if another connection committed after this
//! connection's read snapshot (its reads would be stale). `write_commit`
//! builds a transaction's frames (the last one is the commit frame carrying
//! the database size) and submits them as one write; if the log is fully
//! checkpointed and no reader uses it, the log is restarted first (new
//! salts, frames from the start of the file). `publish` records the frames
//! in the index and publishes the new header once the writes (and the
//! fsync, if any) are done.
//!
//! A new log header (the first transaction of an empty or restarted log)
//! is written and synced on its own, before any frame behind it
//! ([`Wal::prepare_header`]): otherwise a power loss could keep new frames
//! but lose the new header, and recovery would then accept the old,
//! already checkpointed frames in front of them and copy stale pages over
//! the database.
//!
//! Invariants: the index header names a frame only after that frame is on
//! the file (synced when `synchronous=FULL`) (checked:
//! wal_frames_before_header); frames are appended in sequence after the
//! published log's last one (or start a restarted log over), each reading
//! back as checkpoint and recovery will read it (checked:
//! wal_frame_sequence).

use super::format::{self, WalHeader};
use super::index::{read_lock, IndexHeader, NBACKFILL, NBACKFILL_ATTEMPTED, NREADER, READMARK_NOT_USED, WRITE_LOCK};
use super::{busy, Wal};
use crate::error::{Error, Result, SQLITE_BUSY_SNAPSHOT};
use crate::io::{Buffer, Completion};

/// Frames written but not yet recorded in the index.
#[derive(Debug)]
pub struct PendingCommit {
    first_frame: u32,
    pgnos: Vec<u32>,
    hdr: IndexHeader,
    /// The last frame is a commit frame: publish the header.
    commit: bool,
}

/// Writing a new log header ahead of a transaction's frames.
#[derive(Debug, Default)]
pub enum HeaderPrep {
    /// Nothing prepared.
    #[default]
    Idle,
    /// The header write is in flight; the index header it goes with.
    Writing(Completion, IndexHeader),
    /// Its fsync is in flight.
    Syncing(Completion, IndexHeader),
    /// On disk: frames may follow it.
    Ready(IndexHeader),
}

impl Wal {
    /// Before the first frames of an empty or restarted log: restart the
    /// log if it can be, then write its new header and (with `sync`) fsync
    /// it. Resumable; a no-op when the log already has frames.
    pub fn prepare_header(&mut self, sync: bool) -> crate::IoPoll<()> {
        use std::task::Poll;
        loop {
            match std::mem::take(&mut self.header_prep) {
                HeaderPrep::Idle => {
                    if !self.write_lock {
                        return Err(Error::new(crate::error::SQLITE_INTERNAL, "WAL header without the write lock"));
                    }
                    self.maybe_restart()?;
                    if self.hdr.mx_frame != 0 {
                        return Ok(Poll::Ready(()));
                    }
                    let (bytes, h) = self.new_header();
                    let c = self.file.write(0, Buffer::from_vec(bytes))?;
                    self.header_prep = HeaderPrep::Writing(c, h);
                }
                HeaderPrep::Writing(c, h) => {
                    if !c.is_done() {
                        self.header_prep = HeaderPrep::Writing(c, h);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.header_prep = if sync { HeaderPrep::Syncing(self.file.sync(false)?, h) } else { HeaderPrep::Ready(h) };
                }
                HeaderPrep::Syncing(c, h) => {
                    if !c.is_done() {
                        self.header_prep = HeaderPrep::Syncing(c, h);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.header_prep = HeaderPrep::Ready(h);
                }
                HeaderPrep::Ready(h) => {
                    self.header_prep = HeaderPrep::Ready(h);
                    return Ok(Poll::Ready(()));
                }
            }
        }
    }

    /// The bytes of a new log header, and the index header that frames
    /// written behind it start from. The salts are those the last restart
    /// left (the first salt one more, the second fresh), or, for a log
    /// never restarted by this connection, eight fresh bytes: as SQLite
    /// does, drawn from the process's generator (`util::prng`), so a VFS
    /// whose `xRandomness` is fixed gives SQLite's bytes.
    fn new_header(&self) -> (Vec<u8>, IndexHeader) {
        let mut h = self.hdr;
        if self.ckpt_seq == 0 {
            crate::util::prng::fill(&mut h.salt);
        }
        let big_endian = format::native_big_endian();
        let (bytes, ck) = WalHeader::encode(big_endian, self.page_size, self.ckpt_seq, h.salt);
        h.big_endian = big_endian;
        h.frame_cksum = ck;
        (bytes.to_vec(), h)
    }

    /// Take the WRITE lock for a write transaction.
    pub fn begin_write(&mut self) -> Result<()> {
        if self.write_lock {
            return Ok(());
        }
        if !self.shm_lock(WRITE_LOCK, 1, true)? {
            return Err(busy());
        }
        self.write_lock = true;
        if self.index().read_header()? != Some(self.hdr) {
            self.end_write()?;
            return Err(Error::code(SQLITE_BUSY_SNAPSHOT));
        }
        Ok(())
    }

    /// Release the WRITE lock.
    pub fn end_write(&mut self) -> Result<()> {
        self.pending = None;
        self.header_prep = HeaderPrep::Idle;
        if self.uncommitted {
            // A rolled-back transaction spilled frames: forget them (their
            // index entries past mxFrame are cleaned before reuse).
            self.uncommitted = false;
            if let Some(h) = self.index().read_header()? {
                self.hdr = h;
            }
        }
        if self.write_lock {
            self.write_lock = false;
            self.shm_unlock(WRITE_LOCK, 1)?;
        }
        Ok(())
    }

    /// Whether this write transaction wrote frames it has not committed.
    pub fn has_uncommitted(&self) -> bool {
        self.uncommitted
    }

    /// Whether the WRITE lock is held.
    pub fn in_write(&self) -> bool {
        self.write_lock
    }

    /// Start the log over if everything in it is in the database and no
    /// reader (other than READ0 readers, who ignore the log) uses it.
    fn maybe_restart(&mut self) -> Result<()> {
        if self.read_lock != Some(0) || self.hdr.mx_frame == 0 || self.index().info(NBACKFILL)? != self.hdr.mx_frame {
            return Ok(());
        }
        // The new second salt is drawn before the lock is tried, as SQLite
        // draws it (so the generator's sequence matches whatever happens).
        let salt2 = fresh_salt();
        if !self.shm_lock(read_lock(1), NREADER - 1, true)? {
            return Ok(());
        }
        let r = self.restart_header(salt2);
        self.shm_unlock(read_lock(1), NREADER - 1)?;
        r
    }

    /// Reset the index to an empty log with new salts: the first one
    /// more (big-endian), the second `salt2` (from [`fresh_salt`]); the
    /// caller holds WRITE and READ1..4 exclusively.
    pub(super) fn restart_header(&mut self, salt2: [u8; 4]) -> Result<()> {
        let idx = self.index();
        let mut h = self.hdr;
        let salt1 = u32::from_be_bytes([h.salt[0], h.salt[1], h.salt[2], h.salt[3]]).wrapping_add(1);
        h.salt[..4].copy_from_slice(&salt1.to_be_bytes());
        h.salt[4..].copy_from_slice(&salt2);
        h.mx_frame = 0;
        h.change = h.change.wrapping_add(1);
        idx.write_header(&h)?;
        idx.set_info(NBACKFILL, 0)?;
        idx.set_info(NBACKFILL_ATTEMPTED, 0)?;
        idx.set_read_mark(1, 0)?;
        for i in 2..NREADER {
            idx.set_read_mark(i, READMARK_NOT_USED)?;
        }
        self.hdr = h;
        self.ckpt_seq = self.ckpt_seq.wrapping_add(1);
        Ok(())
    }

    /// Submit the frames of a transaction (`pages` sorted by page number)
    /// ending with a commit frame for a database of `db_size` pages.
    /// `synced`: the commit will sync the log. Then, as SQLite does when
    /// the log's device is not powersafe-overwrite, the commit frame is
    /// repeated until the log ends on a sector boundary, so that no later
    /// write shares a sector with (and so may damage) synced frames.
    pub fn write_commit(&mut self, pages: &[(u32, &[u8])], db_size: u32, synced: bool) -> Result<Vec<Completion>> {
        let powersafe = self.file.device_characteristics() & crate::io::iocap::POWERSAFE_OVERWRITE != 0;
        let pad_to = (synced && !powersafe).then(|| crate::io::journal_sector_size(self.file.as_ref()) as u64);
        self.write_frames_padded(pages, Some(db_size), pad_to)
    }

    /// Submit frames; with `commit`, the last is the commit frame for a
    /// database of that many pages. Without, the frames are a cache spill:
    /// after [`Wal::publish`] this connection reads them back, nobody else
    /// sees them until a commit frame follows.
    pub fn write_frames(&mut self, pages: &[(u32, &[u8])], commit: Option<u32>) -> Result<Vec<Completion>> {
        self.write_frames_padded(pages, commit, None)
    }

    /// [`Wal::write_frames`], the last frame repeated until the log's end
    /// is a multiple of `pad_to` bytes when given.
    fn write_frames_padded(&mut self, pages: &[(u32, &[u8])], commit: Option<u32>, pad_to: Option<u64>) -> Result<Vec<Completion>> {
        // invariant: wal_write_lock
        if !self.write_lock || pages.is_empty() {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "WAL commit without the write lock"));
        }
        let ps = self.page_size;
        // (The file may not have seen the log's header: it learns the
        // frame layout here.)
        self.file.hint(crate::io::FileHint::WalPageSize(ps));
        let mut h = self.hdr;
        let mut cs = Vec::new();
        if h.mx_frame == 0 {
            match std::mem::take(&mut self.header_prep) {
                HeaderPrep::Ready(prepared) => h = prepared,
                _ => {
                    // Not prepared (callers should): header and frames go
                    // out together.
                    self.maybe_restart()?;
                    h = self.hdr;
                    if h.mx_frame == 0 {
                        let (bytes, fresh) = self.new_header();
                        h = fresh;
                        cs.push(self.file.write(0, Buffer::from_vec(bytes))?);
                    }
                }
            }
        }
        h.page_size = ps;
        let frame_len = format::FRAME_HEADER_SIZE + ps as usize;
        let first_frame = h.mx_frame + 1;
        let mut frames: Vec<(u32, &[u8])> = pages.to_vec();
        if let (Some(sector), Some(&last)) = (pad_to.filter(|&s| s > 0), pages.last()) {
            // Until the log's end reaches the sector boundary at or after
            // the end of the transaction's frames (it may pass it).
            let end = |n: usize| format::frame_offset(first_frame + n as u32, ps);
            let boundary = end(frames.len()).div_ceil(sector) * sector;
            while end(frames.len()) < boundary {
                frames.push(last);
            }
        }
        let mut buf = vec![0u8; frame_len * frames.len()];
        let mut ck = h.frame_cksum;
        for (i, (pgno, data)) in frames.iter().enumerate() {
            // Every frame from the transaction's last page on is a commit
            // frame (the padding repeats it whole).
            let size = if i + 1 >= pages.len() { commit.unwrap_or(0) } else { 0 };
            ck = format::encode_frame(&mut buf[i * frame_len..(i + 1) * frame_len], h.big_endian, *pgno, size, h.salt, data, ck);
        }
        let pages = &frames[..];
        #[cfg(debug_assertions)]
        debug_check_frames(&buf, &h, pages, commit, ck);
        cs.push(self.file.write(format::frame_offset(first_frame, ps), Buffer::from_vec(buf))?);
        h.mx_frame += pages.len() as u32;
        debug_assert_eq!(h.mx_frame, first_frame - 1 + pages.len() as u32, "frames appended out of sequence");
        h.frame_cksum = ck;
        h.is_init = true;
        if let Some(db_size) = commit {
            h.n_page = db_size;
            h.change = h.change.wrapping_add(1);
        }
        self.pending = Some(PendingCommit { first_frame, pgnos: pages.iter().map(|p| p.0).collect(), hdr: h, commit: commit.is_some() });
        Ok(cs)
    }

    /// The frames submitted but not yet published start the log over
    /// (their first frame is frame 1): the file offset just past them.
    pub fn pending_end_if_restarted(&self) -> Option<u64> {
        let p = self.pending.as_ref().filter(|p| p.first_frame == 1 && p.commit)?;
        Some(format::frame_offset(p.hdr.mx_frame + 1, self.page_size))
    }

    /// The commit's frames are durable: record them in the index and
    /// publish the header that makes them visible.
    pub fn publish(&mut self) -> Result<()> {
        let Some(p) = self.pending.take() else { return Ok(()) };
        // The frames follow the published log's last frame, or start a
        // restarted log over.
        // invariant: wal_frame_sequence
        debug_assert!(p.first_frame == self.hdr.mx_frame + 1 || p.first_frame == 1, "frames {} on, after frame {}", p.first_frame, self.hdr.mx_frame);
        debug_assert_eq!(p.hdr.mx_frame, p.first_frame - 1 + p.pgnos.len() as u32, "a pending header counts other frames than it holds");
        // invariant: wal_frames_before_header
        debug_assert!(
            self.file.size().map_or(true, |n| n >= format::frame_offset(p.hdr.mx_frame + 1, self.page_size)),
            "frames up to {} published before they are on the file",
            p.hdr.mx_frame
        );
        let idx = self.index();
        for (i, pgno) in p.pgnos.iter().enumerate() {
            idx.append(p.first_frame + i as u32, *pgno)?;
        }
        if p.commit {
            idx.write_header(&p.hdr)?;
        }
        self.uncommitted = !p.commit;
        self.hdr = p.hdr;
        Ok(())
    }
}

/// Debug builds: the frames about to be appended (`buf`, chained from
/// `h`'s running checksum) read back as the checkpointer and recovery will
/// read them: each decodes with its page number, a commit size only on the
/// transaction's commit frames (the last one has it) and a checksum chained
/// from the previous frame, and the chain ends at `end`, the header's new
/// running checksum.
#[cfg(debug_assertions)]
fn debug_check_frames(buf: &[u8], h: &IndexHeader, pages: &[(u32, &[u8])], commit: Option<u32>, end: format::Checksum) {
    let hdr = format::WalHeader { big_endian: h.big_endian, page_size: h.page_size, ckpt_seq: 0, salt: h.salt, cksum: (0, 0) };
    let frame_len = format::FRAME_HEADER_SIZE + h.page_size as usize;
    debug_assert_eq!(buf.len(), frame_len * pages.len());
    let mut ck = h.frame_cksum;
    for (frame, (pgno, data)) in buf.chunks_exact(frame_len).zip(pages) {
        debug_assert_eq!(data.len(), h.page_size as usize, "a frame of another page size");
        let info = format::decode_frame(frame, &hdr, ck);
        // invariant: wal_frame_sequence
        debug_assert!(info.is_some_and(|f| f.pgno == *pgno), "frame for page {pgno} does not read back (checksum chain, salt or page number)");
        let Some(info) = info else { return };
        debug_assert!(info.commit_size == 0 || Some(info.commit_size) == commit, "a commit size on a frame of no commit");
        ck = info.cksum;
    }
    debug_assert_eq!(ck, end, "the header's running checksum is not the last frame's");
    let last_size = buf.len().checked_sub(frame_len).map_or(0, |at| crate::pager::header::get_u32(buf, at + 4));
    debug_assert_eq!(last_size, commit.unwrap_or(0), "the last frame's commit size");
}

/// Four bytes of the process's generator for a restarted log's second
/// salt (raw, as SQLite copies them).
pub(super) fn fresh_salt() -> [u8; 4] {
    let mut b = [0u8; 4];
    crate::util::prng::fill(&mut b);
    b
}
