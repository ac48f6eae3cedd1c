/* SQL text with bytes that are not UTF-8 in names, or in a definition
 * the schema stores: sqlite3_prepare_v2 never panics or writes to stderr
 * (a caught panic once printed its message there); it refuses them with
 * SQLITE_ERROR and a message saying so, where SQLite keeps the raw bytes.
 * Literals, which keep them as SQLite's do: t_engine_not_utf8.c. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

static int prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc == SQLITE_OK && st) rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR;
  sqlite3_finalize(st);
  return rc;
}

int main(void) {
  sqlite3 *db;
  int bad = 0;
  FILE *err = tmpfile();
  int saved = dup(2);
  if (!err || saved < 0 || dup2(fileno(err), 2) < 0) return 2;
  sqlite3_open(":memory:", &db);
  const char *refused[] = {"SELECT 1 AS \"\xe9\"", "CREATE TABLE t\xe9(c\xe9)", "SELECT \xe9\xe9 FROM t",
                           "CREATE VIEW v AS SELECT 'caf\xe9'"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    int rc = prepare(db, refused[i]);
    if (rc != SQLITE_ERROR || !strstr(sqlite3_errmsg(db), "not UTF-8")) {
      bad = 1;
      printf("%zu: rc=%d %s\n", i, rc, sqlite3_errmsg(db));
    }
  }
  if (prepare(db, "SELECT 1 -- caf\xe9") != SQLITE_OK || prepare(db, "SELECT /* \xe9 */ 2") != SQLITE_OK) {
    bad = 1;
    printf("comment: %s\n", sqlite3_errmsg(db));
  }
  sqlite3_close(db);
  fflush(stderr);
  long written = (long)lseek(fileno(err), 0, SEEK_END);
  dup2(saved, 2);
  if (written != 0) {
    printf("%ld bytes written to stderr\n", written);
    bad = 1;
  }
  return bad;
}
