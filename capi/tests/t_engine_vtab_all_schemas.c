/* SQLITE_VTAB_USES_ALL_SCHEMAS: a statement using a virtual table that its
** constructor configured so begins a transaction on every database of the
** connection, not only the one holding the table (as SQLite's dbstat and
** pragma tables need). Seen from outside: while another connection holds
** the attached file locked, reading such a table is SQLITE_BUSY (a table
** without the flag reads on), and writing it waits for a RESERVED lock
** where SQLite takes one. The modules "allv" (flag set) and "plain" keep
** three rows in memory and accept xUpdate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db, *other;

static void run(sqlite3 *d, const char *sql) {
  sqlite3_stmt *st;
  const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(d, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(d)); return; }
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
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(d));
    sqlite3_finalize(st);
  }
}
static void q(const char *sql) { printf("%s\n", sql); run(db, sql); }
static void o(const char *sql) { printf("(other) %s\n", sql); run(other, sql); }

typedef struct { sqlite3_vtab base; int n; } T;
typedef struct { sqlite3_vtab_cursor base; int row; } C;

static int mk(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  T *t;
  (void)argc; (void)argv; (void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a)");
  if (aux) sqlite3_vtab_config(d, SQLITE_VTAB_USES_ALL_SCHEMAS);
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->n = 3;
  *pp = &t->base;
  return SQLITE_OK;
}
static int bestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 3; return SQLITE_OK; }
static int disconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int openc(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  C *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int closec(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int filter(sqlite3_vtab_cursor *c, int n, const char *s, int argc, sqlite3_value **argv) {
  (void)n; (void)s; (void)argc; (void)argv;
  ((C *)c)->row = 1;
  return SQLITE_OK;
}
static int next(sqlite3_vtab_cursor *c) { ((C *)c)->row++; return SQLITE_OK; }
static int eof(sqlite3_vtab_cursor *c) { return ((C *)c)->row > ((T *)c->pVtab)->n; }
static int column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) {
  (void)i;
  sqlite3_result_int(ctx, ((C *)c)->row);
  return SQLITE_OK;
}
static int rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *r) { *r = ((C *)c)->row; return SQLITE_OK; }
static int update(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *r) {
  T *t = (T *)v;
  (void)argv;
  if (argc == 1) t->n--;
  else if (sqlite3_value_type(argv[0]) == SQLITE_NULL) { t->n++; *r = t->n; }
  return SQLITE_OK;
}
static sqlite3_module mod = {
  1, mk, mk, bestIndex, disconnect, disconnect, openc, closec, filter,
  next, eof, column, rowid, update, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static const char *const stmts[] = {
  "SELECT count(*) FROM p",
  "SELECT count(*) FROM v",
  "SELECT count(*) FROM main.t",
  "INSERT INTO p VALUES(9)",
  "INSERT INTO v VALUES(9)",
  "UPDATE v SET a = 1 WHERE rowid = 1",
  "DELETE FROM v WHERE rowid = 4",
  "INSERT INTO t VALUES(1)",
  0
};

int main(void) {
  int i;
  remove("all_main.db");
  remove("all_aux.db");
  sqlite3_open("all_main.db", &db);
  sqlite3_create_module(db, "allv", &mod, (void *)1);
  sqlite3_create_module(db, "plain", &mod, 0);
  q("ATTACH 'all_aux.db' AS aux");
  q("CREATE TABLE aux.x(y)");
  q("CREATE TABLE t(y)");
  q("CREATE VIRTUAL TABLE v USING allv");
  q("CREATE VIRTUAL TABLE p USING plain");
  sqlite3_open("all_aux.db", &other);

  o("BEGIN EXCLUSIVE");
  o("INSERT INTO x VALUES(1)");
  for (i = 0; stmts[i]; i++) q(stmts[i]);
  o("COMMIT");

  o("BEGIN IMMEDIATE");
  o("INSERT INTO x VALUES(2)");
  for (i = 0; stmts[i]; i++) q(stmts[i]);
  o("COMMIT");

  for (i = 0; stmts[i]; i++) q(stmts[i]);
  sqlite3_close(other);
  sqlite3_close(db);
  remove("all_main.db");
  remove("all_aux.db");
  return 0;
}
