/* The authorizer's SQLITE_READ and SQLITE_FUNCTION calls while a SELECT
** is prepared, in the order SQLite's resolver makes them (the result list
** with `*` expanded, HAVING, WHERE, the ON clauses, ORDER BY, GROUP BY; a
** function before its arguments, `x LIKE y` as like(y, x); each name
** each time it is met), over ordinary tables and virtual tables (whose
** columns are asked about as a table's), in joins and in a CTE's body
** (the CTE's name as context), a result alias standing for a column
** (read again), views (their tables' columns with the view's name as
** context, then the view's own columns, then a SELECT with the view's
** name as context; a CTE's SELECT likewise); then SQLITE_DENY and
** SQLITE_IGNORE on a virtual table's column, a view's column and an
** aggregate function; subqueries in expressions and in FROM, compounds,
** a table no column of which is read and a USING join. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static int logging, deny_code = -1, ignore_code = -1;
static const char *target = 0;
static const char *s(const char *p) { return p ? p : "NULL"; }
static int auth(void *p, int code, const char *a, const char *b, const char *d, const char *ctx) {
  (void)p;
  if (logging && !(a && !strncmp(a, "sqlite_", 7))) printf("  [auth %d %s %s %s %s]\n", code, s(a), s(b), s(d), s(ctx));
  int hit = !target || (a && !strcmp(a, target)) || (b && !strcmp(b, target));
  if (code == deny_code && hit) return SQLITE_DENY;
  if (code == ignore_code && hit) return SQLITE_IGNORE;
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

/* "tv": rows 1..n, a = i, b = i % 3, c = 'x' || i, hidden h. */
typedef struct { sqlite3_vtab base; int rows; } T;
typedef struct { sqlite3_vtab_cursor base; int row, last; } C;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a INTEGER, b, c TEXT, h HIDDEN)");
  T *t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t);
  t->rows = argc > 3 ? atoi(argv[3]) : 4;
  *pp = &t->base; return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 1000; return SQLITE_OK; }
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; C *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  C *c = (C *)cur; (void)num; (void)str; (void)argc; (void)argv;
  c->row = 1; c->last = ((T *)cur->pVtab)->rows; return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) { ((C *)cur)->row++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *cur) { C *c = (C *)cur; return c->row > c->last; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  C *c = (C *)cur;
  if (i == 0) sqlite3_result_int(ctx, c->row);
  else if (i == 1) sqlite3_result_int(ctx, c->row % 3);
  else if (i == 2) sqlite3_result_text(ctx, sqlite3_mprintf("x%d", c->row), -1, sqlite3_free);
  else sqlite3_result_null(ctx);
  return SQLITE_OK;
}
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((C *)cur)->row; return SQLITE_OK; }
static sqlite3_module mod = { 2, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid, 0,0,0,0,0,0,0,0,0,0,0,0 };

int main(void) {
  static const char *const qs[] = {
    /* ordinary tables */
    "SELECT a, b FROM s WHERE b = 1 ORDER BY a",
    "SELECT b, a FROM s WHERE a > 0 AND b < 9 ORDER BY b DESC, a",
    "SELECT a AS k, b FROM s WHERE k > 1 ORDER BY k",
    "SELECT b AS a FROM s ORDER BY a",
    "SELECT a FROM s ORDER BY 1",
    "SELECT * FROM s WHERE b = 2",
    "SELECT s.*, r.x FROM s, r WHERE r.x = s.a",
    "SELECT * FROM s JOIN r ON r.x = s.b WHERE s.a > 1",
    "SELECT * FROM s LEFT JOIN r ON r.x = s.a AND r.x > 1",
    "SELECT b, count(*) FROM s GROUP BY b HAVING max(a) > 1 ORDER BY b",
    "SELECT b, sum(a) FROM s WHERE a > 0 GROUP BY b",
    "SELECT max(a), min(b) FROM s",
    "SELECT count(a) FROM s WHERE b > 0",
    "SELECT upper(c), length(b) FROM s",
    "SELECT a FROM s WHERE c LIKE 'x%'",
    "SELECT a FROM s WHERE c GLOB 'x*' AND b NOT LIKE 'y'",
    "SELECT coalesce(a, b), abs(a) + abs(b) FROM s",
    "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) FROM s",
    "SELECT group_concat(c, b) FROM s",
    "SELECT a FROM s WHERE a IN (1, b) OR b BETWEEN a AND c",
    "SELECT DISTINCT b FROM s",
    /* virtual tables */
    "SELECT a FROM v",
    "SELECT * FROM v",
    "SELECT a, c FROM v WHERE b = 1",
    "SELECT a, c FROM v WHERE b = 1 ORDER BY a",
    "SELECT v.*, h FROM v",
    "SELECT rowid, * FROM v",
    "SELECT a FROM v('q')",
    "SELECT * FROM v, w WHERE v.a = w.b",
    "SELECT v.a, w.c FROM v JOIN w ON w.a = v.b",
    "SELECT s.a, v.c FROM s, v WHERE v.a = s.b",
    "SELECT b, count(*) FROM v GROUP BY b ORDER BY c",
    "SELECT max(a), min(c) FROM v",
    "SELECT count(*) FROM v WHERE a > 1",
    "SELECT a FROM v ORDER BY c",
    "SELECT upper(c) FROM v WHERE c LIKE 'x%'",
    /* result aliases named in WHERE, HAVING, ORDER BY (a copy of the
    ** aliased expression: read again when it is a column) */
    "SELECT a + 1 AS k FROM s WHERE k > 1",
    "SELECT b AS k, count(*) FROM s GROUP BY k HAVING k > 0 ORDER BY k + 0",
    "SELECT c AS k FROM s ORDER BY k || 'z'",
    /* views: their tables' columns (the view's name as context), the
    ** view's own columns, then the view's SELECT */
    "SELECT * FROM sv",
    "SELECT a FROM sv WHERE b > 1",
    "SELECT x FROM r, sv WHERE sv.a = r.x",
    "SELECT * FROM vv WHERE a > 2",
    "SELECT count(*) FROM sv AS t1, vv AS t2 WHERE t1.a = t2.a",
    /* a CTE's body */
    "WITH c AS (SELECT a, b FROM s) SELECT * FROM c",
    "WITH c AS (SELECT a, c FROM v WHERE b = 1) SELECT a FROM c",
    "WITH Cx AS (SELECT a FROM v) SELECT * FROM Cx",
    "WITH sv AS (SELECT c AS a FROM s) SELECT a FROM sv",
    "WITH c AS (SELECT a FROM sv) SELECT * FROM c, vv WHERE vv.a = c.a",
    /* subqueries (their reads where the resolver meets them, their
    ** SELECT when coded), FROM subqueries, compounds (the last arm's
    ** reads first, a SELECT per arm), a table no column of which is read
    ** (READ with an empty column), a USING join (its equality reads
    ** nothing) */
    "SELECT count(*) FROM s",
    "SELECT b FROM s WHERE a IN (SELECT x FROM r WHERE x > 1) AND c > ''",
    "SELECT (SELECT max(x) FROM r WHERE r.x = s.a), b FROM s",
    "SELECT * FROM (SELECT a, b FROM s WHERE b > 1) AS q WHERE q.a > 0",
    "SELECT a FROM s UNION SELECT x FROM r ORDER BY 1",
    "SELECT s.b FROM s JOIN r ON r.x = s.a JOIN s AS s2 USING (a)",
    "SELECT a FROM v WHERE a IN (SELECT x FROM r)",
    NULL };
  int i;
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "tv", &mod, 0);
  q("CREATE VIRTUAL TABLE v USING tv; CREATE VIRTUAL TABLE w USING tv(3)");
  q("CREATE TABLE r(x); INSERT INTO r VALUES (1), (2), (3)");
  q("CREATE TABLE s(a, b, c); INSERT INTO s VALUES (1, 1, 'x1'), (2, 2, 'x2'), (5, 2, 'y5')");
  q("CREATE VIEW sv AS SELECT a, b FROM s; CREATE VIEW vv AS SELECT a, c FROM v");
  sqlite3_set_authorizer(db, auth, 0);
  logging = 1;
  for (i = 0; qs[i]; i++) q(qs[i]);
  printf("=== deny and ignore\n");
  deny_code = SQLITE_READ; target = "c";
  q("SELECT a FROM v");
  q("SELECT a, c FROM v");
  q("SELECT a FROM v WHERE c = 'x1'");
  deny_code = -1; ignore_code = SQLITE_READ;
  q("SELECT a, c FROM v");
  q("SELECT a, c FROM v WHERE c IS NULL");
  q("SELECT * FROM v, w WHERE v.a = w.a");
  target = "b";
  q("SELECT a, b FROM v");
  q("SELECT a, b FROM sv");
  target = "a";
  q("SELECT a, b FROM sv WHERE a > 1");
  ignore_code = -1; deny_code = SQLITE_FUNCTION; target = "max";
  q("SELECT max(a) FROM v");
  q("SELECT max(a, 2) FROM v");
  q("SELECT a FROM s ORDER BY max(a, b)");
  deny_code = -1;
  sqlite3_set_authorizer(db, 0, 0);
  sqlite3_close(db);
  return 0;
}
