/* String literals holding bytes that are not UTF-8 (Latin-1, as
 * DBD::SQLite's tests send) keep those bytes in their TEXT values, as in
 * SQLite: sqlite3_prepare_v2 accepts them and prints nothing on stderr
 * (the parser once panicked on them); such bytes in comments are white
 * space. (Names holding them: r_not_utf8.c.) */
#include <stdio.h>
#include "sqlite3.h"

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  printf("prepare rc=%d%s%s\n", rc, rc ? " " : "", rc ? sqlite3_errmsg(db) : "");
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf("%s%d:", i ? " | " : "", sqlite3_column_type(st, i));
      for (int k = 0; t && k < sqlite3_column_bytes(st, i); k++) printf("%02X", t[k]);
    }
    printf("\n");
  }
  sqlite3_finalize(st);
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  show(db, "SELECT 'caf\xe9'");
  show(db, "SELECT length('caf\xe9'), hex('caf\xe9'), quote('caf\xe9'), upper('caf\xe9'), 'caf\xe9' = 'caf\xe9'");
  show(db, "SELECT 'Berg\xe8re' < 'Berg\xe9', 'x\xe9' LIKE 'X\xe9', '\xe9\xe8' GLOB '\xe9*', 'it''s \xff'");
  sqlite3_exec(db, "CREATE TABLE t(a)", 0, 0, 0);
  show(db, "INSERT INTO t VALUES('\xe9t\xe9'), ('\xc3')");
  show(db, "SELECT a, length(a) FROM t WHERE a = '\xe9t\xe9' OR a = '\xc3'");
  show(db, "SELECT 1 -- caf\xe9");
  show(db, "SELECT /* \xe9 */ 2");
  sqlite3_close(db);
  return 0;
}
