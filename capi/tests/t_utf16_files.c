/* UTF-16 databases through the C API: a collation registered for
 * UTF-16le, UTF-16be and UTF-8 gets its texts in that encoding whatever
 * the database's; column_text16/bytes16 and bind_text16 on a UTF-16le
 * database; PRAGMA encoding answers. Output must match SQLite's. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static int calls;
static int last_len;
static int first_byte;

/* Orders by the text's bytes reversed, and notes what it was given. */
static int rev(void *arg, int na, const void *a, int nb, const void *b) {
  (void)arg;
  calls++;
  last_len = na;
  if (na > 0) first_byte = ((const unsigned char *)a)[0];
  const unsigned char *x = a, *y = b;
  int n = na < nb ? na : nb;
  for (int i = 1; i <= n; i++) {
    if (x[na - i] != y[nb - i]) return x[na - i] < y[nb - i] ? -1 : 1;
  }
  return na - nb;
}

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) {
    printf("%s -> error %s\n", sql, sqlite3_errmsg(db));
    return;
  }
  printf("%s ->", sql);
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf(" [%s]", t ? (const char *)t : "NULL");
    }
  }
  printf("\n");
  sqlite3_finalize(st);
}

int main(void) {
  const char *encs[] = {"UTF-16le", "UTF-16be", "UTF-8"};
  int reps[] = {SQLITE_UTF16LE, SQLITE_UTF16BE, SQLITE_UTF8};
  for (int e = 0; e < 3; e++) {
    for (int r = 0; r < 3; r++) {
      sqlite3 *db;
      sqlite3_open(":memory:", &db);
      char sql[200];
      snprintf(sql, sizeof sql, "PRAGMA encoding='%s'", encs[e]);
      sqlite3_exec(db, sql, 0, 0, 0);
      sqlite3_create_collation(db, "REV", reps[r], 0, rev);
      calls = 0;
      sqlite3_exec(db, "CREATE TABLE t(a TEXT COLLATE REV); INSERT INTO t VALUES('ab'),('ba'),('ca'),('ac');", 0, 0, 0);
      printf("db %s, collation rep %d\n", encs[e], reps[r]);
      show(db, "PRAGMA encoding");
      show(db, "SELECT group_concat(a) FROM (SELECT a FROM t ORDER BY a)");
      show(db, "SELECT 'xy' = 'xy' COLLATE REV");
      printf("collation got %d bytes, first byte %d\n", last_len, first_byte);
      sqlite3_close(db);
    }
  }
  /* text16 on a UTF-16le database. */
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "PRAGMA encoding='UTF-16le'; CREATE TABLE t(a);", 0, 0, 0);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1)", -1, &st, 0);
  const unsigned short w[] = {0x61, 0xe9, 0xd83d, 0xde00, 0};
  sqlite3_bind_text16(st, 1, w, -1, SQLITE_STATIC);
  sqlite3_step(st);
  sqlite3_finalize(st);
  sqlite3_prepare_v2(db, "SELECT a, hex(a), length(a) FROM t", -1, &st, 0);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned short *t = sqlite3_column_text16(st, 0);
    int n = sqlite3_column_bytes16(st, 0);
    printf("bytes16 %d:", n);
    for (int i = 0; i < n / 2; i++) printf(" %04x", t[i]);
    printf(" utf8 bytes %d hex %s length %s\n", sqlite3_column_bytes(st, 0), sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
