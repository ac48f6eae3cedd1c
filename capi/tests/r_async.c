/* ringlite's async extension through the C ABI (ringlite only: SQLite has
 * no SQLITE_OPEN_ASYNC). A connection opened with the flag answers a cold
 * scan with SQLITE_IO (on io_uring), resumes after sqlite3_io_poll with no
 * row lost or repeated, agrees with a blocking connection, and commits
 * durably. Where no ring can be set up, the sync fallback must still give
 * the same answers (and then never return SQLITE_IO). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_async: %s failed at line %d\n", #c, __LINE__); exit(1); } } while (0)

static int step(sqlite3 *db, sqlite3_stmt *s, int *ios) {
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_IO) {
    (*ios)++;
    CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK);
  }
  return rc;
}

/* Sum of ids and count of rows seen by stepping a full scan. */
static void scan(sqlite3 *db, long long *count, long long *sum, int *ios) {
  sqlite3_stmt *s;
  CHECK(sqlite3_prepare_v2(db, "SELECT id, username FROM users", -1, &s, 0) == SQLITE_OK);
  int rc;
  *count = 0; *sum = 0;
  while ((rc = step(db, s, ios)) == SQLITE_ROW) {
    (*count)++;
    *sum += sqlite3_column_int64(s, 0);
  }
  CHECK(rc == SQLITE_DONE);
  sqlite3_finalize(s);
}

int main(void) {
  char path[] = "/tmp/r_async_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  unlink(path);
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT);"
                         "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<20000) "
                         "INSERT INTO users SELECT i, 'user' || i || printf('%.60c', 'x') FROM c;", 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_io_fd(db) == -1); /* blocking connections have no event fd */
  long long count0, sum0;
  int ios = 0;
  scan(db, &count0, &sum0, &ios);
  CHECK(ios == 0);
  CHECK(count0 == 20000 && sum0 == 20000LL * 20001 / 2);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
  sqlite3_stmt *s;
  CHECK(sqlite3_prepare_v2(db, "PRAGMA io_backend", -1, &s, 0) == SQLITE_OK);
  CHECK(step(db, s, &ios) == SQLITE_ROW);
  int uring = strcmp((const char *)sqlite3_column_text(s, 0), "io_uring") == 0;
  sqlite3_finalize(s);
  CHECK(uring ? sqlite3_io_fd(db) >= 0 : 1);
  CHECK(sqlite3_io_poll(db, 0) == SQLITE_OK); /* nothing in flight: returns at once */

  long long count1, sum1;
  ios = 0;
  scan(db, &count1, &sum1, &ios);
  CHECK(count1 == count0 && sum1 == sum0);
  if (uring) CHECK(ios > 0); /* a cold cache must suspend, not block */
  else CHECK(ios == 0);

  ios = 0;
  CHECK(sqlite3_prepare_v2(db, "INSERT INTO users(username) VALUES('async')", -1, &s, 0) == SQLITE_OK);
  CHECK(step(db, s, &ios) == SQLITE_DONE);
  sqlite3_finalize(s);
  CHECK(sqlite3_changes(db) == 1 && sqlite3_last_insert_rowid(db) == 20001);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  /* Durable: a fresh blocking connection sees the row. */
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, 0) == SQLITE_OK);
  CHECK(sqlite3_prepare_v2(db, "SELECT username FROM users WHERE id = 20001", -1, &s, 0) == SQLITE_OK);
  CHECK(sqlite3_step(s) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(s, 0), "async") == 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  unlink(path);
  printf("r_async: backend %s, ok\n", uring ? "io_uring" : "sync");
  return 0;
}
