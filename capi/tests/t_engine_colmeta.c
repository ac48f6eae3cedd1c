/* sqlite3_table_column_metadata. */
#include <stdio.h>
#include "sqlite3.h"

#define S(x) ((x) ? (x) : "NULL")

static void meta(sqlite3 *db, const char *schema, const char *table, const char *column) {
  const char *type = 0, *coll = 0;
  int notnull = -1, pk = -1, autoinc = -1;
  int rc = sqlite3_table_column_metadata(db, schema, table, column, &type, &coll, &notnull, &pk, &autoinc);
  printf("%s.%s.%s: rc=%d", S(schema), table, S(column), rc);
  if (rc == SQLITE_OK) printf(" type=%s coll=%s notnull=%d pk=%d autoinc=%d\n", S(type), S(coll), notnull, pk, autoinc);
  else printf(" msg=%s\n", sqlite3_errmsg(db));
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b TEXT NOT NULL COLLATE NOCASE, c, \"d e\" REAL UNIQUE);"
                   "CREATE TABLE v(p TEXT PRIMARY KEY, q INT);", 0, 0, 0);
  meta(db, "main", "t", "a");
  meta(db, "main", "t", "b");
  meta(db, 0, "t", "c");
  meta(db, 0, "T", "D E");
  meta(db, 0, "t", "rowid");
  meta(db, 0, "t", 0);
  meta(db, 0, "t", "nope");
  meta(db, 0, "nosuch", "a");
  meta(db, "main", "v", "p");
  meta(db, "main", "v", "oid");
  meta(db, "temp", "t", "a");
  sqlite3_close(db);
  return 0;
}
