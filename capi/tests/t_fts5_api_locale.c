/* A locale-aware C tokenizer (fts5_tokenizer_v2) on locale=1 and
** tokendata=1 tables: the locale reaches xTokenize (appended to each
** token here, so the index shows it), an auxiliary function reads it
** back with xColumnLocale and the document token of each phrase hit with
** xInstToken; xTokenize_v2 from the auxiliary function passes a locale. */
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
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), i, k;
  printf("%s\n", sql);
  if (rc != SQLITE_OK) { printf("  prepare rc=%d %s\n", rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" ");
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      int n = sqlite3_column_bytes(st, i);
      printf(" ");
      if (!t) { printf("NULL"); continue; }
      for (k = 0; k < n; k++) { if (t[k] < 32) printf("\\x%02x", t[k]); else putchar(t[k]); }
    }
    printf("\n");
  }
  if (rc != SQLITE_DONE) printf("  step rc=%d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

static int tk_create(void *u, const char **az, int n, Fts5Tokenizer **out) {
  (void)u; (void)az; (void)n;
  *out = (Fts5Tokenizer *)malloc(1);
  return SQLITE_OK;
}
static void tk_delete(Fts5Tokenizer *p) { free(p); }
/* words separated by spaces; '/' becomes a zero byte (token data); a
** locale is appended as "@locale"; "2nd" has the synonyms "second" and
** "two" (FTS5_TOKEN_COLOCATED) */
static int tk_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *z, int n, const char *loc, int nloc,
                       int (*xToken)(void *, int, const char *, int, int, int)) {
  int i = 0, rc = SQLITE_OK;
  char buf[256];
  (void)p; (void)flags;
  while (i < n && rc == SQLITE_OK) {
    int s, len, q;
    while (i < n && z[i] == ' ') i++;
    s = i;
    while (i < n && z[i] != ' ') i++;
    if (i == s) break;
    len = i - s < 200 ? i - s : 200;
    memcpy(buf, z + s, len);
    for (q = 0; q < len; q++) if (buf[q] == '/') buf[q] = 0;
    if (nloc > 0 && nloc < 40) { buf[len++] = '@'; memcpy(buf + len, loc, nloc); len += nloc; }
    rc = xToken(ctx, 0, buf, len, s, i);
    if (rc == SQLITE_OK && i - s == 3 && memcmp(z + s, "2nd", 3) == 0) {
      rc = xToken(ctx, FTS5_TOKEN_COLOCATED, "second", 6, s, i);
      if (rc == SQLITE_OK) rc = xToken(ctx, FTS5_TOKEN_COLOCATED, "two", 3, s, i);
    }
  }
  return rc;
}

static int count_cb(void *ctx, int tflags, const char *tok, int n, int s, int e) {
  (void)tflags; (void)tok; (void)n; (void)s; (void)e;
  ++*(int *)ctx;
  return SQLITE_OK;
}

/* loc(t): per column "locale|", then per hit "[doc token]", then the
** token count of column 0 through xTokenize_v2 with locale "xx" */
static void loc_fn(const Fts5ExtensionApi *api, Fts5Context *f, sqlite3_context *ctx, int nv, sqlite3_value **av) {
  char out[1024];
  int o = 0, c, i, n = 0, cnt = 0;
  (void)nv; (void)av;
  out[0] = 0;
  for (c = 0; c < api->xColumnCount(f); c++) {
    const char *z = 0; int nz = 0;
    int rc = api->xColumnLocale(f, c, &z, &nz);
    o += snprintf(out + o, sizeof out - o, "%d:%.*s|", rc, z ? nz : 4, z ? z : "none");
  }
  {
    const char *z = 0; int nz = -1;
    int rc = api->xColumnLocale(f, 99, &z, &nz);
    o += snprintf(out + o, sizeof out - o, "range=%d|", rc);
  }
  api->xInstCount(f, &n);
  for (i = 0; i < n; i++) {
    const char *z = 0; int nz = 0, k;
    int rc = api->xInstToken(f, i, 0, &z, &nz);
    o += snprintf(out + o, sizeof out - o, "[%d:", rc);
    for (k = 0; z && k < nz && o < 900; k++) o += snprintf(out + o, sizeof out - o, z[k] ? "%c" : "\\0", z[k]);
    o += snprintf(out + o, sizeof out - o, "]");
  }
  {
    const char *z = 0; int nz = 0;
    if (api->xColumnText(f, 0, &z, &nz) == SQLITE_OK && z) {
      api->xTokenize_v2(f, z, nz, "xx", 2, &cnt, count_cb);
      o += snprintf(out + o, sizeof out - o, "|text=%.*s|tokens=%d", nz, z, cnt);
    }
  }
  sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

int main(void) {
  sqlite3 *db;
  fts5_api *api;
  fts5_tokenizer_v2 tk = {2, tk_create, tk_delete, tk_tokenize};
  sqlite3_open(":memory:", &db);
  api = get_api(db);
  if (!api) return 1;
  printf("create rc=%d\n", api->xCreateTokenizer_v2(api, "loc", 0, &tk, 0));
  printf("function rc=%d\n", api->xCreateFunction(api, "loc", 0, loc_fn, 0));
  show(db, "CREATE VIRTUAL TABLE t USING fts5(x, y, tokenize='loc', locale=1)");
  show(db, "INSERT INTO t VALUES(fts5_locale('en', 'hello world'), 'plain text')");
  show(db, "INSERT INTO t VALUES('abc hello', fts5_locale('fr', 'bonjour hello'))");
  show(db, "SELECT rowid, hex(block) FROM t_data WHERE id > 10");
  show(db, "SELECT rowid, x, y, loc(t) FROM t");
  show(db, "SELECT rowid, loc(t) FROM t WHERE t MATCH fts5_locale('en', 'hello')");
  show(db, "SELECT rowid, loc(t) FROM t WHERE t MATCH 'hello'");
  show(db, "CREATE VIRTUAL TABLE d USING fts5(x, tokenize='loc', tokendata=1)");
  show(db, "INSERT INTO d VALUES('ab/X cd ab/Y ab'), ('ab/Z')");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH 'ab'");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH 'cd'");
  show(db, "CREATE VIRTUAL TABLE n USING fts5(x, tokenize='loc')");
  show(db, "INSERT INTO n VALUES('ab/X cd ab/Y ab'), ('ab/Z')");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'ab'");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'a*'");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH 'a*'");
  show(db, "INSERT INTO n(n, rank) VALUES('insttoken', 1)");
  show(db, "INSERT INTO d(d, rank) VALUES('insttoken', 1)");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'a*'");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH 'a*'");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'ab'");
  show(db, "INSERT INTO n VALUES('a 2nd'), ('two second 2nd')");
  show(db, "INSERT INTO d VALUES('a 2nd'), ('two second 2nd')");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH '2nd'");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'second'");
  show(db, "SELECT rowid, loc(n) FROM n WHERE n MATCH 'tw*'");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH '2nd'");
  show(db, "SELECT rowid, loc(d) FROM d WHERE d MATCH 'se*'");
  sqlite3_close(db);
  return 0;
}
