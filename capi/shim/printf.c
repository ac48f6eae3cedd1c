/*
** The variadic printf entry points of the C API.
**
** Stable Rust cannot define C variadic functions, so these live in C. Each
** walks the format string once, pulls every argument with va_arg using the
** type its conversion implies, and hands the array to the Rust formatter
** (capi/src/printf.rs), which knows SQLite's dialect (%q %Q %w %z, the ! and
** , flags). Only argument extraction is done here.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3_str sqlite3_str;

/* Must match PrintfArg in printf.rs. */
typedef struct RlArg {
  int kind;       /* 0 int, 1 unsigned, 2 double, 3 string, 4 string to free, 5 pointer */
  long long i;
  double d;
  const char *s;
} RlArg;

extern char *ringlite_capi_format(const char *fmt, const RlArg *a, int n);
extern void ringlite_capi_str_format(sqlite3_str *p, const char *fmt, const RlArg *a, int n);
extern void ringlite_capi_log(int code, const char *fmt, const RlArg *a, int n);
extern void *sqlite3_malloc(int);
extern void sqlite3_free(void *);

/* Pull the arguments of fmt from ap into a malloc'd array; *pn is its size. */
static RlArg *rl_collect(const char *fmt, va_list ap, int *pn) {
  int cap = 1, n = 0;
  const char *p;
  RlArg *a;
  if (fmt == 0) { *pn = 0; return 0; }
  for (p = fmt; *p; p++) if (*p == '%') cap += 3;
  a = (RlArg *)malloc(sizeof(RlArg) * (size_t)cap);
  if (a == 0) { *pn = 0; return 0; }
  for (p = fmt; *p; p++) {
    int longs = 0;
    if (*p != '%') continue;
    p++;
    while (*p && strchr("-+ #0!,", *p)) p++;
    if (*p == '*') { a[n].kind = 0; a[n].i = va_arg(ap, int); n++; p++; }
    else while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') {
      p++;
      if (*p == '*') { a[n].kind = 0; a[n].i = va_arg(ap, int); n++; p++; }
      else while (*p >= '0' && *p <= '9') p++;
    }
    while (*p == 'l' || *p == 'h' || *p == 'j' || *p == 't') { if (*p == 'l' || *p == 'j') longs++; p++; }
    if (*p == 0) break;
    switch (*p) {
      case 'd': case 'i': case 'c': case 'r':
        a[n].kind = 0;
        a[n].i = longs >= 2 ? va_arg(ap, long long) : longs == 1 ? (long long)va_arg(ap, long) : (long long)va_arg(ap, int);
        n++; break;
      case 'u': case 'x': case 'X': case 'o':
        a[n].kind = 1;
        a[n].i = longs >= 2 ? (long long)va_arg(ap, unsigned long long)
               : longs == 1 ? (long long)va_arg(ap, unsigned long) : (long long)va_arg(ap, unsigned int);
        n++; break;
      case 'p':
        a[n].kind = 5; a[n].i = (long long)(size_t)va_arg(ap, void *); n++; break;
      case 'f': case 'e': case 'E': case 'g': case 'G':
        a[n].kind = 2; a[n].d = va_arg(ap, double); n++; break;
      case 's': case 'q': case 'Q': case 'w': case 'j': case 'J':
        a[n].kind = 3; a[n].s = va_arg(ap, const char *); n++; break;
      case 'z':
        a[n].kind = 4; a[n].s = va_arg(ap, const char *); n++; break;
      case 'n':
        a[n].kind = 5; a[n].i = (long long)(size_t)va_arg(ap, int *); n++; break;
      case '%':
        break;
      default:
        /* Unknown conversion: the formatter stops here too. */
        *pn = n;
        return a;
    }
  }
  *pn = n;
  return a;
}

char *sqlite3_vmprintf(const char *zFormat, va_list ap) {
  int n;
  char *z;
  va_list cp;
  RlArg *a;
  if (zFormat == 0) return 0;
  va_copy(cp, ap);
  a = rl_collect(zFormat, cp, &n);
  va_end(cp);
  z = ringlite_capi_format(zFormat, a, n);
  free(a);
  return z;
}

char *sqlite3_mprintf(const char *zFormat, ...) {
  va_list ap;
  char *z;
  va_start(ap, zFormat);
  z = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  return z;
}

char *sqlite3_vsnprintf(int n, char *zBuf, const char *zFormat, va_list ap) {
  char *z;
  size_t len;
  if (n <= 0 || zBuf == 0) return zBuf;
  z = sqlite3_vmprintf(zFormat, ap);
  if (z == 0) { zBuf[0] = 0; return zBuf; }
  len = strlen(z);
  if (len > (size_t)(n - 1)) len = (size_t)(n - 1);
  memcpy(zBuf, z, len);
  zBuf[len] = 0;
  sqlite3_free(z);
  return zBuf;
}

char *sqlite3_snprintf(int n, char *zBuf, const char *zFormat, ...) {
  va_list ap;
  char *z;
  va_start(ap, zFormat);
  z = sqlite3_vsnprintf(n, zBuf, zFormat, ap);
  va_end(ap);
  return z;
}

void sqlite3_str_vappendf(sqlite3_str *p, const char *zFormat, va_list ap) {
  int n;
  va_list cp;
  RlArg *a;
  if (p == 0 || zFormat == 0) return;
  va_copy(cp, ap);
  a = rl_collect(zFormat, cp, &n);
  va_end(cp);
  ringlite_capi_str_format(p, zFormat, a, n);
  free(a);
}

void sqlite3_str_appendf(sqlite3_str *p, const char *zFormat, ...) {
  va_list ap;
  va_start(ap, zFormat);
  sqlite3_str_vappendf(p, zFormat, ap);
  va_end(ap);
}

void sqlite3_log(int iErrCode, const char *zFormat, ...) {
  int n;
  va_list ap;
  RlArg *a;
  if (zFormat == 0) return;
  va_start(ap, zFormat);
  a = rl_collect(zFormat, ap, &n);
  va_end(ap);
  ringlite_capi_log(iErrCode, zFormat, a, n);
  free(a);
}
