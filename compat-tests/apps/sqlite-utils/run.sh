#!/bin/bash
# sqlite-utils' own test suite (pytest) on two libsqlite3 builds, compared
# test by test.
#
#   compat-tests/apps/sqlite-utils/run.sh LIB_A LIB_B [pytest args...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref). Fetches the sdist (it carries tests/) from PyPI and makes a
# venv with its test dependencies. Environment: SQLITE_UTILS_VERSION
# (4.2.1), APPS_DIR (/tmp/ringlite-apps), PYTHON (python3; its _sqlite3
# must link libsqlite3.so.0 dynamically, as pyenv's do).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
ver=${SQLITE_UTILS_VERSION:-4.2.1}
dir=${APPS_DIR:-/tmp/ringlite-apps}/sqlite-utils
src="$dir/sqlite_utils-$ver"
mkdir -p "$dir"
if [ ! -d "$src/tests" ]; then
  pip download --no-binary :all: --no-deps -d "$dir" "sqlite-utils==$ver" >/dev/null
  tar xzf "$dir/sqlite_utils-$ver.tar.gz" -C "$dir"
fi
if [ ! -x "$dir/venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q pytest hypothesis cogapp "$src"
fi
out=$(mktemp -d)
"$here/../pytest_diff.sh" "$a" "$b" "$src" "$out" "$dir/venv/bin/python" "${@:-tests}"
echo "logs: $out"
