/* Several threads sharing one connection (serialized mode). */
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include "sqlite3.h"

static sqlite3 *shared;
static int thread_failures;
static void *worker(void *arg) {
  long id = (long)arg;
  int i;
  for (i = 0; i < 200; i++) {
    char *sql = sqlite3_mprintf("INSERT INTO w VALUES(%ld, %d)", id, i);
    if (sqlite3_exec(shared, sql, 0, 0, 0) != SQLITE_OK) __sync_fetch_and_add(&thread_failures, 1);
    sqlite3_free(sql);
  }
  return 0;
}

static long sums[4];
static void *reader(void *arg) {
  long id = (long)arg, total = 0;
  int round;
  for (round = 0; round < 20; round++) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(shared, "SELECT i, t FROM w WHERE t = ?", -1, &st, 0) != SQLITE_OK) { __sync_fetch_and_add(&thread_failures, 1); continue; }
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char *txt = sqlite3_column_text(st, 0);
      total += txt ? atol((const char *)txt) : -1000000;
      total += sqlite3_column_int(st, 1) - id;
    }
    sqlite3_finalize(st);
  }
  sums[id] = total;
  return 0;
}

static void scalar(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if (rc != SQLITE_OK) { printf("%s -> prepare %d %s\n", sql, rc, sqlite3_errmsg(db)); return; }
  rc = sqlite3_step(st);
  printf("%s -> %d %s\n", sql, rc, rc == SQLITE_ROW && sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  pthread_t th[4];
  long i;
  int rc;
  sqlite3_open(":memory:", &db);
  shared = db;
  rc = sqlite3_exec(db, "CREATE TABLE w(t, i)", 0, 0, 0);
  printf("create w=%d %s\n", rc, sqlite3_errmsg(db));
  for (i = 0; i < 4; i++) pthread_create(&th[i], 0, worker, (void *)i);
  for (i = 0; i < 4; i++) pthread_join(th[i], 0);
  for (i = 0; i < 4; i++) pthread_create(&th[i], 0, reader, (void *)i);
  for (i = 0; i < 4; i++) pthread_join(th[i], 0);
  printf("reader sums=%ld %ld %ld %ld\n", sums[0], sums[1], sums[2], sums[3]);
  printf("thread failures=%d\n", thread_failures);
  scalar(db, "SELECT count(*) || ' ' || count(DISTINCT t) || ' ' || sum(i) FROM w");
  printf("close=%d\n", sqlite3_close(db));
  return 0;
}
