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
**   demo_busy_init         fails with SQLITE_BUSY and a message.
** There is deliberately no sqlite3_extension_init. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <string.h>

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
