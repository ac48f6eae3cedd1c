/* What a connection asks of its application VFS besides file I/O: the
 * busy timeout sleeps through xSleep (on SQLite's schedule), 'now' comes
 * from xCurrentTimeInt64, and a database file that xOpen opened read-only
 * (SQLITE_OPEN_READONLY in its output flags, though read-write was asked)
 * makes the database read-only. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs svc;
static int force_read_only;
static int sleeps[64], n_sleeps;

static int v_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  (void)v;
  if (force_read_only && (flags & SQLITE_OPEN_MAIN_DB)) {
    int rc = orig->xOpen(orig, name, f, (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY, out);
    if (out) *out = SQLITE_OPEN_READONLY;
    return rc;
  }
  return orig->xOpen(orig, name, f, flags, out);
}
static int v_delete(sqlite3_vfs *v, const char *z, int d) { (void)v; return orig->xDelete(orig, z, d); }
static int v_access(sqlite3_vfs *v, const char *z, int fl, int *r) { (void)v; return orig->xAccess(orig, z, fl, r); }
static int v_full(sqlite3_vfs *v, const char *z, int n, char *o) { (void)v; return orig->xFullPathname(orig, z, n, o); }
static int v_sleep(sqlite3_vfs *v, int us) {
  (void)v;
  if (n_sleeps < 64) sleeps[n_sleeps++] = us;
  return orig->xSleep(orig, us);
}
/* 2000-01-01 12:00:00.250 as a Julian day in milliseconds. */
static int v_time64(sqlite3_vfs *v, sqlite3_int64 *t) {
  (void)v;
  *t = (sqlite3_int64)2451545 * 86400000 + 250;
  return SQLITE_OK;
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  printf("  [%s] rc=%d%s%s\n", sql, rc, err ? " " : "", err ? err : "");
  sqlite3_free(err);
}

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) {
    printf("  prepare [%s]: %s\n", sql, sqlite3_errmsg(db));
    return;
  }
  printf("  %s ->", sql);
  while (sqlite3_step(st) == SQLITE_ROW)
    for (int i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
  printf("\n");
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *a, *b;
  orig = sqlite3_vfs_find(0);
  svc = *orig;
  svc.zName = "svc";
  svc.iVersion = 2;
  svc.xOpen = v_open;
  svc.xDelete = v_delete;
  svc.xAccess = v_access;
  svc.xFullPathname = v_full;
  svc.xSleep = v_sleep;
  svc.xCurrentTimeInt64 = v_time64;
  sqlite3_vfs_register(&svc, 0);
  remove("svc.db");
  remove("svc.db-journal");

  printf("busy timeout sleeps through xSleep\n");
  sqlite3_open_v2("svc.db", &a, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "svc");
  sqlite3_open_v2("svc.db", &b, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "svc");
  exec(a, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  exec(a, "BEGIN IMMEDIATE; INSERT INTO t VALUES(2);");
  sqlite3_busy_timeout(b, 60);
  n_sleeps = 0;
  exec(b, "INSERT INTO t VALUES(3)");
  printf("  sleeps:");
  for (int i = 0; i < n_sleeps; i++) printf(" %d", sleeps[i]);
  printf("\n");
  sqlite3_busy_timeout(b, 1000);
  n_sleeps = 0;
  exec(a, "COMMIT");
  exec(b, "INSERT INTO t VALUES(3)");
  printf("  sleeps after commit: %d\n", n_sleeps);

  printf("'now' from xCurrentTimeInt64\n");
  show(b, "SELECT datetime('now'), strftime('%f', 'now'), julianday('now') * 86400000 - 211813488000000, unixepoch('now')");
  sqlite3_close(a);
  sqlite3_close(b);

  printf("xOpen answering read-only\n");
  force_read_only = 1;
  sqlite3_open_v2("svc.db", &a, SQLITE_OPEN_READWRITE, "svc");
  printf("  db_readonly=%d\n", sqlite3_db_readonly(a, "main"));
  show(a, "SELECT count(*) FROM t");
  exec(a, "INSERT INTO t VALUES(4)");
  printf("  extended=%d\n", sqlite3_extended_errcode(a));
  exec(a, "CREATE TABLE u(y)");
  show(a, "SELECT count(*) FROM t");
  sqlite3_close(a);
  force_read_only = 0;
  remove("svc.db");
  remove("svc.db-journal");
  return 0;
}
