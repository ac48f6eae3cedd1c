/* A C tokenizer reporting synonyms at the position of the token they
** stand for (FTS5_TOKEN_COLOCATED, fts5.txt 7.1.1): "1st" also indexed as
** "first", in documents and queries. */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fts5_api *get_api(sqlite3 *db) {
  fts5_api *p = 0;
  sqlite3_stmt *st = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0) != SQLITE_OK) return 0;
  sqlite3_bind_pointer(st, 1, (void *)&p, "fts5_api_ptr", 0);
  sqlite3_step(st);
  sqlite3_finalize(st);
  return p;
}

static void show(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare rc=%d %s\n", rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" ");
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf(" %s", t ? (const char *)t : "NULL");
    }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step rc=%d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

static int syn_create(void *u, const char **az, int n, Fts5Tokenizer **out) {
  (void)u; (void)az; (void)n;
  *out = (Fts5Tokenizer *)malloc(1);
  return SQLITE_OK;
}
static void syn_delete(Fts5Tokenizer *p) { free(p); }
/* words separated by spaces; "1st" gets the synonym "first" */
static int syn_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *z, int n,
                        int (*xToken)(void *, int, const char *, int, int, int)) {
  int i = 0, rc = SQLITE_OK;
  (void)p; (void)flags;
  while (i < n && rc == SQLITE_OK) {
    int s;
    while (i < n && z[i] == ' ') i++;
    s = i;
    while (i < n && z[i] != ' ') i++;
    if (i == s) break;
    rc = xToken(ctx, 0, z + s, i - s, s, i);
    if (rc == SQLITE_OK && i - s == 3 && memcmp(z + s, "1st", 3) == 0) rc = xToken(ctx, FTS5_TOKEN_COLOCATED, "first", 5, s, i);
  }
  return rc;
}

int main(void) {
  sqlite3 *db;
  fts5_api *api;
  fts5_tokenizer syn = {syn_create, syn_delete, syn_tokenize};
  sqlite3_open(":memory:", &db);
  api = get_api(db);
  if (!api) return 1;
  printf("create rc=%d\n", api->xCreateTokenizer(api, "syn", 0, &syn, 0));
  show(db, "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='syn')");
  show(db, "INSERT INTO t VALUES('the 1st place'), ('the first place'), ('second place')");
  show(db, "SELECT rowid FROM t WHERE t MATCH 'first'");
  show(db, "SELECT rowid FROM t WHERE t MATCH '1st'");
  show(db, "SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '\"first place\"'");
  show(db, "SELECT rowid FROM t WHERE t MATCH '\"the 1st place\"'");
  sqlite3_close(db);
  return 0;
}
