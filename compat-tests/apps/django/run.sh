#!/bin/bash
# Django's own test suite on two libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/django/run.sh LIB_A LIB_B [apps...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref); Python's _sqlite3 loads it through LD_LIBRARY_PATH. Without
# apps, the database-heavy ones are run. Needs pip (PyPI) for the Django
# sdist (which carries tests/) and asgiref/sqlparse. Environment:
#   DJANGO_VERSION (5.1.4), DJANGO_DIR (/tmp/django-apps), DJ_SETTINGS
#   (test_sqlite; test_sqlite_file for file-backed test databases),
#   DJ_TRACE=1 to also record every statement on LIB_B and replay it on both
#   (replay.py), printing the statements whose results differ.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
ver=${DJANGO_VERSION:-5.1.4}
dir=${DJANGO_DIR:-/tmp/django-apps}
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(basic queries lookup ordering select_related update delete bulk_create
  expressions aggregation annotations db_functions expressions_window custom_lookups
  model_fields constraints indexes migrations schema backends inspectdb introspection
  prefetch_related transactions fixtures many_to_one many_to_many model_inheritance)
mkdir -p "$dir"
src="$dir/Django-$ver"
if [ ! -d "$src/tests" ]; then
  pip download --no-binary :all: --no-deps -d "$dir" "django==$ver" >/dev/null
  tar xzf "$dir/Django-$ver.tar.gz" -C "$dir"
fi
python3 -c 'import asgiref, sqlparse' 2>/dev/null || pip install -q asgiref sqlparse
cp "$here/test_sqlite_file.py" "$src/tests/"
settings=${DJ_SETTINGS:-test_sqlite}
out=$(mktemp -d)
run() { # lib tag settings [extra env]
  (cd "$src/tests" && env LD_LIBRARY_PATH="$1" PYTHONPATH="$src:$here" DJ_DB_DIR="$out/db_$2" "${@:4}" \
    python3 runtests.py --settings="$3" --parallel 1 -v 2 "${apps[@]}" >"$out/$2.log" 2>&1) || true
  grep -E '^(Ran|OK|FAILED)' "$out/$2.log" | tr '\n' ' '; echo " <- $2 ($1)"
}
run "$a" a "$settings"
run "$b" b "$settings"
per_test() { grep -E ' \.\.\. ' "$1" | sed -E 's/ \([0-9.]+s\)//; s/ at 0x[0-9a-f]+//' | sort; }
if diff <(per_test "$out/a.log") <(per_test "$out/b.log") >"$out/tests.diff"; then
  echo "same result for every test"
else
  echo "tests that differ:"; cat "$out/tests.diff"
fi
if [ "${DJ_TRACE:-}" = 1 ]; then
  sed 's/"ENGINE": "django.db.backends.sqlite3"/"ENGINE": "trace_backend"/' "$src/tests/test_sqlite.py" >"$src/tests/test_sqlite_trace.py"
  run "$b" trace test_sqlite_trace DJ_TRACE_FILE="$out/trace.jsonl"
  for t in a b; do
    lib=$a; [ $t = b ] && lib=$b
    LD_LIBRARY_PATH="$lib" PYTHONPATH="$src" python3 "$here/replay.py" "$out/trace.jsonl" "$out/replay_$t.txt"
  done
  echo "statements replayed: $(grep -c '"s"' "$out/trace.jsonl"); differing (NOW/RANDOM() included):"
  diff "$out/replay_a.txt" "$out/replay_b.txt" | grep '^<' | cut -c1-200 || true
fi
echo "logs: $out"
