/* The authorizer's SQLITE_ATTACH and SQLITE_DETACH: the file name (or the
** schema name) when written as a string or a name, NULL for another
** expression or a bound parameter; SQLITE_DENY fails the statement with
** "not authorized", SQLITE_IGNORE makes it do nothing. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static int answer = SQLITE_OK;
static const char *s(const char *p) { return p ? p : "NULL"; }
static int auth(void *p, int code, const char *a, const char *b, const char *d, const char *ctx) {
  (void)p;
  if (code == SQLITE_ATTACH || code == SQLITE_DETACH) {
    printf("  [auth %d %s %s %s %s]\n", code, s(a), s(b), s(d), s(ctx));
    return answer;
  }
  return SQLITE_OK;
}
static void q(const char *sql) {
  sqlite3_stmt *st; int rc;
  printf("%s\n", sql);
  rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
  if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_text(st, 1, ":memory:", -1, SQLITE_STATIC);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int i, n = sqlite3_column_count(st); printf("  ");
    for (i = 0; i < n; i++) { const unsigned char *t = sqlite3_column_text(st, i); printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL"); }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}
int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_set_authorizer(db, auth, 0);
  q("ATTACH DATABASE ':memory:' AS a1");
  q("ATTACH ? AS a2");
  q("ATTACH ':mem' || 'ory:' AS a3");
  q("ATTACH \"x.db\" AS a4");
  q("SELECT name FROM pragma_database_list ORDER BY seq");
  q("DETACH a1");
  q("DETACH DATABASE 'a2'");
  q("DETACH \"a3\"");
  answer = SQLITE_DENY;
  q("ATTACH ':memory:' AS d1");
  q("DETACH a4");
  answer = SQLITE_IGNORE;
  q("ATTACH ':memory:' AS i1");
  q("DETACH a4");
  answer = SQLITE_OK;
  q("SELECT name FROM pragma_database_list ORDER BY seq");
  q("DETACH a4");
  q("DETACH nope");
  sqlite3_close(db);
  return 0;
}
