#!/bin/bash
# Count instructions (callgrind, deterministic where timings are noisy) of
# small C API loops, each in a function `timed_loop`, against ringlite's
# libsqlite3.so.0 (build/lib, `make lib`) and SQLite 3.54.1 compiled -O2
# from the source libsqlite3-sys bundles. Prints a Markdown table.
#   bash bench/capi/count.sh [LIBDIR]    (default build/lib)
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
# (Made absolute: the programs run from $out, where a relative LIBDIR would
# silently load the system's libsqlite3 instead.)
lib=$(cd "${1:-$root/build/lib}" && pwd)
out=$root/target/capi-count
mkdir -p "$out"
src=$(ls "$HOME"/.cargo/registry/src/*/libsqlite3-sys-0.39.1/sqlite3/sqlite3.c 2>/dev/null | head -1)
[ -n "$src" ] || { echo "count.sh: run 'cargo fetch' first (no libsqlite3-sys source)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "count.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$out/sqlite3.o" ] || cc -O2 -w -c -o "$out/sqlite3.o" "$src"
for d in prepare distinct insert scan seek; do
  cc -O2 -w -o "$out/$d-ours" "$root/bench/capi/count/$d.c" -I"$root/include" -L"$lib" -l:libsqlite3.so.0
  cc -O2 -w -o "$out/$d-ref" "$root/bench/capi/count/$d.c" -I"$(dirname "$src")" "$out/sqlite3.o" -lpthread -lm
done
count() { # binary args... -> instructions in timed_loop
  (cd "$out" && LD_LIBRARY_PATH="$lib" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
     --toggle-collect=timed_loop "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p')
}
echo "| workload (instructions) | SQLite | ringlite | ratio |"
echo "|---|---:|---:|---:|"
row() { # label binary args...
  local label=$1 bin=$2; shift 2
  local r o; r=$(count "./$bin-ref" "$@"); o=$(count "./$bin-ours" "$@")
  awk -v l="$label" -v r="$r" -v o="$o" 'BEGIN { printf "| %s | %d | %d | %.2fx |\n", l, r, o, o / r }'
}
row "prepare+finalize simple x2010, same text" prepare simple 2000
row "prepare+finalize complex x510, same text" prepare complex 500
row "prepare+finalize simple x2010, distinct texts" prepare simple 2000 distinct
row "prepare+finalize complex x510, distinct texts" prepare complex 500 distinct
row "SELECT DISTINCT over 100000 unsorted rows" distinct 100000 1
row "INSERT 50000 rows, one transaction" insert 50000 0
row "REPLACE 50000 rows on an INTEGER PRIMARY KEY" insert 50000 1
row "scan with filter, 3 x 50000 rows" scan "SELECT a, b FROM t WHERE c % 10 = 3 AND length(b) > 20" 3
row "point lookup by rowid x100000 (bind, step, column, reset)" seek "SELECT b FROM t WHERE rowid=?" 100000
