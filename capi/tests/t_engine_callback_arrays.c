/* The arrays SQLite hands callbacks point into real memory also when they
** are empty (argc 0): an SQL function's argv (scalar, aggregate step,
** window xInverse), a virtual table's xFilter argv and xBestIndex's
** aConstraint/aConstraintUsage/aOrderBy with no constraint or ORDER BY.
** Go's cgo bindings (mattn/go-sqlite3) load through argv whatever argc
** says: a dangling address (an empty Rust Vec's 0x8) crashed them. Each
** pointer is checked by handing it to write(2), which answers EFAULT for
** an address that is not mapped instead of faulting. The callbacks' notes
** are printed after each statement (when SQLite calls a window function's
** xInverse relative to the rows it returns is not what is checked). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"
static sqlite3 *db;
static int devnull;
static char notes[4096];
#define NOTE(...) snprintf(notes + strlen(notes), sizeof notes - strlen(notes), __VA_ARGS__)
static const char *mapped(const void *p) {
  if (!p) return "NULL";
  return write(devnull, p, 1) == 1 ? "mapped" : errno == EFAULT ? "NOT MAPPED" : "write failed";
}
static void run(const char *sql) {
  sqlite3_stmt *st;
  printf("%s\n", sql);
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); return; }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    printf("  %s\n", t ? (const char *)t : "NULL");
  }
  if (rc != SQLITE_DONE) printf("  step error: %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  printf("%s", notes); notes[0] = 0;
}
static void f0(sqlite3_context *c, int argc, sqlite3_value **argv) {
  NOTE("  [scalar argc=%d argv %s]\n", argc, mapped(argv));
  sqlite3_result_int(c, 7);
}
static void step0(sqlite3_context *c, int argc, sqlite3_value **argv) {
  int *n = sqlite3_aggregate_context(c, sizeof(int));
  if (n && (*n)++ == 0) NOTE("  [step argc=%d argv %s]\n", argc, mapped(argv));
}
static void inverse0(sqlite3_context *c, int argc, sqlite3_value **argv) {
  int *n = sqlite3_aggregate_context(c, sizeof(int));
  if (n && (*n)-- == 2) NOTE("  [inverse argc=%d argv %s]\n", argc, mapped(argv));
}
static void final0(sqlite3_context *c) {
  int *n = sqlite3_aggregate_context(c, 0);
  sqlite3_result_int(c, n ? *n : 0);
}
typedef struct { sqlite3_vtab_cursor base; int row; } Cur;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a)");
  *pp = sqlite3_malloc(sizeof **pp); memset(*pp, 0, sizeof **pp); return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  NOTE("  [xBestIndex nConstraint=%d aConstraint %s aConstraintUsage %s nOrderBy=%d aOrderBy %s]\n", info->nConstraint,
         mapped(info->aConstraint), mapped(info->aConstraintUsage), info->nOrderBy, mapped(info->aOrderBy));
  info->estimatedCost = 10;
  return SQLITE_OK;
}
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; Cur *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  (void)num; (void)str;
  NOTE("  [xFilter argc=%d argv %s]\n", argc, mapped(argv));
  ((Cur *)cur)->row = 1; return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) { ((Cur *)cur)->row++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *cur) { return ((Cur *)cur)->row > 2; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *c, int i) { (void)i; sqlite3_result_int(c, ((Cur *)cur)->row); return SQLITE_OK; }
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((Cur *)cur)->row; return SQLITE_OK; }
static sqlite3_module mod = {0, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid};
int main(void) {
  devnull = open("/dev/null", O_WRONLY);
  if (devnull < 0 || sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  sqlite3_create_function(db, "f0", 0, SQLITE_UTF8, 0, f0, 0, 0);
  sqlite3_create_function(db, "agg0", 0, SQLITE_UTF8, 0, 0, step0, final0);
  sqlite3_create_window_function(db, "win0", 0, SQLITE_UTF8, 0, step0, final0, final0, inverse0, 0);
  sqlite3_create_module(db, "m", &mod, 0);
  run("SELECT f0()");
  run("SELECT agg0() FROM (SELECT 1 UNION ALL SELECT 2)");
  run("SELECT win0() OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)");
  run("CREATE VIRTUAL TABLE v USING m");
  run("SELECT a FROM v");
  sqlite3_close(db);
  return 0;
}
