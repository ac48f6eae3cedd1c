#!/usr/bin/env bash
# dqlite (Debian's libdqlite0 + go-dqlite) on ringlite: dqlite registers
# its own in-memory VFS, replicates the WAL frames it finds there through
# Raft, and reads them back with SQLITE_FCNTL_JOURNAL_POINTER, so it
# exercises application VFSes end to end. Starts a cluster of dqlite-demo
# nodes on loopback with ringlite as libsqlite3.so.0, writes keys through
# one node, reads them through every node; with three nodes or more,
# stops the first leader and writes and reads through the survivors (a
# new leader elected); stops the nodes (by PID).
# Usage: run.sh LIBDIR [NODES]   (skips, exit 0, when dqlite-demo is absent)
set -uo pipefail
lib=$(cd "$1" && pwd)
nodes=${2:-3}
if ! command -v dqlite-demo >/dev/null || ! command -v curl >/dev/null; then
  echo "SKIP dqlite (apt-get install go-dqlite libdqlite0 curl)"; exit 0
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
base=$((20000 + RANDOM % 20000))
api() { echo "127.0.0.1:$((base + $1))"; }
db() { echo "127.0.0.1:$((base + 100 + $1))"; }
for i in $(seq 1 "$nodes"); do
  join=()
  [ "$i" -gt 1 ] && join=(--join "$(db 1)")
  mkdir -p "$work/n$i"
  LD_PRELOAD=${DQ_PRELOAD:-} LD_LIBRARY_PATH="$lib" timeout 120 dqlite-demo --api "$(api "$i")" --db "$(db "$i")" --dir "$work/n$i" "${join[@]}" > "$work/n$i.log" 2>&1 &
  pids+=($!)
  sleep 2
done
fail=0
for k in 1 2 3 4 5; do
  got=$(curl -s -m 10 -X PUT -d "value-$k" "http://$(api 1)/key$k")
  [ "$got" = "done" ] || { echo "PUT key$k: '$got'"; fail=1; }
done
sleep 2
for i in $(seq 1 "$nodes"); do
  for k in 1 2 3 4 5; do
    got=$(curl -s -m 10 "http://$(api "$i")/key$k")
    [ "$got" = "value-$k" ] || { echo "GET key$k from node $i: '$got'"; fail=1; }
  done
done
# The loss of a node: node 1 (the first leader) is stopped; the others
# elect a new leader (with three voters, two are a quorum), take a write
# through node 2 and serve every key through each remaining node.
if [ "$nodes" -ge 3 ] && [ $fail = 0 ]; then
  kill "${pids[0]}" 2>/dev/null
  wait "${pids[0]}" 2>/dev/null
  got=""
  for try in $(seq 1 30); do
    got=$(curl -s -m 10 -X PUT -d "value-6" "http://$(api 2)/key6")
    [ "$got" = "done" ] && break
    sleep 1
  done
  [ "$got" = "done" ] || { echo "PUT key6 through node 2 after node 1 stopped: '$got'"; fail=1; }
  for i in $(seq 2 "$nodes"); do
    for k in 1 6; do
      got=$(curl -s -m 10 "http://$(api "$i")/key$k")
      [ "$got" = "value-$k" ] || { echo "GET key$k from node $i after node 1 stopped: '$got'"; fail=1; }
    done
  done
  lost=", node 1 stopped: a new leader took key6 through node 2, every key read back through the others"
fi
if [ $fail = 0 ]; then
  echo "PASS dqlite ($nodes nodes: 5 keys written through node 1, read back through each${lost:-})"
else
  for i in $(seq 1 "$nodes"); do echo "--- node $i"; grep -v DEBUG "$work/n$i.log" | tail -${DQ_TAIL:-5}; done
  echo "FAIL dqlite"
fi
exit $fail
