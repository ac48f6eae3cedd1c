/* Application-defined functions (scalar, aggregate, window), result_* and
** value_* inside them, auxdata, collations. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int destroyed = 0;

static void describe(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  char buf[400] = "";
  int i;
  for (i = 0; i < argc; i++) {
    const unsigned char *t = sqlite3_value_text(argv[i]);
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, "%s%d/%d:%s", i ? "," : "", sqlite3_value_type(argv[i]),
             sqlite3_value_bytes(argv[i]), t ? (const char *)t : "NULL");
  }
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static void kinds(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int k = sqlite3_value_int(argv[0]);
  (void)argc;
  switch (k) {
    case 0: sqlite3_result_null(ctx); break;
    case 1: sqlite3_result_int64(ctx, -1234567890123LL); break;
    case 2: sqlite3_result_double(ctx, 2.5); break;
    case 3: sqlite3_result_text(ctx, "abcdef", 3, SQLITE_STATIC); break;
    case 4: sqlite3_result_blob(ctx, "\0\1\2", 3, SQLITE_TRANSIENT); break;
    case 5: sqlite3_result_zeroblob(ctx, 4); break;
    case 6: sqlite3_result_error(ctx, "custom failure", -1); break;
    case 7: sqlite3_result_error_code(ctx, SQLITE_CONSTRAINT); break;
    case 8: sqlite3_result_value(ctx, argv[0]); break;
    case 9: sqlite3_result_int(ctx, *(int *)sqlite3_user_data(ctx)); break;
    default: sqlite3_result_error_toobig(ctx); break;
  }
}

static void numeric(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, sqlite3_value_numeric_type(argv[0]));
}

static void cached(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int *p = sqlite3_get_auxdata(ctx, 0);
  (void)argc;
  if (p == 0) {
    p = sqlite3_malloc(sizeof *p);
    *p = sqlite3_value_int(argv[0]) * 10;
    sqlite3_set_auxdata(ctx, 0, p, sqlite3_free);
    sqlite3_result_int(ctx, 0);
  } else {
    sqlite3_result_int(ctx, *p);
  }
}

struct acc { sqlite3_int64 sum; int n; };

static void sum_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  (void)argc;
  a->sum += sqlite3_value_int64(argv[0]);
  a->n++;
}

static void sum_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  (void)argc;
  a->sum -= sqlite3_value_int64(argv[0]);
  a->n--;
}

static void sum_value(sqlite3_context *ctx) {
  struct acc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  sqlite3_result_int64(ctx, a->sum * 100 + a->n);
}

static void sum_final(sqlite3_context *ctx) {
  struct acc *a = sqlite3_aggregate_context(ctx, 0);
  if (a == 0) sqlite3_result_text(ctx, "empty", -1, SQLITE_STATIC);
  else sqlite3_result_int64(ctx, a->sum * 100 + a->n);
}

static void destroy(void *p) { (void)p; destroyed++; }

static int reverse_cmp(void *arg, int na, const void *a, int nb, const void *b) {
  int n = na < nb ? na : nb, r = memcmp(a, b, (size_t)n);
  (void)arg;
  if (r == 0) r = na - nb;
  return -r;
}

static void query(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare=%d %s\n", rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" ");
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf(" %d:%s", sqlite3_column_type(st, i), t ? (const char *)t : "NULL");
    }
    printf("\n");
  }
  printf("  rc=%d", rc);
  if (rc != SQLITE_DONE) printf(" ext=%d msg=%s", sqlite3_extended_errcode(db), sqlite3_errmsg(db));
  printf("\n");
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  int seven = 7, rc;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE n(x); INSERT INTO n VALUES(1),(2),(3),(4),('b'),('a'),('C');", 0, 0, 0);
  printf("create describe=%d\n", sqlite3_create_function(db, "describe", -1, SQLITE_UTF8, 0, describe, 0, 0));
  printf("create kinds=%d\n", sqlite3_create_function_v2(db, "kinds", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &seven, kinds, 0, 0, destroy));
  printf("create numeric=%d\n", sqlite3_create_function(db, "numeric", 1, SQLITE_UTF8, 0, numeric, 0, 0));
  printf("create cached=%d\n", sqlite3_create_function(db, "cached", 1, SQLITE_UTF8, 0, cached, 0, 0));
  printf("create mysum=%d\n", sqlite3_create_window_function(db, "mysum", 1, SQLITE_UTF8, 0, sum_step, sum_final, sum_value, sum_inverse, 0));
  printf("create bad=%d\n", sqlite3_create_function(db, "bad", 200, SQLITE_UTF8, 0, kinds, 0, 0));
  printf("create both=%d\n", sqlite3_create_function(db, "both", 1, SQLITE_UTF8, 0, kinds, sum_step, sum_final));
  printf("collation=%d\n", sqlite3_create_collation(db, "REV", SQLITE_UTF8, 0, reverse_cmp));
  query(db, "SELECT describe(1, 2.5, 'txt', x'4142', NULL, -0.0, 1e300)");
  query(db, "SELECT kinds(0), kinds(1), kinds(2), kinds(3), kinds(4), kinds(5), kinds(8), kinds(9)");
  query(db, "SELECT typeof(kinds(4)), length(kinds(5)), hex(kinds(4))");
  query(db, "SELECT kinds(6)");
  query(db, "SELECT kinds(7)");
  query(db, "SELECT kinds(10)");
  query(db, "SELECT numeric('12'), numeric('1.5'), numeric('3.0'), numeric(' 7 '), numeric('x'), numeric(x'31'), numeric(NULL)");
  query(db, "SELECT cached(5) FROM n LIMIT 3");
  query(db, "SELECT mysum(x) FROM n WHERE typeof(x) = 'integer'");
  query(db, "SELECT mysum(x) FROM n WHERE 0");
  query(db, "SELECT x FROM n WHERE typeof(x) = 'text' ORDER BY x COLLATE REV");
  query(db, "SELECT x FROM n WHERE typeof(x) = 'text' ORDER BY x COLLATE NOSUCH");
  query(db, "SELECT nosuchfunc(1)");
  query(db, "SELECT kinds(1, 2)");
  rc = sqlite3_create_function_v2(db, "kinds", 1, SQLITE_UTF8, 0, 0, 0, 0, 0);
  printf("delete kinds=%d destroyed=%d\n", rc, destroyed);
  query(db, "SELECT kinds(1)");
  sqlite3_create_function_v2(db, "kinds", 1, SQLITE_UTF8, &seven, kinds, 0, 0, destroy);
  sqlite3_close(db);
  printf("after close destroyed=%d\n", destroyed);
  return 0;
}
