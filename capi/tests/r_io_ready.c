/* ringlite's readiness API (ringlite only: SQLite has no async mode).
 * sqlite3_io_ready reports the async connections of this thread whose I/O
 * finished, so a runtime steps only those: here 40 busy tenants run a scan
 * each while 60 idle tenants sit open, and the loop steps a tenant only
 * when sqlite3_io_ready names it. Every busy tenant must finish with the
 * right answer, no idle or closed connection may ever be named, and a
 * connection is named once per batch of completions.
 * Storage is the simulated slow backend (RINGLITE_IO_DELAY), so statements
 * answer SQLITE_IO whether or not io_uring is available here; that backend
 * must also give sqlite3_io_fd a descriptor that wakes an event loop. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_io_ready: %s failed at line %d\n", #c, __LINE__); exit(1); } } while (0)

#define BUSY 40
#define IDLE 60
#define ROWS 400

typedef struct {
  sqlite3 *db;
  sqlite3_stmt *st;
  long long count, sum;
  int done, ios, wakeups;
} tenant;

static tenant busy[BUSY];
static sqlite3 *idle[IDLE];

static tenant *find(sqlite3 *db) {
  for (int i = 0; i < BUSY; i++)
    if (busy[i].db == db) return &busy[i];
  return 0;
}

/* Step until the statement suspends or ends; 1 when it suspended. */
static int run(tenant *t) {
  for (;;) {
    int rc = sqlite3_step(t->st);
    if (rc == SQLITE_IO) { t->ios++; return 1; }
    if (rc == SQLITE_ROW) { t->count = sqlite3_column_int64(t->st, 0); t->sum = sqlite3_column_int64(t->st, 1); continue; }
    CHECK(rc == SQLITE_DONE);
    t->done = 1;
    return 0;
  }
}

static void make_db(const char *path, int t) {
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) == SQLITE_OK);
  char sql[400];
  snprintf(sql, sizeof sql,
           "PRAGMA synchronous=OFF; CREATE TABLE t(id INTEGER PRIMARY KEY, pad TEXT);"
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d) "
           "INSERT INTO t SELECT i + %d, printf('%%.200c', 'x') FROM c;", ROWS, t);
  CHECK(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);
}

int main(void) {
  /* Every read takes 300 µs: before any connection is opened. */
  CHECK(setenv("RINGLITE_IO_DELAY", "300,0", 1) == 0);
  char dir[] = "/tmp/r_io_ready_XXXXXX";
  CHECK(mkdtemp(dir) != 0);
  char path[300];
  for (int i = 0; i < BUSY + IDLE; i++) {
    snprintf(path, sizeof path, "%s/t%03d.db", dir, i);
    make_db(path, i);
  }

  /* Bad arguments; a blocking connection is never ready. */
  sqlite3 *blocking, *out[8];
  snprintf(path, sizeof path, "%s/t000.db", dir);
  CHECK(sqlite3_open_v2(path, &blocking, SQLITE_OPEN_READWRITE, 0) == SQLITE_OK);
  CHECK(sqlite3_io_ready(0, out, 8) == -1);
  CHECK(sqlite3_io_ready(blocking, out, -1) == -1);
  CHECK(sqlite3_io_ready(blocking, 0, 8) == -1);
  CHECK(sqlite3_io_ready(blocking, out, 8) == 0);

  for (int i = 0; i < BUSY + IDLE; i++) {
    snprintf(path, sizeof path, "%s/t%03d.db", dir, i);
    sqlite3 **slot = i < BUSY ? &busy[i].db : &idle[i - BUSY];
    CHECK(sqlite3_open_v2(path, slot, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
  }
  CHECK(sqlite3_io_ready(busy[0].db, out, 0) == 0);

  /* A connection closed while its read is in flight is never named. */
  sqlite3 *gone;
  snprintf(path, sizeof path, "%s/t000.db", dir);
  CHECK(sqlite3_open_v2(path, &gone, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
  sqlite3_stmt *gs;
  CHECK(sqlite3_prepare_v2(gone, "SELECT count(*) FROM t", -1, &gs, 0) == SQLITE_OK);
  CHECK(sqlite3_step(gs) == SQLITE_IO);
  CHECK(sqlite3_finalize(gs) == SQLITE_OK);
  CHECK(sqlite3_close(gone) == SQLITE_OK);

  /* The descriptor of the delayed backend wakes a sleeper. */
  int fd = sqlite3_io_fd(busy[0].db);
  CHECK(fd >= 0);
  CHECK(sqlite3_io_fd(idle[0]) == fd); /* one per thread */

  for (int i = 0; i < BUSY; i++) {
    CHECK(sqlite3_prepare_v2(busy[i].db, "SELECT count(*), sum(id) FROM t", -1, &busy[i].st, 0) == SQLITE_OK);
    CHECK(run(&busy[i]) == 1); /* cold: every scan waits for a read */
  }
  int left = BUSY, polls = 0, reported = 0, sleeps = 0;
  while (left > 0) {
    CHECK(sqlite3_io_poll(busy[0].db, 0) == SQLITE_OK); /* submit */
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) == 1) sleeps++;
    CHECK(sqlite3_io_poll(busy[0].db, 0) == SQLITE_OK); /* reap */
    polls++;
    CHECK(polls < 100000);
    int n;
    while ((n = sqlite3_io_ready(idle[5], out, 8)) > 0) {
      reported += n;
      for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) CHECK(j == k || out[j] != out[k]); /* once per batch */
        CHECK(out[k] != gone);
        tenant *t = find(out[k]);
        CHECK(t != 0); /* never an idle tenant, never a stranger */
        if (t->done) continue; /* a spurious wakeup is allowed */
        t->wakeups++;
        if (!run(t)) left--;
      }
    }
  }
  for (int i = 0; i < BUSY; i++) {
    CHECK(busy[i].done);
    CHECK(busy[i].count == ROWS);
    CHECK(busy[i].sum == (long long)ROWS * (ROWS + 1) / 2 + (long long)ROWS * i);
    CHECK(busy[i].wakeups >= 1 && busy[i].wakeups <= busy[i].ios);
    CHECK(sqlite3_finalize(busy[i].st) == SQLITE_OK);
  }
  CHECK(sleeps > 0);
  CHECK(sqlite3_io_ready(busy[0].db, out, 8) == 0);
  for (int i = 0; i < BUSY; i++) CHECK(sqlite3_close(busy[i].db) == SQLITE_OK);
  for (int i = 0; i < IDLE; i++) CHECK(sqlite3_close(idle[i]) == SQLITE_OK);
  CHECK(sqlite3_close(blocking) == SQLITE_OK);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  printf("r_io_ready: %d tenants done after %d polls, %d reports: OK\n", BUSY, polls, reported);
  return 0;
}
