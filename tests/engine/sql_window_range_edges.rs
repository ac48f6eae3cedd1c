//! RANGE window frames at the edges SQLite's own arithmetic decides:
//! integer ORDER BY values beyond 2^53 with real offsets (the moved value
//! rounds to a double), bounds that widen or narrow the frame, ASC and
//! DESC, text values under a collation; each compared with the reference.

use crate::sql_common::check_each;

const BIG: &str = "create table t1(a INTEGER);
insert into t1 values (3578824042033200656), (3029012920382354029);
create table t2(a INTEGER); insert into t2 values (45), (30);
create table t3(a); insert into t3 values (3578824042033200657), (3578824042033200600), (3578824042033200656),
  (9007199254740993), (9007199254740992), (null), (1.5), ('x'), ('X'), (2);";

#[test]
fn range_offsets_over_huge_integers_round_as_in_sqlite() {
    let specs = [
        "ORDER BY a RANGE BETWEEN 0.3 PRECEDING AND 10 FOLLOWING",
        "ORDER BY a RANGE BETWEEN 0.3 PRECEDING AND 0.1 PRECEDING",
        "ORDER BY a RANGE BETWEEN 0.3 FOLLOWING AND 10 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN 0.3 PRECEDING AND 10 FOLLOWING",
        "ORDER BY a NULLS LAST RANGE BETWEEN 0.3 PRECEDING AND 10 FOLLOWING",
        "ORDER BY a RANGE BETWEEN 1.0 PRECEDING AND 2.0 PRECEDING",
        "ORDER BY a DESC RANGE BETWEEN 1.0 PRECEDING AND 2.0 PRECEDING",
        "ORDER BY a DESC RANGE BETWEEN 0.3 FOLLOWING AND 10 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN 2 FOLLOWING AND 1 FOLLOWING",
        "ORDER BY a RANGE BETWEEN 2 FOLLOWING AND 1 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN 0.5 PRECEDING AND 0.5 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN 0 PRECEDING AND 0 FOLLOWING",
        "ORDER BY a DESC NULLS FIRST RANGE BETWEEN 10 PRECEDING AND 0.1 PRECEDING",
        "ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
        "ORDER BY a DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
        "ORDER BY a RANGE BETWEEN 60 PRECEDING AND 0.5 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN 60 PRECEDING AND 0.5 FOLLOWING",
        "ORDER BY a RANGE BETWEEN CURRENT ROW AND 56 FOLLOWING",
        "ORDER BY a DESC RANGE BETWEEN CURRENT ROW AND 56.0 FOLLOWING",
        "ORDER BY a RANGE BETWEEN 15 PRECEDING AND 0.1 PRECEDING",
        "ORDER BY a DESC RANGE BETWEEN 0.1 FOLLOWING AND 15 FOLLOWING",
        "ORDER BY a RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW",
    ];
    let mut queries = Vec::new();
    for spec in specs {
        for t in ["t1", "t2", "t3"] {
            queries.push(format!("SELECT a, total(a) OVER ({spec}), count(*) OVER ({spec}) FROM {t} ORDER BY a, 2"));
        }
        queries.push(format!("SELECT a, group_concat(a, ',') OVER ({spec} ) FROM t3 ORDER BY a COLLATE nocase, 2"));
    }
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    check_each(BIG, &queries);
}

#[test]
fn range_offsets_over_text_frame_peers_under_the_collation() {
    check_each(
        "create table t(a integer primary key, b text collate nocase);
         insert into t values (1,'one'),(2,'Two'),(3,'two'),(4,'ONE'),(5,'five'),(6,7),(7,null);",
        &[
            "SELECT a, group_concat(a, ',') OVER (ORDER BY b, a RANGE BETWEEN 1 PRECEDING AND 2 PRECEDING) FROM t ORDER BY a",
            "SELECT a, group_concat(a, ',') OVER (ORDER BY b RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t ORDER BY a",
            "SELECT a, count(*) OVER (ORDER BY b DESC RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY a",
            "SELECT a, count(*) OVER (ORDER BY b RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING) FROM t ORDER BY a",
            "SELECT a, count(*) OVER (ORDER BY b COLLATE binary RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY a",
        ],
    );
}

#[test]
fn generated_range_frames_near_the_double_precision_edge() {
    // Values a few units apart around 2^53 and 2^62 (where doubles are
    // 1 and 1024 apart), reals between them, offsets integer and real,
    // text offsets, in partitions; every bound kind, ASC and DESC.
    let mut setup = String::from("create table g(p, a);");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..40 {
        let base: i64 = if i % 2 == 0 { 1 << 53 } else { 1 << 62 };
        let v = base + (next() % 2048) as i64 - 1024;
        setup.push_str(&format!("insert into g values ({}, {v});", next() % 3));
    }
    setup.push_str("insert into g values (0, 9007199254740992.5e0), (1, 4.611686018427388e18), (2, null);");
    let offsets = ["0", "0.1", "0.5", "1", "1.5", "'2.0'", "600.0", "1024", "2000.25"];
    let mut queries = Vec::new();
    for (i, lo) in offsets.iter().enumerate() {
        let hi = offsets[(i * 5 + 3) % offsets.len()];
        for dir in ["", " DESC"] {
            for (s, e) in [("PRECEDING", "FOLLOWING"), ("PRECEDING", "PRECEDING"), ("FOLLOWING", "FOLLOWING")] {
                queries.push(format!(
                    "SELECT p, a, count(*) OVER w, total(a) OVER w FROM g WINDOW w AS (PARTITION BY p ORDER BY a{dir} RANGE BETWEEN {lo} {s} AND {hi} {e}) ORDER BY p, a"
                ));
            }
            // (With an UNBOUNDED start, a real offset and integers beyond
            // 2^53, which later rows SQLite's PRECEDING end takes in is
            // an artifact of its cursor at the end of the rows read so
            // far: integer offsets only; see the README.)
            if !lo.contains('.') {
                queries.push(format!("SELECT a, count(*) OVER (ORDER BY a{dir} RANGE BETWEEN UNBOUNDED PRECEDING AND {lo} PRECEDING) FROM g ORDER BY a"));
            }
            queries.push(format!("SELECT a, count(*) OVER (ORDER BY a{dir} RANGE BETWEEN {lo} FOLLOWING AND UNBOUNDED FOLLOWING) FROM g ORDER BY a"));
        }
    }
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    check_each(&setup, &queries);
}
