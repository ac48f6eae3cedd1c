#!/bin/bash
# Run capi_bench.c against ringlite's libsqlite3.so.0 (build/lib, `make lib`)
# and SQLite 3.54.1 built -O2 from the source libsqlite3-sys bundles, three
# times each, interleaved; print the median CPU time per operation and the
# ratio ringlite/SQLite as a Markdown table.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/target/capi-bench
mkdir -p "$out/ref"
src=$(ls "$HOME"/.cargo/registry/src/*/libsqlite3-sys-0.39.1/sqlite3/sqlite3.c 2>/dev/null | head -1)
[ -n "$src" ] || { echo "bench/capi/run.sh: run 'cargo fetch' first (no libsqlite3-sys source)" >&2; exit 1; }
[ -f "$root/build/lib/libsqlite3.so.0" ] || { echo "bench/capi/run.sh: run 'make lib' first" >&2; exit 1; }
if [ ! -f "$out/ref/libsqlite3.so.0" ]; then
  cc -O2 -fPIC -w -shared -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_COLUMN_METADATA \
    -o "$out/ref/libsqlite3.so.0" -Wl,-soname,libsqlite3.so.0 "$src" -lpthread -ldl -lm
fi
cc -O2 -o "$out/capi_bench" "$root/bench/capi/capi_bench.c" -I"$root/include" \
  -L"$root/build/lib" -l:libsqlite3.so.0
cd "$out"
for i in 1 2 3; do
  LD_LIBRARY_PATH="$root/build/lib" ./capi_bench > ours.$i 2>/dev/null
  LD_LIBRARY_PATH="$out/ref" ./capi_bench > ref.$i 2>/dev/null
done
echo "| workload (C API, CPU µs per operation, median of 3) | SQLite | ringlite | ratio |"
echo "|---|---:|---:|---:|"
paste ours.1 ours.2 ours.3 ref.1 ref.2 ref.3 | awk -F'\t' '
  function med(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
  { o = med($2, $4, $6); r = med($8, $10, $12); printf "| %s | %.2f | %.2f | %.2f× |\n", $1, r, o, o / r }'
