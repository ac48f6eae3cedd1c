#!/usr/bin/env bash
# Run SQLite's TCL test files under tclsh + Debian's libsqlite3-tcl, with
# either the system libsqlite3 or ringlite's (through LD_LIBRARY_PATH).
#
#   tcl/run.sh [--lib system|ringlite] [--jobs N] [--timeout S]
#              [--ratchet FILE [--update-ratchet]] [--list FILE]
#              [--results FILE.tsv] [test files...]
#
# Without files: every file in --list, else every test/*.test of the
# fetched source and the extensions' (ext/fts5/test, ext/rtree,
# ext/session); a listed name not in test/ is looked up there. Each file runs in its own scratch directory. A file
# passes when it reaches finish_test with no failed test. Prints one line
# per file, then a total. A file that ran no test at all (everything
# behind conditions) is EMPTY, neither passing nor failing. With --ratchet FILE (one passing file name per
# line): exits non-zero if a listed file no longer passes;
# --update-ratchet adds the files passing now (twice in a row). With --results FILE: also
# writes one tab-separated line per file (name, status, failed/tests, first
# failure: the first failed test with its message, the abort message, or
# for a timeout the last test reached), read by `make compat-status`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src="$here/sqlite-src/test"
lib=system jobs=2 timeout=120 ratchet="" update=0 list="" results_tsv=""
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --ratchet) ratchet=$2; shift 2 ;;
    --update-ratchet) update=1; shift ;;
    --list) list=$2; shift 2 ;;
    --results) results_tsv=$2; shift 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ ! -d "$src" ]; then
  echo "tcl/run.sh: no test sources in $src (run: make compat-tcl-fetch)" >&2
  exit 2
fi
if [ ${#files[@]} -eq 0 ]; then
  if [ -n "$list" ]; then
    mapfile -t files < <(grep -v '^#' "$list" | sed '/^$/d; s#^#'"$src"'/#')
  else
    mapfile -t files < <(ls "$src"/*.test "$src"/../ext/fts5/test/*.test "$src"/../ext/rtree/*.test "$src"/../ext/session/*.test 2>/dev/null)
  fi
fi
# A name not in test/ may be one of the extensions' test files
# (ext/fts5/test/, ext/rtree/, ext/session/ of the same source).
resolve() {
  local f=$1 n d
  [ -e "$f" ] && { realpath "$f"; return; }
  n=$(basename "$f")
  for d in "$src" "$src/../ext/fts5/test" "$src/../ext/rtree" "$src/../ext/session"; do
    [ -e "$d/$n" ] && { realpath "$d/$n"; return; }
  done
  realpath -m "$src/$n"
}
abs=()
for f in "${files[@]}"; do
  abs+=("$(resolve "$f")")
done
files=("${abs[@]}")
case "$lib" in
  system) export LD_LIBRARY_PATH="" ;;
  ringlite)
    libdir=${RINGLITE_LIBDIR:-$here/../build/lib}
    if [ ! -e "$libdir/libsqlite3.so.0" ]; then
      echo "tcl/run.sh: no $libdir/libsqlite3.so.0 (build ringlite's C library; set RINGLITE_LIBDIR)" >&2
      exit 2
    fi
    export LD_LIBRARY_PATH=$(cd "$libdir" && pwd) ;;
  *) echo "tcl/run.sh: --lib system|ringlite" >&2; exit 2 ;;
esac
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ringlite-tcl.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# (A script file, not stdin: tclsh reading stdin exits 0 after errors.)
echo 'package require sqlite3' > "$scratch/check.tcl"
if ! err=$(tclsh "$scratch/check.tcl" 2>&1); then
  echo "tcl/run.sh: tclsh cannot load sqlite3 with --lib $lib: $err" >&2
  echo "  (apt-get install libsqlite3-tcl; for ringlite, a complete libsqlite3.so.0)" >&2
  exit 2
fi
export here scratch timeout

# One file: prints "<STATUS> <name> <failed>/<tests>\t<first failure>".
run_one() {
  f=$1
  name=$(basename "$f")
  dir="$scratch/${name%.test}"
  mkdir -p "$dir" && cd "$dir" || exit 1
  # (A subshell, so that bash's "Killed" notice for a timed-out tclsh
  # does not land in the report.)
  # stdin is /dev/null: a test waiting on the terminal must not hang.
  (timeout -k 5 "$timeout" tclsh "$here/driver.tcl" "$here/tester.tcl" "$f" < /dev/null > "$dir.out" 2>&1) 2>/dev/null
  rc=$?
  out=$(tr -d '\0' < "$dir.out")
  rm -f "$dir.out"
  summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ errors out of [0-9]+ tests$' | tail -1)
  counts=$(printf '%s\n' "$summary" | awk '{print $1 "/" $5}')
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=TIMEOUT
  elif [ $rc -eq 0 ] && [ "$counts" = "0/0" ]; then status=EMPTY
  elif [ $rc -eq 0 ] && [ -n "$summary" ]; then status=PASS
  elif [ -n "$summary" ]; then status=FAIL
  else status=ABORTED; fi
  case $status in
    FAIL) cause=$(printf '%s\n' "$out" | grep -m1 -E '\.\.\. FAILED: ') ;;
    ABORTED) cause=$(printf '%s\n' "$out" | grep -m1 -E '^ABORTED: ')
      [ -n "$cause" ] || cause="crashed (exit $rc): $(printf '%s\n' "$out" | tail -1)" ;;
    TIMEOUT) cause="after $(printf '%s\n' "$out" | grep -E '\.\.\. ' | tail -1 | sed 's/\.\.\. .*//')" ;;
    *) cause="" ;;
  esac
  cause=$(printf '%s' "$cause" | tr '\t\r\n' '   ' | cut -c1-200)
  printf '%s %s %s\t%s\n' "$status" "$name" "${counts:--}" "$cause"
  rm -rf "$dir"
}
export -f run_one

start=$(date +%s)
detailed=$(printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} | sort -k2)
results=$(printf '%s\n' "$detailed" | cut -f1)
printf '%s\n' "$detailed" | sed 's/\t$//; s/\t/  # /'
if [ -n "$results_tsv" ]; then
  mkdir -p "$(dirname "$results_tsv")"
  { printf '# file\tstatus (tcl/run.sh --lib %s)\tfailed/tests\tfirst failure\n' "$lib"
    printf '%s\n' "$detailed" | awk '{ split($0, p, "\t"); split(p[1], w, " "); printf "%s\t%s\t%s\t%s\n", w[2], w[1], w[3], p[2] }'
  } > "$results_tsv"
fi
pass=$(printf '%s\n' "$results" | grep -c '^PASS ')
total=$(printf '%s\n' "$results" | grep -c .)
echo "tcl [$lib]: $pass/$total files pass ($(( $(date +%s) - start ))s)"

status=0
if [ -n "$ratchet" ]; then
  touch "$ratchet"
  # "# not ratcheted: NAME why" lines name files that never join the
  # ratchet (their result depends on something besides the library).
  excluded=$(grep '^# not ratcheted: ' "$ratchet" | awk '{print $4}')
  # A name both listed and excluded would fail on every run its outside
  # condition does not hold; refuse the list itself instead.
  contradictory=$(grep -v '^#' "$ratchet" | sed '/^$/d' | grep -xF -f <(printf '%s\n' "$excluded" | sed '/^$/d'; echo '') || true)
  for c in $contradictory; do echo "RATCHET ERROR $c is listed in $ratchet and marked not ratcheted there"; done
  [ -n "$contradictory" ] && status=1
  passing=$(printf '%s\n' "$results" | awk '$1=="PASS"{print $2}' | grep -vxF -f <(printf '%s\n' "$excluded" | sed '/^$/d'; echo '') || true)
  ran=$(printf '%s\n' "$results" | awk '{print $2}')
  regressions=$(grep -v '^#' "$ratchet" | sed '/^$/d' | while read -r n; do
    if printf '%s\n' "$ran" | grep -qxF "$n" && ! printf '%s\n' "$passing" | grep -qxF "$n"; then echo "$n"; fi
  done)
  for r in $regressions; do echo "REGRESSION $r"; done
  [ -n "$regressions" ] && status=1
  if [ $update -eq 1 ]; then
    # A file joins the ratchet only if it passes a second run too (no
    # flaky entries).
    new=$(printf '%s\n' "$passing" | sed '/^$/d' | grep -vxF -f <(grep -v '^#' "$ratchet" | sed '/^$/d') || true)
    if [ -n "$new" ]; then
      again=$(printf '%s\n' "$new" | while read -r n; do resolve "$n"; done | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} | cut -f1)
      passing=$(printf '%s\n' "$again" | awk '$1=="PASS"{print $2}')
      for f in $(printf '%s\n' "$again" | awk '$1!="PASS"{print $2}'); do echo "FLAKY $f (not added)"; done
    fi
    { echo "# SQLite TCL test files passing with --lib $lib (tcl/run.sh); a listed file failing is a regression."
      grep '^# not ratcheted: ' "$ratchet" || true
      { grep -v '^#' "$ratchet" | sed '/^$/d'; printf '%s\n' "$passing" | sed '/^$/d'; } | sort -u; } > "$ratchet.new"
    mv "$ratchet.new" "$ratchet"
  fi
  echo "ratchet $ratchet: $(printf '%s\n' "$regressions" | grep -c .) regressions"
fi
exit $status
