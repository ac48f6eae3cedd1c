/* sqlite3_wal_hook: called after each commit in WAL mode with the schema
   name and the frames in the log, not in rollback-journal mode; replacing
   and removing it; its error code failing the statement; the automatic
   checkpoint it replaces (wal_autocheckpoint reads 0) and that
   sqlite3_wal_autocheckpoint brings back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

static int calls = 0, answer = SQLITE_OK;

static int hook(void *tag, sqlite3 *db, const char *name, int frames) {
  (void)db;
  calls++;
  printf("%s: hook db=%s frames>0=%d\n", (const char *)tag, name, frames > 0);
  return answer;
}

static int row(void *u, int n, char **v, char **names) {
  (void)u; (void)n;
  printf("  %s=%s\n", names[0], v[0] ? v[0] : "NULL");
  return 0;
}

static void q(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, row, 0, &err);
  printf("%s -> rc=%d%s%s\n", sql, rc, err ? " " : "", err ? err : "");
  sqlite3_free(err);
}

int main(void) {
  sqlite3 *db;
  void *prev;
  char path[] = "/tmp/ringlite_walhook_XXXXXX";
  char side[80];
  int fd = mkstemp(path);
  close(fd);
  unlink(path);

  sqlite3_open(path, &db);
  /* (The first previous value is not printed: SQLite answers its automatic
     checkpoint's argument there, the number 1000 as a pointer.) */
  sqlite3_wal_hook(db, hook, "first");
  q(db, "CREATE TABLE t(a)");
  printf("calls in rollback mode: %d\n", calls);
  q(db, "PRAGMA journal_mode=WAL");
  q(db, "INSERT INTO t VALUES(1)");
  q(db, "PRAGMA wal_autocheckpoint");
  prev = sqlite3_wal_hook(db, hook, "second");
  printf("prev is first: %d\n", prev && strcmp((const char *)prev, "first") == 0);
  q(db, "BEGIN; INSERT INTO t VALUES(2); INSERT INTO t VALUES(3); COMMIT");
  q(db, "SELECT count(*) FROM t");
  answer = SQLITE_READONLY;
  q(db, "INSERT INTO t VALUES(4)");
  answer = SQLITE_OK;
  q(db, "SELECT count(*) FROM t");
  printf("autocheckpoint rc=%d\n", sqlite3_wal_autocheckpoint(db, 500));
  q(db, "PRAGMA wal_autocheckpoint");
  calls = 0;
  q(db, "INSERT INTO t VALUES(5)");
  printf("calls after wal_autocheckpoint: %d\n", calls);
  sqlite3_wal_hook(db, hook, "third");
  sqlite3_wal_hook(db, 0, 0);
  q(db, "INSERT INTO t VALUES(6)");
  printf("calls after removal: %d\n", calls);
  sqlite3_close(db);
  unlink(path);
  snprintf(side, sizeof side, "%s-wal", path); unlink(side);
  snprintf(side, sizeof side, "%s-shm", path); unlink(side);
  return 0;
}
