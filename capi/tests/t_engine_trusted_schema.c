/* What the schema may run (compared with SQLite's output): functions
** registered SQLITE_INNOCUOUS, plain or SQLITE_DIRECTONLY, and virtual
** tables configured with sqlite3_vtab_config(SQLITE_VTAB_INNOCUOUS),
** neither, or SQLITE_VTAB_DIRECTONLY, used from views, triggers (TEMP and
** not), CHECK constraints, DEFAULT values, generated columns and indexes,
** with SQLITE_DBCONFIG_TRUSTED_SCHEMA and PRAGMA trusted_schema on and off
** (the database is closed and opened again, so that the schema is read
** from the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

static int print_row(void *arg, int n, char **v, char **names) {
  (void)arg; (void)names;
  printf("   ");
  for (int i = 0; i < n; i++) printf(" %s", v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void run(const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, print_row, 0, &err);
  printf("%s\n  -> %d%s%s\n", sql, rc, err ? " " : "", err ? err : "");
  sqlite3_free(err);
}

static void identity(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_value(ctx, argv[0]);
}

/* A table of the rows 1..3 (column x), writable; the module's aux data is
** its risk: 0 innocuous, 1 neither, 2 direct-only. */
typedef struct { sqlite3_vtab base; } T;
typedef struct { sqlite3_vtab_cursor base; int row; } C;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)argc; (void)argv; (void)err;
  int risk = *(int *)aux;
  if (risk == 0) sqlite3_vtab_config(d, SQLITE_VTAB_INNOCUOUS);
  if (risk == 2) sqlite3_vtab_config(d, SQLITE_VTAB_DIRECTONLY);
  sqlite3_declare_vtab(d, "CREATE TABLE x(x)");
  T *t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  *pp = &t->base;
  return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 10; return SQLITE_OK; }
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  C *c = sqlite3_malloc(sizeof *c);
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  (void)num; (void)str; (void)argc; (void)argv;
  ((C *)cur)->row = 1;
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) { ((C *)cur)->row++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *cur) { return ((C *)cur)->row > 3; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) { (void)i; sqlite3_result_int(ctx, ((C *)cur)->row); return SQLITE_OK; }
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((C *)cur)->row; return SQLITE_OK; }
static int xUpdate(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  (void)v; (void)argv; (void)rowid;
  printf("    [xUpdate argc=%d]\n", argc);
  return SQLITE_OK;
}
static sqlite3_module mod = { 0, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid,
  xUpdate, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static int risks[3] = {0, 1, 2};

static void open_db(const char *file) {
  sqlite3_open(file, &db);
  sqlite3_create_function(db, "f_inn", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, identity, 0, 0);
  sqlite3_create_function(db, "f_plain", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, identity, 0, 0);
  sqlite3_create_function(db, "f_direct", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, 0, identity, 0, 0);
  sqlite3_create_module(db, "m_inn", &mod, &risks[0]);
  sqlite3_create_module(db, "m_plain", &mod, &risks[1]);
  sqlite3_create_module(db, "m_direct", &mod, &risks[2]);
}

static void trusted(int on) {
  int v = -7;
  int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, on, &v);
  printf("db_config(TRUSTED_SCHEMA, %d): rc=%d value=%d\n", on, rc, v);
}

int main(void) {
  const char *file = "t_engine_trusted_schema.db";
  static const char *fns[] = {"f_inn", "f_plain", "f_direct"};
  static const char *mods[] = {"m_inn", "m_plain", "m_direct"};
  char sql[512];
  remove(file);
  open_db(file);
  trusted(-1);
  run("PRAGMA trusted_schema");
  for (int i = 0; i < 3; i++) {
    const char *f = fns[i];
    snprintf(sql, sizeof sql, "CREATE TABLE g_%s(a, b AS (%s(a)))", f, f); run(sql);
    snprintf(sql, sizeof sql, "CREATE TABLE c_%s(a CHECK (%s(a) > 0))", f, f); run(sql);
    snprintf(sql, sizeof sql, "CREATE TABLE d_%s(a, b DEFAULT (%s(7)))", f, f); run(sql);
    snprintf(sql, sizeof sql, "CREATE TABLE i_%s(a); CREATE INDEX ix_%s ON i_%s(%s(a))", f, f, f, f); run(sql);
    snprintf(sql, sizeof sql, "CREATE VIEW v_%s AS SELECT %s(5) AS r", f, f); run(sql);
    snprintf(sql, sizeof sql, "CREATE TABLE t_%s(a); CREATE TRIGGER tr_%s AFTER INSERT ON t_%s BEGIN SELECT %s(new.a); END", f, f, f, f); run(sql);
  }
  for (int i = 0; i < 3; i++) {
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE %s_t USING %s", mods[i], mods[i]); run(sql);
    snprintf(sql, sizeof sql, "CREATE VIEW v_%s AS SELECT sum(x) AS s FROM %s_t", mods[i], mods[i]); run(sql);
    snprintf(sql, sizeof sql, "CREATE TABLE w_%s(a); CREATE TRIGGER tw_%s AFTER INSERT ON w_%s BEGIN INSERT INTO %s_t VALUES(new.a); END", mods[i], mods[i], mods[i], mods[i]); run(sql);
  }
  run("CREATE TABLE tt(a)");
  sqlite3_close(db);

  /* Trusted; the schema read while trusted, then not trusted; not
  ** trusted before the schema is read (a generated column calling f_plain
  ** makes it unreadable). */
  for (int pass = 0; pass < 3; pass++) {
    printf("== pass %d\n", pass);
    open_db(file);
    if (pass == 1) run("SELECT count(*) FROM sqlite_schema");
    if (pass > 0) trusted(0);
    run("PRAGMA trusted_schema");
    for (int i = 0; i < 3; i++) {
      const char *f = fns[i];
      snprintf(sql, sizeof sql, "INSERT INTO g_%s(a) VALUES(1)", f); run(sql);
      snprintf(sql, sizeof sql, "SELECT a FROM g_%s", f); run(sql);
      snprintf(sql, sizeof sql, "SELECT b FROM g_%s", f); run(sql);
      snprintf(sql, sizeof sql, "INSERT INTO d_%s(a) VALUES(1)", f); run(sql);
      snprintf(sql, sizeof sql, "INSERT INTO i_%s(a) VALUES(1)", f); run(sql);
      snprintf(sql, sizeof sql, "SELECT * FROM v_%s", f); run(sql);
      snprintf(sql, sizeof sql, "INSERT INTO t_%s VALUES(1)", f); run(sql);
    }
    for (int i = 0; i < 3; i++) {
      snprintf(sql, sizeof sql, "SELECT sum(x) FROM %s_t", mods[i]); run(sql);
      snprintf(sql, sizeof sql, "SELECT * FROM v_%s", mods[i]); run(sql);
      snprintf(sql, sizeof sql, "INSERT INTO w_%s VALUES(5)", mods[i]); run(sql);
      /* (Left out on the unreadable schema: SQLite's CREATE TEMP TRIGGER
      ** reports its error there as SQLITE_ERROR, ringlite's as CORRUPT.) */
      if (pass < 2) {
        snprintf(sql, sizeof sql, "CREATE TEMP TRIGGER tmp_%s AFTER INSERT ON tt BEGIN INSERT INTO %s_t VALUES(new.a); END", mods[i], mods[i]); run(sql);
        run("INSERT INTO tt VALUES(9)");
        snprintf(sql, sizeof sql, "DROP TRIGGER tmp_%s", mods[i]); run(sql);
      }
      snprintf(sql, sizeof sql, "CREATE TEMP VIEW tv_%s AS SELECT sum(x) AS s FROM %s_t; SELECT * FROM tv_%s", mods[i], mods[i], mods[i]); run(sql);
    }
    run("PRAGMA trusted_schema = 1");
    trusted(-1);
    run("SELECT * FROM v_f_plain");
    run("SELECT count(*) FROM g_f_plain");
    run("PRAGMA trusted_schema = off");
    trusted(-1);
    run("SELECT * FROM v_f_plain");
    sqlite3_close(db);
  }
  remove(file);
  return 0;
}
