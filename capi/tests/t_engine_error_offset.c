/* sqlite3_error_offset: the byte offset of the token a prepare error is
** about (syntax errors, unknown tables, columns and functions), -1 when
** there is none. */
#include <stdio.h>
#include "sqlite3.h"

static sqlite3 *db;

static void try(const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  int off = sqlite3_error_offset(db);
  printf("%-45s rc=%d off=%d", sql, rc, off);
  if (off >= 0) printf(" at [%.6s]", sql + off);
  printf(" %s\n", rc ? sqlite3_errmsg(db) : "");
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a, b); CREATE TABLE u(a, c);", 0, 0, 0);
  try("SELECT a FROM t");
  try("SELECT * FROM nosuch");
  try("SELECT a FROM t, nosuch");
  try("SELECT zz FROM t");
  try("SELECT a, b, zz FROM t");
  try("SELECT a FROM t WHERE zz = 1");
  try("SELECT t.zz FROM t");
  try("SELECT x.a FROM t");
  try("SELECT a FROM t, u");
  try("SELECT nofunc(a) FROM t");
  try("SELECT a FROM t WHERE");
  try("SELECT a FROM FROM t");
  try("SELECT a,, b FROM t");
  try("SELEC a FROM t");
  try("SELECT 'abc");
  try("SELECT a FROM t WHERE a = 1 ORDER");
  try("SELECT a\nFROM t\nWHERE a = = 1");
  try("SELECT b AS zz FROM t WHERE zz > 0 AND yy");
  try("SELECT a FROM t ORDER BY length(qq)");
  try("SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND zz");
  try("SELECT (SELECT zz FROM u) FROM t");
  try("SELECT a FROM t WHERE a IN (SELECT c FROM u WHERE zz)");
  try("SELECT a FROM t;   SELECT zz FROM t");
  try("INSERT INTO nosuch VALUES(1)");
  try("INSERT INTO t(zz) VALUES(1)");
  try("UPDATE t SET zz = 1");
  try("DELETE FROM nosuch");
  try("SELECT a FROM t");
  sqlite3_close(db);
  return 0;
}
