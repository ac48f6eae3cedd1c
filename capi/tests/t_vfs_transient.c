/* Transient tables through an application VFS: a logging shim over the
 * default VFS (registered as the default) prints every xOpen of a file that
 * is not a main database nor its rollback journal (its kind, its
 * SQLITE_OPEN_* flags, whether a name was given) and, at its close, whether
 * it was written and read, for statements whose transient tables
 * (OpenEphemeral: a DISTINCT set, an IN list, a materialized CTE) and
 * sorters outgrow what SQLite keeps in memory: a transient
 * B-tree keeps SQLITE_DEFAULT_CACHE_SIZE (2000 KiB) of pages whatever
 * cache_size says, then writes pages to a file it opens with no name and
 * SQLITE_OPEN_TRANSIENT_DB; never under PRAGMA temp_store=MEMORY. Small
 * tables open nothing. The results are compared too. How many reads and
 * writes, and in what order, follows each library's own layout (SQLite's
 * pages, ringlite's chunks of rows), so only whether there were any is
 * printed. The log must be SQLite 3.54.1's.
 * Not here: statements ringlite plans with other transient tables than
 * SQLite (a UNION that SQLite merges from two sorters, a CTE read twice
 * that SQLite shares with OpenDup, ORDER BY ... LIMIT that SQLite sorts in
 * a transient index), which open other files. */
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
  int id, shown, reads, writes;
} ShimFile;
#define SF(f) ((ShimFile *)(f))
#define REAL(f) (SF(f)->real)

static int s_close(sqlite3_file *f) {
  ShimFile *s = SF(f);
  if (s->shown) printf("    %s#%d close (%s, %s)\n", s->kind, s->id, s->writes ? "written" : "not written", s->reads ? "read" : "not read");
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  SF(f)->reads++;
  return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
/* Writes to transient files fail while set. */
static int fail_transient_writes;
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  SF(f)->writes++;
  if (fail_transient_writes && strcmp(SF(f)->kind, "transient-db") == 0) return SQLITE_IOERR_WRITE;
  return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int s_truncate(sqlite3_file *f, sqlite3_int64 sz) { return REAL(f)->pMethods->xTruncate(REAL(f), sz); }
static int s_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
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
    sf->id = ++next_id;
    printf("    open %s#%d ", sf->kind, sf->id);
    print_flags(flags);
    printf(" name=%s\n", name ? "given" : "NULL");
  }
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}

/* Runs `sql`, printing its rows (only how many and the last one's first
 * column if `quiet`). */
static void run_rows(sqlite3 *db, const char *sql, int quiet) {
  printf("  %s\n", sql);
  int n = 0;
  char last[64] = "";
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
      n++;
      if (quiet) {
        snprintf(last, sizeof last, "%s", (const char *)sqlite3_column_text(st, 0));
        continue;
      }
      printf("    row:");
      for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("    rc=%d %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
  if (quiet) printf("    %d rows, the last %s\n", n, last);
}
static void run(sqlite3 *db, const char *sql) { run_rows(db, sql, 0); }

#define FILL(n) "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " #n ") "

/* The statements, on a database holding big(a, b) of 120,000 rows. */
static void workload(sqlite3 *db) {
  printf("  (a small DISTINCT set: nothing opened)\n");
  run(db, "SELECT count(DISTINCT a % 1000) FROM big");
  printf("  (a big DISTINCT set, in no order)\n");
  run(db, "SELECT count(DISTINCT b || 'x') FROM big");
  printf("  (a big DISTINCT set of small integers: under the cache)\n");
  run(db, "SELECT count(DISTINCT (a * 7919) % 1000003) FROM big");
  printf("  (a big IN list)\n");
  run(db, "SELECT count(*) FROM big WHERE b || 'y' IN (SELECT b || 'y' FROM big WHERE a % 5 <> 0)");
  printf("  (a small IN list)\n");
  run(db, "SELECT count(*) FROM big WHERE b || 'y' IN (SELECT b || 'y' FROM big WHERE a % 50 = 0)");
  printf("  (a big materialized CTE)\n");
  run(db, "WITH m AS MATERIALIZED (SELECT a, b || 'z' AS b FROM big) SELECT count(*), max(b), sum(a) FROM m");
  printf("  (a big ORDER BY without an index: the sorter)\n");
  run_rows(db, "SELECT a, b FROM big ORDER BY b || 'o'", 1);
}

static void scenario(const char *title, const char *file, const char *temp_store) {
  sqlite3 *db;
  if (strcmp(file, ":memory:") != 0) remove(file);
  printf("%s:\n  open %s\n", title, file);
  sqlite3_open(file, &db);
  run(db, temp_store);
  run(db, "PRAGMA cache_size = 100");
  run(db, "CREATE TABLE big(a, b)");
  run(db, "CREATE TABLE n(x INTEGER PRIMARY KEY)");
  run(db, FILL(1000) "INSERT INTO n SELECT x - 1 FROM c");
  /* (In 120 statements of 1,000 rows: ringlite copies the rows of an
   * INSERT ... SELECT over a join into a transient table first, where
   * SQLite runs the SELECT as a co-routine.) */
  printf("  INSERT INTO big SELECT ... FROM n, 120 times\n");
  for (int p = 0; p < 120; p++) {
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO big SELECT ((%d * 1000 + x) * 7919) %% 120000, printf('%%.20c', 'k') || (%d * 1000 + x) FROM n", p, p);
    if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) printf("    %s\n", sqlite3_errmsg(db));
  }
  workload(db);
  printf("  close\n");
  sqlite3_close(db);
  if (strcmp(file, ":memory:") != 0) remove(file);
}

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "transient";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 1);
  scenario("temp_store = DEFAULT, a database file", "tt.db", "PRAGMA temp_store = DEFAULT");
  scenario("temp_store = FILE, an in-memory database", ":memory:", "PRAGMA temp_store = FILE");
  scenario("temp_store = MEMORY", "tt.db", "PRAGMA temp_store = MEMORY");

  /* A transient file that cannot be written: the statement fails with
   * SQLite's error, the database is intact. */
  sqlite3 *db;
  remove("tt.db");
  printf("a transient file's writes fail:\n  open\n");
  sqlite3_open("tt.db", &db);
  run(db, "CREATE TABLE n(x INTEGER PRIMARY KEY)");
  run(db, FILL(1000) "INSERT INTO n SELECT x - 1 FROM c");
  run(db, "CREATE TABLE big(a, b)");
  for (int p = 0; p < 120; p++) {
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO big SELECT %d * 1000 + x, printf('%%.20c', 'k') || (%d * 1000 + x) FROM n", p, p);
    sqlite3_exec(db, sql, 0, 0, 0);
  }
  fail_transient_writes = 1;
  run(db, "SELECT count(DISTINCT b || 'x') FROM big");
  fail_transient_writes = 0;
  run(db, "SELECT count(DISTINCT b || 'x') FROM big");
  run(db, "PRAGMA integrity_check");
  printf("  close\n");
  sqlite3_close(db);
  remove("tt.db");
  sqlite3_vfs_unregister(&shim);
  return 0;
}
