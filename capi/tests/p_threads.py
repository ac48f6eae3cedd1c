"""Connections of one process on one file, one per thread, through Python's
sqlite3 module (which opens every connection with a busy timeout): in
rollback-journal and WAL mode, with autocommit, deferred and immediate
transactions, every transaction whose COMMIT succeeded is in the file and
nothing else is, the file is intact, and once the threads are done another
connection writes at once. Printed are only outcomes both libraries must
share (how many deferred transactions lose a race is timing)."""
import os
import sqlite3
import tempfile
import threading

THREADS, TXNS = 8, 25


def run(mode, begin):
    path = os.path.join(tempfile.mkdtemp(), "threads.db")
    c = sqlite3.connect(path, isolation_level=None)
    c.execute(f"PRAGMA journal_mode={mode}")
    c.execute("CREATE TABLE t(thread, seq, pad)")
    c.close()
    committed, errors, lock = [], [], threading.Lock()

    def work(i):
        db = sqlite3.connect(path, isolation_level=None, timeout=20)
        for j in range(TXNS):
            try:
                if begin:
                    db.execute(begin)
                db.execute("INSERT INTO t VALUES (?, ?, randomblob(100))", (i, j))
                if begin:
                    db.execute("COMMIT")
                with lock:
                    committed.append((i, j))
            except sqlite3.OperationalError as e:
                with lock:
                    errors.append(str(e))
                if db.in_transaction:
                    db.execute("ROLLBACK")
        db.close()

    ts = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    c = sqlite3.connect(path, isolation_level=None, timeout=0)
    rows = sorted(c.execute("SELECT thread, seq FROM t").fetchall())
    exact = rows == sorted(committed)
    ok = c.execute("PRAGMA integrity_check").fetchone()[0]
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT INTO t VALUES (-1, -1, NULL)")
    c.execute("COMMIT")
    c.close()
    only_busy = all(e == "database is locked" for e in errors)
    all_in = len(committed) == THREADS * TXNS
    line = f"{mode} {begin or 'autocommit'}: committed rows exact={exact} integrity={ok} errors all busy={only_busy}"
    if begin != "BEGIN":
        line += f" all committed={all_in}"
    print(line)


for mode in ("delete", "wal"):
    for begin in ("", "BEGIN", "BEGIN IMMEDIATE"):
        run(mode, begin)
