#!/bin/bash
# Shared by the pytest-based runners in compat-tests/apps/*/run.sh: run one
# pytest command on two libsqlite3 builds and print the tests whose outcome
# differs.
#
#   pytest_diff.sh LIB_A LIB_B WORKDIR OUTDIR PYTHON [pytest args...]
#
# PYTHON's _sqlite3 must link libsqlite3.so.0 dynamically (pyenv's do); it
# loads LIB_A's, then LIB_B's, through LD_LIBRARY_PATH.
set -euo pipefail
a=$1; b=$2; wd=$3; out=$4; py=$5; shift 5
for t in a b; do
  lib=$a; [ $t = b ] && lib=$b
  (cd "$wd" && LD_LIBRARY_PATH="$lib" timeout "${APPS_TIMEOUT:-3600}" "$py" -m pytest -p no:cacheprovider \
    -o console_output_style=classic -rN -v "$@" >"$out/$t.log" 2>&1) || true
  echo "$(tail -1 "$out/$t.log") <- $t ($lib)"
done
# "path::test[param] PASSED" lines, cut after the outcome (the progress
# column, and skip reasons the terminal width wraps), addresses removed.
per_test() {
  grep -E '^[^ ]+::.* (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)' "$1" \
    | sed -E 's/ at 0x[0-9a-f]+//g; s/ (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS).*$/ \1/' | sort
}
if diff <(per_test "$out/a.log") <(per_test "$out/b.log") >"$out/tests.diff"; then
  echo "same result for every test ($(per_test "$out/a.log" | wc -l) tests)"
else
  echo "tests that differ (< on LIB_A, > on LIB_B):"; cat "$out/tests.diff"
fi
