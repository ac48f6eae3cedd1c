"""Replay a statement trace (trace_backend) on the loaded libsqlite3 and print
one line per statement: its rows (type-tagged) or its error."""
import json, sys, sqlite3
import django
from django.conf import settings
settings.configure(USE_TZ=False)
django.setup()
from django.db.backends.sqlite3._functions import register as register_functions

def tag(v):
    if isinstance(v, float):
        return "r" + repr(v)
    if isinstance(v, bytes):
        return "b" + v.hex()
    return v

conns = {}
out = open(sys.argv[2], "w")
n = 0
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if "o" in rec:
        c = sqlite3.connect(rec["db"], uri=True, isolation_level=None, check_same_thread=False)
        register_functions(c)
        conns[rec["o"]] = c
        continue
    if "x" in rec:
        c = conns.pop(rec["x"], None)
        if c is not None:
            c.close()
        continue
    n += 1
    sql = rec["s"]
    if sql.lstrip().startswith("--"):
        continue
    c = conns.get(rec["c"])
    if c is None:
        continue
    try:
        cur = c.execute(sql)
        rows = cur.fetchall()
        desc = [d[0] for d in cur.description] if cur.description else None
        res = json.dumps([desc, [[tag(v) for v in r] for r in rows]])
    except Exception as e:
        res = "ERR %s: %s" % (type(e).__name__, e)
    out.write("%d\t%s\n" % (n, res))
