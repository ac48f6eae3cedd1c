/* sqlite3_system_errno: the OS error number behind a connection's last
** SQLITE_CANTOPEN or SQLITE_IOERR (a file that is not there, a directory
** that is not one, a database that is a directory), kept across later
** errors of other kinds, 0 on a connection that never had one and for
** NULL; and the default VFS's xGetLastError, which answers the thread's
** errno. mattn/go-sqlite3 reports it with every such error (its
** TestError_SystemErrno expects ENOENT for a read-only open of a missing
** file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite3.h"
static char dir[] = "/tmp/t_system_errno.XXXXXX";
static void try_open(const char *name, int flags) {
  sqlite3 *db = 0;
  int rc = sqlite3_open_v2(name, &db, flags, 0);
  printf("open %s: rc=%d errcode=%d system_errno=%d (%s)\n", name + strlen(dir), rc, sqlite3_extended_errcode(db),
         sqlite3_system_errno(db), sqlite3_system_errno(db) ? strerror(sqlite3_system_errno(db)) : "-");
  if (rc == SQLITE_OK) {
    int r = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", 0, 0, 0);
    printf("  read: rc=%d errcode=%d system_errno=%d\n", r, sqlite3_extended_errcode(db), sqlite3_system_errno(db));
    r = sqlite3_exec(db, "SELECT * FROM nosuchtable", 0, 0, 0);
    printf("  then an SQL error: rc=%d system_errno=%d\n", r, sqlite3_system_errno(db));
  }
  if (rc == SQLITE_OK && (flags & SQLITE_OPEN_URI)) {
    char sql[300];
    snprintf(sql, sizeof sql, "ATTACH 'file:%s/missing2.db?mode=ro' AS aux", dir);
    int r = sqlite3_exec(db, sql, 0, 0, 0);
    printf("  ATTACH of a missing file read-only: rc=%d system_errno=%d\n", r, sqlite3_system_errno(db));
    r = sqlite3_exec(db, "SELECT * FROM nosuchtable", 0, 0, 0);
    printf("  then an SQL error: rc=%d system_errno=%d\n", r, sqlite3_system_errno(db));
    r = sqlite3_exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1)", 0, 0, 0);
    printf("  then success: rc=%d system_errno=%d\n", r, sqlite3_system_errno(db));
  }
  sqlite3_close(db);
}
int main(void) {
  char path[256];
  if (!mkdtemp(dir)) return 1;
  printf("NULL: %d\n", sqlite3_system_errno(0));
  snprintf(path, sizeof path, "%s/missing.db", dir);
  try_open(path, SQLITE_OPEN_READONLY);
  snprintf(path, sizeof path, "%s/no/such/dir.db", dir);
  try_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  snprintf(path, sizeof path, "%s/plain", dir);
  FILE *f = fopen(path, "w"); if (f) fclose(f);
  snprintf(path, sizeof path, "%s/plain/x.db", dir);
  try_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  snprintf(path, sizeof path, "%s/adir", dir);
  mkdir(path, 0700);
  try_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  snprintf(path, sizeof path, "%s/good.db", dir);
  try_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI);
  sqlite3_vfs *vfs = sqlite3_vfs_find(0);
  errno = EACCES;
  printf("xGetLastError after errno=EACCES: %d\n", vfs && vfs->xGetLastError ? vfs->xGetLastError(vfs, 0, 0) : -1);
  char cmd[300]; snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}
