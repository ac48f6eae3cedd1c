/* Application VFSes: a shim wrapping the default VFS (registered as the
 * default, counting opens by file kind, injecting a write error on
 * demand) and an in-memory VFS written here, used through vfs=.
 * Prints only what SQLite and ringlite must agree on: the VFS list, which
 * kinds of file were opened, errors as the application sees them, and
 * the database's state after a failed commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sqlite3.h"

/* ---- the shim over the default VFS ---- */
static sqlite3_vfs *orig;
static sqlite3_vfs shim;
static int opens_main, opens_journal, opens_wal, opens_other;
static int n_writes, n_syncs, n_locks, n_shm_maps, n_reserved_checks;
static int fail_at; /* the write (counted from 1) that fails; 0: none */
static char journal_name_ok[8] = "none";
static char uri_param_seen[64] = "";

typedef struct ShimFile {
  sqlite3_file base;
  sqlite3_file *real;
  int is_main;
} ShimFile;
static int die_at_db_write; /* the main-db write at which the process dies */
static int db_writes;

#define REAL(f) (((ShimFile *)(f))->real)

static int s_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  n_writes++;
  if (((ShimFile *)f)->is_main && die_at_db_write && ++db_writes == die_at_db_write) _exit(0);
  if (fail_at && n_writes == fail_at) return SQLITE_IOERR_WRITE;
  return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int s_sync(sqlite3_file *f, int fl) { n_syncs++; return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) { n_locks++; return REAL(f)->pMethods->xLock(REAL(f), l); }
static int s_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int s_check(sqlite3_file *f, int *r) { n_reserved_checks++; return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int trace_hints, persist_wal;
static int s_fcntl(sqlite3_file *f, int op, void *a) {
  if (trace_hints && op == SQLITE_FCNTL_SIZE_HINT) printf("    size hint %lld\n", *(sqlite3_int64 *)a);
  if (trace_hints && op == SQLITE_FCNTL_SYNC) printf("    sync notice\n");
  if (trace_hints && op == SQLITE_FCNTL_COMMIT_PHASETWO) printf("    commit phase two\n");
  if (op == SQLITE_FCNTL_PERSIST_WAL && persist_wal && *(int *)a < 0) { *(int *)a = 1; return SQLITE_OK; }
  if (op == 1001) { *(int *)a = 7; return SQLITE_OK; }
  if (op == SQLITE_FCNTL_PRAGMA) {
    char **args = (char **)a;
    if (strcmp(args[1], "shim_answer") == 0) {
      args[0] = sqlite3_mprintf("42:%s", args[2] ? args[2] : "none");
      return SQLITE_OK;
    }
    if (strcmp(args[1], "shim_silent") == 0) return SQLITE_OK;
    if (strcmp(args[1], "shim_fail") == 0) {
      args[0] = sqlite3_mprintf("shim says no to %s", args[2] ? args[2] : "none");
      return SQLITE_ERROR;
    }
  }
  return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int s_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int s_shm_map(sqlite3_file *f, int r, int sz, int e, void volatile **pp) {
  n_shm_maps++;
  return REAL(f)->pMethods->xShmMap(REAL(f), r, sz, e, pp);
}
static int s_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void s_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int s_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
static int s_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) { *pp = 0; (void)f; (void)o; (void)n; return SQLITE_OK; }
static int s_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { (void)f; (void)o; (void)p; return SQLITE_OK; }

static const sqlite3_io_methods shim_methods = {
  3, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock, s_check, s_fcntl,
  s_sector, s_dev, s_shm_map, s_shm_lock, s_shm_barrier, s_shm_unmap, s_fetch, s_unfetch,
};

static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  ShimFile *sf = (ShimFile *)f;
  (void)v;
  sf->real = (sqlite3_file *)(sf + 1);
  sf->is_main = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  if (flags & SQLITE_OPEN_MAIN_DB) {
    opens_main++;
    const char *p = sqlite3_uri_parameter(name, "shimtag");
    if (p) snprintf(uri_param_seen, sizeof uri_param_seen, "%s", p);
  } else if (flags & SQLITE_OPEN_MAIN_JOURNAL) {
    opens_journal++;
    const char *db = sqlite3_filename_database(name);
    char want[600];
    snprintf(want, sizeof want, "%s-journal", db ? db : "?");
    snprintf(journal_name_ok, sizeof journal_name_ok, "%s", strcmp(want, name) == 0 ? "yes" : "no");
  } else if (flags & SQLITE_OPEN_WAL) {
    opens_wal++;
  } else {
    opens_other++;
  }
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}

static void list_vfs(const char *when) {
  printf("%s:", when);
  for (sqlite3_vfs *v = sqlite3_vfs_find(0); v; v = v->pNext) printf(" %s", v->zName);
  printf("\n");
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc != SQLITE_OK) printf("  exec [%s]: rc=%d ext=%d %s\n", sql, rc, sqlite3_extended_errcode(db), err ? err : "");
  sqlite3_free(err);
}

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) {
    printf("  prepare [%s]: %s\n", sql, sqlite3_errmsg(db));
    return;
  }
  printf("  %s ->", sql);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
  if (rc != SQLITE_DONE) printf(" [rc=%d %s]", rc, sqlite3_errmsg(db));
  printf("\n");
  sqlite3_finalize(st);
}

static void reset_counts(void) {
  opens_main = opens_journal = opens_wal = opens_other = 0;
  n_writes = n_syncs = n_locks = n_shm_maps = n_reserved_checks = 0;
}

/* A database with 10 committed rows, then a 200-row transaction whose
 * fail_at-th write fails; the committed rows survive. */
static void fault_run(const char *mode, int at) {
  sqlite3 *db;
  remove("f.db"); remove("f.db-journal"); remove("f.db-wal");
  sqlite3_open("f.db", &db);
  char sql[200];
  snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
  exec(db, sql);
  exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB)");
  exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<10) INSERT INTO t SELECT x, randomblob(500) FROM c");
  exec(db, "BEGIN");
  exec(db, "WITH RECURSIVE c(x) AS (SELECT 11 UNION ALL SELECT x+1 FROM c WHERE x<210) INSERT INTO t SELECT x, randomblob(500) FROM c");
  n_writes = 0;
  fail_at = at;
  int rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
  fail_at = 0;
  printf("%s fault at write %d: commit rc=%d ext=%d msg=%s\n", mode, at, rc, sqlite3_extended_errcode(db), sqlite3_errmsg(db));
  sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  sqlite3_close(db);
  sqlite3_open("f.db", &db);
  show(db, "PRAGMA integrity_check");
  show(db, "SELECT count(*), sum(length(b)) FROM t");
  sqlite3_close(db);
}

/* ---- an in-memory VFS ---- */
#define MEM_FILES 8
typedef struct MemData {
  char name[256];
  unsigned char *bytes;
  sqlite3_int64 size, cap;
  int used;
} MemData;
static MemData mem_files[MEM_FILES];
typedef struct MemFile {
  sqlite3_file base;
  MemData *d;
} MemFile;

static MemData *mem_lookup(const char *name, int create) {
  for (int i = 0; i < MEM_FILES; i++)
    if (mem_files[i].used && strcmp(mem_files[i].name, name) == 0) return &mem_files[i];
  if (!create) return 0;
  for (int i = 0; i < MEM_FILES; i++)
    if (!mem_files[i].used) {
      memset(&mem_files[i], 0, sizeof mem_files[i]);
      mem_files[i].used = 1;
      snprintf(mem_files[i].name, sizeof mem_files[i].name, "%s", name);
      return &mem_files[i];
    }
  return 0;
}
static int m_close(sqlite3_file *f) { (void)f; return SQLITE_OK; }
static int m_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  MemData *d = ((MemFile *)f)->d;
  if (o >= d->size) { memset(b, 0, n); return SQLITE_IOERR_SHORT_READ; }
  sqlite3_int64 have = d->size - o;
  if (have >= n) { memcpy(b, d->bytes + o, n); return SQLITE_OK; }
  memcpy(b, d->bytes + o, have);
  memset((char *)b + have, 0, n - have);
  return SQLITE_IOERR_SHORT_READ;
}
static int m_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  MemData *d = ((MemFile *)f)->d;
  if (o + n > d->cap) {
    sqlite3_int64 c = (o + n) * 2;
    unsigned char *nb = realloc(d->bytes, c);
    if (!nb) return SQLITE_IOERR_WRITE;
    memset(nb + d->cap, 0, c - d->cap);
    d->bytes = nb;
    d->cap = c;
  }
  memcpy(d->bytes + o, b, n);
  if (o + n > d->size) d->size = o + n;
  return SQLITE_OK;
}
static int m_truncate(sqlite3_file *f, sqlite3_int64 s) {
  MemData *d = ((MemFile *)f)->d;
  if (s < d->size) d->size = s;
  return SQLITE_OK;
}
static int m_sync(sqlite3_file *f, int fl) { (void)f; (void)fl; return SQLITE_OK; }
static int m_size(sqlite3_file *f, sqlite3_int64 *s) { *s = ((MemFile *)f)->d->size; return SQLITE_OK; }
static int m_lock(sqlite3_file *f, int l) { (void)f; (void)l; return SQLITE_OK; }
static int m_check(sqlite3_file *f, int *r) { (void)f; *r = 0; return SQLITE_OK; }
static int m_fcntl(sqlite3_file *f, int op, void *a) {
  (void)f;
  if (op == 1000) { *(int *)a = 4242; return SQLITE_OK; }
  return SQLITE_NOTFOUND;
}
static int m_sector(sqlite3_file *f) { (void)f; return 4096; }
static int m_dev(sqlite3_file *f) { (void)f; return 0; }
static const sqlite3_io_methods mem_methods = {
  1, m_close, m_read, m_write, m_truncate, m_sync, m_size, m_lock, m_lock, m_check, m_fcntl, m_sector, m_dev,
  0, 0, 0, 0, 0, 0,
};
static int m_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  (void)v;
  if (!name) return SQLITE_CANTOPEN;
  MemData *d = mem_lookup(name, flags & SQLITE_OPEN_CREATE);
  if (!d) return SQLITE_CANTOPEN;
  ((MemFile *)f)->d = d;
  f->pMethods = &mem_methods;
  if (out) *out = flags;
  return SQLITE_OK;
}
static int m_delete(sqlite3_vfs *v, const char *name, int s) {
  (void)v; (void)s;
  MemData *d = mem_lookup(name, 0);
  if (!d) return SQLITE_IOERR_DELETE_NOENT;
  free(d->bytes);
  d->used = 0;
  return SQLITE_OK;
}
static int m_access(sqlite3_vfs *v, const char *name, int fl, int *out) {
  (void)v; (void)fl;
  *out = mem_lookup(name, 0) != 0;
  return SQLITE_OK;
}
static int m_full(sqlite3_vfs *v, const char *name, int n, char *out) {
  (void)v;
  snprintf(out, n, "%s", name);
  return SQLITE_OK;
}
static int m_random(sqlite3_vfs *v, int n, char *out) { (void)v; memset(out, 7, n); return n; }
static int m_sleep(sqlite3_vfs *v, int us) { (void)v; return us; }
static int m_time(sqlite3_vfs *v, double *t) { (void)v; *t = 2460000.5; return SQLITE_OK; }
static sqlite3_vfs memvfs = {
  1, sizeof(MemFile), 256, 0, "mem", 0, m_open, m_delete, m_access, m_full, 0, 0, 0, 0, m_random, m_sleep, m_time, 0, 0, 0, 0, 0,
};

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  list_vfs("start");
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "shim";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.pNext = 0;
  printf("register shim: %d\n", sqlite3_vfs_register(&shim, 1));
  list_vfs("shim default");
  printf("find(0) is shim: %d, find(unix) is orig: %d\n", sqlite3_vfs_find(0) == &shim, sqlite3_vfs_find("unix") == orig);
  printf("register memvfs: %d\n", sqlite3_vfs_register(&memvfs, 0));
  list_vfs("with mem");
  sqlite3 *db;
  int rc = sqlite3_open_v2("x.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "nosuch");
  printf("open vfs=nosuch: %d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_close(db);
  rc = sqlite3_open_v2("file:x.db?vfs=nosuch2", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
  printf("open uri vfs=nosuch2: %d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_close(db);

  /* Rollback-journal workload through the shim (the default now). */
  remove("r.db"); remove("r.db-journal");
  reset_counts();
  trace_hints = 1;
  rc = sqlite3_open_v2("file:r.db?shimtag=hello", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
  printf("open r.db: %d\n", rc);
  exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)");
  exec(db, "BEGIN");
  for (int i = 0; i < 100; i++) {
    char sql[100];
    snprintf(sql, sizeof sql, "INSERT INTO t(b) VALUES('row %d')", i);
    exec(db, sql);
  }
  exec(db, "COMMIT");
  exec(db, "INSERT INTO t(b) VALUES('one more')");
  exec(db, "UPDATE t SET b = b || '!' WHERE a % 10 = 0");
  show(db, "SELECT count(*), max(a), sum(length(b)) FROM t");
  trace_hints = 0;
  show(db, "PRAGMA journal_mode");
  {
    sqlite3_file *jp = (sqlite3_file *)1;
    rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &jp);
    printf("JOURNAL_POINTER outside a transaction: rc=%d null=%d\n", rc, jp == 0);
  }
  show(db, "PRAGMA shim_answer");
  show(db, "PRAGMA shim_answer=abc");
  show(db, "PRAGMA main.shim_answer('x y')");
  show(db, "PRAGMA shim_silent");
  show(db, "PRAGMA shim_fail=3");
  show(db, "PRAGMA temp.shim_answer");
  {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA shim_answer", -1, &st, 0) == SQLITE_OK) {
      printf("  pragma column: %d %s\n", sqlite3_column_count(st), sqlite3_column_count(st) ? sqlite3_column_name(st, 0) : "-");
      sqlite3_finalize(st);
    }
  }
  int v = 0;
  rc = sqlite3_file_control(db, "main", 1001, &v);
  printf("file_control(1001) through shim: rc=%d v=%d\n", rc, v);
  sqlite3_file *fp = 0;
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &fp);
  printf("FILE_POINTER: rc=%d is shim file: %d\n", rc, fp && fp->pMethods == &shim_methods);
  sqlite3_vfs *vp = 0;
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vp);
  printf("VFS_POINTER: rc=%d is shim: %d\n", rc, vp == &shim);
  sqlite3_close(db);
  printf("rollback: main opens=%d journal opens>0=%d wal opens=%d writes>0=%d syncs>0=%d locks>0=%d journal name=%s uri param=%s\n", opens_main,
         opens_journal > 0, opens_wal, n_writes > 0, n_syncs > 0, n_locks > 0, journal_name_ok, uri_param_seen);

  /* WAL workload through the shim. */
  remove("w.db"); remove("w.db-wal"); remove("w.db-shm");
  reset_counts();
  sqlite3_open("w.db", &db);
  show(db, "PRAGMA journal_mode=wal");
  trace_hints = 1;
  exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)");
  exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<500) INSERT INTO t SELECT x, hex(randomblob(40)) FROM c");
  sqlite3 *db2;
  sqlite3_open("w.db", &db2);
  show(db2, "SELECT count(*) FROM t");
  exec(db, "INSERT INTO t(b) VALUES('x')");
  show(db2, "SELECT count(*) FROM t");
  show(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db2);
  sqlite3_close(db);
  trace_hints = 0;
  printf("wal: main opens=%d wal opens=%d shm maps>0=%d syncs>0=%d\n", opens_main, opens_wal, n_shm_maps > 0, n_syncs > 0);
  /* The WAL database read without the shim (through "unix" directly). */
  sqlite3_open_v2("w.db", &db, SQLITE_OPEN_READONLY, "unix");
  show(db, "SELECT count(*) FROM t");
  sqlite3_close(db);

  /* ATTACH, a transaction bigger than the cache, VACUUM: all through the
   * shim. */
  remove("a.db"); remove("b.db");
  reset_counts();
  sqlite3_open("a.db", &db);
  exec(db, "ATTACH 'b.db' AS b");
  exec(db, "PRAGMA cache_size=10");
  exec(db, "CREATE TABLE b.t(x, y)");
  exec(db, "BEGIN");
  exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<3000) INSERT INTO b.t SELECT i, zeroblob(300) FROM c");
  exec(db, "UPDATE b.t SET x = x + 1");
  exec(db, "COMMIT");
  exec(db, "BEGIN");
  exec(db, "DELETE FROM b.t WHERE x % 2 = 0");
  exec(db, "ROLLBACK");
  show(db, "SELECT count(*), sum(x) FROM b.t");
  show(db, "PRAGMA b.integrity_check");
  exec(db, "DELETE FROM b.t WHERE x > 100");
  exec(db, "VACUUM b");
  show(db, "SELECT count(*), sum(x) FROM b.t");
  show(db, "PRAGMA b.integrity_check");
  sqlite3_close(db);
  printf("attach: main opens=%d\n", opens_main);
  remove("a.db"); remove("b.db");

  /* A VFS that keeps the WAL (SQLITE_FCNTL_PERSIST_WAL). */
  remove("p.db"); remove("p.db-wal");
  persist_wal = 1;
  sqlite3_open("p.db", &db);
  show(db, "PRAGMA journal_mode=wal");
  exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)");
  sqlite3_close(db);
  persist_wal = 0;
  {
    FILE *w = fopen("p.db-wal", "rb");
    long n = -1;
    if (w) { fseek(w, 0, SEEK_END); n = ftell(w); fclose(w); }
    printf("persisted wal: exists=%d size=%ld\n", w != 0, n);
  }
  sqlite3_open("p.db", &db);
  show(db, "SELECT * FROM t");
  sqlite3_close(db);
  remove("p.db"); remove("p.db-wal");

  /* SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE leaves the WAL as it is. */
  remove("n.db"); remove("n.db-wal");
  sqlite3_open("n.db", &db);
  show(db, "PRAGMA journal_mode=wal");
  exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2)");
  v = -1;
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &v);
  printf("no_ckpt_on_close: rc=%d v=%d\n", rc, v);
  sqlite3_close(db);
  {
    FILE *w = fopen("n.db-wal", "rb");
    long n = -1;
    if (w) { fseek(w, 0, SEEK_END); n = ftell(w); fclose(w); }
    printf("wal kept: exists=%d size=%ld\n", w != 0, n);
  }
  sqlite3_open("n.db", &db);
  show(db, "SELECT sum(x) FROM t");
  sqlite3_close(db);
  remove("n.db"); remove("n.db-wal");

  /* Injected write errors: the error surfaces, committed data survives. */
  int faults[] = {1, 2, 3, 10, 20};
  for (unsigned i = 0; i < sizeof faults / sizeof faults[0]; i++) fault_run("delete", faults[i]);
  fault_run("wal", 1);

  /* A process dying in the middle of writing the database leaves a hot
   * journal; the next connection through the shim rolls it back. */
  remove("h.db"); remove("h.db-journal");
  sqlite3_open("h.db", &db);
  exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB)");
  exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<50) INSERT INTO t SELECT x, randomblob(500) FROM c");
  sqlite3_close(db);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    sqlite3_open("h.db", &db);
    exec(db, "BEGIN");
    exec(db, "UPDATE t SET b = randomblob(600)");
    exec(db, "WITH RECURSIVE c(x) AS (SELECT 51 UNION ALL SELECT x+1 FROM c WHERE x<250) INSERT INTO t SELECT x, randomblob(500) FROM c");
    die_at_db_write = 3;
    exec(db, "COMMIT");
    _exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("crashed mid-commit: %d, hot journal left: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0, access("h.db-journal", F_OK) == 0);
  sqlite3_open("h.db", &db);
  show(db, "SELECT count(*), sum(length(b)) FROM t");
  show(db, "PRAGMA integrity_check");
  sqlite3_close(db);
  printf("journal after recovery: %d\n", access("h.db-journal", F_OK) == 0);
  remove("h.db");

  /* The in-memory VFS through vfs=. */
  rc = sqlite3_open_v2("file:memdb1?vfs=mem", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
  printf("open mem: %d\n", rc);
  exec(db, "CREATE TABLE m(x, y)");
  exec(db, "BEGIN");
  exec(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<300) INSERT INTO m SELECT x, printf('%.50c', 'z') FROM c");
  exec(db, "COMMIT");
  exec(db, "BEGIN");
  exec(db, "DELETE FROM m WHERE x > 100");
  exec(db, "ROLLBACK");
  show(db, "SELECT count(*), sum(x), length(max(y)) FROM m");
  show(db, "SELECT julianday('now'), datetime('now')");
  show(db, "PRAGMA journal_mode=wal");
  v = 0;
  rc = sqlite3_file_control(db, "main", 1000, &v);
  printf("file_control(1000) on mem: rc=%d v=%d\n", rc, v);
  sqlite3_close(db);
  printf("mem files after close: db=%d journal=%d\n", mem_lookup("memdb1", 0) != 0, mem_lookup("memdb1-journal", 0) != 0);
  rc = sqlite3_open_v2("memdb1", &db, SQLITE_OPEN_READWRITE, "mem");
  printf("reopen mem by name: %d\n", rc);
  show(db, "SELECT count(*), sum(x) FROM m");
  show(db, "PRAGMA integrity_check");
  sqlite3_close(db);
  rc = sqlite3_open_v2("nothere", &db, SQLITE_OPEN_READWRITE, "mem");
  printf("open missing mem file: %d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_close(db);

  printf("unregister mem: %d\n", sqlite3_vfs_unregister(&memvfs));
  printf("unregister shim: %d\n", sqlite3_vfs_unregister(&shim));
  list_vfs("end");
  remove("r.db"); remove("w.db"); remove("f.db"); remove("x.db");
  return 0;
}
