/* A speedtest-like workload on a file database, run twice per process:
 * through the default VFS, then through a pass-through shim over it
 * (registered as the default: every xRead, xWrite, xLock ... is one more
 * C call into the wrapped object). The same program linked against SQLite
 * and ringlite shows what an application VFS costs each.
 * Usage: vfs_bench [ROWS]   (prints one line per step and mode, seconds) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs shim;
typedef struct { sqlite3_file base; sqlite3_file *real; } ShimFile;
#define REAL(f) (((ShimFile *)(f))->real)
static int s_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int s_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int s_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int s_fcntl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int s_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int s_shm_map(sqlite3_file *f, int r, int sz, int e, sqlite3_shm_ptr *pp) { return REAL(f)->pMethods->xShmMap(REAL(f), r, sz, e, pp); }
static int s_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void s_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int s_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
static int s_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) { (void)f; (void)o; (void)n; *pp = 0; return SQLITE_OK; }
static int s_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { (void)f; (void)o; (void)p; return SQLITE_OK; }
static const sqlite3_io_methods shim_methods = {
  3, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock, s_check, s_fcntl,
  s_sector, s_dev, s_shm_map, s_shm_lock, s_shm_barrier, s_shm_unmap, s_fetch, s_unfetch,
};
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = (ShimFile *)f;
  (void)v;
  sf->real = (sqlite3_file *)(sf + 1);
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void must(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static void run(const char *mode, const char *journal, int rows) {
  const char *path = "vfs_bench.db";
  char p2[64];
  remove(path);
  snprintf(p2, sizeof p2, "%s-wal", path); remove(p2);
  snprintf(p2, sizeof p2, "%s-journal", path); remove(p2);
  sqlite3 *db;
  must(sqlite3_open(path, &db), db, "open");
  char sql[200];
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s; PRAGMA synchronous=OFF; PRAGMA cache_size=-2000", journal);
  must(sqlite3_exec(db, sql, 0, 0, 0), db, "pragma");
  must(sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT); CREATE INDEX tb ON t(b)", 0, 0, 0), db, "create");
  sqlite3_stmt *st;
  double t0 = now();
  must(sqlite3_exec(db, "BEGIN", 0, 0, 0), db, "begin");
  sqlite3_prepare_v2(db, "INSERT INTO t(b, c) VALUES(?1, printf('row %d of the benchmark with some text', ?1))", -1, &st, 0);
  for (int i = 0; i < rows; i++) {
    sqlite3_bind_int(st, 1, (int)((i * 2654435761u) % 1000003u));
    must(sqlite3_step(st), db, "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  must(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
  double t1 = now();
  sqlite3_prepare_v2(db, "INSERT INTO t(b, c) VALUES(?1, 'autocommit')", -1, &st, 0);
  for (int i = 0; i < 500; i++) {
    sqlite3_bind_int(st, 1, i);
    must(sqlite3_step(st), db, "autocommit insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  double t2 = now();
  /* Cold reads: a fresh connection, whose cache is empty. */
  sqlite3_close(db);
  must(sqlite3_open(path, &db), db, "reopen");
  sqlite3_exec(db, "PRAGMA cache_size=-2000", 0, 0, 0);
  long long sum = 0;
  sqlite3_prepare_v2(db, "SELECT c FROM t WHERE b BETWEEN ?1 AND ?1 + 100", -1, &st, 0);
  for (int i = 0; i < 5000; i++) {
    sqlite3_bind_int(st, 1, (int)((i * 7919u) % 1000003u));
    while (sqlite3_step(st) == SQLITE_ROW) sum += sqlite3_column_bytes(st, 0);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_prepare_v2(db, "SELECT count(*), sum(length(c)) FROM t", -1, &st, 0);
  for (int i = 0; i < 5; i++) {
    sqlite3_step(st);
    sum += sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  double t3 = now();
  must(sqlite3_exec(db, "UPDATE t SET c = c || '!' WHERE a % 7 = 0; DELETE FROM t WHERE a % 11 = 0", 0, 0, 0), db, "update");
  double t4 = now();
  sqlite3_close(db);
  printf("%-8s %-6s insert %.3f  autocommit %.3f  reads %.3f  update %.3f  total %.3f  (check %lld)\n", mode, journal, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
         t4 - t0, sum);
  remove(path);
  snprintf(p2, sizeof p2, "%s-wal", path); remove(p2);
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 100000;
  const char *journals[] = {"delete", "wal"};
  for (int j = 0; j < 2; j++) run("default", journals[j], rows);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "passthru";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  sqlite3_vfs_register(&shim, 1);
  for (int j = 0; j < 2; j++) run("shim", journals[j], rows);
  return 0;
}
