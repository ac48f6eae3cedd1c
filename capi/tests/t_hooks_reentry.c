/* Hooks are looked up when they fire: a commit, rollback, update or busy
 * callback, or an authorizer, that removes or replaces a hook from inside
 * a callback changes what runs from then on, as in SQLite. Output is
 * diffed against SQLite. */
#include <stdio.h>
#include <unistd.h>
#include "sqlite3.h"

static sqlite3 *db;
static int calls_a, calls_b;

static void upd_b(void *p, int op, const char *d, const char *t, sqlite3_int64 r) {
  (void)p; (void)d; calls_b++;
  printf("  update b op=%d %s %lld\n", op, t, r);
}
static void upd_a(void *p, int op, const char *d, const char *t, sqlite3_int64 r) {
  (void)p; (void)d; calls_a++;
  printf("  update a op=%d %s %lld (replacing myself)\n", op, t, r);
  sqlite3_update_hook(db, upd_b, 0);
}
static void upd_gone(void *p, int op, const char *d, const char *t, sqlite3_int64 r) {
  (void)p; (void)d; (void)t; calls_a++;
  printf("  update op=%d %lld (removing myself)\n", op, r);
  sqlite3_update_hook(db, 0, 0);
}
static int commit_once(void *p) {
  (void)p; calls_a++;
  printf("  commit hook (removing myself), user data returned=%s\n",
         sqlite3_commit_hook(db, 0, 0) == (void *)&calls_a ? "mine" : "other");
  return 0;
}
static int commit_veto(void *p) { (void)p; calls_b++; printf("  commit veto\n"); return 1; }
static void rollback_b(void *p) { (void)p; calls_b++; printf("  rollback b\n"); }
static void rollback_a(void *p) {
  (void)p; calls_a++; printf("  rollback a (replacing myself)\n");
  sqlite3_rollback_hook(db, rollback_b, 0);
}
static int auth_count;
static int auth_off(void *p, int code, const char *a, const char *b, const char *c, const char *d) {
  (void)p; (void)code; (void)a; (void)b; (void)c; (void)d;
  auth_count++;
  sqlite3_set_authorizer(db, 0, 0);
  return SQLITE_OK;
}

static void run(const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  printf("%s -> %d %s\n", sql, rc, err ? err : "");
  sqlite3_free(err);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  run("CREATE TABLE t(a INTEGER PRIMARY KEY, b)");
  sqlite3_update_hook(db, upd_a, 0);
  run("INSERT INTO t VALUES(1, 'x'), (2, 'y'), (3, 'z')");
  run("UPDATE t SET b = 'w' WHERE a = 2");
  run("DELETE FROM t WHERE a = 3");
  printf("a=%d b=%d\n", calls_a, calls_b);
  calls_a = calls_b = 0;
  sqlite3_update_hook(db, upd_gone, 0);
  run("INSERT INTO t VALUES(4, 'x'), (5, 'y')");
  printf("a=%d b=%d\n", calls_a, calls_b);

  calls_a = calls_b = 0;
  sqlite3_commit_hook(db, commit_once, &calls_a);
  run("INSERT INTO t VALUES(6, 'x')");
  run("INSERT INTO t VALUES(7, 'x')");
  printf("a=%d b=%d\n", calls_a, calls_b);
  sqlite3_commit_hook(db, commit_veto, 0);
  sqlite3_rollback_hook(db, rollback_a, 0);
  calls_a = calls_b = 0;
  run("INSERT INTO t VALUES(8, 'x')");
  run("INSERT INTO t VALUES(9, 'x')");
  printf("a=%d b=%d\n", calls_a, calls_b);
  printf("old rollback hook data=%p\n", sqlite3_rollback_hook(db, 0, 0));
  sqlite3_commit_hook(db, 0, 0);
  run("SELECT count(*) FROM t");

  sqlite3_set_authorizer(db, auth_off, 0);
  run("SELECT a, b FROM t WHERE a > 1");
  run("SELECT a, b FROM t WHERE a > 1");
  printf("authorizer calls=%d\n", auth_count);

  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
