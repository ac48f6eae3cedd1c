/* Shadow tables and SQLITE_DBCONFIG_DEFENSIVE. The module "shd" (version 3,
** xShadowName true for "data" and "idx") keeps its rows in a real table
** %_data that xCreate creates, xUpdate writes, xFilter reads and xDestroy
** drops, all with SQL on its own connection. With the defensive flag on,
** ordinary SQL may read the shadow tables but not write, drop, alter, index
** or trigger them; the module's own statements, and statements prepared
** inside any callback while a statement runs, still may. Tables that are
** not shadow tables: a suffix xShadowName refuses, a prefix no virtual
** table has, a module of version 2 (its xShadowName is not called). Also
** what the flag does to PRAGMA writable_schema, journal_mode=OFF and
** schema_version=N, statements prepared before it was set, and the flag
** seen again after reopening the file. */
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

/* sqlite3_exec on the connection from inside a callback, errors printed. */
static int nested(const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc != SQLITE_OK) printf("    (nested %d: %s)\n", rc, err ? err : "");
  sqlite3_free(err);
  return rc;
}

typedef struct { sqlite3_vtab base; char db[32], name[32]; } T;
typedef struct { sqlite3_vtab_cursor base; sqlite3_stmt *st; int eof; } C;

static int shdInit(sqlite3 *d, int argc, const char *const *argv, sqlite3_vtab **pp, int create) {
  T *t;
  (void)argc;
  if (create) {
    char *sql = sqlite3_mprintf("CREATE TABLE \"%w\".\"%w_data\"(k INTEGER PRIMARY KEY, v)", argv[1], argv[2]);
    int rc = nested(sql);
    sqlite3_free(sql);
    if (rc) return rc;
  }
  sqlite3_declare_vtab(d, "CREATE TABLE x(a, b)");
  t = sqlite3_malloc(sizeof *t);
  memset(t, 0, sizeof *t);
  snprintf(t->db, sizeof t->db, "%s", argv[1]);
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  *pp = &t->base;
  return SQLITE_OK;
}
static int shdCreate(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)err;
  printf("  [xCreate %s.%s]\n", argv[1], argv[2]);
  return shdInit(d, argc, argv, pp, 1);
}
static int shdConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux; (void)err;
  printf("  [xConnect %s.%s]\n", argv[1], argv[2]);
  return shdInit(d, argc, argv, pp, 0);
}
static int shdBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  info->estimatedCost = 10;
  return SQLITE_OK;
}
static int shdDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int shdDestroy(sqlite3_vtab *v) {
  T *t = (T *)v;
  char *sql = sqlite3_mprintf("DROP TABLE \"%w\".\"%w_data\"", t->db, t->name);
  printf("  [xDestroy %s]\n", t->name);
  nested(sql);
  sqlite3_free(sql);
  sqlite3_free(v);
  return SQLITE_OK;
}
static int shdOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  C *c = sqlite3_malloc(sizeof *c);
  (void)v;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}
static int shdClose(sqlite3_vtab_cursor *cur) {
  C *c = (C *)cur;
  sqlite3_finalize(c->st);
  sqlite3_free(c);
  return SQLITE_OK;
}
static int shdNext(sqlite3_vtab_cursor *cur) {
  C *c = (C *)cur;
  c->eof = sqlite3_step(c->st) != SQLITE_ROW;
  return SQLITE_OK;
}
static int shdFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  C *c = (C *)cur;
  T *t = (T *)cur->pVtab;
  char *sql = sqlite3_mprintf("SELECT k, v FROM \"%w\".\"%w_data\" ORDER BY k", t->db, t->name);
  int rc;
  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  sqlite3_finalize(c->st);
  c->st = 0;
  rc = sqlite3_prepare_v2(db, sql, -1, &c->st, 0);
  sqlite3_free(sql);
  if (rc) return rc;
  return shdNext(cur);
}
static int shdEof(sqlite3_vtab_cursor *cur) { return ((C *)cur)->eof; }
static int shdColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  sqlite3_result_value(ctx, sqlite3_column_value(((C *)cur)->st, i));
  return SQLITE_OK;
}
static int shdRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) {
  *r = sqlite3_column_int64(((C *)cur)->st, 0);
  return SQLITE_OK;
}
static int shdUpdate(sqlite3_vtab *v, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
  T *t = (T *)v;
  char *sql;
  int rc;
  if (argc == 1) {
    sql = sqlite3_mprintf("DELETE FROM \"%w\".\"%w_data\" WHERE k = %lld", t->db, t->name, sqlite3_value_int64(argv[0]));
  } else if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w_data\" VALUES(%lld, %Q)", t->db, t->name, sqlite3_value_int64(argv[2]), (const char *)sqlite3_value_text(argv[3]));
    *rowid = sqlite3_value_int64(argv[2]);
  } else {
    sql = sqlite3_mprintf("UPDATE \"%w\".\"%w_data\" SET v = %Q WHERE k = %lld", t->db, t->name, (const char *)sqlite3_value_text(argv[3]), sqlite3_value_int64(argv[0]));
  }
  rc = nested(sql);
  sqlite3_free(sql);
  return rc;
}
static int shdRename(sqlite3_vtab *v, const char *zNew) {
  T *t = (T *)v;
  char *sql = sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_data\" RENAME TO \"%w_data\"", t->db, t->name, zNew);
  int rc;
  printf("  [xRename %s -> %s]\n", t->name, zNew);
  rc = nested(sql);
  sqlite3_free(sql);
  if (rc == SQLITE_OK) snprintf(t->name, sizeof t->name, "%s", zNew);
  return rc;
}
/* (Not logged: SQLite asks it as it parses each CREATE TABLE and connects
** each table, ringlite as it compiles each write.) */
static int shdShadowName(const char *suffix) {
  return !strcmp(suffix, "data") || !strcmp(suffix, "idx");
}
static sqlite3_module shdModule = {
  3, shdCreate, shdConnect, shdBestIndex, shdDisconnect, shdDestroy, shdOpen, shdClose, shdFilter,
  shdNext, shdEof, shdColumn, shdRowid, shdUpdate, 0, 0, 0, 0, 0, shdRename, 0, 0, 0, shdShadowName, 0
};
static sqlite3_module shd2Module;

/* exec_sql(X): runs X on the connection from inside a function call. */
static void execFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, nested((const char *)sqlite3_value_text(argv[0])));
}

static void defensive(int on) {
  int v = -1, rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, &v);
  printf("defensive %d: rc=%d value=%d\n", on, rc, v);
}

static void setup(void) {
  sqlite3_create_module(db, "shd", &shdModule, 0);
  sqlite3_create_module(db, "shd2", &shd2Module, 0);
  sqlite3_create_function(db, "exec_sql", 1, SQLITE_UTF8, 0, execFunc, 0, 0);
}

static const char *const writes[] = {
  "SELECT k, v FROM t_data",
  "INSERT INTO t_data VALUES(5, 'five')",
  "INSERT INTO T_DATA VALUES(6, 'six')",
  "INSERT INTO main.t_data VALUES(7, 'seven')",
  "UPDATE t_data SET v = 'changed' WHERE k = 5",
  "DELETE FROM t_data WHERE k = 6",
  "REPLACE INTO t_data VALUES(1, 'replaced')",
  "INSERT INTO t_data SELECT k + 100, v FROM t_data",
  "INSERT INTO t_data VALUES(8, 'e') ON CONFLICT DO NOTHING",
  "INSERT INTO t_idx VALUES(1)",
  "INSERT INTO t_other VALUES(1)",
  "INSERT INTO u_data VALUES(1)",
  "INSERT INTO w_data VALUES(9, 'w')",
  "INSERT INTO t_data_x VALUES(1)",
  "INSERT INTO tt_data VALUES(9, 'temp')",
  "WITH c(x) AS (SELECT 1) INSERT INTO t_data SELECT 200, x FROM c",
  "UPDATE o SET x = x WHERE x IN (SELECT k FROM t_data)",
  "CREATE INDEX t_data_v ON t_data(v)",
  "CREATE TRIGGER t_data_tr AFTER INSERT ON t_data BEGIN SELECT 1; END",
  "CREATE TEMP TRIGGER t_data_tr2 AFTER INSERT ON main.t_data BEGIN SELECT 1; END",
  "CREATE VIEW t_data_view AS SELECT * FROM t_data",
  "ALTER TABLE t_data RENAME TO t_data2",
  "ALTER TABLE t_data ADD COLUMN z",
  "ALTER TABLE t_data RENAME COLUMN v TO vv",
  "ALTER TABLE t_data DROP COLUMN v",
  "DROP TABLE t_data",
  "DROP TABLE t_idx",
  "DELETE FROM t_idx",
  "INSERT INTO t VALUES(2, 'two')",
  "UPDATE t SET b = 'TWO' WHERE a = 2",
  "SELECT a, b FROM t",
  "SELECT exec_sql('INSERT INTO t_data VALUES(10, ''from a function'')')",
  "SELECT exec_sql('DELETE FROM t_data WHERE k = 10')",
  "INSERT INTO o VALUES(11)",
  "SELECT k, v FROM t_data",
  0
};

int main(void) {
  int i, rc, v;
  sqlite3_stmt *pre = 0;
  memcpy(&shd2Module, &shdModule, sizeof shdModule);
  shd2Module.iVersion = 2;
  remove("shadow_test.db");
  sqlite3_open("shadow_test.db", &db);
  setup();
  q("CREATE VIRTUAL TABLE t USING shd");
  q("INSERT INTO t VALUES(1, 'one')");
  q("CREATE TABLE t_idx(x)");
  q("CREATE TABLE t_other(x)");
  q("CREATE TABLE u_data(x)");
  q("CREATE TABLE t_data_x(x)");
  q("CREATE VIRTUAL TABLE w USING shd2");
  q("CREATE VIRTUAL TABLE temp.tt USING shd");
  q("CREATE TABLE o(x)");
  q("CREATE TRIGGER o_tr AFTER INSERT ON o BEGIN INSERT INTO t_data VALUES(new.x, 'trigger'); END");
  rc = sqlite3_prepare_v2(db, "INSERT INTO t_data VALUES(50, 'prepared before')", -1, &pre, 0);
  printf("prepared before the flag: %d\n", rc);
  defensive(-1);
  q("INSERT INTO t_data VALUES(3, 'flag off')");
  q("INSERT INTO t_idx VALUES(0)");
  q("SELECT exec_sql('INSERT INTO t_data VALUES(4, ''flag off, nested'')')");
  defensive(1);
  defensive(-1);
  rc = sqlite3_step(pre);
  printf("step of the earlier statement: %d %s\n", rc, rc == SQLITE_DONE ? "" : sqlite3_errmsg(db));
  sqlite3_finalize(pre);
  for (i = 0; writes[i]; i++) q(writes[i]);
  q("PRAGMA writable_schema = ON");
  q("PRAGMA writable_schema");
  v = -1;
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 1, &v);
  printf("db_config writable_schema 1: rc=%d value=%d\n", rc, v);
  q("PRAGMA writable_schema");
  q("UPDATE sqlite_master SET sql = sql WHERE name = 'o'");
  v = -1;
  rc = sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 0, &v);
  printf("db_config writable_schema 0: rc=%d value=%d\n", rc, v);
  q("PRAGMA journal_mode = OFF");
  q("PRAGMA journal_mode");
  q("PRAGMA journal_mode = MEMORY");
  q("PRAGMA journal_mode = DELETE");
  q("PRAGMA schema_version");
  q("PRAGMA schema_version = 1234");
  q("PRAGMA schema_version");
  q("PRAGMA user_version = 7");
  q("PRAGMA user_version");
  q("DROP TRIGGER o_tr");
  q("DROP VIEW t_data_view");
  q("BEGIN");
  q("INSERT INTO t VALUES(30, 'thirty')");
  q("INSERT INTO t_data VALUES(12, 'in a transaction')");
  q("COMMIT");
  q("ALTER TABLE t RENAME TO t2");
  q("INSERT INTO t2_data VALUES(13, 'renamed')");
  q("SELECT a, b FROM t2");
  sqlite3_close(db);

  /* Reopened: the flag is the connection's, off again; the shadow tables
  ** are known from the schema once it is read. */
  sqlite3_open("shadow_test.db", &db);
  setup();
  defensive(-1);
  q("INSERT INTO t2_data VALUES(14, 'reopened, flag off')");
  defensive(1);
  q("INSERT INTO t2_data VALUES(15, 'reopened, flag on')");
  q("INSERT INTO t_idx VALUES(2)");
  q("SELECT a, b FROM t2");
  q("INSERT INTO t2_data VALUES(16, 'after the table is connected')");
  q("DROP TABLE t2");
  q("SELECT name FROM sqlite_master ORDER BY name");
  q("INSERT INTO t_idx VALUES(3)");
  sqlite3_close(db);

  /* The schema read before the module exists. */
  sqlite3_open("shadow_test.db", &db);
  defensive(1);
  q("CREATE VIRTUAL TABLE n USING shd");
  sqlite3_create_module(db, "shd", &shdModule, 0);
  q("CREATE VIRTUAL TABLE n USING shd");
  q("INSERT INTO n_data VALUES(1, 'n')");
  sqlite3_close(db);
  sqlite3_open("shadow_test.db", &db);
  defensive(1);
  q("SELECT count(*) FROM sqlite_master");
  sqlite3_create_module(db, "shd", &shdModule, 0);
  /* (SQLite would let n_data be written here, before n connects: it marks
  ** shadow tables as it reads their CREATE TABLE, and the module was not
  ** registered then. ringlite refuses it, as SQLite does once n is used.) */
  q("SELECT a, b FROM n");
  q("INSERT INTO n_data VALUES(3, 'after the table is connected')");
  sqlite3_close(db);

  /* The built-in modules' shadow tables: their own writes go on. */
  sqlite3_open(":memory:", &db);
  defensive(1);
  q("CREATE VIRTUAL TABLE f USING fts5(x)");
  q("INSERT INTO f VALUES('hello world'), ('goodbye world')");
  q("SELECT rowid, x FROM f WHERE f MATCH 'world' ORDER BY rowid");
  q("INSERT INTO f(f) VALUES('optimize')");
  q("SELECT count(*) FROM f_data");
  q("INSERT INTO f_data VALUES(1000, x'00')");
  q("DELETE FROM f_content");
  q("UPDATE f_config SET v = 5 WHERE k = 'version'");
  q("DROP TABLE f_idx");
  q("ALTER TABLE f_docsize RENAME TO d");
  q("CREATE TRIGGER f_tr AFTER INSERT ON f_content BEGIN SELECT 1; END");
  q("DELETE FROM f WHERE rowid = 1");
  q("ALTER TABLE f RENAME TO f2");
  q("SELECT rowid, x FROM f2 WHERE f2 MATCH 'world'");
  q("CREATE VIRTUAL TABLE r USING rtree(id, x0, x1)");
  q("INSERT INTO r VALUES(1, 0, 10), (2, 5, 15)");
  q("SELECT id FROM r WHERE x1 > 12");
  q("UPDATE r_node SET data = data");
  q("DELETE FROM r_rowid");
  q("INSERT INTO r_parent VALUES(5, 1)");
  q("DROP TABLE f2");
  q("DROP TABLE r");
  q("SELECT name FROM sqlite_master ORDER BY name");
  sqlite3_close(db);
  remove("shadow_test.db");
  return 0;
}
