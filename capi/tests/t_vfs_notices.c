/* What a connection tells and asks of its application VFS besides reads and
 * writes, logged by a shim over the default VFS (registered as the
 * default) on fixed rollback-journal, WAL and sorter workloads: every
 * xFileControl opcode with its argument, every xOpen's flags, xDelete,
 * xRandomness (answered with fixed bytes, so random(), randomblob() and
 * random rowids must be SQLite's numbers) and xCurrentTimeInt64 (read only
 * for 'now'; the WAL's salts are not drawn from the generator as SQLite's
 * are, so random() is compared only before WAL mode). Then PRAGMA mmap_size and xFetch/xUnfetch through an
 * in-memory VFS of version 3 that maps its own buffer.
 * Rows are printed as each step returns them, with the commit hook's
 * calls: PRAGMA journal_mode=wal returns its row before the commit of
 * the header's change (which calls the commit hook), as in SQLite.
 * WAL commits on a device that is not powersafe-overwrite: padded to its
 * sector size when synced (the log's size and frame counts; pages as big
 * as the sectors: with smaller pages SQLite also writes the other pages
 * of each sector touched, which ringlite does not in WAL mode).
 * Two databases written by one transaction: the super-journal, named in
 * each database's SQLITE_FCNTL_SYNC, each database journaled, written and
 * synced in turn, then the super-journal's deletion and the journals'
 * finalization; the crash images taken just before and just after that
 * deletion, opened again: both databases rolled back, or both committed.
 * Rollback and hot-journal recovery after a cache spill wrote the
 * database: the journal opened read-only to look at, then read-write, the
 * database's SQLITE_FCNTL_SYNC before its sync, the journal deleted.
 * Statement journals: opened through the VFS once their records pass
 * 64 KiB, read back by savepoint rollbacks, closed before the journal;
 * in exclusive locking mode kept open across transactions.
 * A ROLLBACK ends the journal as a commit does (truncated under TRUNCATE,
 * its header zeroed under PERSIST, kept open in exclusive locking mode);
 * TRUNCATE or PERSIST straight to WAL deletes the journal.
 * A PRAGMA compiled first on a database with a hot journal: its notice
 * before the recovery (the statement's compile or its run rolls back).
 * SQLITE_FCNTL_BUSYHANDLER as each database file opens (t_vfs_busy.c
 * calls the handler through it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static const char *opname(int op) {
  static char b[32];
  switch (op) {
#define C(x) case SQLITE_FCNTL_##x: return #x;
    C(LOCKSTATE) C(LAST_ERRNO) C(SIZE_HINT) C(CHUNK_SIZE) C(FILE_POINTER) C(SYNC_OMITTED) C(PERSIST_WAL) C(OVERWRITE)
    C(VFSNAME) C(POWERSAFE_OVERWRITE) C(PRAGMA) C(BUSYHANDLER) C(TEMPFILENAME) C(MMAP_SIZE) C(TRACE) C(HAS_MOVED) C(SYNC)
    C(COMMIT_PHASETWO) C(WAL_BLOCK) C(VFS_POINTER) C(JOURNAL_POINTER) C(PDB) C(BEGIN_ATOMIC_WRITE) C(COMMIT_ATOMIC_WRITE)
    C(ROLLBACK_ATOMIC_WRITE) C(LOCK_TIMEOUT) C(DATA_VERSION) C(SIZE_LIMIT) C(CKPT_DONE) C(RESERVE_BYTES) C(CKPT_START)
    C(EXTERNAL_READER) C(CKSM_FILE) C(RESET_CACHE)
#undef C
  }
  snprintf(b, sizeof b, "op%d", op);
  return b;
}

/* Where SQLITE_FCNTL_PDB pointed: the connection's handle once open. */
static sqlite3 **pdb_seen;
static void check_pdb(sqlite3 *db) {
  printf("    PDB points to the connection: %s\n", pdb_seen && *pdb_seen == db ? "yes" : "no");
  pdb_seen = 0;
}
static int s_close(sqlite3_file *f) {
  if (logging) printf("    %s close\n", KIND(f));
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int s_truncate(sqlite3_file *f, sqlite3_int64 s) {
  if (logging && strcmp(KIND(f), "journal") == 0) printf("    %s truncate %lld\n", KIND(f), s);
  return REAL(f)->pMethods->xTruncate(REAL(f), s);
}
static int s_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int s_size(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int s_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int s_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int s_check(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int s_fcntl(sqlite3_file *f, int op, void *a) {
  if (logging) {
    printf("    %s fcntl %s", KIND(f), opname(op));
    if (op == SQLITE_FCNTL_PRAGMA) printf(" %s=%s", ((char **)a)[1], ((char **)a)[2] ? ((char **)a)[2] : "NULL");
    if (op == SQLITE_FCNTL_SIZE_HINT || op == SQLITE_FCNTL_MMAP_SIZE) printf(" %lld", *(sqlite3_int64 *)a);
    if (op == SQLITE_FCNTL_SYNC) printf(" %s", a ? (strrchr((char *)a, '/') ? strrchr((char *)a, '/') + 1 : (char *)a) : "NULL");
    if (op == SQLITE_FCNTL_PDB) pdb_seen = (sqlite3 **)a;
    printf("\n");
  }
  return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
/* When set: a device of 4096-byte sectors that is not powersafe-overwrite
 * (SQLite then pads each synced WAL commit to a sector boundary). */
static int no_psow;
static int s_sector(sqlite3_file *f) { return no_psow ? 4096 : REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int s_dev(sqlite3_file *f) { return no_psow ? 0 : REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int s_shm_map(sqlite3_file *f, int r, int sz, int e, void volatile **pp) { return REAL(f)->pMethods->xShmMap(REAL(f), r, sz, e, pp); }
static int s_shm_lock(sqlite3_file *f, int o, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, fl); }
static void s_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int s_shm_unmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
/* (Version 2 methods: the default VFS's mapping is not compared here.) */
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
  sf->real = (sqlite3_file *)(sf + 1);
  sf->kind = kind_of(flags);
  if (logging) printf("    open %s flags=%#x name=%s\n", sf->kind, flags, name ? "given" : "NULL");
  int rc = orig->xOpen(orig, name, sf->real, flags, out);
  sf->base.pMethods = sf->real->pMethods ? &shim_methods : 0;
  return rc;
}
/* Crash images of a two-database commit, taken when the super-journal
 * is deleted: just before (snap_super 1) or just after (2). */
static int snap_super;
#define NSNAP 5
static const char *snap_names[NSNAP] = {"n.db", "n2.db", "n.db-journal", "n2.db-journal", 0};
static char super_path[1024];
static unsigned char *snap_bytes[NSNAP];
static long snap_len[NSNAP];
static void snapshot(void) {
  for (int i = 0; i < NSNAP; i++) {
    FILE *fp = fopen(snap_names[i], "rb");
    snap_len[i] = -1;
    if (!fp) continue;
    fseek(fp, 0, SEEK_END);
    snap_len[i] = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    snap_bytes[i] = malloc(snap_len[i] + 1);
    snap_len[i] = (long)fread(snap_bytes[i], 1, snap_len[i], fp);
    fclose(fp);
  }
}
static void restore_snapshot(void) {
  for (int i = 0; i < NSNAP; i++) {
    remove(snap_names[i]);
    if (snap_len[i] < 0) continue;
    FILE *fp = fopen(snap_names[i], "wb");
    fwrite(snap_bytes[i], 1, snap_len[i], fp);
    fclose(fp);
    free(snap_bytes[i]);
    snap_bytes[i] = 0;
  }
}
static int exists(const char *name) {
  FILE *fp = fopen(name, "rb");
  if (fp) fclose(fp);
  return fp != 0;
}
static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  char buf[4096];
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
}
static int s_delete(sqlite3_vfs *v, const char *z, int d) {
  (void)v;
  const char *base = strrchr(z, '/') ? strrchr(z, '/') + 1 : z;
  if (logging) printf("    delete %s sync-dir=%d\n", base, d);
  int is_super = strstr(base, "-mj") != 0;
  if (is_super && snap_super) {
    snprintf(super_path, sizeof super_path, "%s", z);
    snap_names[4] = super_path;
    if (snap_super == 1) snapshot();
  }
  int rc = orig->xDelete(orig, z, d);
  if (is_super && snap_super == 2) snapshot();
  return rc;
}
static int n_random;
static int s_random(sqlite3_vfs *v, int n, char *out) {
  (void)v;
  if (logging) printf("    randomness %d\n", n);
  for (int i = 0; i < n; i++) out[i] = (char)(n_random * 31 + i * 7 + 1);
  n_random++;
  return n;
}
static int s_time64(sqlite3_vfs *v, sqlite3_int64 *t) {
  (void)v;
  if (logging) printf("    current time\n");
  *t = (sqlite3_int64)2451545 * 86400000 + 1000;
  return SQLITE_OK;
}

static int commits;
static int count_commit(void *arg) {
  (void)arg;
  commits++;
  return 0;
}
/* Each row is printed as its step returns it, between the VFS calls made
 * before and after; so are the commit hook's calls. */
static void run(sqlite3 *db, const char *sql) {
  printf("  %s\n", sql);
  sqlite3_commit_hook(db, count_commit, 0);
  const char *tail = sql;
  while (*tail) {
    sqlite3_stmt *st = 0;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) {
      printf("    prepare rc=%d %s\n", rc, sqlite3_errmsg(db));
      return;
    }
    if (!st) break;
    commits = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      printf("    row:");
      for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("    rc=%d %s\n", rc, sqlite3_errmsg(db));
    if (commits) printf("    commit hook: %d\n", commits);
    sqlite3_finalize(st);
  }
}

/* ---- an in-memory VFS whose files map their own buffer (version 3) ---- */
typedef struct MemFile {
  sqlite3_file base;
  unsigned char *bytes;
  sqlite3_int64 size, cap, limit;
  int outstanding;
} MemFile;
static MemFile *mem_db; /* the one database file, kept across opens */
static int n_fetch, n_fetch_mapped, n_unfetch;
static unsigned char *db_bytes;
static sqlite3_int64 db_size, db_cap;
static int m_close(sqlite3_file *f) {
  MemFile *m = (MemFile *)f;
  if (m == mem_db) {
    db_bytes = m->bytes; db_size = m->size; db_cap = m->cap;
    mem_db = 0;
  } else {
    free(m->bytes);
  }
  return SQLITE_OK;
}
static int m_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  MemFile *m = (MemFile *)f;
  if (o >= m->size) { memset(b, 0, n); return SQLITE_IOERR_SHORT_READ; }
  sqlite3_int64 have = m->size - o;
  if (have >= n) { memcpy(b, m->bytes + o, n); return SQLITE_OK; }
  memcpy(b, m->bytes + o, have);
  memset((char *)b + have, 0, n - have);
  return SQLITE_IOERR_SHORT_READ;
}
static int m_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  MemFile *m = (MemFile *)f;
  if (o + n > m->cap) {
    if (m->outstanding) return SQLITE_IOERR_WRITE; /* must not move while mapped */
    sqlite3_int64 c = (o + n) * 2 + 65536;
    unsigned char *nb = realloc(m->bytes, c);
    if (!nb) return SQLITE_IOERR_WRITE;
    memset(nb + m->cap, 0, c - m->cap);
    m->bytes = nb; m->cap = c;
  }
  memcpy(m->bytes + o, b, n);
  if (o + n > m->size) m->size = o + n;
  return SQLITE_OK;
}
static int m_truncate(sqlite3_file *f, sqlite3_int64 s) {
  MemFile *m = (MemFile *)f;
  if (s < m->size) m->size = s;
  return SQLITE_OK;
}
static int m_sync(sqlite3_file *f, int fl) { (void)f; (void)fl; return SQLITE_OK; }
static int m_size(sqlite3_file *f, sqlite3_int64 *s) { *s = ((MemFile *)f)->size; return SQLITE_OK; }
static int m_lock(sqlite3_file *f, int l) { (void)f; (void)l; return SQLITE_OK; }
static int m_check(sqlite3_file *f, int *r) { (void)f; *r = 0; return SQLITE_OK; }
static int m_fcntl(sqlite3_file *f, int op, void *a) {
  MemFile *m = (MemFile *)f;
  if (op == SQLITE_FCNTL_MMAP_SIZE) {
    sqlite3_int64 want = *(sqlite3_int64 *)a;
    if (m == mem_db) printf("    mem fcntl MMAP_SIZE %lld\n", want);
    *(sqlite3_int64 *)a = m->limit;
    if (want >= 0) m->limit = want > 1000000 ? 1000000 : want;
    return SQLITE_OK;
  }
  return SQLITE_NOTFOUND;
}
static int m_sector(sqlite3_file *f) { (void)f; return 512; }
static int m_dev(sqlite3_file *f) { (void)f; return SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_POWERSAFE_OVERWRITE; }
static int m_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) {
  MemFile *m = (MemFile *)f;
  n_fetch++;
  *pp = 0;
  if (o + n <= m->size && o + n <= m->limit) {
    *pp = m->bytes + o;
    m->outstanding++;
    n_fetch_mapped++;
  }
  return SQLITE_OK;
}
static int m_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) {
  MemFile *m = (MemFile *)f;
  (void)o;
  if (p) { m->outstanding--; n_unfetch++; }
  return SQLITE_OK;
}
static const sqlite3_io_methods mem_methods = {
  3, m_close, m_read, m_write, m_truncate, m_sync, m_size, m_lock, m_lock, m_check, m_fcntl, m_sector, m_dev,
  0, 0, 0, 0, m_fetch, m_unfetch,
};
static int m_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  MemFile *m = (MemFile *)f;
  (void)v; (void)name;
  memset(m, 0, sizeof *m);
  if (flags & SQLITE_OPEN_MAIN_DB) {
    m->bytes = db_bytes; m->size = db_size; m->cap = db_cap;
    db_bytes = 0;
    mem_db = m;
  }
  f->pMethods = &mem_methods;
  if (out) *out = flags;
  return SQLITE_OK;
}
static int m_delete(sqlite3_vfs *v, const char *name, int s) { (void)v; (void)name; (void)s; return SQLITE_OK; }
static int m_access(sqlite3_vfs *v, const char *name, int fl, int *out) { (void)v; (void)name; (void)fl; *out = 0; return SQLITE_OK; }
static int m_full(sqlite3_vfs *v, const char *name, int n, char *out) { (void)v; snprintf(out, n, "%s", name); return SQLITE_OK; }
static sqlite3_vfs memvfs = {
  1, sizeof(MemFile), 256, 0, "mapmem", 0, m_open, m_delete, m_access, m_full, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "notices";
  shim.szOsFile = (int)sizeof(ShimFile) + orig->szOsFile;
  shim.xOpen = s_open;
  shim.xDelete = s_delete;
  shim.xRandomness = s_random;
  shim.xCurrentTimeInt64 = s_time64;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 1);
  /* The process's generator seeds from the default VFS at its next use. */
  sqlite3_randomness(0, 0);

  sqlite3 *db;
  remove("n.db"); remove("n.db-journal"); remove("n.db-wal");
  printf("rollback journal:\n  open\n");
  sqlite3_open("n.db", &db);
  check_pdb(db);
  run(db, "SELECT random(), hex(randomblob(12))");
  run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE)");
  run(db, "INSERT INTO t VALUES(1, 'x')");
  run(db, "BEGIN; INSERT INTO t VALUES(2, 'y'); UPDATE t SET b = b || 'z'; COMMIT");
  run(db, "INSERT INTO t VALUES(9223372036854775807, 'max'); INSERT INTO t(b) VALUES('random rowid')");
  run(db, "SELECT a FROM t WHERE b = 'random rowid'");
  run(db, "SELECT random()");
  run(db, "PRAGMA no_such_pragma");
  run(db, "PRAGMA user_version = 3");
  run(db, "PRAGMA main.user_version");
  run(db, "SELECT date('now'), time('now')");
  run(db, "PRAGMA journal_mode = truncate");
  run(db, "INSERT INTO t VALUES(3, 'w')");
  run(db, "BEGIN; INSERT INTO t VALUES(4, 'v'); ROLLBACK");
  run(db, "BEGIN; SELECT count(*) FROM t; ROLLBACK");
  run(db, "PRAGMA journal_mode = persist");
  run(db, "BEGIN; INSERT INTO t VALUES(5, 'u'); ROLLBACK");
  run(db, "INSERT INTO t VALUES(6, 'u')");
  run(db, "PRAGMA journal_mode = delete");
  run(db, "PRAGMA locking_mode = exclusive");
  run(db, "BEGIN; INSERT INTO t VALUES(7, 't'); ROLLBACK");
  run(db, "INSERT INTO t VALUES(8, 't')");
  run(db, "BEGIN; INSERT INTO t VALUES(9, 's'); ROLLBACK");
  run(db, "SELECT group_concat(a) FROM t");
  printf("  close\n");
  sqlite3_close(db);

  /* Into WAL mode straight from TRUNCATE or PERSIST: the header's
   * transaction deletes the journal left in place; and back. */
  remove("n.db"); remove("n.db-journal");
  printf("TRUNCATE and PERSIST to WAL and back:\n  open\n");
  sqlite3_open("n.db", &db);
  run(db, "PRAGMA journal_mode = truncate");
  run(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1)");
  run(db, "PRAGMA journal_mode = wal");
  run(db, "INSERT INTO t VALUES(2)");
  run(db, "PRAGMA journal_mode = persist");
  run(db, "INSERT INTO t VALUES(3)");
  run(db, "PRAGMA journal_mode = wal");
  run(db, "INSERT INTO t VALUES(4)");
  run(db, "PRAGMA journal_mode = truncate");
  run(db, "INSERT INTO t VALUES(5)");
  run(db, "SELECT group_concat(a) FROM t");
  printf("  close\n");
  sqlite3_close(db);

  remove("n.db"); remove("n.db-journal"); remove("n.db-wal");
  printf("WAL:\n  open\n");
  sqlite3_open("n.db", &db);
  check_pdb(db);
  run(db, "PRAGMA journal_mode = wal");
  run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE)");
  run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) INSERT INTO t SELECT x, hex(randomblob(30)) FROM c");
  run(db, "SELECT count(*), sum(length(b)) FROM t");
  run(db, "PRAGMA wal_checkpoint");
  run(db, "INSERT INTO t VALUES(100, 'after')");
  run(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  printf("  close\n");
  sqlite3_close(db);

  remove("n.db"); remove("n.db-wal");
  printf("sorter spill:\n  open\n");
  sqlite3_open("n.db", &db);
  check_pdb(db);
  run(db, "PRAGMA cache_size = 2");
  /* (Rows of 50 random bytes: past the sorter's 250 pages, under the 2000
   * KiB of a transient table, into which ringlite copies the subquery's
   * rows where SQLite runs it as a co-routine: see t_vfs_transient.c.) */
  run(db, "SELECT count(*), min(r) < max(r) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT x, randomblob(50) r FROM c ORDER BY r)");
  printf("  close\n");
  sqlite3_close(db);
  remove("n.db");

  /* A transaction writing two databases: a super-journal, named in each
   * journal and in each database's SQLITE_FCNTL_SYNC, deleted (with a
   * directory sync) before the journals. Then the crash images taken
   * just before and just after that deletion: rolled back both, or
   * committed both. */
  for (int crash = 0; crash <= 2; crash++) {
    remove("n.db"); remove("n.db-journal"); remove("n2.db"); remove("n2.db-journal");
    printf("two databases, one transaction%s:\n  open\n", crash == 0 ? "" : crash == 1 ? " (crash before the super-journal's deletion)" : " (crash after it)");
    logging = crash == 0;
    /* (The super-journal's name is drawn from the generator: reseeded
     * here from the fixed bytes, so the names are SQLite's.) */
    n_random = 0;
    sqlite3_randomness(0, 0);
    sqlite3_open("n.db", &db);
    run(db, "ATTACH 'n2.db' AS aux");
    run(db, "CREATE TABLE t(a); CREATE TABLE aux.u(b); INSERT INTO t VALUES(1); INSERT INTO u VALUES(1)");
    snap_super = crash;
    run(db, "BEGIN; INSERT INTO t VALUES(2); INSERT INTO u VALUES(2); COMMIT");
    snap_super = 0;
    run(db, "BEGIN; INSERT INTO u VALUES(20); INSERT INTO t VALUES(20); COMMIT");
    run(db, "PRAGMA aux.journal_mode = truncate");
    run(db, "BEGIN; INSERT INTO t VALUES(3); INSERT INTO u VALUES(3); COMMIT");
    run(db, "PRAGMA aux.journal_mode = delete");
    run(db, "PRAGMA aux.journal_mode = wal");
    run(db, "BEGIN; INSERT INTO t VALUES(4); INSERT INTO u VALUES(4); COMMIT");
    run(db, "PRAGMA aux.journal_mode = delete");
    run(db, "PRAGMA aux.synchronous = off");
    run(db, "BEGIN; INSERT INTO t VALUES(5); INSERT INTO u VALUES(5); COMMIT");
    printf("  close\n");
    sqlite3_close(db);
    logging = 0;
    if (crash) {
      restore_snapshot();
      printf("    after the crash: super-journal %s, journals %d %d\n", exists(super_path) ? "there" : "gone", exists("n.db-journal"), exists("n2.db-journal"));
      logging = 1;
      sqlite3_open("n.db", &db);
      run(db, "SELECT group_concat(a) FROM t");
      printf("    super-journal %s\n", exists(super_path) ? "kept" : "gone");
      run(db, "ATTACH 'n2.db' AS aux");
      run(db, "SELECT group_concat(b) FROM u");
      printf("    super-journal %s, journals %d %d\n", exists(super_path) ? "kept" : "gone", exists("n.db-journal"), exists("n2.db-journal"));
      run(db, "PRAGMA integrity_check; PRAGMA aux.integrity_check");
      printf("  close\n");
      sqlite3_close(db);
      logging = 0;
    }
  }
  logging = 1;
  remove("n.db"); remove("n.db-journal"); remove("n2.db"); remove("n2.db-journal"); remove("n2.db-wal");

  /* A cache spill writes the database before the commit: ROLLBACK puts
   * the originals back; a copy of the files taken then has a hot journal,
   * rolled back by the next connection to read it. (The spills themselves
   * are not logged.) */
  const char *recover_modes[] = {"delete"};
  for (int m = 0; m < 1; m++) {
    remove("n.db"); remove("n.db-journal"); remove("h.db"); remove("h.db-journal");
    printf("rollback and recovery after a spill, journal_mode=%s:\n  open\n", recover_modes[m]);
    sqlite3_open("n.db", &db);
    char sql[100];
    snprintf(sql, sizeof sql, "PRAGMA journal_mode = %s", recover_modes[m]);
    logging = 0;
    run(db, sql);
    run(db, "PRAGMA cache_size = 4");
    run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)");
    run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO t SELECT x, printf('%.100c', 'r') FROM c");
    run(db, "BEGIN; UPDATE t SET b = printf('%.90c', 's')");
    copy_file("n.db", "h.db");
    copy_file("n.db-journal", "h.db-journal");
    copy_file("n.db", "hp.db");
    copy_file("n.db-journal", "hp.db-journal");
    copy_file("n.db", "hq.db");
    copy_file("n.db-journal", "hq.db-journal");
    run(db, "INSERT INTO t SELECT a + 10000, b FROM t");
    logging = 1;
    run(db, "ROLLBACK");
    run(db, "SELECT count(*), sum(length(b)) FROM t");
    printf("  close\n");
    sqlite3_close(db);
    printf("  open the copy\n");
    sqlite3_open("h.db", &db);
    run(db, "SELECT count(*), sum(length(b)) FROM t");
    printf("    journal %s\n", exists("h.db-journal") ? "kept" : "gone");
    run(db, "PRAGMA integrity_check");
    printf("  close\n");
    sqlite3_close(db);
    /* A PRAGMA first: its notice comes before the recovery, whether its
     * compile reads the schema (integrity_check) or not (user_version,
     * whose statement recovers as it runs). */
    printf("  open the second copy, a PRAGMA reading the schema first\n");
    sqlite3_open("hp.db", &db);
    run(db, "PRAGMA integrity_check");
    printf("    journal %s\n", exists("hp.db-journal") ? "kept" : "gone");
    run(db, "SELECT count(*), sum(length(b)) FROM t");
    printf("  close\n");
    sqlite3_close(db);
    printf("  open the third copy, a PRAGMA not reading the schema first\n");
    sqlite3_open("hq.db", &db);
    run(db, "PRAGMA user_version");
    printf("    journal %s\n", exists("hq.db-journal") ? "kept" : "gone");
    run(db, "SELECT count(*), sum(length(b)) FROM t");
    printf("  close\n");
    sqlite3_close(db);
  }
  remove("n.db"); remove("n.db-journal"); remove("h.db"); remove("h.db-journal");
  remove("hp.db"); remove("hp.db-journal"); remove("hq.db"); remove("hq.db-journal");

  /* Statement journals: a statement changing pages an earlier statement
   * of the transaction changed records them; past 64 KiB of records
   * SQLite opens its statement journal through the VFS (no name), keeps
   * it to the end of the transaction and closes it before the journal.
   * A savepoint rolled back reads its pages back from there. In memory
   * with temp_store=MEMORY; in WAL mode every page a savepoint needs is
   * recorded. */
  const char *stmt_modes[] = {"delete", "wal", "memory-temp-store"};
  for (int m = 0; m < 3; m++) {
    remove("n.db"); remove("n.db-journal"); remove("n.db-wal");
    printf("statement journal, %s:\n  open\n", stmt_modes[m]);
    sqlite3_open("n.db", &db);
    logging = 0;
    if (m == 1) run(db, "PRAGMA journal_mode = wal");
    if (m == 2) run(db, "PRAGMA temp_store = memory");
    run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b NOT NULL)");
    run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO t SELECT x, printf('%.100c', 'a') FROM c");
    logging = 1;
    run(db, "BEGIN");
    run(db, "UPDATE t SET b = printf('%.100c', 'b')");
    run(db, "UPDATE t SET b = printf('%.100c', 'c') WHERE a <= 100");
    run(db, "UPDATE t SET b = printf('%.100c', 'd')");
    run(db, "SAVEPOINT s");
    run(db, "UPDATE t SET b = printf('%.100c', 'e')");
    run(db, "UPDATE t SET b = CASE a WHEN 5 THEN 'x' ELSE b END");
    run(db, "ROLLBACK TO s");
    run(db, "SELECT count(*), sum(b LIKE 'd%'), sum(b LIKE 'e%') FROM t");
    run(db, "RELEASE s");
    run(db, "UPDATE t SET b = CASE a WHEN 2000 THEN NULL ELSE 'short' END WHERE a >= 1000");
    run(db, "SELECT count(*), sum(b LIKE 'd%') FROM t");
    run(db, "UPDATE t SET b = 'short' WHERE a = 7");
    run(db, "COMMIT");
    run(db, "SELECT count(*), sum(b LIKE 'd%'), sum(b = 'short') FROM t");
    run(db, "PRAGMA integrity_check");
    printf("  close\n");
    sqlite3_close(db);
  }
  remove("n.db"); remove("n.db-journal"); remove("n.db-wal");

  /* In exclusive locking mode the statement journal's file, once opened,
   * stays open across transactions (and the rollback journal too: no
   * SQLITE_FCNTL_HAS_MOVED before each), until a transaction ends in
   * normal mode or the connection closes. */
  const char *excl_modes[] = {"delete", "wal"};
  for (int m = 0; m < 2; m++) {
    remove("n.db"); remove("n.db-journal"); remove("n.db-wal");
    printf("exclusive locking mode, statement journal, %s:\n  open\n", excl_modes[m]);
    sqlite3_open("n.db", &db);
    logging = 0;
    if (m == 1) run(db, "PRAGMA journal_mode = wal");
    logging = 1;
    run(db, "PRAGMA locking_mode = exclusive");
    logging = 0;
    run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b NOT NULL)");
    run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO t SELECT x, printf('%.100c', 'a') FROM c");
    logging = 1;
    for (int i = 0; i < 2; i++) {
      run(db, "BEGIN");
      run(db, "UPDATE t SET b = printf('%.100c', 'b')");
      run(db, "UPDATE t SET b = printf('%.100c', 'c')");
      run(db, "SAVEPOINT s; UPDATE t SET b = printf('%.100c', 'e'); ROLLBACK TO s; RELEASE s");
      run(db, "COMMIT");
      run(db, "SELECT count(*), sum(b LIKE 'c%') FROM t");
    }
    run(db, "PRAGMA locking_mode = normal");
    run(db, "BEGIN; UPDATE t SET b = printf('%.100c', 'd'); UPDATE t SET b = printf('%.100c', 'e'); COMMIT");
    run(db, "BEGIN; UPDATE t SET b = printf('%.100c', 'f'); UPDATE t SET b = printf('%.100c', 'g'); COMMIT");
    run(db, "PRAGMA locking_mode = exclusive");
    run(db, "BEGIN; UPDATE t SET b = printf('%.100c', 'h'); UPDATE t SET b = printf('%.100c', 'i'); COMMIT");
    run(db, "SELECT count(*), sum(b LIKE 'i%') FROM t");
    run(db, "PRAGMA integrity_check");
    printf("  close\n");
    sqlite3_close(db);
  }
  remove("n.db"); remove("n.db-journal"); remove("n.db-wal");

  /* WAL commits padded to the sector size, when synced. */
  logging = 0;
  no_psow = 1;
  const char *syncs[] = {"FULL", "NORMAL"};
  for (int i = 0; i < 2; i++) {
    remove("p.db"); remove("p.db-wal");
    printf("WAL on a 4096-byte-sector device, not powersafe-overwrite, synchronous=%s:\n", syncs[i]);
    sqlite3_open("p.db", &db);
    char sql[100];
    snprintf(sql, sizeof sql, "PRAGMA synchronous = %s", syncs[i]);
    run(db, sql);
    run(db, "PRAGMA page_size = 4096");
    run(db, "PRAGMA journal_mode = wal");
    run(db, "PRAGMA wal_autocheckpoint = 0");
    run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)");
    run(db, "INSERT INTO t VALUES(1, zeroblob(100))");
    run(db, "INSERT INTO t VALUES(2, zeroblob(3000))");
    run(db, "BEGIN; INSERT INTO t VALUES(3, 'x'); INSERT INTO t VALUES(4, zeroblob(5000)); COMMIT");
    FILE *w = fopen("p.db-wal", "rb");
    long n = -1;
    if (w) { fseek(w, 0, SEEK_END); n = ftell(w); fclose(w); }
    printf("    wal bytes: %ld\n", n);
    sqlite3 *db2;
    sqlite3_open("p.db", &db2);
    run(db2, "SELECT count(*), sum(length(b)) FROM t");
    sqlite3_close(db2);
    run(db, "PRAGMA wal_checkpoint");
    run(db, "PRAGMA integrity_check");
    sqlite3_close(db);
  }
  no_psow = 0;
  remove("p.db"); remove("p.db-wal");

  /* PRAGMA mmap_size and page reads through xFetch. */
  logging = 0;
  sqlite3_vfs_register(&memvfs, 0);
  printf("mapped in-memory VFS:\n");
  sqlite3_open_v2("m.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "mapmem");
  run(db, "PRAGMA mmap_size");
  run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)");
  run(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400) INSERT INTO t SELECT x, printf('%.200c', 'm') FROM c");
  run(db, "PRAGMA mmap_size = 500000");
  run(db, "PRAGMA mmap_size");
  run(db, "PRAGMA mmap_size = 5000000");
  run(db, "PRAGMA temp.mmap_size");
  sqlite3_close(db);
  n_fetch = n_fetch_mapped = n_unfetch = 0;
  sqlite3_open_v2("m.db", &db, SQLITE_OPEN_READWRITE, "mapmem");
  run(db, "PRAGMA mmap_size = 500000");
  run(db, "SELECT count(*), sum(length(b)), sum(a) FROM t");
  printf("  fetched pages: %s, all unfetched: %s\n", n_fetch_mapped > 0 ? "yes" : "no", n_unfetch == n_fetch_mapped ? "yes" : "no");
  run(db, "UPDATE t SET b = 'short' WHERE a % 2 = 0");
  run(db, "SELECT count(*), sum(length(b)) FROM t");
  run(db, "PRAGMA integrity_check");
  run(db, "PRAGMA mmap_size = 0");
  n_fetch = 0;
  run(db, "SELECT count(*) FROM t WHERE b = 'short'");
  printf("  xFetch calls with mmap_size 0: %d\n", n_fetch);
  sqlite3_close(db);
  free(db_bytes);
  sqlite3_vfs_unregister(&memvfs);
  sqlite3_vfs_unregister(&shim);
  return 0;
}
