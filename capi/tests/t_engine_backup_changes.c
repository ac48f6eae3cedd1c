/* A page-by-page backup while its source changes: through the source's own
   connection (a file source has the changed pages copied again, an
   in-memory one starts over), through another connection (starts over),
   in rollback and WAL modes; the remaining/pagecount sequence and the
   copy's content (CPython's test_backup.test_modifying_progress). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

static void q(sqlite3 *db, const char *tag, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc) printf("%s: rc=%d %s\n", tag, rc, err ? err : "");
  sqlite3_free(err);
}

static void show(sqlite3 *db, const char *tag, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0)) {
    printf("%s: %s\n", tag, sqlite3_errmsg(db));
    return;
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    int i;
    printf("%s:", tag);
    for (i = 0; i < sqlite3_column_count(st); i++) printf(" %s", (const char *)sqlite3_column_text(st, i));
    printf("\n");
  }
  sqlite3_finalize(st);
}

/* Back `src` up one page per step; before step `at`, run `sql` on `writer`
   (the source's own connection or another one). */
static void run(const char *tag, sqlite3 *src, sqlite3 *writer, const char *sql, int at, int per_step) {
  sqlite3 *dest;
  sqlite3_backup *b;
  int rc = SQLITE_OK, step = 0;
  sqlite3_open(":memory:", &dest);
  b = sqlite3_backup_init(dest, "main", src, "main");
  printf("%s:", tag);
  while (rc == SQLITE_OK && step < 1000) {
    if (step == at) q(writer, tag, sql);
    rc = sqlite3_backup_step(b, per_step);
    printf(" [%d %d/%d]", rc, sqlite3_backup_remaining(b), sqlite3_backup_pagecount(b));
    step++;
  }
  printf("\n");
  printf("%s: finish=%d\n", tag, sqlite3_backup_finish(b));
  show(dest, tag, "PRAGMA integrity_check");
  show(dest, tag, "SELECT count(*), sum(k), sum(length(v)) FROM foo");
  show(src, tag, "SELECT count(*), sum(k), sum(length(v)) FROM foo");
  sqlite3_close(dest);
}

static void setup(sqlite3 *db, int rows) {
  char sql[300];
  snprintf(sql, sizeof sql,
           "CREATE TABLE foo(k INTEGER, v TEXT);"
           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<%d)"
           " INSERT INTO foo SELECT i, printf('%%.200c', 'x') FROM n;",
           rows);
  q(db, "setup", sql);
}

int main(void) {
  sqlite3 *src, *other;
  char path[] = "/tmp/ringlite_bkchg_XXXXXX";
  int fd = mkstemp(path), wal;
  close(fd);

  /* The CPython case: two rows in memory, an insert after the first step. */
  sqlite3_open(":memory:", &src);
  q(src, "mem", "CREATE TABLE foo(k INTEGER, v TEXT); INSERT INTO foo VALUES(3, 'a'), (4, 'b');");
  run("mem small", src, src, "INSERT INTO foo VALUES(1001, 'c')", 1, 1);
  sqlite3_close(src);

  sqlite3_open(":memory:", &src);
  setup(src, 100);
  run("mem own", src, src, "INSERT INTO foo VALUES(7, 'seven'); UPDATE foo SET v = 'changed' WHERE k = 1", 3, 2);
  run("mem grow", src, src, "INSERT INTO foo SELECT k + 1000, v FROM foo", 2, 3);
  sqlite3_close(src);

  for (wal = 0; wal < 2; wal++) {
    char tag[64];
    unlink(path);
    sqlite3_open(path, &src);
    if (wal) q(src, "wal", "PRAGMA journal_mode=WAL");
    setup(src, 100);
    sqlite3_open(path, &other);

    snprintf(tag, sizeof tag, "%s own early", wal ? "wal" : "file");
    run(tag, src, src, "UPDATE foo SET v = 'early' WHERE k = 1", 3, 2);
    snprintf(tag, sizeof tag, "%s own late", wal ? "wal" : "file");
    run(tag, src, src, "UPDATE foo SET v = 'late' WHERE k = 100", 3, 2);
    snprintf(tag, sizeof tag, "%s own grow", wal ? "wal" : "file");
    run(tag, src, src, "INSERT INTO foo SELECT k + 1000, v FROM foo", 2, 3);
    snprintf(tag, sizeof tag, "%s own shrink", wal ? "wal" : "file");
    run(tag, src, src, "DELETE FROM foo WHERE k > 1000; VACUUM", 2, 3);
    snprintf(tag, sizeof tag, "%s other", wal ? "wal" : "file");
    run(tag, src, other, "UPDATE foo SET v = 'other' WHERE k = 2", 3, 2);
    snprintf(tag, sizeof tag, "%s other grow", wal ? "wal" : "file");
    run(tag, src, other, "INSERT INTO foo SELECT k + 2000, v FROM foo", 2, 3);
    snprintf(tag, sizeof tag, "%s own rollback", wal ? "wal" : "file");
    run(tag, src, src, "PRAGMA cache_size=2; BEGIN; UPDATE foo SET v = printf('%.300c', 'y'); ROLLBACK", 3, 2);

    sqlite3_close(other);
    sqlite3_close(src);
  }
  unlink(path);
  {
    char aux[400];
    snprintf(aux, sizeof aux, "%s-wal", path);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-shm", path);
    unlink(aux);
  }
  return 0;
}
