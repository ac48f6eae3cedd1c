"""Named in-memory databases shared by the connections of the process
(`file:x?mode=memory&cache=shared`, `file::memory:?cache=shared`, ATTACH of
such a URI) through Python's sqlite3 module: every connection on one name
sees the others' commits, the database dies with its last connection,
`:memory:` and `mode=memory` without `cache=shared` stay private, and
threads committing into one such database lose no rows. Not printed: what a
reader gets while another connection writes (SQLite's shared cache refuses
it with "database table is locked", ringlite's file locks let it read the
last committed state)."""
import sqlite3
import threading


def conn(name):
    return sqlite3.connect(name, uri=True, timeout=20, check_same_thread=False)


def result(c, sql):
    try:
        return c.execute(sql).fetchall()
    except sqlite3.Error as e:
        return f"{type(e).__name__}: {e}"


for name in ["file:memdb1?mode=memory&cache=shared", "file::memory:?cache=shared"]:
    a, b = conn(name), conn(name)
    a.execute("CREATE TABLE t(x)")
    a.execute("INSERT INTO t VALUES (1)")
    a.commit()
    print(name, "second connection sees", result(b, "SELECT count(*) FROM t"))
    c = conn(name)
    c.execute("INSERT INTO t VALUES (2)")
    c.commit()
    print(name, "first connection sees", result(a, "SELECT count(*) FROM t"))
    a.execute("INSERT INTO t VALUES (3)")
    a.rollback()
    print(name, "after a rollback", result(b, "SELECT count(*) FROM t"))
    for x in (a, b, c):
        x.close()
    d = conn(name)
    print(name, "after the last close", result(d, "SELECT count(*) FROM t"))
    d.close()

for name in [":memory:", "file:private?mode=memory", "file::memory:"]:
    p1, p2 = conn(name), conn(name)
    p1.execute("CREATE TABLE t(x)")
    print(name, "private:", result(p2, "SELECT * FROM t"))

try:
    sqlite3.connect("file:x?mode=memory&cache=public", uri=True)
    print("cache=public opened")
except sqlite3.Error as e:
    print("cache=public:", e)

m1, m2 = conn(":memory:"), conn(":memory:")
for m in (m1, m2):
    m.execute("ATTACH 'file:att?mode=memory&cache=shared' AS aux")
m1.execute("CREATE TABLE aux.t(x)")
m1.execute("INSERT INTO aux.t VALUES (7)")
m1.commit()
print("attached by two connections:", result(m2, "SELECT * FROM aux.t"))

THREADS, TXNS = 4, 50
name = "file:threads?mode=memory&cache=shared"
keep = conn(name)
keep.execute("CREATE TABLE t(th, seq)")
keep.commit()
errors = []


def work(th):
    c = conn(name)
    for i in range(TXNS):
        while True:
            try:
                c.execute("INSERT INTO t VALUES (?, ?)", (th, i))
                c.commit()
                break
            except sqlite3.OperationalError as e:
                c.rollback()
                if "locked" not in str(e):
                    errors.append(str(e))
                    return
    c.close()


threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("threads:", result(keep, "SELECT count(*), count(DISTINCT th * 1000 + seq) FROM t"), "errors:", errors)
