/* Commit/rollback/update hooks, progress handler, authorizer, busy timeout,
** interrupt, limits. */
#include <stdio.h>
#include "sqlite3.h"

static int commits, rollbacks, progress_calls, veto;

static int on_commit(void *p) { (void)p; commits++; return veto; }
static void on_rollback(void *p) { (void)p; rollbacks++; }
static void on_update(void *p, int op, const char *db, const char *tbl, sqlite3_int64 rowid) {
  (void)p;
  printf("  update op=%d %s.%s rowid=%lld\n", op, db, tbl, rowid);
}
static int on_progress(void *p) { (void)p; progress_calls++; return 0; }
static int stop_now(void *p) { (void)p; return 1; }
static int auth(void *p, int action, const char *a, const char *b, const char *c, const char *d) {
  (void)p; (void)c; (void)d;
  if (action == SQLITE_READ && b && b[0] == 's') return SQLITE_DENY;
  if (action == SQLITE_READ && b && b[0] == 'h') return SQLITE_IGNORE;
  (void)a;
  return SQLITE_OK;
}

static void scalar(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc != SQLITE_OK) { printf("%s -> prepare %d %s\n", sql, rc, sqlite3_errmsg(db)); return; }
  rc = sqlite3_step(st);
  printf("%s -> %d %s\n", sql, rc, rc == SQLITE_ROW && sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  int rc;
  sqlite3_open(":memory:", &db);
  sqlite3_commit_hook(db, on_commit, 0);
  sqlite3_rollback_hook(db, on_rollback, 0);
  sqlite3_update_hook(db, on_update, 0);
  sqlite3_exec(db, "CREATE TABLE t(a, secret, hidden); INSERT INTO t VALUES(1, 's', 'h');", 0, 0, 0);
  sqlite3_exec(db, "UPDATE t SET a = 2; DELETE FROM t WHERE a = 5;", 0, 0, 0);
  sqlite3_exec(db, "BEGIN; INSERT INTO t VALUES(3, 0, 0); ROLLBACK;", 0, 0, 0);
  veto = 1;
  rc = sqlite3_exec(db, "INSERT INTO t VALUES(4, 0, 0)", 0, 0, 0);
  printf("vetoed commit=%d msg=%s\n", rc, sqlite3_errmsg(db));
  veto = 0;
  printf("commits=%d rollbacks=%d\n", commits, rollbacks);
  printf("old commit hook=%s\n", sqlite3_commit_hook(db, 0, 0) == 0 ? "null" : "set");
  sqlite3_update_hook(db, 0, 0);

  sqlite3_progress_handler(db, 10, on_progress, 0);
  scalar(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) SELECT count(*) FROM c");
  printf("progress called=%d\n", progress_calls > 0);
  sqlite3_progress_handler(db, 10, stop_now, 0);
  scalar(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) SELECT count(*) FROM c");
  sqlite3_progress_handler(db, 0, 0, 0);

  sqlite3_set_authorizer(db, auth, 0);
  scalar(db, "SELECT a FROM t");
  scalar(db, "SELECT secret FROM t");
  scalar(db, "SELECT hidden FROM t");
  sqlite3_set_authorizer(db, 0, 0);

  printf("busy_timeout=%d\n", sqlite3_busy_timeout(db, 100));
  printf("limit length=%d\n", sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1));
  rc = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100);
  printf("limit set=%d", rc);
  printf(" now=%d\n", sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1));
  scalar(db, "SELECT length(zeroblob(200))");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000000);
  sqlite3_interrupt(db);
  printf("is_interrupted=%d\n", sqlite3_is_interrupted(db));
  scalar(db, "SELECT 1");

  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
