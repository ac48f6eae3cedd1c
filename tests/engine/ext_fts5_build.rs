//! FTS5 index building over many rows (`src/ext/fts5/pending.rs`,
//! `index.rs`, `segread.rs`): the pending changes are flushed when
//! SQLite's estimate of its hash passes 'hashsize' (the same rows start
//! a new segment on both libraries: with 'automerge' 0 the segments and
//! crisis merges are the reference's byte for byte), merges stream, the
//! default automatic merges leave an index both libraries read and
//! check, savepoints rolled back across flushes undo exactly their
//! rows, and the pending changes and averages reach `%_data` at the
//! reference's statements. Also `ORDER BY bm25(t) LIMIT n` with highlight()/snippet()
//! (`src/sql/codegen/query/top_n.rs`) returns the reference's rows in
//! its order, ties included.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

fn open_ours(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open")
}

/// Reals to 12 significant digits (bm25 sums may differ in the last bit).
fn approx(o: Vec<Outcome>) -> Vec<Outcome> {
    o.into_iter()
        .map(|x| match x {
            Outcome::Rows { names, rows } => Outcome::Rows {
                names,
                rows: rows
                    .into_iter()
                    .map(|r| r.into_iter().map(|v| if let V::Real(b) = v { V::Text(format!("{:.12e}", f64::from_bits(b)).into_bytes()) } else { v }).collect())
                    .collect(),
            },
            e => e,
        })
        .collect()
}

fn ok() -> Option<Outcome> {
    Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] })
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }

    /// `n` words from a skewed vocabulary of 400.
    fn doc(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                let top = 1 + self.below(400);
                format!("w{}", self.below(top))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `rows` inserts in one transaction, rowids rising (with a few gaps).
fn bulk(seed: u64, rows: usize) -> Vec<String> {
    let mut g = Rng(seed);
    let mut out = vec!["BEGIN".to_string()];
    let mut rowid = 0;
    for _ in 0..rows {
        rowid += [1, 1, 1, 3, 1000][g.below(5) as usize];
        let (na, nb) = (1 + g.below(6) as usize, g.below(40) as usize);
        let (a, b) = (g.doc(na), g.doc(nb));
        out.push(format!("INSERT INTO t(rowid, a, b) VALUES({rowid}, '{a}', '{b}')"));
    }
    out.push("COMMIT".into());
    out
}

const INDEX: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term";

const QUERIES: &[&str] = &[
    "SELECT count(*) FROM t",
    "SELECT rowid FROM t WHERE t MATCH 'w1' ORDER BY rowid",
    "SELECT rowid FROM t WHERE t MATCH 'w7 AND w3' ORDER BY rowid",
    "SELECT rowid FROM t WHERE t MATCH 'w19*' ORDER BY rowid",
    "SELECT rowid, bm25(t) FROM t WHERE t MATCH 'w2 OR w150' ORDER BY rank, rowid LIMIT 20",
    "SELECT term, doc, cnt FROM v WHERE term IN ('w0', 'w5', 'w333')",
];

#[test]
fn flushes_and_crisis_merges_are_the_references_byte_for_byte() {
    for (decl, hashsize, crisis) in [
        ("a, b", 20_000, 4),
        ("a, b, prefix='1 2'", 50_000, 3),
        ("a, b, detail=column", 8_000, 5),
        ("a, b, detail=none", 4_000, 4),
        ("a, b, columnsize=0", 1, 16),
    ] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let mut steps = vec![
            format!("CREATE VIRTUAL TABLE t USING fts5({decl})"),
            "INSERT INTO t(t, rank) VALUES('automerge', 0)".into(),
            format!("INSERT INTO t(t, rank) VALUES('hashsize', {hashsize})"),
            format!("INSERT INTO t(t, rank) VALUES('crisismerge', {crisis})"),
            "INSERT INTO t(t, rank) VALUES('pgsz', 400)".into(),
        ];
        steps.extend(bulk(hashsize as u64, if hashsize == 1 { 60 } else { 600 }));
        // A transaction of updates and deletes (rowids going down too).
        steps.extend([
            "BEGIN".into(),
            "DELETE FROM t WHERE rowid % 7 = 0".into(),
            "UPDATE t SET a = 'w1 w2 ' || a WHERE rowid % 5 = 1".into(),
            "COMMIT".into(),
        ]);
        for s in &steps {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
        }
        assert_eq!(run_ours(&mut c, INDEX), run_ref(&r, INDEX), "{decl}");
        let check = "INSERT INTO t(t) VALUES('integrity-check')";
        assert_eq!(run_ours(&mut c, check), run_ref(&r, check), "{decl}");
    }
}

#[test]
fn automatic_merges_give_files_both_libraries_read() {
    for decl in ["a, b", "a, b, detail=none", "a, b, prefix=2, content=''"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.db");
        let path = path.to_str().unwrap();
        let mut c = open_ours(path);
        let r = RefDb::open();
        let mut steps = vec![
            format!("CREATE VIRTUAL TABLE t USING fts5({decl})"),
            "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')".into(),
            "INSERT INTO t(t, rank) VALUES('hashsize', 30000)".into(),
            "INSERT INTO t(t, rank) VALUES('pgsz', 300)".into(),
        ];
        steps.extend(bulk(5, 1500));
        for s in &steps {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
        }
        let stats = "SELECT count(*) FROM t_data";
        assert!(matches!(&run_ours(&mut c, stats)[0], Outcome::Rows { rows, .. } if rows[0][0] != V::Int(2)));
        // (fts5vocab over detail=none is not built yet.)
        let queries: Vec<&str> = QUERIES.iter().copied().filter(|q| !(decl.contains("detail=none") && q.contains(" v "))).collect();
        for q in &queries {
            assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{decl}: {q}");
        }
        drop(c);
        let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
        // The reference checks ours' file, reads it, writes on.
        let f = RefDb::open_path(path);
        assert_eq!(run_ref(&f, check).pop(), ok(), "{decl}");
        for q in &queries {
            assert_eq!(approx(run_ref(&f, q)), approx(run_ref(&r, q)), "{decl}: {q}");
        }
        for s in bulk(6, 700).iter().map(|s| s.replace("VALUES(", "VALUES(100000 + ")) {
            run_ref(&f, &s);
            run_ref(&r, &s);
        }
        drop(f);
        // Ours reads and checks the result, merges everything.
        let mut c = open_ours(path);
        assert_eq!(run_ours(&mut c, check).pop(), ok(), "{decl}");
        for q in &queries {
            assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{decl}: {q}");
        }
        for s in ["INSERT INTO t(t, rank) VALUES('merge', 4)", "INSERT INTO t(t) VALUES('optimize')"] {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
            assert_eq!(run_ours(&mut c, check).pop(), ok(), "{decl}: {s}");
        }
        for q in &queries {
            assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{decl}: {q}");
        }
    }
}

#[test]
fn savepoints_rolled_back_across_flushes() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let mut steps = vec![
        "CREATE VIRTUAL TABLE t USING fts5(a, b)".to_string(),
        "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')".into(),
        "INSERT INTO t(t, rank) VALUES('hashsize', 5000)".into(),
    ];
    let rows = bulk(9, 400);
    steps.push("BEGIN".into());
    steps.extend(rows[1..100].iter().cloned());
    steps.push("SAVEPOINT a".into());
    steps.extend(rows[100..250].iter().cloned());
    steps.push("SAVEPOINT b".into());
    steps.extend(rows[250..300].iter().cloned());
    steps.push("ROLLBACK TO b".into());
    steps.push("SELECT count(*) FROM t WHERE t MATCH 'w1'".into());
    steps.push("ROLLBACK TO a".into());
    steps.extend(rows[300..401].iter().cloned());
    steps.push("RELEASE a".into());
    steps.push("COMMIT".into());
    for s in &steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    for q in QUERIES {
        assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{q}");
    }
    let check = "INSERT INTO t(t) VALUES('integrity-check')";
    assert_eq!(run_ours(&mut c, check), run_ref(&r, check));
}

/// When the pending changes and the averages record reach `%_data`: at
/// commit and at each savepoint, which SAVEPOINT and a statement that
/// may write several rows (of any fts5 table in the transaction) open,
/// but not one that writes one row by rowid; a failed statement keeps
/// what was pending before it. `%_data` rows 1 and 10 are compared with
/// the reference's after every step.
#[test]
fn pending_written_at_savepoints_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let show = "SELECT id, hex(block) FROM t_data WHERE id IN (1, 10)";
    let mut steps = vec![
        "CREATE VIRTUAL TABLE t USING fts5(a)",
        "CREATE VIRTUAL TABLE t2 USING fts5(a)",
        "INSERT INTO t(rowid, a) VALUES(100, 'a'), (101, 'b'), (102, 'c c'), (103, 'd'), (104, 'e'), (105, 'f')",
    ];
    for s in [
        "DELETE FROM t WHERE rowid = 100",
        "DELETE FROM t WHERE rowid > 104",
        "DELETE FROM t WHERE t MATCH 'c'",
        "UPDATE t SET a = 'zz' WHERE rowid = 101",
        "UPDATE t SET a = 'zz' WHERE rowid >= 103",
        "INSERT INTO t(rowid, a) VALUES(50, 'q')",
        "INSERT INTO t(rowid, a) VALUES(60, 'q'), (61, 'r')",
        "INSERT INTO t2 SELECT 'x'",
        "UPDATE t2 SET a = 'b' WHERE rowid = 5",
        "SAVEPOINT a",
        "UPDATE t SET rowid = 105 WHERE rowid >= 1",
    ] {
        steps.extend(["BEGIN", "INSERT INTO t(rowid, a) VALUES(1, 'pending')", show, s, show, "ROLLBACK"]);
    }
    steps.extend([
        "BEGIN",
        "INSERT INTO t(rowid, a) VALUES(2, 'kept')",
        "UPDATE t SET rowid = 101 WHERE rowid >= 1",
        show,
        "SAVEPOINT s",
        "INSERT INTO t(rowid, a) VALUES(7, 'gone')",
        show,
        "ROLLBACK TO s",
        "RELEASE s",
        show,
        "COMMIT",
        show,
        "SELECT rowid FROM t WHERE t MATCH 'kept OR gone'",
        "INSERT INTO t(t) VALUES('integrity-check')",
    ]);
    for s in &steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
}

#[test]
fn top_n_by_bm25_computes_the_references_rows() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let mut steps = vec!["CREATE VIRTUAL TABLE t USING fts5(a, b)".to_string()];
    steps.extend(bulk(11, 800));
    // Rows that tie on bm25 (the same text).
    for i in 0..30 {
        steps.push(format!("INSERT INTO t(rowid, a, b) VALUES({}, 'w1 w2', 'w3 w1')", 50_000 + i));
    }
    steps.push("CREATE TABLE calls(n)".into());
    for s in &steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    for m in ["w1", "w2 OR w3", "w1 w3", "w5*", "nothing"] {
        for (order, limit) in [("bm25(t)", 10), ("bm25(t) DESC", 7), ("bm25(t), rowid DESC", 12), ("rank", 10), ("bm25(t)", -1), ("bm25(t)", 0), ("bm25(t)", 1)]
        {
            for cols in
                ["rowid, bm25(t), highlight(t, 0, '[', ']'), snippet(t, 1, '[', ']', '...', 4)", "rowid, (SELECT count(*) FROM calls) + length(a)", "rowid, a"]
            {
                let q = format!("SELECT {cols} FROM t WHERE t MATCH '{m}' ORDER BY {order} LIMIT {limit}");
                assert_eq!(approx(run_ours(&mut c, &q)), approx(run_ref(&r, &q)), "{q}");
            }
        }
        for q in [
            format!("SELECT rowid, upper(a) FROM t WHERE t MATCH '{m}' ORDER BY length(b), rowid % 3 LIMIT 15"),
            format!("SELECT rowid, lower(b) FROM t WHERE t MATCH '{m}' ORDER BY a COLLATE nocase DESC NULLS FIRST LIMIT 9"),
            format!("SELECT upper(a) AS u, rowid FROM t WHERE t MATCH '{m}' ORDER BY u LIMIT 5"),
            format!("SELECT rowid, upper(a) FROM t WHERE t MATCH '{m}' ORDER BY bm25(t) LIMIT 5 OFFSET 3"),
            format!("SELECT DISTINCT upper(a) FROM t WHERE t MATCH '{m}' ORDER BY 1 LIMIT 5"),
        ] {
            assert_eq!(approx(run_ours(&mut c, &q)), approx(run_ref(&r, &q)), "{q}");
        }
    }
}

/// One-row INSERTs, which go to xUpdate straight from registers without a
/// statement journal, and the per-row shadow statements each table keeps
/// (`src/ext/fts5/stmts.rs`): rowid conflicts found by the `%_content`
/// insert (nothing written), wrong value counts, errors inside a
/// transaction that goes on, a table dropped and made again under its
/// name, renamed, and an R*Tree's one-row inserts, all as the reference.
#[test]
fn one_row_inserts_and_kept_statements() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let steps = [
        "CREATE VIRTUAL TABLE t USING fts5(a, b)",
        "INSERT INTO t VALUES('one two', 'three')",
        "INSERT INTO t(rowid, a, b) VALUES(5, 'five', upper('six'))",
        "INSERT INTO t(rowid, a, b) VALUES(5, 'again', 'no')",
        "INSERT INTO t(rowid, a) VALUES(1, 'clash')",
        "INSERT INTO t VALUES('too few')",
        "INSERT INTO t(a, b) VALUES(1, 2, 3)",
        "INSERT INTO t(a, nosuch) VALUES(1, 2)",
        "INSERT INTO t VALUES(nosuch, 2)",
        "BEGIN",
        "INSERT INTO t(rowid, a, b) VALUES(7, 'seven', 'x')",
        "INSERT INTO t(rowid, a, b) VALUES(7, 'dup', 'x')",
        "INSERT OR IGNORE INTO t(rowid, a, b) VALUES(7, 'ignored', 'x')",
        "INSERT OR REPLACE INTO t(rowid, a, b) VALUES(5, 'replaced five', 'y')",
        "INSERT INTO t VALUES('eight', (SELECT count(*) FROM t))",
        "SELECT rowid, a, b FROM t ORDER BY rowid",
        "COMMIT",
        "SELECT rowid, a, b FROM t WHERE t MATCH 'five OR seven OR eight' ORDER BY rowid",
        "INSERT INTO t(t) VALUES('integrity-check')",
        "DROP TABLE t",
        "CREATE VIRTUAL TABLE t USING fts5(a, b, c)",
        "INSERT INTO t VALUES('x', 'y', 'z')",
        "INSERT INTO t(rowid, a) VALUES(1, 'clash')",
        "ALTER TABLE t RENAME TO u",
        "INSERT INTO u VALUES('p', 'q', 'r')",
        "INSERT INTO u(rowid, a) VALUES(2, 'clash')",
        "SELECT rowid, * FROM u ORDER BY rowid",
        "SELECT * FROM u_content ORDER BY id",
        "INSERT INTO u(u) VALUES('integrity-check')",
        "CREATE VIRTUAL TABLE g USING rtree(id, x0, x1)",
        "INSERT INTO g VALUES(1, 1, 2)",
        "INSERT INTO g VALUES(1, 3, 4)",
        "INSERT INTO g VALUES(2, 5, 4)",
        "BEGIN",
        "INSERT INTO g VALUES(3, 1.5, 2.5)",
        "INSERT INTO g VALUES(3, 0, 0)",
        "INSERT INTO g(x0, x1) VALUES(7, 8)",
        "COMMIT",
        "SELECT * FROM g ORDER BY id",
        "SELECT rtreecheck('g')",
    ];
    for s in steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
}
