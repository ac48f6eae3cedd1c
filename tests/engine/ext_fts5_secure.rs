//! FTS5 'secure-delete' (`src/ext/fts5/secure.rs`, `index.rs`): with
//! `INSERT INTO t(t, rank) VALUES('secure-delete', 1)` deletes and
//! updates cut the old entries out of the segment pages. The same random
//! transactions on ours and the reference SQLite leave `%_data`, `%_idx`,
//! `%_config` and `%_docsize` the same byte for byte after every
//! transaction (every detail mode, small and default page sizes, prefix
//! indexes), queries agree, and files go both ways with the other side's
//! integrity check passing.

use crate::ext_fts5::{ok_check as ok, open_ours};
use crate::sql_common::{run_ours, run_ref, RefDb};
use ringlite::Connection;

const SHADOW: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term;\
    SELECT * FROM t_config ORDER BY k";

/// Same shadow rows on both sides, the first difference reported.
fn same_shadow(c: &mut Connection, r: &RefDb, what: &str) {
    crate::ext_fts5::same_shadow(c, r, SHADOW, what);
}

fn same(c: &mut Connection, r: &RefDb, s: &str) {
    assert_eq!(run_ours(c, s), run_ref(r, s), "{s}");
}

/// Random documents over a vocabulary without accents, rare words below 60.
struct Rng(crate::ext_fts5::Rng);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }
    fn doc(&mut self, words: usize) -> String {
        self.0.words(words, &["alpha", "beta", "gamma", "delta", "x", "y", "Zeta", "prefixed", "prefixes", "prelude", "common", "common"], 60)
    }
}

/// Random transactions: inserts (rowids mostly rising, some far apart),
/// many deletes and updates of existing rows, some deletes of several
/// rows between transactions.
fn script(seed: u64, txns: usize) -> Vec<String> {
    let mut g = Rng(crate::ext_fts5::Rng(seed));
    let mut out = Vec::new();
    let mut rowid = 0i64;
    for _ in 0..txns {
        out.push("BEGIN".into());
        for _ in 0..1 + g.below(10) {
            let sql = match g.below(10) {
                0..=2 => format!("DELETE FROM t WHERE rowid = {}", g.below(rowid as u64 + 1)),
                // (Outside the transaction: a statement that may change
                // several rows opens a savepoint, where SQLite flushes.)
                3 => format!("COMMIT; DELETE FROM t WHERE rowid % {} = {}; BEGIN", 2 + g.below(5), g.below(2)),
                4 => format!("UPDATE t SET b = '{}' WHERE rowid = {}", g.doc(3), g.below(rowid as u64 + 1)),
                5 => {
                    let n = 1 + g.below(30) as usize;
                    format!("UPDATE t SET a = '{}' WHERE rowid = {}", g.doc(n), g.below(rowid as u64 + 1))
                }
                _ => {
                    rowid += [1, 1, 2, 7, 300, 1 << 33][g.below(6) as usize];
                    let n = [0, 1, 5, 40, 200][g.below(5) as usize];
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

#[test]
fn secure_delete_pages_are_the_references_byte_for_byte() {
    let mut compared = 0;
    for (seed, decl, pgsz) in [
        (1, "a, b", 32),
        (2, "a, b", 64),
        (3, "a, b", 0),
        (4, "a, b, prefix='1 2'", 48),
        (5, "a, b UNINDEXED", 40),
        (6, "a, b, detail=column", 40),
        (7, "a, b, detail=none", 40),
        (8, "a, b, detail=none, prefix=1", 0),
        (9, "a, b, columnsize=0", 100),
    ] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let mut steps = vec![
            format!("CREATE VIRTUAL TABLE t USING fts5({decl})"),
            // Whole-level merges only (ringlite has no incremental ones):
            // the 10 transactions (and the deletes between them) make
            // fewer than 16 segments.
            "INSERT INTO t(t, rank) VALUES('automerge', 0)".to_string(),
            "INSERT INTO t(t, rank) VALUES('secure-delete', 1)".to_string(),
        ];
        if pgsz > 0 {
            steps.push(format!("INSERT INTO t(t, rank) VALUES('pgsz', {pgsz})"));
        }
        steps.extend(script(seed, 10));
        for s in &steps {
            same(&mut c, &r, s);
            if s == "COMMIT" {
                same_shadow(&mut c, &r, &format!("{decl} {pgsz} seed {seed}, after {compared}"));
                compared += 1;
            }
        }
        for s in [
            "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
            "SELECT rowid FROM t WHERE t MATCH 'pre*' ORDER BY rowid",
            "SELECT count(*) FROM t WHERE t MATCH 'x OR y OR w1*'",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('optimize')",
            SHADOW,
        ] {
            same(&mut c, &r, s);
        }
    }
    assert!(compared >= 9 * 10, "{compared}");
}

#[test]
fn secure_delete_setting_and_special_cases() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    for s in [
        "CREATE VIRTUAL TABLE t USING fts5(a)",
        "INSERT INTO t(t, rank) VALUES('secure-delete', 2)",
        "INSERT INTO t(t, rank) VALUES('secure-delete', ' 0 ')",
        "INSERT INTO t(t, rank) VALUES('secure-delete', '0x1')",
        "INSERT INTO t(t, rank) VALUES('secure-delete', -1)",
        "INSERT INTO t(t, rank) VALUES('secure-delete', 1.5)",
        "INSERT INTO t(t, rank) VALUES('secure-delete', NULL)",
        "INSERT INTO t(t, rank) VALUES('secure-delete', x'31')",
        "INSERT INTO t(t, rank) VALUES('secure-delete', 100000000000)",
        SHADOW,
        "INSERT INTO t(t, rank) VALUES('secure-delete', 0)",
        // Written without, deleted with: the delete-flagged entry of the
        // update loses its positions, keeping the flag.
        "INSERT INTO t VALUES('a b')",
        "UPDATE t SET a = 'a c' WHERE rowid = 1",
        "INSERT INTO t(t, rank) VALUES('secure-delete', 1)",
        "DELETE FROM t WHERE rowid = 1",
        SHADOW,
        "SELECT rowid FROM t('a OR b OR c')",
        "INSERT INTO t(t) VALUES('integrity-check')",
        // Inserted and deleted in one transaction: an emptied segment.
        "BEGIN",
        "INSERT INTO t(rowid, a) VALUES(500, 'qq')",
        "DELETE FROM t WHERE rowid = 500",
        "COMMIT",
        "INSERT INTO t VALUES('a b x')",
        "UPDATE t SET a = 'a c x' WHERE rowid = 501",
        SHADOW,
        "INSERT INTO t(t, rank) VALUES('secure-delete', 0)",
        "DELETE FROM t WHERE rowid = 501",
        SHADOW,
        // External content: the 'delete' command cuts entries too.
        "CREATE TABLE src(a)",
        "CREATE VIRTUAL TABLE e USING fts5(a, content=src)",
        "INSERT INTO e(e, rank) VALUES('secure-delete', 1)",
        "INSERT INTO e(rowid, a) VALUES(1, 'p q'), (2, 'q r')",
        "INSERT INTO e(e, rowid, a) VALUES('delete', 7, 'p q')",
        "INSERT INTO e(e, rowid, a) VALUES('delete', 1, 'p q')",
        "SELECT id, hex(block) FROM e_data ORDER BY id",
        "SELECT * FROM e_config",
        "SELECT rowid FROM e('q')",
    ] {
        same(&mut c, &r, s);
    }
}

#[test]
fn secure_deleted_files_go_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let path = path.to_str().unwrap();
    let mut c = open_ours(path);
    let r = RefDb::open();
    let mut steps = vec![
        "CREATE VIRTUAL TABLE t USING fts5(a, b, prefix=2)".to_string(),
        "INSERT INTO t(t, rank) VALUES('secure-delete', 1)".into(),
        "INSERT INTO t(t, rank) VALUES('pgsz', 64)".into(),
    ];
    steps.extend(script(11, 30));
    for s in &steps {
        same(&mut c, &r, s);
    }
    let queries = [
        "SELECT count(*) FROM t",
        "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
        "SELECT rowid FROM t WHERE t MATCH 'pre*' ORDER BY rowid",
        "SELECT rowid, highlight(t, 1, '[', ']') FROM t WHERE t MATCH 'x OR y' ORDER BY rowid LIMIT 30",
    ];
    let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
    drop(c);
    let f = RefDb::open_path(path);
    assert_eq!(run_ref(&f, check).pop(), ok());
    for q in queries {
        assert_eq!(run_ref(&f, q), run_ref(&r, q), "{q}");
    }
    // The reference deletes securely in ours' file (with its own merges).
    for s in script(12, 20) {
        let s = s.replace("INSERT INTO", "INSERT OR IGNORE INTO");
        run_ref(&f, &s);
        run_ref(&r, &s);
    }
    drop(f);
    let mut c = open_ours(path);
    assert_eq!(run_ours(&mut c, check).pop(), ok());
    for q in queries {
        assert_eq!(run_ours(&mut c, q), run_ref(&r, q), "{q}");
    }
    // Ours deletes in segments the reference merged.
    for s in script(13, 20) {
        let s = s.replace("INSERT INTO", "INSERT OR IGNORE INTO");
        same(&mut c, &r, &s);
    }
    assert_eq!(run_ours(&mut c, check).pop(), ok());
    for q in queries {
        assert_eq!(run_ours(&mut c, q), run_ref(&r, q), "{q}");
    }
    drop(c);
    let f = RefDb::open_path(path);
    assert_eq!(run_ref(&f, check).pop(), ok());
}
