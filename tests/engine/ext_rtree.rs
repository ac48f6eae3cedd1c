//! The R*Tree module (`src/ext/rtree`) against the reference SQLite:
//! the same statements on both give the same rows, errors and plans, and
//! the same shadow-table bytes (node blobs included, SQLite's split
//! reproduced); files written by one are read, checked (`rtreecheck`,
//! `PRAGMA integrity_check`) and extended by the other.

use crate::sql_common::{check_each, ours_open, run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

/// A small deterministic generator (the same boxes on both sides).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn coord(&mut self) -> f64 {
        (self.next() % 100_000) as f64 / 7.0 - 5000.0
    }
}

/// Both engines on one script, statement outcomes compared.
fn both(c: &mut Connection, r: &RefDb, sql: &str) -> Vec<Outcome> {
    let a = run_ours(c, sql);
    let b = run_ref(r, sql);
    if a != b {
        let short = |o: &[Outcome]| format!("{o:?}").chars().take(600).collect::<String>();
        let first = match (&a[..], &b[..]) {
            ([Outcome::Rows { rows: x, .. }], [Outcome::Rows { rows: y, .. }]) => {
                let i = x.iter().zip(y.iter()).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
                format!("row {i} of {}/{}: {:?} vs {:?}", x.len(), y.len(), x.get(i), y.get(i))
            }
            _ => String::new(),
        };
        panic!("\nSQL: {sql}\n{first}\nours: {}\nref:  {}", short(&a), short(&b));
    }
    a
}

/// A script of random inserts, deletes and updates on table `t`.
fn workload(g: &mut Lcg, dims: usize, n: usize, aux: bool) -> Vec<String> {
    let mut out = Vec::new();
    let boxv = |g: &mut Lcg| -> String {
        (0..dims)
            .map(|_| {
                let lo = g.coord();
                let w = (g.next() % 3000) as f64 / 9.0;
                format!("{lo:?},{:?}", lo + w)
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let extra = if aux { ",'x',x'0102'" } else { "" };
    for i in 0..n {
        let id = if i % 3 == 0 { "NULL".to_string() } else { (g.next() % 1_000_000).to_string() };
        out.push(format!("INSERT OR REPLACE INTO t VALUES({id},{}{extra})", boxv(g)));
    }
    for _ in 0..n / 4 {
        out.push(format!("DELETE FROM t WHERE id = (SELECT id FROM t ORDER BY id LIMIT 1 OFFSET {})", g.next() % (n as u64 / 2)));
    }
    for _ in 0..n / 8 {
        let sets: Vec<String> = (0..dims).map(|d| format!("a{d} = a{d} - {}, b{d} = b{d} + 1", g.next() % 50)).collect();
        out.push(format!("UPDATE t SET {} WHERE id = (SELECT id FROM t ORDER BY id LIMIT 1 OFFSET {})", sets.join(", "), g.next() % (n as u64 / 2)));
    }
    out.push("UPDATE OR REPLACE t SET id = id + 1 WHERE id % 5 = 0".into());
    out
}

fn create_sql(module: &str, dims: usize, aux: bool) -> String {
    let cols: Vec<String> = (0..dims).map(|d| format!("a{d},b{d}")).collect();
    format!("CREATE VIRTUAL TABLE t USING {module}(id,{}{})", cols.join(","), if aux { ",+name,+extra" } else { "" })
}

/// DELETEs of many rows at once (each row's removal condensing the tree,
/// underfull nodes' entries reinserted, the root shrinking): the shadow
/// tables stay the reference's byte for byte after each statement.
#[test]
fn many_row_deletes_leave_the_reference_bytes() {
    for (dims, n, seed) in [(2usize, 6000usize, 7u64), (1, 3000, 11), (3, 3000, 13)] {
        let mut c = ours_open();
        let r = RefDb::open();
        both(&mut c, &r, &create_sql("rtree", dims, false));
        let mut g = Lcg(seed);
        both(&mut c, &r, "BEGIN");
        for chunk in (1..=n).collect::<Vec<_>>().chunks(500) {
            let rows: Vec<String> = chunk
                .iter()
                .map(|id| {
                    let coords: Vec<String> = (0..dims)
                        .map(|_| {
                            let lo = g.coord();
                            format!("{lo:?},{:?}", lo + (g.next() % 900) as f64 / 7.0)
                        })
                        .collect();
                    format!("({id},{})", coords.join(","))
                })
                .collect();
            both(&mut c, &r, &format!("INSERT INTO t VALUES{}", rows.join(",")));
        }
        both(&mut c, &r, "COMMIT");
        same_shadow(&mut c, &r);
        for del in [
            "DELETE FROM t WHERE id % 3 = 0".to_string(),
            format!("DELETE FROM t WHERE a0 < {:?}", g.coord()),
            "DELETE FROM t WHERE id % 5 IN (1, 2)".to_string(),
            "BEGIN; DELETE FROM t WHERE id > 500 AND id % 2 = 0; COMMIT".to_string(),
            "DELETE FROM t WHERE id % 7 <> 0".to_string(),
            "DELETE FROM t".to_string(),
        ] {
            both(&mut c, &r, &del);
            same_shadow(&mut c, &r);
        }
    }
}

/// Window queries compared row for row (order included: identical trees
/// are walked in the same order).
fn windows(c: &mut Connection, r: &RefDb, g: &mut Lcg, dims: usize) {
    for _ in 0..15 {
        let mut w = Vec::new();
        for d in 0..dims {
            let lo = g.coord();
            w.push(format!("b{d} >= {lo:?} AND a{d} <= {:?}", lo + 900.0));
        }
        both(c, r, &format!("SELECT * FROM t WHERE {}", w.join(" AND ")));
        both(c, r, &format!("SELECT count(*) FROM t WHERE a0 > {:?} AND b0 < {:?}", g.coord(), g.coord() + 3000.0));
    }
    both(c, r, "SELECT * FROM t");
    both(c, r, "SELECT * FROM t WHERE id IN (SELECT id FROM t ORDER BY id DESC LIMIT 5) ORDER BY id");
}

fn same_shadow(c: &mut Connection, r: &RefDb) {
    for q in [
        "SELECT nodeno, data FROM t_node ORDER BY nodeno",
        "SELECT * FROM t_rowid ORDER BY rowid",
        "SELECT * FROM t_parent ORDER BY nodeno",
        "SELECT rtreecheck('t')",
    ] {
        both(c, r, q);
    }
}

fn random_run(module: &str, dims: usize, n: usize, aux: bool, seed: u64) {
    let mut c = ours_open();
    let r = RefDb::open();
    both(&mut c, &r, &create_sql(module, dims, aux));
    let mut g = Lcg(seed);
    both(&mut c, &r, "BEGIN");
    for s in workload(&mut g, dims, n, aux) {
        both(&mut c, &r, &s);
    }
    both(&mut c, &r, "COMMIT");
    same_shadow(&mut c, &r);
    windows(&mut c, &r, &mut g, dims);
}

#[test]
fn random_boxes_two_dimensions_with_aux_columns() {
    random_run("rtree", 2, 900, true, 1);
}

#[test]
fn random_boxes_one_three_and_five_dimensions() {
    random_run("rtree", 1, 700, false, 2);
    random_run("rtree", 3, 300, false, 3);
    random_run("rtree", 5, 250, false, 4);
}

#[test]
fn random_boxes_integer_coordinates() {
    random_run("rtree_i32", 2, 600, false, 5);
}

#[test]
fn conversions_errors_and_plans() {
    let setup = "CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1, +aux); \
                 INSERT INTO t VALUES(1, 1.1, 2.2, 3, 4, 'a'), (2, -1e40, 1e40, 0, 0, x'01'), (3, 5, 5, 1e-50, 1e-50, NULL); \
                 CREATE VIRTUAL TABLE u USING rtree_i32(id, x0, x1); INSERT INTO u VALUES(1, 1.5, 2.5), ('7', -3.7, 4.2);";
    check_each(
        setup,
        &[
            "SELECT * FROM t",
            "SELECT * FROM u",
            "INSERT INTO t VALUES(4, 2, 1, 0, 0, 0)",
            "INSERT INTO t VALUES(1, 0, 1, 0, 0, 0)",
            "INSERT OR IGNORE INTO t VALUES(1, 0, 1, 0, 0, 0)",
            "INSERT OR IGNORE INTO t VALUES(9, 3, 1, 0, 0, 0)",
            "INSERT INTO t VALUES('abc', 'x', NULL, 2.5, 3, 'z')",
            "INSERT INTO t(x0, x1, y0, y1) VALUES(0, 1, 0, 1)",
            "SELECT last_insert_rowid(), changes()",
            "UPDATE t SET x0 = 100 WHERE id = 1",
            "UPDATE t SET aux = 'b' WHERE id = 1",
            "SELECT * FROM t ORDER BY id",
            "SELECT id FROM t WHERE x0 > 'abc'",
            "SELECT id FROM t WHERE x0 < 'abc'",
            "SELECT id FROM t WHERE x0 > NULL",
            "SELECT id FROM t WHERE x0 > '0.5'",
            "SELECT id FROM t WHERE id = '2'",
            "SELECT id FROM t WHERE id = 2.5",
            "SELECT id FROM t WHERE rowid = 3",
            "SELECT id FROM t WHERE x0 MATCH 1",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE x0 > 1 AND y1 <= 3 AND x1 = 3",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE id = 3",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE id > 3",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE 1 > x0 AND 2 <= y0",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE x0 != 3 AND aux = 1",
            "SELECT rtreenode(2, data) FROM t_node",
            "SELECT rtreedepth(data) FROM t_node",
            "SELECT rtreecheck('t'), rtreecheck('main', 'u'), rtreecheck('t_node')",
            "SELECT rtreecheck('nosuch')",
            "PRAGMA table_info(t)",
            "PRAGMA table_info(u)",
            "CREATE VIRTUAL TABLE e1 USING rtree(id)",
            "CREATE VIRTUAL TABLE e2 USING rtree(id, a, b, c)",
            "CREATE VIRTUAL TABLE e3 USING rtree(id, a, b, c, d, e, f, g, h, i, j, k, l)",
            "CREATE VIRTUAL TABLE e4 USING rtree(id, a, b, +c, d, e)",
            "CREATE VIRTUAL TABLE e5 USING rtree(id, a, b, c, d, e, f, g, h, i, j)",
            "SELECT name, sql FROM sqlite_schema ORDER BY name",
        ],
    );
}

/// `rtree_i32` holds every value to the 32-bit range (a real truncated,
/// text by its integer prefix), and `<=`/`>=`, which the module alone
/// decides (omitted from the VM's checks, as SQLite's module does), give
/// the VM's answers for every kind of value on both kinds of table.
#[test]
fn integer_coordinates_held_and_omitted_bounds() {
    let mut setup = String::from(
        "CREATE VIRTUAL TABLE u USING rtree_i32(id, x0, x1); \
         INSERT INTO u VALUES(1, -3000000000, 3000000000), (2, 1099511627781, 1099511627785), (3, '-3e9', '3e9'), \
         (4, '12abc', '15'), (5, -1e30, 1e30), (6, -2147483648.5, 2147483647.5), (7, NULL, 5), (8, x'05', 7), \
         (9, '  7 ', '9.99'), (10, '-99999999999', '99999999999'), (11, 2.5, 7.9), (12, -2.5, -1.5); \
         CREATE VIRTUAL TABLE t USING rtree(id, x0, x1);",
    );
    for i in 1..40 {
        setup.push_str(&format!(
            "INSERT INTO t VALUES({i}, {:?}, {:?}); INSERT INTO u VALUES({}, {i}, {});",
            i as f64 * 0.7 - 5.0,
            i as f64 * 0.7 + 3.3,
            i + 100,
            i * 2
        ));
    }
    setup.push_str("INSERT INTO t VALUES(100, 16777217, 16777219), (101, -1e30, 1e30);");
    let mut stmts = vec!["SELECT * FROM u ORDER BY id".to_string()];
    for arg in [
        "3",
        "3.5",
        "'3'",
        "'3.5x'",
        "'abc'",
        "x'01'",
        "NULL",
        "16777217",
        "16777218",
        "4611686018427387904",
        "-9223372036854775808",
        "1e300",
        "-1e300",
        "' 4 '",
        "'0x10'",
        "2147483647",
        "2147483648",
    ] {
        for op in ["<=", ">="] {
            for col in ["x0", "x1"] {
                for tab in ["t", "u"] {
                    stmts.push(format!("SELECT group_concat(id) FROM {tab} WHERE {col} {op} {arg}"));
                }
            }
        }
    }
    let refs: Vec<&str> = stmts.iter().map(String::as_str).collect();
    check_each(&setup, &refs);
}

#[test]
fn rename_drop_and_transactions() {
    check_each(
        "CREATE VIRTUAL TABLE t USING rtree(id, x0, x1); INSERT INTO t VALUES(1, 0, 1), (2, 5, 6);",
        &[
            "BEGIN; INSERT INTO t VALUES(3, 1, 2); SAVEPOINT s; INSERT INTO t VALUES(4, 1, 2); ROLLBACK TO s; RELEASE s; SELECT * FROM t; ROLLBACK",
            "SELECT * FROM t",
            "INSERT INTO t VALUES(10, 0, 1), (11, 2, 1)",
            "SELECT * FROM t",
            "ALTER TABLE t RENAME TO v",
            "SELECT name, sql FROM sqlite_schema ORDER BY name",
            "INSERT INTO v VALUES(20, 1, 2); SELECT * FROM v; SELECT rtreecheck('v')",
            "PRAGMA integrity_check",
            "DROP TABLE v",
            "SELECT name FROM sqlite_schema",
        ],
    );
}

fn tmp(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("ringlite-rtree-{}-{name}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.to_string_lossy().into_owned()
}

fn rows(o: Vec<Outcome>) -> Vec<Vec<V>> {
    o.into_iter()
        .flat_map(|x| match x {
            Outcome::Rows { rows, .. } => rows,
            Outcome::Error { code, message } => panic!("error {code} {message}"),
        })
        .collect()
}

/// Files move both ways: written by one engine, checked, queried and
/// extended by the other, then checked again by the first.
#[test]
fn files_move_between_engines() {
    let ok = vec![vec![V::Text(b"ok".to_vec())]];
    let checks = "SELECT rtreecheck('t'); PRAGMA integrity_check";
    for ours_first in [true, false] {
        let path = tmp(if ours_first { "ours" } else { "ref" });
        let mut g = Lcg(11);
        let script: Vec<String> = workload(&mut g, 2, 800, true);
        let open_ours = || Connection::open(&path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
        let run_first = |sql: &str| if ours_first { run_ours(&mut open_ours(), sql) } else { run_ref(&RefDb::open_path(&path), sql) };
        let mut all = create_sql("rtree", 2, true);
        all.push_str("; BEGIN; ");
        for s in &script {
            all.push_str(s);
            all.push_str("; ");
        }
        all.push_str("COMMIT");
        for o in run_first(&all) {
            assert!(matches!(o, Outcome::Rows { .. }), "{o:?}");
        }
        let q = "SELECT * FROM t WHERE a0 < 100 AND b0 > -100 AND a1 < 2000";
        let first = rows(run_first(q));
        // The other engine reads, checks and extends it.
        let extend = "INSERT INTO t SELECT NULL, a0 + 1, b0 + 2, a1, b1, name, extra FROM t WHERE id % 3 = 0; DELETE FROM t WHERE id % 7 = 1";
        if ours_first {
            let r = RefDb::open_path(&path);
            assert_eq!(rows(run_ref(&r, checks)), [ok.clone(), ok.clone()].concat());
            assert_eq!(rows(run_ref(&r, q)), first);
            rows(run_ref(&r, extend));
            assert_eq!(rows(run_ref(&r, checks)), [ok.clone(), ok.clone()].concat());
        } else {
            let mut c = open_ours();
            assert_eq!(rows(run_ours(&mut c, checks)), [ok.clone(), ok.clone()].concat());
            assert_eq!(rows(run_ours(&mut c, q)), first);
            rows(run_ours(&mut c, extend));
            assert_eq!(rows(run_ours(&mut c, checks)), [ok.clone(), ok.clone()].concat());
        }
        // And the first one checks the result.
        assert_eq!(rows(run_first(checks)), [ok.clone(), ok.clone()].concat());
        let _ = std::fs::remove_file(&path);
    }
}

/// The same inserts give the same file content on both engines, read
/// back through the other engine.
#[test]
fn same_node_bytes_for_same_inserts_on_disk() {
    let (pa, pb) = (tmp("bytes-ours"), tmp("bytes-ref"));
    let mut g = Lcg(21);
    let mut all = create_sql("rtree", 3, false);
    all.push_str("; BEGIN; ");
    for s in workload(&mut g, 3, 600, false) {
        all.push_str(&s);
        all.push_str("; ");
    }
    all.push_str("COMMIT");
    rows(run_ours(&mut Connection::open(&pa, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap(), &all));
    rows(run_ref(&RefDb::open_path(&pb), &all));
    let dump = "SELECT nodeno, data FROM t_node ORDER BY nodeno; SELECT * FROM t_rowid ORDER BY rowid; SELECT * FROM t_parent ORDER BY nodeno";
    assert_eq!(rows(run_ref(&RefDb::open_path(&pa), dump)), rows(run_ref(&RefDb::open_path(&pb), dump)));
    let _ = std::fs::remove_file(&pa);
    let _ = std::fs::remove_file(&pb);
}

/// Damaged shadow tables: `rtreecheck()` and `PRAGMA integrity_check`
/// report what SQLite reports, and queries fail as SQLite's do.
#[test]
fn damage_is_reported_as_sqlite_reports_it() {
    let setup = "CREATE VIRTUAL TABLE t USING rtree(id, x0, x1); \
                 WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 199) INSERT INTO t SELECT i, i, i + 1 FROM s;";
    let damage = [
        "DELETE FROM t_rowid WHERE rowid = 5",
        "UPDATE t_rowid SET nodeno = 99 WHERE rowid = 7",
        "DELETE FROM t_parent WHERE nodeno = 2",
        "INSERT INTO t_parent VALUES(100, 1)",
        "UPDATE t_node SET data = substr(data, 1, 12) || x'44000000' || substr(data, 17) WHERE nodeno = 2",
        "UPDATE t_node SET data = substr(data, 1, 12) || x'c4000000' || substr(data, 17) WHERE nodeno = 2",
        "DELETE FROM t_node WHERE nodeno = 3",
        "UPDATE t_node SET data = x'0001' WHERE nodeno = 3",
        "UPDATE t_node SET data = substr(data, 1, 2) || x'00ff' || substr(data, 5) WHERE nodeno = 3",
        "UPDATE t_node SET data = x'00ff' || substr(data, 3) WHERE nodeno = 1",
        "UPDATE t_node SET data = zeroblob(100) WHERE nodeno = 1",
    ];
    for d in damage {
        check_each(&format!("{setup}{d}"), &["SELECT rtreecheck('t')", "PRAGMA integrity_check", "SELECT count(*) FROM t WHERE x0 > 50"]);
    }
}

/// Boxes `from..to` of a fixed pattern as one INSERT on `t(id, x0, x1,
/// y0, y1)`.
fn insert_range(from: usize, to: usize) -> String {
    let rows: Vec<String> =
        (from..to).map(|i| format!("({i}, {}, {}, {}, {})", (i * 37) % 1000, (i * 37) % 1000 + i % 7, (i * 53) % 1000, (i * 53) % 1000 + i % 5)).collect();
    format!("INSERT INTO t VALUES{}", rows.join(", "))
}

/// The module keeps nodes between calls (`store.rs`): whatever changes
/// the shadow tables behind its back (a savepoint or transaction rolled
/// back, a statement undone by its error, the shadow tables written
/// directly) is seen by the next call, as SQLite, which reads the nodes
/// again, sees it.
#[test]
fn node_cache_follows_rollbacks_and_direct_writes() {
    let mut c = ours_open();
    let r = RefDb::open();
    let q = "SELECT count(*), sum(id) FROM t WHERE x0 <= 500 AND x1 >= 200 AND y0 <= 700 AND y1 >= 100";
    both(&mut c, &r, "CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1)");
    for step in [
        "BEGIN".to_string(),
        insert_range(1, 400),
        q.into(),
        "SAVEPOINT s".into(),
        insert_range(400, 900),
        q.into(),
        "ROLLBACK TO s".into(),
        q.into(),
        insert_range(1000, 1300),
        // The last row's box is inverted: the statement is undone.
        format!("{}, (5000, 2, 1, 0, 0)", insert_range(2000, 2300)),
        q.into(),
        insert_range(3000, 3200),
        "COMMIT".into(),
        q.into(),
        "BEGIN".into(),
        "DELETE FROM t WHERE id % 3 = 0".into(),
        "ROLLBACK".into(),
        q.into(),
        "DELETE FROM t WHERE id % 4 = 0".into(),
        // An empty tree written by hand, then filled through the table.
        "BEGIN".into(),
        "CREATE TEMP TABLE keep AS SELECT zeroblob(length(data)) AS z FROM t_node WHERE nodeno = 1".into(),
        "DELETE FROM t_node; DELETE FROM t_rowid; DELETE FROM t_parent; INSERT INTO t_node SELECT 1, z FROM keep".into(),
        q.into(),
        insert_range(5000, 5600),
        "COMMIT".into(),
        q.into(),
    ] {
        both(&mut c, &r, &step);
        if step.starts_with("SELECT") {
            both(&mut c, &r, "SELECT rtreecheck('t')");
        } else {
            same_shadow(&mut c, &r);
        }
    }
}

/// Two connections on one file: what one writes, the other's next
/// statement sees (its kept nodes are dropped when its read transaction
/// finds the other's commit).
#[test]
fn node_cache_sees_other_connections_commits() {
    let path = tmp("two-connections");
    let open = || Connection::open(&path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    let (mut a, mut b) = (open(), open());
    let q = "SELECT count(*), sum(id) FROM t WHERE x0 <= 500 AND x1 >= 200 AND y0 <= 700 AND y1 >= 100";
    rows(run_ours(&mut a, &format!("CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1); BEGIN; {}; COMMIT", insert_range(1, 700))));
    for (i, change) in
        ["INSERT INTO t SELECT id + 10000, x0, x1, y0, y1 FROM t", "DELETE FROM t WHERE id % 3 = 0", "UPDATE t SET x0 = x0 - 100 WHERE id % 5 = 0"]
            .iter()
            .enumerate()
    {
        let before = rows(run_ours(&mut a, q));
        rows(run_ours(&mut b, change));
        let after_a = rows(run_ours(&mut a, q));
        assert_eq!(after_a, rows(run_ours(&mut b, q)), "step {i}");
        assert_ne!(after_a, before, "step {i}");
        // The first connection extends the tree the second changed.
        rows(run_ours(&mut a, &insert_range(20000 + 1000 * i, 20100 + 1000 * i)));
        let ok = vec![vec![V::Text(b"ok".to_vec())]];
        assert_eq!(rows(run_ours(&mut b, "SELECT rtreecheck('t')")), ok);
    }
    let r = RefDb::open_path(&path);
    assert_eq!(rows(run_ref(&r, "SELECT rtreecheck('t'); PRAGMA integrity_check")), vec![vec![V::Text(b"ok".to_vec())], vec![V::Text(b"ok".to_vec())]]);
    drop((a, b, r));
    let _ = std::fs::remove_file(&path);
}

/// CREATE VIRTUAL TABLE ... USING rtree reads the database's
/// `sqlite_stat1` as SQLite's does: one that is not ANALYZE's table (here
/// an FTS5 table of that name, vtabK.test) fails the CREATE with the
/// query's error, and nothing of the new table is left.
#[test]
fn create_reads_sqlite_stat1() {
    crate::sql_common::check_each(
        "CREATE TABLE t1(x); INSERT INTO t1 VALUES(123);
         PRAGMA writable_schema=ON; CREATE VIRTUAL TABLE sqlite_stat1 USING fts5(a); PRAGMA writable_schema=OFF;",
        // (ANALYZE then finds no b-tree to write: corrupt, as in SQLite.)
        &[
            "CREATE VIRTUAL TABLE t2 USING rtree(id, x, y)",
            "SELECT name FROM sqlite_master ORDER BY name",
            "SELECT * FROM t1",
            "ANALYZE",
            "PRAGMA integrity_check",
        ],
    );
    crate::sql_common::check_each(
        "CREATE TABLE t1(x); ANALYZE; CREATE TABLE s(y); INSERT INTO sqlite_stat1 VALUES('t3_rowid', NULL, '12')",
        // (The reference is built with STAT4.)
        &["CREATE VIRTUAL TABLE t3 USING rtree(id, x, y)", "SELECT name FROM sqlite_master WHERE name <> 'sqlite_stat4' ORDER BY name"],
    );
}

/// The statements R*Tree runs on its shadow tables cannot see virtual
/// tables (SQLite's `SQLITE_PREPARE_NO_VTAB`): a trigger on a shadow
/// table reading the R*Tree fails the write with "no such table"
/// (rtreecirc.test; the table connected after the trigger exists).
#[test]
fn shadow_table_triggers_cannot_reach_the_rtree() {
    let dir = tempfile::tempdir().unwrap();
    for shadow in ["rt_node", "rt_parent", "rt_rowid"] {
        for ours in [true, false] {
            let path = dir.path().join(format!("{shadow}{ours}.db"));
            let p = path.to_str().unwrap();
            let run = |sql: &str| -> Vec<Outcome> {
                if ours {
                    let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
                    run_ours(&mut c, sql)
                } else {
                    run_ref(&RefDb::open_path(p), sql)
                }
            };
            run("CREATE VIRTUAL TABLE rt USING rtree(id, x1, x2, y1, y2)");
            run(&format!("CREATE TRIGGER tr1 AFTER INSERT ON {shadow} BEGIN SELECT * FROM rt; END"));
            let got = run("INSERT INTO rt VALUES(1, 2, 3, 4, 5)");
            assert_eq!(format!("{got:?}"), r#"[Error { code: 1, message: "no such table: main.rt" }]"#, "{shadow} ours={ours}");
            run("DROP TRIGGER tr1");
            assert!(matches!(run("INSERT INTO rt VALUES(1, 2, 3, 4, 5)")[..], [Outcome::Rows { .. }]));
        }
    }
}
