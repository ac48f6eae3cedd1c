/* The session extension: changesets and patchsets recorded from INSERT,
** UPDATE and DELETE (rowid, WITHOUT ROWID, multi-column keys, tables
** without a key ignored), printed as hex and iterated; inverted,
** concatenated, combined in changegroups; applied to other databases
** with every kind of conflict (the handler's calls printed); a changeset
** made by SQLite 3.54.1 applied here. Output must equal SQLite's. */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex(const char *label, int n, const void *p) {
  const unsigned char *c = p;
  printf("%s (%d): ", label, n);
  for (int i = 0; i < n; i++) printf("%02x", c[i]);
  printf("\n");
}

static unsigned fnv(int n, const void *p) {
  const unsigned char *c = p;
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ c[i]) * 16777619u;
  return h;
}

static void ex(sqlite3 *db, const char *sql) {
  char *err = 0;
  if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) {
    printf("exec error: %s\n", err);
    sqlite3_free(err);
  }
}

static int row_cb(void *label, int n, char **v, char **c) {
  (void)c;
  printf("  %s:", (const char *)label);
  for (int i = 0; i < n; i++) printf(" %s", v[i] ? v[i] : "NULL");
  printf("\n");
  return 0;
}

static void dump(sqlite3 *db, const char *label, const char *sql) {
  sqlite3_exec(db, sql, row_cb, (void *)label, 0);
}

static void pv(sqlite3_value *v) {
  if (!v) { printf(" -"); return; }
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: printf(" i:%lld", sqlite3_value_int64(v)); break;
    case SQLITE_FLOAT: printf(" r:%g", sqlite3_value_double(v)); break;
    case SQLITE_TEXT: printf(" t:%s", sqlite3_value_text(v)); break;
    case SQLITE_BLOB: {
      const unsigned char *b = sqlite3_value_blob(v);
      printf(" b:");
      for (int i = 0; i < sqlite3_value_bytes(v); i++) printf("%02x", b[i]);
      break;
    }
    default: printf(" null");
  }
}

static const char *opname(int op) {
  return op == SQLITE_INSERT ? "INSERT" : op == SQLITE_UPDATE ? "UPDATE" : op == SQLITE_DELETE ? "DELETE" : "?";
}

static void show_change(sqlite3_changeset_iter *it) {
  const char *tab; int ncol, op, ind;
  int rc = sqlite3changeset_op(it, &tab, &ncol, &op, &ind);
  if (rc != SQLITE_OK) { printf("    op rc=%d\n", rc); return; }
  unsigned char *pk; int npk;
  sqlite3changeset_pk(it, &pk, &npk);
  printf("    %s %s ncol=%d indirect=%d pk=", opname(op), tab, ncol, ind);
  for (int i = 0; i < npk; i++) printf("%d", pk[i]);
  if (op != SQLITE_INSERT) {
    printf(" old:");
    for (int i = 0; i < ncol; i++) { sqlite3_value *v = 0; sqlite3changeset_old(it, i, &v); pv(v); }
  }
  if (op != SQLITE_DELETE) {
    printf(" new:");
    for (int i = 0; i < ncol; i++) { sqlite3_value *v = 0; sqlite3changeset_new(it, i, &v); pv(v); }
  }
  printf("\n");
}

static void iterate(const char *label, int n, void *p, int flags) {
  sqlite3_changeset_iter *it = 0;
  int rc = sqlite3changeset_start_v2(&it, n, p, flags);
  printf("  iterate %s: start=%d\n", label, rc);
  if (rc) return;
  while ((rc = sqlite3changeset_next(it)) == SQLITE_ROW) show_change(it);
  printf("  next=%d finalize=%d\n", rc, sqlite3changeset_finalize(it));
}

static void take(sqlite3_session *s, const char *label, int patch, int *pn, void **pp) {
  int rc = patch ? sqlite3session_patchset(s, pn, pp) : sqlite3session_changeset(s, pn, pp);
  printf("%s rc=%d\n", label, rc);
  hex(label, *pn, *pp);
  iterate(label, *pn, *pp, 0);
}

/* Conflict handler: prints the call and answers from a script. */
static const int *answers;
static int answer_at;
static int conflict(void *ctx, int kind, sqlite3_changeset_iter *it) {
  (void)ctx;
  static const char *kinds[] = {"?", "DATA", "NOTFOUND", "CONFLICT", "CONSTRAINT", "FOREIGN_KEY"};
  printf("  conflict %s\n", kinds[kind >= 1 && kind <= 5 ? kind : 0]);
  if (kind == SQLITE_CHANGESET_FOREIGN_KEY) {
    int n = -1;
    int rc = sqlite3changeset_fk_conflicts(it, &n);
    printf("    fk_conflicts rc=%d n=%d\n", rc, n);
  } else {
    show_change(it);
    sqlite3_value *v = 0;
    int rc = sqlite3changeset_conflict(it, 0, &v);
    printf("    conflict(0) rc=%d", rc); if (rc == SQLITE_OK) pv(v); printf("\n");
  }
  int a = answers ? answers[answer_at] : SQLITE_CHANGESET_OMIT;
  if (answers && answers[answer_at + 1] != -1) answer_at++;
  return a;
}

static int filter_change(void *ctx, sqlite3_changeset_iter *it) {
  (void)ctx;
  const char *tab; int nc, op, ind;
  sqlite3changeset_op(it, &tab, &nc, &op, &ind);
  printf("  filter_change %s %s\n", opname(op), tab);
  return op != SQLITE_DELETE;
}

static int filter_calls(void *ctx, const char *tab) {
  printf("  filter(%s, %s)\n", (const char *)ctx, tab);
  return strcmp(tab, "skipme") != 0;
}

static const char *schema =
  "CREATE TABLE t1(a INTEGER PRIMARY KEY, b, c);"
  "CREATE TABLE t2(x, y, z, PRIMARY KEY(z, x)) WITHOUT ROWID;"
  "CREATE TABLE t3(p, q);"
  "CREATE TABLE t4(k TEXT PRIMARY KEY, v UNIQUE);";
static const char *initial =
  "INSERT INTO t1 VALUES(1, 'one', 1.5), (2, x'0102', NULL), (3, 3, 3), (4, 'four', -4);"
  "INSERT INTO t2 VALUES(1, 2, 3), (4, 5, 6), (7, 8, 9);"
  "INSERT INTO t3 VALUES(1, 2);"
  "INSERT INTO t4 VALUES('a', 1), ('b', 2), ('c', 3);";

static sqlite3 *fresh(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  ex(db, schema);
  ex(db, initial);
  return db;
}

static void show_db(sqlite3 *db) {
  dump(db, "t1", "SELECT * FROM t1 ORDER BY a");
  dump(db, "t2", "SELECT * FROM t2 ORDER BY z, x");
  dump(db, "t4", "SELECT * FROM t4 ORDER BY k");
}

static void apply_with(const char *label, sqlite3 *db, int n, void *p, const int *script, int flags) {
  answers = script; answer_at = 0;
  void *rb = 0; int nrb = -1;
  int rc = sqlite3changeset_apply_v2(db, n, p, 0, conflict, 0, &rb, &nrb, flags);
  printf("apply %s rc=%d autocommit=%d\n", label, rc, sqlite3_get_autocommit(db));
  hex("  rebase buffer", nrb, rb);
  sqlite3_free(rb);
  show_db(db);
}

/* Streaming output into a growing buffer. */
struct buf { unsigned char *p; int n; int calls; };
static int out_cb(void *ctx, const void *data, int n) {
  struct buf *b = ctx;
  b->p = realloc(b->p, b->n + n);
  memcpy(b->p + b->n, data, n);
  b->n += n; b->calls++;
  return SQLITE_OK;
}
struct src { const unsigned char *p; int n; int at; };
static int in_cb(void *ctx, void *data, int *pn) {
  struct src *s = ctx;
  int n = *pn < s->n - s->at ? *pn : s->n - s->at;
  memcpy(data, s->p + s->at, n);
  s->at += n; *pn = n;
  return SQLITE_OK;
}

/* A changeset and a patchset SQLite 3.54.1 made from the initial
** database (t1: UPDATE 3, DELETE 4, INSERT 9; t2: DELETE, UPDATE,
** INSERT; t4: INSERT, UPDATE), applied by both libraries. */
static const char *ref_changeset =
  "54030100007431001200010000000000000009040200ff05170001000000000000000301000000000000000301000000000000000300030372656602400200000000000009000100000000000000040304666f757201fffffffffffffffc54030200017432000900010000000000000001010000000000000002010000000000000003170001000000000000000401000000000000000501000000000000000600030377687900120001ffffffffffffffff023fe000000000000003037a6564540201007434001200030372656601fffffffffffffff917000301630100000000000000030001000000000000001e";
static const char *ref_patchset =
  "50030100007431001200010000000000000009040200ff051700010000000000000003030372656602400200000000000009000100000000000000045003020001743200090001000000000000000101000000000000000317000100000000000000040303776879010000000000000006120001ffffffffffffffff023fe000000000000003037a6564500201007434001200030372656601fffffffffffffff9170003016301000000000000001e";

static int unhex(const char *h, unsigned char *out) {
  int n = 0;
  for (; h[0] && h[1]; h += 2) { unsigned v; sscanf(h, "%2x", &v); out[n++] = (unsigned char)v; }
  return n;
}

/* Random changes over several sessions: each session's changeset,
** patchset, inverse and the running concatenation (as hashes), each
** applied to a second database with random answers to conflicts. */
static unsigned long long rs = 88172645463325252ull;
static unsigned rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (unsigned)rs; }
static char *rval(char *b) {
  switch (rnd() % 7) {
    case 0: sprintf(b, "%u", rnd() % 20); break;
    case 1: sprintf(b, "%u.5", rnd() % 10); break;
    case 2: sprintf(b, "'s%u'", rnd() % 15); break;
    case 3: sprintf(b, "x'%02x'", rnd() % 8); break;
    case 4: strcpy(b, "NULL"); break;
    case 5: sprintf(b, "%u", rnd() % 5); break;
    default: sprintf(b, "'%u'", rnd() % 5);
  }
  return b;
}
static int random_answer(void *ctx, int kind, sqlite3_changeset_iter *it) {
  (void)ctx; (void)it;
  printf(" c%d", kind);
  return (kind == SQLITE_CHANGESET_DATA || kind == SQLITE_CHANGESET_CONFLICT) ? (int)(rnd() % 2) : SQLITE_CHANGESET_OMIT;
}
static void random_sessions(unsigned seed, int rounds) {
  const char *sch = "CREATE TABLE a(x INTEGER PRIMARY KEY, y, z); CREATE TABLE b(p, q, r, PRIMARY KEY(q, p)) WITHOUT ROWID;"
                    "CREATE TABLE c(k TEXT PRIMARY KEY, v REAL, w UNIQUE); CREATE TABLE d(m PRIMARY KEY, n, o);";
  rs = 88172645463325252ull + seed * 7919ull;
  sqlite3 *db, *tgt;
  sqlite3_open(":memory:", &db); ex(db, sch);
  sqlite3_open(":memory:", &tgt); ex(tgt, sch);
  void *prev = 0; int nprev = 0;
  for (int r = 0; r < rounds; r++) {
    sqlite3_session *s; sqlite3session_create(db, "main", &s); sqlite3session_attach(s, 0);
    for (int i = 0; i < 12; i++) {
      char sql[400], v1[40], v2[40], v3[40];
      switch (rnd() % 11) {
        case 0: case 1: sprintf(sql, "INSERT OR REPLACE INTO a VALUES(%u, %s, %s)", rnd() % 30, rval(v1), rval(v2)); break;
        case 2: sprintf(sql, "UPDATE a SET y = %s WHERE x %% %u = %u", rval(v1), rnd() % 5 + 1, rnd() % 3); break;
        case 3: sprintf(sql, "DELETE FROM a WHERE x %% 7 = %u", rnd() % 7); break;
        case 4: sprintf(sql, "INSERT OR REPLACE INTO b VALUES(%u, %s, %s)", rnd() % 6, rval(v1), rval(v2)); break;
        case 5: sprintf(sql, "UPDATE b SET r = %s, q = CASE WHEN %u THEN q ELSE %s END WHERE p = %u", rval(v1), rnd() % 3, rval(v3), rnd() % 6); break;
        case 6: sprintf(sql, "INSERT OR REPLACE INTO c VALUES('k%u', %s, %s)", rnd() % 10, rval(v1), rval(v2)); break;
        case 7: sprintf(sql, "UPDATE c SET v = %s WHERE k = 'k%u'", rval(v1), rnd() % 10); break;
        case 8: sprintf(sql, "DELETE FROM c WHERE k = 'k%u'", rnd() % 10); break;
        case 9: sprintf(sql, "INSERT OR REPLACE INTO d VALUES(%s, %s, %s)", rval(v1), rval(v2), rval(v3)); break;
        default: sprintf(sql, "UPDATE d SET m = %s, n = %s WHERE rowid = %u", rval(v1), rval(v2), rnd() % 8);
      }
      char *e = 0; sqlite3_exec(db, sql, 0, 0, &e); sqlite3_free(e);
    }
    int n, np, ni, nc = 0; void *p, *pp, *pi, *pc = 0;
    sqlite3session_changeset(s, &n, &p);
    sqlite3session_patchset(s, &np, &pp);
    int rci = sqlite3changeset_invert(n, p, &ni, &pi);
    int rcc = sqlite3changeset_concat(nprev, prev, n, p, &nc, &pc);
    printf("seed %u round %d: cs %d %08x ps %d %08x inv %d %08x cat %d %d %08x |", seed, r, n, fnv(n, p), np, fnv(np, pp), rci, fnv(ni, pi), rcc, nc, fnv(nc, pc));
    printf(" apply=%d", sqlite3changeset_apply(tgt, n, p, 0, random_answer, 0));
    if (r % 3 == 0) printf(" patchset apply=%d", sqlite3changeset_apply(tgt, np, pp, 0, random_answer, 0));
    printf("\n");
    sqlite3_free(prev); prev = pc; nprev = nc;
    sqlite3_free(p); sqlite3_free(pp); sqlite3_free(pi);
    sqlite3session_delete(s);
  }
  dump(tgt, "a", "SELECT x, quote(y), quote(z) FROM a ORDER BY 1");
  dump(tgt, "b", "SELECT quote(p), quote(q), quote(r) FROM b ORDER BY 1, 2");
  dump(tgt, "c", "SELECT k, quote(v), quote(w) FROM c ORDER BY 1");
  dump(tgt, "d", "SELECT quote(m), quote(n), quote(o) FROM d ORDER BY 1, 2, 3");
  sqlite3_free(prev);
  sqlite3_close(db); sqlite3_close(tgt);
}

/* Edge cases: sqlite_stat1 (keyed by tbl, idx; NULL idx as X''), rows
** with NULL keys, attached and temp databases, tables created or altered
** during a session, changeset_size, blob writes, trigger changes,
** session_diff errors. */
static void cs(sqlite3_session *s, const char *l) {
  int n; void *p;
  int rc = sqlite3session_changeset(s, &n, &p);
  printf("%s rc=%d ", l, rc);
  hex("", n, p);
  sqlite3_free(p);
}
static void edge_cases(void) {

  sqlite3*db;sqlite3_open(":memory:",&db);
  ex(db,"CREATE TABLE t(a PRIMARY KEY, b); CREATE INDEX tb ON t(b); INSERT INTO t VALUES(1,1),(2,2),(NULL,3);");
  sqlite3_session*s;sqlite3session_create(db,"main",&s);sqlite3session_attach(s,0);
  ex(db,"ANALYZE; UPDATE t SET b=b+1; UPDATE t SET a=5 WHERE a IS NULL; UPDATE t SET a=NULL WHERE a=1;");
  cs(s,"stat1+nullpk");
  sqlite3session_delete(s);
  /* attached db and temp */
  ex(db,"ATTACH ':memory:' AS aux; CREATE TABLE aux.t(a PRIMARY KEY, b); CREATE TEMP TABLE tt(a PRIMARY KEY, b);");
  sqlite3_session*s1,*s2,*s3;sqlite3session_create(db,"aux",&s1);sqlite3session_attach(s1,0);
  sqlite3session_create(db,"temp",&s2);sqlite3session_attach(s2,"tt");
  sqlite3session_create(db,"nosuch",&s3);printf("attach nosuch %d\n",sqlite3session_attach(s3,"t"));
  ex(db,"INSERT INTO aux.t VALUES(1,'aux'); INSERT INTO tt VALUES(2,'temp'); INSERT INTO main.t VALUES(9,9);");
  cs(s1,"aux");cs(s2,"temp");cs(s3,"nosuch");
  /* table created after attach(NULL), table altered */
  sqlite3_session*s4;sqlite3session_create(db,"main",&s4);sqlite3session_attach(s4,0);sqlite3session_attach(s4,"later");sqlite3session_attach(s4,"missing");
  ex(db,"CREATE TABLE later(k INTEGER PRIMARY KEY, v); INSERT INTO later VALUES(1,'x'); CREATE TABLE newer(k PRIMARY KEY, v); INSERT INTO newer VALUES('n',1); INSERT INTO t VALUES(10,10)");
  cs(s4,"later");
  printf("memory_used>0 %d\n",sqlite3session_memory_used(s4)>0);
  ex(db,"ALTER TABLE t ADD COLUMN c DEFAULT 7; INSERT INTO t VALUES(11,11,11); UPDATE t SET b=100 WHERE a=10;");
  cs(s4,"after alter");
  /* changeset_size */
  sqlite3_session*s5;sqlite3session_create(db,"main",&s5);int on=1;int orc=sqlite3session_object_config(s5,SQLITE_SESSION_OBJCONFIG_SIZE,&on);printf("objcfg %d %d\n",orc,on);
  sqlite3session_attach(s5,0);ex(db,"INSERT INTO later VALUES(2,'yy')");
  printf("size %lld\n",sqlite3session_changeset_size(s5));
  on=0;orc=sqlite3session_object_config(s5,SQLITE_SESSION_OBJCONFIG_SIZE,&on);printf("objcfg after attach %d %d\n",orc,on);
  /* blob write */
  ex(db,"CREATE TABLE bl(k INTEGER PRIMARY KEY, v); INSERT INTO bl VALUES(1, zeroblob(4));");
  sqlite3_session*s6;sqlite3session_create(db,"main",&s6);sqlite3session_attach(s6,"bl");
  sqlite3_blob*b;printf("blob open %d\n",sqlite3_blob_open(db,"main","bl","v",1,1,&b));sqlite3_blob_write(b,"ab",2,1);sqlite3_blob_close(b);
  cs(s6,"blob");
  /* indirect via trigger */
  ex(db,"CREATE TABLE lg(id INTEGER PRIMARY KEY, w); CREATE TRIGGER tr AFTER INSERT ON later BEGIN INSERT INTO lg(w) VALUES(new.v); END;");
  sqlite3_session*s7;sqlite3session_create(db,"main",&s7);sqlite3session_attach(s7,0);
  ex(db,"INSERT INTO later VALUES(3,'trig')");
  cs(s7,"trigger");
  /* diff errors */
  char*err=0;int drc=sqlite3session_diff(s7,"zzz","t",&err);printf("diff nosuchdb %d %s\n",drc,err?"message":"(null)");sqlite3_free(err);err=0;
  ex(db,"CREATE TABLE aux.later(k INTEGER PRIMARY KEY, v, extra)");
  drc=sqlite3session_diff(s7,"aux","later",&err);printf("diff mismatch %d %s\n",drc,err?"message":"(null)");sqlite3_free(err);err=0;
  drc=sqlite3session_diff(s7,"aux","nosuchtable",&err);printf("diff notable %d %s\n",drc,err?"message":"(null)");sqlite3_free(err);
  sqlite3session_delete(s1);sqlite3session_delete(s2);sqlite3session_delete(s3);sqlite3session_delete(s4);sqlite3session_delete(s5);sqlite3session_delete(s6);sqlite3session_delete(s7);
  printf("close %d\n",sqlite3_close(db));
  }

  /* sqlite3changegroup_schema: changes checked against a database's tables
  ** and widened to them with the columns' defaults. */
static void group_schema(void) {

  sqlite3*a;sqlite3_open(":memory:",&a);ex(a,"CREATE TABLE t(k PRIMARY KEY, b); INSERT INTO t VALUES(1,'one'),(2,'two'); CREATE TABLE w(z PRIMARY KEY);");
  sqlite3_session*s;sqlite3session_create(a,"main",&s);sqlite3session_attach(s,0);
  ex(a,"INSERT INTO t VALUES(3,'three'); UPDATE t SET b='uno' WHERE k=1; DELETE FROM t WHERE k=2; INSERT INTO w VALUES(5)");
  int n;void*p;sqlite3session_changeset(s,&n,&p);hex("narrow",n,p);
  sqlite3*d;sqlite3_open(":memory:",&d);ex(d,"CREATE TABLE t(k PRIMARY KEY, b, c DEFAULT 'dflt', e DEFAULT (1+2))");
  sqlite3_changegroup*g;sqlite3changegroup_new(&g);
  printf("schema rc=%d\n",sqlite3changegroup_schema(g,d,"main"));
  printf("add rc=%d\n",sqlite3changegroup_add(g,n,p));
  int no;void*po;sqlite3changegroup_output(g,&no,&po);hex("widened",no,po);
  sqlite3changegroup_delete(g);
  sqlite3changegroup_new(&g);
  printf("schema rc=%d\n",sqlite3changegroup_schema(g,d,"main"));
  ex(d,"CREATE TABLE w(z PRIMARY KEY)");
  printf("add rc=%d\n",sqlite3changegroup_add(g,n,p));
  sqlite3changegroup_output(g,&no,&po);hex("widened2",no,po);
  printf("schema again rc=%d\n",sqlite3changegroup_schema(g,d,"main"));
  sqlite3changegroup_delete(g);
  sqlite3*e;sqlite3_open(":memory:",&e);ex(e,"CREATE TABLE t(k, b PRIMARY KEY, c); CREATE TABLE w(z PRIMARY KEY)");
  sqlite3changegroup_new(&g);sqlite3changegroup_schema(g,e,"main");
  printf("add mismatch rc=%d\n",sqlite3changegroup_add(g,n,p));
  sqlite3changegroup_delete(g);
  }

  /* Changes made by foreign key actions (CASCADE, SET NULL) are indirect. */
static void fk_actions(void) {
  sqlite3*fdb;sqlite3_open(":memory:",&fdb);
  ex(fdb,"PRAGMA foreign_keys=ON; CREATE TABLE p(id PRIMARY KEY, v); CREATE TABLE c(id PRIMARY KEY, pid REFERENCES p(id) ON DELETE CASCADE ON UPDATE SET NULL); INSERT INTO p VALUES(1,'a'),(2,'b'); INSERT INTO c VALUES(10,1),(11,2),(12,2);");
  sqlite3_session*s;sqlite3session_create(fdb,"main",&s);sqlite3session_attach(s,0);
  ex(fdb,"DELETE FROM p WHERE id=1; UPDATE p SET id=3 WHERE id=2;");
  int n;void*p;sqlite3session_changeset(s,&n,&p);hex("fk actions",n,p);
  sqlite3_free(p); sqlite3session_delete(s); sqlite3_close(fdb);
}

/* SQLITE_SESSION_OBJCONFIG_ROWID: a table without a PRIMARY KEY is
** recorded keyed by its rowid, and such changesets apply by rowid. */
static void rowid_keys(void) {
  sqlite3*db;sqlite3_open(":memory:",&db);
  ex(db,"CREATE TABLE t(a, b); INSERT INTO t VALUES(1,'x'),(2,'y'); CREATE TABLE k(a PRIMARY KEY, b);");
  sqlite3_session*s;sqlite3session_create(db,"main",&s);int on=1;int crc=sqlite3session_object_config(s,SQLITE_SESSION_OBJCONFIG_ROWID,&on);printf("cfg %d %d\n",crc,on);
  sqlite3session_attach(s,0);
  ex(db,"INSERT INTO t VALUES(3,'z'); UPDATE t SET b='Y' WHERE a=2; DELETE FROM t WHERE a=1; INSERT INTO k VALUES(1,1); INSERT INTO t VALUES(4, 4.0); UPDATE t SET rowid=10 WHERE a=4;");
  int n;void*p;sqlite3session_changeset(s,&n,&p);hex("rowid",n,p);
  sqlite3session_patchset(s,&n,&p);hex("rowid ps",n,p);
  sqlite3session_changeset(s,&n,&p);
  sqlite3*t;sqlite3_open(":memory:",&t);ex(t,"CREATE TABLE t(a, b); INSERT INTO t VALUES(1,'x'),(2,'y'); CREATE TABLE k(a PRIMARY KEY, b);");
  printf("apply %d\n",sqlite3changeset_apply(t,n,p,0,conflict,0));
  dump(t,"t","SELECT rowid,* FROM t");
  sqlite3*u;sqlite3_open(":memory:",&u);ex(u,"CREATE TABLE t(a, b); INSERT INTO t VALUES(1,'other'),(5,'y'); CREATE TABLE k(a PRIMARY KEY, b); INSERT INTO t(rowid,a,b) VALUES(3,'c','c');");
  printf("apply conflicts %d\n",sqlite3changeset_apply(u,n,p,0,conflict,0));
  dump(u,"t","SELECT rowid,* FROM t");
  on=0;printf("cfg after %d ",sqlite3session_object_config(s,SQLITE_SESSION_OBJCONFIG_ROWID,&on));printf("%d\n",on);
  sqlite3session_delete(s); sqlite3_close(db); sqlite3_close(t); sqlite3_close(u);
}

int main(void) {
  setvbuf(stdout, 0, _IONBF, 0);
  sqlite3 *db = fresh();
  sqlite3_session *s = 0, *s2 = 0, *s3 = 0;
  printf("create rc=%d\n", sqlite3session_create(db, "main", &s));
  printf("attach rc=%d\n", sqlite3session_attach(s, 0));
  printf("create2 rc=%d\n", sqlite3session_create(db, "main", &s2));
  printf("attach t2 rc=%d\n", sqlite3session_attach(s2, "t2"));
  printf("create3 rc=%d\n", sqlite3session_create(db, "main", &s3));
  sqlite3session_table_filter(s3, filter_calls, "s3");
  printf("isempty=%d", sqlite3session_isempty(s));
  printf(" enable(-1)=%d", sqlite3session_enable(s, -1));
  printf(" indirect(-1)=%d\n", sqlite3session_indirect(s, -1));

  ex(db, "INSERT INTO t1 VALUES(5, 'five', 5.5);"
         "UPDATE t1 SET b = 'uno' WHERE a = 1;"
         "UPDATE t1 SET c = 33, b = 3 WHERE a = 3;"
         "DELETE FROM t1 WHERE a = 2;"
         "UPDATE t1 SET a = 40 WHERE a = 4;"
         "INSERT INTO t1 VALUES(6, 'gone', 0); DELETE FROM t1 WHERE a = 6;"
         "UPDATE t2 SET y = 20 WHERE x = 1; DELETE FROM t2 WHERE x = 4;"
         "INSERT INTO t2 VALUES(10, 11, 12), (13, NULL, 14);"
         "UPDATE t2 SET y = 80 WHERE x = 7; UPDATE t2 SET y = 8 WHERE x = 7;"
         "INSERT INTO t3 VALUES(3, 4); UPDATE t3 SET q = 9;");
  sqlite3session_indirect(s, 1);
  ex(db, "INSERT INTO t4 VALUES('d', x'ff00'); UPDATE t4 SET v = NULL WHERE k = 'a';");
  sqlite3session_indirect(s, 0);
  sqlite3session_enable(s, 0);
  ex(db, "INSERT INTO t4 VALUES('e', 5)");
  sqlite3session_enable(s, 1);
  printf("isempty=%d\n", sqlite3session_isempty(s));

  int ncs, nps, n2, n3; void *cs, *ps, *c2, *c3;
  take(s, "changeset", 0, &ncs, &cs);
  take(s, "patchset", 1, &nps, &ps);
  take(s2, "session2 changeset", 0, &n2, &c2);
  take(s3, "session3 changeset", 0, &n3, &c3);

  /* invert, and iteration with SQLITE_CHANGESETSTART_INVERT */
  int ninv; void *inv;
  printf("invert rc=%d\n", sqlite3changeset_invert(ncs, cs, &ninv, &inv));
  hex("inverted", ninv, inv);
  iterate("inverted on the fly", ncs, cs, SQLITE_CHANGESETSTART_INVERT);
  int nx = -1; void *px = (void *)1;
  int rc = sqlite3changeset_invert(nps, ps, &nx, &px);
  printf("invert patchset rc=%d n=%d p=%s\n", rc, nx, px ? "set" : "null");
  iterate("patchset inverted on the fly", nps, ps, SQLITE_CHANGESETSTART_INVERT);

  /* iterator misuse and corruption */
  sqlite3_changeset_iter *it;
  sqlite3changeset_start(&it, ncs, cs);
  const char *tab; int nc, op, ind; sqlite3_value *v;
  sqlite3changeset_next(it);
  sqlite3changeset_op(it, &tab, &nc, &op, &ind);
  printf("first: %s %s\n", opname(op), tab);
  printf("old on %s rc=%d, new(-1) rc=%d, new(99) rc=%d, conflict rc=%d\n", opname(op),
         sqlite3changeset_old(it, 0, &v), sqlite3changeset_new(it, -1, &v), sqlite3changeset_new(it, 99, &v),
         sqlite3changeset_conflict(it, 0, &v));
  printf("finalize rc=%d\n", sqlite3changeset_finalize(it));
  sqlite3changeset_start(&it, ncs - 3, cs);
  while ((rc = sqlite3changeset_next(it)) == SQLITE_ROW) {}
  printf("truncated: next rc=%d", rc);
  printf(" again=%d", sqlite3changeset_next(it));
  printf(" finalize=%d\n", sqlite3changeset_finalize(it));
  unsigned char junk[] = {'T', 2, 1, 0, 't', 0, 99, 0};
  sqlite3changeset_start(&it, sizeof junk, junk);
  printf("bad op: next rc=%d", sqlite3changeset_next(it));
  printf(" finalize=%d\n", sqlite3changeset_finalize(it));
  sqlite3changeset_start(&it, 0, 0);
  printf("empty: next rc=%d", sqlite3changeset_next(it));
  printf(" finalize=%d\n", sqlite3changeset_finalize(it));

  /* many rows: the order of the changes follows SQLite's hash table */
  {
    sqlite3 *big; sqlite3_open(":memory:", &big);
    ex(big, "CREATE TABLE k(a, b, c, PRIMARY KEY(a, b)); CREATE TABLE r(id INTEGER PRIMARY KEY, v);");
    sqlite3_session *bs; sqlite3session_create(big, "main", &bs); sqlite3session_attach(bs, "r"); sqlite3session_attach(bs, "k");
    ex(big, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 700)"
            " INSERT INTO k SELECT CASE i % 4 WHEN 0 THEN i WHEN 1 THEN 'k' || i WHEN 2 THEN i * 0.25 ELSE CAST(x'00' || i AS BLOB) END,"
            " i % 3, i FROM c;"
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 300)"
            " INSERT INTO r SELECT i * 7919 - 500000, i FROM c;"
            "UPDATE r SET v = v + 1 WHERE id % 3 = 0; DELETE FROM k WHERE c % 5 = 0;");
    int n; void *p;
    sqlite3session_changeset(bs, &n, &p);
    printf("big changeset n=%d fnv=%08x\n", n, fnv(n, p));
    hex("big head", n < 120 ? n : 120, p);
    sqlite3session_patchset(bs, &n, &p);
    printf("big patchset n=%d fnv=%08x\n", n, fnv(n, p));
    sqlite3_free(p);
    sqlite3session_delete(bs);
    sqlite3_close(big);
  }

  /* apply to copies of the initial database, with conflicts */
  {
    static const int omit[] = {SQLITE_CHANGESET_OMIT, -1};
    static const int replace[] = {SQLITE_CHANGESET_REPLACE, -1};
    static const int abort_[] = {SQLITE_CHANGESET_ABORT, -1};
    static const int bad[] = {7, -1};
    const char *drift =
      "UPDATE t1 SET b = 'ONE' WHERE a = 1;"   /* DATA for the update of 1 */
      "DELETE FROM t1 WHERE a = 2;"            /* NOTFOUND for its delete */
      "INSERT INTO t1 VALUES(5, 'other', 0);"  /* CONFLICT for the insert of 5 */
      "UPDATE t1 SET c = 0 WHERE a = 3;"       /* DATA (c) */
      "DELETE FROM t2 WHERE x = 1;"            /* NOTFOUND (update) */
      "INSERT INTO t4 VALUES('zz', x'ff00');"  /* CONSTRAINT (UNIQUE v) for 'd' */
      ;
    sqlite3 *a = fresh();
    apply_with("clean", a, ncs, cs, omit, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("omit", a, ncs, cs, omit, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("replace", a, ncs, cs, replace, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("abort", a, ncs, cs, abort_, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("bad answer", a, ncs, cs, bad, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("patchset omit", a, nps, ps, omit, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("patchset replace", a, nps, ps, replace, 0);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("ignorenoop", a, ncs, cs, omit, SQLITE_CHANGESETAPPLY_IGNORENOOP);
    sqlite3_close(a);
    /* the session's own database, inverted: back to the start */
    apply_with("invert on the recording db", db, ncs, cs, omit, SQLITE_CHANGESETAPPLY_INVERT);
    apply_with("patchset with INVERT", db, nps, ps, omit, SQLITE_CHANGESETAPPLY_INVERT);
    a = fresh();
    ex(a, "BEGIN");
    apply_with("nosavepoint in a transaction", a, ncs, cs, omit, SQLITE_CHANGESETAPPLY_NOSAVEPOINT);
    ex(a, "ROLLBACK");
    show_db(a);
    answers = 0;
    printf("apply with filter rc=%d\n", sqlite3changeset_apply(a, ncs, cs, filter_calls, conflict, "apply"));
    show_db(a);
    sqlite3_close(a);
    a = fresh();
    answers = 0;
    printf("apply_v3 filtering deletes rc=%d\n", sqlite3changeset_apply_v3(a, ncs, cs, filter_change, conflict, 0, 0, 0, 0));
    show_db(a);
    sqlite3_close(a);
    /* a table missing or of another shape is skipped */
    a = fresh(); ex(a, "DROP TABLE t2; CREATE TABLE t2(x, y, PRIMARY KEY(x));");
    apply_with("schema mismatch", a, ncs, cs, omit, 0);
    sqlite3_close(a);
    /* a changeset made by SQLite */
    unsigned char refcs[512], refps[512];
    int nref = unhex(ref_changeset, refcs), nrefp = unhex(ref_patchset, refps);
    iterate("reference changeset", nref, refcs, 0);
    a = fresh();
    apply_with("reference changeset", a, nref, refcs, omit, 0);
    apply_with("reference changeset inverted", a, nref, refcs, omit, SQLITE_CHANGESETAPPLY_INVERT);
    sqlite3_close(a);
    a = fresh(); ex(a, drift);
    apply_with("reference patchset on drifted", a, nrefp, refps, replace, 0);
    sqlite3_close(a);
  }

  /* constraint retries: a swap of UNIQUE values, a delete freeing one */
  {
    sqlite3 *u; sqlite3_open(":memory:", &u);
    ex(u, "CREATE TABLE t(a PRIMARY KEY, b UNIQUE); INSERT INTO t VALUES(1, 'x'), (2, 'y'), (3, 'z');");
    sqlite3_session *us; sqlite3session_create(u, "main", &us); sqlite3session_attach(us, 0);
    ex(u, "UPDATE t SET b = 'q' WHERE a = 1; UPDATE t SET b = 'x' WHERE a = 2; UPDATE t SET b = 'y' WHERE a = 1;"
          "DELETE FROM t WHERE a = 3; INSERT INTO t VALUES(4, 'z');");
    int n; void *p; sqlite3session_changeset(us, &n, &p);
    hex("swap", n, p);
    sqlite3 *v2; sqlite3_open(":memory:", &v2);
    ex(v2, "CREATE TABLE t(a PRIMARY KEY, b UNIQUE); INSERT INTO t VALUES(1, 'x'), (2, 'y'), (3, 'z');");
    answers = 0;
    printf("apply swap rc=%d\n", sqlite3changeset_apply(v2, n, p, 0, conflict, 0));
    dump(v2, "t", "SELECT * FROM t ORDER BY a");
    ex(v2, "DELETE FROM t; INSERT INTO t VALUES(1, 'x'), (2, 'y'), (3, 'z'), (9, 'q');");
    printf("apply swap blocked rc=%d\n", sqlite3changeset_apply(v2, n, p, 0, conflict, 0));
    dump(v2, "t", "SELECT * FROM t ORDER BY a");
    sqlite3_free(p);
    sqlite3session_delete(us);
    sqlite3_close(u); sqlite3_close(v2);
  }

  /* foreign keys: one FOREIGN_KEY conflict at the end */
  {
    sqlite3 *f; sqlite3_open(":memory:", &f);
    ex(f, "PRAGMA foreign_keys = ON; CREATE TABLE p(id PRIMARY KEY); CREATE TABLE c(id PRIMARY KEY, pid REFERENCES p(id));"
          "INSERT INTO p VALUES(1), (2);");
    sqlite3_session *fs; sqlite3session_create(f, "main", &fs); sqlite3session_attach(fs, 0);
    ex(f, "INSERT INTO c VALUES(10, 1), (11, 1), (12, 2);");
    int n; void *p; sqlite3session_changeset(fs, &n, &p);
    sqlite3 *g; sqlite3_open(":memory:", &g);
    ex(g, "PRAGMA foreign_keys = ON; CREATE TABLE p(id PRIMARY KEY); CREATE TABLE c(id PRIMARY KEY, pid REFERENCES p(id));");
    static const int abort_[] = {SQLITE_CHANGESET_ABORT, -1};
    static const int omit[] = {SQLITE_CHANGESET_OMIT, -1};
    answers = abort_; answer_at = 0;
    printf("fk abort rc=%d\n", sqlite3changeset_apply(g, n, p, 0, conflict, 0));
    dump(g, "c", "SELECT count(*) FROM c");
    answers = omit; answer_at = 0;
    printf("fk omit rc=%d\n", sqlite3changeset_apply(g, n, p, 0, conflict, 0));
    dump(g, "c", "SELECT count(*) FROM c");
    sqlite3_free(p); sqlite3session_delete(fs); sqlite3_close(f); sqlite3_close(g);
  }

  /* concat and changegroups */
  {
    sqlite3 *a = fresh();
    sqlite3_session *sa; sqlite3session_create(a, "main", &sa); sqlite3session_attach(sa, 0);
    ex(a, "INSERT INTO t1 VALUES(10, 'ten', 10); UPDATE t1 SET b = 'B1' WHERE a = 1; DELETE FROM t1 WHERE a = 2;"
          "UPDATE t1 SET c = 30 WHERE a = 3; DELETE FROM t4 WHERE k = 'a'; UPDATE t2 SET y = 0 WHERE x = 7;");
    int na, npa; void *pa, *ppa;
    sqlite3session_changeset(sa, &na, &pa);
    sqlite3session_patchset(sa, &npa, &ppa);
    sqlite3session_delete(sa);
    sqlite3session_create(a, "main", &sa); sqlite3session_attach(sa, 0);
    ex(a, "UPDATE t1 SET b = 'TEN' WHERE a = 10; DELETE FROM t1 WHERE a = 1; INSERT INTO t1 VALUES(2, 'two', 2);"
          "UPDATE t1 SET c = 3 WHERE a = 3; INSERT INTO t4 VALUES('a', 100); INSERT INTO t4 VALUES('new', 7);"
          "UPDATE t2 SET y = 8 WHERE x = 7; INSERT INTO t1 VALUES(11, 'eleven', 11);");
    int nb, npb; void *pb, *ppb;
    sqlite3session_changeset(sa, &nb, &pb);
    sqlite3session_patchset(sa, &npb, &ppb);
    hex("A", na, pa); hex("B", nb, pb);
    int nab; void *pab;
    printf("concat rc=%d\n", sqlite3changeset_concat(na, pa, nb, pb, &nab, &pab));
    hex("A+B", nab, pab);
    iterate("A+B", nab, pab, 0);
    printf("concat patchsets rc=%d\n", sqlite3changeset_concat(npa, ppa, npb, ppb, &nab, &pab));
    hex("pA+pB", nab, pab);
    iterate("pA+pB", nab, pab, 0);
    nx = -1; px = (void *)1;
    int crc = sqlite3changeset_concat(na, pa, npb, ppb, &nx, &px);
    printf("concat mixed rc=%d n=%d p=%s\n", crc, nx, px ? "set" : "null");
    sqlite3_changegroup *g;
    printf("changegroup new rc=%d\n", sqlite3changegroup_new(&g));
    printf("add B rc=%d", sqlite3changegroup_add(g, nb, pb));
    printf(" add A rc=%d\n", sqlite3changegroup_add(g, na, pa));
    int ng; void *pg;
    printf("output rc=%d\n", sqlite3changegroup_output(g, &ng, &pg));
    hex("group B,A", ng, pg);
    printf("add patchset to changeset group rc=%d\n", sqlite3changegroup_add(g, npa, ppa));
    /* changes built one value at a time */
    char *err = 0;
    printf("value before begin rc=%d\n", sqlite3changegroup_change_int64(g, 0, 0, 1));
    printf("begin unknown table rc=%d\n", sqlite3changegroup_change_begin(g, SQLITE_INSERT, "nosuch", 0, &err));
    sqlite3_free(err); err = 0;
    printf("begin rc=%d", sqlite3changegroup_change_begin(g, SQLITE_UPDATE, "t1", 1, &err));
    printf(" again rc=%d", sqlite3changegroup_change_begin(g, SQLITE_UPDATE, "t1", 1, 0));
    printf(" old pk rc=%d", sqlite3changegroup_change_int64(g, 0, 0, 3));
    printf(" old c rc=%d", sqlite3changegroup_change_double(g, 0, 2, 3.0));
    printf(" new c rc=%d", sqlite3changegroup_change_text(g, 1, 2, "three", -1));
    printf(" range rc=%d", sqlite3changegroup_change_null(g, 1, 3));
    printf(" finish rc=%d\n", sqlite3changegroup_change_finish(g, 0, &err));
    sqlite3_free(err); err = 0;
    sqlite3changegroup_change_begin(g, SQLITE_INSERT, "t4", 0, 0);
    printf("insert old value rc=%d", sqlite3changegroup_change_null(g, 0, 0));
    sqlite3changegroup_change_text(g, 1, 0, "built", 5);
    printf(" incomplete finish rc=%d", sqlite3changegroup_change_finish(g, 0, &err));
    sqlite3_free(err); err = 0;
    sqlite3changegroup_change_begin(g, SQLITE_INSERT, "t4", 0, 0);
    sqlite3changegroup_change_text(g, 1, 0, "built", 5);
    sqlite3changegroup_change_blob(g, 1, 1, "\x01\x02", 2);
    printf(" finish rc=%d", sqlite3changegroup_change_finish(g, 0, 0));
    sqlite3changegroup_change_begin(g, SQLITE_DELETE, "t4", 0, 0);
    printf(" discard rc=%d", sqlite3changegroup_change_finish(g, 1, 0));
    printf(" finish again rc=%d\n", sqlite3changegroup_change_finish(g, 0, 0));
    sqlite3changegroup_output(g, &ng, &pg);
    hex("group with built changes", ng, pg);
    sqlite3changegroup_delete(g);
    sqlite3changegroup_new(&g);
    printf("empty group output rc=%d", sqlite3changegroup_output(g, &ng, &pg));
    printf(" n=%d p=%s\n", ng, pg ? "set" : "null");
    /* add_change, one change at a time from an iterator */
    sqlite3changeset_start(&it, na, pa);
    while (sqlite3changeset_next(it) == SQLITE_ROW) sqlite3changegroup_add_change(g, it);
    sqlite3changeset_finalize(it);
    sqlite3changegroup_output(g, &ng, &pg);
    printf("add_change equals A: %d\n", ng == na && memcmp(pg, pa, na) == 0);
    sqlite3changegroup_delete(g);
    /* streaming forms */
    struct buf out = {0, 0, 0};
    printf("changeset_strm rc=%d", sqlite3session_changeset_strm(sa, out_cb, &out));
    printf(" equal=%d\n", out.n == nb && memcmp(out.p, pb, nb) == 0);
    struct src in = {pb, nb, 0};
    sqlite3changeset_start_strm(&it, in_cb, &in);
    int count = 0;
    while (sqlite3changeset_next(it) == SQLITE_ROW) count++;
    printf("start_strm changes=%d finalize=%d\n", count, sqlite3changeset_finalize(it));
    struct src ia = {pa, na, 0}, ib = {pb, nb, 0};
    struct buf cat = {0, 0, 0};
    printf("concat_strm rc=%d", sqlite3changeset_concat_strm(in_cb, &ia, in_cb, &ib, out_cb, &cat));
    sqlite3changeset_concat(na, pa, nb, pb, &nab, &pab);
    printf(" equal=%d\n", cat.n == nab && memcmp(cat.p, pab, nab) == 0);
    struct src iv = {pa, na, 0};
    struct buf inv2 = {0, 0, 0};
    printf("invert_strm rc=%d", sqlite3changeset_invert_strm(in_cb, &iv, out_cb, &inv2));
    hex(" inverted A", inv2.n, inv2.p);
    free(out.p); free(cat.p); free(inv2.p);
    sqlite3session_delete(sa);
    sqlite3_close(a);
  }

  /* rebasing a local changeset over a remote one applied with conflicts */
  {
    static const char *cases[][2] = {
      {"INSERT INTO t VALUES(4, 'r', 4)", "INSERT INTO t VALUES(4, 'l', 4)"},
      {"UPDATE t SET b = 'R' WHERE a = 1; DELETE FROM t WHERE a = 2",
       "UPDATE t SET b = 'L', c = 9 WHERE a = 1; UPDATE t SET b = 'L2' WHERE a = 2"},
      {"DELETE FROM t WHERE a = 3; UPDATE t SET c = 7 WHERE a = 2; INSERT INTO t VALUES(5, 'n', 5)",
       "DELETE FROM t WHERE a = 3; DELETE FROM t WHERE a = 2; INSERT INTO t VALUES(5, 'n', 5); INSERT INTO t VALUES(6, 'q', 6)"},
      {"UPDATE t SET b = 'R' WHERE a = 1; UPDATE t SET b = 'S' WHERE a = 3; INSERT INTO u VALUES(9, 9)",
       "UPDATE t SET b = 'L', c = 9 WHERE a = 1; DELETE FROM t WHERE a = 3; INSERT INTO u VALUES(9, 8)"},
    };
    const char *rschema = "CREATE TABLE t(a PRIMARY KEY, b, c); CREATE TABLE u(k PRIMARY KEY, v);"
                          "INSERT INTO t VALUES(1, 'x', 1), (2, 'y', 2), (3, 'z', 3);";
    for (int c = 0; c < 4; c++) {
      for (int answer = 0; answer < 2; answer++) {
        sqlite3 *r, *l; sqlite3_session *rs, *ls;
        sqlite3_open(":memory:", &r); ex(r, rschema);
        sqlite3_open(":memory:", &l); ex(l, rschema);
        sqlite3session_create(r, "main", &rs); sqlite3session_attach(rs, 0);
        sqlite3session_create(l, "main", &ls); sqlite3session_attach(ls, 0);
        ex(r, cases[c][0]); ex(l, cases[c][1]);
        int nr, nl; void *pr, *pl;
        sqlite3session_changeset(rs, &nr, &pr);
        sqlite3session_changeset(ls, &nl, &pl);
        static const int omit[] = {SQLITE_CHANGESET_OMIT, -1};
        static const int replace[] = {SQLITE_CHANGESET_REPLACE, -1};
        printf("rebase case %d %s\n", c, answer ? "REPLACE" : "OMIT");
        sqlite3session_delete(ls);
        apply_with("remote on local", l, nr, pr, answer ? replace : omit, 0);
        void *rb = 0; int nrb = 0;
        sqlite3 *l2; sqlite3_open(":memory:", &l2); ex(l2, rschema); ex(l2, cases[c][1]);
        answers = answer ? replace : omit; answer_at = 0;
        sqlite3changeset_apply_v2(l2, nr, pr, 0, conflict, 0, &rb, &nrb, 0);
        sqlite3_rebaser *rr;
        printf("rebaser create rc=%d", sqlite3rebaser_create(&rr));
        printf(" configure rc=%d", sqlite3rebaser_configure(rr, nrb, rb));
        int no = -1; void *po = 0;
        printf(" rebase rc=%d\n", sqlite3rebaser_rebase(rr, nl, pl, &no, &po));
        hex("  rebased", no, po);
        sqlite3_free(po);
        sqlite3rebaser_delete(rr);
        sqlite3_free(rb); sqlite3_free(pr); sqlite3_free(pl);
        sqlite3session_delete(rs);
        sqlite3_close(r); sqlite3_close(l); sqlite3_close(l2);
      }
    }
  }

  /* sqlite3session_diff between two databases */
  {
    sqlite3 *a = fresh();
    ex(a, "ATTACH ':memory:' AS other;"
          "CREATE TABLE other.t1(a INTEGER PRIMARY KEY, b, c); INSERT INTO other.t1 SELECT * FROM main.t1;"
          "UPDATE other.t1 SET b = 'changed' WHERE a = 1; DELETE FROM other.t1 WHERE a = 2; INSERT INTO other.t1 VALUES(99, 'extra', 0);");
    sqlite3_session *ds; sqlite3session_create(a, "main", &ds);
    char *err = 0;
    printf("diff rc=%d\n", sqlite3session_diff(ds, "other", "t1", &err));
    int n; void *p; sqlite3session_changeset(ds, &n, &p);
    hex("diff", n, p);
    iterate("diff", n, p, 0);
    sqlite3_free(p);
    sqlite3session_delete(ds);
    sqlite3_close(a);
  }

  edge_cases();
  group_schema();
  fk_actions();
  answers = 0;
  rowid_keys();
  /* a changeset of sqlite_stat1 applied over other statistics */
  {
    sqlite3 *a, *b; sqlite3_session *ss;
    sqlite3_open(":memory:", &a); sqlite3_open(":memory:", &b);
    const char *sch = "CREATE TABLE t(a PRIMARY KEY, b); CREATE TABLE u(x); INSERT INTO t VALUES(1, 1), (2, 2); INSERT INTO u VALUES(1);";
    ex(a, sch); ex(b, sch); ex(b, "ANALYZE; UPDATE sqlite_stat1 SET stat = '9 9' WHERE idx IS NOT NULL");
    sqlite3session_create(a, "main", &ss); sqlite3session_attach(ss, "sqlite_stat1");
    ex(a, "ANALYZE");
    int n; void *p; sqlite3session_changeset(ss, &n, &p);
    hex("stat1", n, p);
    static const int replace[] = {SQLITE_CHANGESET_REPLACE, -1};
    answers = replace; answer_at = 0;
    printf("apply stat1 rc=%d\n", sqlite3changeset_apply(b, n, p, 0, conflict, 0));
    dump(b, "stat1", "SELECT tbl, quote(idx), stat FROM sqlite_stat1 ORDER BY 1, 2");
    sqlite3_free(p); sqlite3session_delete(ss); sqlite3_close(a); sqlite3_close(b);
  }
  random_sessions(1, 30);
  random_sessions(6, 30);

  int strm = -1;
  int crc2 = sqlite3session_config(SQLITE_SESSION_CONFIG_STRMSIZE, &strm);
  printf("config strmsize rc=%d size=%d\n", crc2, strm);
  int sz = -1;
  crc2 = sqlite3session_object_config(s, SQLITE_SESSION_OBJCONFIG_SIZE, &sz);
  printf("objconfig size rc=%d val=%d\n", crc2, sz);
  sqlite3_free(cs); sqlite3_free(ps); sqlite3_free(c2); sqlite3_free(c3); sqlite3_free(inv);
  sqlite3session_delete(s); sqlite3session_delete(s2); sqlite3session_delete(s3);
  printf("close rc=%d\n", sqlite3_close(db));
  return 0;
}
