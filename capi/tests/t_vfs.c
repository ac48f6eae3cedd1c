/* The default VFS object: lookup and the services applications use. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sqlite3.h"

int main(void) {
  sqlite3_vfs *v = sqlite3_vfs_find(0);
  char buf[600], cwd[512];
  int res = -1;
  sqlite3_int64 now = 0;
  double jd = 0;
  if (!v) { printf("no default vfs\n"); return 0; }
  printf("name=%s version=%d mxPathname=%d same=%d other=%s\n", v->zName, v->iVersion, v->mxPathname,
         sqlite3_vfs_find("unix") == v, sqlite3_vfs_find("no-such-vfs") ? "found" : "NULL");
  printf("full abs rc=%d", v->xFullPathname(v, "/tmp/x.db", (int)sizeof buf, buf));
  printf(" [%s]\n", buf);
  if (!getcwd(cwd, sizeof cwd)) return 1;
  v->xFullPathname(v, "rel.db", (int)sizeof buf, buf);
  printf("full rel is cwd/rel.db: %d\n", strncmp(buf, cwd, strlen(cwd)) == 0 && strcmp(buf + strlen(cwd), "/rel.db") == 0);
  v->xAccess(v, "/", SQLITE_ACCESS_EXISTS, &res);
  printf("access / exists=%d", res);
  v->xAccess(v, "/no/such/file", SQLITE_ACCESS_EXISTS, &res);
  printf(" missing=%d\n", res);
  v->xCurrentTimeInt64(v, &now);
  v->xCurrentTime(v, &jd);
  printf("time int64 ok=%d double ok=%d\n", now / 1000 - 210866760000LL - (sqlite3_int64)time(0) < 5,
         jd > 2451545.0 && jd < 2488070.0);
  printf("randomness=%d\n", v->xRandomness(v, 16, buf));
  return 0;
}
