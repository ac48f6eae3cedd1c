/* Result codes of C API error paths where a library could answer
** SQLITE_MISUSE but SQLite answers something more specific: the error
** state after a column accessor with an out-of-range index, stepping a
** statement of a zombie connection (closed with sqlite3_close_v2 while the
** statement lived), closing a blob handle whose reopen failed,
** sqlite3_db_status with an unknown op, sqlite3_strglob / strlike on a
** non-match, bind indexes out of range, unknown status/config/limit ops,
** sqlite3_file_control with an unknown op, table_column_metadata of a
** missing column; and sqlite3_expanded_sql: its literal forms, text with a
** NUL character, and the SQLITE_LIMIT_LENGTH bound (NULL past it). The
** output is compared with SQLite's by run.sh. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

static void show(const char *what, int rc) {
  printf("%s: rc=%d errcode=%d ext=%d msg=%s\n", what, rc, sqlite3_errcode(db),
         sqlite3_extended_errcode(db), sqlite3_errmsg(db));
}

static void expanded(sqlite3_stmt *st) {
  char *z = sqlite3_expanded_sql(st);
  if (z) {
    size_t n = strlen(z);
    if (n > 130) printf("expanded (%zu): %.60s...\n", n, z);
    else printf("expanded: %s\n", z);
  } else {
    printf("expanded: NULL errcode=%d\n", sqlite3_errcode(db));
  }
  sqlite3_free(z);
}

int main(void) {
  sqlite3_stmt *st;
  sqlite3_blob *blob;
  int rc, cur = -1, hi = -1;
  char big[3000];

  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB, c TEXT);"
                   "INSERT INTO t VALUES(1, x'0102', 'x'), (2, NULL, NULL);", 0, 0, 0);

  /* column accessors out of range set SQLITE_RANGE in the error state */
  sqlite3_prepare_v2(db, "SELECT a, b FROM t ORDER BY a", -1, &st, 0);
  rc = sqlite3_step(st);
  show("step", rc);
  printf("column_int(5)=%d\n", sqlite3_column_int(st, 5));
  show("after column_int(5)", 0);
  printf("column_text(-1)=%s\n", sqlite3_column_text(st, -1) ? "ptr" : "null");
  show("after column_text(-1)", 0);
  printf("column_type(2)=%d\n", sqlite3_column_type(st, 2));
  show("after column_type(2)", 0);
  printf("column_bytes(2)=%d\n", sqlite3_column_bytes(st, 2));
  show("after column_bytes(2)", 0);
  printf("column_value(9)=%s\n", sqlite3_column_value(st, 9) ? "ptr" : "null");
  show("after column_value(9)", 0);
  printf("column_int(0)=%d\n", sqlite3_column_int(st, 0));
  show("after column_int(0)", 0);
  sqlite3_reset(st);
  printf("no row column_int(0)=%d\n", sqlite3_column_int(st, 0));
  show("after column on no row", 0);
  sqlite3_finalize(st);

  /* bind indexes */
  sqlite3_prepare_v2(db, "SELECT ?1, :n", -1, &st, 0);
  show("bind 0", sqlite3_bind_int(st, 0, 1));
  show("bind 3", sqlite3_bind_int(st, 3, 1));
  show("bind_text -1", sqlite3_bind_text(st, -1, "x", -1, SQLITE_STATIC));
  show("bind_null 9", sqlite3_bind_null(st, 9));
  show("bind_zeroblob 9", sqlite3_bind_zeroblob(st, 9, 4));
  show("bind_pointer 9", sqlite3_bind_pointer(st, 9, 0, "p", 0));
  show("bind 2", sqlite3_bind_int(st, 2, 1));
  sqlite3_step(st);
  show("bind while running", sqlite3_bind_int(st, 1, 1));
  sqlite3_finalize(st);

  /* sqlite3_expanded_sql */
  sqlite3_prepare_v2(db, "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, :x, ?11 -- ?\n", -1, &st, 0);
  sqlite3_bind_double(st, 1, 1.0 / 3);
  sqlite3_bind_double(st, 2, -0.0);
  sqlite3_bind_double(st, 3, 1e100);
  sqlite3_bind_double(st, 4, 100.0);
  sqlite3_bind_text(st, 5, "a\0b'c", 5, SQLITE_STATIC);
  sqlite3_bind_blob(st, 6, "\x00\xff", 2, SQLITE_STATIC);
  sqlite3_bind_int(st, 7, 3);
  sqlite3_bind_int64(st, 8, -9223372036854775807LL - 1);
  sqlite3_bind_text(st, 9, "it's", -1, SQLITE_STATIC);
  sqlite3_bind_double(st, 10, 1.5e-7);
  expanded(st);
  sqlite3_finalize(st);
  sqlite3_prepare_v2(db, "SELECT ?2, ?1, ?", -1, &st, 0);
  sqlite3_bind_int(st, 1, 1);
  sqlite3_bind_int(st, 2, 2);
  sqlite3_bind_int(st, 3, 3);
  expanded(st);
  sqlite3_finalize(st);
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = 0;
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000);
  {
    static const int lens[] = {10, 980, 988, 989, 990, 995, 1200};
    for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
      sqlite3_prepare_v2(db, "SELECT ?", -1, &st, 0);
      sqlite3_bind_text(st, 1, big, lens[i], SQLITE_STATIC);
      printf("text of %d: ", lens[i]);
      expanded(st);
      sqlite3_finalize(st);
    }
    static const int sql_lens[] = {990, 999, 1000, 1001};
    for (unsigned i = 0; i < sizeof sql_lens / sizeof sql_lens[0]; i++) {
      char sql[1300];
      snprintf(sql, sizeof sql, "SELECT 1 /*%.*s*/", sql_lens[i] - 13, big);
      rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
      printf("no parameters, sql of %zu (prepare %d): ", strlen(sql), rc);
      if (st) expanded(st);
      else printf("\n");
      sqlite3_finalize(st);
    }
    sqlite3_prepare_v2(db, "SELECT ?", -1, &st, 0);
    sqlite3_bind_blob(st, 1, big, 496, SQLITE_STATIC);
    printf("blob of 496: ");
    expanded(st);
    sqlite3_bind_blob(st, 1, big, 494, SQLITE_STATIC);
    printf("blob of 494: ");
    expanded(st);
    sqlite3_finalize(st);
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000000);

  /* sqlite3_db_status: unknown and known ops */
  show("db_status -1", sqlite3_db_status(db, -1, &cur, &hi, 0));
  show("db_status 99", sqlite3_db_status(db, 99, &cur, &hi, 0));
  show("db_status CACHE_USED", sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0));
  show("status 99", sqlite3_status(99, &cur, &hi, 0));
  show("status64 -1", sqlite3_status64(-1, 0, 0, 0));
  show("limit 99", sqlite3_limit(db, 99, -1));
  show("db_config 9999", sqlite3_db_config(db, 9999, 0, &cur));
  show("file_control unknown", sqlite3_file_control(db, "main", 9999, &cur));
  show("file_control no such db", sqlite3_file_control(db, "nosuch", SQLITE_FCNTL_PERSIST_WAL, &cur));
  show("table_column_metadata missing column",
       sqlite3_table_column_metadata(db, "main", "t", "zz", 0, 0, 0, 0, 0));
  show("table_column_metadata missing table",
       sqlite3_table_column_metadata(db, "main", "zz", "a", 0, 0, 0, 0, 0));
  show("db_cacheflush", sqlite3_db_cacheflush(db));
  show("wal_checkpoint no such db", sqlite3_wal_checkpoint_v2(db, "nosuch", SQLITE_CHECKPOINT_PASSIVE, 0, 0));
  show("wal_checkpoint bad mode", sqlite3_wal_checkpoint_v2(db, "main", 99, 0, 0));

  /* sqlite3_strglob / strlike / stricmp on matches and non-matches */
  printf("strglob match=%d nomatch=%d\n", sqlite3_strglob("a*", "abc"), sqlite3_strglob("b*", "abc"));
  printf("strglob nomatch2=%d nomatch3=%d\n", sqlite3_strglob("a?", "abc"), sqlite3_strglob("[x-z]*", "abc"));
  printf("strlike match=%d nomatch=%d\n", sqlite3_strlike("A%", "abc", 0), sqlite3_strlike("b%", "abc", 0));
  printf("strlike esc=%d\n", sqlite3_strlike("a!%", "a%", '!'));

  /* blob: a failed reopen, then close */
  rc = sqlite3_blob_open(db, "main", "t", "b", 1, 0, &blob);
  show("blob_open", rc);
  rc = sqlite3_blob_reopen(blob, 2);
  show("blob_reopen to NULL", rc);
  rc = sqlite3_blob_read(blob, big, 1, 0);
  show("blob_read after failed reopen", rc);
  printf("blob_bytes after failed reopen=%d\n", sqlite3_blob_bytes(blob));
  rc = sqlite3_blob_reopen(blob, 1);
  show("blob_reopen back", rc);
  rc = sqlite3_blob_close(blob);
  show("blob_close after failed reopen", rc);
  rc = sqlite3_blob_open(db, "main", "t", "b", 1, 0, &blob);
  rc = sqlite3_blob_reopen(blob, 99);
  show("blob_reopen no row", rc);
  rc = sqlite3_blob_close(blob);
  show("blob_close", rc);
  rc = sqlite3_blob_open(db, "main", "t", "b", 1, 0, &blob);
  rc = sqlite3_blob_read(blob, big, 10, 0);
  show("blob_read past end", rc);
  rc = sqlite3_blob_write(blob, big, 1, 0);
  show("blob_write read-only", rc);
  show("blob_read negative length", sqlite3_blob_read(blob, big, -1, 0));
  show("blob_read negative offset", sqlite3_blob_read(blob, big, 1, -1));
  show("blob_read offset past end", sqlite3_blob_read(blob, big, 0, 3));
  show("blob_read zero at end", sqlite3_blob_read(blob, big, 0, 2));
  rc = sqlite3_blob_close(blob);
  show("blob_close after errors", rc);

  /* other lookups of unknown things */
  {
    sqlite3 *other;
    sqlite3_backup *bk;
    sqlite3_open(":memory:", &other);
    bk = sqlite3_backup_init(db, "main", db, "main");
    printf("backup_init same connection=%s\n", bk ? "ptr" : "null");
    show("after backup_init same connection", 0);
    bk = sqlite3_backup_init(other, "main", db, "nosuch");
    printf("backup_init unknown source=%s errcode(dest)=%d msg=%s\n", bk ? "ptr" : "null",
           sqlite3_errcode(other), sqlite3_errmsg(other));
    bk = sqlite3_backup_init(other, "nosuch", db, "main");
    printf("backup_init unknown dest=%s errcode(dest)=%d msg=%s\n", bk ? "ptr" : "null",
           sqlite3_errcode(other), sqlite3_errmsg(other));
    sqlite3_exec(other, "BEGIN; CREATE TABLE x(y);", 0, 0, 0);
    bk = sqlite3_backup_init(other, "main", db, "main");
    printf("backup_init dest in transaction=%s errcode(dest)=%d msg=%s\n", bk ? "ptr" : "null",
           sqlite3_errcode(other), sqlite3_errmsg(other));
    sqlite3_close(other);
  }
  printf("db_readonly nosuch=%d txn_state nosuch=%d db_filename nosuch=%s\n", sqlite3_db_readonly(db, "nosuch"),
         sqlite3_txn_state(db, "nosuch"), sqlite3_db_filename(db, "nosuch") ? "ptr" : "null");

  /* a statement of a zombie connection */
  sqlite3_prepare_v2(db, "SELECT a FROM t ORDER BY a", -1, &st, 0);
  rc = sqlite3_close(db);
  printf("close with statement=%d\n", rc);
  rc = sqlite3_close_v2(db);
  printf("close_v2=%d\n", rc);
  rc = sqlite3_step(st);
  printf("step on zombie=%d\n", rc);
  rc = sqlite3_step(st);
  printf("step on zombie again=%d\n", rc);
  rc = sqlite3_reset(st);
  printf("reset on zombie=%d\n", rc);
  printf("column_count on zombie=%d\n", sqlite3_column_count(st));
  printf("bind on zombie=%d\n", sqlite3_bind_int(st, 1, 1));
  rc = sqlite3_finalize(st);
  printf("finalize on zombie=%d\n", rc);
  return 0;
}
