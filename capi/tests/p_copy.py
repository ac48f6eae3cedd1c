"""Whole-database copies and blob I/O through Python's sqlite3 module:
Connection.backup (whole and page by page with progress), serialize and
deserialize, blobopen (read, write, seek, errors) and VACUUM / VACUUM INTO.
Run on both libraries by run.sh; outputs must match."""
import os
import sqlite3
import tempfile

tmp = tempfile.mkdtemp()
src = sqlite3.connect(":memory:", isolation_level=None)
src.executescript("""
    CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, data BLOB);
    CREATE INDEX tn ON t(name);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<500)
    INSERT INTO t SELECT i, 'name ' || i, zeroblob(i * 3) FROM n;
    PRAGMA user_version = 42;
""")

def summary(con):
    return (con.execute("SELECT count(*), sum(id), sum(length(data)), max(name) FROM t").fetchone(),
            con.execute("PRAGMA user_version").fetchone()[0],
            con.execute("PRAGMA integrity_check").fetchone()[0])

# backup into a file, all at once
dst = sqlite3.connect(os.path.join(tmp, "copy.db"))
src.backup(dst)
print("backup:", summary(dst))
dst.close()

# backup page by page, with progress
calls = []
dst = sqlite3.connect(":memory:")
src.backup(dst, pages=4, progress=lambda status, remaining, total: calls.append((status, remaining, total)))
print("paged backup:", summary(dst), "steps>3:", len(calls) > 3, "statuses:", sorted(set(c[0] for c in calls)),
      "counts down:", all(a[1] - b[1] == 4 for a, b in zip(calls, calls[1:-1])), "last remaining:", calls[-1][1])
try:
    src.backup(dst, name="nosuch")
except sqlite3.OperationalError as e:
    print("backup error:", e)

# serialize / deserialize
image = src.serialize()
print("serialized: header", image[:16], "size multiple of page:", len(image) % 4096 == 0)
fresh = sqlite3.connect(":memory:")
fresh.deserialize(image)
print("deserialized:", summary(fresh))
fresh.execute("INSERT INTO t(name) VALUES('added')")
fresh.commit()
print("after insert:", fresh.execute("SELECT max(id), count(*) FROM t").fetchone())
again = sqlite3.connect(":memory:")
again.deserialize(fresh.serialize())
print("round trip:", summary(again))

# blob I/O
con = sqlite3.connect(":memory:")
con.execute("CREATE TABLE b(id INTEGER PRIMARY KEY, x BLOB, y TEXT)")
con.execute("INSERT INTO b VALUES(1, zeroblob(10000), 'text'), (2, x'0102030405', NULL)")
con.commit()
with con.blobopen("b", "x", 1) as blob:
    print("blob len:", len(blob))
    blob.seek(5000)
    blob.write(b"written in the middle")
    blob.seek(5000)
    print("read back:", blob.read(21))
    print("tell:", blob.tell())
    blob[0] = 65
    print("index:", blob[0], blob[1], blob[9999])
    try:
        blob.write(b"x" * 10)
        blob.seek(9995)
        blob.write(b"0123456789")
    except ValueError as e:
        print("write past end:", e)
con.commit()
print("stored:", con.execute("SELECT length(x), substr(x, 5001, 21), hex(substr(x, 1, 2)) FROM b WHERE id = 1").fetchone())
with con.blobopen("b", "x", 2, readonly=True) as blob:
    print("readonly read:", blob.read())
    try:
        blob.seek(0)
        blob.write(b"z")
    except sqlite3.OperationalError as e:
        print("readonly write:", e)
for args in [("b", "x", 3), ("b", "y", 2), ("nosuch", "x", 1), ("b", "nosuch", 1)]:
    try:
        con.blobopen(*args)
    except sqlite3.OperationalError as e:
        print("blobopen", args, "->", e)

# VACUUM and VACUUM INTO
path = os.path.join(tmp, "vac.db")
v = sqlite3.connect(path, isolation_level=None)
v.executescript("""
    CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, data BLOB);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<2000)
    INSERT INTO t SELECT i, 'name ' || i, randomblob(100) FROM n;
    DELETE FROM t WHERE id % 10 <> 0;
    PRAGMA user_version = 42;
""")
before = os.path.getsize(path)
v.execute("VACUUM")
print("vacuum shrank:", os.path.getsize(path) < before, summary(v))
v.execute("VACUUM INTO ?", (os.path.join(tmp, "into.db"),))
into = sqlite3.connect(os.path.join(tmp, "into.db"))
print("vacuum into:", summary(into))
try:
    v.execute("BEGIN")
    v.execute("VACUUM")
except sqlite3.OperationalError as e:
    print("vacuum in transaction:", e)
v.execute("ROLLBACK")
try:
    v.execute("VACUUM INTO ?", (os.path.join(tmp, "into.db"),))
except sqlite3.OperationalError as e:
    print("vacuum into existing:", e)
