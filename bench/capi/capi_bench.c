/* Workloads through the C API, run unchanged against ringlite's
 * libsqlite3.so.0 and SQLite's (bench/capi/run.sh picks the library with
 * LD_LIBRARY_PATH). Prints one line per workload: name, CPU microseconds
 * per operation. What a C or Python program pays per call (the handle
 * locks, bind/step/column/reset) is measured here; the Rust benchmarks in
 * bench/src drive the engine crate directly. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void must(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static sqlite3 *fresh(const char *path) {
  sqlite3 *db;
  char j[300];
  remove(path);
  snprintf(j, sizeof j, "%s-journal", path);
  remove(j);
  must(sqlite3_open(path, &db), db, "open");
  return db;
}

static void report(const char *name, double t0, long ops) {
  printf("%s\t%.3f\n", name, (cpu_us() - t0) / ops);
}

static unsigned rnd_state = 1;
static unsigned rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return rnd_state >> 8;
}

int main(void) {
  sqlite3 *db = fresh("capi_bench.db");
  sqlite3_stmt *st;
  char buf[100];
  long sum = 0;
  must(sqlite3_exec(db,
                    "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT);"
                    "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<10000)"
                    " INSERT INTO users SELECT i, 'user' || i FROM n; COMMIT;",
                    0, 0, 0),
       db, "setup");

  /* The tenants query, its statement reused: step, column_int64, column_text. */
  double t0 = cpu_us();
  must(sqlite3_prepare_v2(db, "SELECT * FROM users LIMIT 100", -1, &st, 0), db, "prepare");
  for (int k = 0; k < 5000; k++) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      sum += sqlite3_column_int64(st, 0);
      sum += sqlite3_column_text(st, 1)[0];
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  report("SELECT * FROM users LIMIT 100, statement reused (per query)", t0, 5000);

  t0 = cpu_us();
  for (int k = 0; k < 5000; k++) {
    must(sqlite3_prepare_v2(db, "SELECT * FROM users LIMIT 100", -1, &st, 0), db, "prepare");
    while (sqlite3_step(st) == SQLITE_ROW) {
      sum += sqlite3_column_int64(st, 0);
      sum += sqlite3_column_text(st, 1)[0];
    }
    sqlite3_finalize(st);
  }
  report("the same, prepared and finalized each time (per query)", t0, 5000);

  t0 = cpu_us();
  must(sqlite3_prepare_v2(db, "SELECT username FROM users WHERE id=?1", -1, &st, 0), db, "prepare");
  for (int k = 0; k < 100000; k++) {
    sqlite3_bind_int64(st, 1, rnd() % 10000 + 1);
    if (sqlite3_step(st) == SQLITE_ROW) sum += sqlite3_column_bytes(st, 0);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  report("point lookup by rowid, bind/step/column/reset (per lookup)", t0, 100000);

  t0 = cpu_us();
  must(sqlite3_exec(db, "BEGIN; CREATE TABLE t(a INTEGER, b INTEGER, c TEXT);", 0, 0, 0), db, "create");
  must(sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1,?2,?3)", -1, &st, 0), db, "prepare");
  for (int i = 1; i <= 100000; i++) {
    unsigned x = rnd() % 500000;
    int len = snprintf(buf, sizeof buf, "%u thousand %u hundred and %u", x / 1000, (x / 100) % 10, x % 100);
    sqlite3_bind_int64(st, 1, x);
    sqlite3_bind_int(st, 2, i);
    sqlite3_bind_text(st, 3, buf, len, SQLITE_STATIC);
    must(sqlite3_step(st), db, "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  must(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
  report("INSERT of 100000 rows in one transaction (per row)", t0, 100000);

  t0 = cpu_us();
  must(sqlite3_exec(db, "BEGIN; CREATE TABLE r(a INTEGER PRIMARY KEY, b TEXT);", 0, 0, 0), db, "create");
  must(sqlite3_prepare_v2(db, "REPLACE INTO r VALUES(?1,?2)", -1, &st, 0), db, "prepare");
  for (int i = 1; i <= 70000; i++) {
    unsigned k = rnd() % 35000;
    int len = snprintf(buf, sizeof buf, "%u thousand %u", k / 1000, k % 1000);
    sqlite3_bind_int64(st, 1, k);
    sqlite3_bind_text(st, 2, buf, len, SQLITE_STATIC);
    must(sqlite3_step(st), db, "replace");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  must(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
  report("REPLACE of 70000 rows on an INTEGER PRIMARY KEY (per row)", t0, 70000);

  t0 = cpu_us();
  must(sqlite3_prepare_v2(db, "SELECT count(*) FROM users", -1, &st, 0), db, "prepare");
  for (int k = 0; k < 2000; k++) {
    if (sqlite3_step(st) == SQLITE_ROW) sum += sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  report("SELECT count(*) of 10000 rows, cached (per query)", t0, 2000);

  t0 = cpu_us();
  must(sqlite3_prepare_v2(db, "SELECT DISTINCT a FROM t", -1, &st, 0), db, "prepare");
  for (int k = 0; k < 5; k++) {
    while (sqlite3_step(st) == SQLITE_ROW) sum += sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  report("SELECT DISTINCT over 100000 unsorted rows (per query)", t0, 5);

  sqlite3_close(db);
  remove("capi_bench.db");
  fprintf(stderr, "checksum %ld\n", sum);
  return 0;
}
