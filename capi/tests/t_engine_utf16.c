/* The UTF-16 interfaces: open16, prepare16 (tail), bind_text16,
** column_text16/name16/bytes16, errmsg16, value conversions between
** encodings; and the pointer/conversion rules of column_blob.txt. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

static void put16(const void *p) {
  const unsigned short *u = p;
  if (!u) { printf("NULL"); return; }
  while (*u) { if (*u < 128) putchar((char)*u); else printf("\\u%04x", *u); u++; }
}

static const unsigned short *u16(const char *s, unsigned short *buf) {
  int i = 0;
  while ((buf[i] = (unsigned char)s[i]) != 0) i++;
  return buf;
}

int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  unsigned short b1[128], b2[128];
  const void *tail;
  const unsigned char *t1, *t2;
  int rc;
  rc = sqlite3_open16(u16(":memory:", b1), &db);
  printf("open16=%d\n", rc);
  rc = sqlite3_prepare16_v2(db, u16("SELECT ?1 || 'x', 'caf\xc3' AS c; SELECT 2", b1), -1, &st, &tail);
  printf("prepare16=%d tail=", rc); put16(tail); printf("\n");
  sqlite3_bind_text16(st, 1, u16("abc", b2), -1, SQLITE_TRANSIENT);
  rc = sqlite3_step(st);
  printf("step=%d text16=", rc); put16(sqlite3_column_text16(st, 0));
  printf(" bytes16=%d bytes=%d name16=", sqlite3_column_bytes16(st, 0), sqlite3_column_bytes(st, 0));
  put16(sqlite3_column_name16(st, 1)); printf("\n");
  sqlite3_finalize(st);
  rc = sqlite3_prepare16_v2(db, u16("SELECT nosuch", b1), -1, &st, 0);
  printf("error16="); put16(sqlite3_errmsg16(db)); printf(" rc=%d\n", rc);
  rc = sqlite3_prepare16_v2(db, u16("SELECT 1; SELECT 2", b1), 18, &st, &tail);
  printf("nByte=18 tail="); put16(tail); printf("\n");
  sqlite3_finalize(st);
  sqlite3_close(db);

  /* open16 makes a UTF-16 database; the rest uses a UTF-8 one. */
  sqlite3_open(":memory:", &db);
  sqlite3_prepare_v2(db, "SELECT 123, 4.5, 'text', x'6869', NULL", -1, &st, 0);
  sqlite3_step(st);
  t1 = sqlite3_column_text(st, 2);
  t2 = sqlite3_column_text(st, 2);
  printf("same pointer twice=%d\n", t1 == t2);
  printf("int as text=%s bytes=%d type=%d\n", sqlite3_column_text(st, 0), sqlite3_column_bytes(st, 0), sqlite3_column_type(st, 0));
  printf("real as text=%s type=%d\n", sqlite3_column_text(st, 1), sqlite3_column_type(st, 1));
  printf("blob bytes=%d", sqlite3_column_bytes(st, 3));
  printf(" blob as text=%s", sqlite3_column_text(st, 3));
  printf(" type after=%d\n", sqlite3_column_type(st, 3));
  printf("null blob=%s text=%s bytes=%d\n", sqlite3_column_blob(st, 4) ? "ptr" : "NULL",
         sqlite3_column_text(st, 4) ? "ptr" : "NULL", sqlite3_column_bytes(st, 4));
  printf("text as int=%d as double=%g\n", sqlite3_column_int(st, 2), sqlite3_column_double(st, 2));
  {
    sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(st, 1));
    sqlite3_finalize(st);
    printf("dup survives finalize: type=%d double=%g text=%s\n", sqlite3_value_type(v), sqlite3_value_double(v), sqlite3_value_text(v));
    sqlite3_value_free(v);
  }
  sqlite3_close(db);
  return 0;
}
