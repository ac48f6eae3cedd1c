/* Shared by tenants_poll.c and tenants_epoll.c: many tenants, each with its
 * own database file, served by ONE thread through ringlite's async API.
 *
 * Each tenant is a small state machine running a fixed list of jobs (a
 * scan, an UPDATE, an INSERT ... SELECT, then streaming every row back in
 * rowid order). A turn runs a tenant's job until it finishes or a step
 * answers SQLITE_IO, which ends the turn at once (the statement resumes at
 * the same place on its next step), so one tenant waiting for the disk
 * never holds up the others; a job that keeps producing rows from the
 * cache ends its turn after TURN_QUANTUM_NS so it does not hold them up
 * either. (The seed paper's scheduler gave every turn exactly 10 steps:
 * build with -DTURN_STEPS=10 for that; cached queries then wait through
 * everyone else's turns many times over.) How the thread waits when
 * every tenant is waiting is the only difference between the two programs.
 *
 * The totals each tenant must see are computed here independently of the
 * database, so a lost or repeated row, or a lost write, fails the run.
 */
#ifndef TENANTS_H
#define TENANTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sqlite3.h"

#define N_TENANTS 16
#ifndef TURN_STEPS
#define TURN_STEPS 0 /* 0: no step limit */
#endif
#define TURN_QUANTUM_NS 50000LL

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #c); exit(1); } } while (0)

/* Rows a tenant starts with, and each row's value: different per tenant. */
static inline long long tenant_rows(int t) { return 3000 + 100LL * t; }
static inline long long initial_v(int t, long long id) { return id % 97 + t; }

static const char *const JOBS[] = {
  "SELECT count(*), sum(v) FROM items",
  "UPDATE items SET v = v + 1 WHERE id % 3 = 0",
  "INSERT INTO items(v, pad) SELECT v, pad FROM items WHERE id <= 500",
  "SELECT id, v FROM items ORDER BY id",
};
#define N_JOBS 4

typedef struct {
  int t;
  sqlite3 *db;
  sqlite3_stmt *st;
  int job;            /* index into JOBS; N_JOBS when finished */
  long long count0, sum0;        /* job 0's row */
  long long streamed, sum, last_id; /* job 3, row by row */
  long long ios;      /* how often sqlite3_step answered SQLITE_IO */
} tenant;

/* Create tenant t's database with a blocking connection (odd tenants in WAL
 * mode, so both commit paths run) and return its path. */
static inline void create_tenant_db(const char *dir, int t, char *path, size_t n) {
  snprintf(path, n, "%s/tenant%02d.db", dir, t);
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) == SQLITE_OK);
  char sql[512];
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode=%s;"
           "CREATE TABLE items(id INTEGER PRIMARY KEY, v INTEGER, pad TEXT);"
           "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %lld) "
           "INSERT INTO items SELECT i, i %% 97 + %d, printf('%%.100c', 'x') FROM c;",
           t % 2 ? "WAL" : "DELETE", tenant_rows(t), t);
  CHECK(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);
}

/* Open tenant t asynchronously: its cache is cold, so its first reads make
 * sqlite3_step answer SQLITE_IO. */
static inline void open_tenant(tenant *tn, int t, const char *path) {
  memset(tn, 0, sizeof *tn);
  tn->t = t;
  CHECK(sqlite3_open_v2(path, &tn->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
}

static inline int tenant_done(const tenant *tn) { return tn->job == N_JOBS; }

static inline void on_row(tenant *tn) {
  if (tn->job == 0) {
    tn->count0 = sqlite3_column_int64(tn->st, 0);
    tn->sum0 = sqlite3_column_int64(tn->st, 1);
  } else if (tn->job == 3) {
    long long id = sqlite3_column_int64(tn->st, 0);
    CHECK(id == tn->last_id + 1); /* never a row repeated or skipped */
    tn->last_id = id;
    tn->streamed++;
    tn->sum += sqlite3_column_int64(tn->st, 1);
  }
}

static inline long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One turn: the current job until it finishes or waits for I/O, at most
 * TURN_QUANTUM_NS (or TURN_STEPS steps, when set). Returns 1 if the tenant
 * stopped because it waits for I/O. */
static inline int tenant_turn(tenant *tn) {
  long long began = now_ns();
  for (int i = 0; (TURN_STEPS == 0 || i < TURN_STEPS) && !tenant_done(tn); i++) {
    if (TURN_STEPS == 0 && i > 0 && i % 16 == 0 && now_ns() - began >= TURN_QUANTUM_NS) break;
    if (!tn->st) {
      /* prepare completes its own I/O (a schema read) before returning. */
      CHECK(sqlite3_prepare_v2(tn->db, JOBS[tn->job], -1, &tn->st, 0) == SQLITE_OK);
    }
    int rc = sqlite3_step(tn->st);
    if (rc == SQLITE_IO) {
      tn->ios++;
      return 1;
    }
    if (rc == SQLITE_ROW) {
      on_row(tn);
      continue;
    }
    if (rc != SQLITE_DONE) {
      fprintf(stderr, "tenant %d job %d: %s\n", tn->t, tn->job, sqlite3_errmsg(tn->db));
      exit(1);
    }
    CHECK(sqlite3_finalize(tn->st) == SQLITE_OK);
    tn->st = 0;
    tn->job++;
    break; /* the turn ends with its job */
  }
  return 0;
}

/* What tenant t must have seen, computed without the database. */
static inline void tenant_verify(const tenant *tn) {
  int t = tn->t;
  long long rows = tenant_rows(t), sum0 = 0, sum = 0;
  for (long long id = 1; id <= rows; id++) {
    sum0 += initial_v(t, id);
    long long v = initial_v(t, id) + (id % 3 == 0);
    sum += v;
    if (id <= 500) sum += v; /* copied by job 2 */
  }
  CHECK(tn->count0 == rows && tn->sum0 == sum0);
  CHECK(tn->streamed == rows + 500 && tn->last_id == rows + 500);
  CHECK(tn->sum == sum);
}

/* After the run: a fresh blocking connection sees every committed write,
 * and the file is sound. */
static inline void verify_durable(const char *path, const tenant *tn) {
  sqlite3 *db;
  sqlite3_stmt *st;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, 0) == SQLITE_OK);
  if (sqlite3_prepare_v2(db, "SELECT count(*), sum(v) FROM items", -1, &st, 0) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db)); exit(1); }
  CHECK(sqlite3_step(st) == SQLITE_ROW);
  CHECK(sqlite3_column_int64(st, 0) == tn->streamed);
  CHECK(sqlite3_column_int64(st, 1) == tn->sum);
  sqlite3_finalize(st);
  CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, 0) == SQLITE_OK);
  CHECK(sqlite3_step(st) == SQLITE_ROW);
  CHECK(strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0);
  sqlite3_finalize(st);
  CHECK(sqlite3_close(db) == SQLITE_OK);
}

/* Which backend async connections got ("io_uring", or "sync" where no ring
 * can be set up: then SQLITE_IO never happens). */
static inline int backend_is_uring(sqlite3 *db) {
  sqlite3_stmt *st;
  int uring = 0;
  CHECK(sqlite3_prepare_v2(db, "PRAGMA io_backend", -1, &st, 0) == SQLITE_OK);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_IO) sqlite3_io_poll(db, -1);
  if (rc == SQLITE_ROW) uring = strcmp((const char *)sqlite3_column_text(st, 0), "io_uring") == 0;
  sqlite3_finalize(st);
  return uring;
}

static inline void make_temp_dir(char *dir, size_t n, const char *name) {
  snprintf(dir, n, "/tmp/%s_XXXXXX", name);
  CHECK(mkdtemp(dir) != 0);
}

static inline void remove_temp_dir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

#endif
