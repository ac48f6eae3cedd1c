#!/usr/bin/env bash
# The ringlite shell against SQLite's: each *.sql script here is fed on
# standard input to the system shell (/usr/bin/sqlite3 on the system
# library) and to ringlite's shell (on build/lib's library), in a scratch
# directory holding copies of the data files; standard output, standard
# error and the exit code must be the same. NAME.args holds command-line
# arguments for both (the database file name first, if any). Where SQLite
# 3.40.1's shell (the system's) and 3.54.1's differ, NAME.expected holds
# ringlite's reviewed output instead (stdout, then "--- stderr", then
# "--- exit N"), with the reason in its first line ("# why: ...").
#   compat-tests/shell/run.sh [RINGLITE_BINARY] [SCRIPT...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
ours=$(realpath "${1:-$here/../../build/bin/ringlite}")
shift || true
sys=/usr/bin/sqlite3
[ -x "$sys" ] || { echo "no $sys: apt-get install sqlite3"; exit 1; }
[ -x "$ours" ] || { echo "no $ours: make shell"; exit 1; }
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=("$here"/*.sql)
pass=0; fail=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# One run: stdout, "--- stderr", stderr, "--- exit N"; timings masked.
run() { # binary script dir
  local bin=$1 script=$2 dir=$3 args=()
  rm -rf "$dir"; mkdir -p "$dir"; cp "$here"/data/* "$dir"/ 2>/dev/null
  [ -f "${script%.sql}.args" ] && eval "args=($(cat "${script%.sql}.args"))"
  (cd "$dir" && timeout 20 "$bin" "${args[@]}" < "$script" > out 2> err; echo "--- exit $?" > rc)
  { sed -E -e 's/^Run Time: .*/Run Time: (masked)/' -e '/^-- async:/s/\b[1-9][0-9]*\b/N/g' "$dir/out"; echo "--- stderr"; cat "$dir/err"; cat "$dir/rc"; }
}
for s in "${scripts[@]}"; do
  [ -f "$s" ] || s="$here/$s"
  [ -f "$s" ] || { echo "FAIL no such script: $s"; fail=$((fail+1)); continue; }
  s=$(realpath "$s"); name=$(basename "$s" .sql)
  run "$ours" "$s" "$work/run" > "$work/ours.txt"
  if [ -f "${s%.sql}.expected" ]; then
    grep -v '^# why:' "${s%.sql}.expected" > "$work/want.txt"
  else
    run "$sys" "$s" "$work/run" > "$work/want.txt"
  fi
  if cmp -s "$work/want.txt" "$work/ours.txt"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL $name"; diff -a "$work/want.txt" "$work/ours.txt" | head -20
  fi
done
echo "shell: $pass passed, $fail failed"
[ $fail -eq 0 ]
