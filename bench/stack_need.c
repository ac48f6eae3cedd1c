/* The smallest thread stack each deep statement needs (issue #18): every
** statement runs on a new pthread of a given stack size in a forked child
** (an overflow kills only the child), from 16 KiB up, and the first size
** on which it completes is printed with its outcome. The statements are
** at the default limits' edges: within them (they must succeed) and past
** them (they must fail with SQLite's error, never overflow). Build and run
** against each library:
**   cc -O1 -o /tmp/stack_need bench/stack_need.c -Iinclude -Lbuild/lib -l:libsqlite3.so.0 -lpthread
**   LD_LIBRARY_PATH=build/lib /tmp/stack_need     (and -Lbuild/ref / build/ref for SQLite)
** Results: bench/RESULTS.md, "Stack a host thread needs". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/wait.h>
#include "sqlite3.h"

static char *rep(const char *head, const char *unit, int n, const char *mid, const char *unit2, int n2, const char *tail) {
  size_t cap = strlen(head) + strlen(tail) + strlen(mid) + (size_t)n * strlen(unit) + (size_t)n2 * strlen(unit2) + 1;
  char *s = malloc(cap), *p = s; int i;
  p += sprintf(p, "%s", head);
  for (i = 0; i < n; i++) p += sprintf(p, "%s", unit);
  p += sprintf(p, "%s", mid);
  for (i = 0; i < n2; i++) p += sprintf(p, "%s", unit2);
  sprintf(p, "%s", tail);
  return s;
}

static const char *setup_sql, *run_sql;
static int result_rc; static char result_msg[200];

static void *body(void *arg) {
  sqlite3 *db; char *err = 0; (void)arg;
  sqlite3_open(":memory:", &db);
  if (setup_sql) sqlite3_exec(db, setup_sql, 0, 0, 0);
  result_rc = sqlite3_exec(db, run_sql, 0, 0, &err);
  snprintf(result_msg, sizeof result_msg, "%s", err ? err : "ok");
  sqlite3_free(err);
  sqlite3_close(db);
  return 0;
}

/* 0: completed (rc and message in the pipe), 1: the child died. */
static int try_stack(size_t kib, char *out, size_t outn) {
  int fd[2]; pid_t pid; int status; ssize_t n;
  pipe(fd);
  pid = fork();
  if (pid == 0) {
    pthread_attr_t a; pthread_t t;
    close(fd[0]);
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, kib * 1024);
    if (pthread_create(&t, &a, body, 0)) _exit(3);
    pthread_join(t, 0);
    dprintf(fd[1], "%d %s", result_rc, result_msg);
    _exit(0);
  }
  close(fd[1]);
  n = read(fd[0], out, outn - 1);
  out[n > 0 ? n : 0] = 0;
  close(fd[0]);
  waitpid(pid, &status, 0);
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv) {
  static const size_t sizes[] = {16, 20, 24, 28, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 8192};
  struct { const char *name; const char *setup; char *sql; } cases[] = {
    {"SELECT 1", 0, "SELECT 1"},
    {"998 '+' (height 999)", 0, rep("SELECT 1", "+1", 998, "", "", 0, "")},
    {"1000 '+' (height 1001)", 0, rep("SELECT 1", "+1", 1000, "", "", 0, "")},
    {"2,490 nested ()", 0, rep("SELECT ", "(", 2490, "1", ")", 2490, "")},
    {"100,000 nested ()", 0, rep("SELECT ", "(", 100000, "1", ")", 100000, "")},
    {"500 nested abs()", 0, rep("SELECT ", "abs(", 500, "1", ")", 500, "")},
    {"800 nested abs()", 0, rep("SELECT ", "abs(", 800, "1", ")", 800, "")},
    {"998 nested abs()", 0, rep("SELECT ", "abs(", 998, "1", ")", 998, "")},
    {"nested scalar subqueries 40", 0, rep("SELECT ", "(SELECT ", 40, "1", ")", 40, "")},
    {"nested scalar subqueries 80", 0, rep("SELECT ", "(SELECT ", 80, "1", ")", 80, "")},
    {"nested scalar subqueries 400", 0, rep("SELECT ", "(SELECT ", 400, "1", ")", 400, "")},
    {"CASE nested 300 deep", 0, rep("SELECT ", "CASE WHEN 1 THEN ", 300, "1", " END", 300, "")},
    {"998-term OR in WHERE", "CREATE TABLE t(a); INSERT INTO t VALUES(1);", rep("SELECT * FROM t WHERE a=0", " OR a=1", 997, "", "", 0, "")},
    {"nested scalar subqueries 5,000", 0, rep("SELECT ", "(SELECT ", 5000, "1", ")", 5000, "")},
    {"998-term AND in WHERE", "CREATE TABLE t(a); INSERT INTO t VALUES(1);", rep("SELECT * FROM t WHERE a", " AND a", 997, "", "", 0, "")},
    {"recursive trigger, depth 1000", "PRAGMA recursive_triggers=1; CREATE TABLE t(a); CREATE TRIGGER tr AFTER INSERT ON t WHEN new.a < 1000 BEGIN INSERT INTO t VALUES(new.a+1); END;", "INSERT INTO t VALUES(1)"},
    {"recursive trigger, depth 1001+", "PRAGMA recursive_triggers=1; CREATE TABLE t(a); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO t VALUES(new.a+1); END;", "INSERT INTO t VALUES(1)"},
  };
  int i; size_t j;
  (void)argc; (void)argv;
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
    char out[300] = "";
    setup_sql = cases[i].setup; run_sql = cases[i].sql;
    for (j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
      if (try_stack(sizes[j], out, sizeof out) == 0) break;
    }
    if (j < sizeof sizes / sizeof sizes[0]) printf("%-34s needs %5zu KiB: %.70s\n", cases[i].name, sizes[j], out);
    else printf("%-34s crashes up to 8 MiB\n", cases[i].name);
    fflush(stdout);
  }
  return 0;
}
