"""Prepare and run one wide statement of bench/huge_statements.py REPS times
(each a new text), for instruction counts under valgrind:

    LD_LIBRARY_PATH=LIBDIR valgrind --tool=callgrind python3 bench/wide_drive.py CASE N REPS

CASE "none" is `SELECT 1`, the baseline to subtract."""
import sqlite3, sys
case, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE t(a, b, c)")
abc = lambda i: "abc"[i % 3]
cols = lambda f: ", ".join(f(i) for i in range(n))
sql = {
    "widesel": lambda: "SELECT " + cols(lambda i: str(i % 100)),
    "widegroup": lambda: "SELECT count(*) FROM t GROUP BY " + cols(abc),
    "widecte": lambda: "WITH w AS (SELECT %s) SELECT * FROM w" % cols(str),
    "wideindex": lambda: "CREATE INDEX w@I@ ON t(%s)" % cols(abc),
    "none": lambda: "SELECT 1",
}[case]()
for i in range(reps):
    text = sql.replace("@I@", str(i)) + " -- %d" % i
    db.execute(text).fetchall()
