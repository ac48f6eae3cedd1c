/* sqlite3_malloc family and the filename/URI helpers. */
#include <stdio.h>
#include <string.h>
#include "sqlite3.h"

int main(void) {
  char *p = sqlite3_malloc(10), *q;
  const char *params[] = {"cache", "shared", "immutable", "1", "nolock", "off", "size", "123", "neg", "-9"};
  sqlite3_filename f;
  int i;
  printf("malloc(10) %s msize>=10 %d\n", p ? "ok" : "null", sqlite3_msize(p) >= 10);
  memcpy(p, "123456789", 10);
  q = sqlite3_realloc(p, 100);
  printf("realloc keeps=%d msize>=100 %d\n", strcmp(q, "123456789") == 0, sqlite3_msize(q) >= 100);
  sqlite3_free(q);
  printf("malloc(0)=%s malloc(-1)=%s\n", sqlite3_malloc(0) ? "ptr" : "null", sqlite3_malloc(-1) ? "ptr" : "null");
  printf("malloc64(0)=%s\n", sqlite3_malloc64(0) ? "ptr" : "null");
  p = sqlite3_realloc(0, 5);
  printf("realloc(NULL,5)=%s\n", p ? "ptr" : "null");
  printf("realloc(p,0)=%s\n", sqlite3_realloc(p, 0) ? "ptr" : "null");
  sqlite3_free(0);
  printf("msize(NULL)=%llu\n", (unsigned long long)sqlite3_msize(0));

  f = sqlite3_create_filename("/tmp/x.db", "/tmp/x.db-journal", "/tmp/x.db-wal", 5, params);
  printf("db=%s journal=%s wal=%s\n", sqlite3_filename_database(f), sqlite3_filename_journal(f), sqlite3_filename_wal(f));
  printf("cache=%s missing=%s\n", sqlite3_uri_parameter(f, "cache"), sqlite3_uri_parameter(f, "missing") ? "yes" : "null");
  printf("immutable=%d nolock=%d missing=%d/%d cache=%d\n", sqlite3_uri_boolean(f, "immutable", 0), sqlite3_uri_boolean(f, "nolock", 1),
         sqlite3_uri_boolean(f, "missing", 0), sqlite3_uri_boolean(f, "missing", 1), sqlite3_uri_boolean(f, "cache", 7));
  printf("size=%lld neg=%lld missing=%lld cache=%lld\n", sqlite3_uri_int64(f, "size", 5), sqlite3_uri_int64(f, "neg", 5),
         sqlite3_uri_int64(f, "missing", 5), sqlite3_uri_int64(f, "cache", 5));
  for (i = 0; i < 7; i++) printf("key %d=%s\n", i, sqlite3_uri_key(f, i) ? sqlite3_uri_key(f, i) : "null");
  sqlite3_free_filename(f);
  sqlite3_free_filename(0);
  {
    sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_RECURSIVE);
    sqlite3_mutex_enter(m);
    printf("mutex alloc=%s try(recursive)=%d\n", m ? "ok" : "null", sqlite3_mutex_try(m));
    sqlite3_mutex_leave(m);
    sqlite3_mutex_leave(m);
    sqlite3_mutex_free(m);
    printf("static mutex=%s\n", sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN) == sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN) ? "same" : "different");
  }
  return 0;
}
