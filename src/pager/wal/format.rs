//! # The WAL file format (`fileformat2.txt`, "The WAL File Format")
//!
//! Owns the encoding of the 32-byte WAL header and the 24-byte frame
//! header, and the WAL checksum. All header fields are big-endian. The
//! checksum reads its input as 32-bit words in the byte order the header's
//! magic names (0x377f0682: little-endian, 0x377f0683: big-endian) and
//! runs over the header's first 24 bytes, then cumulatively over each
//! frame's first 8 header bytes and its page.

use crate::pager::header::{get_u32, put_u32};

/// Magic with little-endian checksums (what a little-endian host writes).
pub const MAGIC_LE: u32 = 0x377f_0682;
/// Magic with big-endian checksums.
pub const MAGIC_BE: u32 = 0x377f_0683;
/// File format version in the header.
pub const WAL_VERSION: u32 = 3_007_000;
/// Bytes in the WAL header.
pub const WAL_HEADER_SIZE: u64 = 32;
/// Bytes in a frame header.
pub const FRAME_HEADER_SIZE: usize = 24;

/// The running checksum `(s1, s2)`.
pub type Checksum = (u32, u32);

/// Extend checksum `seed` over `data` (a multiple of 8 bytes).
pub fn checksum(big_endian: bool, data: &[u8], seed: Checksum) -> Checksum {
    let (mut s1, mut s2) = seed;
    for pair in data.chunks_exact(8) {
        let (a, b) = if big_endian {
            (u32::from_be_bytes([pair[0], pair[1], pair[2], pair[3]]), u32::from_be_bytes([pair[4], pair[5], pair[6], pair[7]]))
        } else {
            (u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]), u32::from_le_bytes([pair[4], pair[5], pair[6], pair[7]]))
        };
        s1 = s1.wrapping_add(a).wrapping_add(s2);
        s2 = s2.wrapping_add(b).wrapping_add(s1);
    }
    (s1, s2)
}

/// The byte order this host writes new WALs in.
pub fn native_big_endian() -> bool {
    cfg!(target_endian = "big")
}

/// A parsed WAL header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalHeader {
    /// Checksums are big-endian.
    pub big_endian: bool,
    /// Database page size.
    pub page_size: u32,
    /// Checkpoint sequence number.
    pub ckpt_seq: u32,
    /// The two salts, as the raw bytes stored in the file.
    pub salt: [u8; 8],
    /// Checksum of the header's first 24 bytes.
    pub cksum: Checksum,
}

impl WalHeader {
    /// Encode the 32 bytes (the checksum is computed here).
    pub fn encode(big_endian: bool, page_size: u32, ckpt_seq: u32, salt: [u8; 8]) -> ([u8; 32], Checksum) {
        let mut b = [0u8; 32];
        put_u32(&mut b, 0, if big_endian { MAGIC_BE } else { MAGIC_LE });
        put_u32(&mut b, 4, WAL_VERSION);
        put_u32(&mut b, 8, page_size);
        put_u32(&mut b, 12, ckpt_seq);
        b[16..24].copy_from_slice(&salt);
        let ck = checksum(big_endian, &b[..24], (0, 0));
        put_u32(&mut b, 24, ck.0);
        put_u32(&mut b, 28, ck.1);
        (b, ck)
    }

    /// Parse and validate; `None` if this is not a usable WAL header.
    pub fn parse(b: &[u8]) -> Option<WalHeader> {
        if b.len() < 32 {
            return None;
        }
        let magic = get_u32(b, 0);
        if magic != MAGIC_LE && magic != MAGIC_BE {
            return None;
        }
        let big_endian = magic == MAGIC_BE;
        let page_size = get_u32(b, 8);
        if get_u32(b, 4) != WAL_VERSION || !crate::pager::header::valid_page_size(page_size) {
            return None;
        }
        let ck = checksum(big_endian, &b[..24], (0, 0));
        if ck != (get_u32(b, 24), get_u32(b, 28)) {
            return None;
        }
        let mut salt = [0u8; 8];
        salt.copy_from_slice(&b[16..24]);
        Some(WalHeader { big_endian, page_size, ckpt_seq: get_u32(b, 12), salt, cksum: ck })
    }
}

/// Byte offset of frame `n` (1-based) in a WAL of `page_size` pages.
pub fn frame_offset(n: u32, page_size: u32) -> u64 {
    WAL_HEADER_SIZE + (n as u64 - 1) * (FRAME_HEADER_SIZE as u64 + page_size as u64)
}

/// Encode frame header + page into `out` (24 + page bytes), chaining the
/// checksum from `prev`; returns the new running checksum.
pub fn encode_frame(out: &mut [u8], big_endian: bool, pgno: u32, commit_size: u32, salt: [u8; 8], page: &[u8], prev: Checksum) -> Checksum {
    put_u32(out, 0, pgno);
    put_u32(out, 4, commit_size);
    out[8..16].copy_from_slice(&salt);
    out[FRAME_HEADER_SIZE..].copy_from_slice(page);
    let ck = checksum(big_endian, &out[..8], prev);
    let ck = checksum(big_endian, page, ck);
    put_u32(out, 16, ck.0);
    put_u32(out, 20, ck.1);
    ck
}

/// A frame that passed validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    /// Database page it holds.
    pub pgno: u32,
    /// Database size after the commit, for commit frames; 0 otherwise.
    pub commit_size: u32,
    /// Running checksum after this frame.
    pub cksum: Checksum,
}

/// Validate one frame (header + page) against the header's salts and the
/// running checksum `prev`.
pub fn decode_frame(frame: &[u8], hdr: &WalHeader, prev: Checksum) -> Option<FrameInfo> {
    if frame.len() != FRAME_HEADER_SIZE + hdr.page_size as usize || frame[8..16] != hdr.salt {
        return None;
    }
    let pgno = get_u32(frame, 0);
    if pgno == 0 {
        return None;
    }
    let ck = checksum(hdr.big_endian, &frame[..8], prev);
    let ck = checksum(hdr.big_endian, &frame[FRAME_HEADER_SIZE..], ck);
    if ck != (get_u32(frame, 16), get_u32(frame, 20)) {
        return None;
    }
    Some(FrameInfo { pgno, commit_size: get_u32(frame, 4), cksum: ck })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_detect_damage() {
        let (hb, _) = WalHeader::encode(false, 512, 7, [1, 2, 3, 4, 5, 6, 7, 8]);
        let h = WalHeader::parse(&hb).unwrap();
        let page = vec![9u8; 512];
        let mut f = vec![0u8; 24 + 512];
        let ck = encode_frame(&mut f, h.big_endian, 3, 10, h.salt, &page, h.cksum);
        let info = decode_frame(&f, &h, h.cksum).unwrap();
        assert_eq!((info.pgno, info.commit_size, info.cksum), (3, 10, ck));
        f[100] ^= 1;
        assert!(decode_frame(&f, &h, h.cksum).is_none());
    }
}
