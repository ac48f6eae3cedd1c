/* FTS5 tokenizers registered from C through fts5_api (fts5.txt,
** "Extending FTS5"): the fts5_api pointer from SELECT fts5(?1), a v1
** tokenizer splitting on commas, its arguments and constructor errors,
** porter over it, a v2 tokenizer wrapping unicode61 and porter found with
** xFindTokenizer(_v2), and the xToken error path. */
#include "sqlite3.h"
#include <ctype.h>
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

/* ---- "comma": tokens are the comma-separated pieces, trimmed, lower-cased */
typedef struct { int min_len; } CommaTok;
static int comma_destroyed = 0;
static void comma_user_destroy(void *p) { (void)p; comma_destroyed++; }

static int comma_create(void *user, const char **az, int n, Fts5Tokenizer **out) {
  CommaTok *t;
  (void)user;
  if (n > 0 && strcmp(az[0], "fail") == 0) return SQLITE_ERROR;
  t = malloc(sizeof *t);
  t->min_len = n > 0 ? atoi(az[0]) : 1;
  *out = (Fts5Tokenizer *)t;
  return SQLITE_OK;
}
static void comma_delete(Fts5Tokenizer *p) { free(p); }
static int comma_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *z, int n,
                          int (*xToken)(void *, int, const char *, int, int, int)) {
  CommaTok *t = (CommaTok *)p;
  int i = 0;
  (void)flags;
  while (i < n) {
    int s, e, rc;
    char buf[64];
    while (i < n && (z[i] == ',' || z[i] == ' ')) i++;
    s = i;
    while (i < n && z[i] != ',') i++;
    e = i;
    while (e > s && z[e - 1] == ' ') e--;
    if (e - s >= t->min_len && e - s < (int)sizeof buf) {
      int k;
      for (k = 0; k < e - s; k++) buf[k] = (char)tolower((unsigned char)z[s + k]);
      rc = xToken(ctx, 0, buf, e - s, s, e);
      if (rc != SQLITE_OK) return rc;
    }
  }
  return SQLITE_OK;
}

/* ---- "short": a v2 tokenizer wrapping another (found by name): keeps
** only the inner tokens of at most N bytes */
typedef struct {
  fts5_tokenizer_v2 *inner;
  Fts5Tokenizer *inst;
  int max_len;
} ShortTok;
typedef struct { void *ctx; int (*xToken)(void *, int, const char *, int, int, int); int max_len; } ShortCtx;
static fts5_api *g_api;

static int short_create(void *user, const char **az, int n, Fts5Tokenizer **out) {
  ShortTok *t = calloc(1, sizeof *t);
  void *inner_user = 0;
  int rc;
  (void)user;
  t->max_len = n > 0 ? atoi(az[0]) : 4;
  rc = g_api->xFindTokenizer_v2(g_api, n > 1 ? az[1] : "unicode61", &inner_user, &t->inner);
  if (rc == SQLITE_OK) rc = t->inner->xCreate(inner_user, n > 2 ? az + 2 : 0, n > 2 ? n - 2 : 0, &t->inst);
  if (rc != SQLITE_OK) { free(t); return rc; }
  *out = (Fts5Tokenizer *)t;
  return SQLITE_OK;
}
static void short_delete(Fts5Tokenizer *p) {
  ShortTok *t = (ShortTok *)p;
  t->inner->xDelete(t->inst);
  free(t);
}
static int short_cb(void *c, int tflags, const char *tok, int n, int s, int e) {
  ShortCtx *sc = c;
  if (n > sc->max_len) return SQLITE_OK;
  return sc->xToken(sc->ctx, tflags, tok, n, s, e);
}
static int short_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *z, int n, const char *loc, int nloc,
                          int (*xToken)(void *, int, const char *, int, int, int)) {
  ShortTok *t = (ShortTok *)p;
  ShortCtx sc;
  sc.ctx = ctx; sc.xToken = xToken; sc.max_len = t->max_len;
  return t->inner->xTokenize(t->inst, &sc, flags, z, n, loc, nloc, short_cb);
}

/* xToken callback that collects the tokens as text */
static int collect(void *c, int tflags, const char *tok, int n, int s, int e) {
  char *buf = c;
  size_t l = strlen(buf);
  snprintf(buf + l, 400 - l, "[%.*s %d %d%s]", n, tok, s, e, tflags ? " c" : "");
  return strlen(buf) > 60 ? SQLITE_DONE : SQLITE_OK;
}

int main(void) {
  sqlite3 *db;
  fts5_api *api;
  fts5_tokenizer comma = {comma_create, comma_delete, comma_tokenize};
  fts5_tokenizer_v2 shortt = {2, short_create, short_delete, short_tokenize};
  fts5_tokenizer found;
  fts5_tokenizer_v2 *found2 = 0;
  void *user = 0;
  Fts5Tokenizer *inst = 0;
  char buf[400];
  int rc;

  sqlite3_open(":memory:", &db);
  api = get_api(db);
  printf("api %s version %d\n", api ? "found" : "missing", api ? api->iVersion : -1);
  if (!api) return 1;
  g_api = api;
  show(db, "SELECT fts5(1), typeof(fts5(NULL))");
  show(db, "SELECT fts5()");
  rc = api->xCreateTokenizer(api, "comma", (void *)&comma, &comma, comma_user_destroy);
  printf("create comma rc=%d\n", rc);
  rc = api->xCreateTokenizer_v2(api, "short", 0, &shortt, 0);
  printf("create short rc=%d\n", rc);

  sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='comma')", 0, 0, 0);
  sqlite3_exec(db, "INSERT INTO t VALUES('Red Apple, green pear, Blue', 'x, y z'),"
                   "('blue, red apple', 'y z, x'), ('Green Pear', 'apples, pears')", 0, 0, 0);
  show(db, "SELECT rowid FROM t WHERE t MATCH '\"red apple\"'");
  show(db, "SELECT rowid FROM t WHERE t MATCH 'blue'");
  show(db, "SELECT rowid, highlight(t, 0, '<', '>') FROM t WHERE t MATCH '\"green pear\"'");
  show(db, "SELECT rowid FROM t WHERE t MATCH '\"y z\"'");
  show(db, "SELECT rowid FROM t WHERE t MATCH 'app*'");
  show(db, "SELECT rowid, bm25(t) FROM t WHERE t MATCH 'x' ORDER BY rowid");
  show(db, "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
  show(db, "SELECT * FROM v");

  show(db, "CREATE VIRTUAL TABLE t2 USING fts5(a, tokenize='comma 4')");
  sqlite3_exec(db, "INSERT INTO t2 VALUES('ab, abcd, abcdef, xyz')", 0, 0, 0);
  show(db, "SELECT * FROM t2 WHERE t2 MATCH 'abcd'");
  show(db, "SELECT * FROM t2 WHERE t2 MATCH 'ab'");
  show(db, "CREATE VIRTUAL TABLE t3 USING fts5(a, tokenize='comma fail')");
  show(db, "CREATE VIRTUAL TABLE t4 USING fts5(a, tokenize='nosuch')");

  /* porter over a C tokenizer */
  show(db, "CREATE VIRTUAL TABLE t5 USING fts5(a, tokenize='porter comma')");
  sqlite3_exec(db, "INSERT INTO t5 VALUES('running, jumps, the cats')", 0, 0, 0);
  show(db, "SELECT rowid FROM t5 WHERE t5 MATCH 'run'");
  show(db, "SELECT rowid FROM t5 WHERE t5 MATCH 'jump'");
  show(db, "SELECT rowid FROM t5 WHERE t5 MATCH '\"the cat\"'");

  /* a v2 C tokenizer wrapping unicode61 and porter */
  show(db, "CREATE VIRTUAL TABLE t6 USING fts5(a, tokenize='short 4')");
  sqlite3_exec(db, "INSERT INTO t6 VALUES('The quick brown fox jumps over the lazy dog')", 0, 0, 0);
  show(db, "SELECT rowid, highlight(t6, 0, '[', ']') FROM t6 WHERE t6 MATCH 'fox'");
  show(db, "SELECT rowid FROM t6 WHERE t6 MATCH 'quick'");
  show(db, "CREATE VIRTUAL TABLE t7 USING fts5(a, tokenize='short 5 porter')");
  sqlite3_exec(db, "INSERT INTO t7 VALUES('jumping foxes and running dogs')", 0, 0, 0);
  show(db, "SELECT rowid, highlight(t7, 0, '[', ']') FROM t7 WHERE t7 MATCH 'jump'");
  show(db, "SELECT rowid FROM t7 WHERE t7 MATCH 'run'");
  show(db, "CREATE VIRTUAL TABLE t8 USING fts5(a, tokenize='short 5 nosuch')");

  /* finding tokenizers from C and running them directly */
  rc = api->xFindTokenizer(api, "unicode61", &user, &found);
  printf("find unicode61 rc=%d\n", rc);
  if (rc == SQLITE_OK) {
    const char *args[] = {"remove_diacritics", "0"};
    rc = found.xCreate(user, args, 2, &inst);
    buf[0] = 0;
    if (rc == SQLITE_OK) rc = found.xTokenize(inst, buf, FTS5_TOKENIZE_DOCUMENT, "Héllo, Wörld 42", 17, collect);
    printf("  rc=%d %s\n", rc, buf);
    buf[0] = 0;
    rc = found.xTokenize(inst, buf, FTS5_TOKENIZE_QUERY, "one two three four five six seven eight nine ten", 48, collect);
    printf("  stopped rc=%d %s\n", rc, buf);
    found.xDelete(inst);
  }
  rc = api->xFindTokenizer(api, "comma", &user, &found);
  printf("find comma rc=%d\n", rc);
  if (rc == SQLITE_OK) {
    rc = found.xCreate(user, 0, 0, &inst);
    buf[0] = 0;
    if (rc == SQLITE_OK) rc = found.xTokenize(inst, buf, FTS5_TOKENIZE_DOCUMENT, "A b, C d", 8, collect);
    printf("  rc=%d %s\n", rc, buf);
    found.xDelete(inst);
  }
  rc = api->xFindTokenizer_v2(api, "trigram", &user, &found2);
  printf("find_v2 trigram rc=%d version=%d\n", rc, found2 ? found2->iVersion : -1);
  if (rc == SQLITE_OK) {
    rc = found2->xCreate(user, 0, 0, &inst);
    buf[0] = 0;
    if (rc == SQLITE_OK) rc = found2->xTokenize(inst, buf, FTS5_TOKENIZE_DOCUMENT, "Abcde", 5, 0, 0, collect);
    printf("  rc=%d %s\n", rc, buf);
    found2->xDelete(inst);
  }
  rc = api->xFindTokenizer_v2(api, "comma", &user, &found2);
  printf("find_v2 comma rc=%d version=%d\n", rc, found2 ? found2->iVersion : -1);
  rc = api->xFindTokenizer_v2(api, "short", &user, &found2);
  printf("find_v2 short rc=%d version=%d user=%s\n", rc, found2 ? found2->iVersion : -1, user ? "set" : "null");
  rc = api->xFindTokenizer(api, "short", &user, &found);
  printf("find short rc=%d\n", rc);
  if (rc == SQLITE_OK) {
    rc = found.xCreate(user, 0, 0, &inst);
    buf[0] = 0;
    if (rc == SQLITE_OK) rc = found.xTokenize(inst, buf, FTS5_TOKENIZE_DOCUMENT, "aaaaaa bb ccc", 13, collect);
    printf("  rc=%d %s\n", rc, buf);
    found.xDelete(inst);
  }
  rc = api->xFindTokenizer_v2(api, 0, &user, &found2);
  printf("find_v2 default rc=%d\n", rc);
  user = (void *)1;
  rc = api->xFindTokenizer(api, "nosuch", &user, &found);
  printf("find nosuch rc=%d user=%s\n", rc, user ? "set" : "null");
  rc = api->xFindTokenizer_v2(api, "nosuch", &user, &found2);
  printf("find_v2 nosuch rc=%d\n", rc);

  /* replacing a tokenizer destroys the old user data */
  rc = api->xCreateTokenizer(api, "comma", 0, &comma, 0);
  printf("replace comma rc=%d destroyed=%d\n", rc, comma_destroyed);
  sqlite3_close(db);
  printf("closed destroyed=%d\n", comma_destroyed);
  return 0;
}
