//! The `fts5vocab` module (`src/ext/fts5/vocab.rs`): the three kinds on
//! tables of every content kind and detail mode, the temp form naming another database,
//! argument errors, a vocabulary read inside a transaction (pending
//! changes seen), after generated inserts, updates and deletes, and on a
//! file the reference wrote, all compared with the reference.

use crate::sql_common::{run_ours, run_ref, RefDb};
use ringlite::{Connection, OpenFlags};

const VOCABS: &str = "CREATE VIRTUAL TABLE vr USING fts5vocab(ft, row); CREATE VIRTUAL TABLE vc USING fts5vocab('ft', 'col'); \
    CREATE VIRTUAL TABLE vi USING fts5vocab(\"ft\", INSTANCE); CREATE VIRTUAL TABLE temp.vt USING fts5vocab(main, ft, row)";

const READ: &[&str] = &[
    "SELECT * FROM vr",
    "SELECT * FROM vc",
    "SELECT rowid, * FROM vi",
    "SELECT * FROM vt",
    "SELECT * FROM vr WHERE term > 'c' ORDER BY cnt DESC, term",
    "SELECT typeof(term), typeof(doc), typeof(cnt), count(*) FROM vr",
];

fn compare(c: &mut Connection, r: &RefDb, what: &str) {
    for s in READ {
        assert_eq!(run_ours(c, s), run_ref(r, s), "{what}: {s}");
    }
}

#[test]
fn vocabularies_of_every_table_kind_as_sqlite() {
    let kinds = [
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, prefix=2)",
        "CREATE TABLE src(a, b); CREATE VIRTUAL TABLE ft USING fts5(a, b, content=src)",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, content='')",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b UNINDEXED, columnsize=0, tokenize=porter)",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, tokenize=trigram)",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, detail=column)",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, detail=none, prefix=1)",
        "CREATE VIRTUAL TABLE ft USING fts5(a, b, content='', detail=column)",
    ];
    for (k, create) in kinds.iter().enumerate() {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let setup = format!("{create}; {VOCABS}");
        assert_eq!(run_ours(&mut c, &setup), run_ref(&r, &setup), "{setup}");
        let target = if k == 1 { "src" } else { "ft" };
        let mut seed = 0x2545F4914F6CDD1Du64 + k as u64;
        let words = ["x", "y", "zeta", "héllo", "Wörld", "connected", "connecting", "a1"];
        for i in 1..=40 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let doc = |n: u64| (0..(1 + n % 7)).map(|j| words[((n >> (j * 3)) % 8) as usize]).collect::<Vec<_>>().join(" ");
            let stmt = match seed % 5 {
                0 if k != 2 && k != 7 => format!("DELETE FROM {target} WHERE rowid = {}", seed % i),
                1 if k == 0 || k == 4 => format!("UPDATE ft SET b = '{}' WHERE rowid = {}", doc(seed >> 9), seed % i),
                _ => format!("INSERT INTO {target}(rowid, a, b) VALUES({i}, '{}', '{}')", doc(seed), doc(seed >> 20)),
            };
            assert_eq!(run_ours(&mut c, &stmt), run_ref(&r, &stmt), "{stmt}");
        }
        if k == 1 {
            let s = "INSERT INTO ft(ft) VALUES('rebuild')";
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s));
        }
        compare(&mut c, &r, create);
        // Pending changes of an open transaction are part of the vocabulary.
        let w = format!("BEGIN; INSERT INTO {target}(rowid, a, b) VALUES(1000, 'newterm x', 'y')");
        assert_eq!(run_ours(&mut c, &w), run_ref(&r, &w));
        if k == 1 {
            let s = "INSERT INTO ft(rowid, a, b) VALUES(1000, 'newterm x', 'y')";
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s));
        }
        compare(&mut c, &r, create);
        assert_eq!(run_ours(&mut c, "ROLLBACK"), run_ref(&r, "ROLLBACK"));
        compare(&mut c, &r, create);
    }
}

#[test]
fn vocabulary_arguments_and_lookups_as_sqlite() {
    let dir = std::env::temp_dir().join(format!("ringlite-fts5vocab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ours_aux, ref_aux) = (dir.join("ours-aux.db"), dir.join("ref-aux.db"));
    let _ = std::fs::remove_file(&ours_aux);
    let _ = std::fs::remove_file(&ref_aux);
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let steps = [format!("ATTACH '{}' AS aux", ours_aux.display()), format!("ATTACH '{}' AS aux", ref_aux.display())];
    assert_eq!(run_ours(&mut c, &steps[0]), run_ref(&r, &steps[1]));
    for s in [
        "CREATE VIRTUAL TABLE aux.ft USING fts5(a, b); INSERT INTO aux.ft VALUES('aux one', 'two')",
        "CREATE TABLE plain(a); CREATE VIRTUAL TABLE cl USING fts5(a, content='')",
        "CREATE VIRTUAL TABLE temp.v1 USING fts5vocab(aux, ft, instance)",
        "CREATE VIRTUAL TABLE aux.v2 USING fts5vocab(ft, row)",
        "CREATE VIRTUAL TABLE v3 USING fts5vocab(ft, row)",
        "CREATE VIRTUAL TABLE v4 USING fts5vocab(plain, row)",
        "CREATE VIRTUAL TABLE v5 USING fts5vocab(cl, col)",
        "CREATE VIRTUAL TABLE v6 USING fts5vocab(main, cl, row)",
        "CREATE VIRTUAL TABLE v7 USING fts5vocab(cl)",
        "CREATE VIRTUAL TABLE v8 USING fts5vocab(cl, rows)",
        "CREATE VIRTUAL TABLE v9 USING fts5vocab(cl, row, x, y)",
        "SELECT * FROM v1",
        "SELECT * FROM aux.v2",
        "SELECT * FROM v3",
        "SELECT * FROM v4",
        "SELECT * FROM v5",
        "INSERT INTO cl(rowid, a) VALUES(-3, 'p q p')",
        "SELECT * FROM v5",
        "INSERT INTO v5 VALUES('a', 'a', 1, 2)",
        "DELETE FROM v5",
        "DROP TABLE cl",
        "SELECT * FROM v5",
        "PRAGMA table_info(v1)",
        "SELECT sql FROM sqlite_schema WHERE name LIKE 'v%' ORDER BY name",
    ] {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    drop(c);
    drop(r);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vocabulary_of_a_reference_file() {
    let dir = std::env::temp_dir().join(format!("ringlite-fts5vocab-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ref.db");
    let _ = std::fs::remove_file(&path);
    let p = path.to_str().unwrap();
    {
        let w = RefDb::open_path(p);
        let mut sql = String::from("CREATE VIRTUAL TABLE ft USING fts5(a, b); INSERT INTO ft(ft, rank) VALUES('pgsz', 64);");
        for i in 0..300 {
            sql.push_str(&format!("INSERT INTO ft(rowid, a, b) VALUES({i}, 'w{} w{} common', 'v{}');", i % 17, i % 5, i % 3));
        }
        sql.push_str("DELETE FROM ft WHERE rowid % 7 = 0;");
        sql.push_str(VOCABS.split("; CREATE VIRTUAL TABLE temp").next().unwrap());
        run_ref(&w, &sql);
    }
    // A fresh connection: the fts5 table is connected by the vocabulary.
    let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open");
    let r = RefDb::open_path(p);
    for s in ["SELECT * FROM vr", "SELECT * FROM vc", "SELECT count(*), sum(doc), max(offset) FROM vi", "SELECT * FROM vi WHERE term = 'v1' LIMIT 20"] {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
    drop(c);
    drop(r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// ORDER BY term (ascending) is the order the rows come in: no sort.
#[test]
fn vocab_order_by_term_needs_no_sort() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let setup =
        "CREATE VIRTUAL TABLE t1 USING fts5(a); INSERT INTO t1 VALUES('ghi def abc'), ('abc ghi def'); CREATE VIRTUAL TABLE rrr USING fts5vocab(t1, row);";
    assert_eq!(run_ours(&mut c, setup), run_ref(&r, setup));
    for sql in ["SELECT * FROM rrr ORDER BY term", "SELECT * FROM rrr ORDER BY term DESC"] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
        // The plan's lines: a sorter adds "USE TEMP B-TREE FOR ORDER BY".
        let eqp = format!("EXPLAIN QUERY PLAN {sql}");
        let lines = |o: Vec<crate::sql_common::Outcome>| match &o[..] {
            [crate::sql_common::Outcome::Rows { rows, .. }] => rows.len(),
            other => panic!("{other:?}"),
        };
        assert_eq!(lines(run_ours(&mut c, &eqp)), lines(run_ref(&r, &eqp)), "{eqp}");
    }
}
