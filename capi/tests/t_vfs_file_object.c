/* sqlite3_database_file_object: a VFS wrapping the default one asks, in
 * its xOpen of each journal and WAL (and of the database itself), for the
 * database file object of the name it was given, as SQLite's own VFS
 * shims do to reach the database file from its journal. It must be the
 * sqlite3_file the database's xOpen was handed, from the start of that
 * xOpen on. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_vfs *orig;
static sqlite3_vfs shim;
static sqlite3_file *db_file;

static const char *kind_of(int fl) {
  if (fl & SQLITE_OPEN_MAIN_DB) return "db";
  if (fl & SQLITE_OPEN_MAIN_JOURNAL) return "journal";
  if (fl & SQLITE_OPEN_WAL) return "wal";
  return 0;
}
static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  (void)v;
  const char *kind = kind_of(flags);
  if (kind && name) {
    if (flags & SQLITE_OPEN_MAIN_DB) db_file = f;
    sqlite3_file *o = sqlite3_database_file_object(name);
    const char *base = strrchr(sqlite3_filename_database(name), '/');
    printf("  open %s of %s: database file object %s\n", kind, base ? base + 1 : "?",
           o == db_file ? "is the database's" : o ? "is another file" : "NULL");
  }
  return orig->xOpen(orig, name, f, flags, out);
}

static void run(sqlite3 *db, const char *sql) {
  char *err = 0;
  if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) printf("  error: %s\n", err);
  sqlite3_free(err);
}

int main(void) {
  orig = sqlite3_vfs_find(0);
  shim = *orig;
  shim.zName = "fileobject";
  shim.xOpen = s_open;
  shim.pNext = 0;
  sqlite3_vfs_register(&shim, 1);
  remove("fo.db");
  remove("fo.db-wal");
  sqlite3 *db;
  printf("rollback journal:\n");
  sqlite3_open("fo.db", &db);
  run(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)");
  printf("WAL:\n");
  run(db, "PRAGMA journal_mode = WAL; INSERT INTO t VALUES(2)");
  sqlite3_close(db);
  remove("fo.db");
  remove("fo.db-wal");
  remove("fo.db-shm");
  sqlite3_vfs_unregister(&shim);
  return 0;
}
