"""Loadable extensions through Python's sqlite3 module: enable_load_extension
and load_extension on the test extension ext_demo.c (built by run.sh into
RINGLITE_TEST_EXT_DIR, or here when run alone), the errors Python raises,
load_extension() from SQL, and Debian's sqlite3-pcre (REGEXP) when it is
installed. Paths are printed relative to the extension directory so that
the output does not depend on where it was built."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

# Some Python builds (pyenv's default) leave extension loading out of their
# sqlite3 module; the system interpreter has it.
if not hasattr(sqlite3.Connection, "load_extension"):
    for other in ("/usr/bin/python3", "/bin/python3"):
        if os.path.realpath(other) != os.path.realpath(sys.executable) and os.access(other, os.X_OK):
            os.execv(other, [other, os.path.abspath(__file__)])
    print("this Python's sqlite3 module cannot load extensions")
    sys.exit(0)

here = os.path.dirname(os.path.abspath(__file__))
ext_dir = os.environ.get("RINGLITE_TEST_EXT_DIR")
if not ext_dir or not os.path.exists(os.path.join(ext_dir, "libdemoext.so")):
    ext_dir = tempfile.mkdtemp()
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", os.path.join(ext_dir, "libdemoext.so"),
                    os.path.join(here, "ext_demo.c")], check=True)
    shutil.copy(os.path.join(ext_dir, "libdemoext.so"), os.path.join(ext_dir, "libother.so"))
demo = os.path.join(ext_dir, "libdemoext.so")


def clean(text):
    return str(text).replace(ext_dir, "<dir>")


def attempt(label, fn):
    try:
        r = fn()
        print(label, "->", clean(r))
    except sqlite3.Error as e:
        print(label, "->", type(e).__name__, clean(e))


def rows(conn, sql, params=()):
    attempt(sql, lambda: conn.execute(sql, params).fetchall())


conn = sqlite3.connect(":memory:")
attempt("load before enabling", lambda: conn.load_extension(demo))
rows(conn, "SELECT load_extension(?)", (demo,))
conn.enable_load_extension(True)
attempt("load libdemoext.so", lambda: conn.load_extension(demo))
rows(conn, "SELECT half(21), shout('py'), typeof(half(2))")
rows(conn, "SELECT product(x) FROM (SELECT 3 AS x UNION ALL SELECT 4 UNION ALL SELECT 5)")
conn.execute("CREATE TABLE words(w)")
conn.executemany("INSERT INTO words VALUES(?)", [("pear",), ("apple",), ("fig",), ("apples",)])
rows(conn, "SELECT w FROM words ORDER BY w COLLATE rev")
rows(conn, "SELECT group_concat(w, ',') FROM (SELECT w FROM words ORDER BY w COLLATE rev)")
attempt("load without suffix", lambda: conn.load_extension(demo[:-3]))
attempt("load missing file", lambda: conn.load_extension(os.path.join(ext_dir, "nosuch")))
attempt("load library without entry point", lambda: conn.load_extension(os.path.join(ext_dir, "libother.so")))
rows(conn, "SELECT load_extension(?, 'demo_alt_init')", (demo,))
rows(conn, "SELECT half_alt(1), product_alt(x) FROM (SELECT 2 AS x UNION ALL SELECT 9)")
rows(conn, "SELECT load_extension(?, 'demo_fail_init')", (demo,))
rows(conn, "SELECT entry FROM temp.demo_log")
conn.enable_load_extension(False)
attempt("load after disabling", lambda: conn.load_extension(demo))
rows(conn, "SELECT load_extension(?, 'demo_alt_init')", (demo,))
rows(conn, "SELECT half(1)")
conn.close()

# Debian's sqlite3-pcre: REGEXP backed by PCRE.
pcre = "/usr/lib/sqlite3/pcre.so"
if not os.path.exists(pcre):
    print("sqlite3-pcre not installed")
    sys.exit(0)
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
attempt("load pcre", lambda: conn.load_extension(pcre))
conn.execute("CREATE TABLE people(name, email)")
conn.executemany("INSERT INTO people VALUES(?, ?)", [
    ("Ada Lovelace", "ada@example.org"), ("alan turing", "alan@example.com"),
    ("Grace Hopper", "grace@navy.mil"), ("Edsger", None), ("Ken Thompson", "ken@bell-labs.com")])
rows(conn, "SELECT name FROM people WHERE name REGEXP '^[A-Z][a-z]+ [A-Z]' ORDER BY name")
rows(conn, "SELECT name, email REGEXP '\\.(com|org)$' FROM people ORDER BY name")
rows(conn, "SELECT 'abc' REGEXP 'B', 'abc' REGEXP '(?i)B', regexp('a+', 'caaat')")
rows(conn, "SELECT count(*) FROM people WHERE email REGEXP '@[a-z-]+\\.'")
rows(conn, "SELECT 'x' REGEXP '('")
rows(conn, "SELECT NULL REGEXP 'a', 'a' REGEXP NULL")
conn.close()
