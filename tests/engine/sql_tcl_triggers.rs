//! Trigger behaviour SQLite's TCL tests check (tkt3832), differentially
//! against SQLite.
use crate::sql_common;
use sql_common::check_each;

#[test]
fn before_insert_sees_minus_one_for_a_rowid_still_to_allocate() {
    check_each(
        "CREATE TABLE t1(a INT, b INTEGER PRIMARY KEY); CREATE TABLE log(x, y);
         CREATE TRIGGER t1r1 BEFORE INSERT ON t1 BEGIN INSERT INTO log VALUES(new.b, new.rowid); END;
         CREATE TRIGGER t1r2 AFTER INSERT ON t1 BEGIN INSERT INTO log VALUES(new.b, new.rowid); END;
         CREATE TABLE t2(a, b); CREATE TABLE log2(x);
         CREATE TRIGGER t2r1 BEFORE INSERT ON t2 BEGIN INSERT INTO log2 VALUES(new.rowid); INSERT INTO t2(rowid, a) VALUES(100, 'trig'); END;",
        &[
            "INSERT INTO t1 VALUES(NULL,5)",
            "INSERT INTO t1 SELECT b, a FROM t1 ORDER BY b",
            "INSERT INTO t1(a) VALUES(7)",
            "INSERT INTO t1 VALUES(8, '9')",
            "SELECT rowid, * FROM t1",
            "SELECT rowid, * FROM log",
            "INSERT INTO t2 VALUES(1, 2)",
            "SELECT rowid, * FROM t2",
            "SELECT * FROM log2",
        ],
    );
}

#[test]
fn rename_table_keeps_its_triggers() {
    check_each(
        "CREATE TABLE t1(x); CREATE TABLE log(y);
         CREATE TRIGGER r1 AFTER INSERT ON T1 BEGIN INSERT INTO log VALUES(new.x); END;",
        &[
            "INSERT INTO t1(x) VALUES(123)",
            "ALTER TABLE T1 RENAME TO XYZ2",
            "INSERT INTO xyz2(x) VALUES(456)",
            "ALTER TABLE xyz2 RENAME TO pqr3",
            "INSERT INTO pqr3(x) VALUES(789)",
            "SELECT * FROM log",
            "SELECT type, name, tbl_name FROM sqlite_schema ORDER BY name",
        ],
    );
}

#[test]
fn alter_temp_table() {
    check_each(
        "CREATE TABLE main1(a,b,c); CREATE TEMP TABLE temp2(a,b,c); INSERT INTO temp2 VALUES(1,2,3);",
        &[
            "ALTER TABLE temp2 ADD COLUMN d",
            "ALTER TABLE temp2 RENAME TO temp2rn",
            "SELECT name FROM temp.sqlite_master WHERE name LIKE 'temp2%'",
            "SELECT * FROM temp2rn",
            "ALTER TABLE temp2rn RENAME COLUMN a TO z",
            "SELECT z FROM temp2rn",
            "SELECT name FROM sqlite_master",
        ],
    );
}
