//! One file written in turns by SQLite and by ringlite. Each engine leaves
//! pages laid out its own way (SQLite's updates leave fragments and
//! freeblocks a few bytes apart; ours insert into the gap and drop cells
//! in place), and each must keep the other's layout valid: after every
//! turn the other engine's `PRAGMA integrity_check` answers `ok` and both
//! read the same rows.
#![allow(unsafe_code)]

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A turn's statements: updates to names of random length (the cells grow
/// and shrink by a few bytes), deletes and inserts, in one transaction.
fn turn_sql(rng: &mut Rng, rows: u64) -> String {
    let mut sql = String::from("BEGIN;");
    for _ in 0..60 {
        let id = rng.below(rows) + 1;
        match rng.below(10) {
            0..=5 => sql += &format!("UPDATE t SET name = '{}' WHERE id = {id};", "x".repeat(1 + rng.below(30) as usize)),
            6..=7 => sql += &format!("DELETE FROM t WHERE id = {id};"),
            _ => sql += &format!("INSERT OR REPLACE INTO t(id, name) VALUES ({id}, '{}');", "y".repeat(1 + rng.below(30) as usize)),
        }
    }
    sql + "COMMIT;"
}

fn rows_of(out: Vec<Outcome>) -> Vec<Vec<V>> {
    match out.into_iter().next() {
        Some(Outcome::Rows { rows, .. }) => rows,
        other => panic!("{other:?}"),
    }
}

#[test]
fn pages_stay_valid_for_both_engines_when_they_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turns.db");
    let p = path.to_str().unwrap();
    let rows = 400;
    {
        let r = RefDb::open_path(p);
        let mut sql = String::from("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX t_name ON t(name); BEGIN;");
        for id in 1..=rows {
            sql += &format!("INSERT INTO t VALUES ({id}, '{}');", "n".repeat(1 + (id * 7 % 29) as usize));
        }
        sql += "COMMIT;";
        assert!(run_ref(&r, &sql).iter().all(|o| matches!(o, Outcome::Rows { .. })));
    }
    let ok = vec![vec![V::Text(b"ok".to_vec())]];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..60 {
        let sql = turn_sql(&mut rng, rows);
        let ours_turn = round % 2 == 1;
        if ours_turn {
            let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
            let out = run_ours(&mut c, &sql);
            assert!(out.iter().all(|o| matches!(o, Outcome::Rows { .. })), "round {round}: {out:?}");
        } else {
            let r = RefDb::open_path(p);
            let out = run_ref(&r, &sql);
            assert!(out.iter().all(|o| matches!(o, Outcome::Rows { .. })), "round {round}: {out:?}");
        }
        let r = RefDb::open_path(p);
        let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
        let (ref_check, our_check) = (rows_of(run_ref(&r, "PRAGMA integrity_check")), rows_of(run_ours(&mut c, "PRAGMA integrity_check")));
        assert_eq!(ref_check, ok, "SQLite's check after round {round} ({})", if ours_turn { "ringlite wrote" } else { "SQLite wrote" });
        assert_eq!(our_check, ok, "our check after round {round} ({})", if ours_turn { "ringlite wrote" } else { "SQLite wrote" });
        let q = "SELECT id, name FROM t ORDER BY id";
        assert_eq!(rows_of(run_ref(&r, q)), rows_of(run_ours(&mut c, q)), "round {round}");
    }
}
