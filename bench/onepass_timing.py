"""CPU time per statement of UPDATE/DELETE on a 50,000-row table (a INTEGER,
b INTEGER, c TEXT, d INT) with a UNIQUE index on b and an index on c (the
shapes of speedtest1's tests 230/250/270/280), on whichever libsqlite3
Python loads; best of 3 runs, each in one transaction on a fresh file:
    LD_LIBRARY_PATH=build/lib python3 bench/onepass_timing.py
    LD_LIBRARY_PATH=<dir of reference libsqlite3.so.0> python3 bench/onepass_timing.py"""
import sqlite3, time, os, tempfile
print(sqlite3.sqlite_version, os.environ.get("LD_LIBRARY_PATH"))
ROWS = 50000
CASES = [
    ("UPDATE ... WHERE b BETWEEN (10 rows)", "UPDATE z2 SET d=b*2 WHERE b BETWEEN ?1 AND ?2", lambda i: ((i * 37) % (ROWS - 10), (i * 37) % (ROWS - 10) + 9), 5000),
    ("UPDATE ... WHERE rowid=?", "UPDATE z2 SET d=d+1 WHERE rowid=?", lambda i: ((i * 37) % ROWS + 1,), 20000),
    ("UPDATE z2 SET d=b*4 (whole table)", "UPDATE z2 SET d=b*4", lambda i: (), 5),
    ("DELETE ... WHERE b BETWEEN (10 rows)", "DELETE FROM z2 WHERE b BETWEEN ?1 AND ?2", lambda i: (i * 10, i * 10 + 9), 2000),
    ("DELETE ... WHERE rowid=?", "DELETE FROM z2 WHERE rowid=?", lambda i: (i * 3 + 20001,), 5000),
]
def fresh(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE z2(a INTEGER, b INTEGER, c TEXT, d INT)")
    db.execute("BEGIN")
    db.executemany("INSERT INTO z2 VALUES(?,?,?,?)", ((i, i * 7 % ROWS, "text%d" % (i * 13 % ROWS), i) for i in range(ROWS)))
    db.execute("CREATE UNIQUE INDEX z2b ON z2(b)")
    db.execute("CREATE INDEX z2c ON z2(c)")
    db.execute("COMMIT")
    return db
path = os.path.join(tempfile.gettempdir(), "onepass_timing_%d.db" % os.getpid())
for name, sql, args, n in CASES:
    best = None
    for _ in range(3):
        db = fresh(path)
        db.execute("BEGIN")
        t = time.process_time()
        for i in range(n):
            db.execute(sql, args(i))
        d = time.process_time() - t
        db.execute("COMMIT")
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()
        best = d if best is None else min(best, d)
    print("%-40s %9.1f us/statement" % (name, best / n * 1e6))
os.remove(path)
