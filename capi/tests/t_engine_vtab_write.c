/* Writable virtual tables written in C: a table keeping its rows in memory
** whose xBegin/xSync/xCommit/xRollback/xSavepoint/xRelease/xRollbackTo and
** xUpdate calls are printed in the order the library makes them, beside
** ordinary tables in the same transactions; a table whose xUpdate writes
** through SQL on its own connection (a shadow table) and whose xFilter
** reads it back; xFindFunction overloading a function for a column of the
** table; xRename; conflict modes and sqlite3_vtab_on_conflict; UPDATE ...
** FROM (one xUpdate per joined row), INSERT ... RETURNING, and SQLite's
** refusals of UPDATE/DELETE RETURNING and UPSERT on virtual tables;
** INSERT ... SELECT handing each row to xUpdate as the SELECT makes it,
** unless the SELECT reads the table written (then it runs first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3 *db;

static void run(const char *sql) {
  sqlite3_stmt *st;
  const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int i, n = sqlite3_column_count(st);
      printf("  ");
      for (i = 0; i < n; i++) {
        const unsigned char *t = sqlite3_column_text(st, i);
        printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL");
      }
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}

static void q(const char *sql) { printf("%s\n", sql); run(sql); }

/* ---- mem(a, b): rows in memory, snapshots for transactions ---- */
#define MAXROWS 64
typedef struct { sqlite3_int64 id; sqlite3_int64 a; char b[32]; int used; } Row;
typedef struct { sqlite3_vtab base; char name[32]; Row rows[MAXROWS]; Row at_begin[MAXROWS]; Row sp[8][MAXROWS]; int in_txn; } MemTab;
typedef struct { sqlite3_vtab_cursor base; int i; sqlite3_int64 eq; int has_eq; } MemCur;

static int memInit(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  MemTab *t;
  (void)aux; (void)argc; (void)err;
  if (sqlite3_declare_vtab(d, "CREATE TABLE x(a INTEGER, b TEXT)") != SQLITE_OK) return SQLITE_ERROR;
  sqlite3_vtab_config(d, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  *pp = &t->base;
  return SQLITE_OK;
}
static int memFree(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int memBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i;
  (void)v;
  info->estimatedCost = 1000;
  for (i = 0; i < info->nConstraint; i++) {
    if (info->aConstraint[i].iColumn == -1 && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ && info->aConstraint[i].usable) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1;
      break;
    }
  }
  return SQLITE_OK;
}
static int memOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  MemCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int memClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static void memSkip(MemCur *c) {
  MemTab *t = (MemTab *)c->base.pVtab;
  while (c->i < MAXROWS && (!t->rows[c->i].used || (c->has_eq && t->rows[c->i].id != c->eq))) c->i++;
}
static int memFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  MemCur *c = (MemCur *)cur;
  (void)str; (void)argc;
  c->has_eq = num == 1;
  if (c->has_eq) c->eq = sqlite3_value_int64(argv[0]);
  c->i = 0;
  memSkip(c);
  return SQLITE_OK;
}
static int memNext(sqlite3_vtab_cursor *cur) { MemCur *c = (MemCur *)cur; c->i++; memSkip(c); return SQLITE_OK; }
static int memEof(sqlite3_vtab_cursor *cur) { return ((MemCur *)cur)->i >= MAXROWS; }
static int memColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  MemCur *c = (MemCur *)cur;
  Row *r = &((MemTab *)cur->pVtab)->rows[c->i];
  if (i == 0) sqlite3_result_int64(ctx, r->a);
  else sqlite3_result_text(ctx, r->b, -1, SQLITE_TRANSIENT);
  return SQLITE_OK;
}
static int memRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id) {
  MemCur *c = (MemCur *)cur;
  *id = ((MemTab *)cur->pVtab)->rows[c->i].id;
  return SQLITE_OK;
}
static int memFind(MemTab *t, sqlite3_int64 id) {
  int i;
  for (i = 0; i < MAXROWS; i++) if (t->rows[i].used && t->rows[i].id == id) return i;
  return -1;
}
static const char *conflict_name(int c) {
  switch (c) {
    case SQLITE_ROLLBACK: return "ROLLBACK";
    case SQLITE_IGNORE: return "IGNORE";
    case SQLITE_FAIL: return "FAIL";
    case SQLITE_ABORT: return "ABORT";
    case SQLITE_REPLACE: return "REPLACE";
  }
  return "?";
}
static int memUpdate(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  MemTab *t = (MemTab *)v;
  int i, at;
  printf("  [%s xUpdate argc=%d", t->name, argc);
  for (i = 0; i < argc; i++) {
    const unsigned char *s = sqlite3_value_text(argv[i]);
    printf(" %s", s ? (const char *)s : "NULL");
  }
  printf(" on_conflict=%s]\n", conflict_name(sqlite3_vtab_on_conflict(db)));
  if (argc == 1) {
    at = memFind(t, sqlite3_value_int64(argv[0]));
    if (at >= 0) t->rows[at].used = 0;
    return SQLITE_OK;
  }
  {
    int is_insert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
    sqlite3_int64 id;
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) id = sqlite3_value_int64(argv[1]);
    else if (!is_insert) id = sqlite3_value_int64(argv[0]);
    else { id = 0; for (i = 0; i < MAXROWS; i++) if (t->rows[i].used && t->rows[i].id > id) id = t->rows[i].id; id++; }
    if (sqlite3_value_int64(argv[2]) < 0) {
      sqlite3_free(v->zErrMsg);
      v->zErrMsg = sqlite3_mprintf("mem: negative a");
      return SQLITE_CONSTRAINT;
    }
    at = memFind(t, id);
    if (at >= 0 && (is_insert || id != sqlite3_value_int64(argv[0]))) {
      if (sqlite3_vtab_on_conflict(db) == SQLITE_REPLACE) t->rows[at].used = 0;
      else { sqlite3_free(v->zErrMsg); v->zErrMsg = sqlite3_mprintf("mem: duplicate rowid %lld", id); return SQLITE_CONSTRAINT; }
    }
    if (!is_insert) { at = memFind(t, sqlite3_value_int64(argv[0])); if (at >= 0) t->rows[at].used = 0; }
    for (i = 0; i < MAXROWS && t->rows[i].used; i++) {}
    if (i == MAXROWS) return SQLITE_FULL;
    t->rows[i].used = 1;
    t->rows[i].id = id;
    t->rows[i].a = sqlite3_value_int64(argv[2]);
    snprintf(t->rows[i].b, sizeof t->rows[i].b, "%s", sqlite3_value_text(argv[3]) ? (const char *)sqlite3_value_text(argv[3]) : "");
    *rowid = id;
  }
  return SQLITE_OK;
}
static int memBegin(sqlite3_vtab *v) { MemTab *t = (MemTab *)v; printf("  [%s xBegin]\n", t->name); memcpy(t->at_begin, t->rows, sizeof t->rows); t->in_txn = 1; return SQLITE_OK; }
static int memSync(sqlite3_vtab *v) { printf("  [%s xSync]\n", ((MemTab *)v)->name); return SQLITE_OK; }
static int memCommit(sqlite3_vtab *v) { MemTab *t = (MemTab *)v; printf("  [%s xCommit]\n", t->name); t->in_txn = 0; return SQLITE_OK; }
static int memRollback(sqlite3_vtab *v) { MemTab *t = (MemTab *)v; printf("  [%s xRollback]\n", t->name); memcpy(t->rows, t->at_begin, sizeof t->rows); t->in_txn = 0; return SQLITE_OK; }
static int memSavepoint(sqlite3_vtab *v, int n) { MemTab *t = (MemTab *)v; printf("  [%s xSavepoint %d]\n", t->name, n); if (n < 8) memcpy(t->sp[n], t->rows, sizeof t->rows); return SQLITE_OK; }
static int memRelease(sqlite3_vtab *v, int n) { printf("  [%s xRelease %d]\n", ((MemTab *)v)->name, n); return SQLITE_OK; }
static int memRollbackTo(sqlite3_vtab *v, int n) { MemTab *t = (MemTab *)v; printf("  [%s xRollbackTo %d]\n", t->name, n); if (n < 8) memcpy(t->rows, t->sp[n], sizeof t->rows); return SQLITE_OK; }
static int memRename(sqlite3_vtab *v, const char *zNew) { MemTab *t = (MemTab *)v; printf("  [%s xRename %s]\n", t->name, zNew); snprintf(t->name, sizeof t->name, "%s", zNew); return SQLITE_OK; }
/* note(x): prints and returns x, to show when the SELECT makes a row. */
static void note(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  printf("  [note %s]\n", sqlite3_value_text(argv[0]) ? (const char *)sqlite3_value_text(argv[0]) : "NULL");
  sqlite3_result_value(ctx, argv[0]);
}

static void twice(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int64(ctx, 2 * sqlite3_value_int64(argv[0]) + *(int *)sqlite3_user_data(ctx));
}
static int bonus = 1000;
static int overload_bonus = 1000;
static int memFindFunction(sqlite3_vtab *v, int nArg, const char *zName, void (**pxFunc)(sqlite3_context *, int, sqlite3_value **), void **ppArg) {
  (void)v;
  if (nArg == 1 && strcmp(zName, "twice") == 0) { *pxFunc = twice; *ppArg = &overload_bonus; return 1; }
  return 0;
}
static int memIntegrity(sqlite3_vtab *v, const char *zSchema, const char *zTab, int mFlags, char **pzErr) {
  MemTab *t = (MemTab *)v;
  int i;
  for (i = 0; i < MAXROWS; i++) {
    if (t->rows[i].used && t->rows[i].a == 666) {
      *pzErr = sqlite3_mprintf("mem %s.%s (flags %d): row %lld is cursed", zSchema, zTab, mFlags, t->rows[i].id);
      return SQLITE_OK;
    }
  }
  return SQLITE_OK;
}
static sqlite3_module memModule = {
  4, memInit, memInit, memBestIndex, memFree, memFree, memOpen, memClose, memFilter, memNext, memEof,
  memColumn, memRowid, memUpdate, memBegin, memSync, memCommit, memRollback, memFindFunction, memRename,
  memSavepoint, memRelease, memRollbackTo, 0, memIntegrity
};

/* ---- shadow(x): xUpdate writes "<name>_data" with SQL, xFilter reads it ---- */
typedef struct { sqlite3_vtab base; sqlite3 *db; char name[32]; } ShTab;
typedef struct { sqlite3_vtab_cursor base; sqlite3_stmt *st; int eof; } ShCur;
static int shInit(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err, int create) {
  ShTab *t;
  (void)aux; (void)argc;
  if (create) {
    char *sql = sqlite3_mprintf("CREATE TABLE \"%w_data\"(id INTEGER PRIMARY KEY, x)", argv[2]);
    int rc = sqlite3_exec(d, sql, 0, 0, err);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) return rc;
  }
  if (sqlite3_declare_vtab(d, "CREATE TABLE x(x)") != SQLITE_OK) return SQLITE_ERROR;
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->db = d;
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  *pp = &t->base;
  return SQLITE_OK;
}
static int shCreate(sqlite3 *d, void *a, int c, const char *const *v, sqlite3_vtab **pp, char **e) { return shInit(d, a, c, v, pp, e, 1); }
static int shConnect(sqlite3 *d, void *a, int c, const char *const *v, sqlite3_vtab **pp, char **e) { return shInit(d, a, c, v, pp, e, 0); }
static int shDestroy(sqlite3_vtab *v) {
  ShTab *t = (ShTab *)v;
  char *sql = sqlite3_mprintf("DROP TABLE \"%w_data\"", t->name);
  int rc = sqlite3_exec(t->db, sql, 0, 0, 0);
  printf("  [shadow xDestroy: drop %s_data -> %d]\n", t->name, rc);
  sqlite3_free(sql);
  sqlite3_free(v);
  return SQLITE_OK;
}
static int shBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) { (void)v; info->estimatedCost = 10; return SQLITE_OK; }
static int shOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  ShCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int shClose(sqlite3_vtab_cursor *cur) { ShCur *c = (ShCur *)cur; sqlite3_finalize(c->st); sqlite3_free(c); return SQLITE_OK; }
static int shNext(sqlite3_vtab_cursor *cur) {
  ShCur *c = (ShCur *)cur;
  int rc = sqlite3_step(c->st);
  c->eof = rc != SQLITE_ROW;
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}
static int shFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  ShCur *c = (ShCur *)cur;
  ShTab *t = (ShTab *)cur->pVtab;
  char *sql = sqlite3_mprintf("SELECT id, x FROM \"%w_data\" ORDER BY id", t->name);
  int rc;
  (void)num; (void)str; (void)argc; (void)argv;
  sqlite3_finalize(c->st);
  rc = sqlite3_prepare_v2(t->db, sql, -1, &c->st, 0);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  return shNext(cur);
}
static int shEof(sqlite3_vtab_cursor *cur) { return ((ShCur *)cur)->eof; }
static int shColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  (void)i;
  sqlite3_result_value(ctx, sqlite3_column_value(((ShCur *)cur)->st, 1));
  return SQLITE_OK;
}
static int shRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = sqlite3_column_int64(((ShCur *)cur)->st, 0); return SQLITE_OK; }
static int shUpdate(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  ShTab *t = (ShTab *)v;
  sqlite3_stmt *st;
  char *sql;
  int rc;
  if (argc == 1) sql = sqlite3_mprintf("DELETE FROM \"%w_data\" WHERE id = ?1", t->name);
  else if (sqlite3_value_type(argv[0]) == SQLITE_NULL) sql = sqlite3_mprintf("INSERT INTO \"%w_data\"(id, x) VALUES (?2, ?3)", t->name);
  else sql = sqlite3_mprintf("UPDATE \"%w_data\" SET id = ?2, x = ?3 WHERE id = ?1", t->name);
  rc = sqlite3_prepare_v2(t->db, sql, -1, &st, 0);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) { v->zErrMsg = sqlite3_mprintf("shadow: %s", sqlite3_errmsg(t->db)); return rc; }
  sqlite3_bind_value(st, 1, argv[0]);
  if (argc > 1) { sqlite3_bind_value(st, 2, argv[1]); sqlite3_bind_value(st, 3, argv[2]); }
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) { v->zErrMsg = sqlite3_mprintf("shadow: %s", sqlite3_errmsg(t->db)); return SQLITE_ERROR; }
  if (argc > 1 && sqlite3_value_type(argv[0]) == SQLITE_NULL) *rowid = sqlite3_last_insert_rowid(t->db);
  return SQLITE_OK;
}
static sqlite3_module shModule = {
  1, shCreate, shConnect, shBestIndex, memFree, shDestroy, shOpen, shClose, shFilter, shNext, shEof,
  shColumn, shRowid, shUpdate, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

static int auth(void *p, int code, const char *a, const char *b, const char *c, const char *d) {
  (void)p; (void)d;
  if (code == SQLITE_CREATE_VTABLE || code == SQLITE_DROP_VTABLE || code == SQLITE_CREATE_TABLE || code == SQLITE_DROP_TABLE)
    printf("  [auth %d %s %s %s]\n", code, a ? a : "NULL", b ? b : "NULL", c ? c : "NULL");
  return a && strcmp(a, "denied") == 0 ? SQLITE_DENY : SQLITE_OK;
}

int main(void) {
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "mem", &memModule, 0);
  sqlite3_create_module(db, "shadow", &shModule, 0);
  /* xFindFunction overloads a function that exists. */
  sqlite3_create_function(db, "twice", 1, SQLITE_UTF8, &bonus, twice, 0, 0);
  bonus = 0;
  q("CREATE VIRTUAL TABLE m USING mem; CREATE VIRTUAL TABLE n USING mem; CREATE TABLE t(x)");
  q("INSERT INTO m VALUES (1, 'one'), (2, 'two')");
  q("SELECT rowid, a, b FROM m");
  q("SELECT changes(), total_changes(), last_insert_rowid()");
  q("UPDATE m SET b = b || '!' WHERE a = 2");
  q("UPDATE m SET rowid = 10 WHERE a = 1");
  q("SELECT rowid, a, b FROM m");
  q("DELETE FROM m WHERE rowid = 10");
  q("SELECT rowid, a, b FROM m");
  q("INSERT INTO m(rowid, a, b) VALUES (2, 5, 'dup')");
  q("INSERT OR IGNORE INTO m(rowid, a, b) VALUES (2, 5, 'dup')");
  q("INSERT OR REPLACE INTO m(rowid, a, b) VALUES (2, 5, 'replaced')");
  q("INSERT OR FAIL INTO m(a, b) VALUES (7, 'x'), (-1, 'neg'), (8, 'y')");
  q("SELECT rowid, a, b FROM m");
  q("INSERT INTO m(a, b) VALUES (9, 'x'), (-1, 'neg')");
  q("SELECT rowid, a, b FROM m");
  q("BEGIN");
  q("INSERT INTO m VALUES (20, 'in txn')");
  q("INSERT INTO t VALUES (1)");
  q("INSERT INTO n VALUES (30, 'n')");
  q("COMMIT");
  q("BEGIN; INSERT INTO m VALUES (21, 'gone'); INSERT INTO n VALUES (31, 'gone')");
  q("ROLLBACK");
  q("SELECT a FROM m UNION ALL SELECT a FROM n");
  q("BEGIN; INSERT INTO t VALUES (2)");
  q("SAVEPOINT s1");
  q("INSERT INTO m VALUES (40, 'sp')");
  q("SAVEPOINT s2");
  q("INSERT INTO m VALUES (41, 'sp2')");
  q("ROLLBACK TO s2");
  q("RELEASE s2");
  q("RELEASE s1");
  q("COMMIT");
  q("SELECT a FROM m ORDER BY a");
  q("SAVEPOINT outer_sp; INSERT INTO m VALUES (50, 'x'); SAVEPOINT inner_sp; INSERT INTO m VALUES (51, 'y'); ROLLBACK TO inner_sp; RELEASE outer_sp");
  q("SELECT a FROM m ORDER BY a");
  /* Statements that may write several rows run in a statement savepoint
  ** of the tables in the transaction. */
  q("BEGIN; INSERT INTO m VALUES (60, 'a'), (61, 'b'); UPDATE m SET b = 'u' WHERE a >= 60; INSERT INTO m VALUES (62, 'c'), (-1, 'bad'); INSERT INTO m VALUES (63, 'd'); COMMIT");
  q("SELECT a, b FROM m WHERE a >= 60");
  q("BEGIN; SAVEPOINT x; INSERT INTO m SELECT a + 100, b FROM m WHERE a >= 60; RELEASE x; DELETE FROM m WHERE a >= 60; COMMIT");
  q("SELECT count(*) FROM m WHERE a >= 60");
  q("SELECT twice(a), twice(5) FROM m WHERE a < 10");
  q("PRAGMA integrity_check");
  q("INSERT INTO m VALUES (666, 'cursed'); INSERT INTO n VALUES (666, 'also')");
  q("PRAGMA integrity_check");
  q("PRAGMA quick_check");
  q("PRAGMA integrity_check(1)");
  q("DELETE FROM m WHERE a = 666; DELETE FROM n WHERE a = 666");
  q("CREATE VIEW vm AS SELECT m.a, b FROM m WHERE a > 0");
  q("ALTER TABLE t RENAME TO t_renamed");
  q("ALTER TABLE m RENAME TO m2");
  q("SELECT name, sql FROM sqlite_schema WHERE name LIKE 'm%' OR name = 'vm'");
  q("SELECT * FROM vm");
  q("SELECT a FROM m2 WHERE rowid = 2");

  q("CREATE VIRTUAL TABLE s USING shadow");
  q("INSERT INTO s VALUES ('a'), ('b')");
  q("INSERT INTO s(rowid, x) VALUES (10, 'c')");
  q("SELECT rowid, x FROM s");
  q("UPDATE s SET x = upper(x) WHERE rowid > 1");
  q("DELETE FROM s WHERE x = 'a'");
  q("SELECT rowid, x FROM s");
  q("SELECT * FROM s_data");
  q("BEGIN; INSERT INTO s VALUES ('rolled back'); ROLLBACK");
  q("SELECT count(*) FROM s");
  q("DROP TABLE s");
  q("SELECT name FROM sqlite_schema ORDER BY name");
  sqlite3_set_authorizer(db, auth, 0);
  q("CREATE VIRTUAL TABLE a1 USING mem");
  q("CREATE VIRTUAL TABLE denied USING mem");
  q("DROP TABLE a1");
  sqlite3_set_authorizer(db, 0, 0);

  /* UPDATE ... FROM, RETURNING and UPSERT on a virtual table. */
  q("CREATE VIRTUAL TABLE u USING mem; CREATE TABLE f(x, y); INSERT INTO f VALUES (1, 'uno'), (2, 'dos'), (1, 'eins'), (5, 'cinco')");
  q("INSERT INTO u VALUES (1, 'one'), (2, 'two'), (3, 'three')");
  q("UPDATE u SET b = f.y FROM f WHERE f.x = u.a");
  q("SELECT rowid, a, b FROM u");
  q("UPDATE u AS uu SET b = f.y || uu.b FROM f WHERE f.x = uu.a");
  q("UPDATE u SET b = f.y, rowid = f.x + 10 FROM f WHERE f.x = u.a");
  q("SELECT rowid, a, b FROM u");
  q("UPDATE u SET b = s.y FROM (SELECT x, max(y) AS y FROM f GROUP BY x) AS s WHERE s.x = u.a");
  q("UPDATE u SET b = 'k' FROM f");
  q("UPDATE u SET b = f.y FROM f JOIN f AS f2 ON f2.x = f.x WHERE f.x = u.a");
  q("UPDATE u SET b = f.nosuch FROM f WHERE f.x = u.a");
  q("UPDATE u SET b = 1 FROM nosuch WHERE 1");
  q("UPDATE u SET b = f.y FROM f WHERE f.x = u.a AND 0");
  q("SELECT changes()");
  q("UPDATE u SET b = 1 FROM u WHERE 1");
  q("UPDATE OR REPLACE u SET b = 'z' FROM f WHERE f.x = u.a");
  q("UPDATE u SET b = f.y || '+' FROM f WHERE f.x = u.a RETURNING a, b");
  q("UPDATE u SET b = 'r' WHERE a = 3 RETURNING rowid, *");
  q("DELETE FROM u WHERE a = 7 RETURNING a, b");
  q("INSERT INTO u VALUES (7, 'seven') RETURNING a, b, rowid");
  q("INSERT INTO u(rowid, a, b) VALUES (50, 50, 'f') RETURNING rowid, a");
  q("INSERT INTO u(a, b) VALUES (51, 'g') RETURNING rowid, a, b, a + 1");
  q("INSERT INTO u(a, b) SELECT x, y FROM f RETURNING *");
  q("INSERT INTO u VALUES (52, 'h') RETURNING nosuch");
  q("INSERT INTO u(rowid, a, b) VALUES (NULL, 53, 'i') RETURNING rowid");
  q("INSERT OR IGNORE INTO u(rowid, a, b) VALUES (50, 50, 'f') RETURNING rowid, a");
  q("INSERT INTO u VALUES (-1, 'bad') RETURNING a");
  q("WITH c(v) AS (SELECT 11) INSERT INTO u SELECT v, 'c' FROM c RETURNING a");
  q("INSERT INTO u DEFAULT VALUES RETURNING rowid, a");
  q("REPLACE INTO u(rowid, a, b) VALUES (1, 12, 'rep') RETURNING *");
  q("SELECT rowid, a, b FROM u");
  q("INSERT INTO u VALUES (1, 'x') ON CONFLICT DO NOTHING");
  q("INSERT INTO u VALUES (1, 'x') ON CONFLICT(a) DO UPDATE SET b = 'y'");
  q("INSERT INTO u AS x SELECT 1, 'x' ON CONFLICT DO NOTHING");
  q("CREATE TRIGGER tu AFTER INSERT ON f BEGIN INSERT INTO u VALUES (new.x, new.y) ON CONFLICT DO NOTHING; END");
  q("INSERT INTO f VALUES (9, 'nueve')");
  q("DROP TRIGGER tu");
  q("CREATE TRIGGER tu AFTER INSERT ON f BEGIN UPDATE u SET b = new.y FROM f AS f2 WHERE f2.x = u.a; END");
  q("INSERT INTO f VALUES (2, 'zwei')");
  q("SELECT rowid, a, b FROM u ORDER BY rowid");

  /* INSERT ... SELECT: rows reach xUpdate as they are made, unless the
  ** SELECT reads the table written (directly, in a subquery or a
  ** compound's arm): then all are made first. */
  sqlite3_create_function(db, "note", 1, SQLITE_UTF8, 0, note, 0, 0);
  q("CREATE VIRTUAL TABLE w USING mem");
  q("INSERT INTO w SELECT note(x), y FROM f WHERE x < 3");
  q("INSERT INTO w SELECT note(a) + 100, b FROM w");
  q("INSERT INTO w VALUES (note(7), 'a'), (note(8), 'b')");
  q("INSERT INTO w SELECT note(x), y FROM f WHERE x < 3 UNION ALL SELECT note(a), b FROM w WHERE a > 100");
  q("INSERT INTO w SELECT x, y FROM f ORDER BY x DESC LIMIT 2");
  q("INSERT INTO w SELECT note(x), y FROM f WHERE x IN (SELECT a FROM w)");
  q("INSERT INTO w SELECT note(x), CASE WHEN x = 5 THEN abs(-9223372036854775808) ELSE y END FROM f");
  q("INSERT INTO w SELECT note(x - 3), y FROM f");
  q("BEGIN; INSERT INTO w SELECT note(x), y FROM f WHERE x = 9; INSERT INTO w SELECT note(x - 3), y FROM f; COMMIT");
  q("SELECT rowid, a, b FROM w ORDER BY rowid");
  sqlite3_close(db);
  return 0;
}
