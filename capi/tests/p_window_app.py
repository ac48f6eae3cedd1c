"""Application window functions (create_window_function) as SQLite runs
them: over a moving ROWS frame one accumulator per partition takes
step/inverse/value calls in SQLite's order and finalize once at the
partition's end, whose error is not reported; errors of value and inverse
are. Also RANGE/GROUPS frames, FILTER and the default frames. Output is
diffed between SQLite and ringlite."""
import sqlite3

c = sqlite3.connect(":memory:")
c.execute("create table t(x, y, g)")
c.executemany("insert into t values(?,?,?)", [(i, i * 10, i % 3) for i in range(1, 11)])
log = []


def make(fail=None, missing=None):
    class W:
        def __init__(self):
            self.v = 0
            log.append("init")

        def step(self, a):
            if fail == "step":
                raise ValueError
            self.v += a
            log.append(f"s{a}")

        def inverse(self, a):
            if fail == "inverse":
                raise ValueError
            self.v -= a
            log.append(f"i{a}")

        def value(self):
            if fail == "value":
                raise ValueError
            log.append("v")
            return self.v

        def finalize(self):
            log.append("f")
            if fail == "finalize":
                raise ValueError
            return self.v

    if missing:
        delattr(W, missing)
    return W


c.create_window_function("w", 1, make())
moving = [
    "select x, w(y) over (order by x rows between 1 preceding and 1 following) from t",
    "select x, w(y) over (partition by g order by x rows between 1 preceding and current row) from t order by x",
    "select x, w(y) over (order by x rows between current row and 2 following) from t",
    "select x, w(y) filter (where x % 2 = 0) over (order by x rows between 2 preceding and 1 following) from t",
    "select x, w(y) over win from t window win as (partition by g order by x rows between unbounded preceding and 1 following)",
]
for q in moving:
    log.clear()
    print(c.execute(q).fetchall())
    print(" ".join(log))
others = [
    "select x, w(y) over (order by x) from t",
    "select x, w(y) over () from t",
    "select x, w(y) over (order by x range between 15 preceding and 15 following) from t",
    "select x, w(y) over (order by x groups between 1 preceding and 1 following) from t",
    "select g, w(y) from t group by g",
]
for q in others:
    print(c.execute(q).fetchall())
for fail in ["step", "inverse", "value", "finalize"]:
    c.create_window_function("w", 1, make(fail=fail))
    for q in moving[:2] + others[:1]:
        try:
            print(fail, c.execute(q).fetchall())
        except sqlite3.Error as e:
            print(fail, type(e).__name__, e)
for missing in ["inverse", "value", "finalize"]:
    c.create_window_function("w", 1, make(missing=missing))
    try:
        print(missing, c.execute(moving[0]).fetchall())
    except sqlite3.Error as e:
        print(missing, type(e).__name__, e)
