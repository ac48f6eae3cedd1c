#!/bin/bash
# Perl's DBD::SQLite test suite (t/, unchanged) on two libsqlite3 builds,
# compared test by test.
#
#   compat-tests/apps/dbd-sqlite/run.sh LIB_A LIB_B
#
# LIB_A/LIB_B are directories holding libsqlite3.so.0 (build/lib and
# build/ref), chosen with LD_LIBRARY_PATH. The suite comes from Debian's
# source package (apt-get source libdbd-sqlite3-perl: DBD::SQLite 1.72 with
# Debian's patch that links the system libsqlite3 instead of the bundled
# copy) and runs twice per library:
#   installed  Debian's binary package libdbd-sqlite3-perl (built against
#              the system's 3.40.1 headers), as a Perl program uses it;
#   built      the same source built here against LIB_A/../include's
#              sqlite3.h (3.54.1: the code paths the newer API enables),
#              `prove -b`.
# Needs apt (deb-src for bookworm main, as the Makefile's deps set up) and
# libdbi-perl. Environment: DBD_DIR (/tmp/dbd-sqlite-apps).
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2")
dir=${DBD_DIR:-/tmp/dbd-sqlite-apps}
inc=$(realpath "$a/../include")
[ -f "$inc/sqlite3.h" ] || { echo "no sqlite3.h in $inc (make lib)"; exit 1; }
dpkg -s libdbd-sqlite3-perl >/dev/null 2>&1 \
  || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libdbd-sqlite3-perl >/dev/null
mkdir -p "$dir"
src=$(ls -d "$dir"/libdbd-sqlite3-perl-*/ 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
  (cd "$dir" && apt-get source -qq libdbd-sqlite3-perl >/dev/null 2>&1)
  src=$(ls -d "$dir"/libdbd-sqlite3-perl-*/ | head -1)
fi
src=${src%/}
# The "built" copy: a separate tree so the "installed" run never sees blib/.
if [ ! -f "$dir/built/blib/arch/auto/DBD/SQLite/SQLite.so" ]; then
  rm -rf "$dir/built"; cp -r "$src" "$dir/built"
  (cd "$dir/built" && perl Makefile.PL SQLITE_LOCATION="$(realpath "$a/..")" SQLITE_INC="$inc" SQLITE_LIB="$a" \
    >"$dir/built.configure.log" 2>&1 && make >"$dir/built.make.log" 2>&1)
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/dbd-sqlite-run.XXXXXX")
run() { # mode lib tag
  local tree=$src flags=() inc=()
  [ "$1" = built ] && { tree="$dir/built"; flags=(-b); inc=(-Mblib="$tree"); }
  # The tests name their databases by process id and delete them (t/lib).
  (cd "$tree" && env LD_LIBRARY_PATH="$2" prove "${flags[@]}" -v t/ >"$out/$3.log" 2>&1) || true
  echo "$(LD_LIBRARY_PATH="$2" perl "${inc[@]}" -MDBI -e \
      'print DBI->connect("dbi:SQLite::memory:")->selectrow_array("select sqlite_version()");
       open my $m, "<", "/proc/self/maps"; print " from ", (map { m{(/\S*libsqlite3\S*)} ? $1 : () } <$m>)[0]' 2>&1)" \
    "$(grep -E '^(Files=|Result:)' "$out/$3.log" | tr '\n' ' ') <- $1 $3 ($2)"
}
# Per test: "file: ok N - name" / "not ok"; numbers and temporary paths in
# names are masked (they carry process ids, temporary directories and
# byte counts such as "current used cache: 19610").
# (Test names hold Latin-1 bytes: the text tools work on bytes.)
per_test() {
  local -x LC_ALL=C
  awk '/^t\/.*\.t \.\./ { f=$1 } /^(not )?ok [0-9]/ { print f": "$0 }' "$1" \
    | sed -E 's|/tmp/[A-Za-z0-9_]+|TMP|g; s/^([^:]*: (not )?ok [0-9]+)(.*)$/\1\n\3/' \
    | sed -E '/^t\//! s/[0-9]+/N/g' | paste -d '' - - | sort
}
for mode in installed built; do
  run $mode "$a" ${mode}_a
  run $mode "$b" ${mode}_b
  if diff -a <(per_test "$out/${mode}_a.log") <(per_test "$out/${mode}_b.log") >"$out/$mode.diff"; then
    echo "$mode: same result for every test ($(per_test "$out/${mode}_a.log" | wc -l) test lines)"
  else
    echo "$mode: tests that differ (ringlite <, SQLite >; whole diff in $out/$mode.diff), per file:"
    grep -a '^[<>]' "$out/$mode.diff" | LC_ALL=C sed -E 's/: (not )?ok .*//' | LC_ALL=C sort | uniq -c
    grep -a '^< .*: not ok' "$out/$mode.diff" || true
  fi
done
echo "logs: $out"
