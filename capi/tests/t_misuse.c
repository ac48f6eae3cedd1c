/* NULL handles and bad arguments that SQLite itself detects: same codes and
** messages. (Calls SQLite does not guard, which crash it, are in r_robust.c.) */
#include <stdio.h>
#include "sqlite3.h"

int main(void) {
  sqlite3 *db = (sqlite3 *)1;
  sqlite3_stmt *st = (sqlite3_stmt *)1;
  const char *tail = 0;
  int rc;
  printf("errcode(NULL)=%d ext=%d msg=%s\n", sqlite3_errcode(0), sqlite3_extended_errcode(0), sqlite3_errmsg(0));
  printf("close(NULL)=%d close_v2(NULL)=%d\n", sqlite3_close(0), sqlite3_close_v2(0));
  printf("finalize(NULL)=%d reset(NULL)=%d\n", sqlite3_finalize(0), sqlite3_reset(0));
  printf("step(NULL)=%d\n", sqlite3_step(0));
  printf("prepare(NULL db)=%d stmt=%s\n", sqlite3_prepare_v2(0, "select 1", -1, &st, &tail), st ? "set" : "null");
  printf("bind_int(NULL)=%d bind_text(NULL)=%d\n", sqlite3_bind_int(0, 1, 1), sqlite3_bind_text(0, 1, "x", -1, SQLITE_STATIC));
  printf("column_count(NULL)=%d data_count(NULL)=%d\n", sqlite3_column_count(0), sqlite3_data_count(0));
  printf("column_type(NULL)=%d column_int(NULL)=%d column_text(NULL)=%s\n", sqlite3_column_type(0, 0), sqlite3_column_int(0, 0),
         sqlite3_column_text(0, 0) ? "ptr" : "null");
  printf("value_text(NULL)=%s db_handle(NULL)=%s\n", sqlite3_value_text(0) ? "ptr" : "null", sqlite3_db_handle(0) ? "ptr" : "null");
  printf("bind_parameter_count(NULL)=%d sql(NULL)=%s\n", sqlite3_bind_parameter_count(0), sqlite3_sql(0) ? "ptr" : "null");
  printf("exec(NULL)=%d\n", sqlite3_exec(0, "select 1", 0, 0, 0));
  printf("stmt_busy(NULL)=%d stmt_readonly(NULL)=%d\n", sqlite3_stmt_busy(0), sqlite3_stmt_readonly(0));

  rc = sqlite3_open_v2(":memory:", &db, 0, 0);
  printf("open_v2(flags=0)=%d db=%s\n", rc, db ? "set" : "null");
  sqlite3_close(db);
  db = (sqlite3 *)1;
  rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "no-such-vfs");
  printf("open_v2(bad vfs)=%d db=%s errcode=%d msg=%s\n", rc, db ? "set" : "null", sqlite3_errcode(db), sqlite3_errmsg(db));
  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
