/*
** The variadic configuration entry points: sqlite3_config, sqlite3_db_config,
** sqlite3_test_control, sqlite3_vtab_config.
**
** Each op's argument types are fixed by the API; this file only pulls them
** with va_arg according to the op and forwards them to Rust
** (capi/src/config.rs), where all behaviour lives.
*/
#include <stdarg.h>

typedef struct sqlite3 sqlite3;

extern int ringlite_capi_config(int op, long long i0, long long i1, void *p0, void *p1);
extern int ringlite_capi_db_config(sqlite3 *db, int op, int i0, int *pOut, const char *z, void *p, int i1, int i2);
extern int ringlite_capi_test_control(int op);
extern int ringlite_capi_vtab_config(sqlite3 *db, int op, int arg);

int sqlite3_config(int op, ...) {
  va_list ap;
  long long i0 = 0, i1 = 0;
  void *p0 = 0, *p1 = 0;
  va_start(ap, op);
  switch (op) {
    case 1: case 2: case 3:                  /* SINGLETHREAD, MULTITHREAD, SERIALIZED */
      break;
    case 4: case 5: case 10: case 11:        /* MALLOC, GETMALLOC, MUTEX, GETMUTEX */
    case 14: case 15: case 18: case 19:      /* PCACHE, GETPCACHE, PCACHE2, GETPCACHE2 */
    case 24: case 30:                        /* PCACHE_HDRSZ, ROWID_IN_VIEW (int*) */
      p0 = va_arg(ap, void *);
      break;
    case 6: case 7: case 8:                  /* SCRATCH, PAGECACHE, HEAP */
      p0 = va_arg(ap, void *); i0 = va_arg(ap, int); i1 = va_arg(ap, int);
      break;
    case 13:                                 /* LOOKASIDE */
      i0 = va_arg(ap, int); i1 = va_arg(ap, int);
      break;
    case 16: case 21:                        /* LOG, SQLLOG: callback, argument */
      p0 = (void *)va_arg(ap, void (*)(void));
      p1 = va_arg(ap, void *);
      break;
    case 22:                                 /* MMAP_SIZE */
      i0 = va_arg(ap, long long); i1 = va_arg(ap, long long);
      break;
    case 29:                                 /* MEMDB_MAXSIZE */
      i0 = va_arg(ap, long long);
      break;
    case 25:                                 /* PMASZ */
      i0 = (long long)va_arg(ap, unsigned int);
      break;
    default:                                 /* the rest take one int */
      i0 = va_arg(ap, int);
      break;
  }
  va_end(ap);
  return ringlite_capi_config(op, i0, i1, p0, p1);
}

int sqlite3_db_config(sqlite3 *db, int op, ...) {
  va_list ap;
  int rc;
  va_start(ap, op);
  if (op == 1000) {                          /* MAINDBNAME */
    const char *z = va_arg(ap, const char *);
    rc = ringlite_capi_db_config(db, op, 0, 0, z, 0, 0, 0);
  } else if (op == 1001) {                   /* LOOKASIDE */
    void *p = va_arg(ap, void *);
    int sz = va_arg(ap, int), cnt = va_arg(ap, int);
    rc = ringlite_capi_db_config(db, op, 0, 0, 0, p, sz, cnt);
  } else {                                   /* boolean options: int, int* */
    int v = va_arg(ap, int);
    int *pOut = va_arg(ap, int *);
    rc = ringlite_capi_db_config(db, op, v, pOut, 0, 0, 0, 0);
  }
  va_end(ap);
  return rc;
}

int sqlite3_test_control(int op, ...) {
  return ringlite_capi_test_control(op);
}

int sqlite3_vtab_config(sqlite3 *db, int op, ...) {
  /* Only SQLITE_VTAB_CONSTRAINT_SUPPORT (1) takes an argument, an int. */
  int arg = 0;
  if (op == 1) {
    va_list ap;
    va_start(ap, op);
    arg = va_arg(ap, int);
    va_end(ap);
  }
  return ringlite_capi_vtab_config(db, op, arg);
}
