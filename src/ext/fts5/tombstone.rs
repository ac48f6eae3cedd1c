//! # Tombstone hash tables (`contentless_delete=1`)
//!
//! A contentless_delete table deletes a row by adding its rowid to a
//! hash table kept with the segment holding the row, instead of writing
//! delete entries into a new segment. The table of segment `s` is `n`
//! pages in `%_data` (ids from `structure::tombstone_id`); rowid `r`
//! goes to page `r % n`, slot `(r / n) % slots`, the next free slot on a
//! collision. A page is an 8-byte header (key size 4 or 8; on page 0 a
//! flag for rowid 0, which takes no slot; two unused bytes; the number
//! of keys, u32 big-endian) and its slots of big-endian keys, 0 free.
//!
//! Growth follows SQLite 3.54.1 (observed, and its documented layout): a
//! page takes a key while under half full; otherwise the table is built
//! again: a first table is one page of 32 slots, a one-page table grows
//! to 4 slots per key it holds (at least 32) while that fits in
//! `pgsz`, else the table gets `2n + 1` pages of `(pgsz - 8) / keysize`
//! slots (at least 32), again doubled plus one while a page overflows.
//! Keys are 8 bytes once any rowid needs more than 32 bits.
//!
//! Invariant: every key of a table is on the page `key % n` (or in the rowid-0
//! flag), and the page's count is its number of nonzero slots (checked:
//! tombstone_page_count).

use super::shadow::rows;
use super::structure::{tombstone_id, Seg};
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::HashSet;

const MIN_SLOTS: u64 = 32;

fn key_size(p: &[u8]) -> usize {
    if p.first() == Some(&8) {
        8
    } else {
        4
    }
}

fn slots(p: &[u8]) -> u64 {
    (p.len().saturating_sub(8) / key_size(p)) as u64
}

fn slot(p: &[u8], i: u64) -> u64 {
    let (k, o) = (key_size(p), 8 + i as usize * key_size(p));
    p[o..o + k].iter().fold(0u64, |a, b| (a << 8) | u64::from(*b))
}

fn set_slot(p: &mut [u8], i: u64, v: u64) {
    let (k, o) = (key_size(p), 8 + i as usize * key_size(p));
    p[o..o + k].copy_from_slice(&v.to_be_bytes()[8 - k..]);
}

fn count(p: &[u8]) -> u64 {
    u64::from(u32::from_be_bytes([p[4], p[5], p[6], p[7]]))
}

/// Why a key was not put on a page.
#[derive(PartialEq, Eq)]
enum Refused {
    /// The page is half full.
    Full,
    /// The key needs 8 bytes, the page has 4-byte slots.
    Wide,
}

/// Put `key` on page `p` of an `npg`-page table (`force`: even when
/// half full; the caller knows a slot is free).
fn add_to_page(p: &mut [u8], force: bool, npg: u64, key: u64) -> std::result::Result<(), Refused> {
    let n = slots(p);
    if key_size(p) == 4 && key > 0xFFFF_FFFF {
        return Err(Refused::Wide);
    }
    if key == 0 {
        p[1] = 1;
        return Ok(());
    }
    let elems = count(p);
    if !force && elems >= n / 2 {
        return Err(Refused::Full);
    }
    p[4..8].copy_from_slice(&((elems + 1) as u32).to_be_bytes());
    let mut i = (key / npg) % n;
    let mut tries = n;
    while slot(p, i) != 0 {
        i = (i + 1) % n;
        if tries == 0 {
            return Ok(());
        }
        tries -= 1;
    }
    set_slot(p, i, key);
    Ok(())
}

/// The keys of a table's pages (rowid 0 included when flagged).
fn keys(pages: &[Vec<u8>]) -> Vec<u64> {
    let mut out = Vec::new();
    for (k, p) in pages.iter().enumerate() {
        if p.len() < 8 {
            continue;
        }
        if k == 0 && p[1] != 0 {
            out.push(0);
        }
        out.extend((0..slots(p)).map(|i| slot(p, i)).filter(|v| *v != 0));
    }
    out
}

/// The table rebuilt into `nout` pages of `nslot` slots; None when a
/// page would be over half full.
fn rehash(old: &[Vec<u8>], ksize: usize, nout: u64, nslot: u64) -> Option<Vec<Vec<u8>>> {
    let mut out = vec![vec![0u8; 8 + nslot as usize * ksize]; nout as usize];
    for p in out.iter_mut() {
        p[0] = ksize as u8;
    }
    for (k, p) in old.iter().enumerate() {
        for i in 0..slots(p) {
            let v = slot(p, i);
            if v != 0 && add_to_page(&mut out[(v % nout) as usize], false, nout, v).is_err() {
                return None;
            }
        }
        if k == 0 {
            out[0][1] = p[1];
        }
    }
    Some(out)
}

fn read_page(c: &mut Connection, data: &str, id: i64) -> Result<Vec<u8>> {
    match rows(c, &format!("SELECT block FROM {data} WHERE id = {id}"))?.into_iter().next().map(|mut r| r.remove(0)) {
        Some(Value::Blob(b)) if b.len() >= 8 + 4 => Ok(b),
        _ => Err(Error::corrupt()),
    }
}

fn write_page(c: &mut Connection, data: &str, id: i64, b: Vec<u8>) -> Result<()> {
    super::index::exec(c, &format!("REPLACE INTO {data}(id, block) VALUES(?, ?)"), &[Value::Integer(id), Value::Blob(b)])
}

/// Add `rowid` to the tombstones of `seg` (its page count updated).
pub fn add(c: &mut Connection, data: &str, seg: &mut Seg, rowid: i64, pgsz: usize) -> Result<()> {
    let key = rowid as u64;
    let npg = u64::from(seg.tomb_pages);
    let mut loaded: Option<(u64, Vec<u8>)> = None;
    if npg > 0 {
        let pg = key % npg;
        let id = tombstone_id(seg.id, pg as u32);
        let mut p = read_page(c, data, id)?;
        if add_to_page(&mut p, false, npg, key).is_ok() {
            return write_page(c, data, id, p);
        }
        loaded = Some((pg, p));
    }
    let mut ksize = loaded.as_ref().map_or(4, |(_, p)| key_size(p));
    if key > 0xFFFF_FFFF {
        ksize = 8;
    }
    let per_page = MIN_SLOTS.max((pgsz as u64).saturating_sub(8) / ksize as u64);
    let (mut nout, mut nslot) = match (npg, &loaded) {
        (0, _) => (1, MIN_SLOTS),
        (1, Some((_, p))) if count(p) <= per_page / 4 => (1, (count(p) * 4).max(MIN_SLOTS)),
        _ => (npg * 2 + 1, per_page),
    };
    let mut old = Vec::with_capacity(npg as usize);
    for pg in 0..npg {
        match &loaded {
            Some((l, p)) if *l == pg => old.push(p.clone()),
            _ => old.push(read_page(c, data, tombstone_id(seg.id, pg as u32))?),
        }
    }
    let mut pages = loop {
        if let Some(p) = rehash(&old, ksize, nout, nslot) {
            break p;
        }
        nslot = per_page;
        nout = nout * 2 + 1;
    };
    let _ = add_to_page(&mut pages[(key % nout) as usize], true, nout, key);
    for (pg, p) in pages.into_iter().enumerate() {
        write_page(c, data, tombstone_id(seg.id, pg as u32), p)?;
    }
    seg.tomb_pages = nout as u32;
    Ok(())
}

/// The rowids tombstoned in `seg`.
pub fn read(c: &mut Connection, data: &str, seg: &Seg) -> Result<HashSet<i64>> {
    let mut pages = Vec::with_capacity(seg.tomb_pages as usize);
    for pg in 0..seg.tomb_pages {
        pages.push(read_page(c, data, tombstone_id(seg.id, pg))?);
    }
    Ok(keys(&pages).into_iter().map(|k| k as i64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_page_holds_32_slots_and_rowid_zero_is_a_flag() {
        let mut p = rehash(&[], 4, 1, 32).unwrap().remove(0);
        assert_eq!(p.len(), 8 + 32 * 4);
        assert!(add_to_page(&mut p, false, 1, 2).is_ok());
        assert!(add_to_page(&mut p, false, 1, 0).is_ok());
        assert_eq!(slot(&p, 2), 2);
        // invariant: tombstone_page_count
        assert_eq!((p[1], count(&p)), (1, 1));
        assert_eq!(keys(&[p]), vec![0, 2]);
    }

    #[test]
    fn a_half_full_page_refuses_and_wide_keys_need_8_bytes() {
        let mut p = rehash(&[], 4, 1, 32).unwrap().remove(0);
        for k in 1..=16 {
            assert!(add_to_page(&mut p, false, 1, k).is_ok());
        }
        assert!(add_to_page(&mut p, false, 1, 17) == Err(Refused::Full));
        assert!(add_to_page(&mut p, true, 1, 1 << 40) == Err(Refused::Wide));
    }
}
