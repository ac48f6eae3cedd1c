//! The SQL of SQLite 3.41-3.54 checked against the reference SQLite
//! 3.54.1: aggregates with ORDER BY inside the call (3.44), NULLS
//! FIRST/LAST in the windows of aggregate queries, the other SQL-visible
//! changes listed in `compat-tests/SQL_3_41_TO_3_54.md` (each row names
//! its test here), and SQLite's own errors for what ringlite refuses.

#![allow(unsafe_code)]

use crate::sql_common::*;

const ROWS: &str = "CREATE TABLE t(a, b, g);
    INSERT INTO t VALUES(1,3,1),(2,1,2),(3,2,1),(4,0,2),(5,NULL,1),(6,NULL,2),(7,1,NULL),(8,2,NULL);
    CREATE TABLE u(a, b); INSERT INTO u VALUES(1,5),(2,3),(1,1),(3,3),(2,0);";

#[test]
fn aggregate_order_by_orders_the_arguments() {
    check_each(ROWS, &[
        "SELECT group_concat(a ORDER BY b) FROM t",
        "SELECT group_concat(a, '-' ORDER BY b DESC) FROM t",
        "SELECT string_agg(a, ',' ORDER BY b) FROM t",
        "SELECT json_group_array(a ORDER BY b) FROM t",
        "SELECT json_group_object(a, b ORDER BY b DESC) FROM t",
        "SELECT group_concat(a ORDER BY b), group_concat(a) FROM t",
        // Equal keys keep the order the rows arrived in.
        "SELECT group_concat(a ORDER BY g) FROM t",
        "SELECT group_concat(a ORDER BY b NULLS LAST), group_concat(a ORDER BY b DESC NULLS FIRST), group_concat(a ORDER BY b DESC NULLS LAST), group_concat(a ORDER BY b ASC NULLS FIRST) FROM t",
        "SELECT group_concat(a, '' ORDER BY g NULLS LAST, b DESC, a) FROM t",
        "SELECT group_concat(a ORDER BY a || b), group_concat(a ORDER BY 1), group_concat(a ORDER BY -a) FROM t",
        "SELECT group_concat(a ORDER BY (SELECT count(*) FROM t t2 WHERE t2.a > t.a)) FROM t",
        "SELECT group_concat(x ORDER BY y COLLATE nocase) FROM (SELECT a AS x, char(96 + a) AS y FROM t UNION ALL SELECT 9, 'B')",
        "SELECT count(a ORDER BY b), sum(a ORDER BY b), avg(a ORDER BY b), total(a ORDER BY b), max(a ORDER BY b), min(a ORDER BY b DESC) FROM t",
        "SELECT group_concat(a ORDER BY b) FROM t WHERE 0",
        "SELECT group_concat(a ORDER BY b) AS x FROM t ORDER BY group_concat(a ORDER BY b)",
    ]);
}

#[test]
fn aggregate_order_by_with_distinct_filter_and_groups() {
    check_each(
        ROWS,
        &[
            // DISTINCT keeps the first row seen of each value.
            "SELECT group_concat(DISTINCT a ORDER BY b) FROM u",
            "SELECT group_concat(DISTINCT a ORDER BY a DESC) FROM t",
            "SELECT group_concat(a ORDER BY b) FILTER (WHERE a > 1) FROM t",
            "SELECT group_concat(DISTINCT a ORDER BY b DESC) FILTER (WHERE b > 0) FROM u",
            "SELECT g, json_group_array(a ORDER BY b) FROM t GROUP BY g",
            "SELECT g, group_concat(a ORDER BY b DESC), max(a), count(*) FROM t GROUP BY g ORDER BY g DESC",
            "SELECT g, group_concat(a ORDER BY b) FROM t GROUP BY g HAVING group_concat(a ORDER BY b) LIKE '6%'",
            "SELECT b, group_concat(a ORDER BY a DESC) FROM u GROUP BY b",
            "SELECT (SELECT group_concat(a ORDER BY b DESC) FROM t WHERE t.g = x.g) FROM t x",
            "SELECT x.a, (SELECT group_concat(u.a ORDER BY u.b) FROM u WHERE u.a <= x.a) FROM u x",
            // Subtypes come back: JSON values stay JSON.
            "SELECT json_group_array(json('[' || a || ']') ORDER BY b) FROM t",
            "SELECT json_group_array(DISTINCT json_array(a) ORDER BY a DESC) FROM t",
            "SELECT json_group_object('k' || a, json_object('v', a) ORDER BY a DESC) FILTER (WHERE a < 4) FROM t",
        ],
    );
    // Groups read in an index's order (no GROUP BY sorter), a covering
    // index that lacks the ORDER BY column, a view, a renamed column.
    check_each(
        "CREATE TABLE w(a, b, g); CREATE INDEX wg ON w(g); CREATE INDEX wa ON w(a);
        INSERT INTO w VALUES(1,3,1),(2,1,2),(3,2,1),(4,0,2);
        CREATE VIEW v AS SELECT g, group_concat(a ORDER BY b) AS s FROM w GROUP BY g;",
        &[
            "SELECT g, group_concat(a ORDER BY b DESC) FROM w GROUP BY g",
            "SELECT group_concat(a ORDER BY b) FROM w WHERE a > 0",
            "SELECT * FROM v",
            "ALTER TABLE w RENAME COLUMN b TO bb",
            "SELECT sql FROM sqlite_schema WHERE name = 'v'",
            "SELECT * FROM v",
        ],
    );
}

/// min()/max() of one argument ignore an ORDER BY (as SQLite's do): bare
/// columns still come from the best row in scan order. A result column's
/// aggregate cannot name the SELECT's own aliases, in its arguments or its
/// ORDER BY.
#[test]
fn aggregate_order_by_min_max_and_aliases() {
    check_each(
        "CREATE TABLE t(a, b, g); INSERT INTO t VALUES(1,3,1),(8,2,2),(3,2,1),(8,1,2),(5,NULL,1);",
        &[
            "SELECT max(a ORDER BY b), b FROM t",
            "SELECT max(a ORDER BY b DESC), b FROM t",
            "SELECT min(a ORDER BY b DESC), b FROM t",
            "SELECT g, max(a ORDER BY b), b FROM t GROUP BY g",
            "SELECT max(a ORDER BY b), b, count(*) FROM t",
            "SELECT max(a ORDER BY nosuch) FROM t",
            "SELECT a + 1 AS x, group_concat(a ORDER BY x) FROM t",
            "SELECT a + 1 AS x, sum(x) FROM t",
            "SELECT a AS x, sum(x) FROM t",
            "SELECT min(a) AS m, max(m) FROM t",
            "SELECT b AS a, sum(a) FROM t",
            "SELECT a + 1 AS x FROM t GROUP BY g HAVING group_concat(a ORDER BY x) > ''",
            "SELECT a + 1 AS x, count(*) FROM t GROUP BY x HAVING sum(x) > 0",
            "SELECT a + 1 AS x, (SELECT sum(x) FROM t t2) FROM t",
            // The same for window calls (arguments, FILTER, PARTITION BY, ORDER
            // BY, a named window); the query's ORDER BY still sees aliases.
            "SELECT a + 1 AS x, sum(x) OVER () FROM t",
            "SELECT a + 1 AS x, sum(a) OVER (ORDER BY x) FROM t",
            "SELECT a + 1 AS x, sum(a) OVER (PARTITION BY x) FROM t",
            "SELECT a + 1 AS x, sum(a) FILTER (WHERE x > 2) OVER () FROM t",
            "SELECT a + 1 AS x, sum(a) OVER w FROM t WINDOW w AS (ORDER BY x)",
            "SELECT a + 1 AS x FROM t ORDER BY sum(x) OVER ()",
            "SELECT a + 1 AS x, row_number() OVER () FROM t ORDER BY sum(x) OVER ()",
            "SELECT g + 1 AS x, sum(sum(a)) OVER (ORDER BY x) FROM t GROUP BY g",
            "SELECT g AS g, rank() OVER (ORDER BY g) FROM t GROUP BY g",
            "SELECT a AS b, rank() OVER (ORDER BY b) FROM t",
            "SELECT sum(a) AS s, rank() OVER (ORDER BY s) FROM t GROUP BY g",
        ],
    );
}

#[test]
fn order_by_inside_a_non_aggregate_call_is_an_error() {
    check_each(
        ROWS,
        &[
            "SELECT group_concat(a ORDER BY b) OVER () FROM t",
            "SELECT group_concat(DISTINCT a ORDER BY b) OVER () FROM t",
            "SELECT sum(a ORDER BY b) OVER (ORDER BY a) FROM t",
            "SELECT abs(a ORDER BY b) FROM t",
            "SELECT max(a, b ORDER BY b) FROM t",
            "SELECT group_concat(ORDER BY b) FROM t",
            "SELECT nosuchfunc(a ORDER BY b) FROM t",
            "SELECT group_concat(a ORDER BY sum(b)) FROM t",
            "SELECT group_concat(a ORDER BY nosuchcol) FROM t",
            "SELECT string_agg(DISTINCT a, ';' ORDER BY b) FROM u",
            "SELECT count(* ORDER BY a) FROM t",
        ],
    );
}

/// The window-call errors SQLite's parser raises also stop a CREATE VIEW
/// or CREATE TRIGGER, whose body is stored rather than compiled.
#[test]
fn window_call_errors_in_stored_statements() {
    check_each(
        "CREATE TABLE t(a, b, g);",
        &[
            "CREATE VIEW v7 AS SELECT count(DISTINCT a) OVER () FROM t",
            "CREATE VIEW v8 AS SELECT group_concat(a ORDER BY b) OVER () FROM t",
            "CREATE VIEW v9 AS SELECT group_concat(a ORDER BY b) FILTER (WHERE a > 1) OVER (ORDER BY a) FROM t",
            "CREATE VIEW v10 AS SELECT group_concat(a ORDER BY b), sum(a) OVER (ORDER BY a) FROM t",
            "CREATE VIEW v11 AS SELECT sum(a) FILTER (WHERE a IN (SELECT a FROM t ORDER BY b)) OVER () FROM t",
            "CREATE VIEW v12 AS SELECT \"sum\"(DISTINCT a) OVER w FROM t WINDOW w AS ()",
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT max(a ORDER BY b) OVER () FROM t; END",
            "CREATE TRIGGER tr2 AFTER INSERT ON t BEGIN SELECT count(DISTINCT a) OVER () FROM t; END",
            "CREATE VIEW v14 AS SELECT max(a) OVER (ORDER BY b), group_concat(a ORDER BY b) FROM t",
            // `over` as a column alias.
            "CREATE VIEW v15 AS SELECT (SELECT a FROM t ORDER BY a) over FROM t",
            "CREATE VIEW v16 AS SELECT count(DISTINCT a) over FROM t",
            "SELECT name FROM sqlite_schema ORDER BY name",
        ],
    );
}

#[test]
fn nulls_first_last_in_windows_of_aggregate_queries() {
    check_each(ROWS, &[
        "SELECT g, sum(a) OVER (ORDER BY g NULLS LAST) FROM t GROUP BY g",
        "SELECT g, sum(sum(a)) OVER (ORDER BY g DESC NULLS FIRST) FROM t GROUP BY g",
        "SELECT g, rank() OVER (ORDER BY g ASC NULLS LAST), row_number() OVER (PARTITION BY g IS NULL ORDER BY max(b) DESC NULLS LAST) FROM t GROUP BY g ORDER BY g NULLS FIRST",
        "SELECT b, sum(a), sum(a) OVER (ORDER BY b NULLS LAST ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t GROUP BY b",
        "SELECT g, group_concat(a) OVER (ORDER BY g NULLS LAST), sum(a) OVER (ORDER BY g DESC NULLS FIRST) FROM t",
    ]);
}

/// An application-defined aggregate: the arguments of each step joined
/// with '|' (so the order it was stepped in shows).
mod user_aggregate {
    use libsqlite3_sys as ffi;
    use ringlite::value::Value;
    use ringlite::vdbe::func::{AggregateFunction, AggregateState, FuncDef, FuncFlags, FuncKind, FunctionContext};
    use std::sync::Arc;

    struct Joined(Vec<String>);
    impl AggregateState for Joined {
        fn step(&mut self, _: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::error::Result<()> {
            self.0.push(args.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join("/"));
            Ok(())
        }
        fn value(&mut self, _: &mut FunctionContext<'_>) -> ringlite::error::Result<Value> {
            Ok(Value::text(self.0.join("|")))
        }
        fn finalize(&mut self, c: &mut FunctionContext<'_>) -> ringlite::error::Result<Value> {
            self.value(c)
        }
    }
    struct JoinedFn;
    impl AggregateFunction for JoinedFn {
        fn start(&self) -> Box<dyn AggregateState> {
            Box::new(Joined(Vec::new()))
        }
    }

    pub fn register_ours(conn: &mut ringlite::Connection, name: &str) {
        let flags = FuncFlags { deterministic: true, direct_only: false, innocuous: false, subtype: false, builtin: false };
        conn.create_function(FuncDef { name: name.into(), n_args: -1, flags, kind: FuncKind::Aggregate(Arc::new(JoinedFn)) }).unwrap();
    }

    fn show(v: *mut ffi::sqlite3_value) -> String {
        // The same text as `format!("{:?}", Value)` gives for ours.
        unsafe {
            let v = match ffi::sqlite3_value_type(v) {
                ffi::SQLITE_INTEGER => Value::Integer(ffi::sqlite3_value_int64(v)),
                ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_value_double(v)),
                ffi::SQLITE_TEXT => {
                    let p = ffi::sqlite3_value_text(v);
                    let n = ffi::sqlite3_value_bytes(v) as usize;
                    Value::Text(std::slice::from_raw_parts(p, n).to_vec())
                }
                ffi::SQLITE_NULL => Value::Null,
                _ => Value::Blob(Vec::new()),
            };
            format!("{v:?}")
        }
    }

    unsafe extern "C" fn step(ctx: *mut ffi::sqlite3_context, n: i32, argv: *mut *mut ffi::sqlite3_value) {
        let slot = ffi::sqlite3_aggregate_context(ctx, std::mem::size_of::<*mut Vec<String>>() as i32) as *mut *mut Vec<String>;
        if (*slot).is_null() {
            *slot = Box::into_raw(Box::new(Vec::new()));
        }
        let args: Vec<String> = (0..n as usize).map(|i| show(*argv.add(i))).collect();
        (**slot).push(args.join("/"));
    }

    unsafe extern "C" fn finalize(ctx: *mut ffi::sqlite3_context) {
        let slot = ffi::sqlite3_aggregate_context(ctx, 0) as *mut *mut Vec<String>;
        let joined = if slot.is_null() || (*slot).is_null() { String::new() } else { Box::from_raw(*slot).join("|") };
        ffi::sqlite3_result_text(ctx, joined.as_ptr() as *const _, joined.len() as i32, ffi::SQLITE_TRANSIENT());
    }

    pub fn register_ref(db: *mut ffi::sqlite3, name: &str) {
        let name = std::ffi::CString::new(name).unwrap();
        let rc =
            unsafe { ffi::sqlite3_create_function_v2(db, name.as_ptr(), -1, ffi::SQLITE_UTF8, std::ptr::null_mut(), None, Some(step), Some(finalize), None) };
        assert_eq!(rc, 0);
    }
}

#[test]
fn order_by_in_an_application_defined_aggregate() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    user_aggregate::register_ours(&mut ours, "joined");
    user_aggregate::register_ref(reference.0, "joined");
    for sql in [
        ROWS,
        "SELECT joined(a ORDER BY b) FROM t",
        "SELECT joined(a, b ORDER BY b DESC NULLS FIRST, a) FROM t",
        "SELECT g, joined(a, 'x' ORDER BY b) FILTER (WHERE a <> 3) FROM t GROUP BY g",
        "SELECT joined(DISTINCT a ORDER BY b DESC) FROM u",
        "SELECT joined(a ORDER BY b) OVER () FROM t",
        "SELECT (SELECT joined(u.a ORDER BY u.b) FROM u WHERE u.a < t.a) FROM t",
    ] {
        let a = run_ours(&mut ours, sql);
        let b = run_ref(&reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
    }
}

/// Application-defined functions may be named like join keywords (3.42).
#[test]
fn functions_named_like_join_keywords() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    for name in ["cross", "full", "inner", "left", "natural", "outer", "right"] {
        user_aggregate::register_ours(&mut ours, name);
        user_aggregate::register_ref(reference.0, name);
    }
    for sql in [
        ROWS,
        "SELECT left(a), right(a ORDER BY b DESC), full(a, b), inner(a), outer(b), cross(a), natural(a) FROM t",
        "SELECT t.a, u.a FROM t LEFT JOIN u ON t.a = u.a WHERE u.b > 1",
        "SELECT left(t.a ORDER BY u.b) FROM t NATURAL JOIN u",
    ] {
        let a = run_ours(&mut ours, sql);
        let b = run_ref(&reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
    }
}

/// RAISE takes any expression as its message since 3.47.
#[test]
fn raise_message_is_an_expression() {
    check_each(
        "CREATE TABLE tr(x);
        CREATE TRIGGER a AFTER INSERT ON tr BEGIN SELECT raise(ABORT, 'bad ' || new.x); END;
        CREATE TRIGGER d BEFORE DELETE ON tr BEGIN SELECT raise(FAIL, NULL); END;
        CREATE TRIGGER u BEFORE UPDATE ON tr WHEN new.x > 1 BEGIN SELECT raise(ROLLBACK, 1.5 * new.x); END;",
        &[
            "INSERT INTO tr VALUES(5)",
            "DROP TRIGGER a",
            "INSERT INTO tr VALUES(5)",
            "DELETE FROM tr",
            "BEGIN; UPDATE tr SET x = 2",
            "SELECT count(*) FROM tr",
            "SELECT raise(ABORT, 'x' || 1)",
        ],
    );
}

/// jsonb_each/jsonb_tree (3.51): json_each/json_tree rows with containers
/// as JSONB.
#[test]
fn jsonb_each_and_jsonb_tree() {
    check_each(
        "",
        &[
            "SELECT * FROM jsonb_tree('{\"a\":[1,{\"b\":2}]}')",
            "SELECT * FROM jsonb_each('[1,[2],{\"c\":null}]')",
            "SELECT * FROM jsonb_each('[1,[2]]', '$[1]')",
            "SELECT * FROM jsonb_tree('[1,[2]]', '$[1]')",
            "SELECT json_group_array(value) FROM jsonb_each('[[1],{\"a\":2},3]')",
            "SELECT json_group_array(value) FROM json_each('[[1],{\"a\":2},3]')",
            "SELECT key, value, type, json, root FROM jsonb_each(jsonb('{\"x\":[1,2]}'))",
            "SELECT * FROM jsonb_each('[1]', '$', 3)",
            "SELECT * FROM jsonb_each('[1')",
            "SELECT json, root FROM json_each('[1]'), json_tree('[2]') AS t2",
            "SELECT root FROM json_each('[1]', '$')",
        ],
    );
}

/// The functions, operators, literals and date/time forms added from 3.41
/// to 3.54 (each a row of `compat-tests/SQL_3_41_TO_3_54.md`).
#[test]
fn release_log_sql_functions() {
    check_each("CREATE TABLE t(a, b); INSERT INTO t VALUES(1,3),(2,1);", &[
        // 3.41 unhex
        "SELECT unhex('414243'), unhex('zz'), unhex('41-42', '-'), unhex('0g'), unhex(' 41 ', ' '), unhex(NULL), unhex('41', NULL)",
        // 3.43 octet_length, timediff, ±YYYY-MM-DD modifiers
        "SELECT octet_length('héllo'), octet_length(12), octet_length(x'0102'), octet_length(1.5), octet_length(NULL)",
        "SELECT timediff('2023-02-15','2023-03-20'), timediff('2024-01-01 12:00:00','2023-12-31'), timediff('2024-03-01','2024-02-01'), timediff('2000-01-01', '2024-06-15 13:14:15.5')",
        "SELECT datetime('2024-01-01','+0001-02-03 04:05:06.5'), date('2000-01-01','+0010-01-01'), datetime('2000-01-01','-0000-00-01 01:00')",
        // 3.44 concat, concat_ws, string_agg, strftime letters
        "SELECT concat('a', NULL, 1), concat_ws(',', 'a', NULL, '', 'b'), concat_ws('-', '', 'a', '', NULL, 'b'), concat_ws(NULL, 'a')",
        "SELECT concat()",
        "SELECT string_agg(a, ';'), string_agg(a) FROM t",
        "SELECT strftime('%e|%F|%I|%k|%l|%p|%P|%R|%T|%u|%G|%g|%U|%V', '2024-01-07 15:04:05'), strftime('%G-%g-%V-%U-%W-%j-%e-%k-%l-%I-%p', '2021-01-03 00:30')",
        // 3.42 subsec, 3.46 ceiling/floor
        "SELECT datetime('2024-01-01 00:00:00.123','subsec'), datetime(1700000000.123,'unixepoch','subsec'), time('12:00:00.5','subsecond'), unixepoch('2024-01-01 00:00:00.25','subsec')",
        "SELECT datetime('2024-01-31','+1 month','ceiling'), datetime('2024-01-31','+1 month','floor'), datetime('2024-03-31', '-1 month', 'floor'), date('2024-01-31','+1 month','ceiling')",
        // 3.42 printf comma with floats, 3.50 %#Q, 3.51 '#' and -0.00
        "SELECT printf('%,.3f|%,d|%#Q|%#q', 1234567.5, 1234567, 'a'||char(9)||'b', 'x'||char(1)), format('%#f|%#.2f|%.2f', -0.0001, -0.001, -0.001)",
        // 3.46 underscores in numeric literals
        "SELECT 1_000, 1_2_3 + 0x1_0, 1_000.5_5, .5_5, 1e1_0",
        "SELECT 0x_1",
        "SELECT 1__0",
        "SELECT 1_",
        // 3.48/3.49 if() and iif() with 2 or more arguments
        "SELECT if(1,2), if(0,2), iif(0,1,0,2,3), if(0,1,0,2), iif(0,1,1,2)",
        // 3.50 unistr, unistr_quote
        "SELECT unistr('a\\u00e9\\U0001F600\\\\b'), unistr('\\+01F600'), unistr_quote('a''b'||char(10)), unistr_quote(1), unistr_quote(NULL)",
        "SELECT unistr('\\u12')",
        // JSON: 3.42 JSON5, 3.45 JSONB and json_valid flags, 3.46 json_pretty, ->/->>, 3.53 json_array_insert
        "SELECT json('{a:1,b:[1,2,],c:''x'',d:0x1F,e:.5,f:+1,g:Infinity}')",
        "SELECT json_valid('{a:1}'), json_valid('{a:1}',1), json_valid('{a:1}',2), json_valid(jsonb('[1]'),4), json_valid('[1]',8)",
        "SELECT jsonb('[1]'), jsonb_array(1,2), jsonb_object('a',1), jsonb_extract('{\"a\":[1]}','$.a'), jsonb_insert('[1]','$[#]',2), jsonb_patch('{\"a\":1}','{\"b\":2}'), jsonb_remove('[1,2]','$[0]'), jsonb_replace('{\"a\":1}','$.a',3), jsonb_set('{\"a\":1}','$.b',3)",
        "SELECT jsonb_group_array(a), jsonb_group_object(a, b) FROM t",
        "SELECT json_pretty('{\"a\":[1,2]}'), json_pretty('[1]', '--')",
        "SELECT '{\"12\":1,\"x\":[5,6]}' -> '12', '{\"x\":[5,6]}' ->> '$.x[1]', '[5,6]' -> 1, '[5,6]' ->> -1, '[5,6]' -> '-1', '{\"a\":[1,2,3]}' ->> '$.a[#-1]'",
        "SELECT json_array_insert('[1,2]','$[1]',9), jsonb_array_insert('[1,2]','$[1]',9)",
        "SELECT json_group_object(CASE WHEN a = 1 THEN NULL ELSE a END, b) FROM t",
        // 3.47 group_concat of one empty string
        "SELECT quote(group_concat(x)), quote(group_concat(x, '')) FROM (SELECT '' AS x)",
        // Extensions the reference build does not include: the same error.
        "SELECT median(a) FROM t",
        "SELECT percentile(a, 50) FROM t",
        "SELECT percentile_cont(a, 0.5) FROM t",
        "SELECT percentile_disc(a, 0.5) FROM t",
        "SELECT base64('abc')",
        "SELECT decimal('1.5')",
        "SELECT * FROM carray(1)",
    ]);
}

/// Statements whose forms changed from 3.41 to 3.54.
#[test]
fn release_log_statements() {
    check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1,3),(2,1);",
        &[
            // 3.41 excess parentheses around an IN subquery
            "SELECT 2 IN ((SELECT a FROM t)), 1 IN ((SELECT 1 UNION SELECT 2))",
            // 3.41.1 CAST(7 AS INT) keeps INT
            "CREATE TABLE c AS SELECT CAST(7 AS INT) AS x",
            "SELECT sql FROM sqlite_schema WHERE name = 'c'",
            // 3.46 large hexadecimal DEFAULT
            "CREATE TABLE h(a DEFAULT 0xffffffffffffffff, b DEFAULT -0x10); INSERT INTO h DEFAULT VALUES; SELECT a, b FROM h",
            // 3.51 STRICT typing of computed columns
            "CREATE TABLE s(a INT, b INT AS (a || 'x')) STRICT",
            "INSERT INTO s(a) VALUES(1)",
            // 3.51 wal_checkpoint=NOOP
            "PRAGMA wal_checkpoint=NOOP",
            // (UPDATE/DELETE ... LIMIT: not in the reference build, see
            // `sql_update_delete_limit`.)
            // an upsert target with a WHERE (partial unique index)
            "CREATE TABLE p(k, v, flag); CREATE UNIQUE INDEX pk ON p(k) WHERE flag = 1",
            "INSERT INTO p VALUES(1,1,1) ON CONFLICT(k) WHERE flag = 1 DO UPDATE SET v = v + 10",
            "INSERT INTO p VALUES(1,1,1) ON CONFLICT(k) WHERE flag = 1 DO UPDATE SET v = v + 10; SELECT * FROM p",
            "INSERT INTO p VALUES(1,1,1) ON CONFLICT(k) DO UPDATE SET v = v + 10",
            "INSERT INTO p VALUES(1,1,1) ON CONFLICT(k) WHERE flag = 2 DO NOTHING",
            "INSERT INTO p VALUES(1,5,1) ON CONFLICT(k) WHERE flag = 1 DO NOTHING; SELECT * FROM p",
        ],
    );
}

/// ALTER TABLE ... ALTER COLUMN SET/DROP NOT NULL, ADD [CONSTRAINT] CHECK,
/// DROP CONSTRAINT (3.53): the stored text as SQLite edits it, the rows
/// checked, SQLite's errors.
#[test]
fn alter_table_edits_constraints() {
    let schema = "SELECT name, sql FROM sqlite_schema ORDER BY name";
    check_each(
        "CREATE TABLE n(a NOT NULL, b, c INTEGER CHECK(c > 0), d TEXT NOT NULL DEFAULT 'x', e UNIQUE, f INT NoT   NuLl, CONSTRAINT c1 CHECK(b > 0));
        INSERT INTO n VALUES(1,2,3,'d',5,1),(2,NULL,4,'e',6,1);",
        &[
            "ALTER TABLE n ALTER COLUMN b SET NOT NULL",
            "ALTER TABLE n ALTER COLUMN e SET   NOT NULL",
            schema,
            "ALTER TABLE n ALTER COLUMN a DROP NOT NULL",
            "ALTER TABLE n ALTER COLUMN d DROP NOT NULL; ALTER TABLE n ALTER COLUMN f DROP NOT NULL; ALTER TABLE n ALTER COLUMN c DROP NOT NULL",
            schema,
            "ALTER TABLE n ALTER COLUMN zz DROP NOT NULL",
            "ALTER TABLE n ALTER COLUMN a SET NOT NULL ON CONFLICT REPLACE",
            schema,
            "ALTER TABLE n ALTER COLUMN a SET NOT NULL",
            "ALTER TABLE n ADD CONSTRAINT c2 CHECK (c < 100)",
            "ALTER TABLE n ADD CONSTRAINT c3 CHECK (c < 4)",
            "ALTER TABLE n ADD CHECK (b IS NULL OR b < 10)",
            schema,
            "ALTER TABLE n DROP CONSTRAINT c1",
            "ALTER TABLE n DROP CONSTRAINT nosuch",
            "ALTER TABLE n ADD CONSTRAINT c2 CHECK (1)",
            "ALTER TABLE n DROP CONSTRAINT C2",
            schema,
            "INSERT INTO n VALUES(1, 500, 7, 'q', 8, 1)",
            "INSERT INTO n VALUES(NULL, 5, 7, 'q', 8, 1)",
            "INSERT INTO n VALUES(1, 5, 7, NULL, 8, NULL); SELECT * FROM n",
            "ALTER TABLE n ADD CONSTRAINT u1 UNIQUE (a)",
            "CREATE VIEW vv AS SELECT 1 AS a; ALTER TABLE vv ALTER COLUMN a DROP NOT NULL",
            "ALTER TABLE sqlite_schema ALTER COLUMN sql SET NOT NULL",
            "ALTER TABLE nosuch ALTER COLUMN a DROP NOT NULL",
        ],
    );
    check_each("CREATE TABLE k(a CONSTRAINT nn NOT NULL, b CONSTRAINT ch CHECK(b > 0) NOT NULL, c CONSTRAINT u UNIQUE, d CONSTRAINT pk PRIMARY KEY, e CONSTRAINT df DEFAULT 3,
            f DECIMAL(10, 2) CONSTRAINT nn2 NOT NULL ON CONFLICT IGNORE COLLATE nocase,
            g CONSTRAINT r REFERENCES k(d) ON DELETE CASCADE NOT DEFERRABLE CONSTRAINT co COLLATE nocase CONSTRAINT gc CHECK (g <> 0), CONSTRAINT t1 CHECK (a <> b), CONSTRAINT fk FOREIGN KEY(a) REFERENCES k(d));", &[
        "ALTER TABLE k DROP CONSTRAINT nn",
        "ALTER TABLE k DROP CONSTRAINT ch",
        "ALTER TABLE k DROP CONSTRAINT u",
        "ALTER TABLE k DROP CONSTRAINT pk",
        "ALTER TABLE k DROP CONSTRAINT df",
        "ALTER TABLE k DROP CONSTRAINT fk",
        "ALTER TABLE k DROP CONSTRAINT nn2",
        "ALTER TABLE k DROP CONSTRAINT r",
        "ALTER TABLE k DROP CONSTRAINT co",
        "ALTER TABLE k DROP CONSTRAINT gc",
        schema,
        "ALTER TABLE k DROP CONSTRAINT t1",
        "ALTER TABLE k ADD CONSTRAINT ch CHECK (b < 0)",
        "ALTER TABLE k ALTER COLUMN f SET NOT NULL",
        schema,
        "CREATE TABLE m2(a, b); INSERT INTO m2 VALUES(1, 2); ALTER TABLE m2 ADD CONSTRAINT z CHECK (a > 1)",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (a > nosuch)",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (max(a) > 1)",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (a > (SELECT 1))",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (a > ?)",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (a IS NOT NULL), ADD CHECK (1)",
        "ALTER TABLE m2 ADD CONSTRAINT z CHECK (a = 1) -- trailing comment",
        schema,
        "CREATE TABLE w(a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO w VALUES(1, NULL); ALTER TABLE w ALTER COLUMN a DROP NOT NULL",
        "ALTER TABLE w ALTER COLUMN b SET NOT NULL",
        "DELETE FROM w; ALTER TABLE w ALTER COLUMN b SET NOT NULL; ALTER TABLE w ADD CHECK (a > b)",
        schema,
        "CREATE TABLE st(a INT, b TEXT) STRICT; INSERT INTO st VALUES(1, NULL); ALTER TABLE st ALTER COLUMN b SET NOT NULL",
        "CREATE TABLE g(a, b AS (a * 2) NOT NULL, c AS (a + 1)); INSERT INTO g(a) VALUES(1); ALTER TABLE g ALTER COLUMN b DROP NOT NULL; ALTER TABLE g ALTER COLUMN c SET NOT NULL; ALTER TABLE g ADD CHECK (c > b)",
        "CREATE TABLE ip(id INTEGER PRIMARY KEY, v); INSERT INTO ip VALUES(1, 1); ALTER TABLE ip ALTER COLUMN id SET NOT NULL; ALTER TABLE ip ADD CHECK (id < 5)",
        schema,
        "CREATE TEMP TABLE tt(a); ALTER TABLE temp.tt ALTER COLUMN a SET NOT NULL; SELECT sql FROM sqlite_temp_schema",
        "CREATE TABLE q(\"x y\" NOT NULL, [z] CHECK(z), \"w\"\"q\"); ALTER TABLE q ALTER COLUMN \"x y\" DROP NOT NULL; ALTER TABLE q ALTER COLUMN \"w\"\"q\" SET NOT NULL",
        "CREATE TABLE r(a -- comment\n NOT NULL /* c2 */, b); ALTER TABLE r ALTER COLUMN a DROP NOT NULL",
        "BEGIN; ALTER TABLE r ALTER COLUMN b SET NOT NULL; ROLLBACK",
        schema,
        "PRAGMA integrity_check",
    ]);
}

/// SQLITE_LIMIT_VARIABLE_NUMBER: "too many SQL variables" past it, and the
/// range of `?NNN` follows a lowered limit.
#[test]
fn too_many_sql_variables() {
    let many = |n: usize| format!("SELECT {}", vec!["?"; n].join(","));
    let (full, over) =
        (format!("SELECT count(*) FROM (VALUES(1)) WHERE 1 NOT IN ({})", vec!["?"; 32766].join(",")), format!("SELECT 1 IN ({})", vec!["?"; 32767].join(",")));
    check_each("", &[&full, &over, "SELECT ?32766, ?", "SELECT :a, ?32766, :b", "SELECT ?32766", "SELECT ?32767", "SELECT ?0", "SELECT ?1, ?32766, $x"]);
    let mut ours = ours_open();
    let reference = RefDb::open();
    ours.limit(9, 10);
    unsafe { libsqlite3_sys::sqlite3_limit(reference.0, 9, 10) };
    for sql in [
        many(10),
        many(11),
        "SELECT ?10".into(),
        "SELECT ?11".into(),
        "SELECT ?, ?11".into(),
        "SELECT :a, ?10".into(),
        "SELECT ?9, :a, :b".into(),
        "SELECT ?5, ?12, :a".into(),
    ] {
        let a = run_ours(&mut ours, &sql);
        let b = run_ref(&reference, &sql);
        assert_eq!(a, b, "\nSQL: {sql}");
    }
}

/// REINDEX EXPRESSIONS (3.53) rebuilds the expression indexes, unless a
/// table or index has that name.
#[test]
fn reindex_expressions() {
    check_each(
        "CREATE TABLE t(a, b); CREATE INDEX te ON t(a + b); CREATE INDEX tp ON t(a); INSERT INTO t VALUES(1, 2), (3, 4);",
        &[
            "REINDEX EXPRESSIONS",
            "REINDEX main.expressions",
            "REINDEX temp.expressions",
            "REINDEX nosuch.expressions",
            "PRAGMA integrity_check",
            "SELECT a FROM t WHERE a + b = 7",
            "CREATE TABLE expressions(x); CREATE INDEX ex ON expressions(x); REINDEX expressions",
        ],
    );
}

/// VACUUM INTO a `file:` URI (the reference build takes URIs everywhere;
/// ours when the connection does). `reserve=N` (3.53) is refused: ringlite
/// cannot write pages with reserved bytes.
#[test]
fn vacuum_into_a_uri() {
    use ringlite::{Connection, OpenFlags};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let mut ours = Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::URI)).unwrap();
    let reference = RefDb::open();
    let setup = "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'), (2, 'y');";
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    for (engine, name) in [("ours", "o"), ("ref", "r")] {
        let sql = format!("VACUUM INTO 'file:{d}/{name}%2Edb?mode=rwc'");
        let out = if engine == "ours" { run_ours(&mut ours, &sql) } else { run_ref(&reference, &sql) };
        assert_eq!(out, vec![Outcome::Rows { names: vec![], rows: vec![] }], "{engine}: {sql}");
        let again = if engine == "ours" { run_ours(&mut ours, &sql) } else { run_ref(&reference, &sql) };
        assert_eq!(again, vec![Outcome::Error { code: 1, message: "output file already exists".into() }], "{engine}");
    }
    let copy = RefDb::open_path(&format!("{d}/o.db"));
    let q = "SELECT * FROM t; PRAGMA integrity_check";
    assert_eq!(run_ref(&copy, q), run_ref(&RefDb::open_path(&format!("{d}/r.db")), q));
    let refused = run_ours(&mut ours, &format!("VACUUM INTO 'file:{d}/x.db?reserve=8'"));
    assert!(matches!(&refused[..], [Outcome::Error { code: 1, message }] if message.contains("reserve=N")), "{refused:?}");
    assert!(!dir.path().join("x.db").exists());
}

/// The body of a TEMP trigger may modify tables of the main schema (3.53);
/// other triggers still may not qualify the tables they change.
#[test]
fn temp_trigger_modifies_main() {
    check_each("CREATE TABLE m(a); CREATE TABLE m2(b); INSERT INTO m2 VALUES(1); CREATE TEMP TABLE tt(x); CREATE TEMP TABLE tt2(c);
        CREATE TEMP TRIGGER tr AFTER INSERT ON tt BEGIN INSERT INTO main.m VALUES(new.x); UPDATE main.m2 SET b = b + new.x; DELETE FROM main.m WHERE a < 0; INSERT INTO tt2 SELECT count(*) FROM main.m; END;", &[
        "INSERT INTO tt VALUES(7); INSERT INTO tt VALUES(-1); SELECT * FROM m; SELECT * FROM m2; SELECT * FROM tt2",
        "CREATE TRIGGER tr3 AFTER INSERT ON m BEGIN INSERT INTO main.m2 VALUES(new.a); END",
        "CREATE TRIGGER temp.tr4 AFTER INSERT ON m BEGIN INSERT INTO main.m2 VALUES(new.a); END",
        "INSERT INTO m VALUES(100); SELECT * FROM m2",
        "CREATE TEMP TRIGGER tr5 AFTER INSERT ON tt BEGIN INSERT INTO temp.tt2 VALUES(1); INSERT INTO nosuch.x VALUES(1); END",
        "INSERT INTO tt VALUES(1)",
        "SELECT * FROM tt2",
    ]);
}

/// More rows of the table: CREATE TABLE errors at CREATE time (3.44),
/// JSON depth (3.42), infinities in sums (3.43.1, 3.45.3), VALUES past the
/// compound limit (3.46.1), window group_concat of '' (3.46.1), 'utc'
/// twice (3.46), JSON5 escapes (3.50), comments in triggers (3.50.3),
/// float text (3.53).
#[test]
fn release_log_more() {
    let values = |q: &str| format!("SELECT count(*) FROM (VALUES {})", (0..600).map(|i| format!("({q}{i}{q})")).collect::<Vec<_>>().join(","));
    let deep = |n: usize| format!("SELECT json_valid('{}{}')", "[".repeat(n), "]".repeat(n));
    check_each(
        "CREATE TABLE m(a);",
        &[
            "CREATE TABLE bad(a, b, PRIMARY KEY(a), PRIMARY KEY(b))",
            "CREATE TABLE bad2(a INTEGER PRIMARY KEY AUTOINCREMENT, b) WITHOUT ROWID",
            "CREATE TABLE bad3(a, FOREIGN KEY(zz) REFERENCES m(a))",
            "CREATE TABLE bad4(a CHECK(zz > 0))",
            &deep(999),
            &deep(1001),
            "SELECT sum(x), total(x), avg(x) FROM (SELECT 1e308 AS x UNION ALL SELECT 1e308)",
            "SELECT sum(x), total(x) FROM (SELECT 1e308 AS x UNION ALL SELECT 1e308 UNION ALL SELECT -1e308)",
            &values(""),
            &values("\""),
            "SELECT group_concat(x) OVER (), group_concat(x, '') OVER () FROM (SELECT '' AS x UNION ALL SELECT '')",
            "SELECT datetime('2023-01-01', 'utc', 'utc')",
            "SELECT json('{\"a\":\"\\0\"}')",
            "SELECT json_valid('\"\\01\"', 2)",
            "CREATE TABLE cm(a); CREATE TRIGGER tcm AFTER INSERT ON cm BEGIN /* c */ SELECT 1; -- x\n END",
            "INSERT INTO cm VALUES(1)",
            "SELECT 0.1 + 0.2, cast(0.1 + 0.2 AS TEXT), 1.0 / 3, printf('%.17g', 0.1), 123456789012345678.0, 1e-5",
            "PRAGMA case_sensitive_like = 1; SELECT 'a' LIKE 'A'",
            "SELECT * FROM generate_series(1, 10) WHERE value > 7",
            "SELECT json_valid('\"a' || char(1) || 'b\"', 2), json('[''a' || char(9) || 'b'']')",
        ],
    );
}
