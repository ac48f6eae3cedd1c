/* FTS5 build driver for instruction counts (bench/RESULTS.md, "# FTS5"):
** the documents of bench/fts5_docs.py (title TAB body per line) inserted
** into CREATE VIRTUAL TABLE t USING fts5(title, body) by one prepared
** INSERT in one transaction, in :memory:; prints the %_data rows and bytes.
**   python3 bench/fts5_docs.py 20000 /tmp/docs20k.tsv
**   cc -o /tmp/drv bench/fts5_build_driver.c -lsqlite3
**   LD_LIBRARY_PATH=<libdir> valgrind --tool=callgrind /tmp/drv /tmp/docs20k.tsv */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  sqlite3 *db; sqlite3_open(":memory:", &db);
  FILE *f = fopen(argv[1], "r");
  char *line = NULL; size_t cap = 0; ssize_t n;
  sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(title, body)", 0, 0, 0);
  sqlite3_exec(db, "BEGIN", 0, 0, 0);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO t(rowid, title, body) VALUES(?, ?, ?)", -1, &st, 0);
  long id = 0;
  while ((n = getline(&line, &cap, f)) > 0) {
    if (line[n-1] == '\n') line[--n] = 0;
    char *tab = strchr(line, '\t'); *tab = 0;
    sqlite3_bind_int64(st, 1, ++id);
    sqlite3_bind_text(st, 2, line, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, tab+1, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) { fprintf(stderr, "err %s\n", sqlite3_errmsg(db)); return 1; }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (sqlite3_exec(db, "COMMIT", 0, 0, 0)) { fprintf(stderr, "commit %s\n", sqlite3_errmsg(db)); return 1;}
  sqlite3_stmt *q; sqlite3_prepare_v2(db, "SELECT count(*), sum(length(block)) FROM t_data", -1, &q, 0);
  sqlite3_step(q); printf("rows %d bytes %lld\n", sqlite3_column_int(q,0), sqlite3_column_int64(q,1));
  sqlite3_finalize(q); sqlite3_close(db); return 0;
}
