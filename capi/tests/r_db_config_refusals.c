/* sqlite3_db_config switches ringlite does not implement are refused with
 * an error that says so, and the out value reports what holds. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int check(sqlite3 *db, int op, int want_value, int expected) {
  int v = -7, rc = sqlite3_db_config(db, op, want_value, &v);
  if (rc != SQLITE_ERROR || v != expected || !strstr(sqlite3_errmsg(db), "not supported by ringlite")) {
    printf("op %d: rc=%d value=%d msg=%s\n", op, rc, v, sqlite3_errmsg(db));
    return 1;
  }
  return 0;
}

int main(void) {
  sqlite3 *db;
  int bad = 0;
  sqlite3_open(":memory:", &db);
  bad |= check(db, SQLITE_DBCONFIG_RESET_DATABASE, 1, 0);
  sqlite3_close(db);
  return bad;
}
