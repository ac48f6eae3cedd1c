//! FTS3/FTS4 (`src/ext/fts3`) against the reference SQLite: the same
//! statements on both, one at a time, with every outcome compared —
//! query results of each MATCH syntax form, `offsets()`, `snippet()`,
//! `matchinfo()` with every format character, the shadow tables'
//! records byte for byte (segments after each write, merges, `%_stat`,
//! `%_docsize`), FTS4 options and special commands; then database files
//! written by one engine, read, extended and checked by the other.

use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

/// Run each `;;`-separated statement on both and compare outcomes.
pub(crate) fn same_steps(ours: &mut Connection, reference: &RefDb, script: &str) {
    for stmt in script.split(";;").map(str::trim).filter(|s| !s.is_empty()) {
        let a = run_ours(ours, stmt);
        let b = run_ref(reference, stmt);
        if a != b {
            let (x, y) = (show(&a), show(&b));
            let diff: Vec<String> = x.split(" | ").zip(y.split(" | ")).filter(|(p, q)| p != q).map(|(p, q)| format!("\n  ours: {p}\n  ref:  {q}")).collect();
            panic!("\nSQL: {stmt}{}\nours: {x}\nref:  {y}", diff.join(""));
        }
    }
}

/// Outcomes as readable text (text values as strings).
fn show(o: &[Outcome]) -> String {
    let v = |x: &V| match x {
        V::Text(t) => format!("'{}'", String::from_utf8_lossy(t)),
        other => format!("{other:?}"),
    };
    o.iter()
        .map(|x| match x {
            Outcome::Rows { rows, .. } => rows.iter().map(|r| r.iter().map(v).collect::<Vec<_>>().join(",")).collect::<Vec<_>>().join(" | "),
            Outcome::Error { code, message } => format!("ERR {code} {message}"),
        })
        .collect::<Vec<_>>()
        .join(" ;; ")
}

/// A deterministic word stream.
pub(crate) struct Words(pub(crate) u64);

impl Words {
    fn next(&mut self) -> String {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let k = (self.0 >> 33) % 120;
        match k {
            0..=9 => ["alpha", "beta", "gamma", "apple", "apply", "applied", "banana", "band", "bandana", "delta"][k as usize].to_string(),
            _ => format!("w{k}"),
        }
    }
    pub(crate) fn text(&mut self, n: usize) -> String {
        (0..n).map(|_| self.next()).collect::<Vec<_>>().join(" ")
    }
}

pub(crate) const DUMP: &str = "SELECT level, idx, start_block, leaves_end_block, end_block, hex(root) FROM t_segdir;; \
                    SELECT blockid, hex(block) FROM t_segments;; SELECT docid, hex(size) FROM t_docsize;; SELECT hex(value) FROM t_stat;;";

const QUERIES: [&str; 22] = [
    "w11",
    "w1*",
    "w12 w13",
    "w12 OR w13",
    "\"w14 w15\"",
    "w16 NEAR w17",
    "w16 NEAR/2 w17",
    "w18 NOT w19",
    "app*",
    "ban* OR alpha",
    "alpha NEAR/3 beta",
    "(w20 OR w21) AND (w22 OR w23)",
    "w11 w12 w13 w14",
    "a:w11",
    "b:w12 OR a:w13",
    "^w11",
    "\"w2* w3*\"",
    "w11 OR (w12 AND w13)",
    "w11 NEAR w12 NEAR/1 w13",
    "w99 -w11",
    "hello AND",
    "(w11",
];

fn query_checks(table: &str, fts4: bool) -> String {
    let mut s = String::new();
    for q in QUERIES {
        let q = q.replace('\'', "''");
        let fmt = if fts4 { "pcnalsxyb" } else { "pcsxyb" };
        s.push_str(&format!("SELECT docid, offsets({table}), hex(matchinfo({table}, '{fmt}')), hex(matchinfo({table})), snippet({table}) FROM {table} WHERE {table} MATCH '{q}';;"));
        s.push_str(&format!("SELECT docid, snippet({table}, '[', ']', '..', -1, 5), snippet({table}, '<', '>', '', 1, -4) FROM {table} WHERE {table} MATCH '{q}' ORDER BY docid DESC;;"));
    }
    s
}

fn workload(fts: &str, seed: u64) -> String {
    let mut w = Words(seed);
    let mut s = format!("CREATE VIRTUAL TABLE t USING {fts}(a, b);;");
    for i in 0..45 {
        s.push_str(&format!("INSERT INTO t VALUES('{}', '{}');;", w.text(1 + i % 23), w.text(i % 7)));
        if i % 7 == 3 {
            s.push_str(&format!("DELETE FROM t WHERE docid = {};;", 1 + (i * 5) % (i + 1)));
        }
        if i % 5 == 2 {
            s.push_str(&format!("UPDATE t SET b = '{}' WHERE docid = {};;", w.text(4), 1 + (i * 3) % (i + 1)));
        }
    }
    s.push_str(&format!("INSERT INTO t VALUES('{}', 'x');;", w.text(1500)));
    s.push_str("BEGIN;;");
    for _ in 0..30 {
        s.push_str(&format!("INSERT INTO t VALUES('{}', NULL);;", w.text(12)));
    }
    s.push_str(&format!("INSERT INTO t(docid, a) VALUES(3, '{}');;", w.text(5)));
    s.push_str("COMMIT;;");
    s
}

#[test]
fn fts4_workload_segments_and_queries_match() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(&mut ours, &r, &workload("fts4", 7));
    same_steps(&mut ours, &r, DUMP);
    same_steps(&mut ours, &r, &query_checks("t", true));
    same_steps(&mut ours, &r, "INSERT INTO t(t) VALUES('integrity-check');; INSERT INTO t(t) VALUES('optimize');;");
    same_steps(&mut ours, &r, DUMP);
    same_steps(&mut ours, &r, "INSERT INTO t(t) VALUES('rebuild');; INSERT INTO t(t) VALUES('integrity-check');;");
    same_steps(&mut ours, &r, DUMP);
}

#[test]
fn fts3_workload_segments_and_queries_match() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(&mut ours, &r, &workload("fts3", 11));
    same_steps(
        &mut ours,
        &r,
        "SELECT level, idx, start_block, leaves_end_block, end_block, hex(root) FROM t_segdir;; SELECT blockid, hex(block) FROM t_segments;;",
    );
    same_steps(&mut ours, &r, &query_checks("t", false));
    same_steps(&mut ours, &r, "SELECT optimize(t) FROM t LIMIT 1;; SELECT level, idx, start_block, leaves_end_block, end_block, hex(root) FROM t_segdir;;");
}

#[test]
fn definitions_errors_and_basic_rows() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(
        &mut ours,
        &r,
        "CREATE VIRTUAL TABLE t USING fts4(a, b);; CREATE VIRTUAL TABLE e USING fts4();; CREATE VIRTUAL TABLE f USING fts3('x y', [z], \"w\" INTEGER);;
         SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name;; PRAGMA table_xinfo(t);; PRAGMA table_xinfo(e);;
         CREATE VIRTUAL TABLE z USING fts4(a, nosuch=1);; CREATE VIRTUAL TABLE z USING fts4(a, tokenize=nosuch);;
         CREATE VIRTUAL TABLE z USING fts4(a, compress=zip);; CREATE VIRTUAL TABLE z USING fts4(a, prefix='x');;
         CREATE VIRTUAL TABLE z USING fts4(a, notindexed=b);; CREATE VIRTUAL TABLE z USING fts4(a, matchinfo=x);;
         CREATE VIRTUAL TABLE z USING fts4(a, order=x);; CREATE VIRTUAL TABLE z USING fts4(a, a);;
         INSERT INTO t VALUES('Hello World', 'the quick brown fox');; INSERT INTO t(docid, a, b) VALUES(10, 'x y z hello', 'hello-world peace');;
         INSERT INTO t VALUES(12345, x'4142');; INSERT INTO t(a) VALUES(NULL);;
         SELECT docid, * FROM t;; SELECT * FROM t WHERE docid = 10;; SELECT docid FROM t WHERE rowid BETWEEN 2 AND 11;;
         SELECT t, typeof(t) FROM t;; SELECT matchinfo(t) FROM t;; SELECT matchinfo(1);; SELECT snippet(1);; SELECT offsets(1, 2);;
         SELECT docid FROM t WHERE t MATCH 'hello' ORDER BY docid DESC;; SELECT docid FROM t WHERE a MATCH 'hello';;
         SELECT docid FROM t WHERE t MATCH '\"hello';; SELECT docid FROM t WHERE t MATCH 'NOT hello';; SELECT docid FROM t WHERE t MATCH '';;
         SELECT docid FROM t WHERE t MATCH 'hello:world';; SELECT docid FROM t WHERE t MATCH 'hello NEAR (world OR x)';;
         SELECT hex(matchinfo(t, 'q')) FROM t WHERE t MATCH 'hello';;
         INSERT INTO t(t) VALUES('nosuch');; INSERT INTO t(t) VALUES('integrity-check');;
         UPDATE t SET a = 'goodbye' WHERE docid = 10;; DELETE FROM t WHERE docid = 1;;
         SELECT level, idx, end_block, hex(root) FROM t_segdir;; SELECT hex(value) FROM t_stat;; SELECT docid, hex(size) FROM t_docsize;;
         DELETE FROM t;; SELECT count(*) FROM t_segdir;; SELECT hex(value) FROM t_stat;;
         ALTER TABLE t RENAME TO t2;; SELECT name FROM sqlite_master ORDER BY name;; INSERT INTO t2 VALUES('after rename', '');;
         SELECT docid, a FROM t2 WHERE t2 MATCH 'rename';; DROP TABLE t2;; SELECT name FROM sqlite_master ORDER BY name;;",
    );
}

#[test]
fn fts4_options() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(
        &mut ours,
        &r,
        "CREATE VIRTUAL TABLE d USING fts4(a, order=desc);; INSERT INTO d(docid, a) VALUES(1, 'x y');; INSERT INTO d(docid, a) VALUES(5, 'x z');;
         INSERT INTO d(docid, a) VALUES(3, 'x');; BEGIN;; INSERT INTO d(docid, a) VALUES(10, 'x q');; INSERT INTO d(docid, a) VALUES(11, 'x q r');; COMMIT;;
         DELETE FROM d WHERE docid = 5;; SELECT level, idx, end_block, hex(root) FROM d_segdir;; SELECT docid FROM d WHERE d MATCH 'x';;
         SELECT docid FROM d WHERE d MATCH 'x' ORDER BY docid ASC;; INSERT INTO d(d) VALUES('optimize');; SELECT level, idx, end_block, hex(root) FROM d_segdir;;
         CREATE VIRTUAL TABLE p USING fts4(a, prefix='1,3');; INSERT INTO p VALUES('hello world héllo wörld a ab abc');; INSERT INTO p VALUES('help');;
         SELECT level, idx, end_block, hex(root) FROM p_segdir;; SELECT docid FROM p WHERE p MATCH 'hel*';; DELETE FROM p WHERE docid = 2;;
         SELECT level, idx, end_block, hex(root) FROM p_segdir;; INSERT INTO p(p) VALUES('integrity-check');;
         CREATE VIRTUAL TABLE l USING fts4(a, languageid='lid');; INSERT INTO l(a, lid) VALUES('hello one', 0);; INSERT INTO l(a, lid) VALUES('hello two', 1);;
         INSERT INTO l(a, lid) VALUES('hello three', 1);; SELECT level, idx, end_block, hex(root) FROM l_segdir;; SELECT * FROM l_content;;
         SELECT docid, lid FROM l WHERE l MATCH 'hello';; SELECT docid, lid FROM l WHERE l MATCH 'hello' AND lid = 1;; INSERT INTO l(l) VALUES('integrity-check');;
         CREATE TABLE src(a, b);; INSERT INTO src VALUES('alpha beta', 'gamma');; INSERT INTO src VALUES('delta', 'alpha');;
         CREATE VIRTUAL TABLE e USING fts4(content='src', a, b);; INSERT INTO e(e) VALUES('rebuild');; SELECT level, idx, end_block, hex(root) FROM e_segdir;;
         SELECT docid, a, b, snippet(e), offsets(e) FROM e WHERE e MATCH 'alpha';; INSERT INTO e(e) VALUES('integrity-check');; SELECT hex(value) FROM e_stat;;
         CREATE VIRTUAL TABLE c USING fts4(a, content='');; INSERT INTO c(docid, a) VALUES(5, 'contentless words here');; INSERT INTO c(docid, a) VALUES(6, 'more words');;
         SELECT docid, hex(matchinfo(c)) FROM c WHERE c MATCH 'words';; SELECT docid, a FROM c WHERE c MATCH 'words';; SELECT * FROM c;;
         SELECT level, idx, end_block, hex(root) FROM c_segdir;; INSERT INTO c(a) VALUES('no docid');;
         CREATE VIRTUAL TABLE n USING fts4(a, b, notindexed=b, matchinfo=fts3);; INSERT INTO n VALUES('one two', 'three four');;
         SELECT docid FROM n WHERE n MATCH 'three';; SELECT hex(matchinfo(n, 'pcnx')) FROM n WHERE n MATCH 'one';; SELECT hex(matchinfo(n, 'l')) FROM n WHERE n MATCH 'one';;
         SELECT hex(value) FROM n_stat;; SELECT name FROM sqlite_master WHERE name LIKE 'n%' ORDER BY name;;
         CREATE VIRTUAL TABLE f3 USING fts3(a, b);; INSERT INTO f3 VALUES('one two', 'two three');; SELECT hex(matchinfo(f3)) FROM f3 WHERE f3 MATCH 'two';;
         SELECT hex(matchinfo(f3, 'n')) FROM f3 WHERE f3 MATCH 'two';; SELECT docid FROM f3 WHERE f3 MATCH '^two';;",
    );
}

#[test]
fn tokenizers() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let text = "Running runs ran runner connection connected connecting happily generalization archaeology relational conditional \
                Héllo WÖRLD naïve café ŒUVRE straße ǖ 東京 x_y a-b 123abc abcdefghijklmnopqrstuvwxyz0 abcdefghijklmnopqrstuvwxyz";
    let mut s = String::new();
    for (name, spec) in [
        ("s", "simple"),
        ("pt", "porter"),
        ("u1", "unicode61"),
        ("u2", "unicode61 \"remove_diacritics=0\" \"tokenchars=_\""),
        ("u3", "unicode61 \"remove_diacritics=2\" \"separators=x\""),
    ] {
        s.push_str(&format!("CREATE VIRTUAL TABLE {name} USING fts4(a, tokenize={spec});; INSERT INTO {name} VALUES('{text}');; SELECT level, idx, end_block, hex(root) FROM {name}_segdir;;"));
        s.push_str(&format!("SELECT offsets({name}) FROM {name} WHERE {name} MATCH 'run OR connect OR hello OR world';;"));
    }
    same_steps(&mut ours, &r, &s);
}

/// Files written by one engine are read, extended and checked by the
/// other: queries agree and `integrity-check` passes on both sides.
#[test]
fn files_move_between_engines() {
    let dir = tempfile::tempdir().unwrap();
    for ours_first in [false, true] {
        let path = dir.path().join(format!("f{ours_first}.db"));
        let p = path.to_str().unwrap();
        let script = workload("fts4", 3);
        let check = "INSERT INTO t(t) VALUES('integrity-check');; SELECT docid FROM t WHERE t MATCH 'w11 OR alpha';; SELECT count(*) FROM t_segdir;;";
        let more = "INSERT INTO t VALUES('moved here alpha', 'w11');; DELETE FROM t WHERE docid IN (SELECT docid FROM t WHERE t MATCH 'w12' LIMIT 3);; \
                    UPDATE t SET a = 'changed' WHERE docid % 5 = 0;; INSERT INTO t(t) VALUES('optimize');;";
        let run_on = |ours: bool, sql: &str| -> Vec<Outcome> {
            let mut out = Vec::new();
            if ours {
                let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
                for s in sql.split(";;").map(str::trim).filter(|s| !s.is_empty()) {
                    out.extend(run_ours(&mut c, s));
                }
            } else {
                let db = RefDb::open_path(p);
                for s in sql.split(";;").map(str::trim).filter(|s| !s.is_empty()) {
                    out.extend(run_ref(&db, s));
                }
            }
            out
        };
        run_on(ours_first, &script);
        let a = run_on(!ours_first, check);
        let b = run_on(ours_first, check);
        assert_eq!(a, b);
        assert!(a.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{a:?}");
        run_on(!ours_first, more);
        let a = run_on(ours_first, check);
        let b = run_on(!ours_first, check);
        assert_eq!(a, b);
        assert!(a.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{a:?}");
    }
}

#[test]
fn function_arguments_and_binary_match_operands() {
    let mut ours = ours_open();
    let r = RefDb::open();
    // The functions the table substitutes (any of its columns first) check
    // their arguments; the global versions fail for any other first argument.
    same_steps(
        &mut ours,
        &r,
        "CREATE VIRTUAL TABLE t2 USING fts4;; INSERT INTO t2 VALUES('it was the first time in history');;
         SELECT matchinfo() FROM t2 WHERE t2 MATCH 'history';; SELECT snippet(t2, 1, 2, 3, 4, 5, 6) FROM t2 WHERE t2 MATCH 'history';;
         SELECT snippet(t2, 1, 2, 3, 4, 5) FROM t2 WHERE t2 MATCH 'history';; SELECT matchinfo(t2, 1, 2) FROM t2 WHERE t2 MATCH 'history';;
         SELECT matchinfo(content) FROM t2 WHERE t2 MATCH 'history';; SELECT offsets(content) FROM t2 WHERE t2 MATCH 'history';;
         SELECT snippet(content) FROM t2 WHERE t2 MATCH 'history';; SELECT optimize(content) FROM t2 WHERE t2 MATCH 'history';;
         SELECT offsets(docid) FROM t2 WHERE t2 MATCH 'history';; SELECT OFFSETS(content) FROM t2 WHERE t2 MATCH 'history';;
         SELECT snippet(1, 2, 3, 4, 5, 6, 7, 8);;",
    );
    // A MATCH operand is read up to its first NUL; bytes that are not
    // UTF-8 are terms like any other.
    same_steps(
        &mut ours,
        &r,
        "CREATE VIRTUAL TABLE t0 USING fts3(col0 INTEGER PRIMARY KEY, col1 VARCHAR(8), col2 BINARY, col3 BINARY);;
         INSERT INTO t0 VALUES (1, '1234', 'aaaa', 'bbbb');;
         SELECT hex(matchinfo(t0, 'yxy')) FROM t0 WHERE t0 MATCH x'31003132';; SELECT docid FROM t0 WHERE t0 MATCH x'00';;
         SELECT hex(matchinfo(t0, 'yxy')) FROM t0 WHERE t0 MATCH x'31ff31';; SELECT docid FROM t0 WHERE t0 MATCH x'310b31';;
         SELECT hex(matchinfo(t0, 'yxy')) FROM t0 WHERE t0 MATCH x'2b0a312b0a312a312a2a0b5d0a0b0b0a312a0a0b0b0a312a0b310a392a0b0a27312a2a0b5d0a312a0b310a31315d0b310a312a316d2a0b313b15bceaa50a312a0b0a27312a2a0b5d0a312a0b310a312b0b2a310a312a0b2a0b2a0b2e5d0a0bff313336e34a2a312a0b0a3c310b0a0b4b4b0b4b2a4bec40322b2a0b310a0a312a0a0a0a0a0a0a0a0a0b310a312a2a2a0b5d0a0b0b0a312a0b310a312a0b0a4e4541530b310a5df5ced70a0a0a0a0a4f520a0a0a0a0a0a0a312a0b0a4e4541520b310a5d616161610a0a0a0a4f520a0a0a0a0a0a312b0a312a312a0a0a0a0a0a0a004a0b0a310b22';;",
    );
}

#[test]
fn matchinfo_y_and_b_follow_row_evaluation() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let s = "CREATE VIRTUAL TABLE t0 USING fts3(col0 INTEGER PRIMARY KEY, col1 VARCHAR(8), col2 BINARY, col3 BINARY); INSERT INTO t0 VALUES (1, '1234', 'aaaa', 'bbbb');";
    run_ours(&mut ours, s);
    run_ref(&r, s);
    // A NEAR group counts on a row holding all its phrases even when not
    // near; the right side of a NOT counts too, over phrase 0's slot.
    let mut bad = Vec::new();
    for q in [
        "1* NEAR 1 aaaa OR 1",
        "zz 1* NEAR 1 aaaa OR 1",
        "zz aaaa OR 1",
        "zz NEAR 1 aaaa OR 1",
        "1* NEAR 1 OR 1",
        "zz 1 aaaa OR 1",
        "zz 1 NEAR aaaa OR 1",
        "zz OR 1",
        "1 NEAR zz OR 1",
        "1 NEAR zz aaaa OR 1",
        "(1 NOT aaaa) OR bbbb",
        "(1 NOT 1234) OR bbbb",
        "(1 NEAR/0 bbbb) OR aaaa",
        "1234 (1 NEAR/0 bbbb OR aaaa)",
        "\"1 1234\" OR aaaa",
        "(aaaa NOT bbbb) OR 1",
        "bbbb OR (1 NOT aaaa)",
        "bbbb OR 1234 OR (1 NOT aaaa)",
        "bbbb OR (1 NOT (aaaa OR 1234))",
        "bbbb OR (1 NOT aaaa NOT zz NOT 1234)",
    ] {
        let q = format!("SELECT hex(matchinfo(t0, 'yb')) FROM t0 WHERE t0 MATCH '{q}'");
        let a = run_ours(&mut ours, &q);
        let b = run_ref(&r, &q);
        if a != b {
            bad.push(format!("{q}\n ours {}\n ref  {}", show(&a), show(&b)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
