/* The online backup API: whole and page-by-page copies into memory and
   file destinations, remaining/pagecount bookkeeping, the destination's
   schema reloaded, and the documented errors. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sqlite3.h"

static int cb(void *tag, int n, char **v, char **names) {
  int i;
  printf("%s:", (const char *)tag);
  for (i = 0; i < n; i++) printf(" %s=%s", names[i], v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void q(sqlite3 *db, const char *tag, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, cb, (void *)tag, &err);
  if (rc) printf("%s: rc=%d %s\n", tag, rc, err ? err : "");
  sqlite3_free(err);
}

int main(void) {
  sqlite3 *src, *mem, *file;
  sqlite3_backup *b;
  int rc, steps = 0, consistent = 1;
  char path[] = "/tmp/ringlite_backup_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);

  sqlite3_open(":memory:", &src);
  q(src, "setup",
    "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);"
    "CREATE INDEX tb ON t(b);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<300)"
    " INSERT INTO t SELECT i, 'row ' || i, zeroblob(i*11) FROM n;"
    "CREATE TABLE u(x); INSERT INTO u VALUES('hello');");

  /* Whole copy into a memory database. */
  sqlite3_open(":memory:", &mem);
  b = sqlite3_backup_init(mem, "main", src, "main");
  printf("init: %s\n", b ? "ok" : sqlite3_errmsg(mem));
  printf("before step: remaining=%d pagecount=%d\n", sqlite3_backup_remaining(b), sqlite3_backup_pagecount(b));
  rc = sqlite3_backup_step(b, -1);
  printf("step(-1)=%d remaining=%d pagecount>0=%d\n", rc, sqlite3_backup_remaining(b), sqlite3_backup_pagecount(b) > 0);
  printf("step again=%d\n", sqlite3_backup_step(b, 10));
  printf("finish=%d errcode=%d\n", sqlite3_backup_finish(b), sqlite3_errcode(mem));
  q(mem, "mem", "SELECT count(*), sum(a), sum(length(c)), max(b) FROM t; SELECT * FROM u;");
  q(mem, "mem", "PRAGMA integrity_check");

  /* Page by page into a file that already holds something else. */
  sqlite3_open(path, &file);
  q(file, "file", "CREATE TABLE old(z); INSERT INTO old VALUES(1);");
  b = sqlite3_backup_init(file, "main", src, "main");
  while ((rc = sqlite3_backup_step(b, 3)) == SQLITE_OK) {
    steps++;
    if (sqlite3_backup_remaining(b) + 3 * steps != sqlite3_backup_pagecount(b)) consistent = 0;
  }
  printf("last step=%d several steps=%d consistent=%d\n", rc, steps > 2, consistent);
  printf("finish=%d\n", sqlite3_backup_finish(b));
  q(file, "file", "SELECT count(*), sum(a) FROM t; SELECT name FROM sqlite_schema ORDER BY name;");
  q(file, "file", "PRAGMA integrity_check");

  /* An unfinished backup leaves the destination as it was. */
  q(mem, "setup", "DROP TABLE t; CREATE TABLE keep(k); INSERT INTO keep VALUES(7);");
  b = sqlite3_backup_init(mem, "main", src, "main");
  printf("partial step=%d\n", sqlite3_backup_step(b, 2));
  printf("finish=%d\n", sqlite3_backup_finish(b));
  q(mem, "mem", "SELECT name FROM sqlite_schema ORDER BY name; SELECT * FROM keep;");

  /* Errors. */
  b = sqlite3_backup_init(mem, "nosuch", src, "main");
  printf("unknown dest db: %s rc=%d msg=%s\n", b ? "handle" : "NULL", sqlite3_errcode(mem), sqlite3_errmsg(mem));
  b = sqlite3_backup_init(mem, "main", src, "nosuch");
  printf("unknown src db: %s rc=%d msg=%s\n", b ? "handle" : "NULL", sqlite3_errcode(mem), sqlite3_errmsg(mem));
  b = sqlite3_backup_init(mem, "main", mem, "main");
  printf("same connection: %s rc=%d msg=%s\n", b ? "handle" : "NULL", sqlite3_errcode(mem), sqlite3_errmsg(mem));
  q(mem, "setup", "BEGIN; INSERT INTO keep VALUES(8);");
  b = sqlite3_backup_init(mem, "main", src, "main");
  printf("dest in transaction: %s rc=%d msg=%s\n", b ? "handle" : "NULL", sqlite3_errcode(mem), sqlite3_errmsg(mem));
  if (b) sqlite3_backup_finish(b);
  q(mem, "setup", "COMMIT");
  printf("finish(NULL)=%d\n", sqlite3_backup_finish(0));

  sqlite3_close(src);
  sqlite3_close(mem);
  sqlite3_close(file);
  unlink(path);
  return 0;
}
