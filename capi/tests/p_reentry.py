"""Python's sqlite3 module running SQL on a connection from inside its own
callbacks: a scalar function and an aggregate querying and writing, a
progress handler reading, and the errors SQLite gives for what a nested
statement may not do. Output is diffed between SQLite and ringlite."""
import sqlite3

con = sqlite3.connect(":memory:", isolation_level=None)
con.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
con.execute("CREATE TABLE log(x)")
con.executemany("INSERT INTO t(b) VALUES(?)", [("x" * i,) for i in range(1, 21)])


def count_upto(a):
    return con.execute("SELECT count(*) FROM t WHERE a <= ?", (a,)).fetchone()[0]


def log(v):
    con.execute("INSERT INTO log VALUES(?)", (v,))
    return con.execute("SELECT count(*) FROM log").fetchone()[0]


def try_sql(sql):
    try:
        con.execute(sql)
        return "ok"
    except sqlite3.Error as e:
        return f"{type(e).__name__}: {e}"


class Collect:
    def __init__(self):
        self.n = 0

    def step(self, v):
        con.execute("INSERT INTO log VALUES(?)", (v,))
        self.n += 1

    def finalize(self):
        return con.execute("SELECT count(*) FROM log").fetchone()[0] * 1000 + self.n


con.create_function("count_upto", 1, count_upto)
con.create_function("log", 1, log)
con.create_function("try_sql", 1, try_sql)
con.create_aggregate("collect", 1, Collect)

print(con.execute("SELECT sum(count_upto(a)) FROM t").fetchone())
print(con.execute("SELECT a, log(a) FROM t WHERE a % 5 = 0").fetchall())
print(con.execute("SELECT collect(a) FROM t WHERE a > 15").fetchone())
print(con.execute("SELECT count(*) FROM log").fetchone())
print(con.execute("SELECT try_sql('DROP TABLE t') FROM t LIMIT 1").fetchone())
print(con.execute("SELECT try_sql('CREATE TABLE inside(z)')").fetchone())
print(con.execute("SELECT name FROM sqlite_master ORDER BY 1").fetchall())

con.execute("BEGIN")
con.execute("INSERT INTO log SELECT try_sql('COMMIT') FROM t LIMIT 1")
print(con.execute("SELECT x FROM log WHERE typeof(x) = 'text'").fetchall())
con.execute("ROLLBACK")

# A generator over a query, writing to another table on the same
# connection while it is being read.
for (a,) in con.execute("SELECT a FROM t WHERE a <= 3"):
    con.execute("INSERT INTO log VALUES(?)", (-a,))
print(con.execute("SELECT count(*) FROM log WHERE x < 0").fetchone())

seen = []


def progress():
    if not seen:
        seen.append(con.execute("SELECT count(*) FROM t").fetchone()[0])
    return 0


con.set_progress_handler(progress, 10)
print(con.execute("SELECT count(*) FROM t AS x, t AS y").fetchone())
con.set_progress_handler(None, 0)
print("progress read", seen)
