/* sqlite3_load_extension and the SQL function load_extension(): the two
** switches, SQLite's file-name and entry-point rules, its error messages,
** SQLITE_OK_LOAD_PERMANENTLY and unloading at close. Runs in the directory
** where run.sh built the extension ext_demo.c as libdemoext.so, demoext.so
** and libother.so (the last without any entry point it could derive). */
#define _GNU_SOURCE
#include "sqlite3.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare rc=%d %s\n", rc, sqlite3_errmsg(db)); return; }
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
}

static void load(sqlite3 *db, const char *file, const char *proc) {
  char *err = (char *)1;
  int rc;
  sqlite3_exec(db, "SELECT 1", 0, 0, 0); /* a known error state before */
  rc = sqlite3_load_extension(db, file, proc, &err);
  printf("load(%s, %s) rc=%d err=%s errcode=%d errmsg=%s\n", file ? file : "NULL", proc ? proc : "NULL",
         rc, err ? err : "NULL", sqlite3_errcode(db), sqlite3_errmsg(db));
  sqlite3_free(err);
}

/* Whether the demo library is in the process now. */
static int demo_loaded(void) {
  void *h = dlopen("./libdemoext.so", RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != 0;
}

static void seven(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, 7);
}

static int config_flag(sqlite3 *db) {
  int v = -1;
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, -1, &v);
  return v;
}

int main(void) {
  sqlite3 *db;
  int v = -1;
  char *err = 0;

  printf("-- disabled by default\n");
  sqlite3_open(":memory:", &db);
  printf("config flag %d\n", config_flag(db));
  load(db, "./libdemoext.so", 0);
  show(db, "SELECT load_extension('./libdemoext.so')");
  printf("rc without pzErrMsg %d\n", sqlite3_load_extension(db, "./libdemoext.so", 0, 0));
  printf("library loaded: %d\n", demo_loaded());
  show(db, "SELECT name, narg, flags FROM pragma_function_list WHERE name = 'load_extension' ORDER BY narg");
  printf("-- direct-only: never from a view or a trigger\n");
  sqlite3_enable_load_extension(db, 1);
  show(db, "SELECT name, narg, flags FROM pragma_function_list WHERE name = 'load_extension' ORDER BY narg");
  sqlite3_exec(db, "CREATE TABLE tt(x); CREATE VIEW vv AS SELECT load_extension('./nosuchlib') AS r;"
                   "CREATE TRIGGER trg AFTER INSERT ON tt BEGIN SELECT load_extension('./nosuchlib'); END;", 0, 0, 0);
  show(db, "SELECT * FROM vv");
  show(db, "SELECT r IS NULL FROM (SELECT * FROM vv)");
  show(db, "INSERT INTO tt VALUES(1)");
  show(db, "SELECT load_extension(NULL)");
  sqlite3_create_function(db, "seven", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, seven, 0, 0);
  sqlite3_exec(db, "CREATE VIEW v7 AS SELECT seven() AS s", 0, 0, 0);
  show(db, "CREATE TABLE t7(a, b CHECK (b < seven()))");
  show(db, "SELECT seven()");
  show(db, "SELECT * FROM v7");
  show(db, "INSERT INTO t7 VALUES(1, 2)");
  show(db, "CREATE TABLE t8(a, b AS (a + seven()))");
  sqlite3_exec(db, "CREATE TABLE t9(a)", 0, 0, 0);
  show(db, "CREATE INDEX i9 ON t9(a + seven())");
  show(db, "CREATE INDEX i9 ON t9(a) WHERE a > seven()");
  sqlite3_exec(db, "DROP VIEW vv; DROP TRIGGER trg; DROP TABLE tt; DROP VIEW v7; DROP TABLE t7; DROP TABLE t9", 0, 0, 0);
  sqlite3_enable_load_extension(db, 0);

  printf("-- the C API only, by sqlite3_db_config\n");
  printf("db_config rc=%d", sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, &v));
  printf(" now %d\n", v);
  load(db, "./libdemoext.so", 0);
  printf("library loaded: %d\n", demo_loaded());
  show(db, "SELECT half(5), half(NULL), shout('abc'), typeof(half(1))");
  show(db, "SELECT product(x) FROM (SELECT 2 AS x UNION ALL SELECT 3 UNION ALL SELECT NULL UNION ALL SELECT 7)");
  show(db, "SELECT product(x) FROM (SELECT 1 AS x WHERE 0)");
  show(db, "SELECT x FROM (SELECT 'b' AS x UNION ALL SELECT 'a' UNION ALL SELECT 'c' UNION ALL SELECT 'ab') ORDER BY x COLLATE rev");
  show(db, "SELECT entry FROM temp.demo_log");
  show(db, "SELECT load_extension('./libdemoext.so', 'demo_alt_init')");
  load(db, "./libdemoext", "demo_alt_init");
  show(db, "SELECT half_alt(9), shout_alt('x'), product_alt(x) FROM (SELECT 4 AS x UNION ALL SELECT 5)");
  load(db, "./demoext.so", 0);
  load(db, "demoext", 0);
  show(db, "SELECT entry FROM temp.demo_log");

  printf("-- errors\n");
  load(db, "./nosuchlib", 0);
  load(db, "./nosuchlib.so", 0);
  load(db, "/nonexistent/dir/libx.so", "x_init");
  load(db, "", 0);
  load(db, "./libdemoext.so", "no_such_entry");
  load(db, "./libother.so", 0);
  load(db, "./libother", 0);
  load(db, "./libdemoext.so", "demo_fail_init");
  load(db, "./libdemoext.so", "demo_fail_quiet_init");
  load(db, "./libdemoext.so", "demo_busy_init");
  printf("rc without pzErrMsg %d\n", sqlite3_load_extension(db, "./libdemoext.so", "demo_fail_init", 0));
  printf("rc without pzErrMsg %d\n", sqlite3_load_extension(db, "./nosuchlib", 0, 0));

  printf("-- db_config off again\n");
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &v);
  load(db, "./libdemoext.so", 0);
  sqlite3_close(db);
  printf("library loaded after close: %d\n", demo_loaded());

  printf("-- sqlite3_enable_load_extension: C API and SQL\n");
  sqlite3_open(":memory:", &db);
  printf("enable rc=%d", sqlite3_enable_load_extension(db, 1));
  printf(" config flag %d\n", config_flag(db));
  show(db, "SELECT load_extension('./libdemoext.so')");
  show(db, "SELECT half(3), shout('sql')");
  show(db, "SELECT load_extension('./libdemoext', 'demo_alt_init'), half_alt(1)");
  show(db, "SELECT load_extension('./libdemoext', 'demo_alt_init')");
  show(db, "SELECT half_alt(8)");
  show(db, "SELECT load_extension(NULL), load_extension(NULL, 'x')");
  show(db, "SELECT load_extension('./nosuchlib')");
  show(db, "SELECT load_extension('./libdemoext.so', 'no_such_entry')");
  show(db, "SELECT load_extension('./libdemoext.so', 'demo_fail_init')");
  show(db, "SELECT load_extension('./libother.so')");
  show(db, "SELECT entry FROM temp.demo_log");
  printf("-- replacing a function from load_extension() in a running statement\n");
  show(db, "SELECT load_extension('./libdemoext.so')");
  load(db, "./libdemoext.so", 0);
  show(db, "SELECT entry FROM temp.demo_log");
  printf("-- sqlite3_db_config off: the SQL function, which goes through the C API, refuses too\n");
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &v);
  show(db, "SELECT load_extension('./libdemoext.so', 'demo_fail_init')");
  load(db, "./libdemoext.so", 0);
  printf("-- sqlite3_enable_load_extension(0) turns both off\n");
  sqlite3_enable_load_extension(db, 1);
  printf("disable rc=%d", sqlite3_enable_load_extension(db, 0));
  printf(" config flag %d\n", config_flag(db));
  show(db, "SELECT load_extension('./libdemoext.so')");
  load(db, "./libdemoext.so", 0);
  printf("library loaded: %d\n", demo_loaded());
  sqlite3_close(db);
  printf("library loaded after close: %d\n", demo_loaded());

  printf("-- extension functions stay usable while open; close_v2 zombie\n");
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  load(db, "./libdemoext.so", 0);
  {
    sqlite3_stmt *st = 0;
    sqlite3_prepare_v2(db, "SELECT half(x) FROM (SELECT 1 AS x UNION ALL SELECT 2)", -1, &st, 0);
    sqlite3_close_v2(db);
    printf("library loaded in zombie: %d\n", demo_loaded());
    while (sqlite3_step(st) == SQLITE_ROW) printf("  %s\n", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    printf("library loaded after finalize: %d\n", demo_loaded());
  }

  printf("-- the API extensions lean on, called through the table\n");
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  load(db, "./libdemoext.so", "demo_more_init");
  show(db, "SELECT auxfreed()");
  show(db, "SELECT patlen('abc', x) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3)");
  show(db, "SELECT auxfreed()");
  {
    /* auxdata lives until its statement is reset */
    sqlite3_stmt *st = 0;
    sqlite3_prepare_v2(db, "SELECT patlen('xy', 1)", -1, &st, 0);
    printf("step %d", sqlite3_step(st));
    printf(" value %d", sqlite3_column_int(st, 0));
    printf(" step %d\n", sqlite3_step(st));
    show(db, "SELECT auxfreed()");
    sqlite3_reset(st);
    show(db, "SELECT auxfreed()");
    sqlite3_finalize(st);
  }
  show(db, "SELECT ptr_read(5), ptr_make() IS NULL, typeof(ptr_make())");
  sqlite3_exec(db, "CREATE TABLE b(data BLOB); INSERT INTO b VALUES(x'00010203ff'), (zeroblob(3))", 0, 0, 0);
  show(db, "SELECT blob_head('b', 'data', rowid, 4) FROM b");
  show(db, "SELECT blob_head('b', 'data', 99, 4)");
  show(db, "SELECT blob_head('nosuch', 'data', 1, 4)");
  show(db, "SELECT count_rows('b'), count_rows('sqlite_schema')");
  show(db, "SELECT count_rows('nosuch')");
  show(db, "SELECT subtype_of(tag('x')), subtype_of('x')");
  show(db, "SELECT x FROM (SELECT 'B' AS x UNION ALL SELECT 'a' UNION ALL SELECT 'c') ORDER BY x COLLATE nocase2");
  /* the extension's virtual table module */
  show(db, "CREATE VIRTUAL TABLE temp.bad USING demo_range(0)");
  show(db, "CREATE VIRTUAL TABLE r USING demo_range(12)");
  show(db, "SELECT n, sq FROM r LIMIT 4");
  show(db, "SELECT sq FROM r WHERE n = 7");
  show(db, "SELECT count(*), sum(sq) FROM r WHERE n > 9");
  show(db, "SELECT n FROM r WHERE n > 8 ORDER BY n DESC");
  show(db, "SELECT group_concat(r.n) FROM r JOIN b ON r.n = b.rowid");
  show(db, "SELECT rowid, n FROM r WHERE sq BETWEEN 20 AND 50");
  show(db, "SELECT name, sql FROM sqlite_schema WHERE name = 'r'");
  show(db, "DROP TABLE r");
  show(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'r'");
  show(db, "SELECT overloaded(1, 2)");
  show(db, "SELECT overloaded(1)");
  printf("overload of a name this connection lacks rc=%d\n", sqlite3_overload_function(db, "half", 1));
  show(db, "SELECT half(1)");
  printf("overload of an existing function rc=%d\n", sqlite3_overload_function(db, "patlen", 2));
  show(db, "SELECT patlen('ab', 1)");
  printf("overload of a builtin rc=%d\n", sqlite3_overload_function(db, "printf", 3));
  show(db, "SELECT printf('%d-%d', 1, 2)");
  show(db, "SELECT nocase_destroyed()");
  sqlite3_create_collation(db, "nocase2", SQLITE_UTF8, 0, 0);
  show(db, "SELECT nocase_destroyed()");
  sqlite3_close(db);

  printf("-- SQLITE_OK_LOAD_PERMANENTLY\n");
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  load(db, "./libdemoext.so", "demo_permanent_init");
  show(db, "SELECT half_perm(4), entry FROM temp.demo_log");
  sqlite3_close(db);
  printf("library loaded after close: %d\n", demo_loaded());
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "SELECT half_perm(4)", 0, 0, &err);
  printf("new connection: %s\n", err ? err : "no error");
  sqlite3_free(err);
  sqlite3_close(db);
  return 0;
}
