/* Parameter numbering and names. */
#include <stdio.h>
#include "sqlite3.h"

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int i, rc;
  sqlite3_open(":memory:", &db);
  rc = sqlite3_prepare_v2(db, "SELECT ?1, :name, @x, $y, ?, ?9", -1, &st, 0);
  printf("params=%d", sqlite3_bind_parameter_count(st));
  for (i = 1; i <= sqlite3_bind_parameter_count(st); i++)
    printf(" [%d:%s]", i, sqlite3_bind_parameter_name(st, i) ? sqlite3_bind_parameter_name(st, i) : "NULL");
  printf(" index(:name)=%d index(@x)=%d index(nope)=%d\n", sqlite3_bind_parameter_index(st, ":name"),
         sqlite3_bind_parameter_index(st, "@x"), sqlite3_bind_parameter_index(st, ":nope"));
  printf("bind int=%d text=%d double=%d blob=%d null=%d int64=%d\n", sqlite3_bind_int(st, 1, 7),
         sqlite3_bind_text(st, 2, "hello world", 5, SQLITE_TRANSIENT), sqlite3_bind_double(st, 3, 0.5),
         sqlite3_bind_blob(st, 4, "\1\2\3", 3, SQLITE_STATIC), sqlite3_bind_null(st, 5), sqlite3_bind_int64(st, 6, 9007199254740993LL));
  rc = sqlite3_bind_int(st, 0, 1);
  printf("bind range 0=%d", rc);
  rc = sqlite3_bind_int(st, 7, 1);
  printf(" 7=%d errcode=%d msg=%s\n", rc, sqlite3_errcode(db), sqlite3_errmsg(db));
  rc = sqlite3_step(st);
  printf("step=%d", rc);
  for (i = 0; i < 6; i++) printf(" %d:%s", sqlite3_column_type(st, i), sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "NULL");
  printf("\n");
  printf("bind while busy=%d\n", sqlite3_bind_int(st, 1, 1));
  {
    char *x = sqlite3_expanded_sql(st);
    printf("expanded=%s\n", x ? x : "NULL");
    sqlite3_free(x);
  }
  sqlite3_reset(st);
  printf("clear=%d\n", sqlite3_clear_bindings(st));
  rc = sqlite3_step(st);
  printf("after clear: %d %d\n", sqlite3_column_type(st, 0), sqlite3_column_type(st, 5));
  sqlite3_finalize(st);

  sqlite3_close(db);
  return 0;
}
