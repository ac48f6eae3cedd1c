/* sqlite3_changes, sqlite3_last_insert_rowid and sqlite3_total_changes
** called from an application-defined function while a statement runs: at
** the top level they answer the connection's values, inside a trigger body
** the body's own (its last INSERT's rowid, its last statement's row count),
** and the firing statement's come back when the trigger ends. Also with
** trigger programs (recursive_triggers on) and an aggregate. */
#include <stdio.h>
#include "sqlite3.h"

static void probe(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  char buf[200];
  (void)argc;
  snprintf(buf, sizeof buf, "%s lir=%lld ch=%d ch64=%lld total=%d",
           (const char *)sqlite3_value_text(argv[0]), (long long)sqlite3_last_insert_rowid(db),
           sqlite3_changes(db), (long long)sqlite3_changes64(db), sqlite3_total_changes(db));
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static int count_step = 0;
static void agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)ctx; (void)argc; (void)argv;
  count_step++;
}
static void agg_final(sqlite3_context *ctx) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  char buf[100];
  snprintf(buf, sizeof buf, "steps=%d lir=%lld ch=%d", count_step, (long long)sqlite3_last_insert_rowid(db),
           sqlite3_changes(db));
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static int print_row(void *arg, int n, char **vals, char **cols) {
  int i;
  (void)arg; (void)cols;
  for (i = 0; i < n; i++) printf("%s%s", i ? " | " : "", vals[i] ? vals[i] : "NULL");
  printf("\n");
  return 0;
}

static void run(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, print_row, 0, &err);
  if (rc != SQLITE_OK) printf("rc=%d %s\n", rc, err ? err : "");
  sqlite3_free(err);
}

int main(void) {
  sqlite3 *db;
  int pass;
  sqlite3_open(":memory:", &db);
  sqlite3_create_function(db, "probe", 1, SQLITE_UTF8, 0, probe, 0, 0);
  sqlite3_create_function(db, "agg", 1, SQLITE_UTF8, 0, 0, agg_step, agg_final);
  run(db,
      "CREATE TABLE t(id INTEGER PRIMARY KEY, v);"
      "CREATE TABLE side(id INTEGER PRIMARY KEY, v);"
      "CREATE TABLE log(n INTEGER PRIMARY KEY, what);"
      "INSERT INTO side VALUES(10, 'a'), (11, 'b');"
      "CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN"
      "  INSERT INTO log(what) VALUES(probe('start'));"
      "  INSERT INTO side(v) VALUES(new.v);"
      "  INSERT INTO log(what) VALUES(probe('after insert'));"
      "  UPDATE side SET v = v || '+';"
      "  INSERT INTO log(what) VALUES(probe('after update'));"
      "END;"
      "CREATE TRIGGER t_bu BEFORE UPDATE ON t BEGIN"
      "  DELETE FROM side WHERE id > 11;"
      "  INSERT INTO log(what) VALUES(probe('before update'));"
      "END;");
  for (pass = 0; pass < 2; pass++) {
    printf("-- recursive_triggers %s\n", pass ? "on" : "off");
    if (pass) run(db, "PRAGMA recursive_triggers = ON; DELETE FROM log; DELETE FROM t;");
    run(db, "INSERT INTO t VALUES(100, 'x'), (101, 'y')");
    run(db, "SELECT probe('top')");
    run(db, "UPDATE t SET v = probe('update value')");
    run(db, "SELECT probe('top'), agg(v) FROM t");
    run(db, "SELECT n, what FROM log ORDER BY n");
    run(db, "SELECT v FROM t ORDER BY id");
    printf("api: lir=%lld ch=%d\n", (long long)sqlite3_last_insert_rowid(db), sqlite3_changes(db));
  }
  sqlite3_close(db);
  return 0;
}
