//! Direct-only functions (load_extension(), the built-in one that refuses
//! to load): usable from the statement's own text only, refused as
//! "unsafe use of f()" from a view or trigger body and from schema
//! expressions (CHECK, generated column, index key, partial index WHERE),
//! differentially against SQLite 3.54.1. Also their pragma_function_list
//! flags.
use crate::sql_common::check_each;

#[test]
fn load_extension_is_direct_only() {
    check_each(
        "CREATE TABLE t(a); CREATE VIEW v AS SELECT load_extension('x') AS r;
         CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT load_extension('x'); END;",
        &[
            "SELECT load_extension('x')",
            "SELECT load_extension(NULL)",
            "SELECT * FROM v",
            "SELECT r FROM (SELECT * FROM v)",
            "WITH c AS (SELECT * FROM v) SELECT * FROM c",
            "INSERT INTO t VALUES(1)",
            "CREATE TABLE c1(a CHECK (load_extension(a) IS NULL))",
            "CREATE TABLE g1(a, b AS (load_extension(a)))",
            "CREATE INDEX i1 ON t(load_extension(a))",
            "CREATE INDEX i2 ON t(a) WHERE load_extension(a) IS NULL",
            "SELECT name, narg, flags FROM pragma_function_list WHERE name = 'load_extension' ORDER BY narg",
        ],
    );
}
