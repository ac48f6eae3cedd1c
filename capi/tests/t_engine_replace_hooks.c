/* REPLACE resolving a rowid conflict on a table with indexes: the
 * pre-update hook hears of the old row's deletion and of the insert, the
 * update hook of the insert only, the change counts count the inserts,
 * and the index entries of the replaced rows are gone (ringlite removes
 * only those and overwrites the table entry, as SQLite does). */
#include "sqlite3.h"
#include <stdio.h>
static void hook(void *p, sqlite3 *db, int op, const char *zdb, const char *tab, sqlite3_int64 o, sqlite3_int64 n){
  sqlite3_value *v = 0;
  printf("pre op=%d %s old=%lld new=%lld", op, tab, (long long)o, (long long)n);
  if (op != SQLITE_INSERT && sqlite3_preupdate_old(db, 1, &v) == SQLITE_OK) printf(" oldb=%s", sqlite3_value_text(v));
  if (op != SQLITE_DELETE && sqlite3_preupdate_new(db, 1, &v) == SQLITE_OK) printf(" newb=%s", sqlite3_value_text(v));
  printf("\n");
}
static void upd(void *p, int op, const char *d, const char *t, sqlite3_int64 r){ printf("upd op=%d %s %lld\n", op, t, (long long)r); }
static int cb(void *p, int n, char **v, char **c){ for(int i=0;i<n;i++) printf("%s ", v[i]?v[i]:"NULL"); printf("\n"); return 0; }
int main(void){
  sqlite3 *db; sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INT UNIQUE); CREATE INDEX tb ON t(b); INSERT INTO t VALUES(1,'x',10),(2,'y',20),(3,'z',30); CREATE TABLE s(a,b,c); INSERT INTO s VALUES(1,'X',11),(4,'w',20),(3,'Z',31);", 0, 0, 0);
  sqlite3_preupdate_hook(db, hook, 0); sqlite3_update_hook(db, upd, 0);
  sqlite3_exec(db, "REPLACE INTO t VALUES(2,'q',99)", 0, 0, 0);
  printf("changes=%d\n", sqlite3_changes(db));
  sqlite3_exec(db, "REPLACE INTO t SELECT * FROM s", 0, 0, 0);
  printf("changes=%d total=%d last=%lld\n", sqlite3_changes(db), sqlite3_total_changes(db), (long long)sqlite3_last_insert_rowid(db));
  sqlite3_exec(db, "SELECT * FROM t ORDER BY a; SELECT b, a FROM t INDEXED BY tb ORDER BY b; PRAGMA integrity_check;", cb, 0, 0);
  return 0;
}
