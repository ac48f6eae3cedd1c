#!/usr/bin/env bash
# Check (b) of `make test`: our include/sqlite3.h agrees with the system's
# /usr/include/sqlite3.h.
#
# A C file includes the system header, then a copy of ours whose include
# guard and macro names carry an RLCHK_ prefix. Every function prototype and
# typedef of ours is thus a redeclaration of SQLite's and must match it
# exactly (-Werror); every macro value is compared with a static assertion.
# Usage: header_check.sh OUR_HEADER WORKDIR
set -euo pipefail
ours=$1
work=$2
mkdir -p "$work"
macros=$(grep -oE '^#define [A-Za-z_][A-Za-z0-9_]*' "$ours" | awk '{print $2}' | sort -u | grep -v '^SQLITE3_H$')
sedexpr="s/\\bSQLITE3_H\\b/RLCHK_SQLITE3_H/g"
for m in $macros; do sedexpr="$sedexpr;s/\\b$m\\b/RLCHK_$m/g"; done
# Structure definitions would be redefinitions: ours get their own tags
# (struct rlchk_NAME) and their layouts are compared separately.
sedexpr="$sedexpr;s/^struct \\(sqlite3_[a-z0-9_]*\\|fts5_[a-z0-9_]*\\|Fts5[A-Za-z0-9_]*\\) {/struct rlchk_\\1 {/"
sed -e "$sedexpr" "$ours" > "$work/ours_renamed.h"
{
  echo '#include <sqlite3.h>'
  echo '#include "ours_renamed.h"'
  for m in $macros; do
    # Version strings differ by design; the *_MAX/*_LAST markers grow with
    # every SQLite release (the system header may be older).
    case $m in SQLITE_VERSION|SQLITE_VERSION_NUMBER|SQLITE_SOURCE_ID|SQLITE_STATIC|SQLITE_TRANSIENT|*_MAX|*_LAST) continue;; esac
    printf '#ifdef %s\n_Static_assert((long long)(%s) == (long long)(RLCHK_%s), "%s differs");\n#endif\n' "$m" "$m" "$m" "$m"
  done
  echo 'int main(void) { return 0; }'
} > "$work/header_check.c"
cc -std=c11 -Wall -Wextra -Werror -I"$work" -o "$work/header_check" "$work/header_check.c"
echo "header check: $(echo "$macros" | wc -w) macros and every prototype agree with /usr/include/sqlite3.h"
