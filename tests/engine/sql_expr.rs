//! SELECT of expressions without tables, differentially against SQLite.
use crate::sql_common;
use sql_common::check;

#[test]
fn literals_and_arithmetic() {
    check("SELECT 1+1, 'a'||'b', NULL, 1.5*2, 7/2, 7.0/2, 7%3, -7%3, 5/0, 5%0, 2.0/3");
    check("SELECT 9223372036854775807+1, -9223372036854775808, -9223372036854775808/-1, 0x10, 1e300*1e10");
    check("SELECT 1 +  2 , 'x' AS y, (1), ((2+3)*4)");
    check("SELECT '3abc'+1, '1.5'+1, 'abc'*2, x'41' || 'b'");
}

#[test]
fn comparisons_and_logic() {
    check("SELECT 1=1, 1<2, 2<1, 1=NULL, NULL IS NULL, 1 IS NOT NULL, 1 IS 1, NULL=NULL, 'a'<'b', 1<'a'");
    check("SELECT 1 AND 0, 1 OR NULL, 0 AND NULL, NULL OR 0, NOT 1, NOT NULL, ~5, 6&3, 6|3, 1<<4, -16>>2");
    check("SELECT 5 BETWEEN 1 AND 10, 5 NOT BETWEEN 1 AND 4, 3 IN (1,2,3), 4 IN (1,2,3), NULL IN (1), 1 IN (NULL, 1), 2 IN (NULL,1), 2 NOT IN (1,3)");
    check("SELECT 1 IS TRUE, 0 IS FALSE, 1 = 1.0, '1' = 1");
}

#[test]
fn case_and_cast() {
    check("SELECT CASE 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END, CASE WHEN 0 THEN 1 END, CASE 3 WHEN 1 THEN 1 ELSE 9 END");
    check("SELECT CAST('12abc' AS INTEGER), CAST(1.9 AS INTEGER), CAST('1.5' AS REAL), CAST(12 AS TEXT), CAST('3.0' AS NUMERIC), CAST(x'3132' AS TEXT), CAST(5 AS BLOB)");
}

#[test]
fn functions() {
    check("SELECT typeof(1), typeof(1.5), typeof('x'), typeof(NULL), typeof(x'00'), abs(-5), coalesce(NULL, 3), length('abc'), upper('a'), lower('B')");
    check("SELECT 'abc' LIKE 'A%', 'abc' GLOB 'a*', 'abc' NOT LIKE 'b%', substr('hello', 2, 3), nullif(1,1), ifnull(NULL, 'z')");
    check("SELECT nosuchfunc(1)");
    check("SELECT abs(1,2)");
}

#[test]
fn errors() {
    check("SELECT 1 +");
    check("SELECT 'abc");
    check("SELEC 1");
    check("SELECT x");
    check("SELECT #");
}

#[test]
fn multiple_statements_and_comments() {
    check("SELECT 1; SELECT 2; -- trailing\n /* c */ SELECT 3;");
}
