"""R*Tree timing: N random 2-D boxes inserted in one transaction, then Q
window queries (each a count of the boxes overlapping a 1% x 1% window),
on the library found through LD_LIBRARY_PATH. Run once per library and
compare (see bench/RESULTS.md):

    LD_LIBRARY_PATH=build/ref python3 bench/rtree_timing.py 1000000 10000
    LD_LIBRARY_PATH=build/lib python3 bench/rtree_timing.py 1000000 10000

With a third argument (a file name) the tree is built there once and later
runs only query it: `... rtree_timing.py 200000 2000 /tmp/r.db`.

Each step is reported as wall seconds and, in brackets, CPU seconds of
the process (on a shared machine the wall time mostly measures the wait).
"""
import os
import random
import sqlite3
import sys
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
q = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(42)
boxes = []
for i in range(1, n + 1):
    x, y = rng.uniform(0, 1000), rng.uniform(0, 1000)
    boxes.append((i, x, x + rng.uniform(0, 2), y, y + rng.uniform(0, 2)))
windows = []
for _ in range(q):
    x, y = rng.uniform(0, 990), rng.uniform(0, 990)
    windows.append((x + 10, x, y + 10, y))

# Optional third argument: a database file. If it exists, the inserts are
# skipped and the queries run on its tree (so both libraries query the
# same tree; write it once with either); otherwise it is built there.
path = sys.argv[3] if len(sys.argv) > 3 else ":memory:"
prebuilt = path != ":memory:" and os.path.exists(path)
c = sqlite3.connect(path, isolation_level=None)
t0 = time.perf_counter()
c0 = time.process_time()
if not prebuilt:
    c.execute("CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1)")
    c.execute("BEGIN")
    c.executemany("INSERT INTO t VALUES(?, ?, ?, ?, ?)", boxes)
    c.execute("COMMIT")
t1 = time.perf_counter()
c1 = time.process_time()
total = 0
for w in windows:
    total += c.execute("SELECT count(*) FROM t WHERE x0 <= ? AND x1 >= ? AND y0 <= ? AND y1 >= ?", w).fetchone()[0]
t2 = time.perf_counter()
c2 = time.process_time()
print(f"sqlite {sqlite3.sqlite_version} n={n} insert {t1 - t0:.2f}s (cpu {c1 - c0:.2f}s) queries={q} {t2 - t1:.2f}s (cpu {c2 - c1:.2f}s) rows={total}")
