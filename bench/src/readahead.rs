//! # Suite `readahead`: one statement on slow storage
//!
//! A scan on far-away storage pays one round trip per page in SQLite,
//! one after another. ringlite's async pager keeps several reads in
//! flight for one statement (`src/btree/read_ahead.rs`): this measures a
//! single statement's latency on storage adding `delay` per read, cold
//! (a fresh connection, nothing cached), on both engines:
//! - a full scan of a table of about 1,000 pages
//!   (`SELECT sum(length(pad)) FROM t`);
//! - the same scan stopped by `LIMIT 200` (about 5 pages' worth of rows:
//!   read-ahead must not read the whole table);
//! - a 100-key `IN` lookup by rowid, the keys spread over the table (each
//!   key a descent to a different leaf);
//! - a 3-table join (the table joined to itself twice by computed rowids,
//!   100 outer rows): two dependent lookups per outer row;
//!
//! and the reads each engine issued (SQLite's through the sleeping VFS of
//! [`crate::slowvfs`], ringlite's through `RINGLITE_IO_DELAY`). ringlite
//! runs blocking (its blocking connections wait on the same pager) and
//! async (stepping, polling on `SQLITE_IO`).

use crate::data::{remove_db, Rng};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use ringlite::{OpenFlags, StepResult};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// The suite's statements over `rows` rows: (name, SQL).
fn queries(rows: u64) -> Vec<(&'static str, String)> {
    let keys: Vec<String> = (0..100u64).map(|i| (1 + i * (rows / 100) + 7).min(rows).to_string()).collect();
    vec![
        ("full scan", "SELECT sum(length(pad)) FROM t".into()),
        ("LIMIT 200", "SELECT sum(length(pad)) FROM (SELECT pad FROM t LIMIT 200)".into()),
        ("100-key IN", format!("SELECT sum(length(pad)) FROM t WHERE id IN ({})", keys.join(","))),
        (
            "3-table join",
            format!("SELECT sum(length(c.pad)) FROM t a JOIN t b ON b.id = (a.id * 7919) % {rows} + 1 JOIN t c ON c.id = (b.id * 104729) % {rows} + 1 WHERE a.id BETWEEN 1 AND 100"),
        ),
    ]
}

fn ringlite_query(path: &Path, sql: &str, flags: i32) -> R<(Duration, u64)> {
    let mut db = Ringlite::open_flags(path, flags)?;
    let before = ringlite::io::delay::counts().0;
    let t = Instant::now();
    let mut st = db.prepare(sql)?;
    let mut rows = 0;
    loop {
        match st.step(&mut db.conn).map_err(|e| e.to_string())? {
            StepResult::Row => rows += 1,
            StepResult::Done => break,
            StepResult::Io => {
                db.conn.io_poll(-1).map_err(|e| e.to_string())?;
            }
        }
    }
    let el = t.elapsed();
    st.reset(&mut db.conn);
    if rows != 1 {
        return Err(format!("{rows} rows"));
    }
    Ok((el, ringlite::io::delay::counts().0 - before))
}

fn sqlite_query(path: &Path, sql: &str) -> R<(Duration, u64)> {
    let mut db = Sqlite::open_vfs(path, Some(crate::slowvfs::NAME))?;
    let before = crate::slowvfs::counts().0;
    let t = Instant::now();
    let mut st = db.prepare(sql)?;
    db.drain(&mut st)?;
    let el = t.elapsed();
    db.finalize(st);
    Ok((el, crate::slowvfs::counts().0 - before))
}

/// Run the suite (Markdown).
pub fn run(quick: bool, dir: &Path) -> R<String> {
    let (rows, delay_us) = if quick { (2000u64, 100u64) } else { (40_000, 1000) };
    let path = dir.join("readahead.db");
    remove_db(&path);
    crate::data::build_base(&path, "CREATE TABLE t(id INTEGER PRIMARY KEY, pad TEXT);", |db| {
        let mut rng = Rng::new(17);
        let mut s = db.prepare("INSERT INTO t(pad) VALUES (?1)")?;
        for _ in 0..rows {
            let w = rng.word(80);
            db.bind_text(&mut s, 1, &w)?;
            db.step(&mut s)?;
            db.reset(&mut s);
        }
        db.finalize(s);
        Ok(())
    })?;
    let pages = std::fs::metadata(&path).map_err(|e| e.to_string())?.len() / 4096;
    crate::slowvfs::set_delays(delay_us, delay_us);
    std::env::set_var("RINGLITE_IO_DELAY", format!("{delay_us},{delay_us}"));
    let mut md = String::new();
    let _ = writeln!(md, "### readahead: one cold statement, {pages} pages, +{delay_us} µs per read\n");
    let _ = writeln!(md, "| query | engine | latency | reads | latency vs SQLite |");
    let _ = writeln!(md, "|---|---|---:|---:|---:|");
    for (name, sql) in queries(rows) {
        let sql = sql.as_str();
        let base = sqlite_query(&path, sql);
        let results =
            [("sqlite", base.clone()), ("ringlite blocking", ringlite_query(&path, sql, 0)), ("ringlite async", ringlite_query(&path, sql, OpenFlags::ASYNC))];
        for (engine, r) in results {
            match r {
                Ok((t, reads)) => {
                    let ratio = base.as_ref().map_or("n/a".into(), |(b, _)| format!("{:.2}×", t.as_secs_f64() / b.as_secs_f64().max(1e-9)));
                    let _ = writeln!(md, "| {name} | {engine} | {:.1} ms | {reads} | {ratio} |", t.as_secs_f64() * 1e3);
                }
                Err(e) => {
                    let _ = writeln!(md, "| {name} | {engine} | {e} | | |");
                }
            }
        }
    }
    std::env::remove_var("RINGLITE_IO_DELAY");
    Ok(md)
}
