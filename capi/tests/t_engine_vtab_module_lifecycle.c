/* A C module's registration and the defaults its xBestIndex sees.
** sqlite3_create_module_v2's destructor: which client data it is called
** with, and when. Registering a NULL module drops the module of that name
** (its own client data is destroyed) but never destroys the client data
** passed with the NULL module: APSW passes NULL there and its destructor
** dereferences it. Replacing, sqlite3_drop_modules and close destroy the
** old client data. (Each step destroys at most one: SQLite's order among
** several follows its hash table. A module used by an eponymous table is
** destroyed when SQLite next disconnects tables, not compared here.) */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static void destroy(void *p) { printf("  destroy(%s)\n", p ? (const char *)p : "NULL"); }

static int xConnect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  static sqlite3_vtab tab;
  memset(&tab, 0, sizeof tab);
  *pp = &tab;
  return sqlite3_declare_vtab(db, "CREATE TABLE x(a)");
}
/* What xBestIndex is handed before the module answers: SQLite's defaults
** (cost SQLITE_BIG_DBL / 2, 25 rows), kept when it sets nothing. */
static int xBestIndex(sqlite3_vtab *t, sqlite3_index_info *info) {
  (void)t;
  printf("  xBestIndex: estimatedCost %g estimatedRows %lld\n", info->estimatedCost, (long long)info->estimatedRows);
  return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *t) { (void)t; return SQLITE_OK; }
static int xOpen(sqlite3_vtab *t, sqlite3_vtab_cursor **pp) {
  (void)t;
  static sqlite3_vtab_cursor cur;
  *pp = &cur;
  return SQLITE_OK;
}
static int xClose(sqlite3_vtab_cursor *c) { (void)c; return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *c, int n, const char *s, int argc, sqlite3_value **argv) {
  (void)c; (void)n; (void)s; (void)argc; (void)argv;
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *c) { (void)c; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *c) { (void)c; return 1; }
static int xColumn(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int i) { (void)c; (void)ctx; (void)i; return SQLITE_OK; }
static int xRowid(sqlite3_vtab_cursor *c, sqlite3_int64 *r) { (void)c; *r = 0; return SQLITE_OK; }

static sqlite3_module mod = {
  0, 0, xConnect, xBestIndex, xDisconnect, 0, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid,
};

static void try_select(sqlite3 *db, const char *name) {
  char sql[64];
  snprintf(sql, sizeof sql, "SELECT * FROM %s", name);
  int rc = sqlite3_exec(db, sql, 0, 0, 0);
  printf("  %s -> %d %s\n", sql, rc, rc ? sqlite3_errmsg(db) : "");
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  printf("register m (A)\n");
  printf("  rc %d\n", sqlite3_create_module_v2(db, "m", &mod, "A", destroy));
  printf("replace m (B)\n");
  printf("  rc %d\n", sqlite3_create_module_v2(db, "m", &mod, "B", destroy));
  printf("NULL module for m, client data C\n");
  printf("  rc %d\n", sqlite3_create_module_v2(db, "m", 0, "C", destroy));
  try_select(db, "m");
  printf("NULL module for unknown name, client data D\n");
  printf("  rc %d\n", sqlite3_create_module_v2(db, "nosuch", 0, "D", destroy));
  printf("NULL module and NULL client data (as APSW's create_module(name, None))\n");
  printf("  rc %d\n", sqlite3_create_module_v2(db, "m", 0, 0, destroy));
  printf("register p (P) and q (Q); drop all but q\n");
  sqlite3_create_module_v2(db, "p", &mod, "P", destroy);
  sqlite3_create_module_v2(db, "q", &mod, "Q", destroy);
  const char *keep[] = {"q", 0};
  printf("  rc %d\n", sqlite3_drop_modules(db, keep));
  try_select(db, "p");
  try_select(db, "q");
  printf("close\n");
  printf("  rc %d\n", sqlite3_close(db));
  return 0;
}
