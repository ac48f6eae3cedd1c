/* An FTS5 auxiliary function registered from C (fts5_api.xCreateFunction)
** printing what each Fts5ExtensionApi member returns, for several queries
** and table kinds; auxdata kept across rows; the function's arguments and
** errors; the function used outside an fts5 table. */
#include "sqlite3.h"
#include <stdio.h>
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
    for (i = 0; i < sqlite3_column_count(st); i++) {
      const unsigned char *t = sqlite3_column_text(st, i);
      printf("  %s\n", t ? (const char *)t : "NULL");
    }
  }
  if (rc != SQLITE_DONE) printf("  step rc=%d %s\n", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

static int tok_cb(void *c, int tflags, const char *tok, int n, int s, int e) {
  sqlite3_str *out = c;
  sqlite3_str_appendf(out, " %.*s@%d-%d%s", n, tok, s, e, tflags ? "+" : "");
  return SQLITE_OK;
}

static int user_tag = 7;
static int aux_freed = 0;
static void aux_free(void *p) { aux_freed++; sqlite3_free(p); }

static void dump(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  sqlite3_str *out = sqlite3_str_new(0);
  sqlite3_int64 n64 = -1;
  int n = -1, i, rc, nInst = 0, nPhrase, nCol;
  int *counter;
  const char *z;
  Fts5PhraseIter it;
  int c, o;

  sqlite3_str_appendf(out, "v=%d user=%d args=%d", api->iVersion, *(int *)api->xUserData(fts), nVal);
  for (i = 0; i < nVal; i++) sqlite3_str_appendf(out, " [%s]", sqlite3_value_text(apVal[i]));
  nCol = api->xColumnCount(fts);
  sqlite3_str_appendf(out, "\n    rowid=%lld cols=%d", api->xRowid(fts), nCol);
  rc = api->xRowCount(fts, &n64);
  sqlite3_str_appendf(out, " rowcount=%lld/%d", n64, rc);
  for (i = -1; i <= nCol; i++) {
    n64 = -1;
    rc = api->xColumnTotalSize(fts, i, &n64);
    sqlite3_str_appendf(out, " total(%d)=%lld/%d", i, n64, rc);
  }
  sqlite3_str_appendf(out, "\n   ");
  for (i = -1; i <= nCol; i++) {
    n = -1;
    rc = api->xColumnSize(fts, i, &n);
    sqlite3_str_appendf(out, " size(%d)=%d/%d", i, n, rc);
  }
  for (i = 0; i <= nCol; i++) {
    z = 0; n = -1;
    rc = api->xColumnText(fts, i, &z, &n);
    sqlite3_str_appendf(out, " text(%d)=%s:%d/%d", i, rc == SQLITE_OK && z ? "" : "-", n, rc);
    if (rc == SQLITE_OK && z) sqlite3_str_appendf(out, "'%.*s'", n, z);
  }
  nPhrase = api->xPhraseCount(fts);
  sqlite3_str_appendf(out, "\n    phrases=%d", nPhrase);
  /* (xPhraseSize and xQueryToken are not asked out of range: SQLite does
  ** not check the phrase index of either) */
  for (i = 0; i < nPhrase; i++) {
    int k, sz = api->xPhraseSize(fts, i);
    sqlite3_str_appendf(out, " p%d:size=%d", i, sz);
    for (k = 0; k < sz; k++) {
      const char *t = 0; int nt = -1;
      rc = api->xQueryToken(fts, i, k, &t, &nt);
      sqlite3_str_appendf(out, " q%d=%d", k, rc);
      if (rc == SQLITE_OK) sqlite3_str_appendf(out, "'%.*s'", nt, t);
    }
  }
  rc = api->xInstCount(fts, &nInst);
  sqlite3_str_appendf(out, "\n    inst=%d/%d", nInst, rc);
  for (i = 0; i <= nInst; i++) {
    int ip = -1, ic = -1, io = -1;
    const char *t = 0; int nt = -1;
    rc = api->xInst(fts, i, &ip, &ic, &io);
    sqlite3_str_appendf(out, " (%d,%d,%d)/%d", ip, ic, io, rc);
    if (rc == SQLITE_OK) {
      rc = api->xInstToken(fts, i, 0, &t, &nt);
      sqlite3_str_appendf(out, "tok=%d", rc);
      if (rc == SQLITE_OK) sqlite3_str_appendf(out, "'%.*s'", nt, t);
    }
  }
  for (i = 0; i < nPhrase; i++) {
    sqlite3_str_appendf(out, "\n    p%d pos:", i);
    for (rc = api->xPhraseFirst(fts, i, &it, &c, &o); c >= 0; api->xPhraseNext(fts, &it, &c, &o)) {
      sqlite3_str_appendf(out, " %d.%d", c, o);
    }
    sqlite3_str_appendf(out, " cols:");
    for (rc = api->xPhraseFirstColumn(fts, i, &it, &c); c >= 0; api->xPhraseNextColumn(fts, &it, &c)) {
      sqlite3_str_appendf(out, " %d", c);
    }
  }
  if (api->iVersion >= 4) {
    z = (const char *)1; n = -1;
    rc = api->xColumnLocale(fts, 0, &z, &n);
    sqlite3_str_appendf(out, "\n    locale=%s:%d/%d", z ? "set" : "null", n, rc);
    rc = api->xColumnLocale(fts, nCol, &z, &n);
    sqlite3_str_appendf(out, " locale(%d)/%d", nCol, rc);
  }
  sqlite3_str_appendf(out, "\n    tokens:");
  rc = api->xTokenize(fts, "Hello, World-wide 42", -1 + 21, out, tok_cb);
  sqlite3_str_appendf(out, " /%d", rc);
  counter = api->xGetAuxdata(fts, 0);
  if (!counter) {
    counter = sqlite3_malloc(sizeof *counter);
    *counter = 0;
    rc = api->xSetAuxdata(fts, counter, aux_free);
  }
  (*counter)++;
  sqlite3_str_appendf(out, "\n    call=%d", *counter);
  sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}

static void fail(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  (void)api; (void)fts; (void)nVal; (void)apVal;
  sqlite3_result_error(ctx, "fail() says no", -1);
}

static void take(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
  int *p = api->xGetAuxdata(fts, 1);
  (void)nVal; (void)apVal;
  if (!p) {
    p = sqlite3_malloc(sizeof *p);
    *p = (int)api->xRowid(fts);
    api->xSetAuxdata(fts, p, aux_free);
    sqlite3_result_text(ctx, "set", -1, SQLITE_STATIC);
  } else {
    sqlite3_result_int(ctx, *p);
    sqlite3_free(p);
  }
}

int main(void) {
  sqlite3 *db;
  fts5_api *api;
  int rc;

  sqlite3_open(":memory:", &db);
  api = get_api(db);
  if (!api) { printf("no api\n"); return 1; }
  rc = api->xCreateFunction(api, "dump", &user_tag, dump, 0);
  printf("create dump rc=%d\n", rc);
  rc = api->xCreateFunction(api, "fail", 0, fail, 0);
  printf("create fail rc=%d\n", rc);
  rc = api->xCreateFunction(api, "take", 0, take, 0);
  printf("create take rc=%d\n", rc);

  sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(a, b);"
                   "INSERT INTO t VALUES('one two three', 'two four');"
                   "INSERT INTO t VALUES('five six', NULL);"
                   "INSERT INTO t VALUES('two two one', 'seven one two');", 0, 0, 0);
  show(db, "SELECT dump(t) FROM t WHERE t MATCH 'two' ORDER BY rowid");
  show(db, "SELECT dump(t, 1, 'x') FROM t WHERE t MATCH 'one OR four' ORDER BY rowid");
  show(db, "SELECT dump(t) FROM t WHERE t MATCH '\"two one\" AND b:seven'");
  show(db, "SELECT dump(t) FROM t WHERE t MATCH 'NEAR(one two, 1)' ORDER BY rowid");
  show(db, "SELECT dump(t) FROM t WHERE t MATCH 'five'");
  show(db, "SELECT dump(t) FROM t WHERE rowid = 2");
  show(db, "SELECT dump(t) FROM t WHERE t MATCH 'nothing'");
  show(db, "SELECT fail(t) FROM t WHERE t MATCH 'two'");
  show(db, "SELECT take(t) FROM t ORDER BY rowid");
  printf("freed=%d\n", aux_freed);
  show(db, "SELECT dump(1)");
  show(db, "SELECT dump()");

  sqlite3_exec(db, "CREATE VIRTUAL TABLE p USING fts5(x, tokenize='porter');"
                   "INSERT INTO p VALUES('running runners run');", 0, 0, 0);
  show(db, "SELECT dump(p) FROM p WHERE p MATCH 'run'");
  sqlite3_close(db);
  printf("closed freed=%d\n", aux_freed);
  return 0;
}
