/* Column names and declared types of a prepared statement that is compiled
** again after a schema change (a view dropped and created with other
** columns, a column added): sqlite3_column_name and friends answer for the
** new program, not the names the statement had before. */
#include <stdio.h>
#include "sqlite3.h"

static void show(sqlite3_stmt *st) {
  int i, n, rc = sqlite3_step(st);
  n = sqlite3_column_count(st);
  printf("rc=%d cols=%d:", rc, n);
  for (i = 0; i < n; i++) {
    const char *t = sqlite3_column_decltype(st, i);
    printf(" %s(%s)=%s", sqlite3_column_name(st, i), t ? t : "-", (const char *)sqlite3_column_text(st, i));
  }
  printf("\n");
  sqlite3_reset(st);
}

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *view, *table;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(x INTEGER, y TEXT); INSERT INTO t VALUES(1, 'two');"
                   "CREATE VIEW v AS SELECT x AS a, y FROM t;", 0, 0, 0);
  sqlite3_prepare_v2(db, "SELECT * FROM v", -1, &view, 0);
  sqlite3_prepare_v2(db, "SELECT * FROM t", -1, &table, 0);
  show(view);
  show(table);
  sqlite3_exec(db, "DROP VIEW v; CREATE VIEW v AS SELECT y AS b, x, x+1 FROM t;", 0, 0, 0);
  show(view);
  sqlite3_exec(db, "ALTER TABLE t ADD COLUMN z REAL DEFAULT 2.5;", 0, 0, 0);
  show(table);
  show(view);
  sqlite3_finalize(view);
  sqlite3_finalize(table);
  sqlite3_close(db);
  return 0;
}
