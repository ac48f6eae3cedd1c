/* Result-column metadata: origin database, table and column. */
#include <stdio.h>
#include "sqlite3.h"

#define S(x) ((x) ? (x) : "NULL")

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int i;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL COLLATE NOCASE, c)", 0, 0, 0);
  sqlite3_prepare_v2(db, "SELECT a, b AS bee, c, a + 1, (SELECT b FROM t) FROM t", -1, &st, 0);
  for (i = 0; i < sqlite3_column_count(st); i++)
    printf("%d name=%s decltype=%s origin=%s.%s.%s\n", i, S(sqlite3_column_name(st, i)), S(sqlite3_column_decltype(st, i)),
           S(sqlite3_column_database_name(st, i)), S(sqlite3_column_table_name(st, i)), S(sqlite3_column_origin_name(st, i)));
  sqlite3_finalize(st);
  {
    const char *type, *coll;
    int notnull, pk, autoinc, rc;
    sqlite3_exec(db, "CREATE TABLE u(x, y, PRIMARY KEY(x, y)) WITHOUT ROWID", 0, 0, 0);
    rc = sqlite3_table_column_metadata(db, "main", "u", "x", &type, &coll, &notnull, &pk, &autoinc);
    printf("without rowid: rc=%d type=%s notnull=%d pk=%d\n", rc, rc ? "-" : S(type), rc ? -1 : notnull, rc ? -1 : pk);
    rc = sqlite3_table_column_metadata(db, "main", "u", "rowid", &type, &coll, &notnull, &pk, &autoinc);
    printf("without rowid, rowid: rc=%d\n", rc);
  }
  sqlite3_close(db);
  return 0;
}
