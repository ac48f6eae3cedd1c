/* A progress handler may remove or replace itself from inside its own
 * callback (Tcl's progress.test does): the old handler must never run
 * again. Output is diffed against SQLite. */
#include <stdio.h>
#include "sqlite3.h"

static sqlite3 *db;
static int first_calls, second_calls;

static int second(void *p) { (void)p; second_calls++; return 0; }
static int removes_itself(void *p) { (void)p; first_calls++; sqlite3_progress_handler(db, 0, 0, 0); return 0; }
static int replaces_itself(void *p) { (void)p; first_calls++; sqlite3_progress_handler(db, 1, second, 0); return 0; }

static void run(const char *sql) {
  sqlite3_stmt *s;
  sqlite3_prepare_v2(db, sql, -1, &s, 0);
  int rows = 0, rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) rows++;
  printf("rc=%d rows=%d\n", rc, rows);
  sqlite3_finalize(s);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<100) INSERT INTO t SELECT i FROM c;", 0, 0, 0);
  sqlite3_progress_handler(db, 1, removes_itself, 0);
  run("SELECT a FROM t");
  printf("removed: first=%d\n", first_calls);
  first_calls = 0;
  sqlite3_progress_handler(db, 1, replaces_itself, 0);
  run("SELECT a FROM t");
  printf("replaced: first=%d second>0=%d\n", first_calls, second_calls > 0);
  sqlite3_close(db);
  return 0;
}
