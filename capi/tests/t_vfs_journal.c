/* The rollback journal through an application VFS whose xSectorSize and
 * xDeviceCharacteristics answer what each case says: a logging shim over
 * the default VFS prints every write, sync and truncate of the journal
 * (offset and length), the journal's layout when the first database page
 * is written (header fields, record page numbers, checksums valid), and
 * the database's bytes after the commit. The journal must be laid out
 * and written as SQLite does for the same answers: header padded to the
 * sector size (512 when the device is POWERSAFE_OVERWRITE), the record
 * count left at -1 under SAFE_APPEND or synchronous=OFF, no journal sync
 * under SEQUENTIAL, page 1 journaled where the file first grows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs logvfs;
static int g_sector, g_iocap, logging, db_written;
static char logbuf[1 << 16];
static size_t loglen;

typedef struct LogFile {
  sqlite3_file base;
  sqlite3_file *real;
  int kind; /* 0 main, 1 journal, 2 other */
} LogFile;
static sqlite3_file *journal_real;

#define REAL(f) (((LogFile *)(f))->real)
#define KIND(f) (((LogFile *)(f))->kind)

static void logf_(const char *fmt, long long a, long long b) {
  if (!logging || loglen > sizeof logbuf - 100) return;
  loglen += (size_t)snprintf(logbuf + loglen, sizeof logbuf - loglen, fmt, a, b);
}

static unsigned get32(const unsigned char *p) { return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3]; }

/* The journal as it is when the database is first written. */
static void dump_journal(void) {
  sqlite3_int64 sz = 0;
  if (!journal_real || journal_real->pMethods->xFileSize(journal_real, &sz) != SQLITE_OK) return;
  unsigned char *j = calloc(1, (size_t)sz + 8);
  journal_real->pMethods->xRead(journal_real, j, (int)sz, 0);
  static const unsigned char magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  printf("    journal %lld bytes: magic=%d nrec=%d init=%u sector=%u page=%u", sz, memcmp(j, magic, 8) == 0,
         (int)get32(j + 8), get32(j + 16), get32(j + 20), get32(j + 24));
  unsigned nonce = get32(j + 12), sector = get32(j + 20), ps = get32(j + 24);
  int nonzero_pad = 0;
  for (unsigned i = 28; i < sector && i < sz; i++) nonzero_pad |= j[i] != 0;
  printf(" pad-zero=%d records:", !nonzero_pad);
  if (sector >= 32 && ps >= 512) {
    for (sqlite3_int64 off = sector; off + ps + 8 <= sz; off += ps + 8) {
      unsigned sum = nonce;
      for (int i = (int)ps - 200; i > 0; i -= 200) sum += j[off + 4 + i];
      printf(" %u%s", get32(j + off), sum == get32(j + off + 4 + ps) ? "" : "!");
    }
  }
  printf("\n");
  free(j);
}

static int l_close(sqlite3_file *f) {
  if (REAL(f) == journal_real) journal_real = 0;
  int rc = REAL(f)->pMethods->xClose(REAL(f));
  return rc;
}
static int l_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  if (KIND(f) == 1) logf_("  J read %lld %lld\n", o, n);
  return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int l_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  if (KIND(f) == 1) logf_("  J write %lld %lld\n", o, n);
  if (KIND(f) == 0) {
    logf_("  D write %lld %lld\n", o, n);
    if (logging && !db_written) {
      db_written = 1;
      fwrite(logbuf, 1, loglen, stdout);
      loglen = 0;
      dump_journal();
    }
  }
  return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int l_truncate(sqlite3_file *f, sqlite3_int64 s) {
  logf_(KIND(f) == 1 ? "  J truncate %lld%.0lld\n" : "  D truncate %lld%.0lld\n", s, 0);
  return REAL(f)->pMethods->xTruncate(REAL(f), s);
}
static int l_sync(sqlite3_file *f, int fl) {
  logf_(KIND(f) == 1 ? "  J sync 0x%llx%.0lld\n" : "  D sync 0x%llx%.0lld\n", fl, 0);
  return REAL(f)->pMethods->xSync(REAL(f), fl);
}
static int l_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int l_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int l_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int l_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int l_fcntl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int l_sector(sqlite3_file *f) { (void)f; return g_sector; }
static int l_dev(sqlite3_file *f) { (void)f; return g_iocap; }

static const sqlite3_io_methods log_methods = {
  1, l_close, l_read, l_write, l_truncate, l_sync, l_size, l_lock, l_unlock, l_check, l_fcntl, l_sector, l_dev,
  0, 0, 0, 0, 0, 0,
};

static int l_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  LogFile *lf = (LogFile *)f;
  (void)v;
  lf->real = (sqlite3_file *)(lf + 1);
  lf->kind = (flags & SQLITE_OPEN_MAIN_DB) ? 0 : (flags & SQLITE_OPEN_MAIN_JOURNAL) ? 1 : 2;
  int rc = orig->xOpen(orig, name, lf->real, flags, out);
  lf->base.pMethods = lf->real->pMethods ? &log_methods : 0;
  if (lf->kind == 1 && rc == SQLITE_OK) journal_real = lf->real;
  return rc;
}
static int l_delete(sqlite3_vfs *v, const char *z, int d) { (void)v; return orig->xDelete(orig, z, d); }
static int l_access(sqlite3_vfs *v, const char *z, int fl, int *r) { (void)v; return orig->xAccess(orig, z, fl, r); }
static int l_full(sqlite3_vfs *v, const char *z, int n, char *out) { (void)v; return orig->xFullPathname(orig, z, n, out); }

static void exec(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc != SQLITE_OK) printf("  exec [%s]: rc=%d %s\n", sql, rc, err ? err : "");
  sqlite3_free(err);
}

static void run_case(int sector, int iocap, int page_size, const char *sync, const char *jmode, const char *change) {
  char sql[400];
  sqlite3 *db;
  g_sector = sector;
  g_iocap = iocap;
  remove("tj.db");
  remove("tj.db-journal");
  printf("case sector=%d iocap=0x%x page=%d sync=%s journal=%s [%s]\n", sector, iocap, page_size, sync, jmode, change);
  if (sqlite3_open_v2("tj.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "logvfs") != SQLITE_OK) {
    printf("  open failed\n");
    return;
  }
  snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA journal_mode=%s; PRAGMA synchronous=%s;", page_size, jmode, sync);
  exec(db, sql);
  /* One row per leaf page, so that the tree's layout is SQLite's. */
  snprintf(sql, sizeof sql,
           "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);"
           "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<40)"
           " INSERT INTO t SELECT x, replace(hex(zeroblob(%d)), '0', char(65 + x %% 26)) FROM c;",
           page_size * 3 / 10);
  exec(db, sql);
  loglen = 0;
  db_written = 0;
  logging = 1;
  exec(db, change);
  logging = 0;
  fwrite(logbuf, 1, loglen, stdout);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT count(*), sum(unicode(b) * a), (SELECT page_count FROM pragma_page_count) FROM t", -1, &st, 0) == SQLITE_OK
      && sqlite3_step(st) == SQLITE_ROW)
    printf("  rows %d sum %lld pages %d\n", sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int(st, 2));
  sqlite3_finalize(st);
  sqlite3_close(db);
}

int main(void) {
  orig = sqlite3_vfs_find(0);
  logvfs = *orig;
  logvfs.zName = "logvfs";
  logvfs.iVersion = 1;
  logvfs.szOsFile = (int)sizeof(LogFile) + orig->szOsFile;
  logvfs.xOpen = l_open;
  logvfs.xDelete = l_delete;
  logvfs.xAccess = l_access;
  logvfs.xFullPathname = l_full;
  sqlite3_vfs_register(&logvfs, 0);

  const char *one = "UPDATE t SET b = lower(b) WHERE a = 7;";
  const char *many = "UPDATE t SET b = lower(b) WHERE a % 5 = 0;";
  static const int sectors[] = {4096, 512, 0, 16, 2048, 8192, 65536, 131072};
  for (unsigned i = 0; i < sizeof sectors / sizeof *sectors; i++) run_case(sectors[i], 0, 4096, "FULL", "DELETE", one);
  run_case(4096, SQLITE_IOCAP_POWERSAFE_OVERWRITE, 4096, "FULL", "DELETE", one);
  run_case(8192, SQLITE_IOCAP_POWERSAFE_OVERWRITE, 1024, "FULL", "DELETE", many);
  static const char *syncs[] = {"OFF", "NORMAL", "FULL", "EXTRA"};
  static const int caps[] = {0, SQLITE_IOCAP_SAFE_APPEND, SQLITE_IOCAP_SEQUENTIAL, SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_SEQUENTIAL,
                             SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_POWERSAFE_OVERWRITE, SQLITE_IOCAP_BATCH_ATOMIC,
                             SQLITE_IOCAP_UNDELETABLE_WHEN_OPEN};
  static const char *modes[] = {"DELETE", "TRUNCATE", "PERSIST"};
  for (unsigned s = 0; s < 4; s++)
    for (unsigned c = 0; c < sizeof caps / sizeof *caps; c++) run_case(512, caps[c], 1024, syncs[s], "DELETE", many);
  for (unsigned m = 0; m < 3; m++) {
    run_case(4096, 0, 1024, "FULL", modes[m], many);
    run_case(4096, SQLITE_IOCAP_SAFE_APPEND, 1024, "NORMAL", modes[m], many);
  }
  /* A transaction that grows the file: page 1 (the size in its header) is
   * journaled where the first page is added, before the pages changed
   * after it, as SQLite's allocateBtreePage journals it. */
  const char *grow = "BEGIN; UPDATE t SET b = lower(b) WHERE a = 7; INSERT INTO t SELECT a + 100, b FROM t WHERE a <= 3;"
                     " UPDATE t SET b = lower(b) WHERE a = 20; COMMIT;";
  run_case(4096, 0, 4096, "FULL", "DELETE", grow);
  run_case(512, SQLITE_IOCAP_SAFE_APPEND, 1024, "NORMAL", "PERSIST", grow);
  run_case(4096, 0, 1024, "FULL", "TRUNCATE", "INSERT INTO t SELECT a + 200, b FROM t WHERE a % 9 = 0;");
  /* Sectors larger than pages: every page of a touched sector is journaled. */
  run_case(4096, 0, 1024, "NORMAL", "DELETE", one);
  run_case(65536, 0, 4096, "FULL", "DELETE", many);
  remove("tj.db");
  remove("tj.db-journal");
  return 0;
}
