/* An authorizer that denies a function is asked once per prepare: a
 * failing prepare is compiled again only when the schema on disk changed. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int calls;
static int auth(void *p, int code, const char *a, const char *b, const char *c, const char *d) {
  (void)p; (void)a; (void)c; (void)d;
  if (code == SQLITE_FUNCTION) {
    calls++;
    if (strcmp(b, "max") == 0) return SQLITE_DENY;
  }
  return SQLITE_OK;
}

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st = 0;
  int rc;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t1(a,b,c); INSERT INTO t1 VALUES(1,2,3);", 0, 0, 0);
  sqlite3_set_authorizer(db, auth, 0);
  rc = sqlite3_prepare_v2(db, "SELECT max(a,b,c) FROM t1", -1, &st, 0);
  printf("rc=%d msg=%s calls=%d\n", rc, sqlite3_errmsg(db), calls);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
