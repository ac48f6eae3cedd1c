//! The errors of CREATE TABLE and ALTER TABLE ADD COLUMN for generated
//! columns and CHECK constraints, against SQLite: a subquery, a parameter
//! or a non-deterministic function in a generated column is refused
//! before its names are resolved (`x IN (SELECT ...)` says "subqueries
//! prohibited" even when `x` is no column), with SQLite's choice of
//! message among several errors of one table.
use crate::sql_common::check_each;

#[test]
fn generated_column_prohibited_constructs() {
    check_each(
        "CREATE TABLE t1(a); CREATE TABLE t5(x);",
        &[
            "CREATE TABLE a1(x, d AS ((SELECT 1)))",
            "CREATE TABLE a2(x, d AS (c IN (SELECT 1)))",
            "CREATE TABLE a3(x, d AS (x IN (SELECT 1)))",
            "CREATE TABLE a4(x, d AS (x NOT IN (SELECT 1)))",
            "CREATE TABLE a5(x, d AS (EXISTS (SELECT 1)))",
            "CREATE TABLE a6(x, d AS (x IN (1, 2, (SELECT 1))))",
            "CREATE TABLE a7(x, d AS (x IN t1))",
            "CREATE TABLE b1(x, d AS (x + ?))",
            "CREATE TABLE b2(x, d AS (c + ?))",
            "CREATE TABLE b3(x, d AS (? + z))",
            "CREATE TABLE b4(x, d AS (abs(?)))",
            "CREATE TABLE b5(x, d AS (x IN (?, 2)))",
            "CREATE TABLE c1(x, d AS (random() + (SELECT 1)))",
            "CREATE TABLE c2(x, d AS ((SELECT 1) + random()))",
            "CREATE TABLE c3(x, d AS (random() + ?))",
            "CREATE TABLE c4(x, d AS (? + random()))",
            "CREATE TABLE c5(x, d AS ((SELECT 1) + ?))",
            "CREATE TABLE c6(x, d AS (? + (SELECT 1)))",
            "CREATE TABLE c7(x, d AS (random() + c))",
            "CREATE TABLE c8(x, d AS (CURRENT_TIME))",
            "ALTER TABLE t5 ADD d AS (c IN (SELECT 1 FROM t1))",
            "ALTER TABLE t5 ADD e AS (x IN (SELECT 1 FROM t1))",
            "ALTER TABLE t5 ADD f AS (c + (SELECT 1 FROM t1))",
            "ALTER TABLE t5 ADD g AS (x IN (1, 2, (SELECT 1)))",
            "ALTER TABLE t5 ADD h AS (random())",
            "ALTER TABLE t5 ADD k AS (x * 2)",
            "SELECT sql FROM sqlite_schema ORDER BY name",
        ],
    );
}

#[test]
fn which_error_among_several() {
    check_each(
        "",
        &[
            "CREATE TABLE d1(x, d AS (c + ?), e AS ((SELECT 1)))",
            "CREATE TABLE d2(x, d AS (? + 1), e AS ((SELECT 1)))",
            "CREATE TABLE d3(x, d AS ((SELECT 1)), x)",
            "CREATE TABLE d4(x, d AS ((SELECT 1)) PRIMARY KEY)",
            "CREATE TABLE d5(x, d AS (y), CHECK (q > 0))",
            "CREATE TABLE d6(x, d AS (EXISTS (SELECT 1)), CHECK (q > 0))",
            "CREATE TABLE d7(x, d INTEGER DEFAULT 1 AS ((SELECT 1)))",
            "CREATE TABLE d8(x, d AS (1) DEFAULT ((SELECT 2)))",
            "CREATE TABLE d9(x, d AS (1) DEFAULT (2))",
            "CREATE TABLE e1(d AS ((SELECT 1)))",
            "CREATE TABLE e2(x, d AS (x), e AS (d IN (SELECT 1)))",
            "CREATE TABLE e3(x, d AS (y), e AS ((SELECT 1)))",
            "CREATE TABLE e4(x, d AS ((SELECT 1)), e AS (y))",
            "CREATE TABLE e5(x, d AS (y), e AS (z))",
            "CREATE TABLE e6(x, CHECK(q), CHECK(r))",
            "CREATE TABLE e7(x, d AS (random()), CHECK (q > 0))",
            "CREATE TABLE e8(x, d AS (y), e AS (random()))",
            "CREATE TABLE e9(x, d AS (random()), e AS (y))",
            "CREATE TABLE f1(x, d AS (?), e AS (y))",
            "CREATE TABLE f2(x, d AS (y), e AS (?))",
            "CREATE TABLE f3(x, d AS (x), CHECK (?))",
            "CREATE TABLE f4(x, d AS (?), CHECK (q))",
            "CREATE TABLE f5(x, d AS (random()), e AS (?))",
            "CREATE TABLE f6(x, d AS (?), e AS (random()))",
            "CREATE TABLE f7(x, d AS (x+1), CHECK((SELECT 1)))",
            "CREATE TABLE f8(x, d AS (x+y), CHECK((SELECT 1)))",
            "CREATE TABLE f9(x, d AS (x) CHECK((SELECT 1)))",
            "CREATE TABLE g1(x, d AS (random() + 1) STORED, e AS (y))",
            "CREATE TABLE g2(x, d AS (nosuchfunc(x)), e AS ((SELECT 1)))",
            "CREATE TABLE g3(x, d AS (x * 2) STORED, e AS (d + x))",
            "SELECT name FROM sqlite_schema ORDER BY name",
        ],
    );
}
