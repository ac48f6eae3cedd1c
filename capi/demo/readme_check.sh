#!/usr/bin/env bash
# `make test-readme`: the README's "Two commands" block, run as a new user
# would. Each `make X` line of the block must name a Makefile target; every
# command but `make test` (the run that calls this script) is run, and must
# succeed in the time the README promises a fresh machine (6 minutes;
# here, after make test's build, it is a link and the demo itself).
# Usage: readme_check.sh README.md
set -euo pipefail
readme=$1
root=$(cd "$(dirname "$readme")" && pwd)
block=$(awk '/^## Two commands/{f=1; next} f && /^```sh/{c=1; next} c && /^```/{exit} c' "$readme")
commands=$(printf '%s\n' "$block" | sed -n 's/^\(make [a-z-]*\).*/\1/p')
[ -n "$commands" ] || { echo "FAIL: no commands in the README's 'Two commands' block"; exit 1; }
status=0
while read -r cmd; do
  target=${cmd#make }
  if ! make -C "$root" -n "$target" >/dev/null 2>&1; then
    echo "FAIL: README says '$cmd', which is not a Makefile target"; status=1; continue
  fi
  [ "$target" = test ] && { echo "ok: '$cmd' is this run"; continue; }
  start=$(date +%s)
  if out=$(make -C "$root" --no-print-directory "$target" 2>&1); then
    took=$(( $(date +%s) - start ))
    if [ "$target" = demo ] && ! grep -q 'ringlite-' <<<"$out"; then
      echo "FAIL: '$cmd' did not run on ringlite (no ringlite marker in its output)"; printf '%s\n' "$out" | tail -20; status=1
    elif [ "$took" -gt 360 ]; then
      echo "FAIL: '$cmd' took ${took}s (over 6 minutes)"; status=1
    else echo "ok: '$cmd' (${took}s)"; fi
  else
    echo "FAIL: '$cmd' failed"; printf '%s\n' "$out" | tail -30; status=1
  fi
done <<<"$commands"
exit $status
