#!/usr/bin/env bash
# Checks the sqlite3_api_routines table handed to extensions
# (capi/src/api_routines.rs, built from capi/tools/api_routines.txt):
#   1. layout: for each sqlite3ext.h given (the reference 3.54.1 one, the
#      system's older one), a C program prints offsetof(member)/sizeof(void*)
#      for each member of our list that the header has (its first N, N from
#      the header's sizeof); a member missing or misplaced fails to compile
#      or differs. The first header, the reference, must have exactly our N
#      members;
#   2. contents: a program linked with the library registers an automatic
#      extension, which compares every slot of the table it receives with
#      dlsym() of the function the slot stands for.
# Usage: api_routines_check.sh LIB_DIR WORK_DIR HEADER_DIR...
# (a HEADER_DIR holding sqlite3ext.h and the sqlite3.h it includes)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list="$here/../tools/api_routines.txt"
lib=$1 work=$2; shift 2
mkdir -p "$work"
total=$(wc -l < "$list")
status=0
first=1
for dir in "$@"; do
  printf '#include <stdio.h>\n#include "sqlite3ext.h"\nint main(void){printf("%%d\\n",(int)(sizeof(sqlite3_api_routines)/sizeof(void*)));return 0;}\n' > "$work/n.c"
  if ! cc -I"$dir" -o "$work/n" "$work/n.c"; then echo "cannot compile against $dir/sqlite3ext.h"; status=1; continue; fi
  n=$("$work/n")
  if [ "$n" -gt "$total" ] || { [ $first = 1 ] && [ "$n" != "$total" ]; }; then
    echo "$dir/sqlite3ext.h has $n members, our table $total"; status=1; continue; fi
  first=0
  {
    printf '#include <stdio.h>\n#include <stddef.h>\n#include "sqlite3ext.h"\nint main(void){\n'
    head -n "$n" "$list" | awk '{printf "printf(\"%%d %s\\n\", (int)(offsetof(sqlite3_api_routines, %s)/sizeof(void*)));\n", $2, $2}'
    printf 'return 0;}\n'
  } > "$work/offsets.c"
  head -n "$n" "$list" | awk '{print $1, $2}' > "$work/offsets.expected"
  if cc -I"$dir" -o "$work/offsets" "$work/offsets.c" && "$work/offsets" > "$work/offsets.actual" \
     && diff "$work/offsets.expected" "$work/offsets.actual"; then
    echo "  $dir/sqlite3ext.h: $n members at our indexes"
  else
    echo "  $dir/sqlite3ext.h: member order differs from capi/tools/api_routines.txt"; status=1
  fi
done

# The table's contents, as an extension sees them.
{
  cat <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include "sqlite3.h"
static const char *const fn[] = {
EOF
  awk '{printf "  \"%s\",\n", $3}' "$list"
  cat <<'EOF'
};
static int bad = -1;
static int entry(sqlite3 *db, char **err, const void *api) {
  const void *const *slot = api;
  unsigned i;
  (void)db; (void)err;
  bad = 0;
  for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
    void *want = dlsym(RTLD_DEFAULT, fn[i]);
    if (slot[i] == 0 || slot[i] != want) { printf("slot %u (%s): %p, want %p\n", i, fn[i], slot[i], want); bad++; }
  }
  return SQLITE_OK;
}
int main(void) {
  sqlite3 *db = 0;
  sqlite3_auto_extension((void (*)(void))entry);
  sqlite3_open(":memory:", &db);
  sqlite3_close(db);
  printf("%d slots checked, %d wrong\n", (int)(sizeof(fn) / sizeof(fn[0])), bad);
  return bad != 0;
}
EOF
} > "$work/slots.c"
if cc -std=gnu11 -I"$here/../../include" -o "$work/slots" "$work/slots.c" -L"$lib" -lsqlite3 -ldl -Wl,-rpath,"$lib" \
   && "$work/slots"; then :; else status=1; fi
exit $status
