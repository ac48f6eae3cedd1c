/* sqlite3_auto_extension, sqlite3_cancel_auto_extension and
** sqlite3_reset_auto_extension: entry points run at every open, in list
** order, with the API table; a failing one fails the open with its
** message. The last part registers the real extension libdemoext.so
** (built by run.sh in the current directory) as an automatic extension. */
#define _GNU_SOURCE
#include "sqlite3.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*entry_fn)(sqlite3 *, char **, const void *);
typedef void (*auto_fn)(void);

static char trail[256];

static void note(const char *s) {
  if (strlen(trail) + strlen(s) + 2 < sizeof(trail)) { strcat(trail, s); strcat(trail, " "); }
}

static void one_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, 1);
}

static int ext_a(sqlite3 *db, char **err, const void *api) {
  (void)err;
  note(api ? "A" : "A(no api)");
  return sqlite3_create_function(db, "one", 0, SQLITE_UTF8, 0, one_func, 0, 0);
}
static int ext_b(sqlite3 *db, char **err, const void *api) {
  (void)db; (void)err; (void)api;
  note("B");
  return SQLITE_OK;
}
static int ext_c(sqlite3 *db, char **err, const void *api) {
  (void)err; (void)api;
  note("C");
  /* SQL from inside an automatic extension */
  return sqlite3_exec(db, "CREATE TEMP TABLE c_was_here(x); INSERT INTO c_was_here VALUES(3)", 0, 0, 0);
}
static int ext_fail(sqlite3 *db, char **err, const void *api) {
  (void)db; (void)api;
  note("FAIL");
  *err = sqlite3_mprintf("auto ext says no (%s)", "fail");
  return SQLITE_ERROR;
}
static int ext_fail_quiet(sqlite3 *db, char **err, const void *api) {
  (void)db; (void)err; (void)api;
  note("QUIET");
  return SQLITE_CONSTRAINT_CHECK;
}
static int ext_permanent(sqlite3 *db, char **err, const void *api) {
  (void)db; (void)api;
  note("PERM");
  *err = sqlite3_mprintf("permanent");
  return SQLITE_OK_LOAD_PERMANENTLY;
}
static int ext_registers(sqlite3 *db, char **err, const void *api) {
  (void)db; (void)err; (void)api;
  note("REG");
  sqlite3_auto_extension((auto_fn)ext_b);
  return SQLITE_OK;
}

static void open_and_show(const char *label, int flags) {
  sqlite3 *db = 0;
  int rc;
  trail[0] = 0;
  rc = sqlite3_open_v2(":memory:", &db, flags, 0);
  printf("%s: open rc=%d db=%s ran=[%s] errcode=%d errmsg=%s\n", label, rc, db ? "set" : "NULL", trail,
         sqlite3_errcode(db), sqlite3_errmsg(db));
  if (rc == SQLITE_OK) {
    sqlite3_stmt *st = 0;
    if (sqlite3_prepare_v2(db, "SELECT one()", -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      printf("  one() = %d\n", sqlite3_column_int(st, 0));
    else
      printf("  one(): %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    st = 0;
    if (sqlite3_prepare_v2(db, "SELECT x FROM c_was_here", -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      printf("  c_was_here = %d\n", sqlite3_column_int(st, 0));
    sqlite3_finalize(st);
  } else if (db) {
    printf("  exec on the failed handle rc=%d\n", sqlite3_exec(db, "SELECT 1", 0, 0, 0));
  }
  printf("  close rc=%d\n", sqlite3_close(db));
}

#define RW (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)

int main(void) {
  void *lib;
  entry_fn demo;

  open_and_show("none", RW);
  printf("register A rc=%d\n", sqlite3_auto_extension((auto_fn)ext_a));
  printf("register A again rc=%d\n", sqlite3_auto_extension((auto_fn)ext_a));
  open_and_show("A", RW);
  sqlite3_auto_extension((auto_fn)ext_b);
  sqlite3_auto_extension((auto_fn)ext_c);
  open_and_show("A B C", RW);
  printf("cancel A rc=%d\n", sqlite3_cancel_auto_extension((auto_fn)ext_a));
  printf("cancel A again rc=%d\n", sqlite3_cancel_auto_extension((auto_fn)ext_a));
  printf("cancel never registered rc=%d\n", sqlite3_cancel_auto_extension((auto_fn)ext_fail));
  open_and_show("after cancel A", RW);
  sqlite3_auto_extension((auto_fn)ext_a);
  sqlite3_auto_extension((auto_fn)ext_fail);
  sqlite3_auto_extension((auto_fn)ext_b);
  open_and_show("failing one in the middle", RW);
  open_and_show("failing one, extended codes", RW | SQLITE_OPEN_EXRESCODE);
  sqlite3_reset_auto_extension();
  open_and_show("after reset", RW);

  sqlite3_auto_extension((auto_fn)ext_fail_quiet);
  open_and_show("failure without message", RW);
  open_and_show("failure without message, extended codes", RW | SQLITE_OPEN_EXRESCODE);
  sqlite3_reset_auto_extension();

  sqlite3_auto_extension((auto_fn)ext_permanent);
  sqlite3_auto_extension((auto_fn)ext_a);
  open_and_show("SQLITE_OK_LOAD_PERMANENTLY", RW);
  open_and_show("SQLITE_OK_LOAD_PERMANENTLY, extended codes", RW | SQLITE_OPEN_EXRESCODE);
  sqlite3_reset_auto_extension();

  sqlite3_auto_extension((auto_fn)ext_registers);
  open_and_show("registering from an entry point", RW);
  open_and_show("again", RW);
  sqlite3_reset_auto_extension();

  printf("NULL entry rc=%d\n", sqlite3_auto_extension(0));
  open_and_show("NULL entry", RW);
  printf("cancel NULL rc=%d\n", sqlite3_cancel_auto_extension(0));
  sqlite3_reset_auto_extension();

  lib = dlopen("./libdemoext.so", RTLD_NOW);
  demo = lib ? (entry_fn)dlsym(lib, "sqlite3_demoext_init") : 0;
  if (demo) {
    sqlite3 *db = 0;
    char *err = 0;
    sqlite3_auto_extension((auto_fn)demo);
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db, "SELECT 1", 0, 0, 0);
    {
      sqlite3_stmt *st = 0;
      sqlite3_prepare_v2(db, "SELECT half(7), shout('auto'), entry FROM temp.demo_log", -1, &st, 0);
      while (sqlite3_step(st) == SQLITE_ROW)
        printf("demo as automatic extension: %s %s %s\n", sqlite3_column_text(st, 0),
               sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
      sqlite3_finalize(st);
    }
    sqlite3_exec(db, "SELECT product(x) FROM (SELECT 6 AS x)", 0, 0, &err);
    printf("product: %s\n", err ? err : "ok");
    sqlite3_free(err);
    sqlite3_close(db);
    sqlite3_reset_auto_extension();
  } else {
    printf("libdemoext.so not found\n");
  }
  return 0;
}
