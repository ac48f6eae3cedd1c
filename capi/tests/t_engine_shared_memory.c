/* Named in-memory databases and the shared-cache switches of the C API:
 * SQLITE_OPEN_URI names with mode=memory share only with SQLITE_OPEN_SHAREDCACHE
 * or after sqlite3_enable_shared_cache(1); SQLITE_OPEN_PRIVATECACHE, plain
 * :memory: and SQLITE_OPEN_MEMORY names without a file: URI stay private;
 * sqlite3_enable_shared_cache(0) turns the default off again. */
#include "sqlite3.h"
#include <stdio.h>
static int count(sqlite3 *db) {
  sqlite3_stmt *st; int n = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, 0) != SQLITE_OK) { printf("  err: %s\n", sqlite3_errmsg(db)); return -1; }
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st); return n;
}
static void pair(const char *name, int flags) {
  sqlite3 *a, *b;
  sqlite3_open_v2(name, &a, flags, 0); sqlite3_open_v2(name, &b, flags, 0);
  sqlite3_exec(a, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", 0, 0, 0);
  printf("%s flags %x: b count %d\n", name, flags, count(b));
  sqlite3_close(a); sqlite3_close(b);
}
int main(void) {
  int rwc = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  pair("file:e1?mode=memory", rwc | SQLITE_OPEN_URI);
  printf("enable: %d\n", sqlite3_enable_shared_cache(1));
  pair("file:e2?mode=memory", rwc | SQLITE_OPEN_URI);
  pair("file:e3?mode=memory", rwc | SQLITE_OPEN_URI | SQLITE_OPEN_PRIVATECACHE);
  pair(":memory:", rwc);
  pair("e4", rwc | SQLITE_OPEN_MEMORY | SQLITE_OPEN_URI);
  pair("e5", rwc | SQLITE_OPEN_MEMORY);
  printf("disable: %d\n", sqlite3_enable_shared_cache(0));
  pair("file:e7?mode=memory", rwc | SQLITE_OPEN_URI | SQLITE_OPEN_SHAREDCACHE);
  pair("file:e6?mode=memory", rwc | SQLITE_OPEN_URI);
  return 0;
}
