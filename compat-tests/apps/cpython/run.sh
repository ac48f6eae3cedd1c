#!/bin/bash
# CPython's own sqlite3 tests (`python -m test test_sqlite3`) on two
# libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/cpython/run.sh LIB_A LIB_B [python...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref); the interpreter's _sqlite3 loads it through LD_LIBRARY_PATH.
# Without interpreters, pyenv's 3.11.7, 3.12.1 and 3.13.0 are used. Needs
# no network: the tests ship with each interpreter.
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
pys=("$@")
[ ${#pys[@]} -gt 0 ] || pys=(/root/.pyenv/versions/3.11.7/bin/python3
  /root/.pyenv/versions/3.12.1/bin/python3 /root/.pyenv/versions/3.13.0/bin/python3)
out=$(mktemp -d)
per_test() { grep -E ' \.\.\. ' "$1" | sed -E 's/ at 0x[0-9a-f]+//' | sort; }
for py in "${pys[@]}"; do
  v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  for t in a b; do
    lib=$a; [ $t = b ] && lib=$b
    (cd "$out" && LD_LIBRARY_PATH="$lib" timeout 1800 "$py" -m test -v test_sqlite3 >"$out/$v.$t.log" 2>&1) || true
    echo "$v $(grep -E '^(Ran |OK|FAILED|Result:)' "$out/$v.$t.log" | tr '\n' ' ') <- $t ($lib)"
  done
  if diff <(per_test "$out/$v.a.log") <(per_test "$out/$v.b.log") >"$out/$v.diff"; then
    echo "$v: same result for every test"
  else
    echo "$v: tests that differ:"; cat "$out/$v.diff"
  fi
done
echo "logs: $out"
