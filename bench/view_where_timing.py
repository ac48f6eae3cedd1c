"""CPU time per statement of queries reading a view (or FROM subquery)
through a WHERE term on a 100,000-row table t(a INTEGER PRIMARY KEY, b INT,
c TEXT) with an index on b, on whichever libsqlite3 Python loads; best of 3
runs on a fresh in-memory database:
    LD_LIBRARY_PATH=build/lib python3 bench/view_where_timing.py
    LD_LIBRARY_PATH=build/ref python3 bench/view_where_timing.py
SQLite flattens the plain view (one index search); the aggregate view and
the LIMIT-free DISTINCT subquery are not flattened, and SQLite pushes the
WHERE term into them (an index search inside the subquery)."""
import sqlite3, time, os
print(sqlite3.sqlite_version, os.environ.get("LD_LIBRARY_PATH"))
ROWS = 100000
CASES = [
    ("plain view, b = ?", "SELECT * FROM v WHERE b = ?", 200),
    ("plain view, a = ? (rowid)", "SELECT * FROM v WHERE a = ?", 200),
    ("aggregate view, b = ?", "SELECT * FROM vg WHERE b = ?", 200),
    ("DISTINCT subquery, b = ?", "SELECT * FROM (SELECT DISTINCT b, c FROM t) AS s WHERE s.b = ?", 200),
    ("CTE, b = ?", "WITH w AS (SELECT a, b FROM t) SELECT * FROM w WHERE b = ?", 200),
]
db = sqlite3.connect(":memory:", isolation_level=None)
db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c TEXT)")
db.execute("BEGIN")
db.executemany("INSERT INTO t VALUES(?,?,?)", ((i, i * 7 % 5000, "text%d" % (i % 97)) for i in range(1, ROWS + 1)))
db.execute("COMMIT")
db.execute("CREATE INDEX tb ON t(b)")
db.execute("CREATE VIEW v AS SELECT a, b, c FROM t")
db.execute("CREATE VIEW vg AS SELECT b, count(*) AS n, max(c) AS m FROM t GROUP BY b")
for name, sql, n in CASES:
    best = None
    rows = 0
    for _ in range(3):
        t = time.process_time()
        rows = 0
        for i in range(n):
            rows += len(db.execute(sql, ((i * 37) % 5000 + (1 if "rowid" in name else 0),)).fetchall())
        d = time.process_time() - t
        best = d if best is None else min(best, d)
    print("%-28s %8.3f ms/statement (%d rows per run)" % (name, best * 1000 / n, rows))
