//! FTS5 `detail=column` and `detail=none` (`src/ext/fts5/codec.rs`,
//! `segwrite.rs`, `segread.rs`, `query.rs`): the same statements on ours
//! and the reference SQLite give the same answers and errors (queries an
//! index without positions refuses, bm25, highlight, every table kind),
//! the segments are the reference's byte for byte, and files go both
//! ways with the other side's integrity check passing after merges.

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

const DOCS: &[(&str, &str)] = &[
    ("the quick brown fox", "jumps over the lazy dog"),
    ("hello hello world", "x hello"),
    ("one two three", "three two one"),
    ("Ünïcode café naïve", "résumé and CAFÉ"),
    ("fox fox fox", "dog"),
    ("prefix predicate prelude", "post"),
    ("", "world"),
];

const QUERIES: &[&str] = &[
    "fox",
    "hello",
    "hello OR x",
    "pre*",
    "p*",
    "fox AND dog",
    "fox NOT lazy",
    "one OR two NOT three",
    "(fox OR dog) AND (lazy OR three)",
    "NEAR(hello)",
    "NEAR(hello, 0)",
    "hello \".\"",
    "\".\" OR world",
    "\".\"",
    "cafe",
    "a : fox",
    "b : hello",
    "{a b} : three",
    "- a : world",
    "a : x NOT b : dog",
    "\"quick brown\"",
    "quick + brown",
    "^hello",
    "NEAR(hello world)",
    "NEAR(\"a b\" c)",
    "NEAR(c \".\" \".\")",
    "\"a b\" AND",
    "a:\"x y\"",
    "a:x NEAR(x y)",
    "NEAR(x y) a:x",
    "zz:x",
    "x AND",
];

/// Rows of `decl` filled the same way on both sides.
fn fill(c: &mut Connection, r: &RefDb, decl: &str) {
    let mut steps = vec!["CREATE TABLE src(a, b)".to_string(), format!("CREATE VIRTUAL TABLE t USING fts5({decl})")];
    for (i, (a, b)) in DOCS.iter().enumerate() {
        steps.push(format!("INSERT INTO src(rowid, a, b) VALUES({}, '{a}', '{b}')", i + 1));
        steps.push(format!("INSERT INTO t(rowid, a, b) VALUES({}, '{a}', '{b}')", i + 1));
    }
    for s in &steps {
        assert_eq!(run_ours(c, s), run_ref(r, s), "{s}");
    }
}

#[test]
fn queries_answer_and_refuse_as_sqlite() {
    let mut n = 0;
    for detail in ["column", "none"] {
        for kind in ["", ", content=src", ", content=''", ", columnsize=0", ", content='', columnsize=0"] {
            let mut c = crate::sql_common::ours_open();
            let r = RefDb::open();
            let decl = format!("a, b, detail={detail}{kind}");
            fill(&mut c, &r, &decl);
            for q in QUERIES {
                let q = q.replace('\'', "''");
                for sql in [
                    format!("SELECT rowid, a, b FROM t WHERE t MATCH '{q}'"),
                    format!("SELECT rowid, rank FROM t WHERE t MATCH '{q}' ORDER BY rank, rowid"),
                    format!("SELECT rowid, bm25(t), bm25(t, 2.0, 0.5) FROM t('{q}') ORDER BY rowid"),
                    format!("SELECT rowid, highlight(t, 0, '[', ']'), highlight(t, 1, '<', '>') FROM t WHERE t MATCH '{q}'"),
                    format!("SELECT rowid FROM t WHERE b MATCH '{q}'"),
                    format!("SELECT rowid FROM t WHERE t MATCH 'x' AND t MATCH '{q}'"),
                    format!("SELECT rowid FROM t WHERE t MATCH '{q}' AND t MATCH 'a:x'"),
                ] {
                    assert_eq!(approx(run_ours(&mut c, &sql)), approx(run_ref(&r, &sql)), "{decl}: {sql}");
                    n += 1;
                }
            }
            for sql in ["INSERT INTO t(t) VALUES('integrity-check')", "INSERT INTO t(t, rank) VALUES('integrity-check', 1)", "PRAGMA integrity_check"] {
                assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{decl}: {sql}");
            }
            let data = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term";
            assert_eq!(run_ours(&mut c, data), run_ref(&r, data), "{decl}");
        }
    }
    assert!(n > 2000, "{n}");
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn doc(&mut self, words: usize) -> String {
        let vocab = ["alpha", "beta", "gamma", "delta", "x", "y", "Zeta", "é", "prefixed", "prefixes", "prelude", "common", "common"];
        (0..words)
            .map(|_| if self.below(4) == 0 { format!("w{}", self.below(300)) } else { vocab[self.below(vocab.len() as u64) as usize].to_string() })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Random transactions of inserts (rowids mostly rising, some of them
/// 2^33 apart so that varints end in a zero byte), updates and deletes.
fn script(seed: u64, txns: usize) -> Vec<String> {
    let mut g = Rng(seed);
    let mut out = Vec::new();
    let mut rowid = 0i64;
    for _ in 0..txns {
        out.push("BEGIN".into());
        for _ in 0..1 + g.below(12) {
            let sql = match g.below(10) {
                0 => format!("DELETE FROM t WHERE rowid = {}", g.below(rowid as u64 + 1)),
                1 => format!("UPDATE t SET b = '{}' WHERE rowid = {}", g.doc(3), g.below(rowid as u64 + 1)),
                2 => format!("INSERT OR IGNORE INTO t(rowid, a, b) VALUES({}, '{}', NULL)", g.below(rowid as u64 + 1), g.doc(2)),
                _ => {
                    rowid += [1, 1, 2, 7, 300, 1 << 33][g.below(6) as usize];
                    let n = [0, 1, 5, 40, 400][g.below(5) as usize];
                    let (a, m) = (g.doc(n), g.below(4) as usize);
                    format!("INSERT INTO t(rowid, a, b) VALUES({rowid}, '{a}', '{}')", g.doc(m))
                }
            };
            out.push(sql);
        }
        out.push("COMMIT".into());
    }
    out
}

const INDEX: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term;\
    SELECT id, hex(sz) FROM t_docsize ORDER BY id";

/// The segment 'optimize' wrote, without its id (ids depend on merges).
const OPTIMIZED: &str = "SELECT hex(block) FROM t_data WHERE id > 10 ORDER BY id; SELECT hex(term), pgno FROM t_idx ORDER BY segid, term;\
    SELECT id, hex(block) FROM t_data WHERE id = 1";

#[test]
fn segments_are_the_references_byte_for_byte() {
    for (seed, decl, pgsz) in [
        (1, "a, b, detail=column", 64),
        (2, "a, b UNINDEXED, prefix='1 3', detail=column", 100),
        (3, "a, b, detail=column", 0),
        (1, "a, b, detail=none", 64),
        (2, "a, b UNINDEXED, prefix='1 3', detail=none", 100),
        (3, "a, b, detail=none", 0),
        (8, "a, b, detail=none", 0),
    ] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let mut steps = vec![format!("CREATE VIRTUAL TABLE t USING fts5({decl})")];
        if pgsz > 0 {
            steps.push(format!("INSERT INTO t(t, rank) VALUES('pgsz', {pgsz})"));
        }
        steps.extend(script(seed, 40));
        for s in &steps {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
        }
        for s in ["INSERT INTO t(t) VALUES('integrity-check')", "INSERT INTO t(t) VALUES('optimize')"] {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{decl}: {s}");
        }
        assert_eq!(run_ours(&mut c, OPTIMIZED), run_ref(&r, OPTIMIZED), "optimize {decl} {pgsz}");
        let s = "INSERT INTO t(t) VALUES('rebuild')";
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s));
        assert_eq!(run_ours(&mut c, INDEX), run_ref(&r, INDEX), "rebuild {decl} {pgsz}");
        for s in
            ["DELETE FROM t WHERE rowid % 3 = 0", "UPDATE t SET a = 'changed ' || a WHERE rowid % 5 = 1", "INSERT INTO t(a, b) VALUES('row common', 'x y')"]
        {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
            assert_eq!(run_ours(&mut c, INDEX), run_ref(&r, INDEX), "{s} {decl} {pgsz}");
        }
    }
}

#[test]
fn files_go_both_ways() {
    for detail in ["column", "none"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        let path = path.to_str().unwrap();
        let mut c = open_ours(path);
        let r = RefDb::open();
        let mut steps =
            vec![format!("CREATE VIRTUAL TABLE t USING fts5(a, b, prefix=2, detail={detail})"), "INSERT INTO t(t, rank) VALUES('pgsz', 200)".into()];
        steps.extend(script(7, 50));
        for s in &steps {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
        }
        let queries = [
            "SELECT count(*) FROM t",
            "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
            "SELECT rowid FROM t WHERE t MATCH 'pre*' ORDER BY rowid",
            "SELECT rowid FROM t WHERE t MATCH 'alpha AND w1*' ORDER BY rowid",
            "SELECT rowid, rank FROM t WHERE t MATCH 'gamma NOT delta' ORDER BY rank, rowid LIMIT 20",
            "SELECT rowid, highlight(t, 1, '[', ']') FROM t WHERE t MATCH 'x OR y' ORDER BY rowid LIMIT 30",
        ];
        let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
        drop(c);
        // The reference checks and reads ours' file.
        let f = RefDb::open_path(path);
        assert_eq!(run_ref(&f, check).pop(), ok(), "{detail}");
        for q in queries {
            assert_eq!(approx(run_ref(&f, q)), approx(run_ref(&r, q)), "{q}");
        }
        // The reference goes on writing it (its own merges), ours reads.
        for s in script(8, 30) {
            let s = s.replace("INSERT INTO", "INSERT OR IGNORE INTO");
            run_ref(&f, &s);
            run_ref(&r, &s);
        }
        drop(f);
        let mut c = open_ours(path);
        assert_eq!(run_ours(&mut c, check).pop(), ok(), "{detail}");
        for q in queries {
            assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{q}");
        }
        // Ours writes on top and merges the reference's segments with its own.
        for s in script(9, 30) {
            let s = s.replace("INSERT INTO", "INSERT OR IGNORE INTO");
            assert_eq!(run_ours(&mut c, &s), run_ref(&r, &s), "{s}");
        }
        run_ours(&mut c, "INSERT INTO t(t, rank) VALUES('merge', 4); INSERT INTO t(t) VALUES('optimize')");
        for q in queries {
            assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&r, q)), "{q}");
        }
        drop(c);
        let f = RefDb::open_path(path);
        assert_eq!(run_ref(&f, check).pop(), ok(), "{detail}");
        for q in queries {
            assert_eq!(approx(run_ref(&f, q)), approx(run_ref(&r, q)), "{q}");
        }
    }
}
