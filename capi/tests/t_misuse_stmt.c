/* Misuse of valid handles that SQLite detects: column indexes out of
** range, bindings out of range or on a running statement, accessors with
** no current row, close with live statements, a connection used from a
** callback of its own, prepare of an empty or bad string. Same codes and
** messages as SQLite. */
#include <stdio.h>
#include "sqlite3.h"

static const char *n(const void *p) { return p ? "ptr" : "null"; }

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st, *st2;
  const char *tail;
  int rc;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'), (2, 'y');", 0, 0, 0);

  sqlite3_prepare_v2(db, "SELECT a, b FROM t WHERE a >= ?1 ORDER BY a", -1, &st, 0);
  rc = sqlite3_bind_int(st, 0, 1);
  printf("bind 0=%d msg=%s\n", rc, sqlite3_errmsg(db));
  rc = sqlite3_bind_int(st, 2, 1);
  printf("bind 2=%d msg=%s\n", rc, sqlite3_errmsg(db));
  printf("bind -1=%d\n", sqlite3_bind_int(st, -1, 1));
  printf("bind 1=%d\n", sqlite3_bind_int(st, 1, 0));
  printf("before step: data_count=%d", sqlite3_data_count(st));
  printf(" type=%d", sqlite3_column_type(st, 0));
  printf(" int=%d", sqlite3_column_int(st, 0));
  printf(" text=%s\n", n(sqlite3_column_text(st, 0)));
  printf("column_name(2)=%s column_name(-1)=%s decltype(5)=%s\n", n(sqlite3_column_name(st, 2)),
         n(sqlite3_column_name(st, -1)), n(sqlite3_column_decltype(st, 5)));
  rc = sqlite3_step(st);
  printf("step=%d\n", rc);
  printf("col 5: type=%d", sqlite3_column_type(st, 5));
  printf(" int=%d", sqlite3_column_int(st, 5));
  printf(" text=%s", n(sqlite3_column_text(st, 5)));
  printf(" bytes=%d", sqlite3_column_bytes(st, 5));
  printf(" blob=%s\n", n(sqlite3_column_blob(st, 5)));
  printf("col -1: type=%d", sqlite3_column_type(st, -1));
  printf(" int64=%lld", sqlite3_column_int64(st, -1));
  printf(" double=%g\n", sqlite3_column_double(st, -1));
  rc = sqlite3_bind_int(st, 1, 2);
  printf("bind while running=%d msg=%s\n", rc, sqlite3_errmsg(db));
  printf("clear_bindings while running=%d\n", sqlite3_clear_bindings(st));
  rc = sqlite3_close(db);
  printf("close with live stmt=%d msg=%s\n", rc, sqlite3_errmsg(db));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
  printf("done=%d\n", rc);
  printf("after done: data_count=%d type=%d\n", sqlite3_data_count(st), sqlite3_column_type(st, 0));
  rc = sqlite3_step(st);
  printf("step after done (auto reset)=%d", rc);
  printf(" a=%d\n", sqlite3_column_int(st, 0));
  rc = sqlite3_reset(st);
  printf("reset=%d", rc);
  printf(" finalize=%d\n", sqlite3_finalize(st));

  st = (sqlite3_stmt *)1;
  rc = sqlite3_prepare_v2(db, "", -1, &st, &tail);
  printf("prepare empty=%d stmt=%s\n", rc, n(st));
  rc = sqlite3_prepare_v2(db, "  -- only a comment\n ", -1, &st, &tail);
  printf("prepare comment=%d stmt=%s tail_at_end=%d\n", rc, n(st), *tail == 0);
  rc = sqlite3_prepare_v2(db, "SELEC 1", -1, &st, &tail);
  printf("prepare bad=%d stmt=%s msg=%s\n", rc, n(st), sqlite3_errmsg(db));
  rc = sqlite3_prepare_v2(db, "SELECT 1; SELECT 2", -1, &st, &tail);
  printf("prepare two=%d tail=[%s]\n", rc, tail);
  rc = sqlite3_prepare_v2(db, "SELECT 3", -1, &st2, 0);
  printf("second stmt=%d next_stmt(first)=%s\n", rc, sqlite3_next_stmt(db, 0) ? "ptr" : "null");
  sqlite3_finalize(st);
  sqlite3_finalize(st2);
  printf("finalize(NULL)=%d\n", sqlite3_finalize(0));
  rc = sqlite3_prepare_v2(db, "SELECT a FROM t", 5, &st, &tail);
  printf("prepare nbyte=5: %d msg=%s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
