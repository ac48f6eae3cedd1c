/* The authorizer: the calls it receives while statements are prepared
** (action code and arguments), and what SQLITE_DENY / SQLITE_IGNORE do.
** Logged statements read their columns in the order SQLite resolves them
** (result columns, then WHERE): ringlite asks as it generates code. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int logging = 1;
static const char *deny_action_arg = 0; /* deny when arg1 or arg2 equals this */
static int deny_code = -1, ignore_code = -1, answer = SQLITE_DENY;

static const char *s(const char *p) { return p ? p : "NULL"; }

static int auth(void *p, int code, const char *a, const char *b, const char *db, const char *trig) {
  (void)p;
  /* Checks on the schema table come from SQLite's internal statements that
  ** maintain it (ringlite writes it directly): not logged. */
  if (logging && !(a && !strncmp(a, "sqlite_", 7))) printf("  auth %d %s %s %s %s\n", code, s(a), s(b), s(db), s(trig));
  if (code == deny_code && (!deny_action_arg || (a && !strcmp(a, deny_action_arg)) || (b && !strcmp(b, deny_action_arg))))
    return answer;
  if (code == ignore_code && (!deny_action_arg || (a && !strcmp(a, deny_action_arg)) || (b && !strcmp(b, deny_action_arg))))
    return SQLITE_IGNORE;
  return SQLITE_OK;
}

static int print_row(void *p, int n, char **v, char **c) {
  (void)p; (void)c;
  printf("   row:");
  for (int i = 0; i < n; i++) printf(" %s", v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void run(sqlite3 *db, const char *sql) {
  char *err = 0;
  printf("%s\n", sql);
  int rc = sqlite3_exec(db, sql, print_row, 0, &err);
  printf("  -> rc=%d ext=%d %s\n", rc, sqlite3_extended_errcode(db), err ? err : "");
  sqlite3_free(err);
}

static void quiet(sqlite3 *db, const char *sql) {
  logging = 0;
  sqlite3_exec(db, sql, 0, 0, 0);
  logging = 1;
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_set_authorizer(db, auth, 0);

  run(db, "CREATE TABLE t1(a INTEGER PRIMARY KEY, b, c)");
  run(db, "INSERT INTO t1 VALUES(1, 'x', 'y')");
  run(db, "SELECT b, c FROM t1");
  run(db, "SELECT b FROM t1 WHERE b = 'x'");
  run(db, "UPDATE t1 SET b = 'z' WHERE c = 'y'");
  run(db, "CREATE INDEX i1 ON t1(b)");
  run(db, "CREATE VIEW v1 AS SELECT b FROM t1");
  run(db, "CREATE TEMP TABLE tt(x)");
  run(db, "PRAGMA user_version = 3");
  run(db, "PRAGMA main.user_version");
  run(db, "BEGIN");
  run(db, "COMMIT");
  run(db, "SAVEPOINT sp1");
  run(db, "RELEASE sp1");
  run(db, "SELECT upper(b), length(c) FROM t1");
  run(db, "DELETE FROM t1 WHERE a = 9");
  run(db, "DROP INDEX i1");
  run(db, "DROP VIEW v1");
  run(db, "DROP TABLE tt");

  printf("-- deny a column read\n");
  logging = 0;
  deny_code = SQLITE_READ; deny_action_arg = "c";
  run(db, "SELECT b FROM t1");
  run(db, "SELECT c FROM t1");
  run(db, "SELECT b FROM t1 WHERE c IS NOT NULL");
  printf("-- ignore a column read\n");
  deny_code = -1; ignore_code = SQLITE_READ;
  run(db, "SELECT b, c FROM t1");
  run(db, "SELECT count(*) FROM t1 WHERE c = 'y'");
  printf("-- deny / ignore statements\n");
  ignore_code = -1;
  deny_action_arg = 0;
  deny_code = SQLITE_INSERT;
  run(db, "INSERT INTO t1 VALUES(2, 'p', 'q')");
  deny_code = -1; ignore_code = SQLITE_INSERT;
  run(db, "INSERT INTO t1 VALUES(2, 'p', 'q')");
  ignore_code = -1;
  quiet(db, "SELECT 1");
  logging = 0;
  run(db, "SELECT count(*) FROM t1");
  deny_code = SQLITE_UPDATE; deny_action_arg = "b";
  run(db, "UPDATE t1 SET b = 'w'");
  deny_code = -1; ignore_code = SQLITE_UPDATE;
  run(db, "UPDATE t1 SET b = 'w', c = 'v'");
  ignore_code = -1; deny_action_arg = 0;
  run(db, "SELECT b, c FROM t1");
  deny_code = SQLITE_DELETE;
  run(db, "DELETE FROM t1 WHERE a = 1");
  deny_code = -1; ignore_code = SQLITE_DELETE;
  run(db, "DELETE FROM t1 WHERE a = 2");
  ignore_code = -1;
  deny_code = SQLITE_CREATE_TABLE;
  run(db, "CREATE TABLE t2(x)");
  deny_code = -1; ignore_code = SQLITE_CREATE_TABLE;
  run(db, "CREATE TABLE t2(x)");
  ignore_code = -1;
  run(db, "SELECT name FROM sqlite_master ORDER BY name");
  deny_code = SQLITE_DROP_TABLE;
  run(db, "DROP TABLE t1");
  deny_code = SQLITE_PRAGMA;
  run(db, "PRAGMA user_version");
  deny_code = -1; ignore_code = SQLITE_PRAGMA;
  run(db, "PRAGMA user_version = 7");
  ignore_code = -1;
  run(db, "PRAGMA user_version");
  deny_code = SQLITE_TRANSACTION;
  run(db, "BEGIN");
  deny_code = SQLITE_FUNCTION; deny_action_arg = "upper";
  run(db, "SELECT upper('a'), lower('B')");
  deny_code = -1; ignore_code = SQLITE_FUNCTION;
  run(db, "SELECT upper('a'), lower('B')");
  ignore_code = -1; deny_action_arg = 0;
  deny_code = SQLITE_SELECT;
  run(db, "SELECT 1");
  printf("-- a bad answer\n");
  deny_code = SQLITE_SELECT; answer = 77;
  run(db, "SELECT 1");
  deny_code = -1; answer = SQLITE_DENY;
  printf("-- removed\n");
  sqlite3_set_authorizer(db, 0, 0);
  run(db, "SELECT c FROM t1");
  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
