//! # I/O requests an async statement submitted
//!
//! ringlite's async connections of a thread share one io_uring ring, and
//! the kernel shows each ring's submission-queue tail in
//! `/proc/self/fdinfo/FD` (`SqTail`: requests ever submitted, a wrapping
//! 32-bit count). The difference across a statement is the number of I/O
//! requests (reads, writes, syncs, file operations) it sent to the
//! kernel; the shell has one connection, so no other connection's
//! requests are counted. Reads served without the ring (the header read
//! first tried with `RWF_NOWAIT`) are not requests of the ring and are not
//! counted. No ring (blocking I/O, or io_uring unavailable): `None`.
//!
//! Invariants: only reads `/proc`; a file that cannot be read counts as
//! no ring.

/// The summed `SqTail` of the process's io_uring rings, if it has any.
pub fn submitted() -> Option<u32> {
    let mut total: Option<u32> = None;
    for entry in std::fs::read_dir("/proc/self/fd").ok()?.flatten() {
        let Ok(link) = std::fs::read_link(entry.path()) else { continue };
        if !link.to_string_lossy().contains("io_uring") {
            continue;
        }
        let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", entry.file_name().to_string_lossy())).unwrap_or_default();
        let tail = info.lines().find_map(|l| l.strip_prefix("SqTail:")).and_then(|v| v.trim().parse::<u32>().ok());
        if let Some(t) = tail {
            total = Some(total.unwrap_or(0).wrapping_add(t));
        }
    }
    total
}
