/* SQLITE_FCNTL_BUSYHANDLER: the (function, argument) pair a connection
 * hands each database file as it opens, which a VFS that waits for locks
 * itself may call to run the connection's busy handler. A shim over the
 * default VFS keeps the pair and, when a lock is refused, calls it until
 * it answers 0 (give up), then reports SQLITE_BUSY; the application's
 * busy handler logs the counts it is called with, from the shim and from
 * the library's own retries. Then with sqlite3_busy_timeout and no
 * handler (the shim counts the pair's calls and whether it slept through
 * xSleep; nothing timed is printed), and with neither (the pair answers
 * 0 at once). Which files get the notice, and once each, is logged too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs shim;
typedef struct ShimFile {
  sqlite3_file base;
  sqlite3_file *real;
  const char *kind;
  int (*busy)(void *);
  void *busy_arg;
} ShimFile;
#define SF(f) ((ShimFile *)(f))
#define REAL(f) (SF(f)->real)

static int in_shim; /* the busy handler runs from inside the shim's xLock */
static int pair_calls, pair_retries, sleeps;

static int s_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int s_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
/* A refused lock: run the connection's busy handler through the pair
 * while it asks for another try, then give up as the real VFS did. */
static int s_lock(sqlite3_file *f, int l) {
  int rc = REAL(f)->pMethods->xLock(REAL(f), l);
  if (rc == SQLITE_BUSY && SF(f)->busy) {
    printf("    %s lock %d refused: the VFS calls the busy handler\n", SF(f)->kind, l);
    in_shim = 1;
    for (;;) {
      pair_calls++;
      if (!SF(f)->busy(SF(f)->busy_arg)) break;
      pair_retries++;
      rc = REAL(f)->pMethods->xLock(REAL(f), l);
      if (rc != SQLITE_BUSY) break;
    }
    in_shim = 0;
  }
  return rc;
}
static int s_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int s_fcntl(sqlite3_file *f, int op, void *a) {
  if (op == SQLITE_FCNTL_BUSYHANDLER) {
    void **pair = (void **)a;
    printf("    %s fcntl BUSYHANDLER%s\n", SF(f)->kind, SF(f)->busy ? " (again)" : "");
    SF(f)->busy = (int (*)(void *))pair[0];
    SF(f)->busy_arg = pair[1];
  }
  return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int s_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int s_shm_map(sqlite3_file *f, int r, int sz, int e, void volatile **pp) { return REAL(f)->pMethods->xShmMap(REAL(f), r, sz, e, pp); }
static int s_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void s_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int s_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
static const sqlite3_io_methods shim_methods = {
  2, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock, s_check, s_fcntl,
  s_sector, s_dev, s_shm_map, s_shm_lock, s_shm_barrier, s_shm_unmap, 0, 0,
};
static const char *kind_of(int fl) {
  if (fl & SQLITE_OPEN_MAIN_DB) return "db";
  if (fl & SQLITE_OPEN_MAIN_JOURNAL) return "journal";
  if (fl & SQLITE_OPEN_WAL) return "wal";
  if (fl & SQLITE_OPEN_TEMP_DB) return "temp-db";
  if (fl & SQLITE_OPEN_SUBJOURNAL) return "subjournal";
  return "other";
}
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = SF(f);
  (void)v;
  memset(sf, 0, sizeof *sf);
  sf->real = (sqlite3_file *)(sf + 1);
  sf->kind = kind_of(flags);
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}
static int s_sleep(sqlite3_vfs *v, int us) {
  (void)v;
  sleeps++;
  return orig->xSleep(orig, us);
}

static int handler(void *arg, int n) {
  printf("    busy handler %d (%s)\n", n, in_shim ? "from the VFS" : "from the library");
  return n < *(int *)arg;
}

static void run(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  printf("  %s -> %d%s%s\n", sql, rc, err ? " " : "", err ? err : "");
  sqlite3_free(err);
}

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "busyshim";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.xSleep = s_sleep;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 0);
  remove("b.db"); remove("b.db-journal"); remove("b2.db"); remove("b2.db-journal");

  sqlite3 *holder, *db;
  sqlite3_open("b.db", &holder);
  run(holder, "CREATE TABLE t(a); INSERT INTO t VALUES(1)");
  printf("open through the shim:\n");
  sqlite3_open_v2("b.db", &db, SQLITE_OPEN_READWRITE, "busyshim");
  int limit = 2;
  sqlite3_busy_handler(db, handler, &limit);

  printf("a reader while another connection writes (EXCLUSIVE):\n");
  run(holder, "BEGIN EXCLUSIVE");
  run(db, "SELECT count(*) FROM t");
  printf("  pair called %d times, %d retries\n", pair_calls, pair_retries);
  run(holder, "COMMIT");
  run(db, "SELECT count(*) FROM t");

  printf("a writer while another connection reads (RESERVED):\n");
  pair_calls = pair_retries = 0;
  limit = 1;
  run(holder, "BEGIN; SELECT * FROM t; INSERT INTO t VALUES(2)");
  run(db, "INSERT INTO t VALUES(3)");
  printf("  pair called %d times, %d retries\n", pair_calls, pair_retries);
  run(holder, "COMMIT");

  printf("an attached database through the shim:\n");
  sqlite3 *holder2;
  sqlite3_open("b2.db", &holder2);
  run(holder2, "CREATE TABLE u(b)");
  run(db, "ATTACH 'b2.db' AS aux");
  pair_calls = pair_retries = 0;
  limit = 0;
  run(holder2, "BEGIN EXCLUSIVE");
  run(db, "SELECT count(*) FROM aux.u");
  printf("  pair called %d times, %d retries\n", pair_calls, pair_retries);
  run(holder2, "COMMIT");

  printf("busy_timeout, no handler:\n");
  sqlite3_busy_timeout(db, 30);
  pair_calls = pair_retries = sleeps = 0;
  run(holder, "BEGIN EXCLUSIVE");
  run(db, "SELECT count(*) FROM t");
  printf("  pair called: %s, retried: %s, slept through xSleep: %s\n", pair_calls ? "yes" : "no", pair_retries ? "yes" : "no",
         sleeps ? "yes" : "no");
  run(holder, "COMMIT");

  printf("neither:\n");
  sqlite3_busy_timeout(db, 0);
  pair_calls = pair_retries = 0;
  run(holder, "BEGIN EXCLUSIVE");
  run(db, "SELECT count(*) FROM t");
  printf("  pair called %d times, %d retries\n", pair_calls, pair_retries);
  run(holder, "COMMIT");
  run(db, "SELECT count(*) FROM t");

  sqlite3_close(db);
  sqlite3_close(holder);
  sqlite3_close(holder2);
  remove("b.db"); remove("b2.db");
  return 0;
}
