"""Python's sqlite3 module, unchanged, on ringlite and on reference SQLite.

run.sh runs this twice, with LD_LIBRARY_PATH pointing at each library, and
requires identical output. It exercises what applications do through the
module: parameters, executemany, cursors and rows, transactions, errors,
user-defined functions, aggregates and collations, blobs, a file database
reopened from disk.
"""
import os
import sqlite3
import sys
import tempfile
import threading


def show(label, value):
    print(f"{label}: {value!r}")


con = sqlite3.connect(":memory:")
cur = con.cursor()
cur.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, score REAL, data BLOB)")
cur.execute("INSERT INTO t(name, score, data) VALUES (?, ?, ?)", ("ann", 9.5, b"\x00\x01"))
show("lastrowid", cur.lastrowid)
show("rowcount", cur.rowcount)
cur.executemany("INSERT INTO t(name, score) VALUES (:n, :s)", [{"n": "bob", "s": 7}, {"n": "cy", "s": None}])
show("executemany rowcount", cur.rowcount)
con.commit()
cur.execute("SELECT id, name, score, data FROM t ORDER BY id")
show("description", [d[0] for d in cur.description])
for row in cur.fetchall():
    show("row", row)
show("fetchone none", cur.execute("SELECT 1 WHERE 0").fetchone())

try:
    con.execute("INSERT INTO t(name) VALUES ('ann')")
except sqlite3.IntegrityError as e:
    show("IntegrityError", str(e))
try:
    con.execute("SELECT * FROM nowhere")
except sqlite3.OperationalError as e:
    show("OperationalError", str(e))
try:
    con.execute("SELEC 1")
except sqlite3.OperationalError as e:
    show("syntax", str(e))

con.commit()
con.execute("BEGIN")
con.execute("UPDATE t SET score = score * 2")
show("in_transaction", con.in_transaction)
con.rollback()
show("after rollback", con.execute("SELECT sum(score) FROM t").fetchone())

con.create_function("twice", 1, lambda x: None if x is None else x * 2)
show("function", con.execute("SELECT twice(score), twice(name) FROM t ORDER BY id").fetchall())


class Concat:
    def __init__(self):
        self.parts = []

    def step(self, v):
        self.parts.append(str(v))

    def finalize(self):
        return "|".join(self.parts)


con.create_aggregate("concat", 1, Concat)
show("aggregate", con.execute("SELECT concat(name) FROM t").fetchone())
con.create_collation("backwards", lambda a, b: (a < b) - (a > b))
show("collation", con.execute("SELECT name FROM t ORDER BY name COLLATE backwards").fetchall())

con.row_factory = sqlite3.Row
r = con.execute("SELECT id, name FROM t WHERE id = 2").fetchone()
show("Row", (r["id"], r["name"], r.keys()))
con.row_factory = None

show("types", con.execute("SELECT 1, 1.5, 'x', x'0102', NULL, 2 > 1").fetchone())
show("big int", con.execute("SELECT ?", (2**62,)).fetchone())
show("unicode", con.execute("SELECT ?, length(?)", ("héllo ✓", "héllo ✓")).fetchone())
traced = []
con.set_trace_callback(traced.append)
con.execute("INSERT INTO t(name) VALUES (?)", ("traced",))
con.commit()
con.execute("SELECT count(*) FROM t WHERE data IS ? OR name > 'x'", ("x'y",)).fetchall()
con.set_trace_callback(None)
show("traced", traced)
calls = []
con.set_progress_handler(lambda: calls.append(1) or 0, 1)
con.execute("SELECT 1").fetchall()
con.set_progress_handler(None, 0)
show("progress called", len(calls) > 0)
show("total_changes", con.total_changes)
show("isolation", con.isolation_level)
show("complete", (sqlite3.complete_statement("SELECT 1;"), sqlite3.complete_statement("SELECT 1")))
con.close()

path = os.path.join(tempfile.mkdtemp(), "demo.db")
db = sqlite3.connect(path)
db.execute("CREATE TABLE kv(k TEXT PRIMARY KEY, v)")
db.executemany("INSERT INTO kv VALUES (?, ?)", [(f"key{i}", i * i) for i in range(200)])
db.commit()
db.close()
db = sqlite3.connect(path)
show("reopened", db.execute("SELECT count(*), sum(v), max(k) FROM kv").fetchone())
show("integrity", db.execute("PRAGMA integrity_check").fetchone())
db.close()
shared = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
shared.execute("CREATE TABLE w(t, i)")


def worker(t):
    for i in range(100):
        shared.execute("INSERT INTO w VALUES (?, ?)", (t, i))


threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
show("threads", shared.execute("SELECT count(*), count(DISTINCT t), sum(i) FROM w").fetchone())
shared.close()
print("done", file=sys.stderr)
