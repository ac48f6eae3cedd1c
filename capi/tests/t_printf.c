/* The printf family and sqlite3_str: same text as SQLite for SQLite's
** conversions, flags and quoting. */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include "sqlite3.h"

static void show(const char *label, char *z) {
  printf("%s: [%s]\n", label, z ? z : "(null)");
  sqlite3_free(z);
}

static char *via_v(const char *fmt, ...) {
  va_list ap;
  char *z;
  va_start(ap, fmt);
  z = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  return z;
}

int main(void) {
  char buf[16];
  sqlite3_str *s;
  show("int", sqlite3_mprintf("%d|%5d|%-5d|%05d|%+d|% d|%i", 42, 42, 42, 42, 42, 42, -7));
  show("long", sqlite3_mprintf("%lld|%lld|%llu|%lx", 9223372036854775807LL, (long long)-9223372036854775807LL - 1, 18446744073709551615ULL, 255L));
  show("hex", sqlite3_mprintf("%x|%X|%#x|%o|%#o|%08x", 255, 255, 255, 8, 8, 48879));
  show("unsigned", sqlite3_mprintf("%u|%u", 3000000000u, 0u));
  show("comma", sqlite3_mprintf("%,d|%,d|%,lld", 1234567, -1000, 1234567890123LL));
  show("char", sqlite3_mprintf("%c%c%c", 'a', 'b', 'c'));
  show("float", sqlite3_mprintf("%f|%.2f|%10.3f|%-10.1f|%e|%.3e|%E", 3.14159, 2.5, 1.0/3, 7.25, 12345.678, 0.000123, 1e100));
  show("g", sqlite3_mprintf("%g|%g|%g|%g|%g|%.3g|%G", 100000.0, 1000000.0, 0.0001, 0.00001, 1.5, 3.14159, 1e-10));
  show("bang", sqlite3_mprintf("%!.15g|%!.15g|%!.15g|%!.15g", 1.0, 0.1, 1e20, 123456789012345678.0));
  show("round", sqlite3_mprintf("%.1f|%.0f|%.0f|%.0f|%f|%.2e|%.2f|%.3f", 0.15, 0.5, 2.5, 1.5, 1e-7, 123.456, 9.9999, -0.0005));
  show("g2", sqlite3_mprintf("%g|%g|%g|%#g|%.10g|%.20g|%g", 0.0, -0.0, 123456789.0, 1.5, 1.0/3, 0.1, -2.5e-5));
  show("big", sqlite3_mprintf("%f|%e", 1e20, 0.0));
  show("bang2", sqlite3_mprintf("%!.20g|%!.3f|%!g", 0.1, 2.0, 100.0));
  show("special", sqlite3_mprintf("%f|%f", 1e308*10, -1e308*10));
  show("string", sqlite3_mprintf("%s|%10s|%-10s|%.3s|%s", "abc", "right", "left", "truncate", (char *)0));
  show("q", sqlite3_mprintf("%q|%q", "it's", (char *)0));
  show("Q", sqlite3_mprintf("%Q|%Q", "it's", (char *)0));
  show("w", sqlite3_mprintf("%w", "a\"b"));
  show("z", sqlite3_mprintf("%z!", sqlite3_mprintf("owned %d", 5)));
  show("percent", sqlite3_mprintf("100%% sure"));
  show("star", sqlite3_mprintf("[%*d] [%-*d] [%.*s]", 6, 42, 6, 42, 2, "abcdef"));
  show("v", via_v("%s=%d", "x", 10));
  show("empty", sqlite3_mprintf("%s", ""));
  printf("snprintf: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%s-%d", "a long string here", 12345));
  printf("snprintf0: [%s]\n", sqlite3_snprintf(0, buf, "%d", 1));
  /* Formatted straight into the buffer: exact fit, one byte short,
  ** quoting, NULLs, an owned %z string, and more arguments than the
  ** shim keeps on its stack (16). */
  printf("snprintf-fit: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%s", "fifteen chars!!"));
  printf("snprintf-cut: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%s", "sixteen chars!!!"));
  printf("snprintf-one: [%s]\n", sqlite3_snprintf(1, buf, "%s", "x"));
  printf("snprintf-q: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%q|%Q|%w", "it's", (char *)0, "a\"b"));
  printf("snprintf-null: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%s|%.2s|%5s", (char *)0, "abc", "z"));
  printf("snprintf-z: [%s]\n", sqlite3_snprintf(sizeof buf, buf, "%z.", sqlite3_mprintf("owned %d", 6)));
  {
    char wide[200];
    printf("snprintf-many: [%s]\n", sqlite3_snprintf(sizeof wide, wide, "%d %d %d %d %d %d %*d %.*s %s %c %x %lld %u",
      1, 2, 3, 4, 5, 6, 4, 7, 3, "abcdef", "eight", 'n', 255, -9223372036854775807LL, 4000000000u));
    printf("snprintf-float: [%s]\n", sqlite3_snprintf(sizeof wide, wide, "%.3f|%g|%!.15g", 3.14159, 1e-5, 0.1));
  }
  s = sqlite3_str_new(0);
  sqlite3_str_appendf(s, "%d-%s", 7, "seven");
  sqlite3_str_append(s, "++", 2);
  sqlite3_str_appendall(s, "all");
  sqlite3_str_appendchar(s, 3, 'x');
  printf("str len=%d err=%d value=[%s]\n", sqlite3_str_length(s), sqlite3_str_errcode(s), sqlite3_str_value(s));
  sqlite3_str_reset(s);
  printf("reset len=%d\n", sqlite3_str_length(s));
  show("finish-empty", sqlite3_str_finish(s));
  s = sqlite3_str_new(0);
  sqlite3_str_appendf(s, "%Q", "o'k");
  show("finish", sqlite3_str_finish(s));
  return 0;
}
