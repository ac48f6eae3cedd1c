/* sqlite3_vtab_in (c3ref/vtab_in.txt): a module taking an IN constraint
** all at once gets one xFilter argument holding the whole list, walked
** with sqlite3_vtab_in_first/next; declining keeps one xFilter call per
** value; what sqlite3_vtab_in answers for other constraints. */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { sqlite3_vtab base; int take_in; } Tab;
typedef struct { sqlite3_vtab_cursor base; int vals[32]; int n, at; } Cur;

static int xConnect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  Tab *t = calloc(1, sizeof *t);
  (void)argc; (void)argv; (void)err;
  t->take_in = aux != 0;
  sqlite3_declare_vtab(db, "CREATE TABLE x(a INTEGER, b TEXT)");
  *pp = &t->base;
  return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *p) { free(p); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *p, sqlite3_index_info *info) {
  Tab *t = (Tab *)p;
  int i, n = 0;
  for (i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int in = sqlite3_vtab_in(info, i, -1);
    printf("  bestindex: col=%d op=%d usable=%d in=%d\n", c->iColumn, c->op, c->usable, in);
    if (c->usable && c->iColumn == 0 && c->op == SQLITE_INDEX_CONSTRAINT_EQ && n == 0) {
      if (in && t->take_in) printf("  take all at once: %d\n", sqlite3_vtab_in(info, i, 1));
      info->aConstraintUsage[i].argvIndex = ++n;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
    }
  }
  info->estimatedCost = n ? 10 : 1000;
  return SQLITE_OK;
}
static int xOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **pp) {
  Cur *c = calloc(1, sizeof *c);
  (void)p;
  *pp = &c->base;
  return SQLITE_OK;
}
static int xClose(sqlite3_vtab_cursor *c) { free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *pc, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  Cur *c = (Cur *)pc;
  int rc, i;
  (void)idxStr;
  c->n = 0; c->at = 0;
  if (idxNum == 0) {
    for (i = 1; i <= 5; i++) c->vals[c->n++] = i;
    printf("  filter: scan\n");
    return SQLITE_OK;
  }
  if (argc < 1) return SQLITE_ERROR;
  {
    sqlite3_value *v = 0;
    rc = sqlite3_vtab_in_first(argv[0], &v);
    if (rc == SQLITE_OK || rc == SQLITE_DONE) {
      printf("  filter: list type=%d:", sqlite3_value_type(argv[0]));
      for (; rc == SQLITE_OK && v; rc = sqlite3_vtab_in_next(argv[0], &v)) {
        printf(" %s(%d)", sqlite3_value_text(v), sqlite3_value_type(v));
        if (sqlite3_value_type(v) == SQLITE_INTEGER && c->n < 32) c->vals[c->n++] = sqlite3_value_int(v);
      }
      printf(" rc=%d\n", rc);
      /* a second walk from the start */
      rc = sqlite3_vtab_in_first(argv[0], &v);
      printf("  again first rc=%d %s\n", rc, v ? (const char *)sqlite3_value_text(v) : "-");
    } else {
      printf("  filter: value %s (in_first rc=%d)\n", sqlite3_value_text(argv[0]), rc);
      if (c->n < 32) c->vals[c->n++] = sqlite3_value_int(argv[0]);
    }
  }
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *pc) { ((Cur *)pc)->at++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *pc) { Cur *c = (Cur *)pc; return c->at >= c->n; }
static int xColumn(sqlite3_vtab_cursor *pc, sqlite3_context *ctx, int i) {
  Cur *c = (Cur *)pc;
  char buf[32];
  if (i == 0) sqlite3_result_int(ctx, c->vals[c->at]);
  else { snprintf(buf, sizeof buf, "row%d", c->vals[c->at]); sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT); }
  return SQLITE_OK;
}
static int xRowid(sqlite3_vtab_cursor *pc, sqlite3_int64 *r) { Cur *c = (Cur *)pc; *r = c->vals[c->at]; return SQLITE_OK; }

static sqlite3_module mod = {0, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid,
                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare rc=%d %s\n", rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf("  row:");
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf(" %s", t ? (const char *)t : "NULL");
    }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step rc=%d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  sqlite3_value *v = 0;
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "takes", &mod, (void *)1);
  sqlite3_create_module(db, "loops", &mod, 0);
  sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING takes; CREATE VIRTUAL TABLE u USING loops", 0, 0, 0);
  show(db, "SELECT a, b FROM t WHERE a IN (3, 1, 'x', 3, NULL, 2.0, 7)");
  show(db, "SELECT a, b FROM u WHERE a IN (3, 1, 3, 7)");
  show(db, "SELECT a FROM t WHERE a = 2");
  show(db, "SELECT a FROM t WHERE a IN (4)");
  show(db, "SELECT a FROM t WHERE a IN (NULL)");
  show(db, "SELECT a FROM t WHERE b IN ('row1', 'row2')");
  show(db, "SELECT count(*) FROM t WHERE a IN (1, 2) AND b IN ('row1')");
  printf("in_first on NULL: %d\n", sqlite3_vtab_in_first(0, &v));
  sqlite3_close(db);
  return 0;
}
