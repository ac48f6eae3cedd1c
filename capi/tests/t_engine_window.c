/* An application-defined window function over a moving frame. */
#include <stdio.h>
#include "sqlite3.h"

struct acc { sqlite3_int64 sum; int n; };

static void step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  (void)argc;
  a->sum += sqlite3_value_int64(argv[0]);
  a->n++;
}

static void inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  (void)argc;
  a->sum -= sqlite3_value_int64(argv[0]);
  a->n--;
}

static void value(sqlite3_context *ctx) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  sqlite3_result_int64(ctx, a->sum * 100 + a->n);
}

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int rc;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE n(x); INSERT INTO n VALUES(1),(2),(3),(4);", 0, 0, 0);
  printf("create=%d\n", sqlite3_create_window_function(db, "mysum", 1, SQLITE_UTF8, 0, step, value, value, inverse, 0));
  rc = sqlite3_prepare_v2(db, "SELECT x, mysum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM n", -1, &st, 0);
  printf("prepare=%d %s\n", rc, sqlite3_errmsg(db));
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    printf("  %lld %lld\n", sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
