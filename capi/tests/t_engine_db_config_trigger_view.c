/* SQLITE_DBCONFIG_ENABLE_TRIGGER and SQLITE_DBCONFIG_ENABLE_VIEW: the
 * query with -1, setting them, TEMP triggers still firing (on TEMP and on
 * main tables) and INSTEAD OF triggers not, TEMP views still readable and
 * other views refused with SQLite's message. */
#include <stdio.h>
#include "sqlite3.h"

static int row(void *unused, int n, char **v, char **c) {
  (void)unused;
  for (int i = 0; i < n; i++) printf("%s=%s%s", c[i], v[i] ? v[i] : "NULL", i + 1 < n ? " | " : "\n");
  return 0;
}

static void run(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, row, 0, &err);
  printf("[%s] rc=%d %s\n", sql, rc, err ? err : "");
  sqlite3_free(err);
}

static void cfg(sqlite3 *db, const char *what, int op, int value) {
  int v = -5, rc = sqlite3_db_config(db, op, value, &v);
  printf("%s %d: rc=%d now=%d\n", what, value, rc, v);
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  cfg(db, "trigger", SQLITE_DBCONFIG_ENABLE_TRIGGER, -1);
  cfg(db, "view", SQLITE_DBCONFIG_ENABLE_VIEW, -1);
  run(db, "CREATE TABLE t(a); CREATE TABLE log(x); CREATE TEMP TABLE tt(a);"
          "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES('main '||new.a); END;"
          "CREATE TEMP TRIGGER ttr AFTER INSERT ON t BEGIN INSERT INTO log VALUES('temp '||new.a); END;"
          "CREATE TEMP TRIGGER tttr AFTER INSERT ON tt BEGIN INSERT INTO log VALUES('temp on temp '||new.a); END;"
          "CREATE VIEW v AS SELECT a FROM t; CREATE TEMP VIEW tv AS SELECT a FROM t; CREATE VIEW vv AS SELECT * FROM v;"
          "CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO log VALUES('view '||new.a); END;");
  cfg(db, "trigger", SQLITE_DBCONFIG_ENABLE_TRIGGER, 0);
  cfg(db, "trigger", SQLITE_DBCONFIG_ENABLE_TRIGGER, -1);
  run(db, "INSERT INTO t VALUES(1); INSERT INTO tt VALUES(2)");
  run(db, "INSERT INTO v VALUES(3)");
  run(db, "CREATE TRIGGER tr2 AFTER DELETE ON t BEGIN SELECT 1; END; DROP TRIGGER tr2");
  run(db, "SELECT * FROM log; DELETE FROM log");
  cfg(db, "trigger", SQLITE_DBCONFIG_ENABLE_TRIGGER, 5);
  run(db, "INSERT INTO t VALUES(4); INSERT INTO v VALUES(5); SELECT * FROM log; DELETE FROM log");
  cfg(db, "view", SQLITE_DBCONFIG_ENABLE_VIEW, 0);
  cfg(db, "view", SQLITE_DBCONFIG_ENABLE_VIEW, -1);
  run(db, "SELECT * FROM v");
  run(db, "SELECT count(*) FROM v");
  run(db, "SELECT * FROM tv");
  run(db, "SELECT * FROM main.V");
  run(db, "SELECT (SELECT a FROM v)");
  run(db, "SELECT * FROM vv");
  run(db, "SELECT * FROM t WHERE a IN (SELECT a FROM v)");
  run(db, "PRAGMA table_info(v)");
  run(db, "INSERT INTO v VALUES(6); SELECT * FROM log");
  run(db, "CREATE VIEW v2 AS SELECT 1; DROP VIEW v2");
  /* A statement prepared before the change is expired by it. */
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM tv", -1, &st, 0);
  cfg(db, "view", SQLITE_DBCONFIG_ENABLE_VIEW, 1);
  printf("step=%d\n", sqlite3_step(st));
  sqlite3_finalize(st);
  run(db, "SELECT * FROM v");
  sqlite3_close(db);
  return 0;
}
