/* Error reporting around statements: codes from step, reset and finalize,
** extended codes, messages, close with live statements, read-only and
** file databases. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sqlite3.h"

static void state(sqlite3 *db, const char *what, int rc) {
  printf("%s: rc=%d errcode=%d ext=%d msg=%s\n", what, rc, sqlite3_errcode(db), sqlite3_extended_errcode(db), sqlite3_errmsg(db));
}

/* Which calls record success on the connection, and which leave an
** earlier error in place. */
static void who_clears(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  sqlite3_open(":memory:", &db);
  sqlite3_prepare_v2(db, "select 1", -1, &st, 0); printf("prepare %d\n", sqlite3_errcode(db));
  sqlite3_step(st); printf("step row %d\n", sqlite3_errcode(db));
  sqlite3_step(st); printf("step done %d\n", sqlite3_errcode(db));
  sqlite3_reset(st); printf("reset %d\n", sqlite3_errcode(db));
  sqlite3_step(st); sqlite3_step(st); sqlite3_finalize(st); printf("finalize %d\n", sqlite3_errcode(db));
  sqlite3_exec(db, "select nope", 0, 0, 0); printf("exec error %d\n", sqlite3_errcode(db));
  sqlite3_prepare_v2(db, "select 1", -1, &st, 0);
  sqlite3_exec(db, "select nope", 0, 0, 0);
  sqlite3_step(st); printf("step over error %d\n", sqlite3_errcode(db));
  sqlite3_exec(db, "select nope", 0, 0, 0);
  sqlite3_reset(st); printf("reset of a run statement %d\n", sqlite3_errcode(db));
  sqlite3_exec(db, "select nope", 0, 0, 0);
  sqlite3_finalize(st); printf("finalize of a reset statement %d\n", sqlite3_errcode(db));
  sqlite3_prepare_v2(db, "select ?", -1, &st, 0);
  sqlite3_exec(db, "select nope", 0, 0, 0);
  sqlite3_bind_int(st, 1, 1); printf("bind %d\n", sqlite3_errcode(db));
  sqlite3_clear_bindings(st); printf("clear_bindings %d\n", sqlite3_errcode(db));
  sqlite3_finalize(st);
  sqlite3_exec(db, "select 1", 0, 0, 0); printf("exec ok %d\n", sqlite3_errcode(db));
  sqlite3_exec(db, "select nope", 0, 0, 0);
  sqlite3_create_function(db, "f", 1, SQLITE_UTF8, 0, 0, 0, 0); printf("create_function %d\n", sqlite3_errcode(db));
  sqlite3_busy_timeout(db, 10); printf("busy_timeout %d\n", sqlite3_errcode(db));
  sqlite3_close(db);
}

int main(void) {
  who_clears();
  sqlite3 *db, *ro;
  sqlite3_stmt *st, *st2;
  char path[] = "/tmp/ringlite-errors-XXXXXX";
  int rc, fd = mkstemp(path);
  close(fd);
  unlink(path);

  rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, 0);
  state(db, "open missing without CREATE", rc);
  sqlite3_close(db);
  rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0);
  state(db, "open create", rc);
  rc = sqlite3_exec(db, "CREATE TABLE t(a UNIQUE, b NOT NULL); INSERT INTO t VALUES(1, 1);", 0, 0, 0);
  state(db, "setup", rc);

  sqlite3_prepare_v2(db, "INSERT INTO t VALUES(1, 2)", -1, &st, 0);
  rc = sqlite3_step(st);
  state(db, "step unique", rc);
  rc = sqlite3_reset(st);
  state(db, "reset after error", rc);
  rc = sqlite3_reset(st);
  state(db, "reset again", rc);
  rc = sqlite3_step(st);
  rc = sqlite3_finalize(st);
  state(db, "finalize after error", rc);

  sqlite3_prepare_v2(db, "INSERT INTO t VALUES(2, NULL)", -1, &st, 0);
  rc = sqlite3_step(st);
  state(db, "step notnull", rc);
  sqlite3_finalize(st);

  sqlite3_extended_result_codes(db, 1);
  sqlite3_prepare_v2(db, "INSERT INTO t VALUES(1, 1)", -1, &st, 0);
  rc = sqlite3_step(st);
  state(db, "step unique (extended)", rc);
  rc = sqlite3_finalize(st);
  state(db, "finalize (extended)", rc);
  sqlite3_extended_result_codes(db, 0);

  rc = sqlite3_exec(db, "SELECT * FROM", 0, 0, 0);
  state(db, "syntax", rc);
  rc = sqlite3_exec(db, "SELECT nope FROM t", 0, 0, 0);
  state(db, "no column", rc);
  rc = sqlite3_exec(db, "INSERT INTO t VALUES(5, 5, 5)", 0, 0, 0);
  state(db, "too many values", rc);

  sqlite3_prepare_v2(db, "SELECT a FROM t", -1, &st, 0);
  sqlite3_prepare_v2(db, "SELECT b FROM t", -1, &st2, 0);
  printf("stmts: first=%s second=%s end=%s\n", sqlite3_next_stmt(db, 0) == st2 ? "st2" : "st",
         sqlite3_next_stmt(db, sqlite3_next_stmt(db, 0)) == st ? "st" : "st2",
         sqlite3_next_stmt(db, st) ? "more" : "NULL");
  rc = sqlite3_close(db);
  state(db, "close busy", rc);
  sqlite3_step(st);
  printf("db_handle=%d busy=%d\n", sqlite3_db_handle(st) == db, sqlite3_stmt_busy(st));
  rc = sqlite3_close_v2(db);
  printf("close_v2=%d\n", rc);
  printf("finalize=%d\n", sqlite3_finalize(st));
  printf("finalize last=%d\n", sqlite3_finalize(st2));

  rc = sqlite3_open_v2(path, &ro, SQLITE_OPEN_READONLY, 0);
  state(ro, "open readonly", rc);
  printf("db_readonly=%d\n", sqlite3_db_readonly(ro, "main"));
  rc = sqlite3_exec(ro, "INSERT INTO t VALUES(9, 9)", 0, 0, 0);
  state(ro, "write readonly", rc);
  rc = sqlite3_exec(ro, "SELECT count(*) FROM t", 0, 0, 0);
  state(ro, "read readonly", rc);
  sqlite3_close(ro);
  unlink(path);
  return 0;
}
