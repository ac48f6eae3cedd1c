/* String utilities, statement completeness, keywords, result-code texts. */
#include <stdio.h>
#include "sqlite3.h"

static int sign(int x) { return x < 0 ? -1 : x > 0; }

int main(void) {
  static const char *globs[][2] = {
    {"a*", "abc"}, {"a*", "bac"}, {"*c", "abc"}, {"a?c", "abc"}, {"a?c", "ac"},
    {"[a-c]x", "bx"}, {"[^a-c]x", "bx"}, {"[]]", "]"}, {"*[0-9]*", "ab5cd"},
    {"A*", "abc"}, {"", ""}, {"*", ""}, {"a[bc", "ab"}, {"[a-]", "-"},
  };
  static const char *likes[][2] = {
    {"a%", "ABC"}, {"%b%", "abc"}, {"a_c", "aXc"}, {"a_c", "ac"}, {"%", ""},
    {"a\\%", "a%"}, {"a\\%", "ab"}, {"ß%", "ßx"}, {"_", "é"},
  };
  static const char *sql[] = {
    "SELECT 1", "SELECT 1;", "SELECT 'a;b'", "SELECT 'a;b';", "  ;", "-- c\n;", "/* x */ select 1;",
    "/* open", "SELECT \"x;\" ;", "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1;",
    "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END;", "CREATE TEMP TRIGGER t BEGIN x; END ;",
    "EXPLAIN SELECT 1;", "select [a;b] ;", "select 1; -- trailing", "", ";", "select `x`;",
    "create table trigger(x);", "-- only", "select 1; --x\n", "select 1; /* c */", "select 1 /* ; */", "CREATE TRIGGER t BEGIN SELECT 'end;'; END;",
  };
  unsigned i;
  const char *name; int len;
  for (i = 0; i < sizeof globs / sizeof globs[0]; i++)
    printf("glob(%s,%s)=%d\n", globs[i][0], globs[i][1], sqlite3_strglob(globs[i][0], globs[i][1]) == 0);
  for (i = 0; i < sizeof likes / sizeof likes[0]; i++)
    printf("like(%s,%s)=%d\n", likes[i][0], likes[i][1], sqlite3_strlike(likes[i][0], likes[i][1], '\\') == 0);
  printf("stricmp %d %d %d %d\n", sign(sqlite3_stricmp("abc", "ABC")), sign(sqlite3_stricmp("abc", "abd")),
         sign(sqlite3_stricmp("b", "A")), sign(sqlite3_stricmp("ab", "abc")));
  printf("strnicmp %d %d\n", sign(sqlite3_strnicmp("abcX", "ABCy", 3)), sign(sqlite3_strnicmp("abcX", "ABCy", 4)));
  for (i = 0; i < sizeof sql / sizeof sql[0]; i++)
    printf("complete(%s)=%d\n", sql[i], sqlite3_complete(sql[i]));
  printf("incomplete ok=%lld empty=%lld partial=%d\n", sqlite3_incomplete("select 1;"), sqlite3_incomplete("  /* c */ -- d\n"),
         sqlite3_incomplete("select 1") != 0);
  printf("keywords=%d\n", sqlite3_keyword_count());
  printf("check select=%d SeLeCt=%d selec=%d foo=%d\n", sqlite3_keyword_check("select", 6),
         sqlite3_keyword_check("SeLeCt", 6), sqlite3_keyword_check("selec", 5), sqlite3_keyword_check("foo", 3));
  printf("name(-1)=%d name(big)=%d\n", sqlite3_keyword_name(-1, &name, &len), sqlite3_keyword_name(100000, &name, &len));
  for (i = 0; i <= 28; i++) printf("errstr(%u)=%s\n", i, sqlite3_errstr((int)i));
  printf("errstr(100)=%s\nerrstr(101)=%s\nerrstr(516)=%s\nerrstr(2067)=%s\nerrstr(999)=%s\n",
         sqlite3_errstr(100), sqlite3_errstr(101), sqlite3_errstr(516), sqlite3_errstr(2067), sqlite3_errstr(999));
  printf("threadsafe=%d\n", sqlite3_threadsafe());
  printf("compileoption THREADSAFE=%d NOPE=%d\n", sqlite3_compileoption_used("THREADSAFE") != 0, sqlite3_compileoption_used("NOPE_NOT_AN_OPTION"));
  return 0;
}
