/* The engine's temporary files through an application VFS: a logging shim
 * over the default VFS (registered as the default) prints, statement by
 * statement, every xOpen of a file that is not a main database nor its
 * rollback journal (its kind, its SQLITE_OPEN_* flags, whether a name was
 * given), every xRead, xWrite, xTruncate and xSync of such a file (runs of
 * the same call collapsed to a count), its close, and every xDelete.
 * Kinds: the temporary database's rollback journal (SQLITE_OPEN_TEMP_JOURNAL)
 * and file (SQLITE_OPEN_TEMP_DB), statement journals
 * (SQLITE_OPEN_SUBJOURNAL), the sorter's spill files (SQLite opens them as
 * SQLITE_OPEN_TEMP_JOURNAL too) and transient tables' files
 * (SQLITE_OPEN_TRANSIENT_DB). The log must be SQLite 3.54.1's.
 * A run of reads or writes is printed as "x some": how many
 * follows each library's own buffering (SQLite copies its in-memory
 * journal to the file in chunks, a sorter writes its runs in pieces of its
 * own); the opens, their flags, truncates, syncs, closes and deletes, and
 * the statements that make them, are compared exactly, also for
 * transactions that grow the temporary database (its page 1, the size in
 * the header, is journaled at the growth).
 * Not compared: a statement that grows the temporary database after an
 * earlier statement of its transaction changed some of its pages (then
 * writing the statement journal too): ringlite's B-tree makes some pages
 * writable in another order than SQLite's, and the runs of journal and
 * statement-journal writes interleave differently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs shim;
static int next_id;
typedef struct ShimFile {
  sqlite3_file base;
  sqlite3_file *real;
  const char *kind;
  int id, shown;
} ShimFile;
#define SF(f) ((ShimFile *)(f))
#define REAL(f) (SF(f)->real)

/* The run of identical calls not yet printed. */
static const char *run_op;
static int run_id, run_n;
static const char *run_kind;
static void flush_run(void) {
  if (!run_op) return;
  if (strcmp(run_op, "read") != 0 && strcmp(run_op, "write") != 0) printf("    %s#%d %s x%d\n", run_kind, run_id, run_op, run_n);
  else printf("    %s#%d %s x some\n", run_kind, run_id, run_op);
  run_op = 0;
}
static void note(ShimFile *s, const char *op) {
  if (!s->shown) return;
  if (run_op && run_id == s->id && strcmp(run_op, op) == 0) {
    run_n++;
    return;
  }
  flush_run();
  run_op = op;
  run_id = s->id;
  run_kind = s->kind;
  run_n = 1;
}

static int s_close(sqlite3_file *f) {
  ShimFile *s = SF(f);
  if (s->shown) {
    flush_run();
    printf("    %s#%d close\n", s->kind, s->id);
  }
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  note(SF(f), "read");
  return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  note(SF(f), "write");
  return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int s_truncate(sqlite3_file *f, sqlite3_int64 sz) {
  if (SF(f)->shown) {
    flush_run();
    printf("    %s#%d truncate %lld\n", SF(f)->kind, SF(f)->id, sz);
  }
  return REAL(f)->pMethods->xTruncate(REAL(f), sz);
}
static int s_sync(sqlite3_file *f, int fl) {
  note(SF(f), "sync");
  return REAL(f)->pMethods->xSync(REAL(f), fl);
}
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) {
  note(SF(f), "lock");
  return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int s_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int s_fcntl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int s_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int s_shm_map(sqlite3_file *f, int r, int sz, int e, void volatile **pp) { return REAL(f)->pMethods->xShmMap(REAL(f), r, sz, e, pp); }
static int s_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void s_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int s_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
/* (Version 2 methods: no xFetch, so reads of a mapped file are xReads.) */
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
static void print_flags(int fl) {
  static const struct { int bit; const char *name; } bits[] = {
    {SQLITE_OPEN_READONLY, "READONLY"}, {SQLITE_OPEN_READWRITE, "READWRITE"}, {SQLITE_OPEN_CREATE, "CREATE"},
    {SQLITE_OPEN_DELETEONCLOSE, "DELETEONCLOSE"}, {SQLITE_OPEN_EXCLUSIVE, "EXCLUSIVE"},
    {SQLITE_OPEN_TEMP_DB, "TEMP_DB"}, {SQLITE_OPEN_TRANSIENT_DB, "TRANSIENT_DB"},
    {SQLITE_OPEN_TEMP_JOURNAL, "TEMP_JOURNAL"}, {SQLITE_OPEN_SUBJOURNAL, "SUBJOURNAL"},
  };
  const char *sep = "";
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
    if (fl & bits[i].bit) {
      printf("%s%s", sep, bits[i].name);
      sep = "|";
    }
  int rest = fl & ~(SQLITE_OPEN_READONLY | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE |
                    SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TRANSIENT_DB | SQLITE_OPEN_TEMP_JOURNAL |
                    SQLITE_OPEN_SUBJOURNAL);
  if (rest) printf("%s%#x", sep, rest);
}
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = (ShimFile *)f;
  (void)v;
  memset(sf, 0, sizeof *sf);
  sf->real = (sqlite3_file *)(sf + 1);
  sf->kind = kind_of(flags);
  sf->shown = !(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL));
  if (sf->shown) {
    flush_run();
    sf->id = ++next_id;
    printf("    open %s#%d ", sf->kind, sf->id);
    print_flags(flags);
    printf(" name=%s\n", name ? "given" : "NULL");
  }
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}
static int s_delete(sqlite3_vfs *v, const char *name, int sync_dir) {
  (void)v;
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  flush_run();
  printf("    delete %s\n", base);
  return orig->xDelete(orig, name, sync_dir);
}

static void run(sqlite3 *db, const char *sql) {
  printf("  %s\n", sql);
  const char *tail = sql;
  while (*tail) {
    sqlite3_stmt *st = 0;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) {
      flush_run();
      printf("    prepare rc=%d %s\n", rc, sqlite3_errmsg(db));
      return;
    }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      flush_run();
      printf("    row:");
      for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
      printf("\n");
    }
    flush_run();
    if (rc != SQLITE_DONE) printf("    rc=%d %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    flush_run();
  }
}

#define FILL(n) "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " #n ") "

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "tempfiles";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.xDelete = s_delete;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 1);
  sqlite3 *db;

  remove("tj.db");
  printf("a temporary table's journals:\n  open\n");
  sqlite3_open("tj.db", &db);
  run(db, "CREATE TABLE m(x); INSERT INTO m VALUES(1)");
  run(db, "CREATE TEMP TABLE t(a INTEGER PRIMARY KEY, b)");
  run(db, FILL(100) "INSERT INTO t SELECT x, printf('%.300c', 'a') FROM c");
  printf("  (journals of less than 64 KiB stay in memory)\n");
  run(db, "BEGIN; UPDATE t SET b = 'x' WHERE a = 5; ROLLBACK");
  run(db, "BEGIN; UPDATE t SET b = 'y'; SELECT count(*) FROM t WHERE b = 'y'; ROLLBACK");
  run(db, "SELECT count(*), sum(length(b)) FROM t");
  run(db, "CREATE TEMP TABLE u(a INTEGER PRIMARY KEY, b UNIQUE, CHECK (a < 300 OR b NOT LIKE '%r'))");
  run(db, FILL(300) "INSERT INTO u SELECT x, printf('%.300c', 'a') || x FROM c");
  printf("  (a journal past 64 KiB: in a file, read back by the rollback)\n");
  run(db, "BEGIN; UPDATE u SET b = b || 'p'; SELECT count(*) FROM u WHERE b LIKE '%p'; ROLLBACK");
  run(db, "SELECT count(*), sum(b LIKE '%p') FROM u");
  printf("  (the file stays open, emptied at each transaction's end)\n");
  run(db, "UPDATE t SET b = 'z' WHERE a = 1");
  run(db, "UPDATE u SET b = b || 'q'");
  printf("  (a statement that fails at its last row: its statement journal)\n");
  run(db, "BEGIN");
  run(db, "UPDATE u SET b = substr(b, 2) || 's'");
  run(db, "UPDATE u SET b = substr(b, 2) || 'r'");
  run(db, "SELECT count(*), sum(b LIKE '%qs'), sum(b LIKE '%r') FROM u");
  run(db, "COMMIT");
  run(db, "PRAGMA temp.integrity_check");
  printf("  (transactions that grow the temporary database)\n");
  run(db, "BEGIN; INSERT INTO u SELECT a + 1000, b || 'h' FROM u WHERE a <= 60");
  run(db, "SELECT count(*), sum(b LIKE '%h') FROM u");
  run(db, "ROLLBACK");
  run(db, "INSERT INTO u SELECT a + 2000, b || 'k' FROM u WHERE a <= 120");
  run(db, "SELECT count(*), sum(b LIKE '%k') FROM u");
  run(db, "PRAGMA temp.integrity_check");
  printf("  close\n");
  sqlite3_close(db);
  flush_run();
  remove("tj.db");

  remove("tj.db");
  printf("a statement journal of the main database:\n  open\n");
  sqlite3_open("tj.db", &db);
  run(db, "CREATE TABLE u(a INTEGER PRIMARY KEY, b UNIQUE, CHECK (a < 300 OR b NOT LIKE '%r'))");
  run(db, FILL(300) "INSERT INTO u SELECT x, printf('%.300c', 'a') || x FROM c");
  run(db, "BEGIN");
  run(db, "UPDATE u SET b = b || 'q'");
  run(db, "UPDATE u SET b = b || 'r'");
  run(db, "COMMIT");
  run(db, "SELECT count(*), sum(b LIKE '%q'), sum(b LIKE '%r') FROM u");
  printf("  close\n");
  sqlite3_close(db);
  flush_run();
  remove("tj.db");

  remove("tj.db");
  printf("big sorts and transient tables, temp_store = FILE:\n  open\n");
  sqlite3_open("tj.db", &db);
  run(db, "PRAGMA temp_store = FILE");
  run(db, "PRAGMA cache_size = 20");
  run(db, "CREATE TABLE big(a, b)");
  run(db, FILL(20000) "INSERT INTO big SELECT (x * 7919) % 20000, printf('%.60c', 'k') || x FROM c");
  printf("  (a sort bigger than the cache: spilled runs)\n");
  run(db, "SELECT sum(a), count(*), max(b) FROM (SELECT a, b FROM big ORDER BY b || 'x')");
  printf("  (an index built over a big table)\n");
  run(db, "CREATE INDEX big_b ON big(b)");
  printf("  (a big DISTINCT set)\n");
  run(db, "SELECT count(*) FROM (SELECT DISTINCT b || 'x' FROM big)");
  printf("  (a big materialized subquery)\n");
  run(db, "SELECT count(*) FROM big WHERE b || 'x' IN (SELECT b || 'x' FROM big WHERE a % 2 = 0)");
  printf("  close\n");
  sqlite3_close(db);
  flush_run();
  remove("tj.db");

  remove("tj.db");
  printf("big sorts and transient tables, temp_store = MEMORY:\n  open\n");
  sqlite3_open("tj.db", &db);
  run(db, "PRAGMA temp_store = MEMORY");
  run(db, "PRAGMA cache_size = 20");
  run(db, "CREATE TABLE big(a, b)");
  run(db, FILL(20000) "INSERT INTO big SELECT (x * 7919) % 20000, printf('%.60c', 'k') || x FROM c");
  run(db, "SELECT sum(a), count(*), max(b) FROM (SELECT a, b FROM big ORDER BY b || 'x')");
  run(db, "CREATE INDEX big_b ON big(b)");
  run(db, "SELECT count(*) FROM (SELECT DISTINCT b || 'x' FROM big)");
  run(db, "CREATE TEMP TABLE t(a INTEGER PRIMARY KEY, b)");
  run(db, FILL(300) "INSERT INTO t SELECT x, printf('%.300c', 'a') FROM c");
  run(db, "BEGIN; UPDATE t SET b = 'y'; ROLLBACK");
  run(db, "SELECT count(*), sum(length(b)) FROM t");
  printf("  close\n");
  sqlite3_close(db);
  flush_run();
  remove("tj.db");

  sqlite3_vfs_unregister(&shim);
  return 0;
}
