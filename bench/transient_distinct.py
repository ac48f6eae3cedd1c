"""Peak memory of a big SELECT DISTINCT: 2,000,000 distinct integers in no
order through Python's sqlite3 module, PRAGMA cache_size=100. Run it under
/usr/bin/time -v with LD_LIBRARY_PATH naming ringlite's build/lib or the
reference build/ref (bench/RESULTS.md, "Transient tables").
Usage: python3 bench/transient_distinct.py [DATABASE]   (default :memory:)"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else ":memory:")
db.execute("PRAGMA cache_size=100")
n = db.execute("""WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000)
SELECT count(*) FROM (SELECT DISTINCT (x * 7919) % 2000003 AS k FROM c)""").fetchone()[0]
print(sqlite3.sqlite_version, n)
