/* ringlite's step quantum (ringlite only: SQLite has no async mode).
 * With PRAGMA step_quantum=N an async connection's sqlite3_step returns
 * SQLITE_IO once it has run N microseconds, at the program's next jump, and
 * continues exactly there when stepped again. Here one noisy tenant runs a
 * large UPDATE (firing a trigger per row) and then an aggregate over its
 * whole table, while 8 quiet tenants each run 20 point lookups, all on one
 * thread, scheduled the way the header describes: step what
 * sqlite3_io_ready names, sqlite3_io_poll(db, -1) in between (which must
 * not sleep while a cut statement waits). The quiet tenants must all finish
 * before the noisy one, every answer must be exact (the UPDATE counted and
 * logged once per row however often it was cut), and the pragma must
 * answer 0 on a blocking connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_quantum: %s failed at line %d\n", #c, __LINE__); exit(1); } } while (0)

#define QUIET 8
#define LOOKUPS 20
#define NOISY_ROWS 40000
#define QUIET_ROWS 500

typedef struct {
  sqlite3 *db;
  sqlite3_stmt *st;
  int phase;      /* noisy: 0 update, 1 aggregate, 2 done; quiet: lookups done */
  int done, ios;
  long long a, b; /* the aggregate's row */
} tenant;

static tenant noisy, quiet[QUIET];

static void make_db(const char *path, int rows) {
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) == SQLITE_OK);
  char sql[600];
  snprintf(sql, sizeof sql,
           "PRAGMA synchronous=OFF; CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, pad TEXT);"
           "CREATE TABLE log(id INTEGER);"
           "CREATE TRIGGER tu AFTER UPDATE ON t BEGIN INSERT INTO log VALUES(new.id); END;"
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d) "
           "INSERT INTO t SELECT i, i, printf('%%.100c', 'x') FROM c;", rows);
  CHECK(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);
}

static long long one_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, sql, -1, &st, 0) == SQLITE_OK);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_IO) CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK);
  CHECK(rc == SQLITE_ROW);
  long long v = sqlite3_column_int64(st, 0);
  CHECK(sqlite3_finalize(st) == SQLITE_OK);
  return v;
}

/* The noisy tenant's turn: until it waits (cut or I/O) or is done. */
static void run_noisy(void) {
  for (;;) {
    int rc = sqlite3_step(noisy.st);
    if (rc == SQLITE_IO) { noisy.ios++; return; }
    if (noisy.phase == 0) {
      CHECK(rc == SQLITE_DONE);
      CHECK(sqlite3_changes(noisy.db) == NOISY_ROWS); /* counted once per row */
      CHECK(sqlite3_finalize(noisy.st) == SQLITE_OK);
      CHECK(sqlite3_prepare_v2(noisy.db, "SELECT (SELECT count(*) FROM log), sum(n) FROM t", -1, &noisy.st, 0) == SQLITE_OK);
      noisy.phase = 1;
      continue;
    }
    if (rc == SQLITE_ROW) { noisy.a = sqlite3_column_int64(noisy.st, 0); noisy.b = sqlite3_column_int64(noisy.st, 1); continue; }
    CHECK(rc == SQLITE_DONE);
    CHECK(sqlite3_finalize(noisy.st) == SQLITE_OK);
    noisy.phase = 2;
    noisy.done = 1;
    return;
  }
}

/* A quiet tenant's turn: lookups until one waits for I/O or all are done. */
static void run_quiet(tenant *t) {
  while (t->phase < LOOKUPS) {
    int rc = sqlite3_step(t->st);
    if (rc == SQLITE_IO) { t->ios++; return; }
    if (rc == SQLITE_ROW) { t->a += sqlite3_column_int64(t->st, 0); continue; }
    CHECK(rc == SQLITE_DONE);
    CHECK(sqlite3_reset(t->st) == SQLITE_OK);
    t->phase++;
    CHECK(sqlite3_bind_int(t->st, 1, 1 + (t->phase * 37) % QUIET_ROWS) == SQLITE_OK);
  }
  t->done = 1;
}

static void run_tenant(sqlite3 *db, int *quiet_before_noisy) {
  if (db == noisy.db) {
    if (!noisy.done) {
      run_noisy();
      if (noisy.done) {
        for (int i = 0; i < QUIET; i++) *quiet_before_noisy += quiet[i].done;
      }
    }
    return;
  }
  for (int i = 0; i < QUIET; i++)
    if (quiet[i].db == db) {
      if (!quiet[i].done) run_quiet(&quiet[i]);
      return;
    }
  CHECK(0); /* never a stranger */
}

int main(void) {
  char dir[] = "/tmp/r_quantum_XXXXXX";
  CHECK(mkdtemp(dir) != 0);
  char path[300];
  snprintf(path, sizeof path, "%s/noisy.db", dir);
  make_db(path, NOISY_ROWS);
  CHECK(sqlite3_open_v2(path, &noisy.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);

  /* A blocking connection has no quantum: its steps never hand back. */
  sqlite3 *blocking;
  CHECK(sqlite3_open_v2(path, &blocking, SQLITE_OPEN_READWRITE, 0) == SQLITE_OK);
  CHECK(one_int(blocking, "PRAGMA step_quantum=50") == 0);
  CHECK(sqlite3_close(blocking) == SQLITE_OK);
  CHECK(one_int(noisy.db, "PRAGMA step_quantum") == 0);
  CHECK(one_int(noisy.db, "PRAGMA step_quantum=50") == 50);

  for (int i = 0; i < QUIET; i++) {
    snprintf(path, sizeof path, "%s/quiet%d.db", dir, i);
    make_db(path, QUIET_ROWS);
    CHECK(sqlite3_open_v2(path, &quiet[i].db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
    CHECK(one_int(quiet[i].db, "PRAGMA step_quantum=50") == 50);
    CHECK(sqlite3_prepare_v2(quiet[i].db, "SELECT n FROM t WHERE id = ?1", -1, &quiet[i].st, 0) == SQLITE_OK);
    CHECK(sqlite3_bind_int(quiet[i].st, 1, 1) == SQLITE_OK);
  }
  sqlite3 *out[16];
  while (sqlite3_io_ready(noisy.db, out, 16) > 0) {
  }

  CHECK(sqlite3_prepare_v2(noisy.db, "UPDATE t SET n = n * 2", -1, &noisy.st, 0) == SQLITE_OK);
  int quiet_before_noisy = 0;
  run_tenant(noisy.db, &quiet_before_noisy);
  CHECK(!noisy.done);
  for (int i = 0; i < QUIET; i++) run_tenant(quiet[i].db, &quiet_before_noisy);
  int polls = 0;
  for (;;) {
    int left = !noisy.done;
    for (int i = 0; i < QUIET; i++) left += !quiet[i].done;
    if (!left) break;
    CHECK(sqlite3_io_poll(noisy.db, -1) == SQLITE_OK); /* never sleeps on a cut tenant */
    CHECK(++polls < 1000000);
    int n;
    while ((n = sqlite3_io_ready(noisy.db, out, 16)) > 0)
      for (int k = 0; k < n; k++) run_tenant(out[k], &quiet_before_noisy);
  }

  CHECK(noisy.a == NOISY_ROWS);                                   /* one log row per updated row */
  CHECK(noisy.b == (long long)NOISY_ROWS * (NOISY_ROWS + 1));     /* sum(2i) */
  CHECK(noisy.ios >= 10);                                          /* cut, again and again */
  CHECK(quiet_before_noisy == QUIET);                              /* the others were served meanwhile */
  for (int i = 0; i < QUIET; i++) {
    long long want = 0;
    for (int p = 0; p < LOOKUPS; p++) want += 1 + (p * 37) % QUIET_ROWS;
    CHECK(quiet[i].a == want);
    CHECK(sqlite3_finalize(quiet[i].st) == SQLITE_OK);
    CHECK(sqlite3_close(quiet[i].db) == SQLITE_OK);
  }
  CHECK(one_int(noisy.db, "SELECT count(*) FROM log") == NOISY_ROWS);
  CHECK(sqlite3_close(noisy.db) == SQLITE_OK);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  printf("r_quantum: noisy tenant cut %d times, %d quiet tenants done before it, %d polls: OK\n", noisy.ios, QUIET, polls);
  return 0;
}
