//! Virtual tables through ringlite's Rust interface (`ringlite::vtab`):
//! the `series` and `memtab` modules of `tests/vtab_support`. Results are
//! compared with the reference SQLite running the same query over an
//! ordinary table or recursive CTE holding the rows the module produces;
//! the calls the planner makes (constraints, usable flags, ORDER BY) are
//! checked against what SQLite's vtab.txt says it passes.

use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb, V};
use crate::vtab_support::{Log, Series};
use ringlite::Connection;
use std::sync::{Arc, Mutex};

fn with_series() -> (Connection, Log) {
    let mut c = ours_open();
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    c.create_module("series", Some(Arc::new(Series { log: log.clone() }))).unwrap();
    (c, log)
}

/// `sql` on ours with the module, `reference` on the reference SQLite,
/// after `setup` on both.
fn same(c: &mut Connection, setup: &str, sql: &str, reference: &str) {
    let r = RefDb::open();
    let a0 = run_ours(c, setup);
    let b0 = run_ref(&r, setup);
    assert_eq!(a0, b0, "setup");
    same_on(c, &r, sql, reference);
}

fn same_on(c: &mut Connection, r: &RefDb, sql: &str, reference: &str) {
    let a = run_ours(c, sql);
    let b = run_ref(r, reference);
    let rows = |o: Vec<Outcome>| -> Vec<Vec<V>> {
        o.into_iter()
            .flat_map(|x| match x {
                Outcome::Rows { rows, .. } => rows,
                Outcome::Error { code, message } => panic!("error {code} {message}"),
            })
            .collect()
    };
    assert_eq!(rows(a), rows(b), "\nours: {sql}\nref:  {reference}");
}

const CTE: &str = "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 10) ";

#[test]
fn table_valued_function_binds_arguments_to_hidden_columns() {
    let (mut c, log) = with_series();
    same(&mut c, "", "SELECT value FROM series(1, 10)", &format!("{CTE}SELECT value FROM s"));
    same(&mut c, "", "SELECT value, start, stop FROM series(1, 10, 3)", &format!("{CTE}SELECT value, 1, 10 FROM s WHERE (value - 1) % 3 = 0"));
    same(&mut c, "", "SELECT * FROM series(1, 10) WHERE value % 2 = 0", &format!("{CTE}SELECT value FROM s WHERE value % 2 = 0"));
    same(&mut c, "", "SELECT value FROM series WHERE start = 1 AND stop = 10", &format!("{CTE}SELECT value FROM s"));
    same(&mut c, "", "SELECT count(*), sum(value) FROM series(1, 10)", &format!("{CTE}SELECT count(*), sum(value) FROM s"));
    same(&mut c, "", "SELECT rowid, value FROM series(5, 7)", "SELECT 1, 5 UNION ALL SELECT 2, 6 UNION ALL SELECT 3, 7");
    let l = log.lock().unwrap();
    assert!(l.iter().any(|x| x == "connect series,main,series"), "{l:?}");
    assert!(l.iter().any(|x| x.starts_with("best_index [1 2 u][2 2 u]")), "{l:?}");
}

#[test]
fn order_by_consumed_or_sorted() {
    let (mut c, log) = with_series();
    same(&mut c, "", "SELECT value FROM series(1, 10) ORDER BY value DESC", &format!("{CTE}SELECT value FROM s ORDER BY value DESC"));
    same(&mut c, "", "SELECT value FROM series(1, 10) ORDER BY value % 3, value", &format!("{CTE}SELECT value FROM s ORDER BY value % 3, value"));
    assert!(log.lock().unwrap().iter().any(|x| x.ends_with("order=[(0, true)]")));
}

#[test]
fn constraints_from_outer_tables_are_usable_in_nested_loops() {
    let (mut c, log) = with_series();
    let setup = "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 3), (5, 6), (10, 9);";
    let r = RefDb::open();
    run_ref(&r, setup);
    run_ours(&mut c, setup);
    same_on(&mut c, &r, "SELECT a, value FROM t, series(t.a, t.b)", "WITH RECURSIVE s(a, value, b) AS (SELECT a, a, b FROM t UNION ALL SELECT a, value + 1, b FROM s WHERE value < b) SELECT a, value FROM s WHERE value <= b ORDER BY a, value");
    same_on(&mut c, &r, "SELECT a, value FROM t JOIN series ON start = t.a AND stop = t.b WHERE value > 1", "WITH RECURSIVE s(a, value, b) AS (SELECT a, a, b FROM t UNION ALL SELECT a, value + 1, b FROM s WHERE value < b) SELECT a, value FROM s WHERE value <= b AND value > 1 ORDER BY a, value");
    same_on(&mut c, &r, "SELECT a, (SELECT count(*) FROM series(1, a)) FROM t", "SELECT 1, 1 UNION ALL SELECT 5, 5 UNION ALL SELECT 10, 10");
    same_on(&mut c, &r, "SELECT a, value FROM t LEFT JOIN series(1, 2) ON value = a", "SELECT 1, 1 UNION ALL SELECT 5, NULL UNION ALL SELECT 10, NULL");
    let l = log.lock().unwrap();
    assert!(l.iter().any(|x| x.contains("[0 4 u]") && x.contains("[1 2 u]") && x.contains("[2 2 u]")), "{l:?}");
}

#[test]
fn every_constraint_operator_reaches_best_index() {
    let (mut c, log) = with_series();
    let q = "SELECT value FROM series(1, 3) WHERE value = 1 OR 1";
    run_ours(&mut c, q);
    log.lock().unwrap().clear();
    let sql = "SELECT value FROM series(1, 20) WHERE value > 1 AND value <= 9 AND value < 8 AND value >= 2 AND value != 5 \
               AND value IS NOT 6 AND value IS NOT NULL AND value LIKE '%' AND value GLOB '*' AND start IS 1 AND stop IS NULL = 0";
    let out = run_ours(&mut c, sql);
    assert!(matches!(&out[0], Outcome::Rows { rows, .. } if rows.len() == 4), "{out:?}");
    let l = log.lock().unwrap().join("\n");
    for op in ["[0 4 u]", "[0 8 u]", "[0 16 u]", "[0 32 u]", "[0 68 u]", "[0 69 u]", "[0 70 u]", "[0 65 u]", "[0 66 u]", "[1 72 u]"] {
        assert!(l.contains(op), "{op} missing from {l}");
    }
    log.lock().unwrap().clear();
    run_ours(&mut c, "SELECT value FROM series(1, 3) WHERE value IS NULL");
    assert!(log.lock().unwrap().join("").contains("[0 71 u]"));
}

#[test]
fn explain_query_plan_shows_the_index() {
    let (mut c, _) = with_series();
    let out = run_ours(&mut c, "EXPLAIN QUERY PLAN SELECT value FROM series(1, 10)");
    let Outcome::Rows { rows, .. } = &out[0] else { panic!("{out:?}") };
    assert_eq!(rows[0][3], V::Text(b"SCAN series VIRTUAL TABLE INDEX 3:s3".to_vec()));
}

#[test]
fn errors_as_sqlite_gives_them() {
    let (mut c, _) = with_series();
    let err = |c: &mut Connection, sql: &str| match run_ours(c, sql).pop() {
        Some(Outcome::Error { message, .. }) => message,
        o => panic!("{sql}: {o:?}"),
    };
    assert_eq!(err(&mut c, "SELECT * FROM series(1, 2, 3, 4)"), "too many arguments on series() - max 3");
    assert_eq!(err(&mut c, "CREATE VIRTUAL TABLE s USING series"), "no such module: series");
    assert_eq!(err(&mut c, "INSERT INTO series VALUES(1)"), "table series may not be modified");
    assert_eq!(err(&mut c, "SELECT * FROM nosuch(1)"), "no such table: nosuch");
    assert_eq!(err(&mut c, "CREATE VIRTUAL TABLE s USING nosuch"), "no such module: nosuch");
    // The module removed: the name is gone.
    c.create_module("series", None).unwrap();
    assert_eq!(err(&mut c, "SELECT * FROM series(1, 2)"), "no such table: series");
}

fn with_memtab() -> (Connection, Log) {
    let mut c = ours_open();
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    c.create_module("memtab", Some(Arc::new(crate::vtab_support::MemTab { log: log.clone() }))).unwrap();
    (c, log)
}

/// The same statements on a memtab table (ours) and an ordinary table
/// (the reference) give the same rows.
#[test]
fn writable_table_matches_an_ordinary_one() {
    let (mut c, _) = with_memtab();
    let r = RefDb::open();
    run_ours(&mut c, "CREATE VIRTUAL TABLE m USING memtab(a, b)");
    run_ref(&r, "CREATE TABLE m(a, b)");
    let steps = [
        "INSERT INTO m VALUES (1, 'one'), (2, 'two'), (3, 'three')",
        "INSERT INTO m(b, a) SELECT b || '!', a * 10 FROM m WHERE a > 1",
        "UPDATE m SET b = upper(b) WHERE a % 2 = 0",
        "DELETE FROM m WHERE a = 3",
        "INSERT INTO m(rowid, a) VALUES (100, 7)",
        "UPDATE m SET rowid = rowid + 1000 WHERE a = 7",
        "INSERT INTO m DEFAULT VALUES",
    ];
    for s in steps {
        let a = run_ours(&mut c, s);
        let b = run_ref(&r, s);
        assert_eq!(a, b, "{s}");
        same_on(&mut c, &r, "SELECT rowid, a, b FROM m ORDER BY rowid", "SELECT rowid, a, b FROM m ORDER BY rowid");
        same_on(&mut c, &r, "SELECT changes(), last_insert_rowid()", "SELECT changes(), last_insert_rowid()");
    }
}

#[test]
fn transaction_methods_in_order() {
    let (mut c, log) = with_memtab();
    run_ours(&mut c, "CREATE VIRTUAL TABLE m USING memtab(a); CREATE TABLE t(x)");
    log.lock().unwrap().clear();
    run_ours(&mut c, "INSERT INTO m VALUES (1)");
    assert_eq!(*log.lock().unwrap(), ["m begin", "m sync", "m commit"]);
    log.lock().unwrap().clear();
    run_ours(&mut c, "BEGIN; INSERT INTO m VALUES (2); INSERT INTO t VALUES (2); ROLLBACK");
    assert_eq!(*log.lock().unwrap(), ["m begin", "m rollback"]);
    let rows = run_ours(&mut c, "SELECT a FROM m");
    assert_eq!(rows, vec![Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Int(1)]] }]);
    log.lock().unwrap().clear();
    run_ours(&mut c, "BEGIN; INSERT INTO m VALUES (3); SAVEPOINT s; INSERT INTO m VALUES (4); ROLLBACK TO s; RELEASE s; COMMIT");
    assert_eq!(*log.lock().unwrap(), ["m begin", "m savepoint 0", "m rollback_to 0", "m release 0", "m sync", "m commit"]);
    let rows = run_ours(&mut c, "SELECT a FROM m ORDER BY a");
    assert_eq!(rows, vec![Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Int(1)], vec![V::Int(3)]] }]);
    // A constraint the module reports fails the statement with its message.
    let out = run_ours(&mut c, "INSERT INTO m(rowid, a) VALUES (1, 9)");
    assert!(matches!(&out[0], Outcome::Error { code: 19, message } if message == "memtab: rowid 1 exists"), "{out:?}");
    run_ours(&mut c, "INSERT OR IGNORE INTO m(rowid, a) VALUES (1, 9)");
    run_ours(&mut c, "INSERT OR REPLACE INTO m(rowid, a) VALUES (3, 30)");
    let rows = run_ours(&mut c, "SELECT rowid, a FROM m ORDER BY rowid");
    assert_eq!(
        rows,
        vec![Outcome::Rows {
            names: vec!["rowid".into(), "a".into()],
            rows: vec![vec![V::Int(1), V::Int(1)], vec![V::Int(2), V::Int(3)], vec![V::Int(3), V::Int(30)]]
        }]
    );
    // DROP TABLE destroys it.
    run_ours(&mut c, "DROP TABLE m");
    assert!(matches!(run_ours(&mut c, "SELECT * FROM m").pop(), Some(Outcome::Error { .. })));
}

/// The planner compares the module's estimates with real tables: a
/// virtual table written first is read inside the loop over a table
/// whose column gives it a cheap rowid lookup, and a table-valued
/// function comes after the table its arguments read.
#[test]
fn join_order_uses_the_module_costs() {
    let (mut c, _) = with_memtab();
    c.create_module("series", Some(Arc::new(Series { log: Arc::new(Mutex::new(Vec::new())) }))).unwrap();
    run_ours(
        &mut c,
        "CREATE VIRTUAL TABLE m USING memtab(v); INSERT INTO m VALUES ('a'), ('b'), ('c'); CREATE TABLE t(a, b); INSERT INTO t VALUES (2, 3), (3, 3)",
    );
    let plan = |c: &mut Connection, sql: &str| -> Vec<V> {
        match run_ours(c, &format!("EXPLAIN QUERY PLAN {sql}")).pop() {
            Some(Outcome::Rows { rows, .. }) => rows.into_iter().map(|r| r[3].clone()).collect(),
            o => panic!("{o:?}"),
        }
    };
    assert_eq!(
        plan(&mut c, "SELECT t.a, m.v FROM m, t WHERE m.rowid = t.a"),
        vec![V::Text(b"SCAN t".to_vec()), V::Text(b"SCAN m VIRTUAL TABLE INDEX 1:".to_vec())]
    );
    let out = run_ours(&mut c, "SELECT t.a, m.v FROM m, t WHERE m.rowid = t.a ORDER BY 1");
    assert_eq!(
        out,
        vec![Outcome::Rows {
            names: vec!["a".into(), "v".into()],
            rows: vec![vec![V::Int(2), V::Text(b"b".to_vec())], vec![V::Int(3), V::Text(b"c".to_vec())]]
        }]
    );
    assert_eq!(
        plan(&mut c, "SELECT a, value FROM t, series(t.a, t.b)"),
        vec![V::Text(b"SCAN t".to_vec()), V::Text(b"SCAN series VIRTUAL TABLE INDEX 3:s3".to_vec())]
    );
}

/// A module whose xBestIndex reads its cost from a table of its own
/// connection (SQLite lets xBestIndex run SQL; the compile lends it the
/// connection): `CREATE TABLE x(a)`, no rows.
struct CostFromTable(Log);

impl ringlite::vtab::Module for CostFromTable {
    fn kind(&self) -> ringlite::vtab::ModuleKind {
        ringlite::vtab::ModuleKind::EponymousOnly
    }
    fn connect(&self, _host: &mut dyn ringlite::vdbe::host::VmHost, _args: &[String]) -> ringlite::error::Result<ringlite::vtab::Connected> {
        Ok(ringlite::vtab::Connected { table: Arc::new(CostFromTable(self.0.clone())), schema: "CREATE TABLE x(a)".into(), config: Default::default() })
    }
}

impl ringlite::vtab::VTab for CostFromTable {
    fn best_index(&self, host: Option<&mut dyn ringlite::vdbe::host::VmHost>, info: &mut ringlite::vtab::IndexInfo) -> ringlite::error::Result<()> {
        let conn = host.and_then(Connection::from_host).expect("the compile lends its connection");
        let cost = match run_ours(conn, "SELECT v FROM config").pop() {
            Some(Outcome::Rows { rows, .. }) => rows.first().and_then(|r| r.first().cloned()),
            o => panic!("{o:?}"),
        };
        self.0.lock().unwrap().push(format!("best_index cost={cost:?}"));
        info.estimated_cost = 10.0;
        Ok(())
    }
    fn open(&self, _host: &mut dyn ringlite::vdbe::host::VmHost) -> ringlite::error::Result<Box<dyn ringlite::vtab::VTabCursor>> {
        Err(ringlite::error::Error::sql("not opened"))
    }
}

#[test]
fn best_index_runs_sql_on_its_own_connection() {
    let mut c = ours_open();
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    c.create_module("costed", Some(Arc::new(CostFromTable(log.clone())))).unwrap();
    run_ours(&mut c, "CREATE TABLE config(v); INSERT INTO config VALUES (7)");
    assert!(matches!(&run_ours(&mut c, "EXPLAIN QUERY PLAN SELECT * FROM costed")[..], [Outcome::Rows { .. }]));
    run_ours(&mut c, "UPDATE config SET v = 9");
    assert!(matches!(&run_ours(&mut c, "EXPLAIN QUERY PLAN SELECT * FROM costed WHERE a = 1")[..], [Outcome::Rows { .. }]));
    assert_eq!(*log.lock().unwrap(), vec!["best_index cost=Some(Int(7))".to_string(), "best_index cost=Some(Int(9))".to_string()]);
}
