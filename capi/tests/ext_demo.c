/* A loadable extension for the tests, compiled against the system's
** sqlite3ext.h into libdemoext.so (run.sh). It uses the library only
** through the sqlite3_api_routines table it is handed.
**
** Entry points:
**   sqlite3_demoext_init   the default one derived from "libdemoext.so"
**                          or "demoext.so": scalar half(), aggregate
**                          product(), collation "rev", and a nested
**                          statement recording the load in temp.demo_log;
**   demo_alt_init          the same under other names (explicit entry);
**   demo_fail_init         fails with a message made by sqlite3_mprintf;
**   demo_fail_quiet_init   fails without a message;
**   demo_permanent_init    succeeds with SQLITE_OK_LOAD_PERMANENTLY;
**   demo_busy_init         fails with SQLITE_BUSY and a message;
**   demo_more_init         the API real extensions lean on: auxdata,
**                          pointer values, blob I/O and a nested statement
**                          from a function, overload_function, a collation
**                          with a destructor, subtypes, and the virtual
**                          table module demo_range.
** There is deliberately no sqlite3_extension_init. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <stdlib.h>
#include <string.h>
#ifndef SQLITE_RESULT_SUBTYPE /* newer than the system header (3.40.1) */
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

static void half_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sqlite3_result_double(ctx, sqlite3_value_double(argv[0]) / 2.0);
}

/* upper-cases ASCII, shows user data and a text result with a destructor */
static void shout_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const unsigned char *z = sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]), i;
  char *out;
  (void)argc;
  if (z == 0) return;
  out = sqlite3_malloc(n + 2);
  if (out == 0) { sqlite3_result_error_nomem(ctx); return; }
  for (i = 0; i < n; i++) out[i] = (z[i] >= 'a' && z[i] <= 'z') ? z[i] - 32 : z[i];
  out[n] = *(const char *)sqlite3_user_data(ctx);
  out[n + 1] = 0;
  sqlite3_result_text(ctx, out, n + 1, sqlite3_free);
}

typedef struct { sqlite3_int64 prod; int n; } Product;

static void product_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  Product *p = sqlite3_aggregate_context(ctx, sizeof(*p));
  (void)argc;
  if (p == 0) return;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (p->n++ == 0) p->prod = 1;
  p->prod *= sqlite3_value_int64(argv[0]);
}

static void product_final(sqlite3_context *ctx) {
  Product *p = sqlite3_aggregate_context(ctx, 0);
  if (p == 0 || p->n == 0) { sqlite3_result_null(ctx); return; }
  sqlite3_result_int64(ctx, p->prod);
}

static int rev_collate(void *arg, int n1, const void *a, int n2, const void *b) {
  int n = n1 < n2 ? n1 : n2, c = memcmp(a, b, n);
  (void)arg;
  if (c == 0) c = n1 - n2;
  return -c;
}

static int register_all(sqlite3 *db, char **pzErrMsg, const char *suffix) {
  static const char bang = '!';
  char name[64];
  int rc;
  sqlite3_snprintf(sizeof(name), name, "half%s", suffix);
  rc = sqlite3_create_function(db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, half_func, 0, 0);
  if (rc == SQLITE_OK) {
    sqlite3_snprintf(sizeof(name), name, "shout%s", suffix);
    rc = sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8, (void *)&bang, shout_func, 0, 0, 0);
  }
  if (rc == SQLITE_OK) {
    sqlite3_snprintf(sizeof(name), name, "product%s", suffix);
    rc = sqlite3_create_function(db, name, 1, SQLITE_UTF8, 0, 0, product_step, product_final);
  }
  if (rc == SQLITE_OK) {
    sqlite3_snprintf(sizeof(name), name, "rev%s", suffix);
    rc = sqlite3_create_collation(db, name, SQLITE_UTF8, 0, rev_collate);
  }
  if (rc == SQLITE_OK) {
    char *sql = sqlite3_mprintf(
        "CREATE TEMP TABLE IF NOT EXISTS demo_log(entry TEXT);"
        "INSERT INTO demo_log VALUES('loaded%q');", suffix);
    rc = sqlite3_exec(db, sql, 0, 0, pzErrMsg);
    sqlite3_free(sql);
  }
  if (rc != SQLITE_OK && *pzErrMsg == 0) *pzErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_demoext_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  return register_all(db, pzErrMsg, "");
}

int demo_alt_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  return register_all(db, pzErrMsg, "_alt");
}

int demo_fail_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  (void)db;
  *pzErrMsg = sqlite3_mprintf("demo refuses to load (%d)", 42);
  return SQLITE_ERROR;
}

int demo_fail_quiet_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  (void)db; (void)pzErrMsg;
  return SQLITE_ERROR;
}

int demo_busy_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  (void)db;
  *pzErrMsg = sqlite3_mprintf("demo is busy");
  return SQLITE_BUSY;
}

int demo_permanent_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  rc = register_all(db, pzErrMsg, "_perm");
  return rc == SQLITE_OK ? SQLITE_OK_LOAD_PERMANENTLY : rc;
}

/* ---- demo_more_init: more of the API, through the table ---- */
static int aux_freed;
static void aux_free(void *p) { aux_freed++; sqlite3_free(p); }

/* patlen(P, X): length of P, cached as auxdata on argument 0 */
static void patlen_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int *cached = sqlite3_get_auxdata(ctx, 0);
  (void)argc; (void)argv;
  if (cached == 0) {
    cached = sqlite3_malloc(sizeof(int));
    if (cached == 0) { sqlite3_result_error_nomem(ctx); return; }
    *cached = sqlite3_value_bytes(argv[0]);
    sqlite3_set_auxdata(ctx, 0, cached, aux_free);
    cached = sqlite3_get_auxdata(ctx, 0);
    if (cached == 0) { sqlite3_result_error(ctx, "auxdata lost", -1); return; }
    sqlite3_result_int(ctx, -*cached); /* negative: computed this call */
    return;
  }
  sqlite3_result_int(ctx, *cached);
}

static void auxfreed_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, aux_freed);
}

static int pointer_target = 4242;
static void ptr_make_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_pointer(ctx, &pointer_target, "demo_ptr", 0);
}
static void ptr_read_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int *p = sqlite3_value_pointer(argv[0], "demo_ptr");
  int *q = sqlite3_value_pointer(argv[0], "other_ptr");
  (void)argc;
  if (p == 0) { sqlite3_result_text(ctx, q ? "wrong type" : "no pointer", -1, SQLITE_STATIC); return; }
  sqlite3_result_int(ctx, *p);
}

/* blob_head(TABLE, COLUMN, ROWID, N): first N bytes of a blob, hex */
static void blob_head_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_blob *b = 0;
  unsigned char buf[16];
  char hex[40];
  int n = sqlite3_value_int(argv[3]), rc, i;
  (void)argc;
  if (n < 0 || n > 16) n = 16;
  rc = sqlite3_blob_open(db, "main", (const char *)sqlite3_value_text(argv[0]),
                         (const char *)sqlite3_value_text(argv[1]), sqlite3_value_int64(argv[2]), 0, &b);
  if (rc != SQLITE_OK) { sqlite3_result_error(ctx, sqlite3_errmsg(db), -1); sqlite3_blob_close(b); return; }
  if (n > sqlite3_blob_bytes(b)) n = sqlite3_blob_bytes(b);
  rc = sqlite3_blob_read(b, buf, n, 0);
  sqlite3_blob_close(b);
  if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
  for (i = 0; i < n; i++) sqlite3_snprintf(3, hex + 2 * i, "%02x", buf[i]);
  hex[2 * n] = 0;
  sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
}

/* count_rows(TABLE): a nested statement from inside a function */
static void count_rows_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *st = 0;
  char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", (const char *)sqlite3_value_text(argv[0]));
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  (void)argc;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) { sqlite3_result_error(ctx, sqlite3_errmsg(db), -1); return; }
  if (sqlite3_step(st) == SQLITE_ROW) sqlite3_result_int64(ctx, sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
}

static void tag_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_value(ctx, argv[0]);
  sqlite3_result_subtype(ctx, 77);
}
static void subtype_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, (int)sqlite3_value_subtype(argv[0]));
}

static int nocase_destroyed;
static void nocase_destroy(void *p) { (void)p; nocase_destroyed++; }
static int nocase2(void *arg, int n1, const void *a, int n2, const void *b) {
  int r = sqlite3_strnicmp(a, b, n1 < n2 ? n1 : n2);
  (void)arg;
  return r ? r : n1 - n2;
}
static void destroyed_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, nocase_destroyed);
}

/* A virtual table module, "demo_range": CREATE VIRTUAL TABLE t USING
** demo_range(N) holds the rows n = 1..N with sq = n*n. xBestIndex takes
** an equality on n (one row) and a lower bound n > X, and consumes an
** ORDER BY n (ascending or descending); xConnect refuses a bad N with a
** message of its own. */
typedef struct RangeTab {
  sqlite3_vtab base;
  sqlite3_int64 n;
} RangeTab;
typedef struct RangeCur {
  sqlite3_vtab_cursor base;
  sqlite3_int64 at, last, step;
} RangeCur;
static int range_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  RangeTab *t;
  sqlite3_int64 n = argc > 3 ? atoll(argv[3]) : 0;
  (void)aux;
  if (n <= 0) {
    *err = sqlite3_mprintf("demo_range: bad size %s", argc > 3 ? argv[3] : "(none)");
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(n INTEGER, sq INTEGER)");
  if (rc != SQLITE_OK) return rc;
  t = sqlite3_malloc(sizeof *t);
  if (t == 0) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->n = n;
  *out = &t->base;
  return SQLITE_OK;
}
static int range_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}
/* idxNum bits: 1 equality on n, 2 lower bound on n, 4 descending. */
static int range_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  int i, arg = 0, num = 0;
  double cost = (double)((RangeTab *)v)->n;
  for (i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (!c->usable || c->iColumn != 0) continue;
    if (c->op == SQLITE_INDEX_CONSTRAINT_EQ && !(num & 1)) {
      num |= 1;
      info->aConstraintUsage[i].argvIndex = ++arg;
      info->aConstraintUsage[i].omit = 1;
      cost = 1;
    }
  }
  for (i = 0; i < info->nConstraint && !(num & 1); i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->usable && c->iColumn == 0 && c->op == SQLITE_INDEX_CONSTRAINT_GT && !(num & 2)) {
      num |= 2;
      info->aConstraintUsage[i].argvIndex = ++arg;
      info->aConstraintUsage[i].omit = 1;
      cost /= 2;
    }
  }
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 0) {
    if (info->aOrderBy[0].desc) num |= 4;
    info->orderByConsumed = 1;
  }
  info->idxNum = num;
  info->estimatedCost = cost;
  return SQLITE_OK;
}
static int range_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  RangeCur *c = sqlite3_malloc(sizeof *c);
  (void)v;
  if (c == 0) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}
static int range_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}
static int range_filter(sqlite3_vtab_cursor *cur, int num, const char *idx, int argc, sqlite3_value **argv) {
  RangeCur *c = (RangeCur *)cur;
  sqlite3_int64 lo = 1, hi = ((RangeTab *)cur->pVtab)->n;
  (void)idx; (void)argc;
  if (num & 1) {
    sqlite3_int64 v = sqlite3_value_int64(argv[0]);
    if (v > lo) lo = v;
    if (v < hi) hi = v;
  }
  if (num & 2) {
    sqlite3_int64 v = sqlite3_value_int64(argv[0]) + 1;
    if (v > lo) lo = v;
  }
  if (num & 4) { c->at = hi; c->last = lo; c->step = -1; }
  else { c->at = lo; c->last = hi; c->step = 1; }
  return SQLITE_OK;
}
static int range_next(sqlite3_vtab_cursor *cur) {
  ((RangeCur *)cur)->at += ((RangeCur *)cur)->step;
  return SQLITE_OK;
}
static int range_eof(sqlite3_vtab_cursor *cur) {
  RangeCur *c = (RangeCur *)cur;
  return c->step > 0 ? c->at > c->last : c->at < c->last;
}
static int range_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  sqlite3_int64 n = ((RangeCur *)cur)->at;
  sqlite3_result_int64(ctx, col == 0 ? n : n * n);
  return SQLITE_OK;
}
static int range_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = ((RangeCur *)cur)->at;
  return SQLITE_OK;
}
static sqlite3_module range_module = {
  0, range_connect, range_connect, range_best_index, range_disconnect, range_disconnect,
  range_open, range_close, range_filter, range_next, range_eof, range_column, range_rowid,
};

int demo_more_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  int rc = SQLITE_OK;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "patlen", 2, SQLITE_UTF8, 0, patlen_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "auxfreed", 0, SQLITE_UTF8, 0, auxfreed_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "ptr_make", 0, SQLITE_UTF8, 0, ptr_make_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "ptr_read", 1, SQLITE_UTF8, 0, ptr_read_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "blob_head", 4, SQLITE_UTF8, 0, blob_head_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "count_rows", 1, SQLITE_UTF8, 0, count_rows_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "tag", 1, SQLITE_UTF8 | SQLITE_RESULT_SUBTYPE, 0, tag_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "subtype_of", 1, SQLITE_UTF8 | SQLITE_SUBTYPE, 0, subtype_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "nocase_destroyed", 0, SQLITE_UTF8, 0, destroyed_func, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_collation_v2(db, "nocase2", SQLITE_UTF8, 0, nocase2, nocase_destroy);
  if (rc == SQLITE_OK) rc = sqlite3_overload_function(db, "overloaded", 2);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "demo_range", &range_module, 0);
  return rc;
}
