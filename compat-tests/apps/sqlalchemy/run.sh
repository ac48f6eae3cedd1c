#!/bin/bash
# SQLAlchemy's own test suite (pytest, SQLite being its default database) on
# two libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/sqlalchemy/run.sh LIB_A LIB_B [pytest args...]
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref). Fetches the sdist (it carries test/) from PyPI and makes a
# venv with pytest, typing_extensions and greenlet; the sdist's lib/ is
# tested in place (pure Python). Without pytest args: the SQLite dialect
# tests, test/sql, test/orm and test/engine. Environment: SQLALCHEMY_VERSION
# (2.1.9), APPS_DIR (/tmp/ringlite-apps), PYTHON (python3; its _sqlite3
# must link libsqlite3.so.0 dynamically, as pyenv's do).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(realpath "$1"); b=$(realpath "$2"); shift 2
ver=${SQLALCHEMY_VERSION:-2.1.9}
dir=${APPS_DIR:-/tmp/ringlite-apps}/sqlalchemy
src="$dir/sqlalchemy-$ver"
mkdir -p "$dir"
if [ ! -d "$src/test" ]; then
  pip download --no-binary :all: --no-deps -d "$dir" "sqlalchemy==$ver" >/dev/null
  tar xzf "$dir/sqlalchemy-$ver.tar.gz" -C "$dir"
fi
if [ ! -x "$dir/venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q pytest typing_extensions greenlet
fi
out=$(mktemp -d)
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(test/dialect/sqlite test/dialect/test_suite.py test/sql test/orm test/engine)
DISABLE_SQLALCHEMY_CEXT_RUNTIME=1 "$here/../pytest_diff.sh" "$a" "$b" "$src" "$out" "$dir/venv/bin/python" \
  --maxfail=1000000 --dburi sqlite:// "${args[@]}"
echo "logs: $out"
