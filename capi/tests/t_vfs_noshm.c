/* WAL without shared memory (wal.txt section 8, SQLite's walnoshm.test):
 * through a VFS whose files have no xShm methods (io methods of version 1)
 * a database enters WAL mode only in EXCLUSIVE locking mode, its WAL index
 * then lives in heap memory, and the connection cannot go back to NORMAL
 * while in WAL mode; a WAL database cannot be opened in NORMAL mode (unable
 * to open database file), but can in EXCLUSIVE mode and be taken out of
 * WAL. On the default VFS, EXCLUSIVE set before the first WAL access
 * leaves no -shm file; set after it, the mode changes freely. Every xOpen,
 * xDelete and refused lock of the shim is logged (not every lock change:
 * the sequences differ in rollback mode, and not by these rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs shim;
static int logging = 1;
typedef struct ShimFile {
  sqlite3_file base;
  sqlite3_file *real;
  const char *kind;
} ShimFile;
#define REAL(f) (((ShimFile *)(f))->real)
#define KIND(f) (((ShimFile *)(f))->kind)

static int s_close(sqlite3_file *f) {
  if (logging) printf("    %s close\n", KIND(f));
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int s_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) {
  int rc = REAL(f)->pMethods->xLock(REAL(f), l);
  if (rc != SQLITE_OK && logging) printf("    %s lock %d rc=%d\n", KIND(f), l, rc);
  return rc;
}
static int s_unlock(sqlite3_file *f, int l) {
  return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int s_fcntl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int s_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
/* Version 1: no shared memory. */
static const sqlite3_io_methods v1_methods = {
  1, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock, s_check, s_fcntl, s_sector, s_dev,
};
/* Version 2 without xShmMap (SQLite checks that one). */
static const sqlite3_io_methods v2_nomap_methods = {
  2, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock, s_check, s_fcntl, s_sector, s_dev, 0, 0, 0, 0,
};
static const sqlite3_io_methods *methods = &v1_methods;
static const char *kind_of(int fl) {
  if (fl & SQLITE_OPEN_MAIN_DB) return "db";
  if (fl & SQLITE_OPEN_MAIN_JOURNAL) return "journal";
  if (fl & SQLITE_OPEN_WAL) return "wal";
  return "other";
}
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = (ShimFile *)f;
  (void)v;
  sf->real = (sqlite3_file *)(sf + 1);
  sf->kind = kind_of(flags);
  if (logging) printf("    open %s flags=%#x\n", sf->kind, flags);
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? methods : 0;
  return rc;
}
static int s_delete(sqlite3_vfs *v, const char *z, int d) {
  (void)v;
  if (logging) printf("    delete %s\n", strrchr(z, '/') ? strrchr(z, '/') + 1 : z);
  return orig->xDelete(orig, z, d);
}

static void run(sqlite3 *db, const char *sql) {
  char rows[4096] = "";
  size_t used = 0;
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
      used += snprintf(rows + used, sizeof rows - used, "    row:");
      for (int i = 0; i < sqlite3_column_count(st) && used < sizeof rows; i++)
        used += snprintf(rows + used, sizeof rows - used, " %s", (const char *)sqlite3_column_text(st, i));
      if (used < sizeof rows) used += snprintf(rows + used, sizeof rows - used, "\n");
    }
    if (rc != SQLITE_DONE) used += snprintf(rows + used, sizeof rows - used, "    rc=%d %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
  printf("%s", rows);
}
static void files(const char *db) {
  char p[256];
  snprintf(p, sizeof p, "%s-wal", db);
  int w = access(p, F_OK) == 0;
  snprintf(p, sizeof p, "%s-shm", db);
  int s = access(p, F_OK) == 0;
  printf("  files: wal=%d shm=%d\n", w, s);
}
static void copy(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  char buf[4096];
  size_t n;
  while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0) fwrite(buf, 1, n, b);
  if (a) fclose(a);
  if (b) fclose(b);
}
static void clean(const char *db) {
  char p[256];
  unlink(db);
  snprintf(p, sizeof p, "%s-wal", db); unlink(p);
  snprintf(p, sizeof p, "%s-shm", db); unlink(p);
  snprintf(p, sizeof p, "%s-journal", db); unlink(p);
}
static sqlite3 *open_db(const char *path, const char *vfs) {
  sqlite3 *db = 0;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs);
  printf("  open %s vfs=%s rc=%d\n", path, vfs ? vfs : "default", rc);
  return db;
}

int main(void) {
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "noshm";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.xDelete = s_delete;
  sqlite3_vfs_register(&shim, 0);
  clean("ns1.db"); clean("ns2.db"); clean("ns3.db"); clean("ns4.db");

  printf("1: version 1 VFS\n");
  sqlite3 *db = open_db("ns1.db", "noshm");
  run(db, "CREATE TABLE t1(x, y); INSERT INTO t1 VALUES(1, 2);");
  run(db, "PRAGMA journal_mode = WAL; SELECT * FROM t1;");
  files("ns1.db");
  run(db, "PRAGMA locking_mode = exclusive;");
  run(db, "PRAGMA journal_mode = WAL;");
  run(db, "SELECT * FROM t1;");
  files("ns1.db");
  run(db, "INSERT INTO t1 VALUES(3, 4)");
  run(db, "PRAGMA locking_mode = normal;");
  run(db, "PRAGMA main.locking_mode;");
  run(db, "PRAGMA wal_checkpoint;");
  run(db, "PRAGMA journal_mode = delete;");
  run(db, "PRAGMA main.locking_mode;");
  run(db, "PRAGMA locking_mode = normal;");
  run(db, "SELECT * FROM t1;");
  files("ns1.db");

  printf("2: a WAL database through the version 1 VFS\n");
  run(db, "CREATE TABLE t2(x, y); INSERT INTO t2 VALUES('a', 'b'); INSERT INTO t2 VALUES('c', 'd');");
  run(db, "PRAGMA locking_mode = exclusive; PRAGMA journal_mode = WAL;");
  run(db, "PRAGMA wal_autocheckpoint = 0; INSERT INTO t2 VALUES('e', 'f'); INSERT INTO t2 VALUES('g', 'h');");
  copy("ns1.db", "ns2.db");
  copy("ns1.db-wal", "ns2.db-wal");
  sqlite3 *db2 = open_db("ns2.db", "noshm");
  run(db2, "SELECT * FROM t2");
  run(db2, "PRAGMA journal_mode = delete");
  run(db2, "PRAGMA locking_mode = exclusive; PRAGMA journal_mode = delete; SELECT * FROM t2;");
  files("ns2.db");
  sqlite3_close(db2);
  files("ns2.db");

  printf("3: another connection holds the database\n");
  copy("ns1.db", "ns3.db");
  copy("ns1.db-wal", "ns3.db-wal");
  sqlite3 *db3 = open_db("ns3.db", 0);
  db2 = open_db("ns3.db", "noshm");
  run(db3, "SELECT count(*) FROM t2");
  run(db2, "PRAGMA locking_mode = exclusive");
  run(db2, "PRAGMA journal_mode = delete");
  run(db2, "SELECT count(*) FROM t2");
  sqlite3_close(db3);
  run(db2, "SELECT count(*) FROM t2");
  run(db2, "INSERT INTO t2 VALUES('i', 'j'); SELECT count(*) FROM t2");
  sqlite3_close(db2);
  files("ns3.db");
  sqlite3_close(db);
  files("ns1.db");

  printf("4: version 2 methods without xShmMap\n");
  methods = &v2_nomap_methods;
  db = open_db("ns4.db", "noshm");
  run(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  run(db, "PRAGMA journal_mode = WAL;");
  run(db, "PRAGMA locking_mode = exclusive; PRAGMA journal_mode = WAL; INSERT INTO t VALUES(2); SELECT * FROM t;");
  files("ns4.db");
  sqlite3_close(db);
  files("ns4.db");
  methods = &v1_methods;

  printf("5: default VFS, EXCLUSIVE before and after the WAL opens\n");
  logging = 0;
  clean("ns5.db");
  db = open_db("ns5.db", 0);
  run(db, "PRAGMA locking_mode = exclusive; PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  files("ns5.db");
  db2 = open_db("ns5.db", 0);
  run(db2, "SELECT * FROM t");
  run(db, "PRAGMA locking_mode = normal; INSERT INTO t VALUES(2);");
  run(db2, "SELECT * FROM t");
  sqlite3_close(db);
  files("ns5.db");
  run(db2, "SELECT * FROM t");
  files("ns5.db");
  run(db2, "PRAGMA locking_mode = exclusive; INSERT INTO t VALUES(3);");
  db = open_db("ns5.db", 0);
  run(db, "SELECT * FROM t");
  run(db2, "PRAGMA locking_mode = normal; SELECT count(*) FROM t;");
  run(db, "SELECT * FROM t");
  run(db2, "INSERT INTO t VALUES(4);");
  run(db, "SELECT * FROM t");
  sqlite3_close(db);
  sqlite3_close(db2);
  files("ns5.db");
  sqlite3_vfs_unregister(&shim);
  return 0;
}
