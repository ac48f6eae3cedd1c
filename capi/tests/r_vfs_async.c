/* ringlite only: an SQLITE_OPEN_ASYNC connection opened through an
 * application VFS. Such a VFS is synchronous, so its calls block inside
 * sqlite3_step, which then never answers SQLITE_IO; results are those of
 * a blocking connection, and every file operation went through the VFS. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "r_vfs_async: %s failed at line %d\n", #c, __LINE__); return 1; } } while (0)

static sqlite3_vfs *base;
static sqlite3_vfs counting;
static int opens, reads;
static const sqlite3_io_methods *base_methods;
static sqlite3_io_methods counting_methods;

static int c_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { reads++; return base_methods->xRead(f, b, n, o); }

/* The wrapper keeps the base file's layout: it only swaps in a methods
 * table whose xRead counts, everything else being the base's. */
static int c_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out) {
  (void)v;
  opens++;
  int rc = base->xOpen(base, name, f, flags, out);
  if (f->pMethods) {
    base_methods = f->pMethods;
    counting_methods = *f->pMethods;
    counting_methods.xRead = c_read;
    f->pMethods = &counting_methods;
  }
  return rc;
}

int main(void) {
  base = sqlite3_vfs_find("unix");
  CHECK(base != 0);
  counting = *base;
  counting.zName = "counting";
  counting.xOpen = c_open;
  CHECK(sqlite3_vfs_register(&counting, 0) == SQLITE_OK);
  const char *path = "r_vfs_async.db";
  remove(path);
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_ASYNC, "counting") == SQLITE_OK);
  CHECK(sqlite3_exec(db, "CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<2000) INSERT INTO t SELECT randomblob(100) FROM c", 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, "counting") == SQLITE_OK);
  reads = 0;
  sqlite3_stmt *s;
  CHECK(sqlite3_prepare_v2(db, "SELECT count(*), sum(length(x)) FROM t", -1, &s, 0) == SQLITE_OK);
  int rc = sqlite3_step(s);
  CHECK(rc == SQLITE_ROW); /* never SQLITE_IO: the VFS's calls block */
  CHECK(sqlite3_column_int(s, 0) == 2000 && sqlite3_column_int(s, 1) == 200000);
  CHECK(sqlite3_step(s) == SQLITE_DONE);
  sqlite3_finalize(s);
  CHECK(reads > 10);
  CHECK(opens >= 2);
  CHECK(sqlite3_io_poll(db, 0) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);
  CHECK(sqlite3_vfs_unregister(&counting) == SQLITE_OK);
  remove(path);
  printf("r_vfs_async: ok\n");
  return 0;
}
