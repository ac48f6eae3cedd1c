/* The sqlite_stmt virtual table (stmt.txt) with several live statements:
** newest first, finalized ones gone, busy for a statement stepped and not
** reset (the statement reading the table sees itself busy), and the
** counters nscan, nsort, naidx, reprep and run as sqlite3_stmt_status
** gives them, after resets, a schema change (reprepare) and a status
** reset. nstep and mem are not printed: they count ringlite's own program
** and heap (README, compatibility). */
#include <stdio.h>
#include "sqlite3.h"

static sqlite3 *db;

static void dump(const char *label) {
  sqlite3_stmt *q;
  printf("-- %s\n", label);
  if (sqlite3_prepare_v2(db, "SELECT rowid, sql, ncol, ro, busy, nscan, nsort, naidx, reprep, run, typeof(nstep), typeof(mem) FROM sqlite_stmt", -1, &q, 0)) {
    printf("prepare error: %s\n", sqlite3_errmsg(db));
    return;
  }
  while (sqlite3_step(q) == SQLITE_ROW) {
    printf("%s|%s", (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1));
    for (int i = 2; i < 12; i++) printf("|%s", (const char *)sqlite3_column_text(q, i));
    printf("\n");
  }
  sqlite3_finalize(q);
}

static sqlite3_stmt *prep(const char *sql) {
  sqlite3_stmt *s = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &s, 0)) printf("prepare error: %s\n", sqlite3_errmsg(db));
  return s;
}

static int drain(sqlite3_stmt *s) {
  int n = 0, rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) n++;
  if (rc != SQLITE_DONE) printf("step error: %s\n", sqlite3_errmsg(db));
  return n;
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2), (3, 4), (5, 6);"
                   "CREATE TABLE u(x, y); INSERT INTO u SELECT a, b FROM t;", 0, 0, 0);
  dump("none prepared");
  sqlite3_stmt *scan = prep("SELECT * FROM t");
  sqlite3_stmt *sorted = prep("SELECT a FROM t ORDER BY b DESC");
  sqlite3_stmt *join = prep("SELECT * FROM t, u WHERE t.a = u.x");
  sqlite3_stmt *write = prep("UPDATE t SET b = b + 1 WHERE a = 3");
  sqlite3_stmt *gone = prep("SELECT 1");
  dump("prepared, none run");
  sqlite3_finalize(gone);
  sqlite3_step(scan);
  drain(sorted);
  drain(join);
  drain(write);
  dump("scan busy, others done");
  sqlite3_reset(scan);
  drain(scan);
  sqlite3_reset(sorted);
  drain(sorted);
  dump("run again");
  sqlite3_exec(db, "CREATE INDEX ub ON u(x)", 0, 0, 0);
  drain(join);
  sqlite3_reset(join);
  dump("after a schema change");
  printf("status scan reset: %d\n", sqlite3_stmt_status(scan, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1));
  printf("status run reset: %d\n", sqlite3_stmt_status(sorted, SQLITE_STMTSTATUS_RUN, 1));
  printf("status sort: %d\n", sqlite3_stmt_status(sorted, SQLITE_STMTSTATUS_SORT, 0));
  dump("after status resets");
  sqlite3_stmt *self = prep("SELECT sql, busy, run, nscan FROM sqlite_stmt");
  while (sqlite3_step(self) == SQLITE_ROW)
    printf("self: %s|%d|%d|%d\n", (const char *)sqlite3_column_text(self, 0), sqlite3_column_int(self, 1),
           sqlite3_column_int(self, 2), sqlite3_column_int(self, 3));
  sqlite3_reset(self);
  dump("reader reset");
  sqlite3_finalize(self);
  sqlite3_finalize(scan);
  sqlite3_finalize(sorted);
  sqlite3_finalize(join);
  sqlite3_finalize(write);
  dump("all finalized");
  sqlite3_stmt *bad = 0;
  printf("create: %d\n", sqlite3_exec(db, "CREATE VIRTUAL TABLE s USING sqlite_stmt", 0, 0, 0));
  printf("errmsg: %s\n", sqlite3_errmsg(db));
  printf("insert: %d\n", sqlite3_prepare_v2(db, "INSERT INTO sqlite_stmt(sql) VALUES('x')", -1, &bad, 0));
  printf("errmsg: %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(bad);
  sqlite3_close(db);
  return 0;
}
