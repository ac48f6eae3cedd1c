/* sqlite3_vtab_nochange() and sqlite3_value_nochange() in UPDATEs of a
** virtual table: which xColumn calls are told the column is not changed,
** which values xUpdate then sees as unchanged (the module left them
** unset), for single-row plans (SQLITE_INDEX_SCAN_UNIQUE) and scans,
** UPDATE ... FROM, rowid changes, OR REPLACE, expressions reading the
** unchanged columns, and a trigger on an ordinary table writing the
** virtual table. Column a is always computed; b, c and the hidden h are
** left unset when sqlite3_vtab_nochange() is true. */
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

#define NCOL 4
#define MAXROWS 16
typedef struct { sqlite3_int64 id; char *v[NCOL]; int used; } Row;
typedef struct { sqlite3_vtab base; int unique; Row rows[MAXROWS]; } NcTab;
typedef struct { sqlite3_vtab_cursor base; int i; sqlite3_int64 eq; int has_eq; } NcCur;

static const char *colname[NCOL] = {"a", "b", "c", "h"};

static int ncInit(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  NcTab *t;
  (void)aux; (void)err;
  if (sqlite3_declare_vtab(d, "CREATE TABLE x(a, b, c, h HIDDEN)") != SQLITE_OK) return SQLITE_ERROR;
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->unique = argc > 3 && strcmp(argv[3], "unique") == 0;
  *pp = &t->base;
  return SQLITE_OK;
}
static int ncFree(sqlite3_vtab *v) {
  NcTab *t = (NcTab *)v;
  int i, k;
  for (i = 0; i < MAXROWS; i++) for (k = 0; k < NCOL; k++) sqlite3_free(t->rows[i].v[k]);
  sqlite3_free(v);
  return SQLITE_OK;
}
static int ncBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  NcTab *t = (NcTab *)v;
  int i;
  info->estimatedCost = 1000;
  info->estimatedRows = 100;
  for (i = 0; i < info->nConstraint; i++) {
    if (info->aConstraint[i].iColumn == -1 && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ && info->aConstraint[i].usable) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
      if (t->unique) info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
      break;
    }
  }
  return SQLITE_OK;
}
static int ncOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  NcCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int ncClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static void ncSkip(NcCur *c) {
  NcTab *t = (NcTab *)c->base.pVtab;
  while (c->i < MAXROWS && (!t->rows[c->i].used || (c->has_eq && t->rows[c->i].id != c->eq))) c->i++;
}
static int ncFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  NcCur *c = (NcCur *)cur;
  (void)str; (void)argc;
  c->has_eq = num == 1;
  if (c->has_eq) c->eq = sqlite3_value_int64(argv[0]);
  c->i = 0;
  ncSkip(c);
  return SQLITE_OK;
}
static int ncNext(sqlite3_vtab_cursor *cur) { NcCur *c = (NcCur *)cur; c->i++; ncSkip(c); return SQLITE_OK; }
static int ncEof(sqlite3_vtab_cursor *cur) { return ((NcCur *)cur)->i >= MAXROWS; }
static int ncColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  NcCur *c = (NcCur *)cur;
  Row *r = &((NcTab *)cur->pVtab)->rows[c->i];
  int nochange = sqlite3_vtab_nochange(ctx);
  printf("  [xColumn row %lld %s nochange=%d]\n", r->id, colname[i], nochange);
  if (nochange && i > 0) {
    /* Left unset; asking again still answers 1. */
    if (!sqlite3_vtab_nochange(ctx)) printf("  [nochange changed]\n");
    return SQLITE_OK;
  }
  if (r->v[i]) sqlite3_result_text(ctx, r->v[i], -1, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
  if (nochange && sqlite3_vtab_nochange(ctx)) printf("  [nochange still 1 after a result]\n");
  return SQLITE_OK;
}
static int ncRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id) {
  NcCur *c = (NcCur *)cur;
  *id = ((NcTab *)cur->pVtab)->rows[c->i].id;
  return SQLITE_OK;
}
static int ncFind(NcTab *t, sqlite3_int64 id) {
  int i;
  for (i = 0; i < MAXROWS; i++) if (t->rows[i].used && t->rows[i].id == id) return i;
  return -1;
}
static char *dup_value(sqlite3_value *v) {
  const unsigned char *s = sqlite3_value_text(v);
  return s ? sqlite3_mprintf("%s", s) : 0;
}
static int ncUpdate(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  NcTab *t = (NcTab *)v;
  int i, k, at;
  printf("  [xUpdate argc=%d", argc);
  for (i = 0; i < argc; i++) {
    const unsigned char *s = sqlite3_value_text(argv[i]);
    if (sqlite3_value_nochange(argv[i])) printf(" <nochange type=%d>", sqlite3_value_type(argv[i]));
    else printf(" %s", s ? (const char *)s : "NULL");
  }
  printf("]\n");
  if (argc == 1) {
    at = ncFind(t, sqlite3_value_int64(argv[0]));
    if (at >= 0) { t->rows[at].used = 0; for (k = 0; k < NCOL; k++) { sqlite3_free(t->rows[at].v[k]); t->rows[at].v[k] = 0; } }
    return SQLITE_OK;
  }
  {
    int is_insert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
    sqlite3_int64 id;
    Row old;
    memset(&old, 0, sizeof old);
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) id = sqlite3_value_int64(argv[1]);
    else { id = 0; for (i = 0; i < MAXROWS; i++) if (t->rows[i].used && t->rows[i].id > id) id = t->rows[i].id; id++; }
    if (!is_insert) {
      at = ncFind(t, sqlite3_value_int64(argv[0]));
      if (at >= 0) { old = t->rows[at]; memset(&t->rows[at], 0, sizeof t->rows[at]); }
    }
    at = ncFind(t, id);
    if (at >= 0) {
      if (sqlite3_vtab_on_conflict(db) != SQLITE_REPLACE) {
        sqlite3_free(v->zErrMsg);
        v->zErrMsg = sqlite3_mprintf("nc: duplicate rowid %lld", id);
        return SQLITE_CONSTRAINT;
      }
      t->rows[at].used = 0;
      for (k = 0; k < NCOL; k++) { sqlite3_free(t->rows[at].v[k]); t->rows[at].v[k] = 0; }
    }
    for (i = 0; i < MAXROWS && t->rows[i].used; i++) {}
    if (i == MAXROWS) return SQLITE_FULL;
    t->rows[i].used = 1;
    t->rows[i].id = id;
    for (k = 0; k < NCOL; k++) {
      if (sqlite3_value_nochange(argv[2 + k])) { t->rows[i].v[k] = old.v[k]; old.v[k] = 0; }
      else t->rows[i].v[k] = dup_value(argv[2 + k]);
    }
    for (k = 0; k < NCOL; k++) sqlite3_free(old.v[k]);
    *rowid = id;
  }
  return SQLITE_OK;
}
static sqlite3_module ncModule = {
  2, ncInit, ncInit, ncBestIndex, ncFree, ncFree, ncOpen, ncClose, ncFilter, ncNext, ncEof,
  ncColumn, ncRowid, ncUpdate, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static void fill(const char *t) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "DELETE FROM %s; INSERT INTO %s(rowid, a, b, c, h) VALUES (1, 'a1', 'b1', 'c1', 'h1'), (2, 'a2', 'b2', 'c2', 'h2'), (3, 'a3', NULL, 'c3', 'h3')",
           t, t);
  run(sql);
}

static void show(const char *t) {
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT rowid, a, b, c, h FROM %s", t);
  printf("-- %s:\n", t);
  run(sql);
}

int main(void) {
  static const char *tables[] = {"tu", "ts"};
  static const char *updates[] = {
    "UPDATE %s SET a = 'x' WHERE rowid = 1",
    "UPDATE %s SET a = 'y'",
    "UPDATE %s SET b = a || '!' WHERE rowid = 2",
    "UPDATE %s SET a = b WHERE c = 'c2'",
    "UPDATE %s SET rowid = 10 WHERE rowid = 2",
    "UPDATE %s SET a = NULL, b = NULL, c = NULL WHERE rowid = 1",
    "UPDATE %s SET h = 'hh' WHERE rowid = 3",
    "UPDATE OR REPLACE %s SET rowid = 1 WHERE rowid = 3",
    "UPDATE %s SET a = o.v FROM o WHERE o.id = %s.rowid",
    "UPDATE %s SET c = 'in' WHERE rowid IN (SELECT id FROM o)",
    "UPDATE %s SET b = (SELECT count(*) FROM o) WHERE rowid = 2",
    "UPDATE %s SET a = 'w' WHERE rowid = 99",
    "UPDATE %s SET (a, c) = ('p', 'q') WHERE rowid = 1",
    "UPDATE %s SET (b, a) = (a, 'r'), h = 'hx' WHERE rowid = 3",
    "UPDATE %s SET (a, b) = ('p', 'q', 'r')",
  };
  int ti, ui;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  sqlite3_create_module(db, "nc", &ncModule, 0);
  run("CREATE VIRTUAL TABLE tu USING nc(unique); CREATE VIRTUAL TABLE ts USING nc(scan);"
      "CREATE TABLE o(id INTEGER PRIMARY KEY, v); INSERT INTO o VALUES (1, 'o1'), (3, 'o3')");
  for (ti = 0; ti < 2; ti++) {
    const char *t = tables[ti];
    printf("== table %s\n", t);
    fill(t);
    q(ti == 0 ? "SELECT a, b FROM tu WHERE rowid = 1" : "SELECT a, b FROM ts WHERE rowid = 1");
    for (ui = 0; ui < (int)(sizeof updates / sizeof updates[0]); ui++) {
      char sql[256];
      snprintf(sql, sizeof sql, updates[ui], t, t);
      q(sql);
      show(t);
      fill(t);
    }
  }
  printf("== a trigger on an ordinary table writing the virtual table\n");
  fill("tu");
  q("CREATE TABLE log(id, v); CREATE TRIGGER tr AFTER INSERT ON log BEGIN UPDATE tu SET a = new.v WHERE rowid = new.id; UPDATE ts SET b = new.v; END");
  fill("ts");
  q("INSERT INTO log VALUES (2, 'trig')");
  show("tu");
  show("ts");
  printf("== DELETE reads no column\n");
  q("DELETE FROM tu WHERE rowid = 1");
  q("DELETE FROM ts WHERE b = 'trig' AND rowid = 3");
  show("tu");
  show("ts");
  sqlite3_close(db);
  return 0;
}
