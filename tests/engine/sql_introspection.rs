//! Introspection as SQLite writes it: `PRAGMA table_info`/`table_xinfo`
//! show declared types and defaults as the CREATE statement wrote them
//! (standard type names upper-cased), number `pk` in PRIMARY KEY order,
//! describe the schema table itself and tables of attached databases; the
//! settings SQLite keeps without acting on them read back as set.
//! Differential against the reference SQLite.

use crate::sql_common::check_each;

const TABLES: &str = "ATTACH ':memory:' AS s;
CREATE TABLE t(a DECIMAL(10, 2) default current_timestamp, b text default 'x''y', c default (1 + 2), d default -1.5,
  e   varchar ( 20 )  not null, f INT default +3, g default (  'a'||'b' ), h Integer, i real, j blob, k any, l unsigned  big int,
  m default ( ( 1 ) ), n CONSTRAINT nn NOT NULL DEFAULT (x'00') CHECK(n <> 1), o default 'it''s', p default NULL, q default TRUE,
  primary key(e, a));
CREATE TABLE s.u(x integer primary key, y);
CREATE TABLE w(p, q, r, primary key(r, p)) without rowid;
CREATE TABLE v(a INTEGER, b TEXT, PRIMARY KEY(b DESC, a));
CREATE TABLE g(a INT, b INT GENERATED ALWAYS AS (a * 2) VIRTUAL, c text AS (a || 'x') STORED, d);
CREATE TABLE \"strange(name\"(\"a,b\" \"quoted type\", [c] integer primary key);";

#[test]
fn table_info_as_written() {
    check_each(
        TABLES,
        &[
            "PRAGMA table_info(t)",
            "PRAGMA table_xinfo(t)",
            "PRAGMA table_info(w)",
            "PRAGMA table_info(v)",
            "PRAGMA table_info(g)",
            "PRAGMA table_xinfo(g)",
            "PRAGMA table_info(\"strange(name\")",
            "SELECT * FROM pragma_table_info('t') ORDER BY cid DESC",
            "SELECT name, type, pk FROM pragma_table_info('v')",
        ],
    );
}

#[test]
fn defaults_as_written_still_apply() {
    check_each(TABLES, &["INSERT INTO t(e, a) VALUES('k', 1)", "SELECT b, c, d, f, g, m, hex(n), o, p, q FROM t"]);
}

#[test]
fn the_schema_table_and_attached_tables() {
    check_each(
        TABLES,
        &[
            "PRAGMA table_info(sqlite_master)",
            "PRAGMA table_info(sqlite_schema)",
            "PRAGMA table_info(sqlite_temp_master)",
            "PRAGMA table_xinfo(sqlite_schema)",
            "PRAGMA s.table_info(u)",
            "PRAGMA table_info(u)",
            "PRAGMA main.table_info(u)",
        ],
    );
}

#[test]
fn altered_tables_keep_their_written_types() {
    check_each(
        "CREATE TABLE a(x text default 'q'); ALTER TABLE a ADD COLUMN y Varchar( 9 ) DEFAULT (2 * 3); ALTER TABLE a ADD COLUMN z integer default -7; ALTER TABLE a RENAME COLUMN x TO xx;",
        &["PRAGMA table_info(a)", "INSERT INTO a DEFAULT VALUES", "SELECT * FROM a"],
    );
}

#[test]
fn kept_settings_read_back() {
    check_each(
        "",
        &[
            "PRAGMA read_uncommitted",
            "PRAGMA read_uncommitted = 1",
            "PRAGMA read_uncommitted",
            "PRAGMA read_uncommitted = off",
            "PRAGMA read_uncommitted",
            "PRAGMA automatic_index",
            "PRAGMA automatic_index = 0",
            "PRAGMA automatic_index",
            "PRAGMA temp_store",
            "PRAGMA temp_store = memory",
            "PRAGMA temp_store",
            "PRAGMA temp_store = 1",
            "PRAGMA temp_store",
            "PRAGMA cell_size_check = yes",
            "PRAGMA cell_size_check",
            "PRAGMA trusted_schema",
            "PRAGMA threads",
            "PRAGMA threads = 4",
            "PRAGMA threads",
            "PRAGMA threads = 100",
            "PRAGMA threads = -1",
            "PRAGMA threads",
        ],
    );
}
