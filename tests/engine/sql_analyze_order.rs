//! The order of the `sqlite_stat1` rows a bare ANALYZE writes, against
//! the reference SQLite 3.54.1: SQLite visits tables in the order of its
//! schema hash table (`src/sql/schema_visit_order.rs` models it), which
//! applications see when they read `sqlite_stat1` without ORDER BY.
//! Generated schemas of 1 to 90 tables, with views, several indexes per
//! table (UNIQUE, ON CONFLICT REPLACE, partial), WITHOUT ROWID tables,
//! DROPs, a second ANALYZE, and the file closed and opened again.

use crate::sql_common::*;
use ringlite::{Connection, OpenFlags};

/// A small deterministic generator (no shrinking needed: each seed's
/// script is printed on failure).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Statements for one seed, with "REOPEN" where the file is reopened.
fn script(seed: u64) -> Vec<String> {
    let mut r = Lcg(seed);
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let alphabet = b"abcdXYZ_0123";
    for _ in 0..1 + r.next(90) {
        let len = 1 + r.next(8) as usize;
        let mut name: String = (0..len).map(|_| alphabet[r.next(alphabet.len() as u64) as usize] as char).collect();
        if !name.as_bytes()[0].is_ascii_alphabetic() {
            name.insert(0, 'q');
        }
        if names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            continue;
        }
        names.push(name.clone());
        match r.next(10) {
            0 if names.len() > 1 => out.push(format!("CREATE VIEW \"{name}\" AS SELECT 1")),
            1 => {
                out.push(format!("CREATE TABLE \"{name}\"(x PRIMARY KEY, y, z) WITHOUT ROWID"));
                out.push(format!("INSERT INTO \"{name}\" VALUES(1,2,3),(2,2,3),(3,1,3)"));
            }
            k => {
                let unique = if k == 2 { ", UNIQUE(z) ON CONFLICT REPLACE" } else { "" };
                out.push(format!("CREATE TABLE \"{name}\"(x, y, z{unique})"));
                out.push(format!("INSERT INTO \"{name}\" VALUES(1,2,3),(2,2,4),(3,1,5)"));
            }
        }
        if !out.last().unwrap().starts_with("CREATE VIEW") {
            for i in 0..r.next(4) {
                let kind = match r.next(3) {
                    0 => "UNIQUE ",
                    _ => "",
                };
                let partial = if r.next(4) == 0 { " WHERE x > 1" } else { "" };
                out.push(format!("CREATE {kind}INDEX \"{name}_i{i}\" ON \"{name}\"(x, y){partial}"));
            }
        }
    }
    for name in &names {
        if r.next(6) == 0 {
            out.push(format!("DROP TABLE IF EXISTS \"{name}\""));
            out.push(format!("DROP VIEW IF EXISTS \"{name}\""));
        }
    }
    if r.next(3) == 0 {
        out.push("ANALYZE".into());
    }
    if r.next(2) == 0 {
        out.push("REOPEN".into());
    }
    out.push("ANALYZE".into());
    out
}

fn stat_rows_ours(path: &str, stmts: &[String]) -> Vec<Outcome> {
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
    let mut conn = Connection::open(path, flags).expect("open");
    for s in stmts {
        if s == "REOPEN" {
            conn = Connection::open(path, flags).expect("reopen");
        } else {
            run_ours(&mut conn, s);
        }
    }
    run_ours(&mut conn, "SELECT rowid, * FROM sqlite_stat1")
}

fn stat_rows_ref(path: &str, stmts: &[String]) -> Vec<Outcome> {
    let mut db = RefDb::open_path(path);
    for s in stmts {
        if s == "REOPEN" {
            db = RefDb::open_path(path);
        } else {
            run_ref(&db, s);
        }
    }
    run_ref(&db, "SELECT rowid, * FROM sqlite_stat1")
}

/// Seeds whose order differs from the reference of these tests only.
/// libsqlite3-sys builds its SQLite with `SQLITE_ENABLE_STAT4`, so its
/// ANALYZE also creates `sqlite_stat4`: one more schema entry, which moves
/// the tables of seed 28 into other hash buckets. Debian's SQLite (and
/// `build/ref`, built with its options) has no STAT4 and gives exactly
/// our order for seed 28; the same 3.54.1 amalgamation built with
/// `-DSQLITE_ENABLE_STAT4` gives this reference's order (both checked
/// through Python).
const KNOWN_DIFFERENT: &[u64] = &[28];

#[test]
fn stat1_rows_come_in_sqlites_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut differ = Vec::new();
    for seed in 0..120u64 {
        let stmts = script(seed);
        let ours = stat_rows_ours(dir.path().join(format!("ours{seed}.db")).to_str().unwrap(), &stmts);
        let reference = stat_rows_ref(dir.path().join(format!("ref{seed}.db")).to_str().unwrap(), &stmts);
        if ours != reference {
            differ.push(seed);
        }
    }
    // Seed 28 differs only because this reference has STAT4 (see above).
    assert_eq!(differ, KNOWN_DIFFERENT, "seeds whose order differs from SQLite's");
}

#[test]
fn small_schema_in_memory_newest_first() {
    check(
        "CREATE TABLE b(x); CREATE INDEX b1 ON b(x); CREATE TABLE a(x, y); CREATE INDEX a1 ON a(x); CREATE INDEX a2 ON a(y, x);
         CREATE TABLE c(p INTEGER PRIMARY KEY, q UNIQUE);
         INSERT INTO a VALUES(1,2),(1,3); INSERT INTO b VALUES(1),(2); INSERT INTO c VALUES(1,2),(5,3);
         ANALYZE; SELECT rowid, * FROM sqlite_stat1",
    );
}

/// The same scripts on TEMP tables (`ANALYZE temp`): the TEMP schema's
/// order starts from `sqlite_temp_master` and follows its DROPs.
#[test]
fn temp_stat1_rows_come_in_sqlites_order() {
    let mut differ = Vec::new();
    for seed in 0..120u64 {
        let stmts: Vec<String> =
            script(seed)
                .into_iter()
                .filter(|s| s != "REOPEN")
                .map(|s| {
                    if s == "ANALYZE" {
                        "ANALYZE temp".into()
                    } else {
                        s.replace("CREATE TABLE", "CREATE TEMP TABLE").replace("CREATE VIEW", "CREATE TEMP VIEW")
                    }
                })
                .collect();
        let mut conn = Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open");
        let db = RefDb::open();
        let mut ours = Vec::new();
        let mut reference = Vec::new();
        for s in &stmts {
            ours.extend(run_ours(&mut conn, s));
            reference.extend(run_ref(&db, s));
        }
        ours.extend(run_ours(&mut conn, "SELECT rowid, * FROM temp.sqlite_stat1"));
        reference.extend(run_ref(&db, "SELECT rowid, * FROM temp.sqlite_stat1"));
        if ours != reference {
            differ.push(seed);
        }
    }
    assert_eq!(differ, Vec::<u64>::new(), "seeds whose TEMP order differs from SQLite's");
}
