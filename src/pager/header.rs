//! # The database header (first 100 bytes of page 1)
//!
//! Offsets and defaults from `fileformat2.txt`, "The Database Header".
//! Owns the encoding of those fields and the image of a brand-new
//! database's page 1. Multi-byte fields are big-endian.

use crate::error::{Error, Result, SQLITE_NOTADB};

/// The 16-byte magic string.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";
/// Offset of the page size (2 bytes, 1 means 65536).
pub const PAGE_SIZE: usize = 16;
/// Offset of the file format write version (1 legacy, 2 WAL).
pub const WRITE_VERSION: usize = 18;
/// Offset of the file format read version.
pub const READ_VERSION: usize = 19;
/// Offset of the reserved-bytes-per-page count.
pub const RESERVED: usize = 20;
/// Offset of the file change counter.
pub const CHANGE_COUNTER: usize = 24;
/// Offset of the in-header database size in pages.
pub const DB_SIZE: usize = 28;
/// Offset of the first freelist trunk page.
pub const FREELIST_TRUNK: usize = 32;
/// Offset of the freelist page count.
pub const FREELIST_COUNT: usize = 36;
/// Offset of the schema cookie.
pub const SCHEMA_COOKIE: usize = 40;
/// Offset of the version-valid-for number.
pub const VERSION_VALID_FOR: usize = 92;
/// Offset of SQLITE_VERSION_NUMBER of the last writer.
pub const SQLITE_VERSION: usize = 96;
/// The version number ringlite writes (it claims the SQLite it mimics).
pub const SQLITE_VERSION_NUMBER: u32 = 3_054_001;
/// Default page size of new databases.
pub const DEFAULT_PAGE_SIZE: u32 = 4096;

/// Read a big-endian u32.
#[inline]
pub fn get_u32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// Write a big-endian u32.
pub fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// Whether `n` is a legal page size.
pub fn valid_page_size(n: u32) -> bool {
    (512..=65536).contains(&n) && n.is_power_of_two()
}

/// What the pager needs from an existing header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderInfo {
    /// Page size in bytes.
    pub page_size: u32,
    /// Reserved bytes at the end of each page.
    pub reserved: u8,
    /// File change counter.
    pub change_counter: u32,
    /// Database size in pages, if the in-header size is valid.
    pub db_size: Option<u32>,
    /// Write version (2 means WAL).
    pub write_version: u8,
}

/// Parse and validate the first 100 bytes.
pub fn parse(b: &[u8]) -> Result<HeaderInfo> {
    if b.len() < 100 || &b[..16] != MAGIC {
        return Err(Error::code(SQLITE_NOTADB));
    }
    let raw = u16::from_be_bytes([b[PAGE_SIZE], b[PAGE_SIZE + 1]]) as u32;
    let page_size = if raw == 1 { 65536 } else { raw };
    // As SQLite: a read version past 2 or payload fractions other than
    // 64/32/32 make the file unreadable; a write version past 2 only
    // read-only (the pager refuses writes).
    if !valid_page_size(page_size) || b[READ_VERSION] > 2 || b[21..24] != [64, 32, 32] {
        return Err(Error::code(SQLITE_NOTADB));
    }
    let reserved = b[RESERVED];
    if page_size - (reserved as u32) < 480 {
        return Err(Error::code(SQLITE_NOTADB));
    }
    let change_counter = get_u32(b, CHANGE_COUNTER);
    let size = get_u32(b, DB_SIZE);
    let db_size = (size != 0 && get_u32(b, VERSION_VALID_FOR) == change_counter).then_some(size);
    Ok(HeaderInfo { page_size, reserved, change_counter, db_size, write_version: b[WRITE_VERSION] })
}

/// Page 1 of a new, empty database: SQLite's default header and an empty
/// table leaf as the root of `sqlite_schema`.
pub fn new_page1(page_size: u32, reserved: u8) -> Vec<u8> {
    let mut p = vec![0u8; page_size as usize];
    p[..16].copy_from_slice(MAGIC);
    let encoded = if page_size == 65536 { 1u16 } else { page_size as u16 };
    p[PAGE_SIZE..PAGE_SIZE + 2].copy_from_slice(&encoded.to_be_bytes());
    p[WRITE_VERSION] = 1;
    p[READ_VERSION] = 1;
    p[RESERVED] = reserved;
    p[21] = 64; // maximum embedded payload fraction
    p[22] = 32; // minimum embedded payload fraction
    p[23] = 32; // leaf payload fraction
    put_u32(&mut p, DB_SIZE, 1);
    put_u32(&mut p, 44, 4); // schema format
    put_u32(&mut p, 56, 1); // text encoding UTF-8
    put_u32(&mut p, SQLITE_VERSION, SQLITE_VERSION_NUMBER);
    // B-tree page header of the empty sqlite_schema leaf.
    p[100] = 13;
    // (Cell content starts at the end of the usable space; 65536 is 0.)
    let usable = page_size - reserved as u32;
    let content = if usable == 65536 { 0u16 } else { usable as u16 };
    p[105..107].copy_from_slice(&content.to_be_bytes());
    p
}
