/* Pointer values (bindptr.txt): sqlite3_bind_pointer and
** sqlite3_result_pointer reach sqlite3_value_pointer of another function
** along the paths SQLite keeps them on (argument of an enclosing call,
** a bound parameter, a subquery's result), read as NULL by SQL everywhere,
** become plain NULL once stored, and are destroyed once. */
#include "sqlite3.h"
#include <stdio.h>
#include <string.h>

static int target = 42;
static int destroyed = 0;
static void destroy(void *p) { (void)p; destroyed++; }

static void make_ptr(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_pointer(ctx, &target, "test_ptr", destroy);
}
static void read_ptr(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int *p = sqlite3_value_pointer(argv[0], "test_ptr");
  int *q = sqlite3_value_pointer(argv[0], "test_pt");
  int *r = sqlite3_value_pointer(argv[0], 0);
  char buf[100];
  (void)argc;
  snprintf(buf, sizeof buf, "%s%s%s type=%d subtype=%u", p ? "ptr" : "none", q ? "!" : "", r ? "?" : "", sqlite3_value_type(argv[0]),
           sqlite3_value_subtype(argv[0]));
  if (p) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " *=%d", *p);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
static void pass_through(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_value(ctx, argv[0]);
}
static void dup_read(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_value *d = sqlite3_value_dup(argv[0]);
  (void)argc;
  sqlite3_result_text(ctx, sqlite3_value_pointer(d, "test_ptr") ? "dup ptr" : "dup none", -1, SQLITE_STATIC);
  sqlite3_value_free(d);
}

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare rc=%d %s\n", rc, sqlite3_errmsg(db)); return; }
  if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_pointer(st, 1, &target, "test_ptr", destroy);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" ");
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf(" %s", t ? (const char *)t : "NULL");
    }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step rc=%d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  printf("  destroyed=%d\n", destroyed);
  destroyed = 0;
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_create_function(db, "make_ptr", 0, SQLITE_UTF8, 0, make_ptr, 0, 0);
  sqlite3_create_function(db, "read_ptr", 1, SQLITE_UTF8 | SQLITE_SUBTYPE, 0, read_ptr, 0, 0);
  sqlite3_create_function(db, "pass", 1, SQLITE_UTF8, 0, pass_through, 0, 0);
  sqlite3_create_function(db, "dup_read", 1, SQLITE_UTF8, 0, dup_read, 0, 0);
  sqlite3_exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1),(2)", 0, 0, 0);
  show(db, "SELECT read_ptr(make_ptr())");
  show(db, "SELECT read_ptr(?1)");
  show(db, "SELECT read_ptr(?1), read_ptr(?1) FROM t");
  show(db, "SELECT read_ptr(make_ptr()) FROM t");
  show(db, "SELECT typeof(make_ptr()), make_ptr() IS NULL, quote(make_ptr()), coalesce(make_ptr(), 'x'), length(make_ptr())");
  show(db, "SELECT typeof(?1), ?1 IS NULL, ?1 = ?1, quote(?1)");
  show(db, "SELECT read_ptr(x) FROM (SELECT make_ptr() AS x)");
  show(db, "SELECT read_ptr(x) FROM (SELECT make_ptr() AS x FROM t)");
  show(db, "WITH c(x) AS (SELECT make_ptr()) SELECT read_ptr(x) FROM c");
  show(db, "WITH c(x) AS MATERIALIZED (SELECT make_ptr()) SELECT read_ptr(x) FROM c");
  show(db, "SELECT read_ptr(pass(make_ptr()))");
  show(db, "SELECT read_ptr(coalesce(make_ptr(), 1))");
  show(db, "SELECT read_ptr(ifnull(?1, 1))");
  show(db, "SELECT read_ptr((SELECT make_ptr()))");
  show(db, "SELECT read_ptr(x) FROM (SELECT ?1 AS x UNION ALL SELECT 2)");
  show(db, "SELECT dup_read(make_ptr())");
  show(db, "SELECT read_ptr(CASE WHEN a=1 THEN make_ptr() ELSE ?1 END) FROM t");
  show(db, "SELECT read_ptr(make_ptr()) ORDER BY 1");
  show(db, "SELECT make_ptr()");
  show(db, "CREATE TABLE p AS SELECT make_ptr() AS x");
  show(db, "SELECT typeof(x), read_ptr(x) FROM p");
  show(db, "SELECT read_ptr(max(make_ptr()))");
  sqlite3_close(db);
  return 0;
}
