/* SQL run on a connection from inside its own callbacks: application
 * functions (scalar and aggregate) querying and writing, nesting three
 * deep, a progress handler and a trace callback running statements, and
 * what a nested statement may not do (drop a table being read, commit or
 * release a savepoint under a running writer). The statement savepoint of
 * a failing outer statement undoes its nested writes too. Output is
 * diffed against SQLite. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "sqlite3.h"

static sqlite3 *db;

/* q(SQL): the first column of the first row of SQL, run on the same
 * connection (NULL when no row; the error message on failure). */
static void q(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3 *h = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *s = 0;
  int rc = sqlite3_prepare_v2(h, (const char *)sqlite3_value_text(argv[0]), -1, &s, 0);
  if (rc != SQLITE_OK) {
    char buf[300];
    snprintf(buf, sizeof buf, "prepare rc=%d %s", rc, sqlite3_errmsg(h));
    sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
    return;
  }
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(s, 0));
  } else if (rc == SQLITE_DONE) {
    sqlite3_result_null(ctx);
  } else {
    char buf[300];
    snprintf(buf, sizeof buf, "step rc=%d %s", sqlite3_extended_errcode(h), sqlite3_errmsg(h));
    sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
  }
  sqlite3_finalize(s);
}

/* ex(SQL): sqlite3_exec of SQL on the same connection: "rc=N msg". */
static void ex(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3 *h = sqlite3_context_db_handle(ctx);
  char *err = 0;
  int rc = sqlite3_exec(h, (const char *)sqlite3_value_text(argv[0]), 0, 0, &err);
  char buf[300];
  snprintf(buf, sizeof buf, "rc=%d %s", rc, err ? err : "");
  sqlite3_free(err);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* logsum(x): an aggregate whose step inserts x into log and whose final
 * value counts the log's rows. */
static void logsum_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3 *h = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *s;
  sqlite3_prepare_v2(h, "INSERT INTO log VALUES(?)", -1, &s, 0);
  sqlite3_bind_value(s, 1, argv[0]);
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE) sqlite3_result_error(ctx, sqlite3_errmsg(h), -1);
  sqlite3_finalize(s);
}
static void logsum_final(sqlite3_context *ctx) {
  sqlite3 *h = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *s;
  sqlite3_prepare_v2(h, "SELECT count(*) FROM log", -1, &s, 0);
  sqlite3_step(s);
  sqlite3_result_int(ctx, sqlite3_column_int(s, 0));
  sqlite3_finalize(s);
}

static int print_row(void *p, int n, char **v, char **names) {
  (void)p; (void)names;
  for (int i = 0; i < n; i++) printf("%s%s", i ? "|" : "", v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void run(const char *sql) {
  char *err = 0;
  printf("> %s\n", sql);
  int rc = sqlite3_exec(db, sql, print_row, 0, &err);
  if (rc != SQLITE_OK) printf("rc=%d %s\n", rc, err ? err : "");
  sqlite3_free(err);
}

static int progress_calls, progress_seen;
static int progress(void *p) {
  (void)p;
  if (progress_calls++ == 0) {
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &s, 0);
    if (sqlite3_step(s) == SQLITE_ROW) progress_seen = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  return 0;
}

static int tracing, traced;
static int trace(unsigned mask, void *c, void *p, void *x) {
  (void)mask; (void)c; (void)p; (void)x;
  if (tracing) return 0;
  tracing = 1;
  sqlite3_stmt *s;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM log", -1, &s, 0);
  if (sqlite3_step(s) == SQLITE_ROW) traced += 1;
  sqlite3_finalize(s);
  tracing = 0;
  return 0;
}

/* The WAL hook may read, write or checkpoint the database (SQLite's
 * documentation says so): it counts rows, writes an audit row once and
 * checkpoints. */
static int in_wal_hook;
static int wal_hook(void *p, sqlite3 *h, const char *name, int frames) {
  (void)p;
  if (in_wal_hook) { printf("  wal hook (nested) %s frames>0=%d\n", name, frames > 0); return SQLITE_OK; }
  in_wal_hook = 1;
  sqlite3_stmt *s;
  int n = -1;
  if (sqlite3_prepare_v2(h, "SELECT count(*) FROM w", -1, &s, 0) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  int rc = sqlite3_exec(h, "INSERT INTO audit VALUES(1)", 0, 0, 0);
  int log = -1, ckpt = -1;
  int crc = sqlite3_wal_checkpoint_v2(h, name, SQLITE_CHECKPOINT_PASSIVE, &log, &ckpt);
  printf("  wal hook %s rows=%d audit rc=%d checkpoint rc=%d all copied=%d\n", name, n, rc, crc, log == ckpt);
  in_wal_hook = 0;
  return SQLITE_OK;
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_create_function(db, "q", 1, SQLITE_UTF8, 0, q, 0, 0);
  sqlite3_create_function(db, "ex", 1, SQLITE_UTF8, 0, ex, 0, 0);
  sqlite3_create_function(db, "logsum", 1, SQLITE_UTF8, 0, 0, logsum_step, logsum_final);
  run("CREATE TABLE t(a INTEGER PRIMARY KEY, b); CREATE TABLE log(x); CREATE TABLE u(v UNIQUE)");
  run("INSERT INTO t(b) VALUES('one'),('two'),('three')");

  /* Reading its own connection, per row and nested three deep. */
  run("SELECT a, q('SELECT count(*) FROM t WHERE a <= ' || a) FROM t");
  run("SELECT q('SELECT q(''SELECT q(''''SELECT 6*7'''')'')')");
  run("SELECT q('SELECT b FROM t WHERE a = 99') IS NULL");
  run("SELECT q('SELECT nosuch FROM t')");

  /* Writing from a function, during a read and during a write. */
  run("SELECT a, ex('INSERT INTO log VALUES(' || a || ')') FROM t");
  run("SELECT count(*), sum(x) FROM log");
  run("INSERT INTO u SELECT ex('INSERT INTO log VALUES(''w' || a || ''')') FROM t");
  run("SELECT count(*) FROM log; SELECT count(*) FROM u");
  run("SELECT logsum(a) FROM t");
  run("SELECT changes(), total_changes() > 0");

  /* A failing outer statement undoes what its nested statements wrote. */
  run("DELETE FROM log; DELETE FROM u");
  run("BEGIN");
  run("INSERT INTO u SELECT CASE WHEN a = 3 THEN 'dup' ELSE 'dup' END || substr(ex('INSERT INTO log VALUES(' || a || ')'), 1, 0) FROM t");
  run("SELECT count(*) FROM log; SELECT count(*) FROM u");
  run("COMMIT");

  /* What a nested statement may not do. */
  run("SELECT ex('DROP TABLE t') FROM t LIMIT 1");
  run("BEGIN; INSERT INTO u SELECT ex('COMMIT') FROM t LIMIT 1");
  run("SELECT * FROM u");
  run("ROLLBACK");
  run("BEGIN; SAVEPOINT s1; INSERT INTO u SELECT ex('RELEASE s1') FROM t LIMIT 1");
  run("INSERT INTO u SELECT ex('SAVEPOINT s2') FROM t LIMIT 1");
  run("ROLLBACK");
  run("SELECT ex('BEGIN'), sqlite_version() IS NOT NULL");
  run("SELECT ex('COMMIT')");
  run("SELECT ex('CREATE TABLE made_inside(z)') FROM t LIMIT 1");
  run("SELECT name FROM sqlite_master ORDER BY name");
  run("SELECT ex('VACUUM')");

  /* The progress handler and a trace callback running statements. */
  sqlite3_progress_handler(db, 5, progress, 0);
  run("SELECT count(*) FROM t, t AS t2");
  sqlite3_progress_handler(db, 0, 0, 0);
  printf("progress ran SQL: %d (calls>0: %d)\n", progress_seen, progress_calls > 0);
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, trace, 0);
  run("SELECT a FROM t");
  sqlite3_trace_v2(db, 0, 0, 0);
  printf("trace ran SQL: %d\n", traced);

  sqlite3_close(db);

  char path[] = "/tmp/t_engine_reentry_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  sqlite3_open(path, &db);
  run("PRAGMA journal_mode = WAL; CREATE TABLE w(x); CREATE TABLE audit(y)");
  sqlite3_wal_hook(db, wal_hook, 0);
  run("INSERT INTO w VALUES(1),(2)");
  run("BEGIN; INSERT INTO w VALUES(3); COMMIT");
  run("SELECT count(*) FROM w; SELECT count(*) FROM audit");
  sqlite3_close(db);
  unlink(path);
  char wal[64];
  snprintf(wal, sizeof wal, "%s-wal", path);
  unlink(wal);
  snprintf(wal, sizeof wal, "%s-shm", path);
  unlink(wal);
  return 0;
}
