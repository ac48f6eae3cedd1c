/* The authorizer calls of statements that write the schema table, every
** call logged (the schema table's too): SQLite writes a new table's,
** view's or virtual table's row with a statement of its own (an UPDATE of
** each column of sqlite_master, then a read of its rowid), a trigger's
** and an index's with an INSERT; a denial there fails the CREATE. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;
static int deny_code = -1;
static const char *deny_arg = 0;

static const char *s(const char *p) { return p ? p : "NULL"; }

static int auth(void *p, int code, const char *a, const char *b, const char *d, const char *trig) {
  (void)p;
  printf("  auth %d %s %s %s %s\n", code, s(a), s(b), s(d), s(trig));
  if (code == deny_code && (!deny_arg || (b && !strcmp(b, deny_arg)))) return SQLITE_DENY;
  return SQLITE_OK;
}

static int print_name(void *p, int n, char **v, char **c) {
  (void)p; (void)n; (void)c;
  printf("  %s\n", v[0] ? v[0] : "NULL");
  return 0;
}

static void run(const char *sql) {
  char *err = 0;
  printf("%s\n", sql);
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  printf("  -> rc=%d %s\n", rc, err ? err : "");
  sqlite3_free(err);
}

/* A one-column module with no shadow tables. */
typedef struct { sqlite3_vtab base; } T;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a)");
  T *t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  *pp = &t->base;
  return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 1; return SQLITE_OK; }
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  sqlite3_vtab_cursor *c = sqlite3_malloc(sizeof *c);
  memset(c, 0, sizeof *c);
  *pp = c;
  return SQLITE_OK;
}
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *c, int n, const char *s, int argc, sqlite3_value **argv) { (void)c; (void)n; (void)s; (void)argc; (void)argv; return SQLITE_OK; }
static int xNext(sqlite3_vtab_cursor *c) { (void)c; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *c) { (void)c; return 1; }
static int xColumn(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) { (void)c; (void)i; sqlite3_result_null(ctx); return SQLITE_OK; }
static int xRowid(sqlite3_vtab_cursor *c, sqlite3_int64 *r) { (void)c; *r = 0; return SQLITE_OK; }
static sqlite3_module mod = { 0, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "m", &mod, 0);
  sqlite3_set_authorizer(db, auth, 0);
  run("CREATE TABLE t1(a, b)");
  run("CREATE TABLE IF NOT EXISTS t1(a, b)");
  run("CREATE TEMP TABLE tt(x)");
  run("CREATE VIEW v1 AS SELECT a FROM t1");
  run("CREATE VIEW IF NOT EXISTS v1 AS SELECT a FROM t1");
  run("CREATE TEMP VIEW tv AS SELECT 1");
  run("CREATE VIRTUAL TABLE vt USING m");
  run("CREATE VIRTUAL TABLE IF NOT EXISTS vt USING m");
  run("CREATE VIRTUAL TABLE temp.vt2 USING m");
  deny_code = SQLITE_UPDATE; deny_arg = "sql";
  run("CREATE TABLE t2(x)");
  run("CREATE VIEW v2 AS SELECT 1");
  run("CREATE VIRTUAL TABLE vt3 USING m");
  deny_code = SQLITE_READ; deny_arg = "ROWID";
  run("CREATE TABLE t2(x)");
  deny_code = -1; deny_arg = 0;
  run("CREATE INDEX i1 ON t1(b)");
  run("CREATE TRIGGER tr1 AFTER INSERT ON t1 BEGIN SELECT 1; END");
  run("CREATE TEMP TRIGGER tr2 AFTER INSERT ON t1 BEGIN SELECT 1; END");
  run("DROP TRIGGER tr1");
  run("DROP INDEX i1");
  run("DROP VIEW v1");
  run("DROP TABLE vt");
  run("DROP TABLE t1");
  /* What is left, read without the authorizer. */
  sqlite3_set_authorizer(db, 0, 0);
  sqlite3_exec(db, "SELECT name FROM sqlite_master UNION ALL SELECT name FROM sqlite_temp_master ORDER BY 1", print_name, 0, 0);
  sqlite3_close(db);
  return 0;
}
