#!/usr/bin/env bash
# `make demo`: unchanged system programs on ringlite's libsqlite3.so.0.
# Usage: run.sh BUILD_LIB_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$1" && pwd)
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "== Python's sqlite3 module"
python3 "$here/demo.py" || exit 1
echo
echo "== The sqlite3 shell ($(command -v sqlite3))"
printf '%s\n' \
  "SELECT sqlite_version(), sqlite_source_id();" \
  "CREATE TABLE t(x INTEGER, y TEXT);" \
  "INSERT INTO t VALUES (1, 'one'), (2, 'two');" \
  "SELECT * FROM t ORDER BY x;" | sqlite3 -batch -bail :memory: 2>&1
echo "(shell exit code $?)"
echo "sqlite3 shell library: $(LD_TRACE_LOADED_OBJECTS=1 "$(command -v sqlite3)" | grep libsqlite3)"
