/* SQL run on its own connection by a virtual table's xBestIndex (while the
** statement it plans is being prepared) and xConnect (a table connected by
** the prepare that first uses it), as SQLite allows: reading a
** configuration table, writing a log table in and out of a transaction,
** a nested prepare of a query on another virtual table (its xBestIndex
** runs nested in the first), a nested prepare that fails, DDL, and
** preparing while another statement of the connection is being stepped.
** The module "cfg" takes its estimatedCost from table config and its row
** count from config when it connects. Then the authorizer for statements
** xBestIndex prepares (as SQLite calls it for them: logged while xBestIndex
** runs; a denied read fails the nested prepare only, an ignored one reads
** NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static int bi_depth = 0;
static const char *bi_sql = 0; /* run by xBestIndex (outermost call only) */
static int bi_exec = 0;        /* run bi_sql with sqlite3_exec, not prepare/step */

static void run(const char *sql) {
  sqlite3_stmt *st; const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
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
static void q(const char *sql) { printf("%s\n", sql); run(sql); }

/* One integer from `sql` on the connection, or -1 (errors printed). */
static int int_query(const char *sql) {
  sqlite3_stmt *st = 0; int v = -1;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc != SQLITE_OK) { printf("    (nested prepare %d: %s)\n", rc, sqlite3_errmsg(db)); return -1; }
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) v = sqlite3_column_int(st, 0);
  else if (rc != SQLITE_DONE) printf("    (nested step %d: %s)\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return v;
}

/* The authorizer: logs its calls made while xBestIndex runs (statement
** kinds, and reads of config.v: ringlite asks about the other column reads
** in another order, and not about a virtual table's columns or count());
** a read of config.v is allowed, denied or ignored as auth_mode says, an
** INSERT into log denied under auth_mode 3. */
static int auth_mode = 0;
static int auth_cb(void *p, int code, const char *a, const char *b, const char *c, const char *d) {
  int shown = code != SQLITE_READ && code != SQLITE_FUNCTION;
  (void)p;
  if (code == SQLITE_READ && a && !strcmp(a, "config") && b && !strcmp(b, "v")) shown = 1;
  if (bi_depth > 0 && shown) printf("    (auth %d %s %s %s %s)\n", code, a ? a : "-", b ? b : "-", c ? c : "-", d ? d : "-");
  if (code == SQLITE_READ && a && !strcmp(a, "config") && b && !strcmp(b, "v")) return auth_mode == 1 ? SQLITE_DENY : auth_mode == 2 ? SQLITE_IGNORE : SQLITE_OK;
  if (code == SQLITE_INSERT && a && !strcmp(a, "log") && auth_mode == 3) return SQLITE_DENY;
  return SQLITE_OK;
}

typedef struct { sqlite3_vtab base; int rows; char name[32]; } T;
typedef struct { sqlite3_vtab_cursor base; int row, last; } C;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux;(void)err;(void)argc;
  int rows = int_query("SELECT v FROM config WHERE k = 'rows'");
  printf("  [xConnect %s rows=%d]\n", argv[2], rows);
  sqlite3_declare_vtab(d, "CREATE TABLE x(a, b)");
  T *t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t);
  t->rows = rows < 0 ? 3 : rows;
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  *pp = &t->base; return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  T *t = (T *)v; int i, n = 0;
  bi_depth++;
  int cost = int_query("SELECT v FROM config WHERE k = 'cost'");
  printf("  [xBestIndex %s depth=%d cost=%d n=%d", t->name, bi_depth, cost, info->nConstraint);
  for (i = 0; i < info->nConstraint; i++)
    printf(" {%d op%d%s}", info->aConstraint[i].iColumn, info->aConstraint[i].op, info->aConstraint[i].usable ? "" : " unusable");
  printf("]\n");
  if (bi_sql && bi_depth == 1) {
    if (bi_exec) {
      char *err = 0; int rc = sqlite3_exec(db, bi_sql, 0, 0, &err);
      printf("    (exec %d%s%s)\n", rc, err ? ": " : "", err ? err : "");
      sqlite3_free(err);
    } else {
      printf("    (query %d)\n", int_query(bi_sql));
    }
  }
  for (i = 0; i < info->nConstraint; i++) {
    struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->usable && c->iColumn == 0 && c->op == SQLITE_INDEX_CONSTRAINT_EQ && n == 0) {
      info->aConstraintUsage[i].argvIndex = ++n; info->aConstraintUsage[i].omit = 1;
    }
  }
  info->idxNum = n;
  info->estimatedCost = (cost < 0 ? 1000 : cost) / (n ? 10.0 : 1.0);
  info->estimatedRows = n ? 1 : t->rows;
  bi_depth--;
  return SQLITE_OK;
}
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; C *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  C *c = (C *)cur; T *t = (T *)cur->pVtab; (void)str;
  c->row = 1; c->last = t->rows;
  if (num == 1 && argc == 1) { c->row = c->last = sqlite3_value_int(argv[0]); if (c->row < 1 || c->row > t->rows) c->last = c->row - 1; }
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) { ((C *)cur)->row++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *cur) { C *c = (C *)cur; return c->row > c->last; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  C *c = (C *)cur; sqlite3_result_int(ctx, i == 0 ? c->row : c->row * 10); return SQLITE_OK;
}
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((C *)cur)->row; return SQLITE_OK; }
static sqlite3_module mod = { 0, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

int main(void) {
  const char *file = "t_engine_vtab_sqlcb.db";
  remove(file);
  sqlite3_open(file, &db);
  sqlite3_create_module(db, "cfg", &mod, 0);
  q("CREATE TABLE config(k PRIMARY KEY, v)");
  q("INSERT INTO config VALUES('cost', 500), ('rows', 4)");
  q("CREATE TABLE log(what)");
  q("CREATE TABLE t(x)");
  q("INSERT INTO t VALUES(2), (3), (9)");
  q("CREATE VIRTUAL TABLE v USING cfg");
  q("CREATE VIRTUAL TABLE w USING cfg");

  printf("-- xBestIndex reads the configuration\n");
  q("SELECT * FROM v WHERE a = 2");
  q("UPDATE config SET v = 50 WHERE k = 'cost'");
  q("SELECT * FROM v");
  printf("-- a join: every call reads it\n");
  q("SELECT t.x, v.b FROM t, v WHERE v.a = t.x ORDER BY 1");

  printf("-- xBestIndex prepares a query on another virtual table (nested xBestIndex)\n");
  bi_sql = "SELECT count(*) FROM w WHERE a = 1";
  q("SELECT a FROM v WHERE a = 3");
  printf("-- ... and on itself\n");
  bi_sql = "SELECT b FROM v WHERE a = 4";
  q("SELECT a FROM v WHERE a = 1");

  printf("-- a nested prepare that fails leaves the outer one alone\n");
  bi_sql = "SELECT * FROM no_such_table";
  q("SELECT a FROM v WHERE a = 2");
  printf("  errmsg after: %s\n", sqlite3_errmsg(db));

  printf("-- writes from xBestIndex, in autocommit and in a transaction\n");
  bi_sql = "INSERT INTO log VALUES('planned')"; bi_exec = 1;
  q("SELECT count(*) FROM v");
  q("SELECT * FROM log");
  q("BEGIN");
  q("INSERT INTO t VALUES(4)");
  q("SELECT a FROM v WHERE a = 4");
  q("SELECT count(*) FROM log");
  q("ROLLBACK");
  q("SELECT count(*) FROM log");
  q("SELECT count(*) FROM t");

  printf("-- DDL from xBestIndex\n");
  bi_sql = "CREATE TABLE IF NOT EXISTS made(x); INSERT INTO made VALUES(1)";
  q("SELECT a FROM v WHERE a = 1");
  bi_sql = 0; bi_exec = 0;
  q("SELECT count(*) FROM made");

  printf("-- prepared while another statement is stepped\n");
  {
    sqlite3_stmt *outer = 0;
    sqlite3_prepare_v2(db, "SELECT x FROM t ORDER BY x", -1, &outer, 0);
    while (sqlite3_step(outer) == SQLITE_ROW) {
      int x = sqlite3_column_int(outer, 0);
      char sql[96]; snprintf(sql, sizeof sql, "SELECT b FROM v WHERE a = %d", x);
      bi_sql = "SELECT count(*) FROM t";
      printf("%s\n", sql); run(sql);
    }
    sqlite3_finalize(outer);
    bi_sql = 0;
  }

  printf("-- the authorizer is asked about the statements xBestIndex prepares\n");
  sqlite3_set_authorizer(db, auth_cb, 0);
  q("SELECT * FROM v WHERE a = 2");
  auth_mode = 1;
  q("SELECT * FROM v WHERE a = 2");
  printf("  errmsg after: %s\n", sqlite3_errmsg(db));
  auth_mode = 2;
  q("SELECT * FROM v WHERE a = 3");
  bi_sql = "SELECT count(*) FROM w WHERE a = 1";
  auth_mode = 0;
  q("SELECT a FROM v WHERE a = 1");
  bi_sql = "INSERT INTO log VALUES('authorized')"; bi_exec = 1;
  q("SELECT a FROM v WHERE a = 1");
  auth_mode = 3;
  q("SELECT a FROM v WHERE a = 1");
  q("SELECT what FROM log");
  bi_sql = 0; bi_exec = 0; auth_mode = 0;
  sqlite3_set_authorizer(db, 0, 0);
  q("SELECT * FROM v WHERE a = 2");

  printf("-- xConnect reads the configuration when a prepare connects the table\n");
  sqlite3_close(db);
  sqlite3_open(file, &db);
  sqlite3_create_module(db, "cfg", &mod, 0);
  q("UPDATE config SET v = 6 WHERE k = 'rows'");
  q("SELECT count(*) FROM v");
  bi_sql = "SELECT count(*) FROM w";
  q("SELECT a FROM v WHERE a = 5");
  bi_sql = 0;
  sqlite3_close(db);
  remove(file);
  return 0;
}
