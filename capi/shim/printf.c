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
extern void ringlite_capi_format_into(const char *fmt, const RlArg *a, int n, char *buf, int nBuf);
extern void ringlite_capi_str_format(sqlite3_str *p, const char *fmt, const RlArg *a, int n);
extern void ringlite_capi_log(int code, const char *fmt, const RlArg *a, int n);
extern void *sqlite3_malloc(int);
extern void sqlite3_free(void *);

/* Room for the arguments of a format with up to 5 conversions (each
** takes at most 3: width, precision, value), on the caller's stack. */
#define RL_LOCAL_ARGS 16

/* Pull the arguments of fmt from ap into `local` (RL_LOCAL_ARGS entries)
** when they fit, else into a malloc'd array; *pn is their count. */
static RlArg *rl_collect_into(const char *fmt, va_list ap, int *pn, RlArg *local) {
  int cap = 1, n = 0;
  const char *p;
  RlArg *a;
  if (fmt == 0) { *pn = 0; return 0; }
  for (p = fmt; *p; p++) if (*p == '%') cap += 3;
  a = cap <= RL_LOCAL_ARGS && local ? local : (RlArg *)malloc(sizeof(RlArg) * (size_t)cap);
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

/* rl_collect_into with no local room: the array is always malloc'd. */
static RlArg *rl_collect(const char *fmt, va_list ap, int *pn) {
  return rl_collect_into(fmt, ap, pn, 0);
}

char *sqlite3_vmprintf(const char *zFormat, va_list ap) {
  int n;
  char *z;
  va_list cp;
  RlArg *a;
  RlArg local[RL_LOCAL_ARGS];
  if (zFormat == 0) return 0;
  va_copy(cp, ap);
  a = rl_collect_into(zFormat, cp, &n, local);
  va_end(cp);
  z = ringlite_capi_format(zFormat, a, n);
  if (a != local) free(a);
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

/* Formatted straight into zBuf (no allocated result to copy and free),
** with the arguments of a short format collected on the stack. */
char *sqlite3_vsnprintf(int n, char *zBuf, const char *zFormat, va_list ap) {
  int nArg;
  va_list cp;
  RlArg *a;
  RlArg local[RL_LOCAL_ARGS];
  if (n <= 0 || zBuf == 0) return zBuf;
  if (zFormat == 0) { zBuf[0] = 0; return zBuf; }
  va_copy(cp, ap);
  a = rl_collect_into(zFormat, cp, &nArg, local);
  va_end(cp);
  ringlite_capi_format_into(zFormat, a, nArg, zBuf, n);
  if (a != local) free(a);
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
