//! # The rollback journal format
//!
//! Owns the bytes of SQLite's rollback journal (`fileformat2.txt`, "The
//! Rollback Journal"): a header padded to the sector size (magic, record
//! count, checksum nonce, initial database size in pages, sector size,
//! page size), then records of page number, original page image and a
//! checksum. A journal may hold several header+records segments.
//!
//! Invariant: a record is only played back when its checksum matches, so
//! a torn journal never writes garbage into the database; playback stops
//! at the first bad record (checked: journal_checksum_playback).

use super::header::{get_u32, put_u32, valid_page_size};
use crate::pager::Pgno;

/// The journal magic.
pub const JOURNAL_MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
/// The record count of a journal whose records are counted from its
/// size (written under `synchronous=OFF` or on a SAFE_APPEND device).
pub const COUNT_FROM_SIZE: u32 = 0xffff_ffff;

/// The checksum of one record's page image.
pub fn checksum(nonce: u32, data: &[u8]) -> u32 {
    let mut sum = nonce;
    let mut i = data.len() as i64 - 200;
    while i > 0 {
        sum = sum.wrapping_add(data[i as usize] as u32);
        i -= 200;
    }
    sum
}

/// A random nonce for a new journal (4 bytes of the process's generator,
/// as SQLite draws its checksum seed).
pub fn new_nonce() -> u32 {
    crate::util::prng::next_u32()
}

/// The 28 meaningful bytes of a journal header.
pub fn header(nonce: u32, n_rec: u32, initial_pages: u32, page_size: u32, sector: u32) -> Vec<u8> {
    let mut out = vec![0u8; 28];
    out[..8].copy_from_slice(&JOURNAL_MAGIC);
    put_u32(&mut out, 8, n_rec);
    put_u32(&mut out, 12, nonce);
    put_u32(&mut out, 16, initial_pages);
    put_u32(&mut out, 20, sector);
    put_u32(&mut out, 24, page_size);
    out
}

/// The first 12 bytes of a header: magic and record count.
pub fn header_count(n_rec: u32) -> Vec<u8> {
    let mut out = JOURNAL_MAGIC.to_vec();
    out.extend_from_slice(&n_rec.to_be_bytes());
    out
}

/// A whole header sector as SQLite lays it out: the header padded with
/// zeros to `min(page_size, sector)` bytes, that block repeated to fill
/// the sector. `n_rec` `None`: magic and count left zero, to be written
/// once the records are on disk ([`header_count`]).
pub fn header_sector(nonce: u32, n_rec: Option<u32>, initial_pages: u32, page_size: u32, sector: u32) -> Vec<u8> {
    debug_assert!(sector.is_power_of_two() && sector >= 32);
    let mut block = header(nonce, n_rec.unwrap_or(0), initial_pages, page_size, sector);
    if n_rec.is_none() {
        block[..12].fill(0);
    }
    block.resize(page_size.min(sector) as usize, 0);
    block.repeat(sector as usize / block.len())
}

/// Records (page number, original image, checksum) back to back.
pub fn records(nonce: u32, page_size: u32, records: &[(Pgno, &[u8])]) -> Vec<u8> {
    let rec_len = page_size as usize + 8;
    let mut out = vec![0u8; records.len() * rec_len];
    let mut off = 0;
    for (pgno, data) in records {
        put_u32(&mut out, off, *pgno);
        out[off + 4..off + 4 + data.len()].copy_from_slice(data);
        put_u32(&mut out, off + 4 + page_size as usize, checksum(nonce, data));
        off += rec_len;
    }
    out
}

/// Build a whole journal: one header sector and `records` (page number,
/// original image), all images `page_size` long.
pub fn build(nonce: u32, initial_pages: u32, page_size: u32, sector: u32, recs: &[(Pgno, &[u8])]) -> Vec<u8> {
    let mut out = header_sector(nonce, Some(recs.len() as u32), initial_pages, page_size, sector);
    out.extend(records(nonce, page_size, recs));
    out
}

/// What a journal says to do to the database.
#[derive(Debug, Default)]
pub struct Playback {
    /// Database size in pages before the transaction (first header).
    pub initial_pages: u32,
    /// Page size the records use.
    pub page_size: u32,
    /// Pages to restore, in journal order (the first record of a page wins
    /// because later ones hold later states).
    pub pages: Vec<(Pgno, Vec<u8>)>,
}

/// Parse a journal. `None` if it is not hot (no valid first header, e.g.
/// a zeroed PERSIST journal). `db_page_size` is used when the header says
/// 0.
pub fn parse(journal: &[u8], db_page_size: u32) -> Option<Playback> {
    let mut off = 0usize;
    let mut result: Option<Playback> = None;
    let mut seen = std::collections::HashSet::new();
    loop {
        if journal.len() < off + 28 || journal[off..off + 8] != JOURNAL_MAGIC {
            break;
        }
        let mut n_rec = get_u32(journal, off + 8);
        let nonce = get_u32(journal, off + 12);
        let initial = get_u32(journal, off + 16);
        let sector = get_u32(journal, off + 20);
        let mut page_size = get_u32(journal, off + 24);
        if page_size == 0 {
            page_size = db_page_size;
        }
        if !valid_page_size(page_size) || !(32..=65536).contains(&sector) || !sector.is_power_of_two() {
            break;
        }
        let rec_len = page_size as usize + 8;
        let body = off + sector as usize;
        if n_rec == 0xffff_ffff {
            n_rec = (journal.len().saturating_sub(body) / rec_len) as u32;
        }
        let pb = result.get_or_insert_with(|| Playback { initial_pages: initial, page_size, pages: Vec::new() });
        if page_size != pb.page_size {
            break;
        }
        let mut pos = body;
        let mut stopped = false;
        for _ in 0..n_rec {
            if journal.len() < pos + rec_len {
                stopped = true;
                break;
            }
            let pgno = get_u32(journal, pos);
            let data = &journal[pos + 4..pos + 4 + page_size as usize];
            let sum = get_u32(journal, pos + 4 + page_size as usize);
            if pgno == 0 || sum != checksum(nonce, data) {
                stopped = true;
                break;
            }
            if seen.insert(pgno) {
                pb.pages.push((pgno, data.to_vec()));
            }
            pos += rec_len;
        }
        if stopped || n_rec == 0 {
            break;
        }
        off = pos.div_ceil(sector as usize) * sector as usize;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_then_parse_round_trips() {
        let a = vec![1u8; 1024];
        let b: Vec<u8> = (0..1024).map(|i| i as u8).collect();
        let j = build(0x1234_5678, 7, 1024, 4096, &[(3, &a), (5, &b), (3, &b)]);
        assert_eq!(&j[..8], &JOURNAL_MAGIC);
        let pb = parse(&j, 4096).unwrap();
        assert_eq!((pb.initial_pages, pb.page_size), (7, 1024));
        // The first image of a page wins.
        assert_eq!(pb.pages, vec![(3, a.clone()), (5, b.clone())]);
    }

    #[test]
    fn a_torn_record_stops_playback() {
        let a = vec![9u8; 512];
        let mut j = build(42, 2, 512, 4096, &[(1, &a), (2, &a)]);
        let second = 4096 + 520 + 4 + 312;
        j[second] ^= 0xff;
        let pb = parse(&j, 512).unwrap();
        // invariant: journal_checksum_playback
        assert_eq!(pb.pages.len(), 1);
        assert!(parse(&[0u8; 64], 512).is_none(), "a zeroed header is not hot");
    }

    #[test]
    fn a_header_sector_repeats_its_page_sized_block() {
        let h = header_sector(9, None, 3, 1024, 4096);
        assert_eq!(h.len(), 4096);
        assert_eq!(&h[..12], &[0u8; 12]);
        assert_eq!(&h[1024..2048], &h[..1024]);
        let h = header_sector(9, Some(COUNT_FROM_SIZE), 3, 4096, 512);
        assert_eq!(h.len(), 512);
        assert_eq!(&h[..12], &header_count(COUNT_FROM_SIZE)[..]);
    }

    #[test]
    fn checksum_samples_every_200th_byte_from_the_end() {
        let mut d = vec![0u8; 1024];
        d[824] = 1;
        d[624] = 2;
        d[24] = 5;
        d[0] = 100; // never sampled
        assert_eq!(checksum(10, &d), 18);
    }
}
