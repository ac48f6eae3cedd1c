/* SQL run from a callback of a statement on an async connection
 * (ringlite only: SQLite has no SQLITE_OPEN_ASYNC). The outer statement
 * returns SQLITE_IO and resumes as usual; the statements a function runs
 * on the same connection complete their I/O blocking (they never return
 * SQLITE_IO to the function), and the answers equal a blocking run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_reentry_async: %s failed at line %d\n", #c, __LINE__); exit(1); } } while (0)

static int nested_io;

/* cnt(k): rows of users with id <= k, counted by a nested statement. */
static void cnt(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3 *h = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *s;
  CHECK(sqlite3_prepare_v2(h, "SELECT count(*), sum(length(username)) FROM users WHERE id <= ?", -1, &s, 0) == SQLITE_OK);
  sqlite3_bind_value(s, 1, argv[0]);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_IO) nested_io++;
  CHECK(rc == SQLITE_ROW);
  sqlite3_result_int64(ctx, sqlite3_column_int64(s, 0) + sqlite3_column_int64(s, 1));
  sqlite3_finalize(s);
}

static long long total(sqlite3 *db, int *ios) {
  sqlite3_stmt *s;
  CHECK(sqlite3_prepare_v2(db, "SELECT sum(cnt(id)) FROM users WHERE id % 997 = 0", -1, &s, 0) == SQLITE_OK);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_IO) {
    (*ios)++;
    CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK);
  }
  CHECK(rc == SQLITE_ROW);
  long long v = sqlite3_column_int64(s, 0);
  while ((rc = sqlite3_step(s)) == SQLITE_IO) CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK);
  CHECK(rc == SQLITE_DONE);
  sqlite3_finalize(s);
  return v;
}

int main(void) {
  char path[] = "/tmp/r_reentry_async_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  unlink(path);
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT);"
                         "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<20000) "
                         "INSERT INTO users SELECT i, 'user' || i || printf('%.60c', 'x') FROM c;", 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_create_function(db, "cnt", 1, SQLITE_UTF8, 0, cnt, 0, 0) == SQLITE_OK);
  int ios = 0;
  long long want = total(db, &ios);
  sqlite3_close(db);

  sqlite3 *adb;
  CHECK(sqlite3_open_v2(path, &adb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
  CHECK(sqlite3_create_function(adb, "cnt", 1, SQLITE_UTF8, 0, cnt, 0, 0) == SQLITE_OK);
  /* A cold cache: the outer scan and the nested ones read from disk. */
  CHECK(sqlite3_exec(adb, "PRAGMA cache_size = 10", 0, 0, 0) == SQLITE_OK);
  ios = 0;
  long long got = total(adb, &ios);
  CHECK(got == want);
  CHECK(nested_io == 0);
  printf("r_reentry_async: %lld (outer SQLITE_IO returns: %d)\n", got, ios);
  sqlite3_close(adb);
  unlink(path);
  return 0;
}
