/* Incremental blob I/O: reads and writes inside one value (also across
   overflow pages), reopen, the open errors, range errors, read-only
   handles, and a handle expired by an UPDATE of its row; zero-blobs
   bound (sqlite3_bind_zeroblob), returned by a function
   (sqlite3_result_zeroblob) and written into through a handle. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int cb(void *tag, int n, char **v, char **names) {
  int i;
  printf("%s:", (const char *)tag);
  for (i = 0; i < n; i++) printf(" %s=%s", names[i], v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void q(sqlite3 *db, const char *sql) {
  char *err = 0;
  if (sqlite3_exec(db, sql, cb, "row", &err)) printf("exec error: %s\n", err);
  sqlite3_free(err);
}

static void try_open(sqlite3 *db, const char *table, const char *col, sqlite3_int64 row, int flags) {
  sqlite3_blob *b = (sqlite3_blob *)1;
  int rc = sqlite3_blob_open(db, "main", table, col, row, flags, &b);
  printf("open %s.%s row %lld flags %d: rc=%d blob=%s msg=%s\n", table, col, (long long)row, flags, rc,
         b ? "set" : "NULL", rc ? sqlite3_errmsg(db) : "-");
  if (b) sqlite3_blob_close(b);
}

static void zeros_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_zeroblob(ctx, sqlite3_value_int(argv[0]));
}

/* A 3 MB zero-blob bound to an INSERT, written into in place through a
   handle (at the start, across page edges, far in the overflow chain),
   read back, and checked by SQL; and a function's zero-blob result. */
static void zeroblob_section(sqlite3 *db) {
  sqlite3_stmt *st;
  sqlite3_blob *b;
  unsigned char buf[64];
  int rc, i;
  q(db, "CREATE TABLE z(id INTEGER PRIMARY KEY, v BLOB, w)");
  sqlite3_prepare_v2(db, "INSERT INTO z VALUES(?1, ?2, ?3)", -1, &st, 0);
  sqlite3_bind_int(st, 1, 1);
  sqlite3_bind_zeroblob(st, 2, 3000000);
  sqlite3_bind_zeroblob64(st, 3, 10);
  printf("insert bound zeroblob: rc=%d\n", sqlite3_step(st));
  sqlite3_finalize(st);
  rc = sqlite3_blob_open(db, "main", "z", "v", 1, 1, &b);
  printf("open zeroblob: rc=%d bytes=%d\n", rc, sqlite3_blob_bytes(b));
  for (i = 0; i < 40; i++) buf[i] = 'a' + i % 26;
  printf("write head: %d\n", sqlite3_blob_write(b, buf, 5, 0));
  printf("write across a page edge: %d\n", sqlite3_blob_write(b, buf, 40, 4080));
  printf("write far: %d\n", sqlite3_blob_write(b, buf, 26, 2500000));
  printf("write at the end: %d\n", sqlite3_blob_write(b, buf, 3, 2999997));
  printf("write past the end: %d\n", sqlite3_blob_write(b, buf, 4, 2999997));
  memset(buf, 0xee, sizeof buf);
  rc = sqlite3_blob_read(b, buf, 44, 4078);
  printf("read back: rc=%d %d %d %.40s %d %d\n", rc, buf[0], buf[1], (char *)buf + 2, buf[42], buf[43]);
  rc = sqlite3_blob_read(b, buf, 30, 2499998);
  printf("read far: rc=%d %d %d %.26s %d %d\n", rc, buf[0], buf[1], (char *)buf + 2, buf[28], buf[29]);
  printf("close: %d\n", sqlite3_blob_close(b));
  q(db, "SELECT length(v), typeof(v), hex(substr(v, 1, 6)), substr(v, 4081, 40), substr(v, 2500001, 26),"
        " hex(substr(v, -4)), length(w), hex(w) FROM z;"
        "SELECT count(*) FROM z WHERE substr(v, 6, 4075) = zeroblob(4075);"
        "PRAGMA integrity_check;");
  sqlite3_create_function(db, "zeros", 1, SQLITE_UTF8, 0, zeros_fn, 0, 0);
  q(db, "SELECT length(zeros(5)), hex(zeros(3)), typeof(zeros(0)), quote(zeros(2));"
        "INSERT INTO z VALUES(2, zeros(100000), zeros(3));"
        "SELECT id, length(v), hex(w) FROM z WHERE id = 2;");
  sqlite3_prepare_v2(db, "SELECT zeros(4), ?1", -1, &st, 0);
  sqlite3_bind_zeroblob(st, 1, 6);
  rc = sqlite3_step(st);
  printf("zero-blob results: rc=%d bytes=%d,%d type=%d,%d first=%d\n", rc, sqlite3_column_bytes(st, 0),
         sqlite3_column_bytes(st, 1), sqlite3_column_type(st, 0), sqlite3_column_type(st, 1),
         ((const unsigned char *)sqlite3_column_blob(st, 1))[5]);
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  sqlite3_blob *b;
  unsigned char buf[64];
  int rc, i;
  sqlite3_open(":memory:", &db);
  q(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, a BLOB, b TEXT, c, d UNIQUE);"
        "CREATE INDEX tc ON t(c);"
        "INSERT INTO t VALUES(1, x'00010203040506070809', 'hello world', 5, 1);"
        "INSERT INTO t VALUES(2, zeroblob(30000), 'x', NULL, 2);"
        "INSERT INTO t VALUES(3, NULL, 2.5, 7, 3);"
        "CREATE VIEW v AS SELECT * FROM t;");

  try_open(db, "nosuch", "a", 1, 0);
  try_open(db, "t", "nosuch", 1, 0);
  try_open(db, "t", "a", 42, 0);
  try_open(db, "t", "a", 3, 0);
  try_open(db, "t", "b", 3, 0);
  try_open(db, "t", "c", 1, 0);
  try_open(db, "t", "id", 1, 0);
  try_open(db, "t", "c", 1, 1);
  try_open(db, "t", "d", 1, 1);
  try_open(db, "v", "a", 1, 0);

  rc = sqlite3_blob_open(db, "main", "t", "a", 1, 1, &b);
  printf("open rw: rc=%d bytes=%d\n", rc, sqlite3_blob_bytes(b));
  rc = sqlite3_blob_read(b, buf, 4, 3);
  printf("read: rc=%d %d %d %d %d\n", rc, buf[0], buf[1], buf[2], buf[3]);
  rc = sqlite3_blob_read(b, buf, 4, 8);
  printf("read past end: rc=%d errcode=%d msg=%s\n", rc, sqlite3_errcode(db), sqlite3_errmsg(db));
  rc = sqlite3_blob_write(b, "\xff\xfe", 2, 0);
  printf("write: rc=%d\n", rc);
  rc = sqlite3_blob_write(b, "\xff\xfe", 2, 9);
  printf("write past end: rc=%d\n", rc);
  rc = sqlite3_blob_reopen(b, 2);
  printf("reopen 2: rc=%d bytes=%d\n", rc, sqlite3_blob_bytes(b));
  for (i = 0; i < 30; i++) buf[i] = 'A' + i % 26;
  rc = sqlite3_blob_write(b, buf, 30, 4090);
  printf("write across pages: rc=%d\n", rc);
  rc = sqlite3_blob_write(b, buf, 10, 29990);
  printf("write at the tail: rc=%d\n", rc);
  memset(buf, 0, sizeof buf);
  rc = sqlite3_blob_read(b, buf, 34, 4088);
  printf("read back: rc=%d %d %d %.30s %d %d\n", rc, buf[0], buf[1], (char *)buf + 2, buf[32], buf[33]);
  rc = sqlite3_blob_reopen(b, 3);
  printf("reopen 3 (null): rc=%d msg=%s bytes=%d\n", rc, sqlite3_errmsg(db), sqlite3_blob_bytes(b));
  rc = sqlite3_blob_reopen(b, 1);
  printf("reopen after failure: rc=%d\n", rc);
  printf("close: %d\n", sqlite3_blob_close(b));
  q(db, "SELECT hex(a) FROM t WHERE id = 1;"
        "SELECT length(a), substr(a, 4091, 30), hex(substr(a, 29991)) FROM t WHERE id = 2;"
        "PRAGMA integrity_check;");

  rc = sqlite3_blob_open(db, "main", "t", "b", 1, 0, &b);
  rc = sqlite3_blob_write(b, "J", 1, 0);
  printf("write on read-only handle: rc=%d msg=%s\n", rc, sqlite3_errmsg(db));
  printf("close: %d\n", sqlite3_blob_close(b));

  rc = sqlite3_blob_open(db, "main", "t", "b", 1, 0, &b);
  q(db, "UPDATE t SET b = 'changed' WHERE id = 1");
  rc = sqlite3_blob_read(b, buf, 5, 0);
  printf("read after update: rc=%d msg=%s bytes=%d\n", rc, sqlite3_errmsg(db), sqlite3_blob_bytes(b));
  rc = sqlite3_blob_read(b, buf, 5, 0);
  printf("read again: rc=%d\n", rc);
  printf("close: %d\n", sqlite3_blob_close(b));
  printf("close(NULL): %d\n", sqlite3_blob_close(0));

  /* A write handle holds the transaction until closed. */
  rc = sqlite3_blob_open(db, "main", "t", "a", 1, 1, &b);
  printf("autocommit while open: %d\n", sqlite3_get_autocommit(db));
  sqlite3_blob_write(b, "\x11", 1, 1);
  sqlite3_blob_close(b);
  q(db, "SELECT hex(a) FROM t WHERE id = 1");
  zeroblob_section(db);
  sqlite3_close(db);
  return 0;
}
