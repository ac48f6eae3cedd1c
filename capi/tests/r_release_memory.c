/* sqlite3_release_memory frees the unused cache pages of every open
 * connection (as SQLite built with SQLITE_ENABLE_MEMORY_MANAGEMENT does;
 * the reference build of these tests has it off and frees nothing, so this
 * runs against ringlite alone). Three connections on three files fill
 * their caches; then: releasing 0 bytes frees nothing; releasing 1 byte
 * frees at least one page; releasing everything frees the rest, so the
 * two together are at least the pages the scans cached; a further call
 * frees nothing (the caches are empty). What a connection still needs stays: the uncommitted
 * change of an open write transaction, a statement half way through its
 * scan, and every answer afterwards is the one from before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_release_memory: %s failed at line %d\n", #c, __LINE__); exit(1); } } while (0)
#define N 3
#define ROWS 2000

static long long one_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, sql, -1, &st, 0) == SQLITE_OK);
  CHECK(sqlite3_step(st) == SQLITE_ROW);
  long long v = sqlite3_column_int64(st, 0);
  CHECK(sqlite3_finalize(st) == SQLITE_OK);
  return v;
}

int main(void) {
  char dir[] = "/tmp/r_release_memoryXXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  sqlite3 *db[N];
  char path[N][300];
  const char *sum = "SELECT sum(length(pad)) + sum(id) FROM t";
  long long expect = 0;
  for (int i = 0; i < N; i++) {
    snprintf(path[i], sizeof path[i], "%s/t%d.db", dir, i);
    CHECK(sqlite3_open(path[i], &db[i]) == SQLITE_OK);
    char sql[400];
    snprintf(sql, sizeof sql,
             "PRAGMA synchronous=OFF; CREATE TABLE t(id INTEGER PRIMARY KEY, pad TEXT);"
             "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d) "
             "INSERT INTO t SELECT i, printf('%%.200c', 'x') FROM c;", ROWS);
    CHECK(sqlite3_exec(db[i], sql, 0, 0, 0) == SQLITE_OK);
    expect = one_int(db[i], sum); /* same contents in every file */
  }
  /* Every page cached (the scans above and the inserts). */
  long long pages = one_int(db[0], "PRAGMA page_count");
  long long page_size = one_int(db[0], "PRAGMA page_size");
  CHECK(pages > 50);

  CHECK(sqlite3_release_memory(0) == 0);
  int first = sqlite3_release_memory(1);
  CHECK(first >= page_size);
  int rest = sqlite3_release_memory(-1);
  CHECK(rest > 0);
  /* The pages of all three caches (each held at least its file's pages). */
  CHECK((long long)first + rest >= N * (pages - 1) * page_size);
  CHECK(sqlite3_release_memory(-1) == 0);
  for (int i = 0; i < N; i++) CHECK(one_int(db[i], sum) == expect);

  /* An uncommitted change stays (dirty pages are not freed). */
  CHECK(sqlite3_exec(db[1], "BEGIN; UPDATE t SET pad = 'y' WHERE id = 7;", 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_release_memory(1 << 30) > 0);
  CHECK(one_int(db[1], "SELECT count(*) FROM t WHERE pad = 'y'") == 1);
  CHECK(sqlite3_exec(db[1], "COMMIT;", 0, 0, 0) == SQLITE_OK);
  CHECK(one_int(db[1], "SELECT count(*) FROM t WHERE pad = 'y'") == 1);
  CHECK(one_int(db[0], "SELECT count(*) FROM t WHERE pad = 'y'") == 0);

  /* A statement half way through its scan goes on with the right rows. */
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db[2], "SELECT id FROM t ORDER BY id", -1, &st, 0) == SQLITE_OK);
  long long next = 1;
  for (; next <= ROWS / 2; next++) {
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int64(st, 0) == next);
  }
  CHECK(sqlite3_release_memory(-1) > 0);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    CHECK(sqlite3_column_int64(st, 0) == next);
    next++;
  }
  CHECK(rc == SQLITE_DONE && next == ROWS + 1);
  CHECK(sqlite3_finalize(st) == SQLITE_OK);

  /* Closed connections are no longer reached; the others still are. */
  CHECK(sqlite3_close(db[0]) == SQLITE_OK);
  CHECK(one_int(db[1], sum) > 0);
  CHECK(sqlite3_release_memory(-1) > 0);
  for (int i = 1; i < N; i++) CHECK(sqlite3_close(db[i]) == SQLITE_OK);
  CHECK(sqlite3_release_memory(-1) == 0);
  for (int i = 0; i < N; i++) {
    unlink(path[i]);
  }
  rmdir(dir);
  printf("r_release_memory: ok (%d + %d bytes freed of %lld pages x 3)\n", first, rest, pages);
  return 0;
}
