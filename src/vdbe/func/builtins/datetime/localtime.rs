//! Local time for the `localtime` and `utc` modifiers.
//!
//! SQLite asks the C library (`localtime_r`); this engine is safe Rust, so
//! it reads the same source the C library reads: the TZif file named by
//! `TZ` (`:Area/City`, `Area/City`, or an absolute path) or
//! `/etc/localtime`, with `UTC`/`GMT`/unset-without-file meaning UTC.
//! Only the 32-bit (version 1) data is used: SQLite itself maps dates
//! outside 1970..2037 into that range before asking. A `TZ` holding a
//! POSIX rule string without a zone file is reported as unsupported.

use std::sync::OnceLock;

/// Offsets of one time zone: transition times (Unix seconds) with the
/// UTC offset in effect from each, and the offset before the first.
#[derive(Debug, Default)]
struct Zone {
    transitions: Vec<(i64, i32)>,
    initial: i32,
}

fn be32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn parse_tzif(b: &[u8]) -> Option<Zone> {
    if b.get(0..4)? != b"TZif" {
        return None;
    }
    let isutcnt = be32(b, 20)? as usize;
    let isstdcnt = be32(b, 24)? as usize;
    let _leapcnt = be32(b, 28)? as usize;
    let timecnt = be32(b, 32)? as usize;
    let typecnt = be32(b, 36)? as usize;
    let _ = (isutcnt, isstdcnt);
    let times = 44;
    let idx = times + 4 * timecnt;
    let types = idx + timecnt;
    if typecnt == 0 {
        return None;
    }
    let offset_of = |t: usize| -> Option<(i32, bool)> {
        let at = types + 6 * t;
        Some((be32(b, at)?, *b.get(at + 4)? != 0))
    };
    // Before the first transition: the first standard-time type.
    let initial = (0..typecnt).filter_map(offset_of).find(|&(_, dst)| !dst).or(offset_of(0)).map(|o| o.0)?;
    let mut zone = Zone { transitions: Vec::with_capacity(timecnt), initial };
    for k in 0..timecnt {
        let t = be32(b, times + 4 * k)? as i64;
        let ty = *b.get(idx + k)? as usize;
        if ty >= typecnt {
            return None;
        }
        zone.transitions.push((t, offset_of(ty)?.0));
    }
    Some(zone)
}

fn load_zone() -> Result<Zone, ()> {
    let tz = std::env::var("TZ").ok();
    let path = match tz.as_deref() {
        None => "/etc/localtime".to_string(),
        Some("") | Some("UTC") | Some("UTC0") | Some("GMT") | Some("GMT0") | Some(":UTC") => return Ok(Zone::default()),
        Some(name) => {
            let name = name.strip_prefix(':').unwrap_or(name);
            if name.starts_with('/') {
                name.to_string()
            } else {
                format!("/usr/share/zoneinfo/{name}")
            }
        }
    };
    match std::fs::read(&path) {
        Ok(bytes) => parse_tzif(&bytes).ok_or(()),
        Err(_) if tz.is_none() => Ok(Zone::default()),
        Err(_) => Err(()),
    }
}

fn zone() -> Result<&'static Zone, ()> {
    static ZONE: OnceLock<Result<Zone, ()>> = OnceLock::new();
    ZONE.get_or_init(load_zone).as_ref().map_err(|_| ())
}

/// The local time zone's offset from UTC, in seconds, at Unix time `t`.
/// `Err` when the local zone cannot be determined.
pub fn utc_offset(t: i64) -> Result<i64, ()> {
    let z = zone()?;
    let k = z.transitions.partition_point(|&(when, _)| when <= t);
    Ok(if k == 0 { z.initial } else { z.transitions[k - 1].1 } as i64)
}
