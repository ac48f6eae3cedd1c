#!/usr/bin/env bash
# make dist's tarball as a user gets it: unpacked in a scratch directory,
# a C program compiled with its pkg-config file and an rpath to its lib/
# must run on its library (ringlite_version() answers), and its shell
# must run a query on that same library, and the library must be
# stripped and within the size budget.
#   compat-tests/shell/dist_check.sh build/dist/ringlite-X.Y.Z-linux-x86_64.tar.gz
set -eu
tarball=$(realpath "$1")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball"
root=$(echo "$work"/ringlite-*)
for f in lib/libsqlite3.so.0 include/sqlite3.h lib/pkgconfig/sqlite3.pc bin/ringlite README.md; do
  [ -e "$root/$f" ] || { echo "dist: missing $f"; exit 1; }
done
cat > "$work/app.c" <<'C'
#include <sqlite3.h>
#include <stdio.h>
int main(void) {
  sqlite3 *db; sqlite3_stmt *st;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  if (sqlite3_prepare_v2(db, "SELECT ringlite_version() IS NOT NULL, 6*7", -1, &st, 0) != SQLITE_OK) {
    printf("not ringlite: %s\n", sqlite3_errmsg(db)); return 1;
  }
  if (sqlite3_step(st) != SQLITE_ROW) return 1;
  printf("ringlite=%d answer=%d\n", sqlite3_column_int(st, 0), sqlite3_column_int(st, 1));
  sqlite3_finalize(st); sqlite3_close(db); return 0;
}
C
export PKG_CONFIG_PATH="$root/lib/pkgconfig"
cc -o "$work/app" "$work/app.c" $(pkg-config --cflags --libs sqlite3) -Wl,-rpath,"$root/lib"
out=$("$work/app")
[ "$out" = "ringlite=1 answer=42" ] || { echo "dist: C program printed: $out"; exit 1; }
shell=$("$root/bin/ringlite" :memory: "SELECT ringlite_version() IS NOT NULL, 'ok'")
[ "$shell" = "1|ok" ] || { echo "dist: shell printed: $shell"; exit 1; }
file "$root/lib/libsqlite3.so.0" 2>/dev/null | grep -q 'not stripped' && { echo "dist: library not stripped"; exit 1; }
# The installed library's size ceiling: issue #24's goal, 6,000,000
# bytes. The library is 5,899,632 at the merged session-32 tip (LLVM's
# unroll, unswitch and hot-call inlining limits lowered, .cargo/config.toml;
# bench/RESULTS.md, Installed size).
budget=${RINGLITE_SIZE_BUDGET:-6000000}
size=$(stat -Lc %s "$root/lib/libsqlite3.so.0")
[ "$size" -le "$budget" ] || { echo "dist: library is $size bytes, over the $budget-byte budget (bench/RESULTS.md, Installed size)"; exit 1; }
echo "dist: 1 passed, 0 failed ($(du -h "$tarball" | cut -f1) tarball; library $size bytes, shell $(du -h "$root/bin/ringlite" | cut -f1))"
