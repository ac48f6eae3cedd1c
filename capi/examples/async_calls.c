/* Which calls besides sqlite3_step do I/O on an async connection, and what
 * they promise (see SQLITE_OPEN_ASYNC in sqlite3.h): only sqlite3_step
 * answers SQLITE_IO; open, prepare, exec, get_table, table_column_metadata,
 * reset, finalize and close complete whatever I/O they need before they
 * return, so code written for SQLite keeps working on an async connection
 * it only uses through those. Each check starts from a cold cache.
 *
 * Build: cc -Ibuild/include async_calls.c -Lbuild/lib -lsqlite3
 */
#include "tenants.h"

static sqlite3 *cold(const char *path) {
  sqlite3 *db;
  CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_ASYNC, 0) == SQLITE_OK);
  return db;
}

static int count_cb(void *arg, int n, char **values, char **names) {
  (void)n; (void)names;
  *(long long *)arg = atoll(values[0]);
  return 0;
}

int main(void) {
  char dir[256], path[300];
  make_temp_dir(dir, sizeof dir, "async_calls");
  create_tenant_db(dir, 0, path, sizeof path); /* items: 3000 rows */

  /* exec: every statement runs to its end, with its I/O, inside the call. */
  sqlite3 *db = cold(path);
  int uring = backend_is_uring(db);
  CHECK(sqlite3_exec(db, "UPDATE items SET v = 0 WHERE id % 2 = 0; INSERT INTO items(v, pad) SELECT 1, pad FROM items WHERE id <= 100;", 0, 0, 0) == SQLITE_OK);
  CHECK(sqlite3_changes(db) == 100);
  CHECK(sqlite3_close(db) == SQLITE_OK);
  db = cold(path);
  long long n = -1;
  CHECK(sqlite3_exec(db, "SELECT count(*) FROM items WHERE v = 0 AND id % 2 = 0", count_cb, &n, 0) == SQLITE_OK);
  CHECK(n == 1500);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  /* get_table. */
  db = cold(path);
  char **table;
  int rows, cols;
  CHECK(sqlite3_get_table(db, "SELECT id FROM items WHERE id > 3095 ORDER BY id", &table, &rows, &cols, 0) == SQLITE_OK);
  CHECK(rows == 5 && cols == 1 && strcmp(table[1], "3096") == 0 && strcmp(table[5], "3100") == 0);
  sqlite3_free_table(table);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  /* table_column_metadata reads the schema. */
  db = cold(path);
  const char *type, *coll;
  int notnull, pk, autoinc;
  CHECK(sqlite3_table_column_metadata(db, "main", "items", "id", &type, &coll, &notnull, &pk, &autoinc) == SQLITE_OK);
  CHECK(pk == 1 && strcmp(type, "INTEGER") == 0);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  /* A statement suspended in the middle of a scan: reset, then the next run
   * starts over and sees every row once; finalize of a suspended statement
   * and close afterwards succeed. */
  db = cold(path);
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, "SELECT id FROM items", -1, &st, 0) == SQLITE_OK);
  int rc, ios = 0;
  long long seen = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW || rc == SQLITE_IO) {
    if (rc == SQLITE_IO) { ios++; if (seen > 50) break; CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK); }
    else seen++;
  }
  CHECK(uring ? rc == SQLITE_IO : rc == SQLITE_DONE);
  CHECK(sqlite3_reset(st) == SQLITE_OK);
  seen = 0;
  long long last = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW || rc == SQLITE_IO) {
    if (rc == SQLITE_IO) { CHECK(sqlite3_io_poll(db, -1) == SQLITE_OK); continue; }
    CHECK(sqlite3_column_int64(st, 0) == last + 1);
    last++;
    seen++;
  }
  CHECK(rc == SQLITE_DONE && seen == 3100);
  CHECK(sqlite3_reset(st) == SQLITE_OK);
  rc = sqlite3_step(st);
  CHECK(rc == SQLITE_ROW || rc == SQLITE_IO);
  CHECK(sqlite3_finalize(st) == SQLITE_OK);
  CHECK(sqlite3_close(db) == SQLITE_OK);

  printf("async_calls: exec, get_table, table_column_metadata, reset, finalize, close complete their own I/O (%s): OK\n",
         uring ? "io_uring" : "sync fallback");
  remove_temp_dir(dir);
  return 0;
}
