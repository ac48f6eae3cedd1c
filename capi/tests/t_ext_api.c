/* A part of the API an extension uses that needs engine support (listed in
** engine_gaps.txt while it differs): a pointer value
** (sqlite3_result_pointer) passed from one function to another. Uses
** demo_more_init of ext_demo.c, built by run.sh in the current directory. */
#include "sqlite3.h"
#include <stdio.h>

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

int main(void) {
  sqlite3 *db;
  char *err = 0;
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, "./libdemoext.so", "demo_more_init", &err) != SQLITE_OK) {
    printf("load: %s\n", err);
    return 1;
  }
  show(db, "SELECT ptr_read(ptr_make())");
  sqlite3_close(db);
  return 0;
}
