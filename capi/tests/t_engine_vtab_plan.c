/* What a virtual table's xBestIndex is given, and how often it is called,
** for many query shapes: single table, joins with a real table and with a
** second virtual table, subqueries, IN lists, OR, LIKE/GLOB/MATCH/REGEXP,
** IS/NULL tests, DISTINCT/GROUP BY/ORDER BY, LIMIT. The module "pv" logs
** every xBestIndex input (each constraint's column, operator, usable flag,
** sqlite3_vtab_rhs_value, sqlite3_vtab_in, a collation other than BINARY;
** the ORDER BY; colUsed; sqlite3_vtab_distinct) and its answer, and every
** xFilter with its arguments; the rows are printed too. Two policies: "plain"
** takes nothing; "eager" takes equality and range constraints on column a
** (omitted), an IN on a whole through sqlite3_vtab_in, and consumes an
** ORDER BY a. Table v has rows 1..6, w rows 1..4: a = n, b = n % 3,
** c = 'x' || n.
** Then 200 random queries over v (random_query) mix the shapes: IN lists
** and `IN (SELECT ...)`, row-value IN, comparisons and IS, row-value
** comparisons, LIKE/GLOB, BETWEEN, constant propagation (`a = 1 AND a > 2`),
** `x AND 0`, OR terms SQLite reads as IN or asks about per branch,
** correlated subqueries in the result (colUsed). Then USING across outer
** and CROSS joins, LIKE under PRAGMA case_sensitive_like (BINARY prefix
** bounds) and compounds whose ORDER BY SQLite offers to each arm (arms
** with `*` too; an aggregate arm is offered its GROUP BY).
** Then OR terms SQLite reads as the union of the module's plans for their
** branches (`a = 1 OR a > 4` under the eager policy: the planning calls per
** branch, the calls again per branch when the union is cheaper, one
** xFilter per branch, each row once, nested unions, EXPLAIN QUERY PLAN's
** MULTI-INDEX OR lines), in joins SQLite orders too.
** Shapes left out because ringlite differs (README, "Differences from
** SQLite", Virtual tables): EXISTS in WHERE (SQLite 3.54 makes it a join);
** subqueries, views and CTEs in FROM
** (SQLite flattens them or pushes WHERE terms into them); the join order of tables SQLite costs
** otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
static sqlite3 *db;
static int eager;
static void run(const char *sql) {
  sqlite3_stmt *st; const char *tail = sql;
  while (tail && *tail) {
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) { printf("  prepare error %d: %s\n", rc, sqlite3_errmsg(db)); return; }
    if (!st) break;
    if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_int(st, 1, 3);
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
/* EXPLAIN QUERY PLAN: each line's detail under its parent's (the ids are
** instruction addresses, not compared). */
static void plan(const char *sql) {
  sqlite3_stmt *st; int ids[64], depth[64], n = 0;
  printf("%s\n", sql);
  if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK) { printf("  prepare error: %s\n", sqlite3_errmsg(db)); return; }
  while (sqlite3_step(st) == SQLITE_ROW) {
    int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1), d = 0, i;
    for (i = 0; i < n; i++) if (ids[i] == parent) d = depth[i] + 1;
    if (n < 64) { ids[n] = id; depth[n] = d; n++; }
    printf("  %*s%s\n", 2 * d, "", (const char *)sqlite3_column_text(st, 3));
  }
  sqlite3_finalize(st);
}

typedef struct { sqlite3_vtab base; char name[8]; int rows; } T;
typedef struct { sqlite3_vtab_cursor base; int row, last; char set[16]; int useSet; } C;
static int xConnect(sqlite3 *d, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux;(void)err;
  sqlite3_declare_vtab(d, "CREATE TABLE x(a INTEGER, b, c TEXT, h HIDDEN)");
  T *t = sqlite3_malloc(sizeof *t); memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", argv[2]);
  t->rows = argc > 3 ? atoi(argv[3]) : 6;
  *pp = &t->base; return SQLITE_OK;
}
static int xDisconnect(sqlite3_vtab *v) { sqlite3_free(v); return SQLITE_OK; }
static void show(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: printf("i%s", sqlite3_value_text(v)); break;
    case SQLITE_FLOAT: printf("f%s", sqlite3_value_text(v)); break;
    case SQLITE_TEXT: printf("'%s'", sqlite3_value_text(v)); break;
    case SQLITE_BLOB: printf("blob%d", sqlite3_value_bytes(v)); break;
    default: printf("null");
  }
}
static int xBestIndex(sqlite3_vtab *vt, sqlite3_index_info *info) {
  T *t = (T *)vt; int i, n = 0, eq = 0, range = 0; char str[64] = "";
  printf("  [BI %s n=%d", t->name, info->nConstraint);
  for (i = 0; i < info->nConstraint; i++) {
    struct sqlite3_index_constraint *c = &info->aConstraint[i];
    sqlite3_value *rhs = 0; int rc = sqlite3_vtab_rhs_value(info, i, &rhs);
    const char *coll = sqlite3_vtab_collation(info, i);
    printf(" {%d op%d%s", c->iColumn, c->op, c->usable ? "" : " unusable");
    if (rc == SQLITE_OK) { printf(" rhs="); show(rhs); } else if (rc != SQLITE_NOTFOUND) printf(" rc=%d", rc);
    if (sqlite3_vtab_in(info, i, -1)) printf(" in");
    if (coll && strcmp(coll, "BINARY")) printf(" coll=%s", coll);
    printf("}");
  }
  printf(" ob=%d", info->nOrderBy);
  for (i = 0; i < info->nOrderBy; i++) printf(" %d%s", info->aOrderBy[i].iColumn, info->aOrderBy[i].desc ? "d" : "");
  printf(" distinct=%d colUsed=%llx", sqlite3_vtab_distinct(info), (unsigned long long)info->colUsed);
  if (eager) {
    for (i = 0; i < info->nConstraint; i++) {
      struct sqlite3_index_constraint *c = &info->aConstraint[i];
      char k = 0;
      if (!c->usable || c->iColumn != 0) continue;
      switch (c->op) {
        case SQLITE_INDEX_CONSTRAINT_EQ: k = sqlite3_vtab_in(info, i, 1) ? 'I' : '='; eq++; break;
        case SQLITE_INDEX_CONSTRAINT_GT: k = '>'; range++; break;
        case SQLITE_INDEX_CONSTRAINT_GE: k = 'G'; range++; break;
        case SQLITE_INDEX_CONSTRAINT_LT: k = '<'; range++; break;
        case SQLITE_INDEX_CONSTRAINT_LE: k = 'L'; range++; break;
        default: continue;
      }
      if (n >= 60) continue;
      info->aConstraintUsage[i].argvIndex = ++n;
      info->aConstraintUsage[i].omit = 1;
      str[n - 1] = k; str[n] = 0;
    }
    if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 0 && !info->aOrderBy[0].desc) info->orderByConsumed = 1;
  }
  info->idxNum = n;
  info->idxStr = sqlite3_mprintf("%s", str); info->needToFreeIdxStr = 1;
  info->estimatedCost = eq ? 10.0 : range ? 100.0 / range : 1000.0 + t->rows;
  info->estimatedRows = eq ? 1 : range ? 3 : t->rows;
  printf(" -> %s%s cost=%g]\n", str, info->orderByConsumed ? " ordered" : "", info->estimatedCost);
  return SQLITE_OK;
}
static int xOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) { (void)v; C *c = sqlite3_malloc(sizeof *c); memset(c, 0, sizeof *c); *pp = &c->base; return SQLITE_OK; }
static int xClose(sqlite3_vtab_cursor *c) { sqlite3_free(c); return SQLITE_OK; }
static int xFilter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv) {
  C *c = (C *)cur; T *t = (T *)cur->pVtab; int i; (void)num;
  c->row = 1; c->last = t->rows; c->useSet = 0; memset(c->set, 0, sizeof c->set);
  printf("  [F %s %s", t->name, str ? str : "(null)");
  for (i = 0; i < argc; i++) {
    char k = str ? str[i] : 0;
    sqlite3_value *v = argv[i];
    printf(" ");
    if (k == 'I') {
      sqlite3_value *x; int rc;
      printf("(");
      c->useSet = 1;
      for (rc = sqlite3_vtab_in_first(v, &x); rc == SQLITE_OK; rc = sqlite3_vtab_in_next(v, &x)) {
        show(x); printf(",");
        if (sqlite3_value_type(x) == SQLITE_INTEGER && sqlite3_value_int(x) >= 0 && sqlite3_value_int(x) < 16) c->set[sqlite3_value_int(x)] = 1;
      }
      printf(")");
      continue;
    }
    show(v);
    if (sqlite3_value_type(v) == SQLITE_NULL) { c->row = 1; c->last = 0; continue; }
    double d = sqlite3_value_double(v);
    int lo = (int)d, hi = (int)d;
    if ((double)lo < d) hi = lo + 1;
    if (d < 0) { lo = -1; hi = -1; }
    switch (k) {
      case '=': if ((double)lo != d) { c->last = 0; } else { if (lo > c->row) c->row = lo; if (lo < c->last) c->last = lo; } break;
      case '>': if (lo + 1 > c->row && (double)lo == d) c->row = lo + 1; else if (hi > c->row) c->row = hi; break;
      case 'G': if (hi > c->row) c->row = hi; break;
      case '<': if ((double)hi == d) { if (hi - 1 < c->last) c->last = hi - 1; } else if (lo < c->last) c->last = lo; break;
      case 'L': if (lo < c->last) c->last = lo; break;
    }
  }
  printf("]\n");
  while (c->row <= c->last && c->useSet && !c->set[c->row & 15]) c->row++;
  return SQLITE_OK;
}
static int xNext(sqlite3_vtab_cursor *cur) {
  C *c = (C *)cur; c->row++;
  while (c->row <= c->last && c->useSet && !c->set[c->row & 15]) c->row++;
  return SQLITE_OK;
}
static int xEof(sqlite3_vtab_cursor *cur) { C *c = (C *)cur; return c->row > c->last; }
static int xColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  C *c = (C *)cur;
  if (i == 0) sqlite3_result_int(ctx, c->row);
  else if (i == 1) sqlite3_result_int(ctx, c->row % 3);
  else if (i == 2) sqlite3_result_text(ctx, sqlite3_mprintf("x%d", c->row), -1, sqlite3_free);
  else sqlite3_result_null(ctx);
  return SQLITE_OK;
}
static int xRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *r) { *r = ((C *)cur)->row; return SQLITE_OK; }
static sqlite3_module mod = { 2, xConnect, xConnect, xBestIndex, xDisconnect, xDisconnect, xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid, 0,0,0,0,0,0,0,0,0,0,0,0 };

/* regexp and match as substring tests, so that REGEXP and MATCH resolve. */
static void substr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *pat = (const char *)sqlite3_value_text(argv[0]), *s = (const char *)sqlite3_value_text(argv[1]); (void)argc;
  if (!pat || !s) { sqlite3_result_null(ctx); return; }
  sqlite3_result_int(ctx, strstr(s, pat) != 0);
}

/* Random queries over v, from pieces of the shapes above: a
** deterministic generator (its own LCG, so both libraries see the same
** text), each query run under the current policy. */
static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static int pick(int n) { rng = rng * 6364136223846793005ULL + 1442695040888963407ULL; return (int)((rng >> 33) % (unsigned)n); }
static void random_term(char *out, size_t n) {
  static const char *const cols[] = { "a", "b", "c", "rowid" };
  static const char *const ops[] = { "=", "<", "<=", ">", ">=", "!=", "IS", "IS NOT" };
  int k = pick(3) + 1;
  switch (pick(17)) {
    case 0: snprintf(out, n, "%s %s %d", cols[pick(2)], ops[pick(8)], k + pick(4)); break;
    case 1: snprintf(out, n, "%d %s a", k, ops[pick(6)]); break;
    case 2: snprintf(out, n, "a IN (%d, %d)", k, k + 2); break;
    case 3: snprintf(out, n, "%s IN (SELECT x FROM r%s)", pick(2) ? "a" : "b", pick(2) ? "" : " WHERE x > 1"); break;
    case 4: snprintf(out, n, "a %sIN (SELECT %d UNION SELECT %d)", pick(4) ? "" : "NOT ", k, k + 3); break;
    case 5: snprintf(out, n, "(a, b) %s (%d, %d)", ops[1 + pick(4)], k + 1, pick(3)); break;
    case 6: snprintf(out, n, "(a, b) %s (%d, %d)", pick(2) ? "=" : "IS", k, k % 3); break;
    case 7: snprintf(out, n, "(%s) IN (SELECT x, x %% 3 FROM r)", pick(2) ? "a, b" : "b, a"); break;
    case 8: snprintf(out, n, "c %s 'x%d%s'", pick(2) ? "LIKE" : "GLOB", k, pick(2) ? "%" : "*"); break;
    case 9: snprintf(out, n, "a BETWEEN %d AND %d", k, k + 2); break;
    case 10: snprintf(out, n, "b IS %sNULL", pick(2) ? "NOT " : ""); break;
    case 11: snprintf(out, n, "a = %d AND a %s %d", k, ops[pick(6)], k + pick(3)); break;
    case 12: snprintf(out, n, "%s", pick(2) ? "0" : "1"); break;
    case 13: snprintf(out, n, "a + 0 > %d", k); break;
    case 14: snprintf(out, n, "(a = %d OR %d = a)", k, k + 2); break;
    case 15: snprintf(out, n, "(a = %d OR b = 1)", k); break;
    default: snprintf(out, n, "(c = 'x%d' OR c = 'x%d')", k, k + 1); break;
  }
}
static void random_query(char *out, size_t n) {
  static const char *const sel[] = { "a", "a, b", "*", "c", "count(*)", "a, (SELECT count(*) FROM r WHERE r.x < v.c)", "b, (SELECT max(x) FROM r WHERE r.x = v.a)" };
  static const char *const tail[] = { "", "", " ORDER BY a", " ORDER BY a DESC", " ORDER BY b, a", " LIMIT 2" };
  char t1[160], t2[160], t3[160];
  int nterms = pick(4), s = pick(7);
  random_term(t1, sizeof t1); random_term(t2, sizeof t2); random_term(t3, sizeof t3);
  snprintf(out, n, "SELECT %s FROM v%s%s%s%s%s%s%s", sel[s], nterms ? " WHERE " : "", nterms ? t1 : "",
    nterms > 1 ? " AND " : "", nterms > 1 ? t2 : "", nterms > 2 ? " AND " : "", nterms > 2 ? t3 : "",
    s == 4 ? "" : tail[pick(6)]);
}

int main(void) {
  static const char *const qs[] = {
    /* one table: comparisons and what rhs_value sees */
    "SELECT a FROM v",
    "SELECT * FROM v WHERE a = 3",
    "SELECT a FROM v WHERE 3 = a",
    "SELECT a FROM v WHERE a > 2 AND a <= 4",
    "SELECT a FROM v WHERE 2 < a",
    "SELECT a FROM v WHERE a BETWEEN 2 AND 4",
    "SELECT a FROM v WHERE a = '3'",
    "SELECT a FROM v WHERE a = x'03'",
    "SELECT a FROM v WHERE a = 1+2",
    "SELECT a FROM v WHERE a = ?1",
    "SELECT a FROM v WHERE a = abs(-3)",
    "SELECT a FROM v WHERE a = random() % 1",
    "SELECT a FROM v WHERE a = b",
    "SELECT a FROM v WHERE a + 0 = 3",
    "SELECT a FROM v WHERE a > 1 AND a > 2 AND b = 0",
    "SELECT a FROM v WHERE a != 3 AND NOT a = 4 AND a <> 5",
    "SELECT a FROM v WHERE 1 AND a = 3",
    "SELECT a FROM v WHERE (a, b) = (3, 0)",
    "SELECT a FROM v WHERE rowid = 3",
    "SELECT a FROM v WHERE rowid > 4",
    "SELECT a, c FROM v WHERE c = 'X3' COLLATE nocase",
    "SELECT a, c FROM v WHERE c COLLATE nocase = 'X3'",
    /* IN */
    "SELECT a FROM v WHERE a IN (2, 4, 6)",
    "SELECT a FROM v WHERE a IN (4)",
    "SELECT a FROM v WHERE a IN ()",
    "SELECT a FROM v WHERE a NOT IN (1, 2)",
    "SELECT a FROM v WHERE a IN (2, 4) AND b IN (1, 2)",
    "SELECT a FROM v WHERE a IN (SELECT x FROM r)",
    "SELECT a FROM v WHERE a IN (SELECT NULL UNION SELECT 2)",
    "SELECT a FROM v WHERE b IN (SELECT x FROM r) AND a > 1",
    "SELECT a FROM v WHERE a NOT IN (SELECT x FROM r)",
    "SELECT a FROM v WHERE a IN (SELECT x FROM r WHERE x > v.b)",
    "SELECT a FROM v WHERE (a, b) IN (SELECT x, x % 3 FROM r)",
    "SELECT a FROM v WHERE (a, b + 0) IN (SELECT x, x FROM r)",
    "SELECT a FROM v WHERE (a, b) IN (VALUES (1, 1))",
    "SELECT a FROM v WHERE (a, b) IN (VALUES (1, 1), (3, 0))",
    "SELECT a FROM v WHERE (a, b) IN (SELECT x, x FROM r UNION SELECT 2, 2)",
    /* row values, constant propagation, AND 0 */
    "SELECT a FROM v WHERE (a, b) > (3, 0)",
    "SELECT a FROM v WHERE (3, 0) >= (a, b)",
    "SELECT a FROM v WHERE (a, b) IS (3, 0)",
    "SELECT a FROM v WHERE (a, b + 0) = (1, 2)",
    "SELECT a FROM v WHERE a = 3 AND 0",
    "SELECT a FROM v WHERE c LIKE 'x%' AND 0",
    "SELECT a FROM v WHERE 0",
    "SELECT a FROM v WHERE a = 3 AND a = 4",
    "SELECT a FROM v WHERE a = 3 AND a > 4",
    "SELECT a FROM v WHERE a = 3 AND 2 < a",
    "SELECT a FROM v WHERE b = 3 AND b = 4",
    "SELECT a FROM v WHERE a = 3 AND false",
    "SELECT * FROM r LEFT JOIN v ON v.a = 3 AND v.a = 4",
    /* NULL tests and IS */
    "SELECT a FROM v WHERE a IS 3",
    "SELECT a FROM v WHERE a IS NOT 3",
    "SELECT a FROM v WHERE a IS NULL",
    "SELECT a FROM v WHERE a IS NOT NULL AND b ISNULL",
    "SELECT a FROM v WHERE a NOTNULL",
    "SELECT a FROM v WHERE a = NULL",
    "SELECT a FROM v WHERE NULL = a",
    /* LIKE, GLOB, MATCH, REGEXP */
    "SELECT a FROM v WHERE c LIKE 'x1%'",
    "SELECT a FROM v WHERE c LIKE 'X1'",
    "SELECT a FROM v WHERE c GLOB 'x1*'",
    "SELECT a FROM v WHERE c LIKE 'x1%' ESCAPE '^'",
    "SELECT a FROM v WHERE c NOT LIKE 'x1%'",
    "SELECT a FROM v WHERE 'x1' LIKE c",
    "SELECT a FROM v WHERE c MATCH 'x2'",
    "SELECT a FROM v WHERE c REGEXP 'x2'",
    "SELECT a FROM v WHERE c NOT GLOB 'x1*'",
    "SELECT a FROM v WHERE like('x1%', c)",
    "SELECT a FROM v WHERE glob('x1*', c)",
    /* OR */
    "SELECT a FROM v WHERE a = 1 OR a = 3",
    "SELECT a FROM v WHERE a = 1 OR 3 = a OR a = 5",
    "SELECT a FROM v WHERE (a = 1 OR a = 3) AND b = 0",
    "SELECT a FROM v WHERE (a = 1 OR a = 3) AND c LIKE 'x%'",
    "SELECT a FROM v WHERE a = 1 OR b = 2",
    "SELECT a FROM v WHERE a = '1' OR a = 3",
    "SELECT a FROM v WHERE c = 'x1' OR c = 'x3'",
    "SELECT a FROM v WHERE a = 1 OR a = 3 ORDER BY a",
    "SELECT a FROM v WHERE a = 1 OR a = 3 LIMIT 1",
    "SELECT a FROM v WHERE a IS 1 OR a IS 3",
    "SELECT a FROM v WHERE a = 1 OR a + 0 = 3",
    /* colUsed with subqueries */
    "SELECT a, (SELECT count(*) FROM r WHERE r.x < v.c) FROM v",
    "SELECT a FROM v WHERE a > (SELECT min(x) FROM r WHERE r.x < v.b)",
    /* hidden columns, table-valued function syntax */
    "SELECT a FROM v WHERE h = 'q'",
    "SELECT a, h FROM v('q')",
    "SELECT a FROM v('q') WHERE a = 2",
    /* ORDER BY, DISTINCT, GROUP BY, aggregates */
    "SELECT a FROM v ORDER BY a",
    "SELECT a FROM v ORDER BY a DESC",
    "SELECT a FROM v ORDER BY b, a",
    "SELECT a FROM v ORDER BY a, 'k'",
    "SELECT a FROM v ORDER BY 'k', a",
    "SELECT a FROM v ORDER BY a, NULL",
    "SELECT a FROM v ORDER BY a NULLS LAST",
    "SELECT a FROM v ORDER BY a DESC NULLS FIRST",
    "SELECT a FROM v ORDER BY c COLLATE nocase",
    "SELECT a FROM v ORDER BY c COLLATE binary",
    "SELECT a FROM v ORDER BY rowid",
    "SELECT a FROM v ORDER BY a + 1",
    "SELECT a FROM v ORDER BY 1",
    "SELECT DISTINCT b FROM v",
    "SELECT DISTINCT b FROM v ORDER BY b",
    "SELECT DISTINCT b FROM v ORDER BY b DESC",
    "SELECT DISTINCT a, b FROM v ORDER BY b",
    "SELECT DISTINCT b, a FROM v",
    "SELECT DISTINCT b FROM v WHERE a > 2",
    "SELECT DISTINCT rowid, b FROM v",
    "SELECT b FROM v GROUP BY b",
    "SELECT b, count(*) FROM v GROUP BY b ORDER BY b",
    "SELECT b, count(*) FROM v GROUP BY b ORDER BY b DESC",
    "SELECT b, count(*) FROM v GROUP BY b ORDER BY count(*)",
    "SELECT b, c FROM v GROUP BY b, c",
    "SELECT count(DISTINCT b) FROM v",
    "SELECT count(*) FROM v",
    "SELECT max(a) FROM v",
    "SELECT min(a) FROM v",
    "SELECT a FROM v ORDER BY a LIMIT 2",
    "SELECT a FROM v WHERE a > 2 LIMIT 2 OFFSET 1",
    "SELECT DISTINCT b FROM v LIMIT 2",
    /* joins with a real table */
    "SELECT * FROM r LEFT JOIN v ON v.a = r.x",
    "SELECT * FROM v LEFT JOIN r ON v.a = r.x",
    "SELECT * FROM r CROSS JOIN v WHERE v.a = r.x",
    "SELECT * FROM v CROSS JOIN r WHERE v.a = r.x",
    "SELECT * FROM r, v WHERE v.a > r.x AND v.a < 4 ORDER BY v.a",
    "SELECT * FROM v, r WHERE r.x = 2 ORDER BY v.a",
    "SELECT r.x, v.a FROM r, v('q') WHERE v.a = 1",
    "SELECT r.x, v.a FROM r, v WHERE v.h = r.x AND v.a = 1",
    /* two virtual tables */
    "SELECT * FROM v, w WHERE v.a = w.a",
    "SELECT * FROM v, w WHERE v.a = w.b AND w.a = 2",
    "SELECT * FROM r, v, w WHERE v.a = r.x AND w.a = v.b",
    "SELECT * FROM v LEFT JOIN w ON w.a = v.a AND w.b = 1",
    /* subqueries around a virtual table */
    "SELECT * FROM (SELECT a, b FROM v LIMIT 5) WHERE a = 3",
    "SELECT * FROM r WHERE x IN (SELECT a FROM v WHERE b = 1)",
    "SELECT x, (SELECT count(*) FROM v WHERE v.a = r.x) FROM r",
    "SELECT * FROM r WHERE EXISTS (SELECT 1 FROM v WHERE v.a = r.x)",
    "WITH c AS MATERIALIZED (SELECT * FROM v) SELECT * FROM c WHERE a = 2",
    "SELECT * FROM r, (SELECT a FROM v LIMIT 4) s WHERE s.a = r.x",
    NULL };
  /* Joins whose order depends on how a real table's scan compares with
  ** the module's costs (SQLite's 3.0 x rows for a full scan). */
  static const char *const join_orders[] = {
    "SELECT * FROM r, v WHERE v.a = r.x",
    "SELECT * FROM v, r WHERE v.a = r.x",
    "SELECT * FROM r JOIN v ON v.a = r.x + 1",
    "SELECT * FROM r, v WHERE v.a IN (r.x, 5)",
    NULL };
  /* USING across outer and CROSS joins (not offered to the left table),
  ** LIKE under case_sensitive_like, a compound's ORDER BY offered to
  ** its arms. */
  static const char *const joins_compounds[] = {
    "SELECT * FROM v LEFT JOIN s USING (a)",
    "SELECT * FROM s LEFT JOIN v USING (a)",
    "SELECT * FROM v CROSS JOIN s USING (b)",
    "PRAGMA case_sensitive_like = 1",
    "SELECT a FROM v WHERE c LIKE 'x1%'",
    "SELECT a FROM v WHERE c LIKE 'X1%'",
    "SELECT a FROM v WHERE c LIKE 'x1'",
    "SELECT a FROM v WHERE c GLOB 'x1*'",
    "SELECT a FROM v WHERE like('x1%', c)",
    "SELECT a FROM v WHERE c LIKE 'x1%' ESCAPE '^'",
    "PRAGMA case_sensitive_like = 0",
    "SELECT a FROM v WHERE c LIKE 'x1%'",
    "SELECT a FROM v UNION SELECT a FROM w ORDER BY 1",
    "SELECT a FROM v UNION ALL SELECT a FROM w ORDER BY a",
    "SELECT a FROM v UNION ALL SELECT a FROM w ORDER BY 1 DESC",
    "SELECT a, b FROM v UNION SELECT b, a FROM w ORDER BY 2",
    "SELECT a FROM v INTERSECT SELECT a FROM w ORDER BY 1",
    "SELECT a FROM v EXCEPT SELECT b FROM w ORDER BY 1",
    "SELECT a FROM v UNION ALL SELECT a FROM w ORDER BY 1 LIMIT 2",
    "SELECT a FROM v UNION ALL SELECT x FROM r ORDER BY 1",
    "SELECT a FROM v WHERE a > 2 UNION SELECT a FROM w WHERE a < 3 ORDER BY 1",
    "SELECT a FROM v UNION SELECT a FROM w UNION ALL SELECT a FROM v ORDER BY 1",
    "SELECT a AS k, b FROM v UNION ALL SELECT b, a FROM w ORDER BY k DESC",
    "SELECT a, b FROM v UNION ALL SELECT a, b FROM w UNION SELECT b, a FROM v ORDER BY b",
    "SELECT c FROM v UNION SELECT c FROM w ORDER BY 1 COLLATE nocase",
    "SELECT * FROM (SELECT a FROM v UNION ALL SELECT a FROM w ORDER BY 1) LIMIT 3",
    "SELECT a AS k FROM v UNION SELECT a FROM w ORDER BY a",
    "SELECT a + 1 FROM v UNION ALL SELECT a FROM w ORDER BY a + 1",
    "SELECT a FROM v UNION ALL SELECT b AS z FROM w ORDER BY z",
    "SELECT v.a FROM v UNION ALL SELECT a FROM w ORDER BY a",
    "SELECT a FROM v EXCEPT SELECT b FROM w ORDER BY b",
    "SELECT a, b FROM v UNION SELECT a, c FROM w ORDER BY c, 1",
    "SELECT a, b FROM v UNION ALL SELECT a, b FROM w ORDER BY b + 0",
    "SELECT 1, 2 UNION ALL SELECT a, b FROM v ORDER BY b",
    "SELECT a, b FROM v UNION SELECT a, b FROM w ORDER BY 2, a DESC",
    /* arms with `*`, aggregate arms (offered their GROUP BY) */
    "SELECT * FROM v UNION ALL SELECT * FROM w ORDER BY 1",
    "SELECT * FROM v UNION SELECT * FROM w ORDER BY 2",
    "SELECT *, 1 FROM v UNION ALL SELECT a, b, c, 2 FROM w ORDER BY 1",
    "SELECT a, b, c FROM v UNION ALL SELECT * FROM w ORDER BY 1",
    "SELECT v.* FROM v UNION ALL SELECT * FROM w ORDER BY 1",
    "SELECT b, count(*) FROM v GROUP BY b UNION ALL SELECT a, b FROM w ORDER BY 1",
    "SELECT a, count(*) FROM v GROUP BY a UNION ALL SELECT a, b FROM w ORDER BY 1",
    "SELECT max(a) FROM v UNION SELECT a FROM w ORDER BY 1",
    "SELECT count(*) FROM v UNION ALL SELECT a FROM w ORDER BY 1",
    "SELECT b FROM v GROUP BY b UNION ALL SELECT a FROM w ORDER BY 1",
    "SELECT DISTINCT b FROM v UNION ALL SELECT a FROM w ORDER BY 1",
    "SELECT DISTINCT a FROM v UNION ALL SELECT a FROM w ORDER BY 1",
    /* UNION ALL without ORDER BY: each arm's rows come before the next
    ** arm's xFilter */
    "SELECT a FROM v UNION ALL SELECT a FROM w",
    "SELECT a FROM v WHERE a < 3 UNION ALL SELECT x FROM r UNION ALL SELECT b FROM w WHERE a = 2",
    "SELECT * FROM v UNION ALL SELECT * FROM w",
    "SELECT x, (SELECT a + 0 FROM v WHERE a + 0 > r.x UNION ALL SELECT 9) FROM r",
    "SELECT * FROM r WHERE x IN (SELECT a FROM v WHERE a > 2 UNION ALL SELECT b FROM w)",
    "SELECT a FROM v UNION ALL SELECT a FROM w WHERE a = (SELECT max(x) FROM r)",
    NULL };
  /* Inner USING/NATURAL joins (each equality offered once, to the left
  ** table as to the right one, in SQLite's order; the planner may read
  ** the right table outside) and self-joins. */
  static const char *const using_joins[] = {
    "SELECT * FROM v AS v1 JOIN v AS v2 USING (a)",
    "SELECT * FROM v NATURAL JOIN w",
    "SELECT * FROM v JOIN w USING (a, b)",
    "SELECT * FROM v JOIN w USING (c, a)",
    "SELECT * FROM v JOIN s USING (a)",
    "SELECT * FROM s JOIN v USING (a)",
    "SELECT * FROM v NATURAL JOIN s",
    "SELECT * FROM s NATURAL JOIN v",
    "SELECT v.a FROM v JOIN s USING (a) WHERE v.a > 1",
    "SELECT * FROM r, v JOIN s USING (a) WHERE v.b = r.x",
    "SELECT * FROM v JOIN s USING (a) JOIN w USING (b)",
    "SELECT count(*) FROM v AS v1 NATURAL JOIN v AS v2",
    "SELECT * FROM v AS v1, v AS v2 WHERE v1.a = v2.b",
    "SELECT * FROM v AS v1, v AS v2 WHERE v1.a = v2.a AND v2.b = 1",
    "SELECT * FROM r, v AS v1, v AS v2 WHERE v1.a = r.x AND v2.a = v1.b",
    NULL };
  /* OR terms read by union (under the eager policy: the branches' plans
  ** are cheaper than a scan). */
  static const char *const or_unions[] = {
    "SELECT a FROM v WHERE a = 1 OR b = 2",
    "SELECT a FROM v WHERE a = 1 OR a > 4",
    "SELECT * FROM v WHERE a = 1 OR a > 4",
    "SELECT a FROM v WHERE a < 2 OR a > 4",
    "SELECT a FROM v WHERE (a < 2 OR a > 4) AND b = 1",
    "SELECT a FROM v WHERE a < 3 OR a > 1",
    "SELECT a FROM v WHERE a = 1 OR a > 4 ORDER BY a",
    "SELECT a FROM v WHERE a = 1 OR a > 4 ORDER BY a DESC",
    "SELECT a FROM v WHERE a = 1 OR a > 4 ORDER BY b",
    "SELECT a FROM v WHERE (a = 1 AND b = 1) OR a > 4",
    "SELECT a FROM v WHERE a = 1 OR a > 4 LIMIT 2",
    "SELECT a FROM v WHERE a = 1 OR a > 4 LIMIT 2 OFFSET 1",
    "SELECT DISTINCT b FROM v WHERE a = 1 OR a > 4",
    "SELECT count(*) FROM v WHERE a = 1 OR a > 4",
    "SELECT max(a) FROM v WHERE a = 1 OR a > 4",
    "SELECT a FROM v WHERE a IN (1, 2) OR a > 4",
    "SELECT a FROM v WHERE a = 1 OR a > 4 OR a < 0",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND (a = 2 OR a > 5)",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND (b = 2 OR b > 5)",
    "SELECT a FROM v WHERE a > 5 OR a = (SELECT max(x) FROM r)",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND b IN (SELECT x FROM r)",
    "SELECT * FROM r LEFT JOIN v ON v.a = 1 OR v.a > 4",
    "SELECT x, (SELECT count(*) FROM v WHERE v.a = r.x OR v.a > 5) FROM r",
    "SELECT * FROM r WHERE x IN (SELECT a FROM v WHERE a = 1 OR a > 4)",
    "SELECT a FROM v WHERE rowid = 1 OR a > 4",
    "SELECT a FROM v WHERE a = 1 OR a > 4 OR b = 1",
    "SELECT a, b FROM v WHERE a >= 3 OR a < 2 ORDER BY b, a",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND c LIKE 'x%'",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND a != 6",
    "SELECT a FROM v WHERE (a = 1 OR a > 4) AND a + 0 > 0 AND (a, b) IS NOT (3, 0)",
    "SELECT a FROM v('q') WHERE a = 1 OR a > 4",
    "SELECT a FROM v WHERE h = 'q' AND (a = 1 OR a > 4)",
    "UPDATE s SET b = 9 WHERE a IN (SELECT a FROM v WHERE a = 1 OR a > 4)",
    "SELECT * FROM s",
    NULL };
  /* OR terms on a virtual table in a join SQLite orders: the branches
  ** asked as in a join (per set of tables the plans need), the union
  ** costed against the table's plans and the other tables' loops, each
  ** branch asked again when the union is read (other tables' terms ANDed
  ** to it, usable when outside), nested unions inside a branch. */
  static const char *const or_joins[] = {
    "SELECT * FROM r, v WHERE v.a = r.x OR v.a > 4",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND r.x = 2",
    "SELECT * FROM r, v WHERE v.a = 1 OR v.a > 4",
    "SELECT * FROM v, r WHERE v.a = 1 OR v.a > 4",
    "SELECT * FROM v, w WHERE v.a = w.a OR v.a > 5",
    "SELECT * FROM v, w WHERE (v.a = 1 OR v.a > 4) AND w.a = v.b",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND r.x = v.b",
    "SELECT * FROM r, v WHERE (v.a = r.x OR v.a > 4) AND r.x > 1",
    "SELECT * FROM v, w WHERE (v.a = 1 OR v.a > 4) AND (w.a = 2 OR w.a > 3)",
    "SELECT * FROM v, w WHERE (v.a = w.b OR v.a > 4) AND (w.a = 2 OR w.a > 3)",
    "SELECT * FROM v, w WHERE (v.a = 1 OR v.a > 4) AND w.a = v.b ORDER BY v.a",
    "SELECT * FROM v, w WHERE (v.a = 1 OR v.a > 4) AND w.a = v.b ORDER BY w.a",
    "SELECT v.a, w.a FROM v JOIN w ON v.a = 1 OR v.a > 4 WHERE v.b = w.a",
    "SELECT * FROM r, v WHERE (v.a = 1 AND v.b = 1) OR v.a > 4",
    "SELECT * FROM r, v WHERE v.a = 1 OR v.b = 2",
    "SELECT * FROM r, v WHERE v.a IN (1, 2) OR v.a > 4",
    "SELECT count(*) FROM r, v WHERE v.a = 1 OR v.a > 4",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND v.c LIKE 'x%'",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND v.a != r.x",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND v.b IN (SELECT x FROM r)",
    "SELECT * FROM r, v WHERE (v.a = 1 OR v.a > 4) AND (v.a = 2 OR v.a > 5)",
    "SELECT * FROM r, v('q') WHERE v.a = 1 OR v.a > 4",
    "SELECT * FROM s, v WHERE v.a = s.a OR v.a > 5",
    "SELECT * FROM s, v WHERE v.a = s.a + 1 OR v.a = s.b",
    "SELECT * FROM r, v WHERE v.a = r.x OR v.a = r.x + 2",
    /* two combined bounds from one column comparison in both branches
    ** (the bound and its commuted copy's), taken by the module */
    "SELECT * FROM r, v WHERE (v.a = r.x AND v.b = 1) OR (v.a = r.x AND v.c = 'x4')",
    "SELECT * FROM r, v WHERE (v.a = r.x AND v.b = 1) OR (v.a = r.x AND v.b = 2)",
    "SELECT * FROM r LEFT JOIN v ON (v.a = r.x AND v.b = 1) OR (v.a = r.x AND v.b = 2)",
    "SELECT * FROM r, v WHERE (v.a >= r.x AND v.b = 1) OR (v.a > r.x AND v.b = 2)",
    "EXPLAIN QUERY PLAN SELECT * FROM r, v WHERE (v.a = r.x AND v.b = 1) OR (v.a = r.x AND v.c = 'x4')",
    /* the bound SQLite combines from a two-way OR, offered last */
    "SELECT a FROM v WHERE a = 6 OR a < 6",
    "SELECT a FROM v WHERE (a = 5 OR a > 5) AND b = 1",
    "SELECT a FROM v WHERE b = 1 AND (a > 2 OR (a = 2 AND b > 0)) AND c LIKE 'x%'",
    "SELECT a FROM v WHERE (a = 2 AND c = 'x2') OR (a = 2 AND b = 1)",
    "SELECT a FROM v WHERE 6 = a OR a < 6",
    "SELECT a FROM v WHERE 6 = a OR 6 > a",
    "SELECT a FROM v WHERE a >= 5 OR a > 5",
    "SELECT a FROM v WHERE a = 5 OR a = 6",
    "SELECT * FROM r, v WHERE v.a = r.x OR v.a < r.x",
    "EXPLAIN QUERY PLAN SELECT * FROM r, v WHERE v.a = r.x OR v.a > 4",
    "EXPLAIN QUERY PLAN SELECT * FROM v, w WHERE (v.a = 1 OR v.a > 4) AND (w.a = 2 OR w.a > 3)",
    "EXPLAIN QUERY PLAN SELECT * FROM v, w WHERE v.a = w.a OR v.a > 5",
    NULL };
  static const char *const or_plans[] = {
    "EXPLAIN QUERY PLAN SELECT a FROM v WHERE a = 1 OR a > 4",
    "EXPLAIN QUERY PLAN SELECT a FROM v WHERE (a = 1 OR a > 4) AND (a = 2 OR a > 5)",
    "EXPLAIN QUERY PLAN SELECT a FROM v WHERE a = 1 OR a > 4 ORDER BY a",
    "EXPLAIN QUERY PLAN SELECT a FROM v WHERE a = 1 OR b = 2",
    NULL };
  int i;
  sqlite3_open(":memory:", &db);
  sqlite3_create_module(db, "pv", &mod, 0);
  sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8, 0, substr_fn, 0, 0);
  sqlite3_create_function(db, "match", 2, SQLITE_UTF8, 0, substr_fn, 0, 0);
  run("CREATE VIRTUAL TABLE v USING pv; CREATE VIRTUAL TABLE w USING pv(4); CREATE TABLE r(x); INSERT INTO r VALUES (1),(2),(3);"
      "CREATE TABLE s(a, b); INSERT INTO s VALUES (1, 1), (2, 2), (5, 2)");
  for (eager = 0; eager < 2; eager++) {
    printf("=== policy %s\n", eager ? "eager" : "plain");
    for (i = 0; qs[i]; i++) q(qs[i]);
    for (i = 0; join_orders[i]; i++) q(join_orders[i]);
    for (i = 0; joins_compounds[i]; i++) q(joins_compounds[i]);
    for (i = 0; using_joins[i]; i++) q(using_joins[i]);
  }
  for (eager = 0; eager < 2; eager++) {
    printf("=== or unions, policy %s\n", eager ? "eager" : "plain");
    for (i = 0; or_unions[i]; i++) q(or_unions[i]);
    for (i = 0; or_plans[i]; i++) plan(or_plans[i]);
    for (i = 0; or_joins[i]; i++) {
      if (!strncmp(or_joins[i], "EXPLAIN QUERY PLAN ", 19)) plan(or_joins[i]); else q(or_joins[i]);
    }
  }
  /* 200 random queries, alternating the policies. */
  for (i = 0; i < 200; i++) {
    char sql[600];
    eager = i & 1;
    random_query(sql, sizeof sql);
    printf("=== random %d %s\n", i, eager ? "eager" : "plain");
    q(sql);
  }
  sqlite3_close(db);
  return 0;
}
