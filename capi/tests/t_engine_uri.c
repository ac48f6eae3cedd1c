/* URI filenames given to open, and the filename functions applied to what
** sqlite3_db_filename returns. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

#define S(x) ((x) ? (x) : "NULL")

int main(void) {
  sqlite3 *db;
  sqlite3_filename f;
  char cwd[512], uri[1024], *base;
  int rc;
  if (!getcwd(cwd, sizeof cwd)) return 1;
  snprintf(uri, sizeof uri, "file:%s/ringlite-uri-test.db?cache=private&answer=42&flag=yes&mode=rwc", cwd);
  unlink("ringlite-uri-test.db");
  rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
  printf("open=%d\n", rc);
  f = sqlite3_db_filename(db, "main");
  base = f ? strrchr(f, '/') : 0;
  printf("db_filename ends with=%s\n", S(base));
  printf("answer=%s int=%lld flag=%d missing=%d\n", S(sqlite3_uri_parameter(f, "answer")), sqlite3_uri_int64(f, "answer", 0),
         sqlite3_uri_boolean(f, "flag", 0), sqlite3_uri_boolean(f, "missing", 1));
  printf("key0=%s key1=%s\n", S(sqlite3_uri_key(f, 0)), S(sqlite3_uri_key(f, 1)));
  base = strrchr(sqlite3_filename_journal(f), '/');
  printf("journal=%s", S(base));
  base = strrchr(sqlite3_filename_wal(f), '/');
  printf(" wal=%s\n", S(base));
  printf("temp filename=[%s] nosuch=%s\n", S(sqlite3_db_filename(db, "temp")), S(sqlite3_db_filename(db, "nosuch")));
  printf("readonly main=%d nosuch=%d\n", sqlite3_db_readonly(db, "main"), sqlite3_db_readonly(db, "nosuch"));
  sqlite3_close(db);
  unlink("ringlite-uri-test.db");
  return 0;
}
