"""Two connections to one file through Python's sqlite3 module: a writer's
lock makes the other writer fail with "database is locked" after its busy
timeout, readers still see the last committed state, and the commit makes
the change visible. Run on both libraries by run.sh; outputs must match."""
import os
import sqlite3
import tempfile

path = os.path.join(tempfile.mkdtemp(), "locking.db")
a = sqlite3.connect(path, isolation_level=None, timeout=0.1)
a.execute("CREATE TABLE t(x)")
b = sqlite3.connect(path, isolation_level=None, timeout=0.1)
a.execute("BEGIN IMMEDIATE")
a.execute("INSERT INTO t VALUES (1)")
print("a in transaction:", a.in_transaction)
try:
    b.execute("INSERT INTO t VALUES (2)")
    print("second writer: no error")
except sqlite3.OperationalError as e:
    print("second writer:", e)
print("b reads:", b.execute("SELECT count(*) FROM t").fetchone())
a.execute("COMMIT")
print("b after commit:", b.execute("SELECT count(*) FROM t").fetchone())
b.execute("INSERT INTO t VALUES (2)")
print("a sees:", a.execute("SELECT group_concat(x) FROM t").fetchone())
a.close()
b.close()
