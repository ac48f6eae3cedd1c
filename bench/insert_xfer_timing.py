"""CPU time of INSERT INTO z2 SELECT * FROM z1 (50,000 rows), without and
with identical indexes, on whichever libsqlite3 Python loads:
    LD_LIBRARY_PATH=build/lib python3 bench/insert_xfer_timing.py
    LD_LIBRARY_PATH=<dir of reference libsqlite3.so.0> python3 bench/insert_xfer_timing.py
An extra argument prints the EXPLAIN of the statement."""
import sqlite3, time, sys, os
print(sqlite3.sqlite_version, os.environ.get("LD_LIBRARY_PATH"))
def run(indexes, rows=50000, reps=5):
    best = None
    for _ in range(reps):
        db = sqlite3.connect(":memory:")
        db.execute("CREATE TABLE z1(a INTEGER, b INTEGER, c TEXT)")
        db.execute("CREATE TABLE z2(a INTEGER, b INTEGER, c TEXT)")
        if indexes:
            db.execute("CREATE INDEX z1b ON z1(b)"); db.execute("CREATE INDEX z2b ON z2(b)")
            db.execute("CREATE INDEX z1c ON z1(c)"); db.execute("CREATE INDEX z2c ON z2(c)")
        db.execute("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<?) INSERT INTO z1 SELECT i, (i*7919)%100000, printf('text %d of the row', i*31) FROM s", (rows,))
        db.commit()
        t = time.process_time()
        db.execute("INSERT INTO z2 SELECT * FROM z1")
        db.commit()
        d = time.process_time() - t
        assert db.execute("SELECT count(*) FROM z2").fetchone()[0] == rows
        best = d if best is None else min(best, d)
        db.close()
    return best * 1000
print("no index: %.1f ms" % run(False))
print("2 indexes (empty dst): %.1f ms" % run(True))
if len(sys.argv) > 1:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE z1(a INTEGER, b INTEGER, c TEXT)")
    db.execute("CREATE TABLE z2(a INTEGER, b INTEGER, c TEXT)")
    for r in db.execute("EXPLAIN INSERT INTO z2 SELECT * FROM z1"): print(r)
