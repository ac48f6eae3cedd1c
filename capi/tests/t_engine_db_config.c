/* sqlite3_db_config: the switches ringlite honours, read and set, and what
 * each one changes (compared with SQLite's output). */
#include <stdio.h>
#include "sqlite3.h"

static int one(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

int main(void) {
  sqlite3 *db;
  int v, rc, i;
  static const int defaults[] = {SQLITE_DBCONFIG_ENABLE_FKEY, SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
    SQLITE_DBCONFIG_LEGACY_ALTER_TABLE, SQLITE_DBCONFIG_WRITABLE_SCHEMA, SQLITE_DBCONFIG_DQS_DML, SQLITE_DBCONFIG_DQS_DDL,
    SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_QPSG, SQLITE_DBCONFIG_DEFENSIVE, SQLITE_DBCONFIG_RESET_DATABASE};
  sqlite3_open(":memory:", &db);
  for (i = 0; i < (int)(sizeof defaults / sizeof defaults[0]); i++) {
    v = -7;
    rc = sqlite3_db_config(db, defaults[i], -1, &v);
    printf("op %d: rc=%d value=%d\n", defaults[i], rc, v);
  }
  sqlite3_exec(db, "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(pid REFERENCES p(id));", 0, 0, 0);
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, &v);
  printf("fkey on: rc=%d value=%d pragma=%d\n", rc, v, one(db, "PRAGMA foreign_keys"));
  rc = sqlite3_exec(db, "INSERT INTO c VALUES(5)", 0, 0, 0);
  printf("orphan insert: rc=%d %s\n", rc, rc ? sqlite3_errmsg(db) : "");
  /* Inside a transaction too (the PRAGMA would be a no-op there). */
  sqlite3_exec(db, "BEGIN", 0, 0, 0);
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, 0, &v);
  printf("fkey off in txn: rc=%d value=%d pragma=%d\n", rc, v, one(db, "PRAGMA foreign_keys"));
  rc = sqlite3_exec(db, "INSERT INTO c VALUES(6); COMMIT;", 0, 0, 0);
  printf("orphan insert: rc=%d\n", rc);
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_LEGACY_ALTER_TABLE, 1, &v);
  printf("legacy alter: rc=%d value=%d pragma=%d\n", rc, v, one(db, "PRAGMA legacy_alter_table"));
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 1, &v);
  printf("writable schema: rc=%d value=%d pragma=%d\n", rc, v, one(db, "PRAGMA writable_schema"));
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 0, &v);
  printf("writable schema off: rc=%d value=%d pragma=%d\n", rc, v, one(db, "PRAGMA writable_schema"));
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_QPSG, 1, &v);
  printf("qpsg: rc=%d value=%d\n", rc, v);
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 1, &v);
  printf("dqs dml (default): rc=%d value=%d\n", rc, v);
  /* Turned off: a double-quoted name no column has is an error. */
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, &v);
  printf("dqs dml off: rc=%d value=%d\n", rc, v);
  rc = sqlite3_exec(db, "SELECT \"nope\"", 0, 0, 0);
  printf("dqs string: rc=%d %s\n", rc, rc ? sqlite3_errmsg(db) : "");
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, &v);
  printf("dqs ddl off: rc=%d value=%d\n", rc, v);
  rc = sqlite3_exec(db, "CREATE TABLE q(a CHECK (a != \"x\"))", 0, 0, 0);
  printf("dqs check: rc=%d %s\n", rc, rc ? sqlite3_errmsg(db) : "");
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 0, &v);
  printf("defensive off (default): rc=%d value=%d\n", rc, v);
  sqlite3_close(db);
  return 0;
}
