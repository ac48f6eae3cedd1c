/* The pre-update hook: every INSERT, UPDATE and DELETE of a rowid table
 * (through statements, triggers, REPLACE, DELETE without WHERE, a blob
 * write), with the old and new values, the count, the trigger depth and
 * the blob-write column, and SQL run from inside the hook. Output is
 * diffed against SQLite. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;
static int query_inside;

static void show(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: printf("NULL"); break;
    case SQLITE_INTEGER: printf("%lld", sqlite3_value_int64(v)); break;
    case SQLITE_FLOAT: printf("%g", sqlite3_value_double(v)); break;
    case SQLITE_TEXT: printf("'%s'", sqlite3_value_text(v)); break;
    default: printf("x(%d bytes)", sqlite3_value_bytes(v)); break;
  }
}

static void hook(void *p, sqlite3 *h, int op, const char *zdb, const char *ztab, sqlite3_int64 k1, sqlite3_int64 k2) {
  (void)p;
  const char *name = op == SQLITE_INSERT ? "INSERT" : op == SQLITE_DELETE ? "DELETE" : "UPDATE";
  int n = sqlite3_preupdate_count(h);
  printf("  %s %s.%s", name, zdb, ztab);
  if (op != SQLITE_INSERT) printf(" key1=%lld", k1);
  if (op != SQLITE_DELETE) printf(" key2=%lld", k2);
  printf(" n=%d depth=%d blob=%d", n, sqlite3_preupdate_depth(h), sqlite3_preupdate_blobwrite(h));
  sqlite3_value *v;
  if (op != SQLITE_INSERT) {
    printf(" old=(");
    for (int i = 0; i < n; i++) { if (i) printf(","); if (sqlite3_preupdate_old(h, i, &v) == SQLITE_OK) show(v); else printf("?"); }
    printf(")");
    printf(" old[n]=%d", sqlite3_preupdate_old(h, n, &v));
  } else {
    printf(" old[0]=%d", sqlite3_preupdate_old(h, 0, &v));
  }
  if (op != SQLITE_DELETE) {
    printf(" new=(");
    for (int i = 0; i < n; i++) { if (i) printf(","); if (sqlite3_preupdate_new(h, i, &v) == SQLITE_OK) show(v); else printf("?"); }
    printf(")");
    printf(" new[-1]=%d", sqlite3_preupdate_new(h, -1, &v));
  } else {
    printf(" new[0]=%d", sqlite3_preupdate_new(h, 0, &v));
  }
  if (query_inside) {
    sqlite3_stmt *s;
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\".\"%s\"", zdb, ztab);
    if (sqlite3_prepare_v2(h, sql, -1, &s, 0) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) printf(" rows=%d", sqlite3_column_int(s, 0));
    sqlite3_finalize(s);
  }
  printf("\n");
}

static void run(const char *sql) {
  char *err = 0;
  printf("> %s\n", sql);
  if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) printf("error: %s\n", err);
  sqlite3_free(err);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_value *v;
  printf("outside: count=%d depth=%d blob=%d old=%d new=%d\n", sqlite3_preupdate_count(db), sqlite3_preupdate_depth(db),
         sqlite3_preupdate_blobwrite(db), sqlite3_preupdate_old(db, 0, &v), sqlite3_preupdate_new(db, 0, &v));
  run("CREATE TABLE t(id INTEGER PRIMARY KEY, a, b REAL, c TEXT)");
  run("CREATE TABLE plain(x, y)");
  printf("previous: %p\n", sqlite3_preupdate_hook(db, hook, 0));
  run("CREATE TABLE wr(a, b PRIMARY KEY, c) WITHOUT ROWID");
  run("INSERT INTO wr VALUES(1,2,3),(4,5,6)");
  run("UPDATE wr SET c = 9 WHERE b = 2");
  run("UPDATE wr SET b = 7 WHERE b = 5");
  run("DELETE FROM wr WHERE a = 1");
  run("INSERT OR REPLACE INTO wr VALUES(0,7,0)");
  run("CREATE TABLE wr2(k1, v, k2, PRIMARY KEY(k2, k1)) WITHOUT ROWID; INSERT INTO wr2 VALUES('a', 'v', 'b'); UPDATE wr2 SET v = 'w'; DELETE FROM wr2");
  run("INSERT INTO t VALUES(1, 'one', 1.5, NULL), (2, x'0102', NULL, 'two')");
  run("INSERT INTO t(a) VALUES(3)");
  run("INSERT INTO plain VALUES(10, 20), (30, 40)");
  run("UPDATE t SET a = a || '!' WHERE id = 1");
  run("UPDATE t SET id = 7 WHERE id = 2");
  run("UPDATE plain SET y = y + 1");
  run("DELETE FROM t WHERE id = 3");
  run("DELETE FROM plain");
  run("INSERT OR REPLACE INTO t VALUES(7, 'replaced', 0, 'r')");
  run("CREATE UNIQUE INDEX tc ON t(c)");
  run("INSERT OR REPLACE INTO t VALUES(8, 'by index', 0, 'r')");
  run("CREATE TABLE log(what, k); CREATE TRIGGER tr AFTER UPDATE ON t BEGIN INSERT INTO log VALUES('upd', new.id); DELETE FROM log WHERE what = 'old'; END");
  run("INSERT INTO log VALUES('old', 0)");
  run("UPDATE t SET b = 2 WHERE id = 8");
  run("PRAGMA recursive_triggers = 1");
  run("UPDATE t SET b = 3 WHERE id = 8");
  run("PRAGMA recursive_triggers = 0");
  run("ALTER TABLE plain ADD COLUMN z DEFAULT 'dflt'");
  run("INSERT INTO plain(x, y) VALUES(1, 2)");
  run("ALTER TABLE plain ADD COLUMN w DEFAULT 5.5");
  run("UPDATE plain SET x = 100");
  run("ATTACH ':memory:' AS aux; CREATE TABLE aux.t2(k INTEGER PRIMARY KEY, v)");
  run("INSERT INTO aux.t2 VALUES(5, 'five'); DELETE FROM aux.t2");
  run("CREATE TEMP TABLE tt(q); INSERT INTO tt VALUES(1); UPDATE tt SET q = 2; DELETE FROM tt");
  run("CREATE TABLE seq(i INTEGER PRIMARY KEY AUTOINCREMENT, s); INSERT INTO seq(s) VALUES('a')");
  query_inside = 1;
  run("INSERT INTO plain(x, y) VALUES(7, 8)");
  run("DELETE FROM plain WHERE x = 7");
  query_inside = 0;
  run("CREATE TABLE blobs(id INTEGER PRIMARY KEY, pre, data, post); INSERT INTO blobs VALUES(1, 'p', zeroblob(4), 'q')");
  sqlite3_blob *b;
  if (sqlite3_blob_open(db, "main", "blobs", "data", 1, 1, &b) == SQLITE_OK) {
    printf("> blob write\n");
    sqlite3_blob_write(b, "ab", 2, 1);
    sqlite3_blob_close(b);
  }
  run("SELECT 1");
  printf("previous is ours: %d\n", sqlite3_preupdate_hook(db, 0, 0) == 0);
  run("INSERT INTO plain(x) VALUES(0)");
  sqlite3_close(db);
  return 0;
}
