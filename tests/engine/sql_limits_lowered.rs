//! Every `sqlite3_limit` category lowered per connection, differentially
//! against the reference SQLite 3.54.1: the statement, the point and the
//! error (code and message) where each limit is met. `SQLITE_LIMIT_LENGTH`
//! against literals, records, function results, concatenation,
//! aggregates and error messages; each other limit just under and just
//! over a lowered value; and the error SQLite names first when a
//! statement has several.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb};
use crate::sql_common::{
    LIMIT_ATTACHED, LIMIT_COLUMN, LIMIT_COMPOUND_SELECT, LIMIT_EXPR_DEPTH, LIMIT_FUNCTION_ARG, LIMIT_LENGTH, LIMIT_LIKE_PATTERN_LENGTH, LIMIT_PARSER_DEPTH,
    LIMIT_SCHEMA, LIMIT_SQL_LENGTH, LIMIT_TRIGGER_DEPTH, LIMIT_TRIGGER_STEPS, LIMIT_VARIABLE_NUMBER, LIMIT_VDBE_OP, LIMIT_WORKER_THREADS,
};
use libsqlite3_sys as ffi;

/// One case: limits set after `setup`, then `sql`.
struct Case {
    limits: Vec<(i32, i32)>,
    setup: String,
    sql: String,
}

fn case(limits: &[(i32, i32)], setup: &str, sql: impl Into<String>) -> Case {
    Case { limits: limits.to_vec(), setup: setup.to_string(), sql: sql.into() }
}

/// Run every case on both engines; panic listing every one that differs.
fn all_same(cases: &[Case]) {
    let mut differ = Vec::new();
    for c in cases {
        let mut ours = ours_open();
        let reference = RefDb::open();
        let (a, b) = (run_ours(&mut ours, &c.setup), run_ref(&reference, &c.setup));
        assert_eq!(a, b, "setup: {}", c.setup);
        for &(id, v) in &c.limits {
            assert_eq!(ours.limit(id, v), unsafe { ffi::sqlite3_limit(reference.0, id, v) }, "old value of limit {id}");
        }
        let (a, b) = (run_ours(&mut ours, &c.sql), run_ref(&reference, &c.sql));
        if a != b {
            let short = |o: &[Outcome]| format!("{o:?}").chars().take(300).collect::<String>();
            let shown: String = c.sql.chars().take(160).collect();
            differ.push(format!("limits {:?}: {shown}\n  ours: {}\n  ref:  {}", c.limits, short(&a), short(&b)));
        }
    }
    assert!(differ.is_empty(), "{} of {} cases differ:\n{}", differ.len(), cases.len(), differ.join("\n"));
}

fn x(n: usize) -> String {
    "x".repeat(n)
}

fn hex(n: usize) -> String {
    "ab".repeat(n)
}

#[test]
fn length_limit_on_literals_records_and_functions() {
    let setup = "CREATE TABLE t(a, b, c); CREATE TABLE e(a); INSERT INTO t VALUES(1, 'one', x'01'), (2, 'two', x'02');";
    let l = |n: i32| vec![(LIMIT_LENGTH, n)];
    let mut cases = Vec::new();
    for sql in [
        // Literals, where they are and are not reached.
        format!("SELECT '{}'", x(100)),
        format!("SELECT '{}'", x(101)),
        format!("SELECT x'{}'", hex(100)),
        format!("SELECT x'{}'", hex(101)),
        format!("SELECT length('{}')", x(101)),
        format!("SELECT '{}' FROM e", x(101)),
        format!("SELECT 1 FROM e WHERE a = '{}'", x(101)),
        format!("SELECT a FROM t WHERE b = '{}'", x(101)),
        format!("SELECT '{}' WHERE 0", x(101)),
        format!("SELECT CASE WHEN a > 5 THEN '{}' END FROM t", x(101)),
        format!("SELECT iif(a > 5, '{}', 1) FROM t", x(101)),
        format!("SELECT a FROM t WHERE a IN ('{}', 'z')", x(101)),
        format!("SELECT a FROM t ORDER BY a || '{}'", x(101)),
        format!("INSERT INTO t VALUES('{}', 1, 2)", x(101)),
        format!("INSERT INTO t VALUES(1, 2, x'{}')", hex(101)),
        format!("SELECT substr('{}', 1, 2)", x(101)),
        format!("SELECT typeof('{}')", x(101)),
        // Records: each value fits, the record does not.
        "INSERT INTO t VALUES(printf('%.98c', 'x'), 1, 2)".to_string(),
        "INSERT INTO t VALUES(printf('%.95c', 'x'), 1, 2)".to_string(),
        "INSERT INTO t VALUES(printf('%.40c', 'x'), printf('%.40c', 'y'), printf('%.40c', 'z'))".to_string(),
        "INSERT INTO t VALUES(zeroblob(98), 1, 2)".to_string(),
        "INSERT INTO t VALUES(zeroblob(40), zeroblob(40), zeroblob(40))".to_string(),
        "INSERT INTO e VALUES(printf('%.97c', 'x'))".to_string(),
        "INSERT INTO e VALUES(printf('%.96c', 'x'))".to_string(),
        "INSERT INTO e VALUES(zeroblob(97))".to_string(),
        "INSERT INTO e VALUES(zeroblob(96))".to_string(),
        "INSERT INTO t SELECT printf('%.40c', 'x'), printf('%.40c', 'y'), printf('%.40c', 'z')".to_string(),
        "CREATE TABLE u AS SELECT printf('%.40c', 'x') a, printf('%.40c', 'y') b, printf('%.40c', 'z') c".to_string(),
        "UPDATE t SET b = printf('%.40c', 'x'), c = printf('%.40c', 'y'), a = printf('%.40c', 'z')".to_string(),
        "SELECT printf('%.40c', 'x'), printf('%.40c', 'y'), printf('%.40c', 'z') ORDER BY 1".to_string(),
        "SELECT printf('%.40c', 'x'), printf('%.40c', 'y'), printf('%.40c', 'z') ORDER BY 1, nosuchcol".to_string(),
        "SELECT printf('%.40c', 'x') || a, printf('%.40c', 'y'), printf('%.40c', 'z') FROM t ORDER BY 1".to_string(),
        "SELECT DISTINCT printf('%.40c', 'x') || a, printf('%.40c', 'y'), printf('%.40c', 'z') FROM t".to_string(),
        "SELECT printf('%.40c', 'x') || a AS k, count(*) FROM t GROUP BY k, printf('%.40c', 'y'), printf('%.40c', 'z')".to_string(),
        "SELECT a FROM t WHERE b IN (SELECT printf('%.99c', 'x'))".to_string(),
        "SELECT a FROM t WHERE b IN (SELECT printf('%.97c', 'x'))".to_string(),
        "SELECT * FROM (SELECT printf('%.40c', 'x') || a, printf('%.40c', 'y'), printf('%.40c', 'z') FROM t ORDER BY 1 LIMIT 1)".to_string(),
        "WITH c(v) AS MATERIALIZED (SELECT printf('%.99c', 'x')) SELECT length(v) FROM c".to_string(),
        "SELECT a, row_number() OVER (ORDER BY printf('%.40c', 'x') || a, printf('%.40c', 'y'), printf('%.40c', 'z')) FROM t".to_string(),
        // Function results.
        "SELECT zeroblob(100)".to_string(),
        "SELECT zeroblob(101)".to_string(),
        "SELECT length(zeroblob(101))".to_string(),
        "SELECT typeof(zeroblob(101))".to_string(),
        "SELECT zeroblob(101) IS NULL".to_string(),
        "SELECT zeroblob(60) || zeroblob(41)".to_string(),
        "SELECT zeroblob(60) || zeroblob(40)".to_string(),
        "SELECT randomblob(101)".to_string(),
        "SELECT length(randomblob(100))".to_string(),
        "SELECT hex(randomblob(51))".to_string(),
        "SELECT hex(randomblob(50))".to_string(),
        "SELECT hex(zeroblob(51))".to_string(),
        "SELECT quote(zeroblob(49))".to_string(),
        "SELECT quote(zeroblob(48))".to_string(),
        "SELECT quote(printf('%.50c', ''''))".to_string(),
        "SELECT quote(printf('%.98c', 'x'))".to_string(),
        "SELECT quote(printf('%.99c', 'x'))".to_string(),
        "SELECT printf('%101d', 1)".to_string(),
        "SELECT printf('%100d', 1)".to_string(),
        "SELECT printf('%.101c', 'x')".to_string(),
        "SELECT printf('%.120f', 1.0)".to_string(),
        "SELECT printf('%s%s', printf('%.60c', 'x'), printf('%.41c', 'x'))".to_string(),
        // Literal text after the last conversion counts too.
        format!("SELECT length(printf('%s{}', printf('%.41c', 'y')))", x(60)),
        format!("SELECT length(printf('%s{}', printf('%.40c', 'y')))", x(60)),
        format!("SELECT printf('%s{}', printf('%.41c', 'y')) IS NULL", x(60)),
        "SELECT format('%s-%s', printf('%.60c', 'x'), printf('%.40c', 'x'))".to_string(),
        "SELECT printf('%.60c', 'x') || printf('%.41c', 'y')".to_string(),
        "SELECT printf('%.60c', 'x') || printf('%.40c', 'y')".to_string(),
        "SELECT concat(printf('%.60c', 'x'), printf('%.41c', 'y'))".to_string(),
        "SELECT concat(printf('%.60c', 'x'), printf('%.40c', 'y'))".to_string(),
        "SELECT concat_ws(',', printf('%.60c', 'x'), printf('%.40c', 'y'))".to_string(),
        "SELECT concat_ws(',', printf('%.60c', 'x'), printf('%.39c', 'y'))".to_string(),
        "SELECT replace('abc', 'b', printf('%.98c', 'x'))".to_string(),
        "SELECT replace('abc', 'b', printf('%.99c', 'x'))".to_string(),
        "SELECT replace('abcabc', 'b', printf('%.50c', 'x'))".to_string(),
        "SELECT upper(printf('%.100c', 'x'))".to_string(),
        "SELECT char(65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65,65)".to_string(),
        "SELECT unhex(printf('%.202c', 'a'))".to_string(),
        "SELECT unhex(printf('%.200c', 'a'))".to_string(),
        "SELECT CAST(zeroblob(60) AS TEXT) || printf('%.41c', 'x')".to_string(),
        "SELECT CAST(printf('%.60c', 'x') AS BLOB) || zeroblob(41)".to_string(),
        "SELECT CAST(zeroblob(101) AS TEXT)".to_string(),
        "SELECT json_array(printf('%.50c', 'x'), printf('%.50c', 'y'))".to_string(),
        "SELECT json_object('k', printf('%.95c', 'x'))".to_string(),
        "SELECT json_quote(printf('%.99c', 'x'))".to_string(),
        "SELECT json_group_array(printf('%.40c', 'x')) FROM t".to_string(),
        "SELECT json_group_object(b, printf('%.40c', 'x')) FROM t".to_string(),
        "SELECT group_concat(printf('%.50c', 'x')) FROM t".to_string(),
        "SELECT group_concat(printf('%.49c', 'x'), '') FROM t".to_string(),
        "SELECT group_concat(printf('%.50c', 'x'), '') FROM t".to_string(),
        "SELECT string_agg(printf('%.50c', 'x'), ',') FROM t".to_string(),
        "SELECT group_concat(DISTINCT printf('%.50c', 'x') || a) FROM t".to_string(),
        "SELECT group_concat(printf('%.50c', 'x'), '') OVER (ORDER BY a) FROM t".to_string(),
        "SELECT group_concat(printf('%.60c', 'x'), '') OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t".to_string(),
        "SELECT trim(printf('%.100c', 'x'))".to_string(),
        "SELECT unistr(printf('%.101c', 'x'))".to_string(),
        "SELECT b || printf('%.97c', 'x') FROM t".to_string(),
        "UPDATE t SET b = b || printf('%.97c', 'x')".to_string(),
        "SELECT sqlite_source_id() || printf('%.60c', 'x')".to_string(),
        // Messages longer than the limit.
        format!("SELECT {}", x(120)),
        format!("SELECT a FROM t WHERE {} > 1", x(60)),
        format!("SELECT * FROM {}", x(120)),
        format!("SELECT {}()", x(120)),
        format!("SELECT {}", x(40)),
        format!("SELECT * FROM {}", x(40)),
        format!("INSERT INTO {} VALUES(1)", x(90)),
        format!("CREATE TABLE {0}(a); CREATE TABLE {0}(a)", x(60)),
        "SELECT abs(1, 2, 3)".to_string(),
        "SELECT raise(ABORT, 'a long message past the length limit of the connection here')".to_string(),
        "CREATE TABLE v(a UNIQUE); INSERT INTO v VALUES(1); INSERT INTO v VALUES(1)".to_string(),
        format!("CREATE TABLE v({0} UNIQUE, {0}y, UNIQUE({0}, {0}y)); INSERT INTO v VALUES(1, 1); INSERT INTO v VALUES(1, 1)", x(40)),
        format!("CREATE TABLE v({0} NOT NULL); INSERT INTO v VALUES(NULL)", x(80)),
        format!("CREATE TABLE v(a CHECK(a > 0) CONSTRAINT {} CHECK(a > 1)); INSERT INTO v VALUES(1)", x(80)),
    ] {
        cases.push(case(&l(100), setup, sql));
    }
    // The floor (30) and a lowered limit on the statements SQLite runs
    // for itself.
    for n in [0, 1, 29, 30, 31] {
        for sql in [
            "SELECT printf('%.30c', 'x')",
            "SELECT printf('%.31c', 'x')",
            "SELECT zeroblob(31)",
            "CREATE TABLE v(a); INSERT INTO v VALUES(1); SELECT * FROM v",
            "CREATE INDEX i ON t(a); SELECT name FROM sqlite_schema",
            "SELECT nosuchcolumn_with_a_long_name_here FROM t",
        ] {
            cases.push(case(&l(n), setup, sql));
        }
    }
    // SQLITE_LIMIT_SQL_LENGTH.
    for n in [10, 29, 30, 31, 50] {
        for sql in ["SELECT 1", "SELECT 123456789012345678901", "SELECT 1; SELECT 2; SELECT 3; SELECT 4; SELECT 5", "SELECT 12345678901234567890123; SELECT 2"]
        {
            cases.push(case(&[(LIMIT_SQL_LENGTH, n)], setup, sql));
        }
    }
    all_same(&cases);
}

#[test]
fn each_limit_just_under_and_over_a_lowered_value() {
    let t = "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 2, 3);";
    let mut cases = Vec::new();
    let list = |n: usize, item: &str| vec![item; n].join(", ");
    // SQLITE_LIMIT_COLUMN.
    for n in [5, 6] {
        let lim = [(LIMIT_COLUMN, 5)];
        let cols = (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>();
        for sql in [
            format!("CREATE TABLE u({})", cols.join(", ")),
            format!("CREATE TABLE u AS SELECT {}", list(n, "1")),
            format!("SELECT {}", list(n, "1")),
            format!("SELECT a FROM t ORDER BY {}", list(n, "a")),
            format!("SELECT a FROM t GROUP BY {}", list(n, "a")),
            format!("SELECT a FROM t UNION SELECT b FROM t ORDER BY {}", list(n, "1")),
            format!("CREATE INDEX i ON t({})", list(n, "a")),
            format!("VALUES({})", list(n, "1")),
            format!("INSERT INTO t SELECT {}", list(n, "1")),
            format!("INSERT INTO t({}) VALUES({})", list(n, "a"), list(n, "1")),
            format!("UPDATE t SET {}", list(n, "a = 1")),
            format!("CREATE VIEW v({}) AS SELECT 1", cols.join(", ")),
            format!("WITH w({}) AS (SELECT 1) SELECT * FROM w", cols.join(", ")),
            format!("SELECT count(*) OVER (PARTITION BY {}) FROM t", list(n, "a")),
            format!("SELECT group_concat(a ORDER BY {}) FROM t", list(n, "a")),
            format!("INSERT INTO t VALUES(1, 2, 3) RETURNING {}", list(n, "a")),
            format!("SELECT * FROM t AS x, t AS y{}", if n == 6 { "" } else { " WHERE 0" }),
            format!("CREATE VIRTUAL TABLE vt USING fts5({})", cols.join(", ")),
            format!("CREATE VIRTUAL TABLE vt USING rtree({})", cols.join(", ")),
            format!("ALTER TABLE t ADD COLUMN d{n}"),
            format!("SELECT a FROM t WHERE (a, b) IN (SELECT {})", list(n, "1")),
            format!("SELECT max({}) FROM t", list(n, "a")),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_EXPR_DEPTH.
    for n in [5, 6] {
        let lim = [(LIMIT_EXPR_DEPTH, 5)];
        let plus = vec!["1"; n].join(" + ");
        for sql in [
            format!("SELECT {plus}"),
            format!("SELECT a FROM t WHERE {}", vec!["a = 1"; n].join(" AND ")),
            format!("SELECT a FROM t ORDER BY {plus}"),
            format!("CREATE TABLE u(a CHECK({plus}))"),
            format!("CREATE INDEX i ON t({plus})"),
            format!("CREATE VIEW v AS SELECT {plus}"),
            format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n)),
            format!("SELECT * FROM {}t{}", "(SELECT * FROM ".repeat(n), ")".repeat(n)),
            format!("SELECT {}", vec!["abs("; n].join("") + "1" + &")".repeat(n)),
            format!("SELECT CASE {} END", vec!["WHEN 1 THEN 1"; n].join(" ")),
            format!("SELECT 1 IN ({})", list(n, "1")),
            format!("UPDATE t SET a = {plus}"),
            format!("INSERT INTO t VALUES({plus}, 1, 1)"),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_EXPR_DEPTH below 3 against views and CTEs in FROM.
    let views = "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 2, 3); CREATE VIEW v AS SELECT a FROM t; CREATE VIEW vv AS SELECT * FROM v;";
    for v in [0, 1, 2, 3] {
        for sql in [
            "SELECT * FROM v",
            "SELECT * FROM vv",
            "SELECT a FROM t WHERE a IN (SELECT a FROM v)",
            "WITH c AS (SELECT 1) SELECT * FROM c",
            "WITH c AS MATERIALIZED (SELECT 1) SELECT * FROM c",
            "SELECT * FROM (SELECT 1)",
            "SELECT * FROM (SELECT * FROM (SELECT 1))",
            "SELECT (SELECT 1)",
        ] {
            cases.push(case(&[(LIMIT_EXPR_DEPTH, v)], views, sql));
        }
    }
    // SQLITE_LIMIT_COMPOUND_SELECT.
    for n in [3, 4] {
        let lim = [(LIMIT_COMPOUND_SELECT, 3)];
        for sql in [
            vec!["SELECT 1"; n].join(" UNION ALL "),
            vec!["SELECT a FROM t"; n].join(" UNION "),
            vec!["SELECT 1"; n].join(" EXCEPT "),
            format!("SELECT * FROM ({})", vec!["SELECT 1"; n].join(" INTERSECT ")),
            format!("VALUES {}", vec!["(1)"; n].join(", ")),
            format!("CREATE VIEW v AS {}", vec!["SELECT 1"; n].join(" UNION ALL ")),
            format!("INSERT INTO t {}", vec!["SELECT 1, 2, 3"; n].join(" UNION ALL ")),
            format!("WITH w AS ({}) SELECT * FROM w", vec!["SELECT 1"; n].join(" UNION ALL ")),
            format!("SELECT 1 VALUES {}", vec!["(1)"; n].join(", ")),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_COMPOUND_SELECT at 0 (no limit) and 1.
    for v in [0, 1, 2] {
        cases.push(case(&[(LIMIT_COMPOUND_SELECT, v)], t, "SELECT 1 UNION SELECT 2 UNION SELECT 3"));
        cases.push(case(&[(LIMIT_COMPOUND_SELECT, v)], t, "SELECT 1 UNION SELECT 2"));
    }
    // SQLITE_LIMIT_VDBE_OP.
    for v in [1, 5, 20, 60] {
        for sql in ["SELECT 1", "SELECT a, b, c FROM t WHERE a > 0 ORDER BY b", "CREATE TABLE u(a)", "BEGIN", "PRAGMA user_version"] {
            cases.push(case(&[(LIMIT_VDBE_OP, v)], t, sql));
        }
    }
    // SQLITE_LIMIT_FUNCTION_ARG.
    for n in [3, 4] {
        let lim = [(LIMIT_FUNCTION_ARG, 3)];
        for sql in [
            format!("SELECT max({})", list(n, "1")),
            format!("SELECT nosuch({})", list(n, "1")),
            format!("SELECT printf({})", list(n, "'%d'")),
            format!("SELECT char({})", list(n, "65")),
            format!("SELECT json_array({})", list(n, "1")),
            format!("SELECT count(*) OVER (ORDER BY a) FROM t WHERE coalesce({})", list(n, "a")),
            format!("SELECT a FROM t WHERE a IN ({})", list(n, "1")),
            format!("CREATE TABLE u(a DEFAULT (max({})))", list(n, "1")),
            format!("SELECT group_concat(a, ',' ORDER BY {}) FROM t", list(n, "a")),
            format!("SELECT * FROM json_each({})", list(n, "'[1]'")),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_ATTACHED.
    for v in [0, 1, 2] {
        let lim = [(LIMIT_ATTACHED, v)];
        cases.push(case(&lim, t, "ATTACH ':memory:' AS a1"));
        cases.push(case(&lim, t, "ATTACH ':memory:' AS a1; ATTACH ':memory:' AS a2"));
        cases.push(case(&lim, t, "ATTACH ':memory:' AS a1; ATTACH ':memory:' AS a2; ATTACH ':memory:' AS a3"));
        cases.push(case(&lim, t, "ATTACH ':memory:' AS a1; DETACH a1; ATTACH ':memory:' AS a2"));
    }
    cases.push(case(&[(LIMIT_ATTACHED, 1)], "ATTACH ':memory:' AS a1; ATTACH ':memory:' AS a2", "SELECT name FROM pragma_database_list"));
    cases.push(case(&[(LIMIT_ATTACHED, 1)], "ATTACH ':memory:' AS a1; ATTACH ':memory:' AS a2", "ATTACH ':memory:' AS a3"));
    // SQLITE_LIMIT_LIKE_PATTERN_LENGTH.
    for n in [10, 11] {
        let lim = [(LIMIT_LIKE_PATTERN_LENGTH, 10)];
        let p = "a".repeat(n);
        for sql in [
            format!("SELECT 'a' LIKE '{p}'"),
            format!("SELECT 'a' GLOB '{p}'"),
            format!("SELECT 'a' NOT LIKE '{p}'"),
            format!("SELECT 'a' LIKE '{p}' ESCAPE 'x'"),
            format!("SELECT like('{p}', 'a')"),
            format!("SELECT glob('{p}', 'a')"),
            format!("SELECT a FROM t WHERE b LIKE '{p}'"),
            format!("SELECT a FROM t WHERE 0 AND b LIKE '{p}'"),
            format!("SELECT 'a' LIKE '{}'", "%".repeat(n)),
            format!("SELECT 'a' LIKE '{}'", "é".repeat(n)),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_VARIABLE_NUMBER.
    for n in [5, 6] {
        let lim = [(LIMIT_VARIABLE_NUMBER, 5)];
        for sql in [
            format!("SELECT {}", list(n, "?")),
            format!("SELECT ?{n}"),
            format!("SELECT {}", (0..n).map(|i| format!(":v{i}")).collect::<Vec<_>>().join(", ")),
            format!("SELECT {}", (0..n).map(|i| format!("@v{i}")).collect::<Vec<_>>().join(", ")),
            format!("SELECT {}", (0..n).map(|i| format!("$v{i}")).collect::<Vec<_>>().join(", ")),
            format!("SELECT ?{n}, ?"),
            format!("SELECT :a, ?{n}"),
            format!("SELECT a FROM t WHERE a IN ({})", list(n, "?")),
            format!("INSERT INTO t VALUES(?, ?, ?); SELECT ?{n}"),
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    for sql in ["SELECT ?0", "SELECT ?-1", "SELECT ?1a", "SELECT ?99999999999"] {
        cases.push(case(&[(LIMIT_VARIABLE_NUMBER, 5)], t, sql));
    }
    // SQLITE_LIMIT_TRIGGER_DEPTH.
    let chain = "CREATE TABLE t1(a); CREATE TABLE t2(a); CREATE TABLE t3(a); CREATE TABLE t4(a);
                 CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN INSERT INTO t2 VALUES(new.a); END;
                 CREATE TRIGGER r2 AFTER INSERT ON t2 BEGIN INSERT INTO t3 VALUES(new.a); END;
                 CREATE TRIGGER r3 AFTER INSERT ON t3 BEGIN INSERT INTO t4 VALUES(new.a); END;";
    let recursive = "PRAGMA recursive_triggers = 1; CREATE TABLE r(a);
                     CREATE TRIGGER rr AFTER INSERT ON r WHEN new.a < 5 BEGIN INSERT INTO r VALUES(new.a + 1); END;";
    let fk = "PRAGMA foreign_keys = 1; CREATE TABLE p(a PRIMARY KEY); CREATE TABLE c1(a REFERENCES p ON DELETE CASCADE PRIMARY KEY);
              CREATE TABLE c2(a REFERENCES c1 ON DELETE CASCADE PRIMARY KEY); CREATE TABLE c3(a REFERENCES c2 ON DELETE CASCADE);
              INSERT INTO p VALUES(1); INSERT INTO c1 VALUES(1); INSERT INTO c2 VALUES(1); INSERT INTO c3 VALUES(1);";
    for v in [0, 1, 2, 3, 4] {
        let lim = [(LIMIT_TRIGGER_DEPTH, v)];
        cases.push(case(&lim, chain, "INSERT INTO t1 VALUES(1); SELECT (SELECT count(*) FROM t4)"));
        cases.push(case(&lim, recursive, "INSERT INTO r VALUES(1); SELECT count(*) FROM r"));
        cases.push(case(&lim, recursive, "INSERT INTO r VALUES(3); SELECT count(*) FROM r"));
        cases.push(case(&lim, fk, "DELETE FROM p; SELECT (SELECT count(*) FROM c3)"));
        cases.push(case(&lim, chain, "INSERT INTO t1 SELECT 1 WHERE 0; SELECT (SELECT count(*) FROM t4)"));
        cases.push(case(&lim, chain, "INSERT INTO t3 VALUES(1); SELECT (SELECT count(*) FROM t4)"));
        cases.push(case(&lim, fk, "DELETE FROM p WHERE 0"));
    }
    // A self-referencing ON DELETE CASCADE chain: each level is the same
    // action, run again as its row goes (SQLite's trigger program,
    // held to the trigger depth at run time).
    let cascade = "PRAGMA foreign_keys = 1; CREATE TABLE n(id PRIMARY KEY, up REFERENCES n ON DELETE CASCADE);
                   WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20) INSERT INTO n SELECT i, nullif(i - 1, 0) FROM c;";
    for v in [5, 19, 20, 21, 1000] {
        cases.push(case(&[(LIMIT_TRIGGER_DEPTH, v)], cascade, "DELETE FROM n WHERE id = 1; SELECT count(*) FROM n"));
    }
    // SQLITE_LIMIT_PARSER_DEPTH.
    for v in [20, 30] {
        let lim = [(LIMIT_PARSER_DEPTH, v)];
        for n in [10, 20, 25, 30, 40] {
            for sql in [
                format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n)),
                format!("SELECT {}1{}", "abs(".repeat(n), ")".repeat(n)),
                format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n)),
                format!("SELECT 1 WHERE {}1{}", "NOT (".repeat(n), ")".repeat(n)),
                format!("SELECT {}", vec!["1"; n].join(" + ")),
                format!("SELECT {}1", "-".repeat(n)),
                format!("SELECT CASE {} END", vec!["WHEN 1 THEN 1"; n].join(" ")),
                format!("SELECT * FROM {}t{}", "(SELECT * FROM ".repeat(n), ")".repeat(n)),
            ] {
                cases.push(case(&lim, t, sql));
            }
        }
    }
    // SQLITE_LIMIT_WORKER_THREADS: accepted, no error.
    for v in [0, 1, 8, 9] {
        cases.push(case(&[(LIMIT_WORKER_THREADS, v)], t, "PRAGMA threads"));
        cases.push(case(&[(LIMIT_WORKER_THREADS, v)], t, "SELECT a FROM t ORDER BY b"));
    }
    // SQLITE_LIMIT_TRIGGER_STEPS.
    for v in [1, 2, 3] {
        let lim = [(LIMIT_TRIGGER_STEPS, v)];
        for sql in [
            "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END",
            "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; SELECT 3; END",
            "CREATE TEMP TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; SELECT 3; END",
            "CREATE TRIGGER IF NOT EXISTS g AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; SELECT nosuch; END",
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    // SQLITE_LIMIT_SCHEMA.
    for v in [1, 2, 3, 4] {
        let lim = [(LIMIT_SCHEMA, v)];
        for sql in [
            "CREATE TABLE u(a)",
            "CREATE TABLE u(a); CREATE TABLE w(a)",
            "CREATE TABLE u(a PRIMARY KEY, b UNIQUE)",
            "CREATE INDEX i ON t(a); CREATE INDEX j ON t(b)",
            "CREATE VIEW v AS SELECT 1; CREATE VIEW w AS SELECT 2",
            "CREATE TEMP TABLE u(a); CREATE TEMP TABLE w(a); CREATE TEMP TABLE z(a)",
            "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END; CREATE TRIGGER h AFTER INSERT ON t BEGIN SELECT 1; END",
            "SELECT count(*) FROM sqlite_schema",
        ] {
            cases.push(case(&lim, t, sql));
        }
    }
    all_same(&cases);
}

#[test]
fn the_schema_limit_applies_when_the_schema_is_read() {
    let dir = std::env::temp_dir().join(format!("ringlite-schema-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (p_ours, p_ref) = (dir.join("ours.db"), dir.join("ref.db"));
    let flags = ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE);
    let setup = "CREATE TABLE a(x PRIMARY KEY); CREATE TABLE b(y); CREATE INDEX bi ON b(y); CREATE VIEW v AS SELECT 1;";
    {
        let mut ours = ringlite::Connection::open(p_ours.to_str().unwrap(), flags).unwrap();
        let reference = RefDb::open_path(p_ref.to_str().unwrap());
        assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    }
    let mut differ = Vec::new();
    for v in [1, 3, 4, 5] {
        let mut ours = ringlite::Connection::open(p_ours.to_str().unwrap(), flags).unwrap();
        let reference = RefDb::open_path(p_ref.to_str().unwrap());
        assert_eq!(ours.limit(LIMIT_SCHEMA, v), unsafe { ffi::sqlite3_limit(reference.0, LIMIT_SCHEMA, v) });
        for sql in ["SELECT * FROM b", "SELECT 1", "SELECT * FROM b"] {
            let (a, b) = (run_ours(&mut ours, sql), run_ref(&reference, sql));
            if a != b {
                differ.push(format!("limit {v}: {sql}\n  ours: {a:?}\n  ref:  {b:?}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn the_first_of_several_errors_is_sqlites() {
    let setup = "CREATE TABLE t(a, b); CREATE TABLE u(a, c); CREATE VIEW v AS SELECT a FROM t;";
    let mut cases = Vec::new();
    for sql in [
        "SELECT nosuchcol FROM nosuchtab",
        "SELECT nosuchcol FROM t, nosuchtab",
        "SELECT a FROM t, u",
        "SELECT a, nosuchcol FROM t, u",
        "SELECT nosuchcol, a FROM t, u",
        "SELECT a FROM t JOIN u ON nosuchcol WHERE nosuch2",
        "SELECT a FROM t JOIN u USING(nosuchcol)",
        "SELECT nosuchfn(a), nosuchcol FROM t",
        "SELECT nosuchcol, nosuchfn(a) FROM t",
        "SELECT abs(a, b), nosuchcol FROM t",
        "SELECT nosuchcol, abs(a, b) FROM t",
        "SELECT count(*) FROM t WHERE count(*) > 1 AND nosuchcol",
        "SELECT a FROM t WHERE nosuchcol AND count(*) > 1",
        "SELECT a FROM t WHERE sum(a) > 1 GROUP BY nosuchcol",
        "SELECT a FROM t GROUP BY sum(a) HAVING nosuchcol",
        "SELECT a FROM t ORDER BY nosuchcol, 5",
        "SELECT a FROM t ORDER BY 5, nosuchcol",
        "SELECT a FROM t GROUP BY 5 ORDER BY nosuchcol",
        "SELECT a FROM t LIMIT nosuchcol OFFSET nosuch2",
        "SELECT a FROM t WHERE nosuchcol LIMIT a",
        "SELECT a FROM t UNION SELECT nosuchcol FROM u ORDER BY nosuch2",
        "SELECT a FROM t UNION SELECT a, c FROM u",
        "SELECT a, b FROM t UNION SELECT nosuchcol FROM u",
        "SELECT nosuchcol FROM t UNION SELECT a, c FROM u",
        "SELECT a FROM t UNION SELECT a FROM u ORDER BY nosuch2",
        "SELECT a FROM t UNION SELECT a FROM u ORDER BY 2",
        "SELECT x.a FROM t AS y",
        "SELECT x.a, nosuchcol FROM t AS y",
        "SELECT t.nosuchcol, u.nosuch FROM t, u",
        "SELECT main.t.a, nosuch.t.a FROM t",
        "SELECT * FROM t WHERE a = (SELECT nosuchcol FROM nosuchtab)",
        "SELECT * FROM nosuchtab WHERE a = (SELECT nosuchcol FROM t)",
        "SELECT * FROM t, nosuchtab1, nosuchtab2",
        "SELECT * FROM nosuchtab1 JOIN t ON nosuchcol",
        "SELECT * FROM t JOIN t",
        "SELECT * FROM t AS x JOIN u AS x",
        "SELECT * FROM t NATURAL JOIN u ON t.a = u.a",
        "SELECT a FROM t WHERE a MATCH 'x' AND nosuchcol",
        "SELECT a FROM t WHERE a = ?1 AND nosuchcol = ?0",
        "SELECT max(a) OVER w FROM t",
        "SELECT nosuchcol, max(a) OVER w FROM t",
        "SELECT row_number() FROM t",
        "SELECT row_number(), nosuchcol FROM t",
        "SELECT nosuchcol, row_number() FROM t",
        "SELECT count(DISTINCT a, b), nosuchcol FROM t",
        "SELECT abs(DISTINCT a), nosuchcol FROM t",
        "SELECT nosuchcol, abs(DISTINCT a) FROM t",
        "SELECT a FILTER (WHERE 1) FROM t",
        "SELECT sum(a) FILTER (WHERE nosuchcol), nosuch2 FROM t",
        "INSERT INTO nosuchtab SELECT nosuchcol FROM nosuch2",
        "INSERT INTO t(nosuchcol) SELECT nosuch2 FROM u",
        "INSERT INTO t(a) SELECT a, c FROM u",
        "INSERT INTO t(a, nosuchcol) VALUES(1)",
        "INSERT INTO t VALUES(nosuchcol, 1)",
        "INSERT INTO t VALUES(1, 2, 3)",
        "INSERT INTO t VALUES(nosuchcol)",
        "INSERT INTO v VALUES(1)",
        "INSERT INTO t SELECT * FROM u WHERE nosuchcol RETURNING nosuch2",
        "INSERT INTO t VALUES(1, 2) RETURNING nosuchcol, count(*)",
        "INSERT INTO t VALUES(1, 2) ON CONFLICT(nosuchcol) DO NOTHING",
        "INSERT INTO t VALUES(1, 2) ON CONFLICT(a) DO UPDATE SET nosuchcol = 1",
        "UPDATE nosuchtab SET nosuchcol = 1",
        "UPDATE t SET nosuchcol = 1 WHERE nosuch2",
        "UPDATE t SET a = nosuchcol WHERE nosuch2",
        "UPDATE t SET a = 1, nosuchcol = 2, b = nosuch2",
        "UPDATE t SET a = nosuch2, nosuchcol = 2",
        "UPDATE t SET a = u.c FROM u WHERE nosuchcol",
        "UPDATE t SET a = u.nosuch FROM nosuchtab AS u",
        "UPDATE v SET a = 1",
        "DELETE FROM nosuchtab WHERE nosuchcol",
        "DELETE FROM t WHERE nosuchcol RETURNING nosuch2",
        "DELETE FROM v",
        "DELETE FROM t WHERE count(*) > 1",
        "CREATE INDEX i ON nosuchtab(nosuchcol)",
        "CREATE INDEX i ON t(nosuchcol) WHERE nosuch2",
        "CREATE INDEX i ON t(a) WHERE nosuch2",
        "CREATE INDEX i ON t(a, nosuchcol, a)",
        "CREATE INDEX i ON t(a + nosuchcol)",
        "CREATE INDEX i ON t(a) WHERE abs(a, b)",
        "CREATE INDEX i ON v(a)",
        "CREATE VIEW w AS SELECT nosuchcol FROM nosuchtab",
        "CREATE VIEW w(x, y) AS SELECT a FROM t",
        "CREATE TABLE w AS SELECT nosuchcol FROM nosuchtab",
        "CREATE TABLE w(a, a)",
        "CREATE TABLE w(a PRIMARY KEY, b PRIMARY KEY)",
        "CREATE TABLE w(a CHECK(nosuchcol), b DEFAULT (nosuch2))",
        "CREATE TABLE w(a DEFAULT (nosuch2), b CHECK(nosuchcol))",
        "CREATE TABLE w(a, FOREIGN KEY(nosuchcol) REFERENCES t)",
        "CREATE TABLE w(a GENERATED ALWAYS AS (nosuchcol), b CHECK(nosuch2))",
        "CREATE TABLE w(a, b, PRIMARY KEY(nosuchcol))",
        "CREATE TABLE w(a, b, UNIQUE(a, nosuchcol))",
        "CREATE TRIGGER g AFTER INSERT ON nosuchtab BEGIN SELECT nosuchcol; END",
        "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT nosuchcol FROM nosuchtab; END",
        "CREATE TRIGGER g AFTER INSERT ON t WHEN nosuchcol BEGIN SELECT 1; END",
        "CREATE TRIGGER g INSTEAD OF INSERT ON t BEGIN SELECT 1; END",
        "CREATE TRIGGER g AFTER INSERT ON v BEGIN SELECT 1; END",
        "ALTER TABLE nosuchtab RENAME COLUMN a TO b",
        "ALTER TABLE t RENAME COLUMN nosuchcol TO b",
        "ALTER TABLE t RENAME COLUMN a TO b",
        "ALTER TABLE t DROP COLUMN nosuchcol",
        "ALTER TABLE v ADD COLUMN z",
        "WITH w AS (SELECT nosuchcol FROM t) SELECT nosuch2 FROM w",
        "WITH w(x, y) AS (SELECT a FROM t) SELECT * FROM w",
        "WITH w AS (SELECT 1), w AS (SELECT 2) SELECT * FROM w",
        "WITH RECURSIVE w(x) AS (SELECT 1 UNION ALL SELECT nosuchcol FROM w) SELECT * FROM w",
        "SELECT * FROM t WHERE a IN (SELECT a, c FROM u) AND nosuchcol",
        "SELECT * FROM t WHERE (a, b) = (SELECT a FROM u)",
        "SELECT * FROM t WHERE (a, b) = (1, 2, 3) AND nosuchcol",
        "SELECT * FROM t WHERE nosuchcol AND (a, b) = (1, 2, 3)",
        "SELECT (1, 2) = (1, 2, 3), nosuchcol FROM t",
        "SELECT abs((1, 2) < (1, 2, 3)) + nosuchcol FROM t",
        "SELECT (a, b) FROM t",
        "SELECT (a, b), nosuchcol FROM t",
        "SELECT nosuchcol, (a, b) FROM t",
        "SELECT a COLLATE nosuchcoll, nosuchcol FROM t",
        "SELECT nosuchcol, a COLLATE nosuchcoll FROM t",
        "PRAGMA nosuch.table_info(t)",
        "SELECT * FROM pragma_table_info(nosuchcol)",
        "SELECT * FROM json_each(nosuchcol)",
        "SELECT * FROM nosuchfn(1)",
        "SELECT * FROM t, json_each(nosuchcol) WHERE nosuch2",
        "SELECT a FROM t INDEXED BY nosuchidx WHERE nosuchcol",
        "SELECT nosuchcol FROM t INDEXED BY nosuchidx",
        "SELECT a FROM t WHERE a = 1 OR nosuchcol = 2 ORDER BY nosuch3",
        "SELECT DISTINCT nosuchcol FROM t ORDER BY nosuch2",
        "SELECT a AS x FROM t WHERE x = nosuchcol",
        "SELECT a AS x, x + 1 FROM t",
        "SELECT a AS x FROM t GROUP BY x HAVING nosuchcol",
        "SELECT * FROM (SELECT a FROM t) WHERE b",
        "SELECT * FROM nosuchtab, (SELECT nosuchcol FROM t)",
        "SELECT nosuchcol FROM (SELECT a FROM nosuchtab)",
        "SELECT * FROM t WHERE EXISTS (SELECT * FROM nosuchtab) AND nosuchcol",
        "SELECT sum(nosuchcol) FROM t GROUP BY nosuch2",
        "SELECT a FROM t GROUP BY a HAVING sum(b) > 1 AND count(nosuchcol)",
        "SELECT sum(sum(a)), nosuchcol FROM t",
        "SELECT nosuchcol, sum(sum(a)) FROM t",
        "SELECT sum(a) OVER (PARTITION BY nosuchcol ORDER BY nosuch2) FROM t",
        "SELECT sum(a) OVER (ORDER BY nosuch2 ROWS nosuchcol PRECEDING) FROM t",
        "SELECT likely(a, b), nosuchcol FROM t",
        "SELECT a FROM t WHERE a = 'x' COLLATE nosuchcoll AND nosuchcol",
        "SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t",
        "SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t UNION SELECT nosuch3 FROM t",
        "SELECT nosuch1 FROM t UNION ALL SELECT a FROM t UNION ALL SELECT nosuch3 FROM t",
        "SELECT nosuch1 FROM t UNION SELECT a FROM nosuchtab",
        "SELECT a FROM nosuchtab UNION SELECT nosuch2 FROM t",
        "SELECT nosuch1 FROM t EXCEPT SELECT nosuch2 FROM t ORDER BY 1",
        "SELECT a FROM t WHERE nosuch1 INTERSECT SELECT a FROM t WHERE nosuch2",
        "SELECT a FROM t UNION SELECT a FROM t WHERE nosuch2 ORDER BY nosuch3",
        "WITH w AS (SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t) SELECT * FROM w",
        "WITH w AS (SELECT nosuch1 FROM t), x AS (SELECT nosuch2 FROM t) SELECT * FROM w, x",
        "WITH w AS (SELECT nosuch1 FROM t), x AS (SELECT nosuch2 FROM t) SELECT * FROM x, w",
        "WITH w AS (SELECT nosuch1 FROM t) SELECT nosuch2 FROM t",
        "WITH w AS (SELECT nosuch1 FROM t) SELECT * FROM w WHERE nosuch2",
        "SELECT * FROM (SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t)",
        "SELECT a FROM t WHERE a IN (SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t)",
        "INSERT INTO t SELECT nosuch1, 1 FROM t UNION SELECT nosuch2, 2 FROM t",
        "CREATE VIEW w AS SELECT nosuch1 FROM t UNION SELECT nosuch2 FROM t",
        "VALUES(nosuch1) UNION SELECT nosuch2 FROM t",
        "SELECT nosuch1 FROM t UNION VALUES(nosuch2)",
        "VALUES(nosuch1), (nosuch2)",
        "SELECT abs(nosuch1) * nosuch2 FROM t",
        "SELECT abs(nosuch1) * (nosuch2 + 1) FROM t",
        "SELECT coalesce(abs(nosuch1), 1, nosuch2) FROM t",
        "SELECT coalesce(abs(nosuch1), nosuch2) FROM t",
        "SELECT abs(nosuch1) + CASE WHEN nosuch2 THEN 1 END FROM t",
        "SELECT abs(nosuch1) + (SELECT nosuch2) FROM t",
        "SELECT abs(nosuch1) + (SELECT nosuch2) + nosuch3 FROM t",
        "SELECT abs(nosuch1) + nosuch3 IN (SELECT nosuch2) FROM t",
        "SELECT abs(nosuch1 + nosuch2, nosuch3) FROM t",
        "SELECT EXISTS(SELECT t.a)",
        "SELECT EXISTS(SELECT nosuchcol)",
        "SELECT EXISTS(SELECT EXISTS(SELECT t.a))",
        "SELECT a FROM t WHERE EXISTS(SELECT t.a FROM u AS x)",
        "SELECT \"nosuchcol\" FROM nosuchtab",
        "SELECT 'x' FROM t WHERE \"nosuchcol\" = nosuch2",
    ] {
        cases.push(case(&[], setup, sql));
    }
    all_same(&cases);
}
