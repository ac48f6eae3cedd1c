/* The authorizer calls of ALTER TABLE, every call logged: after
** SQLITE_ALTER_TABLE, SQLite runs statements of its own on the schema
** tables to rewrite them (and to test that the schema still parses), each
** checked like any statement; a denial there fails the ALTER. RENAME TO,
** RENAME COLUMN, DROP COLUMN and ADD COLUMN on main, TEMP, attached and
** AUTOINCREMENT tables; an ALTER refused before the rewrite asks nothing
** more; an IGNORE of SQLITE_ALTER_TABLE leaves the table as it was. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;
static int deny_code = -1;
static const char *deny_arg = 0;
static int ignore_code = -1;

static const char *s(const char *p) { return p ? p : "NULL"; }

static int auth(void *p, int code, const char *a, const char *b, const char *d, const char *trig) {
  (void)p;
  printf("  auth %d %s %s %s %s\n", code, s(a), s(b), s(d), s(trig));
  if (code == deny_code && (!deny_arg || (b && !strcmp(b, deny_arg)))) return SQLITE_DENY;
  if (code == ignore_code) return SQLITE_IGNORE;
  return SQLITE_OK;
}

static void run(const char *sql) {
  char *err = 0;
  printf("%s\n", sql);
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  printf("  -> rc=%d %s\n", rc, err ? err : "");
  sqlite3_free(err);
}

static void quiet(const char *sql) {
  sqlite3_set_authorizer(db, 0, 0);
  if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) printf("setup failed: %s\n", sqlite3_errmsg(db));
  sqlite3_set_authorizer(db, auth, 0);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  quiet("CREATE TABLE t1(a, b, c);"
        "CREATE VIEW v1 AS SELECT * FROM t1;"
        "CREATE TRIGGER tr1 AFTER INSERT ON t1 BEGIN DELETE FROM t1 WHERE a<new.a; END;"
        "CREATE TEMP TRIGGER tr2 AFTER UPDATE OF a, b ON t1 BEGIN UPDATE t1 SET a=a+1 WHERE new.b<b; END;"
        "CREATE TEMP TABLE tt(x, y, z);"
        "CREATE TABLE ai(id INTEGER PRIMARY KEY AUTOINCREMENT, v);"
        "INSERT INTO ai(v) VALUES (1);"
        "ATTACH ':memory:' AS aux;"
        "CREATE TABLE aux.at(p, q, r);");
  run("ALTER TABLE t1 RENAME TO t2");
  run("ALTER TABLE t2 RENAME a TO aaa");
  run("ALTER TABLE t2 DROP COLUMN c");
  run("ALTER TABLE t2 ADD COLUMN d");
  run("ALTER TABLE t2 ADD COLUMN e INTEGER DEFAULT 0 CHECK (e >= 0)");
  run("ALTER TABLE t2 ADD COLUMN f AS (aaa + 1) NOT NULL");
  run("ALTER TABLE tt RENAME TO tt2");
  run("ALTER TABLE tt2 RENAME x TO xx");
  run("ALTER TABLE tt2 DROP COLUMN z");
  run("ALTER TABLE tt2 ADD COLUMN w");
  run("ALTER TABLE ai RENAME TO ai2");
  run("ALTER TABLE aux.at RENAME TO at2");
  run("ALTER TABLE aux.at2 RENAME p TO pp");
  run("ALTER TABLE aux.at2 DROP COLUMN r");
  run("ALTER TABLE aux.at2 ADD COLUMN s");
  /* Refused before the rewrite: nothing more is asked. */
  run("ALTER TABLE t2 RENAME nosuch TO x");
  run("ALTER TABLE t2 DROP COLUMN nosuch");
  run("ALTER TABLE t2 RENAME TO ai2");
  /* A denial among the rewrite's checks fails the ALTER. */
  deny_code = SQLITE_READ; deny_arg = "tbl_name";
  run("ALTER TABLE t2 RENAME TO t3");
  deny_code = SQLITE_UPDATE; deny_arg = "sql";
  run("ALTER TABLE t2 RENAME b TO bb");
  deny_code = SQLITE_FUNCTION; deny_arg = "sqlite_drop_column";
  run("ALTER TABLE t2 DROP COLUMN d");
  deny_code = SQLITE_FUNCTION; deny_arg = "printf";
  run("ALTER TABLE t2 ADD COLUMN g");
  deny_code = -1; deny_arg = 0;
  /* IGNORE for SQLITE_ALTER_TABLE: the ALTER does nothing. */
  ignore_code = SQLITE_ALTER_TABLE;
  run("ALTER TABLE t2 RENAME TO t4");
  run("ALTER TABLE t2 RENAME b TO b4");
  run("ALTER TABLE t2 DROP COLUMN d");
  run("ALTER TABLE t2 ADD COLUMN h");
  ignore_code = -1;
  sqlite3_set_authorizer(db, 0, 0);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT group_concat(name || ':' || sql, ' | ') FROM (SELECT name, sql FROM sqlite_schema UNION ALL SELECT name, sql FROM sqlite_temp_schema ORDER BY 1)", -1, &st, 0);
  if (sqlite3_step(st) == SQLITE_ROW) printf("schema: %s\n", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
