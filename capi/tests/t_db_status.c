/* sqlite3_db_status and sqlite3_db_status64 on one workload, printed so that
 * ringlite and SQLite 3.54.1 must agree: exact values where the counts are
 * determined by the file format and SQLite's rules (pages written by a
 * commit in rollback and WAL mode, no miss on a cached database, the reset
 * flag, high-water marks, unresolved deferred foreign keys, lookaside when
 * disabled, unknown verbs), and for the estimates (cache, schema and
 * statement memory, hits, misses, spills) whether they are plausible:
 * non-zero where SQLite's are, growing and shrinking with what they
 * measure, within bounds the workload sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

static void exec(const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc != SQLITE_OK) printf("  exec [%s]: rc=%d %s\n", sql, rc, err ? err : "");
  sqlite3_free(err);
}

static int stat1(int op, int reset) {
  int cur = -1, hi = -1;
  int rc = sqlite3_db_status(db, op, &cur, &hi, reset);
  if (rc != SQLITE_OK) printf("  status %d: rc=%d\n", op, rc);
  if (hi != 0 && op > SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL) printf("  status %d: high-water %d\n", op, hi);
  return cur;
}

static long long stat64(int op, int reset) {
  sqlite3_int64 cur = -1, hi = -1;
  int rc = sqlite3_db_status64(db, op, &cur, &hi, reset);
  if (rc != SQLITE_OK) printf("  status64 %d: rc=%d\n", op, rc);
  if (hi != 0 && op > SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL) printf("  status64 %d: high-water %lld\n", op, hi);
  return cur;
}

static int pages(void) {
  sqlite3_stmt *st;
  int n = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA page_count", -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* Pages a statement wrote: CACHE_WRITE reset before, read after. */
static void writes_of(const char *label, const char *sql) {
  stat1(SQLITE_DBSTATUS_CACHE_WRITE, 1);
  exec(sql);
  printf("  %s: CACHE_WRITE %d\n", label, stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0));
}

int main(void) {
  int cur = -1, hi = -1, rc;
  remove("tds.db");
  remove("tds.db-wal");
  remove("tds.db-shm");
  if (sqlite3_open("tds.db", &db) != SQLITE_OK) return 1;

  printf("verbs:\n");
  rc = sqlite3_db_status(db, SQLITE_DBSTATUS_MAX + 1, &cur, &hi, 0);
  printf("  MAX+1 rc=%d\n", rc);
  rc = sqlite3_db_status(db, -1, &cur, &hi, 0);
  printf("  -1 rc=%d\n", rc);
  rc = sqlite3_db_status64(db, 99, 0, 0, 0) == SQLITE_OK;
  printf("  99 ok=%d\n", rc);

  printf("lookaside disabled:\n");
  printf("  db_config rc=%d\n", sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, (void *)0, 0, 0));
  for (int op = SQLITE_DBSTATUS_LOOKASIDE_HIT; op <= SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL; op++) sqlite3_db_status(db, op, &cur, &hi, 1);

  printf("rollback journal, exact page writes:\n");
  exec("PRAGMA page_size=4096; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)");
  writes_of("insert 40 rows of 1200 bytes",
            "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<40)"
            " INSERT INTO t SELECT x, printf('%.1200c', char(65 + x % 26)) FROM c");
  printf("  pages %d\n", pages());
  writes_of("update one row", "UPDATE t SET b = lower(b) WHERE a = 7");
  writes_of("update every fifth row", "UPDATE t SET b = upper(b) WHERE a % 5 = 0");
  writes_of("a read", "SELECT count(*) FROM t");
  writes_of("delete three rows", "DELETE FROM t WHERE a IN (31, 35, 39)");
  /* (Leaves freed: the first becomes the free list's trunk, the others
   * its leaves, which are not written.) */
  writes_of("delete the last rows", "DELETE FROM t WHERE a > 27");
  writes_of("an explicit transaction", "BEGIN; INSERT INTO t VALUES(100, 'x'); UPDATE t SET b = 'y' WHERE a = 1; COMMIT");
  writes_of("a rolled-back transaction", "BEGIN; UPDATE t SET b = 'z'; ROLLBACK");

  printf("reset flag:\n");
  exec("UPDATE t SET b = 'w' WHERE a = 2");
  int a = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0), b = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0);
  int c = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 1), d = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0);
  printf("  read twice %d %d, read with reset %d, after reset %d\n", a, b, c, d);
  exec("UPDATE t SET b = 'v' WHERE a = 2");
  long long w64 = stat64(SQLITE_DBSTATUS_CACHE_WRITE, 0);
  int w32 = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 1);
  printf("  64-bit %lld, 32-bit %d, after reset %d\n", w64, w32, stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0));

  printf("hits and misses:\n");
  sqlite3_close(db);
  sqlite3_open("tds.db", &db);
  sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, (void *)0, 0, 0);
  for (int op = SQLITE_DBSTATUS_LOOKASIDE_HIT; op <= SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL; op++) sqlite3_db_status(db, op, &cur, &hi, 1);
  for (int op = SQLITE_DBSTATUS_CACHE_HIT; op <= SQLITE_DBSTATUS_CACHE_SPILL; op++)
    if (op != SQLITE_DBSTATUS_DEFERRED_FKS && op != SQLITE_DBSTATUS_CACHE_USED_SHARED) printf("  fresh connection: verb %d: %d\n", op, stat1(op, 0));
  long long used0 = stat64(SQLITE_DBSTATUS_CACHE_USED, 0);
  exec("SELECT sum(length(b)) FROM t");
  int n = pages(), miss = stat1(SQLITE_DBSTATUS_CACHE_MISS, 1), hit = stat1(SQLITE_DBSTATUS_CACHE_HIT, 1);
  printf("  cold scan: misses in [2, pages] %d, hits > 0 %d\n", miss >= 2 && miss <= n, hit > 0);
  long long used1 = stat64(SQLITE_DBSTATUS_CACHE_USED, 0);
  printf("  CACHE_USED grew by at least the pages read %d, CACHE_USED_SHARED equal %d\n", used1 - used0 >= (long long)miss * 4096,
         used1 == stat64(SQLITE_DBSTATUS_CACHE_USED_SHARED, 0));
  exec("SELECT sum(length(b)) FROM t");
  miss = stat1(SQLITE_DBSTATUS_CACHE_MISS, 1);
  hit = stat1(SQLITE_DBSTATUS_CACHE_HIT, 1);
  printf("  warm scan: misses %d, hits in [pages/2, 50*pages] %d\n", miss, hit >= n / 2 && hit <= 50 * n);
  exec("SELECT b FROM t WHERE a = 17");
  printf("  warm lookup: misses %d, hits > 0 %d\n", stat1(SQLITE_DBSTATUS_CACHE_MISS, 1), stat1(SQLITE_DBSTATUS_CACHE_HIT, 1) > 0);
  sqlite3_db_release_memory(db);
  printf("  CACHE_USED smaller after release_memory %d\n", stat64(SQLITE_DBSTATUS_CACHE_USED, 0) < used1);

  printf("cache spill:\n");
  exec("PRAGMA cache_size=10");
  stat1(SQLITE_DBSTATUS_CACHE_SPILL, 1);
  stat1(SQLITE_DBSTATUS_CACHE_WRITE, 1);
  exec("BEGIN; WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<200)"
       " INSERT INTO t SELECT 1000 + x, printf('%.1500c', 'q') FROM c");
  int spill = stat1(SQLITE_DBSTATUS_CACHE_SPILL, 0), wr = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0);
  printf("  before commit: spilled > 0 %d, writes >= spills %d\n", spill > 0, wr >= spill);
  exec("COMMIT");
  int spill2 = stat1(SQLITE_DBSTATUS_CACHE_SPILL, 0), wr2 = stat1(SQLITE_DBSTATUS_CACHE_WRITE, 0);
  printf("  after commit: spills kept %d, writes grew %d\n", spill2 == spill, wr2 > wr);
  stat1(SQLITE_DBSTATUS_CACHE_SPILL, 1);
  writes_of("small transaction, no spill", "UPDATE t SET b = 'u' WHERE a = 3");
  printf("  spills %d\n", stat1(SQLITE_DBSTATUS_CACHE_SPILL, 0));
  exec("PRAGMA cache_size=-2000");

  printf("WAL, exact frame counts:\n");
  exec("PRAGMA journal_mode=WAL");
  writes_of("update one row", "UPDATE t SET b = 'a' WHERE a = 7");
  writes_of("insert a row that grows the file", "INSERT INTO t VALUES(5000, printf('%.3000c', 'g'))");
  writes_of("update every fifth row", "UPDATE t SET b = 'b' WHERE a % 5 = 0");
  exec("PRAGMA journal_mode=DELETE");

  printf("schema and statement memory:\n");
  int schema0 = stat1(SQLITE_DBSTATUS_SCHEMA_USED, 0);
  exec("CREATE TABLE wide(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20);"
       "CREATE INDEX wide1 ON wide(c1, c2, c3); CREATE TRIGGER wt AFTER INSERT ON wide BEGIN SELECT 1; END");
  int schema1 = stat1(SQLITE_DBSTATUS_SCHEMA_USED, 0);
  printf("  schema > 0 %d, grew %d\n", schema0 > 0, schema1 > schema0);
  exec("DROP TABLE wide");
  printf("  shrank after DROP %d\n", stat1(SQLITE_DBSTATUS_SCHEMA_USED, 0) < schema1);
  int stmt0 = stat1(SQLITE_DBSTATUS_STMT_USED, 0);
  sqlite3_stmt *s1, *s2;
  sqlite3_prepare_v2(db, "SELECT a, b, length(b), upper(b) FROM t WHERE a BETWEEN ?1 AND ?2 ORDER BY b", -1, &s1, 0);
  int stmt1 = stat1(SQLITE_DBSTATUS_STMT_USED, 0);
  sqlite3_prepare_v2(db, "INSERT INTO t(b) SELECT b || 'x' FROM t WHERE a < 10", -1, &s2, 0);
  int stmt2 = stat1(SQLITE_DBSTATUS_STMT_USED, 0);
  sqlite3_finalize(s1);
  int stmt3 = stat1(SQLITE_DBSTATUS_STMT_USED, 0);
  sqlite3_finalize(s2);
  int stmt4 = stat1(SQLITE_DBSTATUS_STMT_USED, 0);
  printf("  none %d, grows %d %d, shrinks %d %d\n", stmt0 == 0, stmt1 > stmt0, stmt2 > stmt1, stmt3 < stmt2, stmt4 == stmt0);

  printf("deferred foreign keys:\n");
  exec("PRAGMA foreign_keys=ON; CREATE TABLE p(id INTEGER PRIMARY KEY);"
       "CREATE TABLE cd(x REFERENCES p DEFERRABLE INITIALLY DEFERRED); CREATE TABLE ci(x REFERENCES p)");
  printf("  outside a transaction %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("BEGIN; INSERT INTO cd VALUES(1)");
  printf("  deferred violation %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("INSERT INTO p VALUES(1)");
  printf("  resolved %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("INSERT INTO cd VALUES(2), (3)");
  printf("  two more %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("DELETE FROM cd WHERE x = 2");
  printf("  one left %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("COMMIT");
  printf("  after a failed COMMIT %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("ROLLBACK");
  printf("  after ROLLBACK %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("PRAGMA defer_foreign_keys=ON; BEGIN; INSERT INTO ci VALUES(7)");
  printf("  immediate one deferred by the pragma %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("INSERT INTO p VALUES(7)");
  printf("  resolved %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));
  exec("COMMIT");
  printf("  committed %d\n", stat1(SQLITE_DBSTATUS_DEFERRED_FKS, 0));

  printf("sorts spilled to temporary files:\n");
  exec("PRAGMA cache_size=20; CREATE TABLE big(a, b);"
       "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<20000)"
       " INSERT INTO big SELECT (x * 7919) % 20000, printf('%.60c', 'k') || x FROM c");
  stat64(SQLITE_DBSTATUS_TEMPBUF_SPILL, 1);
  exec("SELECT count(*) FROM (SELECT a FROM big WHERE a < 50 ORDER BY b)");
  printf("  small sort: %lld\n", stat64(SQLITE_DBSTATUS_TEMPBUF_SPILL, 0));
  exec("PRAGMA temp_store=FILE; SELECT sum(a), max(b) FROM (SELECT a, b FROM big ORDER BY b || 'x')");
  long long spilled = stat64(SQLITE_DBSTATUS_TEMPBUF_SPILL, 1);
  /* (Each record holds the key and both columns, about 140 bytes.) */
  printf("  sort past the cache: spilled in [100, 200] bytes a row %d, after reset %lld\n",
         spilled >= 20000LL * 100 && spilled <= 20000LL * 200, stat64(SQLITE_DBSTATUS_TEMPBUF_SPILL, 0));
  exec("PRAGMA temp_store=MEMORY; SELECT sum(a), max(b) FROM (SELECT a, b FROM big ORDER BY b || 'x')");
  printf("  temp_store=MEMORY: %lld\n", stat64(SQLITE_DBSTATUS_TEMPBUF_SPILL, 0));
  exec("PRAGMA temp_store=DEFAULT; PRAGMA cache_size=-2000");

  printf("lookaside, disabled since open:\n");
  for (int op = SQLITE_DBSTATUS_LOOKASIDE_USED; op <= SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL; op++) {
    if (op == SQLITE_DBSTATUS_CACHE_USED) op = SQLITE_DBSTATUS_LOOKASIDE_HIT;
    rc = sqlite3_db_status(db, op, &cur, &hi, 0);
    printf("  verb %d: rc=%d %d %d\n", op, rc, cur, hi);
  }

  sqlite3_close(db);
  remove("tds.db");
  remove("tds.db-wal");
  remove("tds.db-shm");
  return 0;
}
