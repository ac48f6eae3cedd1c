//! Error messages SQLite's TCL tests check (tkt1514, tkt3508, select4,
//! subquery2, limit), differentially against SQLite.
use crate::sql_common;
use sql_common::check_each;

#[test]
fn aggregate_misuse_messages() {
    check_each(
        "CREATE TABLE t1(a,b); CREATE TABLE m(id, ref);",
        &[
            "SELECT a FROM t1 WHERE max(b)<10 GROUP BY a",
            "SELECT a FROM t1 WHERE max(b)<10",
            "SELECT count(*) FROM t1 WHERE max(b)<10",
            "SELECT id, count(ref) AS c FROM m WHERE c > 1 GROUP BY id",
            "SELECT max(max(b)) FROM t1",
        ],
    );
}

#[test]
fn clause_before_compound_operator() {
    check_each(
        "CREATE TABLE t1(a,b);",
        &[
            "SELECT a FROM t1 WHERE a=1 ORDER BY a UNION ALL SELECT a FROM t1",
            "SELECT a FROM t1 WHERE a=1 ORDER BY a INTERSECT SELECT a FROM t1",
            "SELECT a FROM t1 ORDER BY a EXCEPT SELECT a FROM t1",
            "SELECT a FROM t1 LIMIT 1 UNION SELECT a FROM t1",
            "SELECT a FROM t1 UNION ALL SELECT a FROM t1 LIMIT 1 UNION SELECT 2",
            "SELECT a FROM (SELECT a FROM t1 LIMIT 1) UNION SELECT a FROM t1",
            "SELECT a FROM t1 UNION UNION SELECT 1",
        ],
    );
}

#[test]
fn negated_hex_literals() {
    check_each(
        "CREATE TABLE t(x);",
        &[
            "SELECT DISTINCT -0x08000000000000000",
            "SELECT -0x8000000000000000",
            "SELECT -0x7fffffffffffffff",
            "SELECT -0xffffffffffffffff",
            "SELECT -9223372036854775808",
            "SELECT 0x8000000000000000",
        ],
    );
}
