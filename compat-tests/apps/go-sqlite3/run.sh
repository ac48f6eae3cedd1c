#!/bin/bash
# github.com/mattn/go-sqlite3's own tests on two libsqlite3 builds, compared
# test by test.
#
#   compat-tests/apps/go-sqlite3/run.sh LIB_A LIB_B
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref). The driver is built once with `-tags libsqlite3` (it then links
# -lsqlite3 instead of its bundled amalgamation) against LIB_A and the
# headers in LIB_A/../include, into one test binary (`go test -c`), which is
# run with LD_LIBRARY_PATH set to each directory in turn. Needs the Go module
# proxy. Environment: GO_SQLITE3_VERSION (v1.14.53), GO_SQLITE3_DIR
# (/tmp/go-sqlite3-apps), GO_TAGS (the README's feature tags that work with a
# system library: each needs only API symbols the library exports).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(realpath "$1"); b=$(realpath "$2")
ver=${GO_SQLITE3_VERSION:-v1.14.53}
dir=${GO_SQLITE3_DIR:-/tmp/go-sqlite3-apps}
tags=${GO_TAGS:-libsqlite3 sqlite_vtable sqlite_preupdate_hook sqlite_column_metadata sqlite_math_functions sqlite_unlock_notify sqlite_serialize}
inc=$(realpath "$a/../include")
[ -f "$inc/sqlite3.h" ] || { echo "no sqlite3.h in $inc (make lib)"; exit 1; }
mkdir -p "$dir"
export GOPATH="$dir/gopath" GOFLAGS=-modcacherw
src="$dir/go-sqlite3-$ver"
if [ ! -f "$src/go.mod" ]; then
  mod=$(go mod download -json "github.com/mattn/go-sqlite3@$ver" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  rm -rf "$src"; cp -r "$mod" "$src"; chmod -R u+w "$src"
fi
export CGO_ENABLED=1 CGO_CFLAGS="-I$inc" CGO_LDFLAGS="-L$a"
(cd "$src" && go test -c -tags "$tags" -o "$dir/go-sqlite3.test" .)
mkdir -p "$dir/vercheck"
cp "$here/vercheck.go" "$dir/vercheck/main.go"
printf 'module vercheck\n\ngo 1.21\n\nrequire github.com/mattn/go-sqlite3 %s\n\nreplace github.com/mattn/go-sqlite3 => %s\n' "$ver" "$src" >"$dir/vercheck/go.mod"
(cd "$dir/vercheck" && go build -tags "$tags" -o "$dir/vercheck.bin" .)
ldd "$dir/go-sqlite3.test" | grep -q 'libsqlite3\.so\.0' || { echo "test binary does not link libsqlite3.so.0"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/go-sqlite3-run.XXXXXX")
# The unlock-notify tests run on their own, under a short timeout: they
# commit from a goroutine that calls t.Fatal on failure and then wait for
# it forever, so a failed commit (ringlite: a `cache=shared` file is not a
# shared cache, the open reader blocks the writer, see README
# *Differences*) hangs the test binary, losing the results after it.
run() { # lib tag
  LD_LIBRARY_PATH="$1" "$dir/vercheck.bin"
  # The tests create their files in the working directory and TMPDIR.
  mkdir -p "$out/work_$2"
  (cd "$out/work_$2" && env LD_LIBRARY_PATH="$1" TMPDIR="$out/work_$2" \
    "$dir/go-sqlite3.test" -test.v -test.count=1 -test.timeout 30m -test.skip '^TestUnlockNotify' >"$out/$2.log" 2>&1) || true
  (cd "$out/work_$2" && env LD_LIBRARY_PATH="$1" TMPDIR="$out/work_$2" \
    "$dir/go-sqlite3.test" -test.v -test.count=1 -test.timeout 60s -test.run '^TestUnlockNotify' >>"$out/$2.log" 2>&1) || true
  echo "$(grep -c -- '--- PASS' "$out/$2.log") pass, $(grep -c -- '--- FAIL' "$out/$2.log") fail," \
    "$(grep -c -- '--- SKIP' "$out/$2.log") skip, $(grep -c '^panic: ' "$out/$2.log") panics <- $2 ($1)"
}
run "$a" a
run "$b" b
per_test() { grep -E -- '^ *--- (PASS|FAIL|SKIP)|^panic: ' "$1" | sed -E 's/ \([0-9.]+s\)//' | sort; }
if diff <(per_test "$out/a.log") <(per_test "$out/b.log") >"$out/tests.diff"; then
  echo "same result for every test"
else
  echo "tests that differ:"; cat "$out/tests.diff"
fi
echo "logs: $out"
