//! FTS5 (`src/ext/fts5`): tables created by ours are the reference's
//! byte for byte in their schema and shadow rows, and a table the
//! reference SQLite created and filled is queried by ours with the same
//! answers (MATCH syntax, rank/bm25 order, highlight) and the same errors.
//! Writes are refused in this stage, with an error saying so.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use ringlite::{Connection, OpenFlags};

pub(crate) fn open_ours(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open")
}

const SHADOW: &str = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name;\
    SELECT id, hex(block) FROM t_data ORDER BY id; SELECT * FROM t_idx; SELECT * FROM t_content;\
    SELECT id, hex(sz) FROM t_docsize; SELECT * FROM t_config;";

#[test]
fn create_makes_the_reference_shadow_tables() {
    for decl in ["fts5(a, b)", "fts5(a, b, prefix=2)", "fts5(\"x y\", b UNINDEXED, prefix='2 3')", "fts5(body)"] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let sql = format!("CREATE VIRTUAL TABLE t USING {decl}");
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{sql}");
        assert_eq!(run_ours(&mut c, SHADOW), run_ref(&r, SHADOW), "{sql}");
        let drop = "DROP TABLE t; SELECT name FROM sqlite_master";
        assert_eq!(run_ours(&mut c, drop), run_ref(&r, drop), "{sql}");
    }
}

#[test]
fn create_errors_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    for sql in [
        "CREATE VIRTUAL TABLE t1 USING fts5(rank)",
        "CREATE VIRTUAL TABLE t2 USING fts5(a, bogus=1)",
        "CREATE VIRTUAL TABLE t3 USING fts5(a, prefix=0)",
        "CREATE VIRTUAL TABLE t4 USING fts5(a, tokendata=2)",
        "CREATE VIRTUAL TABLE t5 USING fts5(a, locale=yes)",
        "CREATE VIRTUAL TABLE t6 USING fts5(a, tokendata=1, locale=1); SELECT name, sql FROM sqlite_master ORDER BY name",
    ] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
}

const DOCS: &[(&str, &str)] = &[
    ("the quick brown fox", "jumps over the lazy dog"),
    ("A B C D x x x E F x", "nothing here"),
    ("one two three", "three two one"),
    ("Ünïcode café naïve", "résumé and CAFÉ"),
    ("hello world", "world hello world"),
    ("two three four five", "six seven"),
    ("fox fox fox", "dog"),
    ("prefix predicate prelude", "post"),
];

const QUERIES: &[&str] = &[
    "fox",
    "FOX",
    "\"quick brown\"",
    "\"brown quick\"",
    "pre*",
    "pr*",
    "fox AND dog",
    "fox OR hello",
    "fox NOT lazy",
    "one OR two NOT three",
    "one two OR three",
    "fox dog",
    "NEAR(e d, 4)",
    "NEAR(e d, 3)",
    "NEAR(e d, 2)",
    "NEAR(\"c d\" \"e f\", 3)",
    "NEAR(\"c\" \"e f\", 3)",
    "NEAR(a d e, 6)",
    "NEAR(a d e, 5)",
    "NEAR(\"a b c d\" \"b c\" \"e f\", 4)",
    "NEAR(\"a b c d\" \"b c\" \"e f\", 3)",
    "a : fox",
    "b : fox",
    "b : hello",
    "{a b} : three",
    "- a : world",
    "^hello",
    "^world",
    "b : ^world",
    "^ one + two",
    "cafe",
    "CAFÉ",
    "naive",
    "unicode",
    "resume",
    "x",
    "world",
    "(fox OR dog) AND (lazy OR three)",
    "one + two",
    "\"\"",
];

fn fill(r: &RefDb) {
    run_ref(r, "CREATE VIRTUAL TABLE t USING fts5(a, b)");
    for (i, (a, b)) in DOCS.iter().enumerate() {
        let sql = format!("INSERT INTO t(rowid, a, b) VALUES({}, '{}', '{}')", i + 1, a.replace('\'', "''"), b.replace('\'', "''"));
        assert!(matches!(run_ref(r, &sql).pop(), Some(Outcome::Rows { .. })), "{sql}");
    }
}

/// Reals compared to 12 significant digits (bm25 sums in another order
/// may differ in the last bit); everything else exactly.
fn approx(o: Vec<Outcome>) -> Vec<Outcome> {
    o.into_iter()
        .map(|x| match x {
            Outcome::Rows { names, rows } => Outcome::Rows {
                names,
                rows: rows
                    .into_iter()
                    .map(|r| {
                        r.into_iter()
                            .map(|v| match v {
                                crate::sql_common::V::Real(b) => crate::sql_common::V::Text(format!("{:.12e}", f64::from_bits(b)).into_bytes()),
                                v => v,
                            })
                            .collect()
                    })
                    .collect(),
            },
            e => e,
        })
        .collect()
}

#[test]
fn reference_file_is_read_by_ours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.db");
    let path = path.to_str().unwrap();
    let r = RefDb::open_path(path);
    fill(&r);
    let mut c = open_ours(path);
    let mut n = 0;
    for q in QUERIES {
        let q = q.replace('\'', "''");
        for sql in [
            format!("SELECT rowid, a, b FROM t WHERE t MATCH '{q}'"),
            format!("SELECT rowid, rank FROM t WHERE t MATCH '{q}' ORDER BY rank, rowid"),
            format!("SELECT rowid, bm25(t), bm25(t, 2.0, 0.5) FROM t('{q}') ORDER BY rowid"),
            format!("SELECT rowid, highlight(t, 0, '[', ']'), highlight(t, 1, '<', '>') FROM t WHERE t MATCH '{q}'"),
            format!("SELECT rowid FROM t WHERE b MATCH '{q}'"),
            format!("SELECT count(*) FROM t WHERE t MATCH '{q}' AND rowid > 2"),
        ] {
            assert_eq!(approx(run_ours(&mut c, &sql)), approx(run_ref(&r, &sql)), "{sql}");
            n += 1;
        }
    }
    for sql in [
        "SELECT rowid, a FROM t ORDER BY rowid",
        "SELECT rowid, rank FROM t WHERE rowid = 3",
        "SELECT * FROM t WHERE t MATCH 'fox' AND t MATCH 'dog'",
        "SELECT * FROM t WHERE a MATCH 'fox' AND b MATCH 'dog'",
        "SELECT * FROM t WHERE t MATCH 'x:one'",
        "SELECT * FROM t WHERE t MATCH 'one AND'",
        "SELECT * FROM t WHERE t MATCH '(one'",
        "SELECT * FROM t WHERE t MATCH 'one.'",
        "SELECT * FROM t WHERE t MATCH '\"one'",
        "SELECT * FROM t WHERE t MATCH 'NOT one'",
        "SELECT * FROM t WHERE t MATCH '(one OR two) three'",
        "SELECT * FROM t WHERE t MATCH 'one + ^two'",
        "SELECT * FROM t WHERE t MATCH NULL",
        "SELECT bm25(1)",
        "SELECT highlight(a, 0, 1, 2) FROM t",
        "SELECT rowid, highlight(t, 0, '[', ']') FROM t ORDER BY rowid",
    ] {
        assert_eq!(approx(run_ours(&mut c, sql)), approx(run_ref(&r, sql)), "{sql}");
        n += 1;
    }
    assert!(n > 200);
}

#[test]
fn writes_are_read_and_checked_by_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let path = path.to_str().unwrap();
    let mut c = open_ours(path);
    let r = RefDb::open();
    let steps = [
        "CREATE VIRTUAL TABLE t USING fts5(a, b)",
        "INSERT INTO t VALUES('hello world', 'foo bar')",
        "INSERT INTO t VALUES('world peace', 'hello')",
        "INSERT INTO t(rowid, a, b) VALUES(300, 'a x a x a', NULL)",
        "INSERT INTO t(rowid, a, b) VALUES(5, 'Café Ünïcode', 'two words')",
        "UPDATE t SET b = 'changed hello' WHERE rowid = 2",
        "UPDATE t SET rowid = 7 WHERE rowid = 5",
        "DELETE FROM t WHERE rowid = 1",
        "INSERT INTO t VALUES(12, 3.5)",
        "INSERT INTO t(rowid, a) VALUES(7, 'dup')",
        "INSERT INTO t(t) VALUES('rebuild')",
        "SELECT last_insert_rowid(), changes()",
    ];
    for s in steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    let contents = "SELECT id, c0, c1 FROM t_content ORDER BY id; SELECT id, hex(sz) FROM t_docsize ORDER BY id; SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx";
    // After 'rebuild' the reference also holds one segment: same bytes.
    assert_eq!(run_ours(&mut c, contents), run_ref(&r, contents));
    run_ours(&mut c, "INSERT INTO t VALUES('later', 'row')");
    drop(c);
    let f = RefDb::open_path(path);
    let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
    assert_eq!(
        run_ref(&f, check).pop(),
        Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![crate::sql_common::V::Text(b"ok".to_vec())]] })
    );
    // The reference writes on ours' file; ours reads its segments.
    run_ref(&f, "INSERT INTO t VALUES('hello again', 'x'); DELETE FROM t WHERE rowid = 300");
    let mut c = open_ours(path);
    for q in [
        "SELECT rowid, a, b FROM t WHERE t MATCH 'hello OR later' ORDER BY rank, rowid",
        "SELECT rowid, highlight(t, 1, '[', ']') FROM t WHERE t MATCH 'b:hello'",
    ] {
        assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&f, q)), "{q}");
    }
    // Ours writes on top of the reference's segments; the reference agrees.
    run_ours(&mut c, "DELETE FROM t WHERE rowid = 2; INSERT INTO t VALUES('final', 'words')");
    drop(c);
    assert_eq!(
        run_ref(&f, check).pop(),
        Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![crate::sql_common::V::Text(b"ok".to_vec())]] })
    );
}

/// A small deterministic generator (xorshift), shared by the FTS5 tests
/// that write random documents.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn doc(&mut self, words: usize) -> String {
        self.words(words, &["alpha", "beta", "gamma", "delta", "x", "y", "Zeta", "é", "prefixed", "prefixes", "prelude", "common", "common"], 300)
    }
    /// `n` words: one in four `w<k>` with k below `rare`, the rest drawn
    /// from `vocab`.
    pub(crate) fn words(&mut self, n: usize, vocab: &[&str], rare: u64) -> String {
        (0..n)
            .map(|_| if self.below(4) == 0 { format!("w{}", self.below(rare)) } else { vocab[self.below(vocab.len() as u64) as usize].to_string() })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Random transactions of inserts (rowids mostly rising), updates and
/// deletes, the same on both sides.
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
    SELECT id, hex(sz) FROM t_docsize ORDER BY id; SELECT * FROM t_config";

/// `PRAGMA integrity_check`'s answer for a sound database.
pub(crate) fn ok_check() -> Option<Outcome> {
    Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![crate::sql_common::V::Text(b"ok".to_vec())]] })
}

/// Outcomes as lines of text (readable in a failed assertion).
pub(crate) fn lines(o: Vec<Outcome>) -> Vec<String> {
    o.into_iter()
        .flat_map(|x| match x {
            Outcome::Rows { rows, .. } => rows
                .into_iter()
                .map(|r| {
                    r.into_iter()
                        .map(|v| match v {
                            crate::sql_common::V::Text(t) => String::from_utf8_lossy(&t).into_owned(),
                            v => format!("{v:?}"),
                        })
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect::<Vec<_>>(),
            e => vec![format!("{e:?}")],
        })
        .collect()
}

/// Equal lines, else the first difference.
fn same(a: Vec<String>, b: Vec<String>, what: &str) {
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        panic!("{what}: line {i}\nours {:?}\nref  {:?}", a.get(i), b.get(i));
    }
}

/// The rows `shadow` reads the same on ours and the reference, else the
/// first difference (and both sides in full).
pub(crate) fn same_shadow(c: &mut Connection, r: &RefDb, shadow: &str, what: &str) {
    let (a, b) = (lines(run_ours(c, shadow)), lines(run_ref(r, shadow)));
    if a != b {
        let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        panic!("{what}: line {i}\nours: {:?}\nref:  {:?}\nours all: {a:#?}\nref all: {b:#?}", a.get(i), b.get(i));
    }
}

/// The segment written by 'optimize', without its id (ids are chosen
/// among those free, which depends on earlier merges).
const OPTIMIZED: &str = "SELECT hex(block) FROM t_data WHERE id > 10 ORDER BY id; SELECT hex(term), pgno FROM t_idx ORDER BY segid, term;\
    SELECT id, hex(sz) FROM t_docsize ORDER BY id; SELECT id, hex(block) FROM t_data WHERE id = 1";

#[test]
fn segments_are_the_references_byte_for_byte() {
    for (seed, decl, pgsz) in [(1, "a, b", 64), (2, "a, b", 0), (3, "a, b UNINDEXED, prefix='1 3'", 100), (5, "a, b", 1000)] {
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
        let s = "INSERT INTO t(t) VALUES('optimize')";
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s));
        same(lines(run_ours(&mut c, OPTIMIZED)), lines(run_ref(&r, OPTIMIZED)), &format!("optimize {decl} {pgsz}"));
        let s = "INSERT INTO t(t) VALUES('rebuild')";
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s));
        assert_eq!(lines(run_ours(&mut c, INDEX)), lines(run_ref(&r, INDEX)), "rebuild {decl} {pgsz}");
        // Small transactions: SQLite does not merge before 16 segments,
        // and neither does ringlite: every segment the same.
        for s in ["DELETE FROM t WHERE rowid % 3 = 0", "UPDATE t SET a = 'changed ' || a WHERE rowid % 5 = 1"] {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
            assert_eq!(lines(run_ours(&mut c, INDEX)), lines(run_ref(&r, INDEX)), "{s} {decl} {pgsz}");
        }
        for i in 0..2 {
            let s = format!("INSERT INTO t(a, b) VALUES('row {i} common', 'x y {i}')");
            assert_eq!(run_ours(&mut c, &s), run_ref(&r, &s), "{s}");
            assert_eq!(lines(run_ours(&mut c, INDEX)), lines(run_ref(&r, INDEX)), "{s} {decl} {pgsz}");
        }
    }
}

#[test]
fn large_indexes_go_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    let path = path.to_str().unwrap();
    let mut c = open_ours(path);
    let r = RefDb::open();
    let mut steps = vec!["CREATE VIRTUAL TABLE t USING fts5(a, b, prefix=2)".to_string(), "INSERT INTO t(t, rank) VALUES('pgsz', 200)".into()];
    steps.extend(script(7, 60));
    for s in &steps {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    let queries = [
        "SELECT count(*) FROM t",
        "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
        "SELECT rowid FROM t WHERE t MATCH 'pre*' ORDER BY rowid",
        "SELECT rowid FROM t WHERE t MATCH 'b:alpha AND w1*' ORDER BY rowid",
        "SELECT rowid, rank FROM t WHERE t MATCH 'gamma NOT delta' ORDER BY rank, rowid LIMIT 20",
        "SELECT rowid FROM t WHERE t MATCH '\"x y\"' ORDER BY rowid",
    ];
    let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
    drop(c);
    let f = RefDb::open_path(path);
    assert_eq!(run_ref(&f, check).pop(), ok_check());
    for q in queries {
        assert_eq!(approx(run_ref(&f, q)), approx(run_ref(&r, q)), "{q}");
    }
    // The reference goes on writing ours' file (its own merges), ours then.
    for s in script(8, 30) {
        run_ref(&f, &s.replace("INSERT INTO", "INSERT OR IGNORE INTO"));
    }
    let mut c = open_ours(path);
    for q in queries {
        assert_eq!(approx(run_ours(&mut c, q)), approx(run_ref(&f, q)), "{q}");
    }
    for s in script(9, 30) {
        let s = s.replace("INSERT INTO", "INSERT OR IGNORE INTO");
        assert_eq!(run_ours(&mut c, &s), run_ref(&r, &s), "{s}");
    }
    run_ours(&mut c, "INSERT INTO t(t, rank) VALUES('merge', 4); INSERT INTO t(t) VALUES('optimize')");
    drop(c);
    let f = RefDb::open_path(path);
    assert_eq!(run_ref(&f, check).pop(), ok_check());
}

/// Statements building a table whose doclists span many small pages
/// (pgsz 64), over three segments, with deletes in the newest.
fn paged_script() -> Vec<String> {
    let words = ["ant", "apple", "apply", "bee", "bear", "cat", "cater", "dog", "dot", "eel", "emu", "fox"];
    let mut s = vec!["CREATE VIRTUAL TABLE t USING fts5(a, b)".to_string(), "INSERT INTO t(t, rank) VALUES('pgsz', 64)".into()];
    let mut x: u64 = 7;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    for txn in 0..3 {
        s.push("BEGIN".into());
        for i in 0..80 {
            let a: Vec<&str> = (0..1 + next() % 4).map(|_| words[next() % words.len()]).collect();
            let b: Vec<&str> = (0..3 + next() % 12).map(|_| words[next() % words.len()]).collect();
            s.push(format!("INSERT INTO t(rowid, a, b) VALUES({}, '{}', '{}')", txn * 100 + i + 1, a.join(" "), b.join(" ")));
        }
        s.push("COMMIT".into());
    }
    s.push("DELETE FROM t WHERE rowid % 7 = 0".into());
    s
}

const PAGED_QUERIES: &[&str] =
    &["ant", "app*", "ca*", "\"bee bear\"", "dog fox", "eel OR emu", "cat NOT dog", "NEAR(ant fox, 2)", "a:bee", "{b}: ^dot", "apple + apply", "zzz", "e*"];

/// Queries answered from the index (leaf lookups through `%_idx`, prefix
/// ranges, rows found across pages and segments) give the reference's
/// rows, ranks and highlights, with the ORDER BY and rowid bounds the
/// table serves, also while the transaction's changes are pending.
#[test]
fn index_lookups_match_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (po, pr) = (dir.path().join("o.db"), dir.path().join("r.db"));
    let r = RefDb::open_path(pr.to_str().unwrap());
    let mut c = open_ours(po.to_str().unwrap());
    for sql in paged_script() {
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{sql}");
    }
    let check = |c: &mut Connection, what: &str| {
        for q in PAGED_QUERIES {
            for sql in [
                format!("SELECT rowid, rank, highlight(t, 1, '[', ']') FROM t WHERE t MATCH '{q}' ORDER BY rank, rowid"),
                format!("SELECT rowid, bm25(t) FROM t WHERE t MATCH '{q}' ORDER BY rowid DESC"),
                format!("SELECT rowid FROM t WHERE t MATCH '{q}' AND rowid > 50 AND rowid <= 250"),
                format!("SELECT rowid, a FROM t WHERE t MATCH '{q}' AND rowid = 103"),
                format!("SELECT rowid, snippet(t, -1, '<', '>', '...', 3) FROM t WHERE t MATCH '{q}' ORDER BY rowid"),
                format!("SELECT count(*), sum(rowid) FROM t WHERE t MATCH '{q}' ORDER BY rank DESC"),
            ] {
                assert_eq!(approx(run_ours(c, &sql)), approx(run_ref(&r, &sql)), "{what}: {sql}");
            }
        }
        for sql in [
            "SELECT rowid, a FROM t WHERE rowid = 17",
            "SELECT rowid FROM t WHERE rowid > 290 ORDER BY rowid DESC",
            "SELECT rowid, b FROM t WHERE rowid BETWEEN 5 AND 9",
        ] {
            assert_eq!(run_ours(c, sql), run_ref(&r, sql), "{what}: {sql}");
        }
    };
    check(&mut c, "committed");
    for sql in [
        "BEGIN",
        "INSERT INTO t(rowid, a, b) VALUES(500, 'ant apple', 'bee bear cat')",
        "DELETE FROM t WHERE rowid = 1",
        "UPDATE t SET b = 'fox dog' WHERE rowid = 2",
    ] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
    check(&mut c, "pending");
    for sql in ["COMMIT", "INSERT INTO t(t) VALUES('integrity-check')"] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
}

/// A string that tokenizes to nothing matches no row: ANDed explicitly
/// (or on the left of a NOT) nothing matches, ORed (or on the right of a
/// NOT) it is the other side, juxtaposed it is dropped; in a NEAR group
/// with other phrases it is left out.
#[test]
fn empty_phrases_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let setup = "CREATE VIRTUAL TABLE f1 USING fts5(a, b); INSERT INTO f1 VALUES('a b', 'c d'); INSERT INTO f1 VALUES('e f', 'a b');";
    assert_eq!(run_ours(&mut c, setup), run_ref(&r, setup));
    for q in [
        "\"\"",
        "\"\" AND a",
        "a AND \"\"",
        "\"\" a",
        "a \"\"",
        "\"\" OR a",
        "a OR \"\"",
        "a NOT \"\"",
        "\"\" NOT a",
        "NEAR(\"\")",
        "NEAR(\"\", 5)",
        "NEAR(a \"\")",
        "NEAR(\"\" \"\")",
        "a AND \"\" c",
        "a AND \"\" \"\" c",
        "(a OR e) \"\"",
        "\"\" \"\"",
        "\"\" \"\" a",
        "a:\"\" e",
        "e b:\"\"",
        "\"\" AND \"\"",
        "\"\" OR \"\"",
        "(\"\" OR a) AND e",
        "e NOT (\"\" c)",
        "* a",
        "*  ab cd",
        " *a",
        "(a) \"x y\"",
    ] {
        let sql = format!("SELECT rowid FROM f1('{q}')");
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{sql}");
    }
}
