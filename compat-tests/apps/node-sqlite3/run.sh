#!/bin/bash
# node-sqlite3's own mocha tests (test/*.test.js, unchanged) on two
# libsqlite3 builds, compared test by test.
#
#   compat-tests/apps/node-sqlite3/run.sh LIB_A LIB_B
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref). The addon is built once from source against LIB_A/.. (its
# include/ and lib/: binding.gyp's `--sqlite=DIR`, which links -lsqlite3
# instead of the bundled amalgamation) and run with LD_LIBRARY_PATH set to
# each directory in turn. The npm tarball carries no tests, so the source
# with test/ is Debian's (apt-get source --tar-only node-sqlite3, 5.1.5,
# deb-src for bookworm main); its dependencies (node-addon-api, node-pre-gyp,
# mocha) come from npm. Environment: NODE_SQLITE3_DIR (/tmp/node-sqlite3-apps).
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2")
dir=${NODE_SQLITE3_DIR:-/tmp/node-sqlite3-apps}
prefix=$(realpath "$a/..")
[ -f "$prefix/include/sqlite3.h" ] || { echo "no sqlite3.h in $prefix/include (make lib)"; exit 1; }
mkdir -p "$dir"
src=$(ls -d "$dir"/node-sqlite3-*/ 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
  (cd "$dir" && apt-get source --tar-only -qq node-sqlite3 >/dev/null 2>&1 && tar xJf node-sqlite3_*.orig.tar.xz)
  src=$(ls -d "$dir"/node-sqlite3-*/ | head -1)
fi
cd "${src%/}"
[ -d node_modules/mocha ] || npm install --ignore-scripts --no-audit --no-fund >/dev/null
# Node's headers from the local install (/usr/include/node), not a download.
nodedir=$(dirname "$(dirname "$(command -v node)")")
node_modules/.bin/node-pre-gyp rebuild --build-from-source --sqlite="$prefix" --nodedir="$nodedir" >"$dir/build.log" 2>&1 \
  || { tail -30 "$dir/build.log"; exit 1; }
for addon in lib/binding/*/node_sqlite3.node; do
  ldd "$addon" | grep -q 'libsqlite3\.so\.0' || { echo "$addon does not link libsqlite3.so.0"; exit 1; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/node-sqlite3-run.XXXXXX")
run() { # lib tag
  echo "$(LD_LIBRARY_PATH="$1" node -e '
    const fs = require("fs"), db = new (require("./lib/sqlite3").Database)(":memory:");
    db.get("select sqlite_version() v", (e, r) => console.log(r.v, "from",
      fs.readFileSync("/proc/self/maps", "utf8").match(/\/\S*libsqlite3\S*/)[0]));')"
  # test/support/big.db (a million rows, read by each.test.js) is written by
  # the library under test, as `npm test`'s pretest step does.
  rm -f test/support/big.db test/tmp/*
  LD_LIBRARY_PATH="$1" node test/support/createdb.js >/dev/null
  LD_LIBRARY_PATH="$1" node_modules/.bin/mocha -R tap --timeout 480000 >"$out/$2.log" 2>&1 || true
  echo "$(grep -E '^# (tests|pass|fail)' "$out/$2.log" | tr '\n' ' ') <- $2 ($1)"
}
run "$a" a
run "$b" b
# (Some test names carry Date.now(): long numbers are masked.)
per_test() { grep -E '^(not )?ok [0-9]' "$1" | sed -E 's/^((not )?ok) [0-9]+/\1/; s/[0-9]{10,}/N/g' | sort; }
if diff <(per_test "$out/a.log") <(per_test "$out/b.log") >"$out/tests.diff"; then
  echo "same result for every test ($(per_test "$out/a.log" | wc -l))"
else
  echo "tests that differ:"; cat "$out/tests.diff"
fi
echo "logs: $out"
