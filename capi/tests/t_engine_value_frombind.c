/* sqlite3_value_frombind(): which arguments of an application function
** are told they came from sqlite3_bind_*: a parameter passed straight to
** the function (in a result column, a WHERE term, an aggregate, a table
** scan's loop, through CAST, COLLATE or CASE, which copy it), and not a
** literal, an expression over a parameter, a column or another
** function's result. The values bound are of every type. (Not here: a
** parameter through a subquery's column or a CTE, which SQLite flattens
** and ringlite materialises, and through coalesce(), which SQLite codes
** inline: ringlite answers 0 for those, SQLite 1.) */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

/* fb(x, ...): the frombind flags of its arguments as a string of 0/1. */
static void fb(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  char buf[32];
  int i;
  for (i = 0; i < argc && i < 31; i++) buf[i] = sqlite3_value_frombind(argv[i]) ? '1' : '0';
  buf[i] = 0;
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* fbagg(x): the frombind flags seen by each step. */
static void fbStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  char *acc = sqlite3_aggregate_context(ctx, 64);
  size_t n;
  (void)argc;
  if (!acc) return;
  n = strlen(acc);
  if (n < 62) { acc[n] = sqlite3_value_frombind(argv[0]) ? '1' : '0'; acc[n + 1] = 0; }
}
static void fbFinal(sqlite3_context *ctx) {
  char *acc = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_text(ctx, acc ? acc : "", -1, SQLITE_TRANSIENT);
}

static void bind_all(sqlite3_stmt *st) {
  int n = sqlite3_bind_parameter_count(st), i;
  for (i = 1; i <= n; i++) {
    switch (i % 5) {
      case 1: sqlite3_bind_int(st, i, 7); break;
      case 2: sqlite3_bind_text(st, i, "txt", -1, SQLITE_STATIC); break;
      case 3: sqlite3_bind_double(st, i, 2.5); break;
      case 4: sqlite3_bind_blob(st, i, "\1\2", 2, SQLITE_STATIC); break;
      default: sqlite3_bind_null(st, i); break;
    }
  }
}

static void q(const char *sql) {
  sqlite3_stmt *st;
  int rc;
  printf("%s\n", sql);
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); return; }
  bind_all(st);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int i, n = sqlite3_column_count(st);
    printf("  ");
    for (i = 0; i < n; i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL");
    }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step error: %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_create_function(db, "fb", -1, SQLITE_UTF8, 0, fb, 0, 0);
  sqlite3_create_function(db, "fbd", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, fb, 0, 0);
  sqlite3_create_function(db, "fbagg", 1, SQLITE_UTF8, 0, 0, fbStep, fbFinal);
  sqlite3_exec(db, "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'), (2, 'y')", 0, 0, 0);
  q("SELECT fb(?1)");
  q("SELECT fb(?1, ?2, ?3, ?4, ?5)");
  q("SELECT fb(?1, 1, 'a', NULL, ?2)");
  q("SELECT fbd(?1, ?2)");
  q("SELECT fb(?1, ?1, ?1, ?1, ?1, ?1, ?1, ?1, ?1, ?1)");
  q("SELECT fb(:a, @b, $c, ?)");
  q("SELECT fb(?1 + 0), fb(?2 || ''), fb(-?1), fb(+?1), fb((?1))");
  q("SELECT fb(CAST(?1 AS TEXT)), fb(?2 COLLATE nocase), fb(abs(?1))");
  q("SELECT fb(a, ?1), fb(b) FROM t");
  q("SELECT a FROM t WHERE fb(?1, a) = '10'");
  q("SELECT fbagg(?1) FROM t");
  q("SELECT fbagg(a) FROM t");
  q("SELECT fb(?1) FROM t ORDER BY fb(?1)");
  q("SELECT fb(CASE WHEN 1 THEN ?1 END), fb(CASE WHEN 0 THEN 1 ELSE ?2 END), fb(CASE WHEN ?1 THEN ?2 END)");
  q("SELECT fb(?1), fb(?1) IS fb(?2), typeof(?1)");
  sqlite3_close(db);
  return 0;
}
