#!/bin/bash
# APSW's own test suite (`python -m apsw.tests`, which exercises nearly the
# whole C API: virtual tables, VFS, hooks, blobs, backup, session, FTS5's
# C API) on two libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/apsw/run.sh LIB_A LIB_B [unittest names...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref). APSW is built from its sdist against include/sqlite3.h and
# LIB_A's libsqlite3.so (not the SQLite it would download): the sdist's
# metadata step tries to fetch SQLite, which fails offline, so the sources
# are kept from pip's build directory (--no-clean). Its extensions are
# enabled except carray (the reference build does not export
# sqlite3_carray_bind). Environment: APSW_VERSION (3.54.1.0), APPS_DIR
# (/tmp/ringlite-apps), PYTHON (python3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
ver=${APSW_VERSION:-3.54.1.0}
dir=${APPS_DIR:-/tmp/ringlite-apps}/apsw
src="$dir/apsw-$ver"
mkdir -p "$dir/tmp"
if [ ! -f "$src/setup.py" ]; then
  TMPDIR="$dir/tmp" pip download --no-clean --no-binary :all: --no-deps -d "$dir" "apsw==$ver" >/dev/null 2>&1 || true
  unpacked=$(ls -d "$dir"/tmp/pip-download-*/apsw_* | head -1)
  cp -r "$unpacked" "$src"
  rm -rf "$dir/tmp"
fi
if [ ! -x "$dir/venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q setuptools
fi
if ! ls "$src"/apsw/__init__*.so >/dev/null 2>&1; then
  rm -f "$src/setup.apsw" # (it asks to fetch SQLite)
  mkdir -p "$src/sqlite3"
  cp "$root/include/sqlite3.h" "$src/sqlite3/"
  ln -sf "$a/libsqlite3.so.0" "$src/sqlite3/libsqlite3.so"
  echo "ringlite's header; the library is linked by soname" >"$src/sqlite3/README"
  echo "(a directory of more than three files is used as APSW's sqlite3/)" >"$src/sqlite3/NOTE"
  (cd "$src" && "$dir/venv/bin/python" setup.py build_ext --inplace \
    --enable fts4,fts3,fts3_parenthesis,rtree,stat4,fts5,geopoly,math_functions,dbstat_vtab,session,percentile,column_metadata \
    >"$dir/build.log" 2>&1)
fi
out=$(mktemp -d)
for t in a b; do
  lib=$a; [ $t = b ] && lib=$b
  (cd "$src" && LD_LIBRARY_PATH="$lib" timeout "${APPS_TIMEOUT:-3600}" "$dir/venv/bin/python" -m apsw.tests -v "$@" \
    >"$out/$t.log" 2>&1) || echo "exit status $? on $t"
  echo "$(grep -E '^(Ran |OK|FAILED)' "$out/$t.log" | tr '\n' ' ') <- $t ($lib)"
done
# unittest -v prints "testX (module.Class.testX)", the docstring if any,
# " ... " and the outcome, which threads' output may push to a later line.
per_test() {
  awk 'function outcome(l) { return l ~ /(^| )(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$/ }
    /^test[A-Za-z0-9_]+ \(/ { name = $1 " " $2; l = $0
      while (!outcome(l) && (getline l) > 0) {}
      sub(/^.* \.\.\. /, "", l); print name " ... " l }' "$1" | sort
}
if diff <(per_test "$out/a.log") <(per_test "$out/b.log") >"$out/tests.diff"; then
  echo "same result for every test ($(per_test "$out/a.log" | wc -l) tests)"
else
  echo "tests that differ (< on LIB_A, > on LIB_B):"; cat "$out/tests.diff"
fi
echo "logs: $out"
