/* Virtual tables written in C, read-only: an eponymous-only table-valued
** function (series), a module whose tables take their columns from the
** CREATE VIRTUAL TABLE arguments (cols), one whose xFilter runs SQL on its
** own connection (sqlview), errors of constructors and of xBestIndex, and
** xConnect when a file holding a virtual table is opened again. The
** modules print the calls whose order SQLite documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

static void run(const char *sql) {
  sqlite3_stmt *st;
  const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int i, n = sqlite3_column_count(st);
      printf("  ");
      for (i = 0; i < n; i++) {
        const unsigned char *t = sqlite3_column_text(st, i);
        printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL");
      }
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}

static void q(const char *sql) { printf("%s\n", sql); run(sql); }

/* EXPLAIN QUERY PLAN's detail column only (the ids and the cost column of
** ordinary tables' lines are not compared here). */
static void plan(const char *sql) {
  sqlite3_stmt *st;
  printf("%s\n", sql);
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); return; }
  while (sqlite3_step(st) == SQLITE_ROW) printf("  %s\n", (const char *)sqlite3_column_text(st, 3));
  sqlite3_finalize(st);
}

/* ---- series(start, stop, step) ---- */
typedef struct { sqlite3_vtab base; } SeriesTab;
typedef struct { sqlite3_vtab_cursor base; sqlite3_int64 start, stop, step, value; int desc; } SeriesCur;
static unsigned seen_ops[256];

static int seriesConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  SeriesTab *t;
  (void)aux; (void)argc; (void)argv; (void)err;
  int rc = sqlite3_declare_vtab(d, "CREATE TABLE x(value, start HIDDEN, stop HIDDEN, step HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(d, SQLITE_VTAB_INNOCUOUS);
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  *pp = &t->base;
  return SQLITE_OK;
}
static int seriesDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int seriesBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i, num = 0, argv = 0, bit;
  for (i = 0; i < info->nConstraint; i++) seen_ops[info->aConstraint[i].op] = 1;
  for (bit = 0; bit < 3; bit++) {
    int found = -1, present = 0;
    for (i = 0; i < info->nConstraint; i++) {
      const struct sqlite3_index_constraint *c = &info->aConstraint[i];
      if (c->iColumn == bit + 1 && c->op == SQLITE_INDEX_CONSTRAINT_EQ) { present = 1; if (c->usable) found = i; }
    }
    if (found >= 0) {
      info->aConstraintUsage[found].argvIndex = ++argv;
      info->aConstraintUsage[found].omit = 1;
      num |= 1 << bit;
    } else if (present) {
      return SQLITE_CONSTRAINT;
    }
  }
  if ((num & 3) != 3) {
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("series needs start and stop");
    return SQLITE_ERROR;
  }
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 0) {
    if (info->aOrderBy[0].desc) num |= 8;
    info->orderByConsumed = 1;
  }
  info->idxNum = num;
  info->idxStr = sqlite3_mprintf("plan%d", num);
  info->needToFreeIdxStr = 1;
  info->estimatedCost = 10;
  info->estimatedRows = 10;
  return SQLITE_OK;
}
static int seriesOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  SeriesCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int seriesClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int seriesFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  SeriesCur *c = (SeriesCur *)cur;
  int k = 0;
  (void)argc;
  if (strncmp(str, "plan", 4) != 0) return SQLITE_ERROR;
  c->start = sqlite3_value_int64(argv[k++]);
  c->stop = sqlite3_value_int64(argv[k++]);
  c->step = (num & 4) ? sqlite3_value_int64(argv[k++]) : 1;
  if (c->step < 1) c->step = 1;
  c->desc = (num & 8) != 0;
  c->value = c->desc ? c->start + (c->stop - c->start) / c->step * c->step : c->start;
  return SQLITE_OK;
}
static int seriesNext(sqlite3_vtab_cursor *cur) {
  SeriesCur *c = (SeriesCur *)cur;
  c->value += c->desc ? -c->step : c->step;
  return SQLITE_OK;
}
static int seriesEof(sqlite3_vtab_cursor *cur) {
  SeriesCur *c = (SeriesCur *)cur;
  return c->value < c->start || c->value > c->stop;
}
static int seriesColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  SeriesCur *c = (SeriesCur *)cur;
  sqlite3_int64 v = i == 0 ? c->value : i == 1 ? c->start : i == 2 ? c->stop : c->step;
  sqlite3_result_int64(ctx, v);
  return SQLITE_OK;
}
static int seriesRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) {
  SeriesCur *c = (SeriesCur *)cur;
  *r = (c->value - c->start) / c->step + 1;
  return SQLITE_OK;
}
static sqlite3_module seriesModule = {
  0, 0, seriesConnect, seriesBestIndex, seriesDisconnect, 0, seriesOpen, seriesClose, seriesFilter,
  seriesNext, seriesEof, seriesColumn, seriesRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/* ---- cols(a, b, ...): rows 1..3, column i of row r is r*10+i ---- */
typedef struct { sqlite3_vtab base; int ncol; char name[64]; } ColsTab;
typedef struct { sqlite3_vtab_cursor base; int row; int eq; } ColsCur;

static int colsInit(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err, const char *how) {
  char sql[1000] = "CREATE TABLE x(";
  int i;
  ColsTab *t;
  printf("  [%s %s argc=%d aux=%s", how, argv[2], argc, (const char *)aux);
  for (i = 3; i < argc; i++) printf(" '%s'", argv[i]);
  printf(" db=%s]\n", argv[1]);
  if (argc > 3 && strcmp(argv[3], "fail") == 0) { *err = sqlite3_mprintf("cols: told to fail"); return SQLITE_ERROR; }
  if (argc > 3 && strcmp(argv[3], "silent") == 0) return SQLITE_ERROR;
  if (argc > 3 && strcmp(argv[3], "nodecl") == 0) {
    t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t); *pp = &t->base; return SQLITE_OK;
  }
  if (argc > 3 && strcmp(argv[3], "baddecl") == 0) {
    int rc = sqlite3_declare_vtab(d, "CREATE TABLE x(a,");
    printf("  [declare_vtab bad -> %d]\n", rc);
    return rc;
  }
  for (i = 3; i < argc; i++) { strcat(sql, i > 3 ? "," : ""); strcat(sql, argv[i]); }
  if (argc == 3) strcat(sql, "c");
  strcat(sql, ")");
  if (sqlite3_declare_vtab(d, sql) != SQLITE_OK) return SQLITE_ERROR;
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->ncol = argc > 3 ? argc - 3 : 1;
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  *pp = &t->base;
  return SQLITE_OK;
}
static int colsCreate(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  return colsInit(d, aux, argc, argv, pp, err, "xCreate");
}
static int colsConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  return colsInit(d, aux, argc, argv, pp, err, "xConnect");
}
static int colsDisconnect(sqlite3_vtab *v) { printf("  [xDisconnect %s]\n", ((ColsTab *)v)->name); sqlite3_free(v); return SQLITE_OK; }
static int colsDestroy(sqlite3_vtab *v) { printf("  [xDestroy %s]\n", ((ColsTab *)v)->name); sqlite3_free(v); return SQLITE_OK; }
static int colsBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i;
  (void)v;
  info->idxNum = 0;
  info->estimatedCost = 1000;
  for (i = 0; i < info->nConstraint; i++) {
    /* rowid = ? is served directly. */
    if (info->aConstraint[i].iColumn == -1 && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ && info->aConstraint[i].usable) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->idxNum = 1;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
      break;
    }
  }
  return SQLITE_OK;
}
static int colsOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  ColsCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int colsClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int colsFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  ColsCur *c = (ColsCur *)cur;
  (void)str; (void)argc;
  c->eq = num == 1 ? sqlite3_value_int(argv[0]) : 0;
  c->row = c->eq ? c->eq : 1;
  return SQLITE_OK;
}
static int colsNext(sqlite3_vtab_cursor *cur) { ColsCur *c = (ColsCur *)cur; c->row = c->eq ? 99 : c->row + 1; return SQLITE_OK; }
static int colsEof(sqlite3_vtab_cursor *cur) { ColsCur *c = (ColsCur *)cur; return c->row < 1 || c->row > 3; }
static int colsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  ColsCur *c = (ColsCur *)cur;
  if (i == 2 && c->row == 2) { sqlite3_result_error(ctx, "cols: no value here", -1); return SQLITE_ERROR; }
  sqlite3_result_int(ctx, c->row * 10 + i);
  return SQLITE_OK;
}
static int colsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((ColsCur *)cur)->row; return SQLITE_OK; }
static sqlite3_module colsModule = {
  1, colsCreate, colsConnect, colsBestIndex, colsDisconnect, colsDestroy, colsOpen, colsClose, colsFilter,
  colsNext, colsEof, colsColumn, colsRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/* ---- sqlview(table): xFilter reads the table with SQL on its own connection ---- */
typedef struct { sqlite3_vtab base; sqlite3 *db; char table[64]; } ViewTab;
typedef struct { sqlite3_vtab_cursor base; sqlite3_int64 vals[100]; int n, i; } ViewCur;

static int viewConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  ViewTab *t;
  (void)aux; (void)err;
  if (argc < 4) return SQLITE_ERROR;
  if (sqlite3_declare_vtab(d, "CREATE TABLE x(v INTEGER)") != SQLITE_OK) return SQLITE_ERROR;
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->db = d;
  snprintf(t->table, sizeof t->table, "%s", argv[3]);
  *pp = &t->base;
  return SQLITE_OK;
}
static int viewBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 100; return SQLITE_OK; }
static int viewOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  ViewCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int viewFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  ViewCur *c = (ViewCur *)cur;
  ViewTab *t = (ViewTab *)cur->pVtab;
  sqlite3_stmt *st;
  char *sql = sqlite3_mprintf("SELECT x * 2 FROM \"%w\" ORDER BY x", t->table);
  int rc;
  (void)num; (void)str; (void)argc; (void)argv;
  rc = sqlite3_prepare_v2(t->db, sql, -1, &st, 0);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    cur->pVtab->zErrMsg = sqlite3_mprintf("sqlview: %s", sqlite3_errmsg(t->db));
    return rc;
  }
  c->n = c->i = 0;
  while (sqlite3_step(st) == SQLITE_ROW && c->n < 100) c->vals[c->n++] = sqlite3_column_int64(st, 0);
  return sqlite3_finalize(st);
}
static int viewNext(sqlite3_vtab_cursor *cur) { ((ViewCur *)cur)->i++; return SQLITE_OK; }
static int viewEof(sqlite3_vtab_cursor *cur) { ViewCur *c = (ViewCur *)cur; return c->i >= c->n; }
static int viewColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  ViewCur *c = (ViewCur *)cur;
  (void)i;
  sqlite3_result_int64(ctx, c->vals[c->i]);
  return SQLITE_OK;
}
static int viewRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((ViewCur *)cur)->i + 1; return SQLITE_OK; }
static sqlite3_module viewModule = {
  1, viewConnect, viewConnect, viewBestIndex, seriesDisconnect, seriesDisconnect, viewOpen, seriesClose, viewFilter,
  viewNext, viewEof, viewColumn, viewRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static int destroyed;
static void aux_destroy(void *p) { printf("  [module destructor %s]\n", (const char *)p); destroyed++; }

int main(void) {
  const char *file = "t_engine_vtab.db";
  int rc, i;
  remove(file);
  sqlite3_open(file, &db);
  printf("create_module series: %d\n", sqlite3_create_module(db, "series", &seriesModule, 0));
  printf("create_module_v2 cols: %d\n", sqlite3_create_module_v2(db, "cols", &colsModule, "A", aux_destroy));
  printf("create_module sqlview: %d\n", sqlite3_create_module(db, "sqlview", &viewModule, 0));
  printf("declare_vtab outside a constructor: %d\n", sqlite3_declare_vtab(db, "CREATE TABLE x(a)"));
  printf("vtab_config outside a constructor: %d\n", sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY));

  q("SELECT value FROM series(1, 5)");
  q("SELECT value, start, stop, step FROM series(0, 20, 7)");
  q("SELECT * FROM series(1, 10, 2) WHERE value > 3");
  q("SELECT value FROM series(1, 10) ORDER BY value DESC LIMIT 3");
  q("SELECT sum(value), count(*) FROM series WHERE start = 1 AND stop = 100");
  q("SELECT rowid, value FROM series(10, 12)");
  q("SELECT value FROM series(1)");
  q("SELECT value FROM series(1, 2, 3, 4)");
  q("EXPLAIN QUERY PLAN SELECT value FROM series(1, 5)");
  q("CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 3), (4, 5), (7, 6)");
  q("SELECT a, value FROM t, series(t.a, t.b) ORDER BY 1, 2");
  q("SELECT a, (SELECT group_concat(value) FROM series(1, a)) FROM t");
  q("SELECT a, value FROM t LEFT JOIN series(2, 4) ON value = a");
  memset(seen_ops, 0, sizeof seen_ops);
  q("SELECT value FROM series(1, 20) WHERE value > 1 AND value <= 9 AND value < 8 AND value >= 2 AND value != 5 "
    "AND value IS NOT 6 AND value IS NOT NULL AND value LIKE '%' AND value GLOB '*' AND start IS 1");
  printf("  ops:");
  for (i = 0; i < 256; i++) if (seen_ops[i]) printf(" %d", i);
  printf("\n");
  q("INSERT INTO series VALUES (1)");

  q("CREATE VIRTUAL TABLE c1 USING cols(p, q INTEGER, \"r s\" HIDDEN)");
  q("SELECT sql, rootpage, type FROM sqlite_schema WHERE name = 'c1'");
  q("SELECT * FROM c1 WHERE rowid <> 2");
  q("SELECT p, q, \"r s\", rowid FROM c1 WHERE rowid = 3");
  q("SELECT * FROM c1");
  q("SELECT \"r s\" FROM c1");
  q("PRAGMA table_info(c1)");
  q("PRAGMA table_xinfo(c1)");
  q("SELECT name, type, hidden FROM pragma_table_xinfo('c1')");
  q("EXPLAIN QUERY PLAN SELECT * FROM c1 WHERE rowid = 1");
  q("SELECT t.a, c1.p FROM t JOIN c1 ON c1.rowid = t.a");
  q("SELECT rowid, p FROM c1 WHERE rowid IN (3, 1, 3, NULL, 7)");
  plan("EXPLAIN QUERY PLAN SELECT t.a, c1.p FROM c1, t WHERE c1.rowid = t.a");
  q("SELECT t.a, c1.p FROM c1, t WHERE c1.rowid = t.a");
  plan("EXPLAIN QUERY PLAN SELECT a, value FROM t, series(t.a, t.b)");
  q("SELECT t.a, c1.p FROM t, c1 WHERE c1.rowid IN (t.a, 2) ORDER BY 1, 2");
  q("SELECT p FROM c1 WHERE rowid IN (SELECT 2)");
  q("CREATE VIRTUAL TABLE IF NOT EXISTS c1 USING cols(z)");
  q("CREATE VIRTUAL TABLE c1 USING cols(z)");
  q("CREATE VIRTUAL TABLE c2 USING cols(fail)");
  q("CREATE VIRTUAL TABLE c3 USING cols(silent)");
  q("CREATE VIRTUAL TABLE c4 USING cols(nodecl)");
  q("CREATE VIRTUAL TABLE c5 USING cols(baddecl)");
  q("SELECT name FROM sqlite_schema ORDER BY name");
  q("CREATE VIRTUAL TABLE c6 USING nosuchmodule(a)");
  q("CREATE VIRTUAL TABLE c7 USING series");
  q("CREATE VIRTUAL TABLE temp.c8 USING cols");
  q("SELECT * FROM temp.c8");
  q("CREATE VIRTUAL TABLE c9 USING cols(x)");
  q("DROP TABLE c9");
  q("SELECT name FROM sqlite_schema ORDER BY name");
  q("UPDATE c1 SET p = 1");
  q("CREATE INDEX i ON c1(p)");

  q("CREATE TABLE src(x); INSERT INTO src VALUES (3), (1), (2)");
  q("CREATE VIRTUAL TABLE v USING sqlview(src)");
  q("SELECT v FROM v");
  q("SELECT src.x, v.v FROM src, v WHERE v.v = src.x * 2 ORDER BY 1");
  q("CREATE VIRTUAL TABLE vbad USING sqlview(nosuchtable)");
  q("SELECT * FROM vbad");

  printf("close: %d\n", sqlite3_close(db));
  printf("destructor calls: %d\n", destroyed);

  /* Open again: the tables reconnect (xConnect) on first use. */
  sqlite3_open(file, &db);
  q("SELECT count(*) FROM sqlite_schema");
  q("SELECT * FROM c1");
  printf("create_module_v2 cols: %d\n", sqlite3_create_module_v2(db, "cols", &colsModule, "B", aux_destroy));
  q("SELECT * FROM c1");
  q("SELECT p FROM c1 WHERE rowid = 2");
  printf("replace cols: %d\n", sqlite3_create_module_v2(db, "cols", &colsModule, "C", aux_destroy));
  q("SELECT p FROM c1 WHERE rowid = 1");
  printf("drop_modules: %d\n", sqlite3_drop_modules(db, 0));
  q("SELECT * FROM c1");
  rc = sqlite3_close(db);
  printf("close: %d, destructor calls: %d\n", rc, destroyed);
  remove(file);
  return 0;
}
