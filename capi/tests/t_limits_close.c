/* SQLITE_LIMIT_* values and clamping, SQLITE_LIMIT_LENGTH and
** SQLITE_LIMIT_SQL_LENGTH enforcement, and sqlite3_close refusing while a
** blob handle or a backup still uses the connection. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static void run(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc != SQLITE_OK) { printf("%s -> prepare %d %s\n", sql, rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    printf("%s -> row %s\n", sql, t ? (const char *)t : "NULL");
  }
  printf("%s -> %d %s\n", sql, rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db, *db2;
  sqlite3_stmt *st;
  sqlite3_blob *blob;
  sqlite3_backup *bk;
  int i, rc;
  static char big[200];

  sqlite3_open(":memory:", &db);
  for (i = 0; i < 16; i++) {
    int dflt = sqlite3_limit(db, i, -1);
    int high = (sqlite3_limit(db, i, 2000000000), sqlite3_limit(db, i, -1));
    int low = (sqlite3_limit(db, i, 0), sqlite3_limit(db, i, -1));
    sqlite3_limit(db, i, dflt);
    printf("limit %d: default %d, high %d, low %d\n", i, dflt, high, low);
  }
  printf("limit -1: %d\n", sqlite3_limit(db, -1, 5));

  sqlite3_exec(db, "CREATE TABLE t(a, b)", 0, 0, 0);
  printf("set length: old %d\n", sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100));
  run(db, "SELECT length(zeroblob(200))");
  run(db, "SELECT length(zeroblob(50))");
  run(db, "SELECT length(printf('%.*c', 150, 'x'))");
  run(db, "SELECT length(hex(zeroblob(60)))");
  run(db, "SELECT length(x||x) FROM (SELECT printf('%.*c', 60, 'y') AS x)");
  run(db, "SELECT length(x||x) FROM (SELECT printf('%.*c', 40, 'y') AS x)");
  run(db, "INSERT INTO t VALUES(printf('%.*c', 60, 'a'), printf('%.*c', 60, 'b'))");
  run(db, "INSERT INTO t VALUES(printf('%.*c', 30, 'a'), printf('%.*c', 30, 'b'))");
  run(db, "SELECT length(group_concat(a, '')) FROM (SELECT 'abcdefghijklmnopqrstuvwxyz' AS a UNION ALL SELECT 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' UNION ALL SELECT '0123456789012345678901234567890123456789012345678901234567890')");
  memset(big, 'z', sizeof big);
  sqlite3_prepare_v2(db, "SELECT length(?1)", -1, &st, 0);
  rc = sqlite3_bind_text(st, 1, big, 150, SQLITE_STATIC);
  printf("bind_text 150: %d %s\n", rc, sqlite3_errmsg(db));
  rc = sqlite3_bind_blob(st, 1, big, 100, SQLITE_STATIC);
  printf("bind_blob 100: %d\n", rc);
  rc = sqlite3_bind_zeroblob64(st, 1, 101);
  printf("bind_zeroblob64 101: %d\n", rc);
  rc = sqlite3_bind_zeroblob64(st, 2, 101);
  printf("bind_zeroblob64 101 out of range: %d\n", rc);
  rc = sqlite3_bind_zeroblob(st, 1, 150);
  printf("bind_zeroblob 150: %d\n", rc);
  sqlite3_finalize(st);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000000);

  printf("set sql length: old %d\n", sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 20));
  run(db, "SELECT 1");
  run(db, "SELECT 1 + 2 + 3 + 4 + 5 + 6 + 7");
  rc = sqlite3_prepare_v2(db, "SELECT 1 + 2 + 3 + 4 + 5 + 6 + 7", 10, &st, 0);
  printf("prepare 10 bytes: %d\n", rc);
  sqlite3_finalize(st);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1000000000);

  /* A blob handle keeps the connection open. */
  sqlite3_exec(db, "CREATE TABLE b(x); INSERT INTO b VALUES(zeroblob(10))", 0, 0, 0);
  rc = sqlite3_blob_open(db, "main", "b", "x", 1, 0, &blob);
  printf("blob_open: %d\n", rc);
  rc = sqlite3_close(db);
  printf("close with blob: %d %s\n", rc, sqlite3_errmsg(db));
  printf("blob_close: %d\n", sqlite3_blob_close(blob));

  /* A backup keeps its source open. */
  sqlite3_open(":memory:", &db2);
  bk = sqlite3_backup_init(db2, "main", db, "main");
  printf("backup_init: %s\n", bk ? "ok" : sqlite3_errmsg(db2));
  rc = sqlite3_close(db);
  printf("close source with backup: %d %s\n", rc, sqlite3_errmsg(db));
  printf("backup_step: %d\n", sqlite3_backup_step(bk, -1));
  printf("backup_finish: %d\n", sqlite3_backup_finish(bk));
  run(db2, "SELECT length(x) FROM b");

  /* close_v2 with a blob open: the connection goes when the blob does. */
  rc = sqlite3_blob_open(db, "main", "b", "x", 1, 0, &blob);
  printf("blob_open again: %d\n", rc);
  printf("close_v2 with blob: %d\n", sqlite3_close_v2(db));
  printf("blob_close after close_v2: %d\n", sqlite3_blob_close(blob));
  printf("close db2: %d\n", sqlite3_close(db2));
  return 0;
}
