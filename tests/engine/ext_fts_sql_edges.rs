//! FTS3/FTS4/FTS5 behaviours SQLite's own TCL tests (ext/fts5/test,
//! test/fts3*, test/fts4*) showed ringlite getting wrong, each compared
//! with the reference SQLite statement by statement: `detail=` prefixes,
//! the `match()` function, a LEFT JOIN's ON MATCH, rowids given as text,
//! last_insert_rowid() across the shadow-table writes of a commit, an
//! FTS4 external content table's columns, ALTER TABLE RENAME of an FTS5
//! table, empty option values, 'rebuild' of an emptied `%_data`, text
//! docid bounds, and an INSTEAD OF trigger under `REPLACE INTO view`.

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};

/// Every statement gives the same outcome on ours and the reference.
fn same_all(stmts: &[&str]) {
    let mut c = ours_open();
    let r = RefDb::open();
    for s in stmts {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
}

#[test]
fn fts5_options_accept_what_sqlite_accepts() {
    same_all(&[
        "CREATE VIRTUAL TABLE d1 USING fts5(a, detail=col)",
        "CREATE VIRTUAL TABLE d2 USING fts5(a, detail=c)",
        "CREATE VIRTUAL TABLE d3 USING fts5(a, detail=columns)",
        "CREATE VIRTUAL TABLE d4 USING fts5(a, detail=FU)",
        "CREATE VIRTUAL TABLE d5 USING fts5(a, detail=n)",
        "CREATE VIRTUAL TABLE d6 USING fts5(a, detail=columnsx)",
        "CREATE VIRTUAL TABLE d7 USING fts5(a, detail='')",
        "CREATE VIRTUAL TABLE d8 USING fts5(a, detail=)",
        "INSERT INTO d1 VALUES('x y z'); INSERT INTO d2 VALUES('x y z'); INSERT INTO d5 VALUES('x y z')",
        "SELECT rowid FROM d1('x + y')",
        "SELECT rowid FROM d2('a : x')",
        "SELECT rowid FROM d5('x AND z')",
        "SELECT * FROM d1_config; SELECT * FROM d5_config",
        "CREATE VIRTUAL TABLE e1 USING fts5(a, b, content=)",
        "INSERT INTO e1(rowid, a, b) VALUES(1, 'abc', 'def')",
        "SELECT rowid, * FROM e1('abc')",
        "CREATE VIRTUAL TABLE e2 USING fts5(a, tokenize=)",
        "INSERT INTO e2 VALUES('Héllo World')",
        "SELECT rowid FROM e2('hello')",
        "CREATE VIRTUAL TABLE e3 USING fts5(a, prefix=)",
        "CREATE VIRTUAL TABLE e4 USING fts5(a, columnsize=)",
        "SELECT name FROM sqlite_master ORDER BY name",
    ]);
}

#[test]
fn match_outside_a_virtual_table_and_in_left_join_on() {
    same_all(&[
        "SELECT match('a', 'b')",
        "SELECT 'a' MATCH 'b'",
        "SELECT match('a')",
        "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2)",
        "SELECT x MATCH 'b' FROM t",
        "CREATE VIRTUAL TABLE vt USING fts5(x)",
        "INSERT INTO vt VALUES('abc'), ('xyz')",
        "SELECT * FROM t LEFT JOIN vt ON (vt MATCH 'abc')",
        "SELECT * FROM t LEFT JOIN vt ON (vt MATCH 'abc') WHERE vt.x IS NULL",
        "SELECT * FROM t LEFT JOIN vt ON (vt MATCH 'abc' OR 1)",
        "SELECT * FROM t LEFT JOIN (SELECT rowid AS r, * FROM vt WHERE vt MATCH 'abc') ON t.x = r",
        "SELECT vt MATCH 'abc' FROM vt",
        "CREATE VIRTUAL TABLE f3 USING fts4(y)",
        "INSERT INTO f3 VALUES('abc')",
        "SELECT * FROM t LEFT JOIN f3 ON (f3 MATCH 'abc')",
        "SELECT * FROM t LEFT JOIN f3 ON (f3 MATCH 'nothing')",
        "CREATE VIRTUAL TABLE ft2 USING fts3(x); CREATE VIRTUAL TABLE ft3 USING fts3(y)",
        "INSERT INTO ft2 VALUES('abc'); INSERT INTO ft3 VALUES('abc')",
        "SELECT * FROM ft2, ft3 WHERE x MATCH y",
        "SELECT * FROM ft3, ft2 WHERE y MATCH x AND x MATCH y",
    ]);
}

#[test]
fn rowids_given_as_text_and_docid_bounds() {
    same_all(&[
        "CREATE VIRTUAL TABLE x4 USING fts5(a)",
        "INSERT INTO x4 VALUES('one two three')",
        "INSERT INTO x4(rowid, a) VALUES('2', 'one')",
        "INSERT INTO x4(rowid, a) VALUES('3.0', 'one')",
        "INSERT INTO x4(rowid, a) VALUES(4.0, 'one')",
        "INSERT INTO x4(rowid, a) VALUES(' 5 ', 'one')",
        "INSERT INTO x4(rowid, a) VALUES(6.5, 'one')",
        "INSERT INTO x4(rowid, a) VALUES('four', 'one')",
        "INSERT INTO x4(rowid, a) VALUES(x'37', 'one')",
        "UPDATE x4 SET rowid = 'four' WHERE rowid = 1",
        "UPDATE x4 SET rowid = '10' WHERE rowid = 1",
        "SELECT rowid, typeof(rowid) FROM x4",
        "CREATE VIRTUAL TABLE f USING fts4(a)",
        "INSERT INTO f(rowid, a) VALUES('3.0', 'e')",
        "INSERT INTO f(docid, a) VALUES('4.0', 'e')",
        "INSERT INTO f(rowid, a) VALUES('x', 'e')",
        "INSERT INTO f(docid, a) VALUES(x'00', 'e')",
        "INSERT INTO f(rowid, a) VALUES(7.5, 'e')",
        "WITH d(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM d WHERE i < 20) INSERT INTO f(rowid, a) SELECT i, 'e' FROM d",
        "SELECT rowid FROM f",
        "SELECT rowid FROM f WHERE f MATCH 'e' AND rowid BETWEEN '11.5' AND '14.2'",
        "SELECT rowid FROM f WHERE f MATCH 'e' AND rowid BETWEEN '11' AND '14'",
        "SELECT rowid FROM f WHERE f MATCH 'e' AND rowid > ' 17 '",
        "SELECT rowid FROM f WHERE rowid BETWEEN '11.5' AND '14.2'",
        "SELECT rowid FROM f WHERE f MATCH 'e' AND rowid < 'abc'",
        "SELECT rowid FROM f WHERE f MATCH 'e' AND rowid >= x'01'",
    ]);
}

#[test]
fn last_insert_rowid_survives_the_commit() {
    same_all(&[
        "CREATE VIRTUAL TABLE t1 USING fts4(str)",
        "INSERT INTO t1 VALUES('one string'); INSERT INTO t1 VALUES('two string')",
        "SELECT last_insert_rowid()",
        "BEGIN; INSERT INTO t1 VALUES('a'); INSERT INTO t1 VALUES('b'); INSERT INTO t1 VALUES('c'); COMMIT",
        "SELECT last_insert_rowid()",
        "BEGIN; INSERT INTO t1(rowid, str) VALUES(45, 'x'); INSERT INTO t1(rowid, str) VALUES(222, 'y')",
        "SELECT last_insert_rowid()",
        "COMMIT",
        "SELECT last_insert_rowid()",
        "CREATE VIRTUAL TABLE t5 USING fts5(str)",
        "INSERT INTO t5 VALUES('one string')",
        "SELECT last_insert_rowid()",
        "BEGIN; INSERT INTO t5 VALUES('a'); INSERT INTO t5 VALUES('b'); COMMIT",
        "SELECT last_insert_rowid()",
        "INSERT INTO t5(rowid, str) VALUES(-22, 'c')",
        "SELECT last_insert_rowid()",
    ]);
}

#[test]
fn fts4_external_content_without_columns_and_renamed_fts5() {
    same_all(&[
        "CREATE TABLE cc(a, b, c)",
        "INSERT INTO cc VALUES('x', 'y', 'z')",
        "CREATE VIRTUAL TABLE t5 USING fts4(content=cc)",
        "SELECT * FROM t5",
        "CREATE VIRTUAL TABLE t6 USING fts4(notindexed=a, content=cc)",
        "CREATE VIRTUAL TABLE t7 USING fts4(notindexed=d, content=cc)",
        "CREATE VIRTUAL TABLE t8 USING fts4(content=nosuch)",
        "SELECT name FROM sqlite_master ORDER BY name",
        "CREATE VIRTUAL TABLE \"a x\" USING fts5(a, x)",
        "INSERT INTO \"a x\" VALUES('a a a', 'x x x')",
        "ALTER TABLE \"a x\" RENAME TO \"x y\"",
        "SELECT name FROM sqlite_master ORDER BY name",
        "SELECT * FROM \"x y\"; SELECT rowid FROM \"x y\" WHERE \"x y\" MATCH 'a'",
        "CREATE VIRTUAL TABLE \"one/two\" USING fts5(one, columnsize=0)",
        "INSERT INTO \"one/two\"(rowid, one) VALUES(456, 'd d d')",
        "ALTER TABLE \"one/two\" RENAME TO \"three/four\"",
        "SELECT * FROM \"three/four\"; SELECT rowid FROM \"three/four\" WHERE \"three/four\" MATCH 'd'",
        "CREATE VIRTUAL TABLE c1 USING fts5(val, content='')",
        "INSERT INTO c1(rowid, val) VALUES(-1, 'drop table')",
        "ALTER TABLE c1 RENAME TO c2",
        "SELECT rowid FROM c2 WHERE c2 MATCH 'table'",
        "SELECT name FROM sqlite_master ORDER BY name",
        "INSERT INTO c2(c2) VALUES('integrity-check')",
    ]);
}

#[test]
fn rebuild_repairs_an_emptied_index_and_instead_of_replace() {
    same_all(&[
        "CREATE VIRTUAL TABLE f1 USING fts5(a, b)",
        "INSERT INTO f1 VALUES('one two', 'three'), ('four', 'five six')",
        "DELETE FROM f1_data",
        "INSERT INTO f1(f1) VALUES('rebuild')",
        "INSERT INTO f1(f1) VALUES('integrity-check')",
        "SELECT rowid FROM f1('five')",
        "CREATE VIRTUAL TABLE ft4 USING fts5(a, b)",
        "CREATE TABLE p(id INTEGER PRIMARY KEY, a, b)",
        "CREATE VIEW v4 AS SELECT rowid, * FROM ft4",
        "CREATE VIEW vp AS SELECT * FROM p",
        "CREATE TRIGGER t4_ai INSTEAD OF INSERT ON v4 BEGIN INSERT INTO ft4(rowid, a, b) VALUES(new.rowid, new.a, new.b); END",
        "CREATE TRIGGER t4_au INSTEAD OF UPDATE ON v4 BEGIN UPDATE ft4 SET rowid = new.rowid, a = new.a WHERE rowid = old.rowid; END",
        "CREATE TRIGGER tp_ai INSTEAD OF INSERT ON vp BEGIN INSERT INTO p(id, a, b) VALUES(new.id, new.a, new.b); END",
        "INSERT INTO ft4(rowid, a, b) VALUES(1, 'one', 'two'), (2, 'x', 'y')",
        "INSERT INTO p VALUES(1, 'one', 'two')",
        "REPLACE INTO v4(rowid, a, b) VALUES(1, 'five', 'six')",
        "INSERT INTO v4(rowid, a, b) VALUES(1, 'seven', 'eight')",
        "INSERT OR IGNORE INTO v4(rowid, a, b) VALUES(1, 'seven', 'eight')",
        "REPLACE INTO vp(id, a, b) VALUES(1, 'five', 'six')",
        "INSERT INTO vp(id, a, b) VALUES(1, 'seven', 'eight')",
        "INSERT INTO ft4(rowid, a, b) VALUES(3, 'p', 'q')",
        "UPDATE OR REPLACE ft4 SET rowid = 2 WHERE rowid = 3",
        "UPDATE OR REPLACE v4 SET rowid = 2 WHERE rowid = 1",
        "SELECT rowid, * FROM ft4; SELECT * FROM p",
        "INSERT INTO ft4(ft4) VALUES('integrity-check')",
    ]);
}

/// The built-in extensions' modules are listed by `PRAGMA module_list`
/// and its table-valued form (the reference lists more modules, so only
/// the extensions' names are compared).
#[test]
fn module_list_names_the_extension_modules() {
    let names = "('fts3', 'fts4', 'fts4aux', 'fts3tokenize', 'fts5', 'fts5vocab', 'rtree', 'rtree_i32', 'dbstat')";
    same_all(&[
        &format!("SELECT name FROM pragma_module_list WHERE name IN {names} ORDER BY name"),
        "SELECT * FROM pragma_module_list WHERE name = 'fts5'",
        "SELECT count(*) > 5 FROM pragma_module_list",
        "SELECT name FROM pragma_function_list WHERE name IN ('matchinfo', 'snippet', 'bm25', 'rtreecheck') ORDER BY name",
        "PRAGMA table_info(pragma_module_list)",
        "SELECT rtreecheck()",
        "SELECT rtreecheck(1, 2, 3)",
        "SELECT narg FROM pragma_function_list WHERE name = 'rtreecheck'",
    ]);
}

#[test]
fn fts5_column_declarations_parse_as_sqlite_reads_them() {
    // Words joined by a tab, a form feed or a newline, three words, and
    // characters outside barewords are parse errors (fts5fuzz1 1.1);
    // two words are a column option; a quoted word needs no space.
    let decls = [
        "a b",
        "a b c",
        "a\tb",
        "a\nb",
        "a\rb",
        "a\x0cb",
        "\x0ca",
        "a\x0c",
        "a\t unindexed",
        "a\x0cunindexed",
        "a$b",
        "a-b",
        "a.b",
        "a\u{e9}b",
        "a b\x0c",
        "x, a\x0c",
        "a  b",
        "a  unindexed",
        "a unindexed\t",
        "\ta unindexed",
        "a 'unindexed'",
        "'a b' unindexed",
        "a`b`",
        "a'b'",
        "'a'b",
        "a_1 unindexed",
        "a [x y]",
        "a \"b\" ",
        "a,\tb",
        "a UNINDEXED x",
        "a unindexed unindexed",
        "a b=c",
        "a, b unindexed c",
        "a UNINDEXED, b",
        "a,b c=d",
    ];
    for (k, d) in decls.iter().enumerate() {
        same_all(&[&format!("CREATE VIRTUAL TABLE f{k} USING fts5({d})"), &format!("SELECT name FROM pragma_table_info('f{k}')")]);
    }
}

#[test]
fn joins_on_an_fts5_table_leave_its_hidden_columns_alone() {
    // NATURAL JOIN: fts5's HIDDEN `rank` is no common column (on either
    // side); USING the table-named hidden column is the equality the
    // module takes as a MATCH and omits (fts5misc 12.x).
    same_all(&[
        "CREATE TABLE t1(a, b, rank); INSERT INTO t1 VALUES('a', 'hello', ''), ('b', 'world', '')",
        "CREATE VIRTUAL TABLE ft USING fts5(a); INSERT INTO ft VALUES('b'), ('y')",
        "CREATE TABLE t2(x, y, ft); INSERT INTO t2 VALUES(1, 2, 'x'), (3, 4, 'b')",
        "SELECT * FROM t1 NATURAL JOIN ft WHERE ft MATCH('b')",
        "SELECT * FROM ft NATURAL JOIN t1 WHERE ft MATCH('b')",
        "SELECT * FROM ft NATURAL JOIN t1",
        "SELECT * FROM t2 JOIN ft USING (ft)",
        "SELECT * FROM t2 LEFT JOIN ft USING (ft)",
        "SELECT * FROM ft JOIN t2 USING (ft)",
        "SELECT * FROM t2 JOIN ft ON t2.ft = ft.ft",
    ]);
}

#[test]
fn fts4_matchinfo_refuses_short_stat_and_docsize_records() {
    // 'n' needs the row count, 'a' it and a total per column, 'l' a size
    // per column: a record ending sooner (or inside a varint) is corrupt
    // (fts4aa 5.x).
    for (table, v) in [
        ("stat", "x''"),
        ("stat", "x'01'"),
        ("stat", "x'01010101'"),
        ("stat", "x'0101010181'"),
        ("stat", "x'88'"),
        ("stat", "x'0102030405'"),
        ("docsize", "x''"),
        ("docsize", "x'010101'"),
        ("docsize", "x'01010181'"),
        ("docsize", "x'88'"),
        ("docsize", "x'0101010181'"),
    ] {
        let set =
            if table == "stat" { format!("UPDATE t1_stat SET value = {v} WHERE id = 0") } else { format!("UPDATE t1_docsize SET size = {v} WHERE docid = 1") };
        same_all(&[
            "CREATE VIRTUAL TABLE t1 USING fts4(a, b, c, d)",
            "INSERT INTO t1 VALUES('one two', 'three four', 'five six', 'seven eight')",
            &set,
            "SELECT hex(matchinfo(t1, 'n')) FROM t1 WHERE t1 MATCH 'one two'",
            "SELECT hex(matchinfo(t1, 'a')) FROM t1 WHERE t1 MATCH 'one two'",
            "SELECT hex(matchinfo(t1, 'l')) FROM t1 WHERE t1 MATCH 'one two'",
            "SELECT hex(matchinfo(t1, 'pcx')) FROM t1 WHERE t1 MATCH 'one two'",
        ]);
    }
}

#[test]
fn fts5_rank_function_from_the_query_and_the_rank_option() {
    same_all(&[
        "CREATE VIRTUAL TABLE t1 USING fts5(a, b); INSERT INTO t1 VALUES('x y', 'z'), ('z', 'x x')",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25(10.0, 1.0)' ORDER BY rank",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank = 'bm25(10.0, 1.0)' ORDER BY rank DESC",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH ' BM25 ( 2 , -3 ) '",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25()'",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25(NULL, ''2'')'",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25'",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25(x)'",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25(1+1)'",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'nosuch(1)'",
        "SELECT rowid, rank FROM t1 WHERE rank MATCH 'bm25()'",
        "SELECT rowid FROM t1 WHERE rank MATCH 'bm25()' AND rank MATCH 'bm25(2)'",
        "INSERT INTO t1(t1, rank) VALUES('rank', 'bm25(10.0, 1.0)')",
        "SELECT * FROM t1_config",
        "SELECT rowid, rank, bm25(t1) FROM t1 WHERE t1 MATCH 'x' ORDER BY rank",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'bm25()' ORDER BY rank",
        "INSERT INTO t1(t1, rank) VALUES('rank', 'bm25(')",
        "INSERT INTO t1(t1, rank) VALUES('rank', 'bm25')",
        "INSERT INTO t1(t1, rank) VALUES('rank', 'nosuch(1)')",
        "SELECT * FROM t1_config",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x'",
        "SELECT rowid FROM t1",
        // highlight() and snippet() as rank functions: text, sorted so.
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'highlight(0, ''['', '']'')' ORDER BY rank",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x OR z' AND rank MATCH 'snippet(1, ''['', '']'', ''..'', 5)' ORDER BY rank DESC",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' AND rank MATCH 'highlight(0)'",
        "INSERT INTO t1(t1, rank) VALUES('rank', 'highlight(1, ''<'', ''>'')')",
        "SELECT rowid, rank FROM t1 WHERE t1 MATCH 'x' ORDER BY rank",
        "CREATE VIRTUAL TABLE t2 USING fts5(a, detail=none); INSERT INTO t2 VALUES('p q p'), ('q')",
        "SELECT rowid, rank FROM t2 WHERE t2 MATCH 'p' AND rank MATCH 'bm25(3)' ORDER BY rank",
    ]);
}
