"""Python's own sqlite3 module, unchanged, running on ringlite.

Run with LD_LIBRARY_PATH pointing at ringlite's build/lib (capi/demo/run.sh
does this). Shows which library the interpreter loaded, proves it is
ringlite (a symbol only ringlite exports), then runs a small workload.
"""
import ctypes
import sqlite3
import sys


def loaded_sqlite_path():
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libsqlite3" in line:
                return line.split()[-1]
    return "?"


print("python", sys.version.split()[0], "| sqlite3 module loaded", loaded_sqlite_path())
print("sqlite3.sqlite_version =", sqlite3.sqlite_version)
lib = ctypes.CDLL("libsqlite3.so.0")
is_ringlite = hasattr(lib, "sqlite3_io_poll")
print("ringlite extension sqlite3_io_poll present:", is_ringlite)
lib.sqlite3_sourceid.restype = ctypes.c_char_p
print("sqlite3_sourceid() =", lib.sqlite3_sourceid().decode())

try:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE fruit(id INTEGER PRIMARY KEY, name TEXT, price REAL)")
    con.executemany("INSERT INTO fruit(name, price) VALUES (?, ?)",
                    [("apple", 1.25), ("pear", 0.8), ("kiwi", 2.0)])
    con.commit()
    for row in con.execute("SELECT id, name, price FROM fruit ORDER BY price DESC"):
        print("row:", row)
    sql_version = con.execute("SELECT sqlite_version()").fetchone()[0]
    print("sqlite_version() in SQL =", sql_version)
    if sql_version != sqlite3.sqlite_version:
        print("  (the SQL function still reports the engine's built-in version; it does"
              " not follow the build's version setting yet)")
    con.close()
    print("demo: python workload OK")
except sqlite3.Error as e:
    print("demo: the engine cannot run this yet:", type(e).__name__, e)
sys.exit(0 if is_ringlite else 1)
