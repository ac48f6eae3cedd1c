#!/bin/bash
# Instructions (callgrind) per speedtest1 test, ringlite against SQLite
# 3.54.1 -O2, with one speedtest1 binary (SQLite's test/speedtest1.c from
# `make compat-tcl-fetch`, compiled -O2 against include/sqlite3.h) run on
# each library through LD_LIBRARY_PATH. Prints a Markdown table with the
# ratio per test and in total. Each test is counted from its
# speedtest1_begin_test to its speedtest1_end_test (callgrind dumps there).
#   bash bench/speedtest1/count.sh [LIBDIR] [speedtest1 args...]
#   (default build/lib, --testset main --size 5)
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$(realpath "${1:-$root/build/lib}"); shift || true
args=("$@"); [ ${#args[@]} -gt 0 ] || args=(--testset main --size 5)
out=$root/target/speedtest1-count
mkdir -p "$out"
src=$(ls "$HOME"/.cargo/registry/src/*/libsqlite3-sys-0.39.1/sqlite3/sqlite3.c 2>/dev/null | head -1)
st=$(ls "$root"/tcl/sqlite-src/sqlite3-*/test/speedtest1.c 2>/dev/null | head -1)
[ -n "$src" ] || { echo "count.sh: run 'cargo fetch' first (no libsqlite3-sys source)" >&2; exit 1; }
[ -n "$st" ] || { echo "count.sh: run 'make compat-tcl-fetch' first (no speedtest1.c)" >&2; exit 1; }
if [ ! -f "$out/ref/libsqlite3.so.0" ]; then
  mkdir -p "$out/ref"
  cc -O2 -fPIC -w -c -DSQLITE_THREADSAFE=1 -o "$out/ref/sqlite3.o" "$src"
  cc -shared -o "$out/ref/libsqlite3.so.0" -Wl,-soname,libsqlite3.so.0 "$out/ref/sqlite3.o" -lpthread -ldl -lm
fi
[ -f "$out/speedtest1" ] || cc -O2 -w -o "$out/speedtest1" "$st" -I"$root/include" -L"$lib" -l:libsqlite3.so.0
# The database goes to memory (/dev/shm) when it can: only instructions
# are counted, and a shared disk's syncs would make the run take minutes.
db=$(mktemp -d /dev/shm/speedtest1-count.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$db"' EXIT
count() { # name libdir -> $out/run-name/{names,counts}
  local d=$out/run-$1
  rm -rf "$d" && mkdir -p "$d"
  rm -f "$db"/st.db*
  LD_LIBRARY_PATH="$2" valgrind --tool=callgrind --callgrind-out-file="$d/cg" \
     --dump-after=speedtest1_begin_test --dump-before=speedtest1_end_test \
     "$out/speedtest1" "${args[@]}" "$db/st.db" > "$d/stdout" 2> "$d/stderr"
  cat "$d"/cg* | grep -q "$2/libsqlite3" || { echo "count.sh: $1 did not load $2/libsqlite3.so.0" >&2; exit 1; }
  # Dumps alternate: ...begin_test (before the test), end_test (the test).
  grep -h '^ *[0-9][0-9]* - ' "$d/stdout" | sed 's/^ *\([0-9]*\) - \(.*\)\.\.\..*/\1|\2/' | sed 's/\.*$//' > "$d/names"
  for f in $(ls "$d"/cg.* | sort -t. -k2 -n); do
    if grep -q '^desc: Trigger: .*speedtest1_end_test' "$f"; then sed -n 's/^summary: //p;s/^totals: //p' "$f" | head -1; fi
  done > "$d/counts"
}
# SQLite's counts do not change between runs with the same arguments:
# they are kept (delete target/speedtest1-count/run-ref to count again).
if [ "$(cat "$out/run-ref/args" 2>/dev/null)" != "${args[*]}" ] || [ ! -s "$out/run-ref/counts" ]; then
  count ref "$out/ref"
  echo "${args[*]}" > "$out/run-ref/args"
fi
count ours "$lib"
echo "| test | SQLite | ringlite | ratio |"
echo "|---|---:|---:|---:|"
paste -d'|' "$out/run-ref/names" "$out/run-ref/counts" "$out/run-ours/counts" | awk -F'|' '
  { r += $3; o += $4; printf "| %s %s | %.2fM | %.2fM | %.2fx |\n", $1, $2, $3/1e6, $4/1e6, $4/$3 }
  END { printf "| TOTAL | %.2fM | %.2fM | **%.2fx** |\n", r/1e6, o/1e6, o/r }'
