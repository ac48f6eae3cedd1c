/* LIMIT and OFFSET offered to a virtual table's xBestIndex
** (SQLITE_INDEX_CONSTRAINT_LIMIT/_OFFSET, sqlite3_vtab_rhs_value), when
** SQLite offers them (one virtual table in FROM, no aggregate, GROUP BY,
** DISTINCT or window, ORDER BY on its columns only, every WHERE term a
** constraint), the second xBestIndex call SQLite makes when a plan takes
** LIMIT/OFFSET while leaving an earlier constraint or an IN list out, the
** values xFilter receives, and SQLite's LIMIT/OFFSET applied on top (an
** OFFSET the module omits is the module's). The module "lv" logs its
** xBestIndex input and takes the constraints a policy string names:
** L limit, O offset, E a = ?, G a > ? (upper case: omit), X a LIMIT taken
** with omit but ignored, C ORDER BY consumed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static void run(const char *sql) {
  sqlite3_stmt *st; const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int i, n = sqlite3_column_count(st); printf("  ");
      for (i = 0; i < n; i++) { const unsigned char *t = sqlite3_column_text(st, i); printf("%s%s", i ? "|" : "", t ? (const char *)t : "NULL"); }
      printf("\n");
    }
    if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
}
static void q(const char *sql) { printf("%s\n", sql); run(sql); }
static const char *policy = "";
typedef struct { sqlite3_vtab base; } T;
typedef struct { sqlite3_vtab_cursor base; int row, last, skip; } C;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux;(void)argc;(void)argv;(void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a, b, c, h HIDDEN)");
  T *t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t); *pp = &t->base; return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int xBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i, n = 0; char str[64] = ""; (void)v;
  printf("  [xBestIndex n=%d", info->nConstraint);
  for (i = 0; i < info->nConstraint; i++) {
    struct sqlite3_index_constraint *c = &info->aConstraint[i];
    sqlite3_value *rhs = 0; int rc = sqlite3_vtab_rhs_value(info, i, &rhs);
    printf(" {%d op%d%s", c->iColumn, c->op, c->usable ? "" : " unusable");
    if (rc == SQLITE_OK) printf(" rhs=%s", sqlite3_value_text(rhs) ? (const char*)sqlite3_value_text(rhs) : "NULL"); else printf(" rc=%d", rc);
    printf("}");
  }
  printf(" orderby=%d", info->nOrderBy);
  for (i = 0; i < info->nOrderBy; i++) printf(" %d%s", info->aOrderBy[i].iColumn, info->aOrderBy[i].desc ? "d" : "");
  printf(" distinct=%d colUsed=%llx]\n", sqlite3_vtab_distinct(info), (unsigned long long)info->colUsed);
  for (const char *p = policy; *p; p++) {
    int op = (*p=='L'||*p=='l'||*p=='X') ? 73 : (*p=='O'||*p=='o') ? 74 : (*p=='E'||*p=='e') ? 2 : (*p=='G'||*p=='g') ? 4 : 0;
    for (i = 0; i < info->nConstraint; i++) {
      struct sqlite3_index_constraint *c = &info->aConstraint[i];
      if (c->op == op && c->usable && info->aConstraintUsage[i].argvIndex == 0 && (op > 72 || c->iColumn == 0)) {
        info->aConstraintUsage[i].argvIndex = ++n;
        info->aConstraintUsage[i].omit = *p < 'a';
        size_t l = strlen(str); str[l] = *p; str[l+1] = 0;
        break;
      }
    }
  }
  if (strchr(policy, 'C') && info->nOrderBy) info->orderByConsumed = 1;
  info->idxStr = sqlite3_mprintf("%s", str); info->needToFreeIdxStr = 1;
  info->estimatedCost = 100 - n;
  return SQLITE_OK;
}
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; C *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  C *c = (C *)cur; int i; (void)num;
  printf("  [xFilter %s", str ? str : "(null)");
  for (i = 0; i < argc; i++) printf(" %s:%s", sqlite3_value_type(argv[i]) == SQLITE_INTEGER ? "int" : sqlite3_value_type(argv[i]) == SQLITE_NULL ? "null" : "other", sqlite3_value_text(argv[i]) ? (const char *)sqlite3_value_text(argv[i]) : "NULL");
  printf("]\n");
  c->row = 1; c->last = 10;
  for (i = 0; i < argc; i++) {
    char k = str[i];
    if (k == 'E' || k == 'e') { c->row = c->last = sqlite3_value_int(argv[i]); }
    if (k == 'G' || k == 'g') { c->row = sqlite3_value_int(argv[i]) + 1; }
    if (k == 'O') { c->skip = sqlite3_value_int(argv[i]); }
  }
  for (i = 0; i < argc; i++) { char k = str[i]; if (k == 'L' || k == 'l') { int l = sqlite3_value_int(argv[i]); if (l >= 0 && c->row + c->skip + l - 1 < c->last) c->last = c->row + c->skip + l - 1; } }
  c->row += c->skip;
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) { ((C *)cur)->row++; return SQLITE_OK; }
static int xEof(sqlite3_vtab_cursor *cur) { C *c = (C *)cur; return c->row > c->last; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  C *c = (C *)cur;
  if (i == 0) sqlite3_result_int(ctx, c->row); else if (i == 1) sqlite3_result_int(ctx, c->row % 3); else sqlite3_result_text(ctx, sqlite3_mprintf("x%d", c->row), -1, sqlite3_free);
  return SQLITE_OK;
}
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((C *)cur)->row; return SQLITE_OK; }
static sqlite3_module mod = { 2, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid, 0,0,0,0,0,0,0,0,0,0,0,0 };
/* om: 20 columns, every constraint passed with omit while xFilter
** ignores them: SQLite still tests those past the 16th constraint or
** the 16th argument. Row r has 0 in column r, 1 elsewhere. */
typedef struct { sqlite3_vtab_cursor base; int row; } OmC;
static int om_rev;
static int omConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux;(void)argc;(void)argv;(void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12,c13,c14,c15,c16,c17,c18,c19)");
  sqlite3_vtab *t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t); *pp = t; return SQLITE_OK;
}
static int omDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static int omBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i, n = info->nConstraint; (void)v;
  for (i = 0; i < n; i++) { info->aConstraintUsage[i].argvIndex = om_rev ? n - i : i + 1; info->aConstraintUsage[i].omit = 1; }
  info->estimatedCost = 1;
  return SQLITE_OK;
}
static int omOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; OmC *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int omClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int omFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) { (void)num;(void)str;(void)argc;(void)argv; ((OmC *)cur)->row = 0; return SQLITE_OK; }
static int omNext(sqlite3_vtab_cursor *cur) { ((OmC *)cur)->row++; return SQLITE_OK; }
static int omEof(sqlite3_vtab_cursor *cur) { return ((OmC *)cur)->row >= 20; }
/* row r: column i holds 1 except column r holds 0 */
static int omColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) { sqlite3_result_int(ctx, ((OmC *)cur)->row == i ? 0 : 1); return SQLITE_OK; }
static int omRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((OmC *)cur)->row; return SQLITE_OK; }
static sqlite3_module omModule = { 2, omConnect, omConnect, omBestIndex, omDisconnect, omDisconnect, omOpen, omClose, omFilter, omNext, omEof, omColumn, omRowid, 0,0,0,0,0,0,0,0,0,0,0,0 };

int main(void) {
  static const char *const pols[] = {"", "LO", "lo", "LOE", "EL", "OL", "GLO", "X", "O", "OC", NULL};
  static const char *const qs[] = {
    "SELECT a FROM v LIMIT 3",
    "SELECT a FROM v LIMIT 3 OFFSET 2",
    "SELECT a FROM v LIMIT 2, 3",
    "SELECT a FROM v LIMIT -1 OFFSET 2",
    "SELECT a FROM v LIMIT 3 OFFSET -2",
    "SELECT a FROM v LIMIT '3' OFFSET '2'",
    "SELECT a FROM v LIMIT 1+2",
    "SELECT a FROM v LIMIT (SELECT 2)",
    "SELECT a FROM v LIMIT 0",
    "SELECT a FROM v LIMIT +3",
    "SELECT a FROM v LIMIT 3.0",
    "SELECT a FROM v LIMIT 0x3",
    "SELECT a FROM v LIMIT 9223372036854775807",
    "SELECT a FROM v LIMIT -0",
    "SELECT a FROM v LIMIT 2 OFFSET +1",
    "SELECT a FROM v LIMIT 2 OFFSET 0",
    "SELECT a FROM v LIMIT 'x'",
    "SELECT a FROM v LIMIT NULL",
    "SELECT a FROM v LIMIT 2.5",
    "SELECT a FROM v WHERE a > 3 LIMIT 2",
    "SELECT a FROM v WHERE a = 4 LIMIT 2",
    "SELECT a FROM v WHERE b = 1 LIMIT 2",
    "SELECT a FROM v WHERE a > 3 AND b = 1 LIMIT 2",
    "SELECT a FROM v WHERE a IN (2,5,7) LIMIT 2",
    "SELECT a FROM v WHERE a IN (2,5,7) LIMIT 2 OFFSET 1",
    "SELECT a FROM v WHERE a IN (2,5,7) ORDER BY a LIMIT 2",
    "SELECT a FROM v WHERE b IN (1) LIMIT 2",
    "SELECT a FROM v WHERE a+1 > 3 LIMIT 2",
    "SELECT a FROM v WHERE a = b LIMIT 2",
    "SELECT a FROM v WHERE 1 LIMIT 2",
    "SELECT a FROM v WHERE a > 3 AND 1 LIMIT 2",
    "SELECT a FROM v WHERE ?1 LIMIT 2",
    "SELECT a FROM v WHERE a > ?1 LIMIT ?2 OFFSET ?3",
    "SELECT a FROM v WHERE rowid > 3 LIMIT 2",
    "SELECT a FROM v WHERE a BETWEEN 2 AND 5 LIMIT 2",
    "SELECT a FROM v WHERE a NOT IN (1,2) LIMIT 2",
    "SELECT a FROM v WHERE a IS NOT NULL LIMIT 2",
    "SELECT a FROM v WHERE a NOTNULL LIMIT 2",
    "SELECT a FROM v WHERE NOT (a = 1) LIMIT 2",
    "SELECT a FROM v WHERE a != 3 LIMIT 2",
    "SELECT a FROM v WHERE +a = 3 LIMIT 2",
    "SELECT a FROM v WHERE 3 = a LIMIT 2",
    "SELECT a FROM v WHERE a COLLATE nocase = 'x' LIMIT 2",
    "SELECT a FROM v WHERE a = abs(-3) LIMIT 2",
    "SELECT a FROM v WHERE (a, b) = (4, 1) LIMIT 2",
    "SELECT a FROM v ORDER BY a LIMIT 2",
    "SELECT a FROM v ORDER BY a DESC LIMIT 2",
    "SELECT a FROM v ORDER BY a+1 LIMIT 2",
    "SELECT a FROM v ORDER BY 1 LIMIT 2",
    "SELECT a FROM v ORDER BY b, a LIMIT 2",
    "SELECT a FROM v ORDER BY rowid LIMIT 2",
    "SELECT a FROM v ORDER BY h LIMIT 2",
    "SELECT a FROM v WHERE a > 3 ORDER BY c COLLATE nocase LIMIT 2",
    "SELECT a FROM v WHERE a > 3 ORDER BY a LIMIT 2 OFFSET 1",
    "SELECT a FROM v ORDER BY a DESC LIMIT 2 OFFSET 1",
    "SELECT a FROM v ORDER BY a DESC LIMIT 2 OFFSET 3",
    "SELECT a FROM v ORDER BY a DESC LIMIT 2 OFFSET -3",
    "SELECT a FROM v ORDER BY a DESC LIMIT -1 OFFSET 3",
    "SELECT a FROM v ORDER BY b LIMIT 1 OFFSET 3",
    "SELECT b FROM v GROUP BY b LIMIT 2",
    "SELECT count(*) FROM v LIMIT 2",
    "SELECT max(a) FROM v",
    "SELECT min(a) FROM v",
    "SELECT max(b) FROM v WHERE a > 3",
    "SELECT max(a), count(*) FROM v",
    "SELECT a FROM v LEFT JOIN r ON 0 LIMIT 2",
    "SELECT * FROM (SELECT a FROM v LIMIT 3)",
    "SELECT x, (SELECT a FROM v WHERE a > r.x LIMIT 1) FROM r",
    "SELECT a, h FROM v('q') LIMIT 2",
    "SELECT a FROM v('q') WHERE a > 3 LIMIT 2",
    "SELECT a FROM v WHERE h = 'q' LIMIT 2",
    "SELECT a FROM v AS v1 LIMIT 2",
    "SELECT a FROM main.v LIMIT 2",
    NULL };
  int p, i;
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "lv", &mod, 0);
  run("CREATE VIRTUAL TABLE v USING lv; CREATE TABLE r(x); INSERT INTO r VALUES (1),(2)");
  for (p = 0; pols[p]; p++) {
    policy = pols[p];
    printf("=== policy '%s'\n", policy);
    for (i = 0; qs[i]; i++) q(qs[i]);
  }
  /* The LIMIT 1 SQLite gives a scalar, EXISTS or row-value subquery
  ** (LIMIT X becomes LIMIT (X <> 0), a register value) and the shapes
  ** where it is not offered. */
  {
    static const char *const spols[] = {"", "L", "LO", NULL};
    static const char *const sqs[] = {
      "SELECT x, (SELECT a FROM v) FROM r",
      "SELECT x, (SELECT a FROM v WHERE a > r.x) FROM r",
      "SELECT x, (SELECT a FROM v WHERE a > r.x AND b = 1) FROM r",
      "SELECT (SELECT a FROM v LIMIT 3)",
      "SELECT (SELECT a FROM v LIMIT 0)",
      "SELECT (SELECT a FROM v LIMIT -1)",
      "SELECT (SELECT a FROM v LIMIT 2 OFFSET 1)",
      "SELECT (SELECT a FROM v LIMIT 1, 2)",
      "SELECT (SELECT a FROM v LIMIT 'x')",
      "SELECT (SELECT a FROM v LIMIT '0')",
      "SELECT (SELECT a FROM v LIMIT ?1)",
      "SELECT (SELECT a FROM v ORDER BY a DESC)",
      "SELECT (SELECT a FROM v ORDER BY b, a)",
      "SELECT (SELECT a FROM v ORDER BY a+1)",
      "SELECT x, (SELECT a FROM v ORDER BY r.x) FROM r",
      "SELECT (SELECT max(a) FROM v)",
      "SELECT (SELECT count(*) FROM v LIMIT 2)",
      "SELECT (SELECT DISTINCT b FROM v)",
      "SELECT (SELECT b FROM v GROUP BY b)",
      "SELECT x, (SELECT v.a FROM v, r AS r2 WHERE r2.x = v.b) FROM r",
      "SELECT x, (SELECT v.a FROM v LEFT JOIN r AS r2 ON 0) FROM r",
      "SELECT x, (SELECT a FROM v WHERE a+1 > r.x) FROM r",
      "SELECT x, EXISTS (SELECT 1 FROM v WHERE a > r.x) FROM r",
      "SELECT EXISTS (SELECT 1 FROM v LIMIT 3 OFFSET 2)",
      "SELECT (SELECT a FROM v LIMIT 1)",
      "SELECT (SELECT a FROM v LIMIT (1))",
      "SELECT (SELECT a FROM v LIMIT 0x1)",
      "SELECT (SELECT a FROM v LIMIT +1)",
      "SELECT (SELECT a FROM v LIMIT 1.0)",
      "SELECT NOT EXISTS (SELECT a FROM v WHERE a > 20)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > r.x + 7)",
      "SELECT x FROM r WHERE x > 0 AND EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > 8 LIMIT 5)",
      "SELECT x FROM r WHERE EXISTS (SELECT max(a) FROM v)",
      "SELECT x FROM r WHERE NOT EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT 1 WHERE EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > 8 ORDER BY b)",
      "SELECT x FROM r WHERE EXISTS (SELECT DISTINCT b FROM v)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v, r AS r2 WHERE a > 8)",
      "SELECT r.x FROM r LEFT JOIN r AS r2 ON EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT count(*) FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT x FROM r WHERE (EXISTS (SELECT 1 FROM v WHERE a > 8))",
      "SELECT (1, 1) = (SELECT a, b FROM v)",
      "SELECT x IN (SELECT a FROM v) FROM r",
      "SELECT * FROM r WHERE x = (SELECT a FROM v WHERE a > 1)",
      /* AND and OR run a side holding a subquery only when the other side
      ** (run first) does not decide: in WHERE and as a value. */
      "SELECT x FROM r WHERE x = 5 OR EXISTS (SELECT 1 FROM v WHERE a > 8)",
      "SELECT x FROM r WHERE x = 1 OR EXISTS (SELECT 1 FROM v WHERE a > r.x + 7)",
      "SELECT x FROM r WHERE EXISTS (SELECT 1 FROM v WHERE a > r.x + 7) OR x = 1",
      "SELECT x FROM r WHERE x > 1 AND (x = 2 OR EXISTS (SELECT 1 FROM v WHERE a = r.x))",
      "SELECT x FROM r WHERE NOT (x = 1 OR EXISTS (SELECT 1 FROM v WHERE a = r.x))",
      "SELECT x FROM r WHERE x = 1 OR x = 2 OR EXISTS (SELECT 1 FROM v WHERE a = r.x)",
      "SELECT x FROM r WHERE (x = 1 OR EXISTS (SELECT 1 FROM v WHERE a = r.x)) AND (x = 2 OR EXISTS (SELECT 1 FROM v WHERE b = r.x))",
      "SELECT x FROM r WHERE x = 2 OR (SELECT a FROM v WHERE a = r.x + 5) > 5",
      "SELECT x FROM r WHERE x IN (SELECT a FROM v WHERE a < 2) OR x = 2",
      "SELECT x, x = 1 OR EXISTS (SELECT 1 FROM v WHERE a > r.x + 7) FROM r",
      "SELECT x, EXISTS (SELECT 1 FROM v WHERE a > r.x + 7) AND x = 2 FROM r",
      "SELECT x, (SELECT a FROM v WHERE a > r.x + 7) OR x = 1 FROM r",
      "SELECT x, NULL OR EXISTS (SELECT 1 FROM v WHERE a = r.x) FROM r",
      "SELECT x, 0 AND EXISTS (SELECT 1 FROM v WHERE a = r.x) FROM r",
      NULL };
    for (p = 0; spols[p]; p++) {
      policy = spols[p];
      printf("=== one-row subqueries, policy '%s'\n", policy);
      for (i = 0; sqs[i]; i++) {
        sqlite3_stmt *st;
        printf("%s\n", sqs[i]);
        if (sqlite3_prepare_v2(db, sqs[i], -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); continue; }
        sqlite3_bind_int(st, 1, 2);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
          int k, n = sqlite3_column_count(st); printf("  ");
          for (k = 0; k < n; k++) { const unsigned char *t = sqlite3_column_text(st, k); printf("%s%s", k ? "|" : "", t ? (const char *)t : "NULL"); }
          printf("\n");
        }
        if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
        sqlite3_finalize(st);
      }
    }
  }
  /* Compound SELECTs: a UNION ALL with LIMIT and no ORDER BY runs its
  ** arms one after the other, sharing the LIMIT and OFFSET counters, and
  ** each arm's virtual table is offered the LIMIT when the compound has
  ** no OFFSET (a later arm is not started once the LIMIT is reached);
  ** UNION, EXCEPT, INTERSECT and a sorted compound offer none. */
  {
    static const char *const cpols[] = {"", "L", "X", NULL};
    static const char *const cqs[] = {
      "SELECT a FROM v UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v WHERE a > 5 LIMIT 4",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 3 OFFSET 1",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 3 OFFSET 3",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 1, 2",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 3 OFFSET 0",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT '3'",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 1+2",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT ?1",
      "SELECT a FROM v LIMIT ?1",
      "SELECT a FROM v LIMIT (?1)",
      "SELECT a FROM v LIMIT +?1",
      "SELECT a FROM v LIMIT 3 OFFSET ?1",
      "SELECT a FROM v WHERE a > ?1 LIMIT ?1",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 0",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT -1",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 2",
      "SELECT a FROM v UNION ALL SELECT a FROM v UNION ALL SELECT a FROM v LIMIT 12",
      "SELECT a FROM v WHERE a > 9 UNION ALL SELECT x FROM r UNION ALL SELECT a FROM v LIMIT 4",
      "SELECT x FROM r UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT a FROM v UNION ALL SELECT x FROM r LIMIT 3",
      "SELECT a FROM v WHERE b = 1 UNION ALL SELECT a FROM v WHERE a+1 > 9 LIMIT 5",
      "SELECT a FROM v UNION ALL SELECT a FROM v ORDER BY 1 LIMIT 3",
      "SELECT a FROM v UNION SELECT a FROM v LIMIT 3",
      "SELECT a FROM v UNION SELECT a FROM v UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT a FROM v UNION ALL SELECT a FROM v UNION SELECT a FROM v LIMIT 3",
      "SELECT a FROM v EXCEPT SELECT a FROM v WHERE a > 5 LIMIT 3",
      "SELECT count(*) FROM v UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT DISTINCT b FROM v UNION ALL SELECT a FROM v LIMIT 5",
      "SELECT a FROM v, r UNION ALL SELECT a FROM v LIMIT 3",
      "VALUES (0) UNION ALL SELECT a FROM v LIMIT 3",
      "SELECT a FROM v UNION ALL SELECT 0 LIMIT 3",
      "SELECT x FROM r WHERE x IN (SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT 3)",
      "SELECT (SELECT a FROM v UNION ALL SELECT a FROM v)",
      "SELECT (SELECT a FROM v WHERE a > 20 UNION ALL SELECT a FROM v)",
      "SELECT (SELECT a FROM v WHERE a > 9 UNION ALL SELECT a FROM v LIMIT 1 OFFSET 1)",
      "SELECT (SELECT a FROM v WHERE a > 9 UNION ALL SELECT a FROM v LIMIT 3)",
      "SELECT EXISTS (SELECT a FROM v WHERE a > 20 UNION ALL SELECT a FROM v)",
      "SELECT x, (SELECT a FROM v WHERE a > r.x + 7 UNION ALL SELECT a FROM v) FROM r",
      /* UNION, EXCEPT, INTERSECT: merged as if ordered by every column
      ** (the arms up to the last such operator are offered that order),
      ** a UNION with LIMIT 1 run arm by arm. */
      "SELECT a FROM v UNION SELECT a FROM v",
      "SELECT a, b FROM v INTERSECT SELECT a, b FROM v",
      "SELECT a, b FROM v EXCEPT SELECT a, b FROM v WHERE a > 3",
      "SELECT a FROM v UNION SELECT a FROM v LIMIT 1",
      "SELECT a FROM v UNION SELECT a FROM v LIMIT +1",
      "SELECT a FROM v UNION SELECT a FROM v LIMIT 1 OFFSET 0",
      "SELECT a FROM v UNION ALL SELECT a FROM v UNION SELECT b FROM v",
      "SELECT a FROM v UNION SELECT b FROM v UNION ALL SELECT c FROM v",
      "SELECT a FROM v UNION SELECT b FROM v UNION ALL SELECT c FROM v LIMIT 1",
      "SELECT a FROM v UNION SELECT b FROM v UNION ALL SELECT c FROM v LIMIT 12",
      "SELECT a FROM v EXCEPT SELECT b FROM v UNION ALL SELECT c FROM v LIMIT 3 OFFSET 2",
      "SELECT x FROM r INTERSECT SELECT a FROM v UNION ALL SELECT a FROM v UNION ALL SELECT b FROM v LIMIT 4",
      "SELECT a FROM v UNION SELECT b FROM v UNION ALL SELECT c FROM v ORDER BY 1 LIMIT 3",
      "SELECT x FROM r UNION SELECT a FROM v",
      "SELECT * FROM v UNION SELECT * FROM v",
      "SELECT (SELECT a FROM v UNION SELECT b FROM v)",
      "SELECT (SELECT a FROM v WHERE a > 20 UNION SELECT b FROM v LIMIT 3)",
      "SELECT (SELECT a FROM v EXCEPT SELECT b FROM v UNION ALL SELECT c FROM v)",
      /* A first arm `SELECT *` over a USING or NATURAL join: its width
      ** is known before it is compiled, the arms are offered the order. */
      "SELECT * FROM v JOIN r ON x = a UNION ALL SELECT a, b, c, a FROM v ORDER BY 1 LIMIT 2",
      "SELECT * FROM r AS r1 JOIN r AS r2 USING (x) UNION SELECT a FROM v ORDER BY 1 LIMIT 2",
      "SELECT * FROM r AS r1 NATURAL JOIN r AS r2 UNION ALL SELECT a FROM v ORDER BY 1 DESC LIMIT 2",
      "SELECT * FROM v NATURAL JOIN r UNION ALL SELECT a, b, c FROM v ORDER BY 1 LIMIT 2",
      "SELECT a FROM v UNION SELECT a, b FROM v",
      "VALUES (1) UNION ALL SELECT * FROM v",
      /* An EXISTS subquery reads its result columns (colUsed), unless
      ** SQLite makes the EXISTS a join. */
      "SELECT EXISTS (SELECT b FROM v)",
      "SELECT EXISTS (SELECT b FROM v UNION ALL SELECT a FROM v)",
      "SELECT EXISTS (SELECT c FROM v WHERE a > 20 UNION ALL SELECT b FROM v)",
      "SELECT x FROM r WHERE EXISTS (SELECT b FROM v WHERE a > r.x)",
      "SELECT x FROM r WHERE NOT EXISTS (SELECT c FROM v WHERE a > 8)",
      "SELECT x, EXISTS (SELECT c, b FROM v WHERE a > r.x) FROM r",
      NULL };
    for (p = 0; cpols[p]; p++) {
      policy = cpols[p];
      printf("=== compounds, policy '%s'\n", policy);
      for (i = 0; cqs[i]; i++) {
        sqlite3_stmt *st;
        printf("%s\n", cqs[i]);
        if (sqlite3_prepare_v2(db, cqs[i], -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); continue; }
        sqlite3_bind_int(st, 1, 2);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
          int k, n = sqlite3_column_count(st); printf("  ");
          for (k = 0; k < n; k++) { const unsigned char *t = sqlite3_column_text(st, k); printf("%s%s", k ? "|" : "", t ? (const char *)t : "NULL"); }
          printf("\n");
        }
        if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
        sqlite3_finalize(st);
      }
    }
  }
  /* A LIMIT that is a parameter: binding it makes the statement compile
  ** again (SQLITE_STMTSTATUS_REPREPARE), and then the virtual table sees
  ** the bound value (an integer from 0 to 2^31-1) as the LIMIT's. */
  {
    static const char *const rqs[] = { "SELECT a FROM v LIMIT ?1", "SELECT x FROM r LIMIT ?1", "SELECT a FROM v LIMIT 2 OFFSET ?1",
      "SELECT a FROM v WHERE a > 8 UNION ALL SELECT a FROM v LIMIT ?1", "SELECT x FROM r WHERE x > ?1", NULL };
    static const char *const binds[] = { "2", "3", "3", "'1'", "-1", "clear", "0", NULL };
    policy = "L";
    for (i = 0; rqs[i]; i++) {
      sqlite3_stmt *st; int b;
      printf("=== rebinding: %s\n", rqs[i]);
      if (sqlite3_prepare_v2(db, rqs[i], -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); continue; }
      for (b = 0; binds[b]; b++) {
        int rc;
        if (strcmp(binds[b], "clear") == 0) sqlite3_clear_bindings(st);
        else if (binds[b][0] == '\'') sqlite3_bind_text(st, 1, binds[b] + 1, -1, SQLITE_STATIC);
        else sqlite3_bind_int(st, 1, atoi(binds[b]));
        printf(" bind %s\n", binds[b]);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) printf("  %s\n", (const char *)sqlite3_column_text(st, 0));
        if (rc != SQLITE_DONE) printf("  step error %d: %s\n", rc, sqlite3_errmsg(db));
        printf("  reprepares=%d\n", sqlite3_stmt_status(st, SQLITE_STMTSTATUS_REPREPARE, 0));
        sqlite3_reset(st);
      }
      sqlite3_finalize(st);
    }
  }
  sqlite3_create_module(db, "om", &omModule, 0);
  run("CREATE VIRTUAL TABLE w USING om");
  for (om_rev = 0; om_rev < 2; om_rev++) {
    printf("=== omit, argvIndex %s\n", om_rev ? "descending" : "ascending");
    q("SELECT group_concat(rowid) FROM w WHERE c0=1 AND c1=1 AND c2=1 AND c3=1 AND c4=1 AND c5=1 AND c6=1 AND c7=1 AND c8=1 "
      "AND c9=1 AND c10=1 AND c11=1 AND c12=1 AND c13=1 AND c14=1 AND c15=1 AND c16=1 AND c17=1 AND c18=1 AND c19=1");
  }
  sqlite3_close(db);
  return 0;
}
