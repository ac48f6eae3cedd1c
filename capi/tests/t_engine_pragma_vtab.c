/* The PRAGMA table-valued functions as SQLite's eponymous virtual tables:
** the authorizer calls a statement reading one makes (SQLITE_READ of the
** table's columns as it is prepared, then SQLITE_PRAGMA of the PRAGMA it
** runs when it is read, once per xFilter), correlated arguments and the
** schema argument from a column; `PRAGMA empty_result_callbacks` in
** sqlite3_exec; the heap-limit pragmas and the C calls agreeing. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static int logging;
static const char *s(const char *p) { return p ? p : "NULL"; }
static int auth(void *p, int code, const char *a, const char *b, const char *d, const char *ctx) {
  (void)p;
  if (logging && !(a && !strncmp(a, "sqlite_", 7))) printf("  [auth %d %s %s %s %s]\n", code, s(a), s(b), s(d), s(ctx));
  return SQLITE_OK;
}
static void q(const char *sql) {
  sqlite3_stmt *st; int rc; const char *tail = sql;
  printf("%s\n", sql);
  while (tail && *tail) {
    rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int i, n = sqlite3_column_count(st); printf("  ");
      for (i = 0; i < n; i++) { const unsigned char *t = sqlite3_column_text(st, i); printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL"); }
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}
static int cb(void *p, int n, char **vals, char **names) {
  int i;
  (void)p;
  printf("  callback n=%d vals=%s:", n, vals ? "set" : "NULL");
  for (i = 0; i < n; i++) printf(" %s=%s", names[i], vals ? s(vals[i]) : "-");
  printf("\n");
  return 0;
}
static void ex(const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, cb, 0, &err);
  printf("exec %s -> %d %s\n", sql, rc, s(err));
  sqlite3_free(err);
}
int main(void) {
  sqlite3_open(":memory:", &db);
  q("PRAGMA foreign_keys = 0; ATTACH ':memory:' AS aux; CREATE TABLE t(a, b); CREATE INDEX ta ON t(a);"
    " CREATE TABLE aux.t(c); CREATE TABLE dbs(n); INSERT INTO dbs VALUES ('main'), ('aux');"
    " INSERT INTO t VALUES ('t', 1)");
  sqlite3_set_authorizer(db, auth, 0);
  logging = 1;
  q("SELECT name FROM pragma_table_info('t')");
  q("SELECT * FROM pragma_user_version");
  q("SELECT d.n, p.name FROM dbs AS d, pragma_table_info('t', d.n) AS p ORDER BY 1, 2");
  q("SELECT t.a, l.name FROM t JOIN pragma_index_list(t.a) AS l");
  q("SELECT * FROM pragma_integrity_check");
  q("SELECT cache_spill, schema FROM pragma_cache_spill('aux')");
  logging = 0;
  sqlite3_set_authorizer(db, 0, 0);
  /* empty_result_callbacks: a statement without rows calls back once. */
  ex("SELECT a, b FROM t WHERE 0");
  ex("PRAGMA empty_result_callbacks = 1");
  ex("SELECT a, b FROM t WHERE 0");
  ex("SELECT a FROM t");
  ex("CREATE TABLE e(x)");
  ex("PRAGMA empty_result_callbacks = 0");
  ex("SELECT a, b FROM t WHERE 0");
  /* The heap limits: the pragmas and the C calls see one setting. */
  q("SELECT * FROM pragma_soft_heap_limit, pragma_hard_heap_limit");
  q("PRAGMA soft_heap_limit = 1000000");
  printf("soft %lld\n", (long long)sqlite3_soft_heap_limit64(-1));
  q("PRAGMA hard_heap_limit = 500000");
  printf("soft %lld hard %lld\n", (long long)sqlite3_soft_heap_limit64(-1), (long long)sqlite3_hard_heap_limit64(-1));
  q("PRAGMA hard_heap_limit = 800000; PRAGMA hard_heap_limit; PRAGMA soft_heap_limit = 0");
  printf("soft %lld\n", (long long)sqlite3_soft_heap_limit64(-1));
  sqlite3_hard_heap_limit64(0);
  sqlite3_soft_heap_limit64(0);
  q("SELECT * FROM pragma_soft_heap_limit, pragma_hard_heap_limit");
  q("PRAGMA analysis_limit = 50; SELECT * FROM pragma_analysis_limit; PRAGMA default_cache_size = 123; SELECT * FROM pragma_default_cache_size");
  sqlite3_close(db);
  return 0;
}
