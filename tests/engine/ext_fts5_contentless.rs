//! FTS5 `contentless_delete=1` (`src/ext/fts5/tombstone.rs`, `index.rs`,
//! `writer.rs`): deletes and updates of a contentless table write
//! tombstones into hash pages of the segment holding the row. The same
//! random transactions on ours and the reference SQLite leave the
//! shadow tables the same byte for byte after every transaction (every
//! detail mode, page sizes small enough for multi-page tombstone tables,
//! rowids needing 8-byte keys, UNINDEXED columns kept or not), queries
//! agree, errors are SQLite's, and files go both ways with the other
//! side's integrity check passing.

use crate::ext_fts5::{ok_check as ok, open_ours};
use crate::sql_common::{run_ours, run_ref, RefDb};
use ringlite::Connection;

const SHADOW: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term;\
    SELECT id, hex(sz), origin FROM t_docsize ORDER BY id; SELECT * FROM t_config ORDER BY k";

/// Same shadow rows on both sides, the first difference reported.
fn same_shadow(c: &mut Connection, r: &RefDb, what: &str) {
    crate::ext_fts5::same_shadow(c, r, SHADOW, what);
}

fn same(c: &mut Connection, r: &RefDb, s: &str) {
    assert_eq!(run_ours(c, s), run_ref(r, s), "{s}");
}

fn doc(g: &mut crate::ext_fts5::Rng, n: usize) -> String {
    g.words(n, &["alpha", "beta", "gamma", "x", "y", "prefixed", "prelude", "common", "common"], 40)
}

/// Random transactions: inserts (rowids mostly rising, some past 32
/// bits), many deletes, full updates and INSERT OR REPLACE of existing
/// rows, some deletes of several rows between transactions.
fn script(seed: u64, txns: usize, wide: bool) -> Vec<String> {
    let mut g = crate::ext_fts5::Rng(seed);
    let mut out = Vec::new();
    let mut rowid = 0i64;
    for _ in 0..txns {
        out.push("BEGIN".into());
        for _ in 0..1 + g.below(12) {
            let pick = g.below(rowid as u64 + 1);
            let sql = match g.below(12) {
                0..=3 => format!("DELETE FROM t WHERE rowid = {pick}"),
                4 => format!("COMMIT; DELETE FROM t WHERE rowid % {} = {}; BEGIN", 2 + g.below(5), g.below(2)),
                5 => format!("UPDATE t SET a = '{}', b = '{}' WHERE rowid = {pick}", doc(&mut g, 4), doc(&mut g, 1)),
                6 => format!("INSERT OR REPLACE INTO t(rowid, a, b) VALUES({pick}, '{}', 'r')", doc(&mut g, 3)),
                _ => {
                    let steps: &[i64] = if wide { &[1, 1, 2, 7, 300, 1 << 33] } else { &[1, 1, 1, 2, 3, 40] };
                    rowid += steps[g.below(steps.len() as u64) as usize];
                    let n = [0, 1, 3, 12][g.below(4) as usize];
                    format!("INSERT INTO t(rowid, a, b) VALUES({rowid}, '{}', '{}')", doc(&mut g, n), doc(&mut g, 1))
                }
            };
            out.push(sql);
        }
        out.push("COMMIT".into());
    }
    out
}

#[test]
fn contentless_delete_pages_are_the_references_byte_for_byte() {
    let mut compared = 0;
    for (seed, decl, pgsz, wide) in [
        (1, "a, b", 0, false),
        (2, "a, b", 64, false),
        (3, "a, b", 40, true),
        (4, "a, b, prefix='1 2'", 0, true),
        (5, "a, b UNINDEXED", 100, false),
        (6, "a, b UNINDEXED, contentless_unindexed=1", 0, false),
        (7, "a, b, detail=column", 48, false),
        (8, "a, b, detail=none", 0, true),
    ] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let mut steps = vec![
            format!("CREATE VIRTUAL TABLE t USING fts5({decl}, content='', contentless_delete=1)"),
            // Whole-level merges only (ringlite has no incremental ones).
            "INSERT INTO t(t, rank) VALUES('automerge', 0)".to_string(),
        ];
        if pgsz > 0 {
            steps.push(format!("INSERT INTO t(t, rank) VALUES('pgsz', {pgsz})"));
        }
        steps.extend(script(seed, 25, wide));
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
            "SELECT rowid, b FROM t ORDER BY rowid",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "PRAGMA integrity_check",
            "INSERT INTO t(t) VALUES('optimize')",
            SHADOW,
            "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
        ] {
            same(&mut c, &r, s);
        }
    }
    assert!(compared >= 8 * 25, "{compared}");
}

#[test]
fn contentless_delete_rules_and_errors() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    for s in [
        "CREATE VIRTUAL TABLE x USING fts5(a, contentless_delete=1)",
        "CREATE VIRTUAL TABLE x USING fts5(a, content='', contentless_delete=1, columnsize=0)",
        "CREATE VIRTUAL TABLE x USING fts5(a, content='', contentless_delete=2)",
        "CREATE VIRTUAL TABLE x USING fts5(a, content='', contentless_delete=0)",
        "DELETE FROM x WHERE rowid = 1",
        "CREATE VIRTUAL TABLE t USING fts5(a, b, content='', contentless_delete=1)",
        "SELECT name, sql FROM sqlite_master ORDER BY name",
        SHADOW,
        "INSERT INTO t(rowid, a, b) VALUES(1, 'x y', 'z'), (2, 'x q', 'z')",
        "INSERT INTO t(rowid, a, b) VALUES(0, 'zero', 'z'), (-5, 'minus', 'z')",
        "INSERT INTO t(t, rowid, a, b) VALUES('delete', 2, 'x q', 'z')",
        "DELETE FROM t WHERE rowid = 0",
        "DELETE FROM t WHERE rowid = -5",
        "DELETE FROM t WHERE rowid = 77",
        SHADOW,
        "UPDATE t SET a = 'k', b = 'j' WHERE rowid = 1",
        "UPDATE t SET rowid = 9, a = 'm', b = 'n' WHERE rowid = 2",
        "UPDATE OR REPLACE t SET rowid = 9, a = 'm', b = 'n' WHERE rowid = 1",
        SHADOW,
        "SELECT rowid FROM t('j OR k OR m OR x')",
        "INSERT INTO t(t) VALUES('integrity-check')",
        "INSERT INTO t(t) VALUES('optimize')",
        SHADOW,
        "INSERT INTO t(t) VALUES('delete-all')",
        SHADOW,
        "INSERT INTO t(t, rank) VALUES('deletemerge', 20)",
        "INSERT INTO t VALUES('after', 'all')",
        "SELECT rowid FROM t('after')",
        SHADOW,
        // Plain contentless tables still refuse.
        "CREATE VIRTUAL TABLE p USING fts5(a, content='')",
        "INSERT INTO p VALUES('a')",
        "DELETE FROM p WHERE rowid = 1",
        "UPDATE p SET a = 'b' WHERE rowid = 1",
    ] {
        same(&mut c, &r, s);
    }
}

#[test]
fn contentless_deleted_files_go_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cd.db");
    let path = path.to_str().unwrap();
    let mut c = open_ours(path);
    let r = RefDb::open();
    let mut steps = vec![
        "CREATE VIRTUAL TABLE t USING fts5(a, b, prefix=2, content='', contentless_delete=1)".to_string(),
        "INSERT INTO t(t, rank) VALUES('pgsz', 64)".into(),
        "INSERT INTO t(t, rank) VALUES('automerge', 0)".into(),
    ];
    steps.extend(script(11, 30, true));
    for s in &steps {
        same(&mut c, &r, s);
    }
    let queries =
        ["SELECT count(*) FROM t", "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid", "SELECT rowid FROM t WHERE t MATCH 'pre*' ORDER BY rowid"];
    let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
    drop(c);
    let f = RefDb::open_path(path);
    assert_eq!(run_ref(&f, check).pop(), ok());
    for q in queries {
        assert_eq!(run_ref(&f, q), run_ref(&r, q), "{q}");
    }
    // The reference deletes in ours' file (with its own merges).
    for s in script(12, 20, true) {
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
    // Ours deletes in segments the reference wrote.
    for s in script(13, 20, true) {
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

/// Automatic merges with SQLite's default 'automerge' and the merges
/// 'deletemerge' starts (a level whose tombstones reach that percentage
/// of its rows is merged when the write counter allows merge work and no
/// level has 'automerge' segments; the tombstones count as writes at
/// the flush): the same shadow bytes after every transaction, for
/// 'deletemerge' at its default, small, large, 0, past 100 and negative,
/// and through the 'merge' command.
#[test]
fn contentless_delete_merges_are_the_references_byte_for_byte() {
    let mut compared = 0;
    for (seed, decl, setup) in [
        (21, "a, b", ""),
        (22, "a, b", "INSERT INTO t(t, rank) VALUES('deletemerge', 1)"),
        (23, "a, b", "INSERT INTO t(t, rank) VALUES('deletemerge', 50)"),
        (24, "a, b, detail=none", "INSERT INTO t(t, rank) VALUES('deletemerge', 0)"),
        (25, "a, b", "INSERT INTO t(t, rank) VALUES('deletemerge', 150)"),
        (26, "a, b, detail=column", "INSERT INTO t(t, rank) VALUES('deletemerge', -4)"),
        (27, "a, b", "INSERT INTO t(t, rank) VALUES('automerge', 2); INSERT INTO t(t, rank) VALUES('deletemerge', 3)"),
        (28, "a, b UNINDEXED", "INSERT INTO t(t, rank) VALUES('pgsz', 64); INSERT INTO t(t, rank) VALUES('automerge', 16)"),
        (29, "a, b", "INSERT INTO t(t, rank) VALUES('crisismerge', 3); INSERT INTO t(t, rank) VALUES('deletemerge', 5)"),
    ] {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let mut steps = vec![format!("CREATE VIRTUAL TABLE t USING fts5({decl}, content='', contentless_delete=1)")];
        if !setup.is_empty() {
            steps.push(setup.to_string());
        }
        let mut g = crate::ext_fts5::Rng(seed);
        for (i, s) in script(seed, 60, false).into_iter().enumerate() {
            steps.push(s);
            // Now and then a user merge, its budget large enough for whole
            // merges (ringlite has no incremental ones).
            if i % 97 == 96 {
                steps.push(format!("INSERT INTO t(t, rank) VALUES('merge', {})", [500, 1000][g.below(2) as usize]));
            }
        }
        for s in &steps {
            same(&mut c, &r, s);
            // (Inside a transaction SQLite keeps the averages and the
            // structure in memory: compare after each COMMIT.)
            if s == "COMMIT" {
                same_shadow(&mut c, &r, &format!("{decl} [{setup}] seed {seed}, after {compared}"));
                compared += 1;
            }
        }
        for s in [
            "SELECT rowid FROM t WHERE t MATCH 'common' ORDER BY rowid",
            "SELECT count(*) FROM t WHERE t MATCH 'x OR y OR pre*'",
            "INSERT INTO t(t) VALUES('integrity-check')",
            "PRAGMA integrity_check",
        ] {
            same(&mut c, &r, s);
        }
    }
    assert!(compared >= 9 * 50, "{compared}");
}
