/* FTS3/4 tokenizers registered from C with fts3_tokenizer() (fts3.txt
** 8.1), as SQLite compiled with SQLITE_ENABLE_FTS3_TOKENIZER (Debian's
** build) has them: the switch SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER on by
** default; the one- and two-argument forms and their errors; an
** application's module (its own copy of fts3_tokenizer.h's structures)
** used by fts3 and fts4 tables (with a language id), offsets(),
** snippet(), matchinfo() and fts3tokenize; the built-in modules' pointers
** registered under another name and their methods called from C; failing
** xCreate and xNext; the switch turned off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

typedef struct sqlite3_tokenizer_module sqlite3_tokenizer_module;
typedef struct sqlite3_tokenizer { const sqlite3_tokenizer_module *pModule; } sqlite3_tokenizer;
typedef struct sqlite3_tokenizer_cursor { sqlite3_tokenizer *pTokenizer; } sqlite3_tokenizer_cursor;
struct sqlite3_tokenizer_module {
  int iVersion;
  int (*xCreate)(int argc, const char *const *argv, sqlite3_tokenizer **ppTokenizer);
  int (*xDestroy)(sqlite3_tokenizer *pTokenizer);
  int (*xOpen)(sqlite3_tokenizer *pTokenizer, const char *pInput, int nBytes, sqlite3_tokenizer_cursor **ppCursor);
  int (*xClose)(sqlite3_tokenizer_cursor *pCursor);
  int (*xNext)(sqlite3_tokenizer_cursor *pCursor, const char **ppToken, int *pnBytes, int *piStartOffset, int *piEndOffset,
               int *piPosition);
  int (*xLanguageid)(sqlite3_tokenizer_cursor *pCsr, int iLangid);
};

static sqlite3 *db;
static int n_create, n_destroy, n_open, n_close, last_lang = -1;

/* The "rev" tokenizer: words separated by spaces, each lower-cased and
** reversed; in a language other than 0 each term is prefixed with the
** language's digit. The word "boom" makes xNext fail. */
typedef struct { sqlite3_tokenizer base; char tag[16]; } RevTok;
typedef struct {
  sqlite3_tokenizer_cursor base;
  const char *in; int n, at, pos, lang;
  char buf[64];
} RevCsr;

static int rev_create(int argc, const char *const *argv, sqlite3_tokenizer **pp) {
  int i;
  RevTok *t;
  printf("  xCreate argc=%d", argc);
  for (i = 0; i < argc; i++) printf(" [%s]", argv[i]);
  printf("\n");
  if (argc > 0 && strcmp(argv[0], "fail") == 0) return SQLITE_ERROR;
  t = calloc(1, sizeof(*t));
  snprintf(t->tag, sizeof t->tag, "%s", argc > 0 ? argv[0] : "");
  n_create++;
  *pp = &t->base;
  return SQLITE_OK;
}
static int rev_destroy(sqlite3_tokenizer *p) { n_destroy++; free(p); return SQLITE_OK; }
static int rev_open(sqlite3_tokenizer *p, const char *in, int n, sqlite3_tokenizer_cursor **pp) {
  RevCsr *c = calloc(1, sizeof(*c));
  (void)p;
  c->in = in ? in : ""; c->n = n < 0 ? (int)strlen(c->in) : n;
  n_open++;
  *pp = &c->base;
  return SQLITE_OK;
}
static int rev_close(sqlite3_tokenizer_cursor *p) { n_close++; free(p); return SQLITE_OK; }
static int rev_lang(sqlite3_tokenizer_cursor *p, int lang) { ((RevCsr *)p)->lang = lang; last_lang = lang; return SQLITE_OK; }
static int rev_next(sqlite3_tokenizer_cursor *p, const char **tok, int *ntok, int *s, int *e, int *pos) {
  RevCsr *c = (RevCsr *)p;
  int a, b, k, o = 0;
  if (c->base.pTokenizer == 0) return SQLITE_MISUSE;
  while (c->at < c->n && c->in[c->at] == ' ') c->at++;
  if (c->at >= c->n) return SQLITE_DONE;
  a = c->at;
  while (c->at < c->n && c->in[c->at] != ' ') c->at++;
  b = c->at;
  if (b - a == 4 && memcmp(c->in + a, "boom", 4) == 0) return SQLITE_NOMEM;
  if (c->lang) c->buf[o++] = (char)('0' + c->lang % 10);
  for (k = b - 1; k >= a && o < (int)sizeof c->buf - 1; k--) {
    char ch = c->in[k];
    c->buf[o++] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
  }
  *tok = c->buf; *ntok = o; *s = a; *e = b; *pos = c->pos++;
  return SQLITE_OK;
}
static const sqlite3_tokenizer_module rev_module = {1, rev_create, rev_destroy, rev_open, rev_close, rev_next, rev_lang};

static void run(const char *sql) {
  sqlite3_stmt *st; const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int i, n = sqlite3_column_count(st); printf("  ");
      for (i = 0; i < n; i++) {
        if (sqlite3_column_type(st, i) == SQLITE_BLOB) printf("%s<blob %d>", i ? "|" : "", sqlite3_column_bytes(st, i));
        else { const unsigned char *t = sqlite3_column_text(st, i); printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL"); }
      }
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}
static void q(const char *sql) { printf("%s\n", sql); run(sql); }

/* fts3.txt's registerTokenizer(): both arguments bound. */
static int register_tokenizer(const char *name, const sqlite3_tokenizer_module *p) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "SELECT fts3_tokenizer(?1, ?2)", -1, &st, 0);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_blob(st, 2, &p, sizeof(p), SQLITE_STATIC);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const void *b = sqlite3_column_blob(st, 0);
    printf("  registered %s: returns %s\n", name,
           sqlite3_column_bytes(st, 0) == sizeof(p) && memcmp(b, &p, sizeof(p)) == 0 ? "the pointer" : "something else");
  } else printf("  register %s: %d %s\n", name, rc, sqlite3_errmsg(db));
  return sqlite3_finalize(st);
}

/* fts3.txt's queryTokenizer(). */
static const sqlite3_tokenizer_module *query_tokenizer(const char *name) {
  sqlite3_stmt *st;
  const sqlite3_tokenizer_module *p = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts3_tokenizer(?)", -1, &st, 0) != SQLITE_OK) return 0;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) memcpy(&p, sqlite3_column_blob(st, 0), sizeof(p));
  else printf("  query %s: %s\n", name, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return p;
}

int main(void) {
  int on = -1;
  const sqlite3_tokenizer_module *porter;
  sqlite3_open(":memory:", &db);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, -1, &on);
  printf("ENABLE_FTS3_TOKENIZER: %d, compile option: %d\n", on, sqlite3_compileoption_used("ENABLE_FTS3_TOKENIZER"));

  q("SELECT typeof(fts3_tokenizer('simple')), length(fts3_tokenizer('porter')), fts3_tokenizer('simple') = fts3_tokenizer('simple')");
  q("SELECT fts3_tokenizer('simple') = fts3_tokenizer('porter'), fts3_tokenizer('unicode61') IS NULL");
  q("SELECT fts3_tokenizer('nope')");
  q("SELECT fts3_tokenizer('Simple')");
  q("SELECT fts3_tokenizer(NULL)");
  q("SELECT fts3_tokenizer()");
  q("SELECT fts3_tokenizer('a', 'b', 'c')");
  q("SELECT fts3_tokenizer('x', 'abc')");
  q("SELECT fts3_tokenizer('x', 12)");
  q("SELECT fts3_tokenizer(NULL, fts3_tokenizer('simple'))");

  printf("register rev\n");
  register_tokenizer("rev", &rev_module);
  printf("  query rev: %s\n", query_tokenizer("rev") == &rev_module ? "the module" : "other");
  q("SELECT fts3_tokenizer('mysimple', fts3_tokenizer('simple')) = fts3_tokenizer('simple')");
  q("SELECT fts3_tokenizer('mysimple', zeroblob(8)) = zeroblob(8)");
  q("SELECT fts3_tokenizer('mysimple')");
  q("SELECT length(fts3_tokenizer('mysimple', fts3_tokenizer('simple')))");

  q("CREATE VIRTUAL TABLE t1 USING fts3(a, b, tokenize=rev \"Tag One\" two)");
  q("INSERT INTO t1 VALUES('Hello World', 'first document'), ('again hello', NULL), ('nothing here', 'world peace')");
  q("SELECT rowid FROM t1 WHERE t1 MATCH 'HELLO' ORDER BY rowid");
  q("SELECT rowid, offsets(t1) FROM t1 WHERE t1 MATCH 'world' ORDER BY rowid");
  q("SELECT rowid, snippet(t1, '[', ']', '...') FROM t1 WHERE t1 MATCH 'peace OR first' ORDER BY rowid");
  q("SELECT rowid, hex(matchinfo(t1)) FROM t1 WHERE t1 MATCH '\"again hello\"' ORDER BY rowid");
  q("SELECT rowid FROM t1 WHERE t1 MATCH 'olleh'");
  q("SELECT rowid FROM t1 WHERE t1 MATCH 'b:world'");
  q("INSERT INTO t1 VALUES('kaboom', 'a boom b')");
  q("SELECT count(*) FROM t1");
  q("INSERT INTO t1(t1) VALUES('integrity-check')");

  q("CREATE VIRTUAL TABLE t2 USING fts4(x, tokenize=rev, languageid=lid)");
  q("INSERT INTO t2(x, lid) VALUES('Alpha Beta', 0), ('alpha gamma', 3)");
  printf("  last language: %d\n", last_lang);
  q("SELECT rowid FROM t2 WHERE t2 MATCH 'alpha' AND lid = 0");
  q("SELECT rowid FROM t2 WHERE t2 MATCH 'alpha' AND lid = 3");
  q("CREATE VIRTUAL TABLE t2_terms USING fts4aux(t2)");
  q("SELECT term, documents, languageid FROM t2_terms WHERE col = '*' ORDER BY languageid, term");

  q("CREATE VIRTUAL TABLE tok USING fts3tokenize(rev, 'x y')");
  q("SELECT token, start, end, position FROM tok WHERE input = 'The Quick  fox'");
  q("SELECT token FROM tok WHERE input = 'one boom'");
  q("CREATE VIRTUAL TABLE tok2 USING fts3tokenize(nope)");
  q("CREATE VIRTUAL TABLE t3 USING fts3(a, tokenize=nope)");
  q("CREATE VIRTUAL TABLE t3 USING fts3(a, tokenize=rev fail)");
  q("CREATE VIRTUAL TABLE tok3 USING fts3tokenize(rev, fail)");

  q("CREATE VIRTUAL TABLE t4 USING fts4(x, tokenize=mysimple)");
  q("INSERT INTO t4 VALUES('Running JUMPS fast')");
  q("SELECT rowid, offsets(t4) FROM t4 WHERE t4 MATCH 'jumps'");

  printf("the porter module from C\n");
  porter = query_tokenizer("porter");
  if (porter) {
    sqlite3_tokenizer *t = 0;
    sqlite3_tokenizer_cursor *c = 0;
    const char *tok; int n, s, e, pos, rc;
    printf("  iVersion %d, xCreate %d\n", porter->iVersion, porter->xCreate(0, 0, &t));
    t->pModule = porter;
    printf("  xOpen %d\n", porter->xOpen(t, "Running jumps, easily!", -1, &c));
    c->pTokenizer = t;
    while ((rc = porter->xNext(c, &tok, &n, &s, &e, &pos)) == SQLITE_OK) printf("  %.*s %d %d %d\n", n, tok, s, e, pos);
    printf("  xNext end %d, xClose %d, xDestroy %d\n", rc, porter->xClose(c), porter->xDestroy(t));
  }

  q("DROP TABLE t1");
  printf("creates %d, destroys %d, opens == closes %d\n", n_create, n_destroy, n_open == n_close);

  printf("switch off\n");
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, &on);
  printf("  now %d\n", on);
  q("SELECT typeof(fts3_tokenizer('simple'))");
  q("SELECT fts3_tokenizer('nope')");
  q("SELECT fts3_tokenizer('other', fts3_tokenizer('simple'))");
  q("SELECT fts3_tokenizer('other', x'0000000000000000')");
  q("CREATE VIRTUAL TABLE t5 USING fts3(a, tokenize=rev)");
  q("INSERT INTO t5 VALUES('still works')");
  q("SELECT rowid FROM t5 WHERE t5 MATCH 'skrow'");
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 1, &on);
  printf("  back on %d\n", on);
  q("SELECT typeof(fts3_tokenizer('simple'))");

  sqlite3_close(db);
  printf("after close: creates %d, destroys %d\n", n_create, n_destroy);
  return 0;
}
