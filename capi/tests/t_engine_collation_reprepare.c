/* sqlite3_collation_needed when a prepared statement is compiled again:
** its collation was removed (sqlite3_create_collation_v2 with a NULL
** compare), so the automatic reprepare of sqlite3_step meets an unknown
** collation and, as in prepare, calls the collation-needed callback; one
** that registers the collation lets the same statement run again (APSW's
** statement cache reuses statements this way). */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"
static int cmp(void *p, int n1, const void *a, int n2, const void *b) { (void)p; int n = n1 < n2 ? n1 : n2; int r = memcmp(a, b, n); return r ? r : n1 - n2; }
static void needed(void *p, sqlite3 *db, int enc, const char *name) { (void)p; (void)enc; printf("  needed %s\n", name); sqlite3_create_collation_v2(db, name, SQLITE_UTF8, 0, cmp, 0); }
static void noop(void *p, sqlite3 *db, int enc, const char *name) { (void)p; (void)db; (void)enc; printf("  noop %s\n", name); }
static void run(sqlite3 *db, sqlite3_stmt *st) {
  int rc; printf("step:");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) printf(" %s", sqlite3_column_text(st, 0));
  printf(" -> %d %s\n", rc, rc == SQLITE_DONE ? "" : sqlite3_errmsg(db));
  printf("  reset %d\n", sqlite3_reset(st));
}
int main(void) {
  sqlite3 *db; sqlite3_stmt *st;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "create table foo(x); insert into foo values('b'),('a')", 0, 0, 0);
  sqlite3_create_collation_v2(db, "strnum", SQLITE_UTF8, 0, cmp, 0);
  sqlite3_prepare_v2(db, "select x from foo order by x collate strnum", -1, &st, 0);
  run(db, st);
  printf("remove: %d\n", sqlite3_create_collation_v2(db, "strnum", SQLITE_UTF8, 0, 0, 0));
  run(db, st);
  sqlite3_collation_needed(db, 0, noop);
  run(db, st);
  sqlite3_collation_needed(db, 0, needed);
  run(db, st);
  run(db, st);
  sqlite3_finalize(st);
  sqlite3_close(db);
}
