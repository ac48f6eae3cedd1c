#!/bin/bash
# CPython's own sqlite3 test suite (`python3 -m test test_sqlite3`) on two
# libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/cpython/run.sh LIB_A LIB_B [PYTHON...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref); the interpreter's _sqlite3 module loads it through
# LD_LIBRARY_PATH. Without PYTHONs, every interpreter that has the suite:
# the system python3 (Debian's libpython3.X-testsuite leaves test_sqlite3
# out) and the pyenv ones under $PYENV_ROOT/versions.
# Exit status 1 when a test's outcome differs between the libraries or a
# suite does not pass on LIB_A.
set -uo pipefail
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
pythons=("$@")
if [ ${#pythons[@]} -eq 0 ]; then
  for py in /usr/bin/python3; do
    "$py" -c 'import test.test_sqlite3' >/dev/null 2>&1 && pythons+=("$py")
  done
  for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3; do
    [ -x "$p" ] && "$p" -c 'import test.test_sqlite3, _sqlite3' >/dev/null 2>&1 && pythons+=("$p")
  done
fi
if [ ${#pythons[@]} -eq 0 ]; then
  echo "cpython: no interpreter with test.test_sqlite3: skipped"
  exit 0
fi
work=$(mktemp -d /tmp/cpython-sqlite3-XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
# One line per test: "name ... outcome" (unittest's verbose form).
outcomes() {
  grep -E '^test_[A-Za-z0-9_]+ \(.*\) \.\.\. ' "$1" | sed -E 's/ \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success).*/ \1/' | sort
}
for py in "${pythons[@]}"; do
  ver=$("$py" -c 'import platform; print(platform.python_version())')
  for side in a b; do
    lib=${!side}
    (cd "$work" && LD_LIBRARY_PATH="$lib" timeout 600 "$py" -m test -v test_sqlite3 >"$work/$side.log" 2>&1)
    echo $? >"$work/$side.rc"
    outcomes "$work/$side.log" >"$work/$side.out"
  done
  ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$work/a.log" | tail -1)
  ref_ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$work/b.log" | tail -1)
  if ! diff -q "$work/a.out" "$work/b.out" >/dev/null; then
    echo "cpython $ver: outcomes differ (< $a, > $b):"
    diff "$work/a.out" "$work/b.out" | grep '^[<>]'
    status=1
  elif [ "$(cat "$work/a.rc")" != 0 ]; then
    echo "cpython $ver: test_sqlite3 failed on $a:"
    tail -20 "$work/a.log"
    status=1
  else
    echo "cpython $ver: test_sqlite3 passes: ran ${ran:-?} tests (reference ${ref_ran:-?}), every outcome the same"
  fi
done
exit $status
