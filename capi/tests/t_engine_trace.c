/* sqlite3_trace_v2 events, the legacy trace (expanded SQL) and profile. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *the_db;

static int on_trace(unsigned event, void *ctx, void *p, void *x) {
  (void)ctx;
  switch (event) {
    case SQLITE_TRACE_STMT: printf("  STMT [%s] sql()=[%s]\n", (const char *)x, sqlite3_sql((sqlite3_stmt *)p)); break;
    case SQLITE_TRACE_ROW: printf("  ROW data_count=%d\n", sqlite3_data_count((sqlite3_stmt *)p)); break;
    case SQLITE_TRACE_PROFILE: printf("  PROFILE [%s] nanos>=0:%d\n", sqlite3_sql((sqlite3_stmt *)p), *(sqlite3_int64 *)x >= 0); break;
    case SQLITE_TRACE_CLOSE: printf("  CLOSE is the db:%d\n", p == (void *)the_db); break;
  }
  return 0;
}

static void legacy(void *ctx, const char *sql) { (void)ctx; printf("  legacy trace [%s]\n", sql); }
static void profile(void *ctx, const char *sql, sqlite3_uint64 ns) { (void)ctx; (void)ns; printf("  legacy profile [%s]\n", sql); }

int main(void) {
  sqlite3_stmt *st;
  sqlite3_open(":memory:", &the_db);
  sqlite3_exec(the_db, "CREATE TABLE t(x);", 0, 0, 0);
  printf("trace_v2=%d\n", sqlite3_trace_v2(the_db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW | SQLITE_TRACE_PROFILE | SQLITE_TRACE_CLOSE, on_trace, 0));
  sqlite3_exec(the_db, "INSERT INTO t VALUES(1),(2);", 0, 0, 0);
  sqlite3_prepare_v2(the_db, "SELECT x FROM t WHERE x > ?", -1, &st, 0);
  sqlite3_bind_int(st, 1, 0);
  printf("step=%d\n", sqlite3_step(st));
  printf("reset=%d\n", sqlite3_reset(st));
  while (sqlite3_step(st) == SQLITE_ROW) {}
  printf("again\n");
  while (sqlite3_step(st) == SQLITE_ROW) {}
  sqlite3_finalize(st);
  printf("legacy=%s\n", sqlite3_trace(the_db, legacy, 0) ? "old" : "NULL");
  sqlite3_exec(the_db, "SELECT 'legacy only'", 0, 0, 0);
  sqlite3_profile(the_db, profile, 0);
  sqlite3_prepare_v2(the_db, "SELECT ?1 + 1, ?2", -1, &st, 0);
  sqlite3_bind_int(st, 1, 41);
  sqlite3_bind_text(st, 2, "it's", -1, SQLITE_STATIC);
  sqlite3_step(st);
  sqlite3_finalize(st);
  printf("off\n");
  sqlite3_trace(the_db, 0, 0);
  sqlite3_profile(the_db, 0, 0);
  sqlite3_exec(the_db, "SELECT 1", 0, 0, 0);
  sqlite3_trace_v2(the_db, SQLITE_TRACE_CLOSE, on_trace, 0);
  printf("close=%d\n", sqlite3_close(the_db));
  return 0;
}
