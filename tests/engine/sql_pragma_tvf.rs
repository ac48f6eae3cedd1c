//! PRAGMA table-valued functions against the reference SQLite 3.54.1:
//! the pragmas reporting one value (`pragma_user_version`,
//! `pragma_page_count('main')`), the hidden `arg`/`schema` columns and the
//! second (schema) argument of the schema-describing ones, and which
//! pragmas are table-valued at all.

use crate::sql_common::*;

/// The pragmas whose table-valued form answers different rows for a known
/// reason: the compile options, modules and functions of the two builds
/// differ (SQLite also lists the `pragma_NAME` tables used so far as
/// modules).
const NOT_YET: &[&str] = &["compile_options", "module_list", "function_list"];

/// Every pragma SQLite lists: `SELECT * FROM pragma_NAME` gives SQLite's
/// rows or error, except the three whose lists differ by build, and
/// `pragma_table_xinfo('pragma_NAME')` SQLite's columns.
#[test]
fn every_listed_pragma_as_a_table() {
    let reference = RefDb::open();
    let mut ours = ours_open();
    // (The reference is built with foreign keys on by default.)
    let setup = "PRAGMA foreign_keys = 0";
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    let Outcome::Rows { rows, .. } = &run_ref(&reference, "PRAGMA pragma_list")[0] else { panic!("pragma_list") };
    let mut compared = 0;
    for r in rows {
        let V::Text(n) = &r[0] else { panic!("a name") };
        let n = String::from_utf8_lossy(n).into_owned();
        // Its columns, hidden ones included, as PRAGMA table_xinfo shows them.
        let columns = format!("SELECT * FROM pragma_table_xinfo('pragma_{n}')");
        assert_eq!(run_ours(&mut ours, &columns), run_ref(&reference, &columns), "\nSQL: {columns}");
        let q = format!("SELECT * FROM pragma_{n}");
        let ours_out = run_ours(&mut ours, &q);
        if NOT_YET.contains(&n.as_str()) {
            if let [Outcome::Error { message, .. }] = &ours_out[..] {
                assert!(!message.starts_with("no such table"), "{q}: {message}");
            }
            continue;
        }
        assert_eq!(ours_out, run_ref(&reference, &q), "\nSQL: {q}");
        compared += 1;
    }
    assert!(compared > 50, "{compared}");
}

#[test]
fn value_pragmas_read_when_run() {
    check_each(
        "PRAGMA foreign_keys = 0; CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 2); PRAGMA user_version = 7; PRAGMA application_id = 42;",
        &[
            "SELECT * FROM pragma_user_version",
            "SELECT user_version + 1 FROM pragma_user_version",
            "SELECT * FROM pragma_application_id",
            "SELECT * FROM pragma_schema_version",
            "SELECT * FROM pragma_page_count, pragma_page_size",
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            "SELECT * FROM pragma_freelist_count",
            "SELECT * FROM pragma_encoding",
            "SELECT * FROM pragma_journal_mode",
            "SELECT * FROM pragma_journal_mode('temp')",
            "SELECT * FROM pragma_page_count('main')",
            "SELECT *, schema FROM pragma_page_count('main')",
            "SELECT * FROM pragma_page_count(NULL)",
            "SELECT * FROM pragma_page_count('nope')",
            "SELECT * FROM pragma_page_count(1)",
            "SELECT * FROM pragma_cache_size",
            "SELECT * FROM pragma_synchronous",
            "SELECT * FROM pragma_auto_vacuum",
            "SELECT * FROM pragma_max_page_count",
            "SELECT * FROM pragma_journal_size_limit",
            "SELECT * FROM pragma_locking_mode",
            "SELECT * FROM pragma_data_version",
            "SELECT * FROM pragma_busy_timeout",
            "SELECT timeout FROM pragma_busy_timeout",
            "SELECT * FROM pragma_foreign_keys",
            "SELECT * FROM pragma_recursive_triggers, pragma_temp_store",
            "SELECT * FROM pragma_user_version('main')",
            "SELECT * FROM pragma_page_count('main', 'x')",
            "SELECT (SELECT user_version FROM pragma_user_version) + a FROM t",
            "SELECT a FROM t WHERE a < (SELECT page_count FROM pragma_page_count)",
            "SELECT * FROM t, pragma_user_version AS u WHERE u.user_version = 7",
        ],
    );
}

/// A cached statement reads the value current when it runs, not when it
/// was compiled.
#[test]
fn value_pragmas_follow_changes() {
    check_each(
        "PRAGMA foreign_keys = 0; CREATE TABLE t(a);",
        &[
            "SELECT * FROM pragma_user_version",
            "PRAGMA user_version = 3",
            "SELECT * FROM pragma_user_version",
            "PRAGMA foreign_keys = 1",
            "SELECT * FROM pragma_foreign_keys",
            "PRAGMA busy_timeout = 250",
            "SELECT * FROM pragma_busy_timeout",
            "PRAGMA cache_size = -500",
            "SELECT * FROM pragma_cache_size",
            "INSERT INTO t SELECT zeroblob(3000) FROM (VALUES (1), (2), (3), (4))",
            "SELECT * FROM pragma_page_count",
            "DELETE FROM t",
            "SELECT * FROM pragma_freelist_count",
        ],
    );
    let mut ours = ours_open();
    run_ours(&mut ours, "CREATE TABLE t(a)");
    let (st, _) = ours.prepare(b"SELECT user_version FROM pragma_user_version").expect("prepare");
    let mut st = st.expect("a statement");
    let mut read = |ours: &mut ringlite::Connection| {
        let mut v = None;
        loop {
            match st.step(ours).expect("step") {
                ringlite::StepResult::Row => v = Some(from_value(st.column(0))),
                ringlite::StepResult::Done => break,
                ringlite::StepResult::Io => {}
            }
        }
        st.reset(ours);
        v
    };
    assert_eq!(read(&mut ours), Some(V::Int(0)));
    run_ours(&mut ours, "PRAGMA user_version = 9");
    assert_eq!(read(&mut ours), Some(V::Int(9)));
}

#[test]
fn schema_argument_and_hidden_columns() {
    check_each(
        "ATTACH ':memory:' AS s; CREATE TABLE s.u(x, y PRIMARY KEY); CREATE TABLE u(a); CREATE INDEX s.ux ON u(x); CREATE INDEX ua ON u(a);",
        &[
            "SELECT name, arg, schema FROM pragma_table_info('u', 's')",
            "SELECT * FROM pragma_table_info('u', 's')",
            "SELECT name, arg FROM pragma_table_info('u')",
            "SELECT name, arg, schema FROM pragma_table_xinfo('u', 'main')",
            "SELECT * FROM pragma_table_info('u', 'nope')",
            "SELECT * FROM pragma_table_info('u', NULL)",
            "SELECT * FROM pragma_index_list('u', 'main')",
            "SELECT * FROM pragma_index_list('u', 's')",
            "SELECT *, schema FROM pragma_index_list('u', 'S')",
            "SELECT * FROM pragma_index_info('ux', 's')",
            "SELECT * FROM pragma_index_info('ux', 'main')",
            "SELECT * FROM pragma_index_xinfo('ux', 's')",
            "SELECT * FROM pragma_foreign_key_list('u', 's')",
            "SELECT * FROM pragma_table_info('u', 's', 'x')",
            "SELECT * FROM pragma_table_info",
            "SELECT * FROM pragma_index_list",
            "SELECT * FROM pragma_collation_list('x')",
            "SELECT * FROM pragma_table_list('u', 's')",
        ],
    );
}

/// Equalities on the hidden columns at the top of WHERE act as the
/// arguments (SQLite's xBestIndex), as in `pragma_table_info WHERE arg = 'w'`.
#[test]
fn hidden_column_equalities_in_where() {
    check_each(
        "CREATE TABLE w(a, b); CREATE INDEX wb ON w(b); ATTACH ':memory:' AS s; CREATE TABLE s.w(c); CREATE TABLE s.v(d);",
        &[
            "SELECT * FROM pragma_table_info WHERE arg = 'w'",
            "SELECT *, arg FROM pragma_table_info WHERE arg = 'W'",
            "SELECT name, arg, schema FROM pragma_table_info WHERE arg = 'w' AND schema = 's'",
            "SELECT name, arg, schema FROM pragma_table_info('w') WHERE schema = 's'",
            "SELECT name, arg, schema FROM pragma_table_info('v') WHERE 's' = schema",
            "SELECT name FROM pragma_table_info AS p WHERE p.arg = 'w' AND p.name <> 'a'",
            "SELECT name FROM pragma_table_xinfo WHERE arg = 'w'",
            "SELECT * FROM pragma_index_list WHERE arg = 'w'",
            "SELECT * FROM pragma_index_info WHERE arg = 'wb'",
            "SELECT * FROM pragma_table_info('w') WHERE schema = 'nope'",
            "SELECT * FROM pragma_table_info WHERE arg = 'nope'",
        ],
    );
}

/// Other constraints on hidden columns not given as arguments: SQLite's
/// xBestIndex takes only `=` (IN included) as the argument, and the other
/// terms filter the rows of the pragma run without it.
#[test]
fn hidden_column_constraints() {
    check_each(
        "CREATE TABLE w(a); CREATE TABLE x(c); ATTACH ':memory:' AS s; CREATE TABLE s.w(b)",
        &[
            "SELECT * FROM pragma_table_info WHERE arg = 'w' OR arg = 'x'",
            "SELECT * FROM pragma_table_info WHERE arg > 'w'",
            "SELECT * FROM pragma_table_info WHERE arg IS 'w'",
            "SELECT * FROM pragma_table_info WHERE arg IN ('w', 'x')",
            "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info p WHERE p.arg = m.name ORDER BY 1, 2",
            "SELECT * FROM pragma_page_count WHERE schema = 'main'",
            "SELECT *, schema FROM pragma_page_count WHERE schema = 's'",
        ],
    );
}

/// The value pragmas inside views, CTEs, compounds, joins and triggers.
#[test]
fn value_pragmas_in_other_statements() {
    check_each(
        "PRAGMA foreign_keys = 0; ATTACH ':memory:' AS aux; CREATE TABLE t(a); CREATE TABLE log(v);
         CREATE VIEW v AS SELECT user_version AS uv FROM pragma_user_version;
         CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log SELECT user_version FROM pragma_user_version; END;
         PRAGMA user_version = 5;",
        &[
            "SELECT * FROM v",
            "PRAGMA user_version = 6",
            "SELECT * FROM v",
            "INSERT INTO t VALUES (1)",
            "SELECT * FROM log",
            "WITH c AS (SELECT * FROM pragma_user_version) SELECT * FROM c",
            "SELECT * FROM pragma_user_version UNION ALL SELECT * FROM pragma_application_id",
            "SELECT * FROM t LEFT JOIN pragma_user_version ON user_version = a",
            "SELECT * FROM pragma_journal_mode('aux'), pragma_page_size('aux')",
            "SELECT (SELECT count(*) FROM pragma_user_version WHERE user_version = t.a) FROM t",
            "INSERT INTO t SELECT page_size FROM pragma_page_size",
            "SELECT * FROM t",
        ],
    );
}

/// The pragmas served by the eponymous virtual table that runs the PRAGMA
/// when read (integrity_check, quick_check, optimize, cache_spill,
/// default_cache_size, analysis_limit, empty_result_callbacks and the heap
/// limits): arguments, the schema argument, hidden columns, WHERE
/// constraints as arguments, joins and correlated arguments.
#[test]
fn pragmas_run_when_read() {
    check_each(
        "PRAGMA foreign_keys = 0; ATTACH ':memory:' AS aux; CREATE TABLE t(a, b); CREATE TABLE aux.u(c);
         INSERT INTO t VALUES ('t', 1), ('u', 2), ('nope', 3); CREATE TABLE names(n); INSERT INTO names VALUES ('main'), ('aux');",
        &[
            "SELECT * FROM pragma_integrity_check",
            "SELECT * FROM pragma_integrity_check()",
            "SELECT *, arg, schema FROM pragma_integrity_check",
            "SELECT *, arg, schema FROM pragma_integrity_check('t')",
            "SELECT *, arg, schema FROM pragma_integrity_check('u', 'aux')",
            "SELECT * FROM pragma_integrity_check('nope')",
            "SELECT * FROM pragma_integrity_check(NULL, 'nope')",
            "SELECT * FROM pragma_integrity_check(3, 'main')",
            "SELECT * FROM pragma_integrity_check(5)",
            "SELECT * FROM pragma_integrity_check WHERE arg = 't'",
            "SELECT * FROM pragma_integrity_check WHERE arg = 'u' AND schema = 'aux'",
            "SELECT * FROM pragma_quick_check",
            "SELECT *, arg, schema FROM pragma_quick_check('t', 'main')",
            "SELECT * FROM pragma_quick_check('t', 'main', 'x')",
            "SELECT * FROM pragma_cache_spill",
            "SELECT *, schema FROM pragma_cache_spill('aux')",
            "SELECT * FROM pragma_cache_spill WHERE schema = 'aux'",
            "SELECT * FROM pragma_default_cache_size",
            "SELECT * FROM pragma_default_cache_size('aux')",
            "SELECT * FROM pragma_analysis_limit",
            "SELECT * FROM pragma_empty_result_callbacks",
            "SELECT * FROM pragma_soft_heap_limit, pragma_hard_heap_limit",
            "SELECT * FROM pragma_optimize",
            "SELECT * FROM pragma_analysis_limit(1)",
            "SELECT a, integrity_check FROM t JOIN pragma_integrity_check(t.a) ORDER BY a",
            "SELECT a, (SELECT integrity_check FROM pragma_quick_check(t.a)) FROM t ORDER BY a",
            "SELECT n, quick_check FROM names, pragma_quick_check(NULL, names.n) ORDER BY n",
            "SELECT n, cache_spill FROM names JOIN pragma_cache_spill(n) ORDER BY n",
            "SELECT p.integrity_check, t.a FROM pragma_integrity_check AS p, t WHERE p.arg = t.a ORDER BY t.a",
            "SELECT * FROM pragma_integrity_check(?1)",
            "SELECT count(*) FROM pragma_integrity_check UNION ALL SELECT count(*) FROM pragma_quick_check('t')",
            "WITH c(x) AS (SELECT 't') SELECT * FROM c, pragma_integrity_check(c.x)",
            "SELECT * FROM pragma_integrity_check LEFT JOIN t ON a = integrity_check",
        ],
    );
    check_plans(
        "CREATE TABLE t(a, b);",
        &[
            "SELECT * FROM pragma_integrity_check",
            "SELECT * FROM t JOIN pragma_integrity_check(t.a)",
            "SELECT * FROM pragma_quick_check AS p, t WHERE p.arg = t.a",
        ],
    );
}

/// Setting the pragmas the virtual tables read is seen by the next read.
#[test]
fn pragmas_run_when_read_follow_settings() {
    check_each(
        "PRAGMA foreign_keys = 0; CREATE TABLE t(a);",
        &[
            "PRAGMA analysis_limit = 100",
            "SELECT * FROM pragma_analysis_limit",
            "PRAGMA analysis_limit = -5",
            "PRAGMA analysis_limit",
            "PRAGMA analysis_limit = 0x7fffffffff",
            "PRAGMA analysis_limit = 'x'",
            "PRAGMA empty_result_callbacks = 1",
            "SELECT * FROM pragma_empty_result_callbacks",
            "PRAGMA empty_result_callbacks",
            "PRAGMA empty_result_callbacks = off",
            "PRAGMA empty_result_callbacks",
            "PRAGMA cache_spill = 100",
            "SELECT * FROM pragma_cache_spill",
            "PRAGMA default_cache_size",
            "PRAGMA default_cache_size = -300",
            "PRAGMA default_cache_size",
            "PRAGMA cache_size",
            "SELECT * FROM pragma_default_cache_size",
            "SELECT * FROM pragma_default_cache_size('main')",
            "PRAGMA default_cache_size = 0",
            "PRAGMA default_cache_size",
        ],
    );
}

/// The schema-describing pragmas in joins, with correlated arguments, the
/// schema argument from a column, and constraints on the hidden columns.
#[test]
fn schema_pragmas_in_joins() {
    check_each(
        "PRAGMA foreign_keys = 0; ATTACH ':memory:' AS aux; CREATE TABLE p(id INTEGER PRIMARY KEY, x UNIQUE);
         CREATE TABLE c(a REFERENCES p(id), b, c); CREATE INDEX cb ON c(b, c DESC); CREATE TABLE aux.c(z);
         CREATE INDEX aux.cz ON c(z); CREATE TABLE dbs(n); INSERT INTO dbs VALUES ('main'), ('aux');",
        &[
            "SELECT m.name, i.cid, i.name FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS i WHERE m.type = 'table' ORDER BY 1, 2",
            "SELECT m.name, l.name, l.origin FROM sqlite_schema AS m, pragma_index_list(m.name) AS l ORDER BY 1, 2",
            "SELECT l.name, ii.name FROM pragma_index_list('c') AS l JOIN pragma_index_info(l.name) AS ii ORDER BY 1, ii.seqno",
            "SELECT * FROM pragma_table_info('c') JOIN pragma_table_info('p') USING (cid) ORDER BY cid",
            "SELECT d.n, t.name FROM dbs AS d, pragma_table_info('c', d.n) AS t ORDER BY 1, 2",
            "SELECT d.n, l.name FROM dbs AS d JOIN pragma_index_list('c', d.n) AS l ORDER BY 1, 2",
            "SELECT d.n, x.* FROM dbs AS d, pragma_index_xinfo('cz', d.n) AS x ORDER BY 1",
            "SELECT name FROM pragma_table_info WHERE arg = 'c' AND schema = 'aux'",
            "SELECT name FROM pragma_table_info AS t, dbs WHERE t.arg = 'c' AND t.schema = dbs.n ORDER BY 1",
            "SELECT m.name, t.name FROM sqlite_schema AS m, pragma_table_info AS t WHERE t.arg = m.name ORDER BY 1, 2",
            "SELECT name FROM pragma_table_info WHERE arg IN ('c', 'p') ORDER BY 1",
            "SELECT * FROM pragma_foreign_key_list('c') JOIN pragma_table_info('p') ON name = \"to\"",
            "SELECT (SELECT count(*) FROM pragma_table_info(m.name)) FROM sqlite_schema AS m ORDER BY name",
            "SELECT * FROM pragma_table_info(?1)",
            "SELECT name FROM pragma_table_info('c' || '') ORDER BY 1",
            "SELECT name FROM pragma_table_info(upper('c'), lower('AUX'))",
            "SELECT name, arg, schema FROM pragma_table_info('c', 'aux')",
            "SELECT * FROM pragma_table_list('c')",
            "SELECT t.name, t.schema FROM dbs, pragma_table_list(NULL, dbs.n) AS t WHERE t.name NOT LIKE 'sqlite%' ORDER BY 1, 2",
            "SELECT * FROM pragma_page_count('aux'), pragma_page_size('aux')",
            "SELECT d.n, p.page_size FROM dbs AS d, pragma_page_size(d.n) AS p ORDER BY 1",
            "SELECT d.n, j.journal_mode FROM dbs AS d JOIN pragma_journal_mode(d.n) AS j ORDER BY 1",
            "SELECT * FROM pragma_collation_list JOIN pragma_database_list ON 1 ORDER BY 1, 2, 3, 4 LIMIT 4",
            // An argument naming a result alias (sqlite-utils' `indexes`).
            "SELECT m.name AS t, l.name AS index_name, x.cid, x.name FROM sqlite_schema AS m JOIN pragma_index_list(m.name) AS l \
             JOIN pragma_index_xinfo(index_name) AS x WHERE m.type = 'table' AND x.key = 1 ORDER BY 1, 2, 3",
            "SELECT upper(l.name) AS u, x.name FROM pragma_index_list('c') AS l, pragma_index_info(lower(u)) AS x ORDER BY 1, 2",
        ],
    );
}
