/* Temporary databases through an application VFS: a logging shim over the
 * default VFS (registered as the default) shows when a connection opens
 * the file of a temporary database (the TEMP schema, a database opened or
 * attached with the name "", the TEMP schema of a ":memory:" connection).
 * As in SQLite 3.54.1, such a database lives in its page cache until it
 * outgrows it; then xOpen is called with SQLITE_OPEN_TEMP_DB, no name and
 * delete-on-close, its commits send SQLITE_FCNTL_SYNC (when a quarter of
 * the cache is dirty) and SQLITE_FCNTL_COMMIT_PHASETWO, it is never locked
 * nor synced, and the connection's close closes it after the main
 * database. A small temporary database never reaches the VFS, nor does
 * any under PRAGMA temp_store=MEMORY.
 * Not compared: the SIZE_HINT notices' number and sizes and the reads and
 * writes (they follow each library's own cache spills); the shim prints
 * whether the file was written and read, and whether size hints came.
 * The temporary database's rollback journal (SQLITE_OPEN_TEMP_JOURNAL),
 * its statement journals and the sorter's files are t_vfs_temp_files.c's. */
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
  int temp, shown, reads, writes, syncs, size_hints;
} ShimFile;
#define SF(f) ((ShimFile *)(f))
#define REAL(f) (SF(f)->real)

static int s_close(sqlite3_file *f) {
  ShimFile *s = SF(f);
  if (s->temp)
    printf("    %s close (written: %s, read: %s, synced: %s, size hints: %s)\n", s->kind, s->writes ? "yes" : "no",
           s->reads ? "yes" : "no", s->syncs ? "yes" : "no", s->size_hints ? "yes" : "no");
  else if (s->shown)
    printf("    %s close\n", s->kind);
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { SF(f)->reads++; return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { SF(f)->writes++; return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) {
  if (SF(f)->temp) printf("    %s truncate %lld\n", SF(f)->kind, s);
  return REAL(f)->pMethods->xTruncate(REAL(f), s);
}
static int s_sync(sqlite3_file *f, int fl) { SF(f)->syncs++; return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) {
  if (SF(f)->temp) printf("    %s lock %d\n", SF(f)->kind, l);
  return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int s_unlock(sqlite3_file *f, int l) {
  if (SF(f)->temp) printf("    %s unlock %d\n", SF(f)->kind, l);
  return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static const char *opname(int op) {
  static char b[32];
  switch (op) {
  case SQLITE_FCNTL_SIZE_HINT: return "SIZE_HINT";
  case SQLITE_FCNTL_SYNC: return "SYNC";
  case SQLITE_FCNTL_COMMIT_PHASETWO: return "COMMIT_PHASETWO";
  case SQLITE_FCNTL_PRAGMA: return "PRAGMA";
  case SQLITE_FCNTL_MMAP_SIZE: return "MMAP_SIZE";
  case SQLITE_FCNTL_PDB: return "PDB";
  case SQLITE_FCNTL_HAS_MOVED: return "HAS_MOVED";
  case SQLITE_FCNTL_BUSYHANDLER: return "BUSYHANDLER";
  }
  snprintf(b, sizeof b, "op%d", op);
  return b;
}
static int s_fcntl(sqlite3_file *f, int op, void *a) {
  if (op == SQLITE_FCNTL_SIZE_HINT && SF(f)->temp) {
    SF(f)->size_hints++;
  } else if (SF(f)->temp) {
    printf("    %s fcntl %s", SF(f)->kind, opname(op));
    if (op == SQLITE_FCNTL_PRAGMA) printf(" %s=%s", ((char **)a)[1], ((char **)a)[2] ? ((char **)a)[2] : "NULL");
    if (op == SQLITE_FCNTL_SYNC) printf(" %s", a ? "super-journal" : "NULL");
    printf("\n");
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
  if (fl & SQLITE_OPEN_TEMP_JOURNAL) return "temp-journal";
  if (fl & SQLITE_OPEN_SUBJOURNAL) return "subjournal";
  if (fl & SQLITE_OPEN_TRANSIENT_DB) return "transient-db";
  if (fl & SQLITE_OPEN_SUPER_JOURNAL) return "super-journal";
  return "other";
}
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = (ShimFile *)f;
  (void)v;
  memset(sf, 0, sizeof *sf);
  sf->real = (sqlite3_file *)(sf + 1);
  sf->kind = kind_of(flags);
  sf->temp = (flags & SQLITE_OPEN_TEMP_DB) != 0;
  /* (Only temporary databases are of interest; the others are opened
   * silently, their notices are t_vfs_notices.c's.) */
  sf->shown = sf->temp || (flags & SQLITE_OPEN_MAIN_DB);
  if (sf->shown)
    printf("    open %s flags=%#x name=%s\n", sf->kind, flags, name ? "given" : "NULL");
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}

static void run(sqlite3 *db, const char *sql) {
  printf("  %s\n", sql);
  const char *tail = sql;
  while (*tail) {
    sqlite3_stmt *st = 0;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) {
      printf("    prepare rc=%d %s\n", rc, sqlite3_errmsg(db));
      return;
    }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      printf("    row:");
      for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("    rc=%d %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}

#define FILL(n) "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " #n ") "

/* A temporary table grown past a 10-page cache, in schema `s`. */
static void grow(sqlite3 *db, const char *s) {
  char sql[512];
  snprintf(sql, sizeof sql, "CREATE TABLE %s.t(a INTEGER PRIMARY KEY, b)", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "PRAGMA %s.cache_size = 10", s);
  run(db, sql);
  snprintf(sql, sizeof sql, FILL(20) "INSERT INTO %s.t SELECT x, printf('%%.100c', 'a') FROM c", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*), sum(length(b)) FROM %s.t", s);
  run(db, sql);
  snprintf(sql, sizeof sql, FILL(2000) "INSERT INTO %s.t SELECT x + 100, printf('%%.100c', 'b') FROM c", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*), sum(length(b)), sum(b LIKE 'b%%') FROM %s.t", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "UPDATE %s.t SET b = 'short' WHERE a = 7", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "BEGIN; UPDATE %s.t SET b = 'x' WHERE a < 50; ROLLBACK", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*), sum(length(b)), sum(b = 'short') FROM %s.t", s);
  run(db, sql);
  snprintf(sql, sizeof sql, "PRAGMA %s.integrity_check", s);
  run(db, sql);
}

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "tempfiles";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 1);
  sqlite3 *db;

  printf("a database named \"\":\n  open\n");
  sqlite3_open("", &db);
  grow(db, "main");
  printf("  close\n");
  sqlite3_close(db);

  remove("tf.db");
  printf("the TEMP schema of a file database:\n  open\n");
  sqlite3_open("tf.db", &db);
  run(db, "CREATE TABLE m(x); INSERT INTO m VALUES(1)");
  run(db, "CREATE TEMP TABLE small(x); INSERT INTO temp.small VALUES(1)");
  grow(db, "temp");
  run(db, "SELECT count(*) FROM m, temp.t WHERE t.a = m.x + 99");
  printf("  close\n");
  sqlite3_close(db);
  remove("tf.db");

  printf("the TEMP schema of a :memory: connection:\n  open\n");
  sqlite3_open(":memory:", &db);
  grow(db, "temp");
  printf("  close\n");
  sqlite3_close(db);

  remove("tf.db");
  printf("a database attached as \"\":\n  open\n");
  sqlite3_open("tf.db", &db);
  run(db, "ATTACH '' AS x");
  grow(db, "x");
  run(db, "DETACH x");
  printf("  close\n");
  sqlite3_close(db);
  remove("tf.db");

  remove("tf.db");
  printf("temp_store = memory:\n  open\n");
  sqlite3_open("tf.db", &db);
  run(db, "PRAGMA temp_store = memory");
  grow(db, "temp");
  run(db, "ATTACH '' AS x");
  grow(db, "x");
  printf("  close\n");
  sqlite3_close(db);
  remove("tf.db");

  printf("small temporary tables stay off the VFS:\n  open\n");
  sqlite3_open("", &db);
  run(db, "CREATE TABLE t(a); CREATE TEMP TABLE u(b)");
  run(db, FILL(200) "INSERT INTO t SELECT x FROM c");
  run(db, FILL(200) "INSERT INTO u SELECT x FROM c");
  run(db, "SELECT count(*), sum(a) FROM t, u WHERE a = b");
  printf("  close\n");
  sqlite3_close(db);
  sqlite3_vfs_unregister(&shim);
  return 0;
}
