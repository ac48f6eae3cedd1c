/* Run against ringlite only: calls with NULL handles that crash SQLite
** (it does not check them unless built with API armor) must not crash
** ringlite, and return SQLite's documented neutral values. */
#include <stdio.h>
#include "sqlite3.h"

#define EXPECT(cond) do { if (!(cond)) { printf("failed: %s\n", #cond); failures++; } } while (0)

int main(void) {
  int failures = 0;
  sqlite3_str *s;
  EXPECT(sqlite3_column_name(0, 0) == 0);
  EXPECT(sqlite3_changes(0) == 0);
  EXPECT(sqlite3_total_changes(0) == 0);
  EXPECT(sqlite3_value_type(0) == SQLITE_NULL);
  EXPECT(sqlite3_value_int(0) == 0);
  EXPECT(sqlite3_next_stmt(0, 0) == 0);
  EXPECT(sqlite3_open(":memory:", 0) == SQLITE_MISUSE);
  EXPECT(sqlite3_last_insert_rowid(0) == 0);
  EXPECT(sqlite3_get_autocommit(0) == 0 || sqlite3_get_autocommit(0) == 1);
  EXPECT(sqlite3_busy_timeout(0, 10) == SQLITE_MISUSE);
  EXPECT(sqlite3_create_function(0, "f", 1, SQLITE_UTF8, 0, 0, 0, 0) == SQLITE_MISUSE);
  EXPECT(sqlite3_str_errcode(0) == SQLITE_NOMEM);
  EXPECT(sqlite3_backup_init(0, "main", 0, "main") == 0);
  EXPECT(sqlite3_blob_open(0, "main", "t", "c", 1, 0, 0) != SQLITE_OK);
  EXPECT(sqlite3_io_fd(0) == -1);
  EXPECT(sqlite3_io_poll(0, 0) == SQLITE_MISUSE);
  EXPECT(sqlite3_vfs_find(0) == 0 || 1);
  s = sqlite3_str_new(0);
  EXPECT(s != 0);
  sqlite3_str_free(s);
  EXPECT(sqlite3_libversion_number() / 1000000 == 3);
  printf("robust: %s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
