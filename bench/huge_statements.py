"""Prepare+run time of huge single statements (issue #18): a 100,000- and
a 500,000-row multi-row VALUES; 10,000- and 100,000-term chains (`1+1+...`,
`x AND x AND ...`, `x = 0 OR ...`: past SQLITE_LIMIT_EXPR_DEPTH, so the
time is that of reaching the error; `andlit`, `orlit`, `concat` are
chains of literals, 998 terms being the deepest legal one; `fold`
(`0 AND 1 AND ...`) and `foldx` (`1 AND 0 AND x AND ...` in a WHERE)
are chains SQLite's parser folds to 0, legal at any length; the `wide...`
cases are the deep fuzzer's column-list shapes, 2,000 columns being
SQLITE_LIMIT_COLUMN), `x IN (...)` lists of literals or
`?` variables, CASE with 10,000 WHENs, 100 result columns of 999-term
sums (legal depth), multi-column VALUES rows in a FROM subquery (the
parse-tree path, not the bulk INSERT one) and a million-arm UNION ALL
(past the compound limit: the time is that of reaching the error).
Each case runs in a child process per library (so both libsqlite3.so.0
are timed in one run), best of 3, a new text each
time (no statement or program cache helps), printed with the ratio
ringlite/SQLite, each child's peak RSS and whether the outcomes (row
count or error message) agree:
    python3 bench/huge_statements.py build/lib /work/main/build/ref [case...]
A `case:N` argument runs that case at N terms instead of the listed
sizes (`plus:500000 and:170000` are statements of about 1 MB).
"""
import os, subprocess, sys, json

CHILD = r'''
import sqlite3, sys, time, resource, json
case = sys.argv[1]
n = int(sys.argv[2])
db = sqlite3.connect(":memory:", isolation_level=None, cached_statements=0)
db.execute("CREATE TABLE t(a, b, c)")
db.execute("CREATE TABLE u(x)")
db.execute("INSERT INTO u VALUES(1)")
params = ()
if case == "values":
    sql = "INSERT INTO t VALUES " + ",".join("(%d,'v%d',%d.5)" % (i, i, i) for i in range(n))
elif case == "plus":
    sql = "SELECT " + "+".join(["1"] * n)
elif case == "and":
    sql = "SELECT * FROM u WHERE " + " AND ".join(["x"] * n)
elif case == "in":
    sql = "SELECT * FROM u WHERE x IN (" + ",".join(str(i) for i in range(n)) + ")"
elif case == "vars":
    sql = "SELECT * FROM u WHERE x IN (" + ",".join(["?"] * n) + ")"
    params = tuple(range(n))
elif case == "or":
    sql = "SELECT * FROM u WHERE " + " OR ".join("x=%d" % i for i in range(n))
elif case == "sums":
    sql = "SELECT " + ",".join(["+".join(["1"] * 999)] * n)
elif case == "subvalues":
    sql = "INSERT INTO t(a) SELECT 1 FROM (VALUES " + ",".join("(%d,'x',2.5)" % i for i in range(n)) + ")"
elif case == "andlit":
    sql = "SELECT " + " AND ".join(["1"] * n)
elif case == "fold":
    sql = "SELECT 0 AND " + " AND ".join(["1"] * (n - 1))
elif case == "foldx":
    sql = "SELECT * FROM u WHERE 1 AND 0 AND " + " AND ".join(["x"] * (n - 2))
elif case == "orlit":
    sql = "SELECT " + " OR ".join(["0"] * n)
elif case == "concat":
    sql = "SELECT " + "||".join(["'a'"] * n)
elif case == "parens":
    sql = "SELECT " + "(" * n + "1" + ")" * n
elif case.startswith("wide"):
    cols = lambda f: ", ".join(f(i) for i in range(n))
    abc = lambda i: "abc"[i % 3]
    sql = {
        "widesel": lambda: "SELECT " + cols(lambda i: str(i % 100)),
        "wideorder": lambda: "SELECT a FROM t ORDER BY " + cols(abc),
        "widegroup": lambda: "SELECT count(*) FROM t GROUP BY " + cols(abc),
        "widevalues": lambda: "VALUES(%s), (%s)" % (cols(str), cols(str)),
        "wideupdate": lambda: "UPDATE t SET " + cols(lambda i: "%s = %d" % (abc(i), i)),
        "widestar": lambda: "SELECT %s FROM t" % cols(lambda i: ["*", "a", "t.*"][i % 3]),
        "widecte": lambda: "WITH w AS (SELECT %s) SELECT * FROM w" % cols(str),
        "widereturning": lambda: "INSERT INTO t VALUES(1, 2, 3) RETURNING " + cols(abc),
        "widetable": lambda: "CREATE TABLE w@I@(%s)" % cols(lambda i: "c%d" % i),
        "wideindex": lambda: "CREATE INDEX w@I@ ON t(%s)" % cols(abc),
    }[case]()
elif case == "compound":
    sql = " UNION ALL ".join("SELECT %d" % i for i in range(n))
elif case == "case":
    sql = "SELECT CASE x " + " ".join("WHEN %d THEN %d" % (i, i) for i in range(n)) + " END FROM u"
best = None
for i in range(3):
    db.execute("DELETE FROM t")
    text = sql.replace("@I@", str(i)) + " -- %d" % i  # a new text: no cached program
    t = time.perf_counter()
    try:
        outcome = len(db.execute(text, params).fetchall())
    except sqlite3.Error as e:
        outcome = str(e)
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print(json.dumps([best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, outcome]))
'''

CASES = [("values", 100000), ("values", 500000), ("plus", 10000), ("plus", 100000), ("and", 10000),
         ("and", 100000), ("or", 10000), ("in", 10000), ("in", 100000),
         ("case", 10000), ("vars", 10000), ("vars", 30000), ("sums", 100),
         ("subvalues", 100000), ("subvalues", 1000000), ("compound", 1000000)]


def run(libdir, case, n):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.abspath(libdir))
    out = subprocess.run([sys.executable, "-c", CHILD, case, str(n)], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        return [float("nan"), 0, "crash: %s" % out.stderr.strip().splitlines()[-1:]]
    return json.loads(out.stdout)


def main():
    ours, ref = sys.argv[1], sys.argv[2]
    only = sys.argv[3:] or [c for c, _ in CASES]
    sized = [(a.split(":")[0], int(a.split(":")[1])) for a in only if ":" in a]
    print("%-7s %7s %10s %10s %6s %7s %7s  %s" % ("case", "terms", "ours s", "sqlite s", "ratio", "RSS MB", "ref MB", "outcome"))
    for case, n in sized or CASES:
        if not sized and case not in only:
            continue
        a = run(ours, case, n)
        b = run(ref, case, n)
        same = "same" if a[2] == b[2] else "DIFFERENT: ours %r, SQLite %r" % (a[2], b[2])
        print("%-7s %7d %10.4f %10.4f %6.1f %7.0f %7.0f  %s %s" % (case, n, a[0], b[0], a[0] / b[0], a[1] / 1024, b[1] / 1024, str(a[2])[:40], same))


main()
