"""FTS5 timing: N generated documents (seeded, Zipf-like vocabulary, 50-200
tokens each, two columns) indexed in one transaction, then Q MATCH queries
of the shapes a search box sends (one term, two-term AND, OR, phrase,
prefix, NEAR, column filter, NOT), ranked by bm25 (`ORDER BY rank` or
`ORDER BY bm25(t)`) with LIMIT 10, with highlight()/snippet() on the
results; on the library found through LD_LIBRARY_PATH. Prints build and
query times, a checksum of the answers (equal on both libraries) and the
peak RSS. Times are CPU seconds of the process (the machine may be
shared). Run once per library and compare (see bench/RESULTS.md):

    LD_LIBRARY_PATH=build/ref python3 bench/fts5_timing.py 100000 10000
    LD_LIBRARY_PATH=build/lib python3 bench/fts5_timing.py 100000 10000

With a third argument (a file name) the index is built there once and
later runs only query it: `... fts5_timing.py 100000 400 /tmp/q.db`.

Ties in bm25 may come back in either order (neither library promises
one): the checksum counts the scores and the rows scoring strictly better
than the tenth.
"""
import hashlib
import os
import random
import resource
import sqlite3
import sys
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
q = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(20)

# Vocabulary: 20,000 made-up words; word k drawn with weight 1/(k+1).
letters = "abcdefghijklmnopqrstuvwxyz"
vocab = []
seen = set()
while len(vocab) < 20000:
    w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
    if w not in seen and w not in ("and", "or", "not", "near"):
        seen.add(w)
        vocab.append(w)
weights = [1.0 / (k + 1) for k in range(len(vocab))]
cum = []
acc = 0.0
for w in weights:
    acc += w
    cum.append(acc)


def words(k):
    return rng.choices(vocab, cum_weights=cum, k=k)


docs = []
for i in range(1, n + 1):
    title = " ".join(words(rng.randint(3, 8)))
    body = " ".join(words(rng.randint(50, 200)))
    docs.append((i, title, body))


def mid_word():
    # A word of middling frequency (ranks 30..3000), so queries match a
    # few hundred to a few ten thousand rows.
    return vocab[int(30 * (100 ** rng.random()))]


def rare_word():
    return vocab[rng.randint(100, 19999)]


queries = []
for k in range(q):
    shape = k % 8
    if shape == 0:
        m = mid_word()
    elif shape == 1:
        m = f"{mid_word()} {mid_word()}"
    elif shape == 2:
        m = f"{rare_word()} OR {rare_word()}"
    elif shape == 3:
        d = docs[rng.randrange(n)][2].split()
        j = rng.randrange(len(d) - 1)
        m = f'"{d[j]} {d[j + 1]}"'
    elif shape == 4:
        w = rare_word()
        m = f"{w[:3]}*" if len(w) >= 3 else w
    elif shape == 5:
        m = f"NEAR({mid_word()} {mid_word()}, 10)"
    elif shape == 6:
        m = f"title:{mid_word()} {mid_word()}"
    else:
        m = f"{mid_word()} NOT {mid_word()}"
    order = "rank" if k % 2 == 0 else "bm25(t)"
    queries.append((m, order))

# Optional third argument: a database file. If it exists, the build is
# skipped and the queries run on its index (so both libraries query the
# same index; write it once with either); otherwise it is built there.
path = sys.argv[3] if len(sys.argv) > 3 else ":memory:"
prebuilt = path != ":memory:" and os.path.exists(path)
c = sqlite3.connect(path, isolation_level=None)
t0 = time.process_time()
if not prebuilt:
    c.execute("CREATE VIRTUAL TABLE t USING fts5(title, body)")
    c.execute("BEGIN")
    c.executemany("INSERT INTO t(rowid, title, body) VALUES(?, ?, ?)", docs)
    c.execute("COMMIT")
t1 = time.process_time()
h = hashlib.sha256()
nrows = 0
per_order = {"rank": 0.0, "bm25(t)": 0.0}
for m, order in queries:
    tq = time.process_time()
    rs = c.execute(
        f"SELECT rowid, {order}, highlight(t, 0, '[', ']'), snippet(t, 1, '[', ']', '...', 8) "
        f"FROM t WHERE t MATCH ? ORDER BY {order} LIMIT 10",
        (m,),
    ).fetchall()
    per_order[order] += time.process_time() - tq
    nrows += len(rs)
    last = rs[-1][1] if rs else None
    for r in rs:
        h.update(f"{r[1]:.9g}".encode())
        if r[1] != last:
            h.update(f"{r[0]}|{r[2]}|{r[3]}".encode())
t2 = time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(
    f"sqlite {sqlite3.sqlite_version} n={n} build {t1 - t0:.2f}s queries={q} {t2 - t1:.2f}s "
    f"({(t2 - t1) / max(q, 1) * 1e3:.3f} ms/query; ORDER BY rank {per_order['rank']:.2f}s, ORDER BY bm25(t) {per_order['bm25(t)']:.2f}s) rows={nrows} checksum={h.hexdigest()[:16]} maxrss={rss // 1024} MB"
)
