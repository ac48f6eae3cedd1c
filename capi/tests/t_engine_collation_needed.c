/* sqlite3_collation_needed: a statement naming an unknown collation calls
** the callback, which may register it; the prepare then succeeds. */
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include "sqlite3.h"

static int calls;

static int by_length(void *p, int n1, const void *a, int n2, const void *b) {
  (void)p; (void)a; (void)b;
  return n1 - n2;
}

static void needed(void *p, sqlite3 *db, int enc, const char *name) {
  calls++;
  printf("  needed %s enc=%d user=%s\n", name, enc, (char *)p);
  if (strcmp(name, "BYLEN") == 0 || strcmp(name, "bylen") == 0)
    sqlite3_create_collation(db, name, SQLITE_UTF8, 0, by_length);
}

static void query(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  printf("%s -> prepare %d %s\n", sql, rc, rc ? sqlite3_errmsg(db) : "");
  if (rc) return;
  printf("  rows:");
  while (sqlite3_step(st) == SQLITE_ROW) printf(" %s", sqlite3_column_text(st, 0));
  printf("\n");
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES('ccc'), ('a'), ('bb');", 0, 0, 0);
  query(db, "SELECT x FROM t ORDER BY x COLLATE bylen");
  sqlite3_collation_needed(db, "ud", needed);
  query(db, "SELECT x FROM t ORDER BY x COLLATE bylen");
  query(db, "SELECT x FROM t ORDER BY x COLLATE bylen DESC");
  query(db, "SELECT x FROM t ORDER BY x COLLATE unknown");
  printf("calls=%d\n", calls);
  sqlite3_collation_needed(db, 0, 0);
  query(db, "SELECT x FROM t ORDER BY x COLLATE other");
  printf("calls=%d close=%d\n", calls, sqlite3_close(db));
  return 0;
}
