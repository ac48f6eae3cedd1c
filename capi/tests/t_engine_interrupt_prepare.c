/* sqlite3_interrupt from another thread stops a long sqlite3_prepare
** (issue #18): while the main thread prepares a statement of 1,000,000
** terms, a second thread calls sqlite3_interrupt every millisecond until
** the prepare returns. The prepare fails with SQLITE_INTERRUPT and
** "interrupted", leaves no statement, and the connection works after it.
** (The outcome does not depend on timing: each prepare takes far longer
** than the interval, and the calls go on until it returns.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include "sqlite3.h"

static sqlite3 *db;
static volatile int preparing;

static void *interrupter(void *arg) {
  (void)arg;
  while (!__sync_fetch_and_add(&preparing, 0)) usleep(100);
  while (__sync_fetch_and_add(&preparing, 0) == 1) {
    sqlite3_interrupt(db);
    usleep(1000);
  }
  return 0;
}

/* A text of `n` terms: `head`, then `term` n times with `sep` between
** (`term` may hold one %d, the term's number), then `tail`. */
static char *build(const char *head, const char *term, const char *sep, const char *tail, int n) {
  size_t cap = strlen(head) + strlen(tail) + (size_t)n * (strlen(term) + strlen(sep) + 12) + 1;
  char *s = malloc(cap), *p = s;
  int i;
  p += sprintf(p, "%s", head);
  for (i = 0; i < n; i++) {
    if (i) p += sprintf(p, "%s", sep);
    p += sprintf(p, term, i);
  }
  sprintf(p, "%s", tail);
  return s;
}

static void interrupted_prepare(const char *label, char *sql) {
  pthread_t th;
  sqlite3_stmt *st = (sqlite3_stmt *)1;
  int rc;
  preparing = 0;
  pthread_create(&th, 0, interrupter, 0);
  __sync_lock_test_and_set(&preparing, 1);
  rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  __sync_lock_test_and_set(&preparing, 2);
  pthread_join(th, 0);
  printf("%s: prepare=%d (%s) stmt=%s\n", label, rc, sqlite3_errmsg(db), st ? "set" : "null");
  if (st) sqlite3_finalize(st);
  free(sql);
  /* No statement is running: the next prepare is not interrupted. */
  rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, 0);
  printf("  after: prepare=%d step=%d\n", rc, st ? sqlite3_step(st) : -1);
  sqlite3_finalize(st);
}

int main(void) {
  const int n = 1000000;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1)", 0, 0, 0);
  interrupted_prepare("IN list", build("SELECT a FROM t WHERE a IN (", "%d", ", ", ")", n));
  interrupted_prepare("VALUES rows", build("INSERT INTO t VALUES ", "(%d)", ", ", "", n));
  interrupted_prepare("result columns", build("SELECT ", "%d", ", ", " FROM t", n));
  interrupted_prepare("CASE arms", build("SELECT CASE a ", "WHEN %d THEN 1", " ", " END FROM t", n));
  interrupted_prepare("compound arms", build("", "SELECT %d", " UNION ALL ", "", n));
  /* Rows of several values in a FROM subquery (the parse tree path, not
  ** the bulk INSERT one). */
  interrupted_prepare("VALUES subquery", build("INSERT INTO t(a) SELECT 1 FROM (VALUES ", "(%d, 'x', 2.5)", ", ", ")", n));
  sqlite3_close(db);
  return 0;
}
