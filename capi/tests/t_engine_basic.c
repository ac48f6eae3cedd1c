/* Open, exec, prepare/step/column with every type and conversion, bind,
** parameters, metadata, changes, get_table, errors. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static int rows(void *arg, int n, char **v, char **names) {
  int i;
  (void)arg;
  for (i = 0; i < n; i++) printf("%s%s=%s", i ? " " : "  row: ", names[i], v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static int stop_after_one(void *arg, int n, char **v, char **names) {
  (void)arg; (void)n; (void)v; (void)names;
  return 1;
}

static int freed;
static void count_free(void *p) { (void)p; freed++; }

static void dump_column(sqlite3_stmt *st, int i) {
  const unsigned char *t;
  printf("  col %d name=%s type=%d", i, sqlite3_column_name(st, i), sqlite3_column_type(st, i));
  printf(" int=%lld dbl=%g", sqlite3_column_int64(st, i), sqlite3_column_double(st, i));
  t = sqlite3_column_text(st, i);
  printf(" text=%s bytes=%d bytes16=%d\n", t ? (const char *)t : "NULL", sqlite3_column_bytes(st, i), sqlite3_column_bytes16(st, i));
}

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  char *err = 0, **table;
  const char *tail;
  int rc, i, nrow, ncol;
  sqlite3_int64 big = 9007199254740993LL;

  rc = sqlite3_open(":memory:", &db);
  printf("open=%d autocommit=%d\n", rc, sqlite3_get_autocommit(db));
  rc = sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e);"
                        "INSERT INTO t(b,c,d,e) VALUES('one', 1.5, x'00ff', NULL);"
                        "INSERT INTO t(b,c,d,e) VALUES('two', -2.25, x'', 42);", 0, 0, &err);
  printf("exec=%d err=%s changes=%d total=%d last=%lld\n", rc, err ? err : "none", sqlite3_changes(db), sqlite3_total_changes(db), sqlite3_last_insert_rowid(db));
  rc = sqlite3_exec(db, "SELECT a, b, c, e FROM t ORDER BY a", rows, 0, &err);
  printf("exec select=%d\n", rc);
  rc = sqlite3_exec(db, "SELECT a FROM t", stop_after_one, 0, &err);
  printf("exec abort=%d err=%s errcode=%d\n", rc, err ? err : "none", sqlite3_errcode(db));
  sqlite3_free(err); err = 0;
  rc = sqlite3_exec(db, "SELECT nosuchcol FROM t", 0, 0, &err);
  printf("exec error=%d err=%s errmsg=%s\n", rc, err ? err : "none", sqlite3_errmsg(db));
  sqlite3_free(err); err = 0;

  rc = sqlite3_prepare_v2(db, "SELECT a, b, c, d, e, a+0.5, '12abc' FROM t ORDER BY a; SELECT 2", -1, &st, &tail);
  printf("prepare=%d tail=[%s] columns=%d readonly=%d busy=%d sql=[%s]\n", rc, tail, sqlite3_column_count(st),
         sqlite3_stmt_readonly(st), sqlite3_stmt_busy(st), sqlite3_sql(st));
  for (i = 0; i < sqlite3_column_count(st); i++)
    printf("  decltype %d=%s\n", i, sqlite3_column_decltype(st, i) ? sqlite3_column_decltype(st, i) : "NULL");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" row data_count=%d busy=%d\n", sqlite3_data_count(st), sqlite3_stmt_busy(st));
    for (i = 0; i < sqlite3_column_count(st); i++) dump_column(st, i);
    printf("  blob bytes=%d first=%d\n", sqlite3_column_bytes(st, 3),
           sqlite3_column_blob(st, 3) ? ((const unsigned char *)sqlite3_column_blob(st, 3))[0] : -1);
    printf("  out of range type=%d errcode=%d\n", sqlite3_column_type(st, 99), sqlite3_errcode(db));
  }
  printf("step end=%d data_count=%d errcode=%d errmsg=%s\n", rc, sqlite3_data_count(st), sqlite3_errcode(db), sqlite3_errmsg(db));
  printf("step again=%d\n", sqlite3_step(st));
  rc = sqlite3_reset(st);
  printf("reset=%d", rc);
  printf(" finalize=%d\n", sqlite3_finalize(st));

  rc = sqlite3_prepare_v2(db, "SELECT ?, ?, ?, ?, ?, ?", -1, &st, 0);
  printf("params=%d\n", sqlite3_bind_parameter_count(st));
  printf("bind int=%d text=%d double=%d blob=%d null=%d int64=%d\n", sqlite3_bind_int(st, 1, 7),
         sqlite3_bind_text(st, 2, "hello world", 5, SQLITE_TRANSIENT), sqlite3_bind_double(st, 3, 0.5),
         sqlite3_bind_blob(st, 4, "\1\2\3", 3, SQLITE_STATIC), sqlite3_bind_null(st, 5), sqlite3_bind_int64(st, 6, big));
  rc = sqlite3_bind_int(st, 0, 1);
  printf("bind range 0=%d", rc);
  rc = sqlite3_bind_int(st, 7, 1);
  printf(" 7=%d errcode=%d msg=%s\n", rc, sqlite3_errcode(db), sqlite3_errmsg(db));
  rc = sqlite3_step(st);
  printf("step=%d", rc);
  for (i = 0; i < 6; i++) {
    int type = sqlite3_column_type(st, i);
    const unsigned char *t = sqlite3_column_text(st, i);
    printf(" %d:%s", type, t ? (const char *)t : "NULL");
  }
  printf(" now=%d\n", sqlite3_column_type(st, 3));
  printf("bind while busy=%d\n", sqlite3_bind_int(st, 1, 1));
  {
    char *x = sqlite3_expanded_sql(st);
    printf("expanded=%s\n", x ? x : "NULL");
    sqlite3_free(x);
  }
  sqlite3_reset(st);
  printf("clear=%d\n", sqlite3_clear_bindings(st));
  rc = sqlite3_step(st);
  printf("after clear: %d %d\n", sqlite3_column_type(st, 0), sqlite3_column_type(st, 5));
  sqlite3_finalize(st);

  rc = sqlite3_prepare_v2(db, "SELECT ?, ?", -1, &st, 0);
  sqlite3_bind_text(st, 1, "a", -1, count_free);
  printf("destructor after bind=%d", freed);
  sqlite3_bind_text(st, 1, "b", -1, count_free);
  printf(" after rebind=%d", freed);
  sqlite3_bind_blob(st, 2, "c", 1, count_free);
  sqlite3_bind_text(st, 3, "d", -1, count_free);
  printf(" after failed bind=%d", freed);
  sqlite3_step(st);
  printf(" after step=%d", freed);
  sqlite3_reset(st);
  printf(" after reset=%d", freed);
  sqlite3_clear_bindings(st);
  printf(" after clear=%d", freed);
  sqlite3_bind_text(st, 1, "e", -1, count_free);
  sqlite3_finalize(st);
  printf(" after finalize=%d\n", freed);

  {
    static const char *inputs[] = {"  SELECT 1; SELECT 2", "/* c */ SELECT 1 ;  ", "BEGIN ", "SELECT 1 -- x\n", " SELECT 2"};
    for (i = 0; i < 5; i++) {
      sqlite3_prepare_v2(db, inputs[i], -1, &st, &tail);
      printf("sql=[%s] tail=[%s]\n", sqlite3_sql(st), tail);
      sqlite3_finalize(st);
    }
  }
  rc = sqlite3_prepare_v2(db, "   -- nothing\n  ", -1, &st, &tail);
  printf("empty prepare=%d stmt=%s\n", rc, st ? "set" : "NULL");
  rc = sqlite3_prepare_v2(db, "SELECT * FROM nosuch", -1, &st, 0);
  printf("bad prepare=%d stmt=%s errmsg=%s offset=%d\n", rc, st ? "set" : "NULL", sqlite3_errmsg(db), sqlite3_error_offset(db));
  rc = sqlite3_prepare_v2(db, "SELECT 1; garbage", 9, &st, &tail);
  printf("nByte prepare=%d tail=[%s]\n", rc, tail);
  sqlite3_finalize(st);

  rc = sqlite3_get_table(db, "SELECT a, b FROM t ORDER BY a", &table, &nrow, &ncol, &err);
  printf("get_table=%d rows=%d cols=%d:", rc, nrow, ncol);
  for (i = 0; i < (nrow + 1) * ncol; i++) printf(" %s", table[i] ? table[i] : "NULL");
  printf("\n");
  sqlite3_free_table(table);

  rc = sqlite3_exec(db, "BEGIN; UPDATE t SET b = upper(b);", 0, 0, 0);
  printf("update=%d changes=%d autocommit=%d txn=%d\n", rc, sqlite3_changes(db), sqlite3_get_autocommit(db), sqlite3_txn_state(db, 0));
  rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
  printf("commit=%d autocommit=%d total=%d\n", rc, sqlite3_get_autocommit(db), sqlite3_total_changes(db));
  rc = sqlite3_exec(db, "INSERT INTO t(a) VALUES(1)", 0, 0, 0);
  printf("constraint=%d ext=%d msg=%s\n", rc, sqlite3_extended_errcode(db), sqlite3_errmsg(db));
  sqlite3_extended_result_codes(db, 1);
  rc = sqlite3_exec(db, "INSERT INTO t(a) VALUES(1)", 0, 0, 0);
  printf("constraint (extended)=%d\n", rc);
  printf("db_readonly=%d filename=[%s] db_name=%s\n", sqlite3_db_readonly(db, "main"), sqlite3_db_filename(db, "main"), sqlite3_db_name(db, 0));

  sqlite3_prepare_v2(db, "SELECT 1", -1, &st, 0);
  printf("next_stmt=%s", sqlite3_next_stmt(db, 0) == st ? "st" : "?");
  rc = sqlite3_close(db);
  printf(" close=%d msg=%s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
