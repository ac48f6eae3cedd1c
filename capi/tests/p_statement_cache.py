"""Python's statement cache across changes SQLite makes statements follow.

The sqlite3 module keeps prepared statements by their SQL text and runs
them again; SQLite re-prepares one that a schema change, a redefined or
deleted function or collation, or a changed setting made stale. run.sh
runs this with the reference library and with ringlite and requires the
same output (issue 17 section 2).
"""
import sqlite3


def show(label, value):
    print(f"{label}: {value!r}")


def attempt(label, con, sql):
    try:
        show(label, con.execute(sql).fetchall())
    except sqlite3.Error as e:
        show(label, f"{type(e).__name__}: {e}")


con = sqlite3.connect(":memory:", isolation_level=None)

# A foreign key list cached, the table dropped and created without the key.
con.executescript("create table p(id integer primary key); create table t(a references p)")
attempt("fk before", con, "pragma foreign_key_list(t)")
con.executescript("drop table t; create table t(b, a)")
attempt("fk after", con, "pragma foreign_key_list(t)")
con.execute("alter table t add column c references p(id)")
attempt("fk added", con, "pragma foreign_key_list(t)")

# Columns, indexes and the table list follow too.
attempt("columns", con, "select name from pragma_table_info('t')")
attempt("indexes", con, "pragma index_list(t)")
con.execute("create index ti on t(c)")
con.execute("alter table t rename column b to bb")
attempt("columns renamed", con, "select name from pragma_table_info('t')")
attempt("indexes created", con, "pragma index_list(t)")

# A function redefined, then deleted.
con.create_function("f", 0, lambda: 1)
attempt("f", con, "select f()")
con.create_function("f", 0, lambda: 2)
attempt("f redefined", con, "select f()")
con.create_function("f", 0, None)
attempt("f deleted", con, "select f()")

# A built-in function overridden.
attempt("upper", con, "select upper('x')")
con.create_function("upper", 1, lambda s: "overridden " + s)
attempt("upper overridden", con, "select upper('x')")

# A collation redefined and removed.
con.execute("create table s(x)")
con.executemany("insert into s values (?)", [("b",), ("a",), ("c",)])
con.create_collation("c", lambda a, b: (a > b) - (a < b))
attempt("collation", con, "select x from s order by x collate c")
con.create_collation("c", lambda a, b: (b > a) - (b < a))
attempt("collation redefined", con, "select x from s order by x collate c")
con.create_collation("c", None)
attempt("collation removed", con, "select x from s order by x collate c")

# Foreign keys switched on: a cached INSERT checks them.
con.execute("create table cc(x references p(id))")
con.execute("insert into cc values (?)", (5,))
con.execute("pragma foreign_keys = on")
try:
    con.execute("insert into cc values (?)", (5,))
    show("fk enforced", "inserted")
except sqlite3.Error as e:
    show("fk enforced", f"{type(e).__name__}: {e}")

# A temp table of the same name hides the main one, then goes.
attempt("s", con, "select * from s order by 1")
con.execute("create temp table s(y)")
con.execute("insert into s values ('temp')")
attempt("s hidden", con, "select * from s order by 1")
con.execute("drop table temp.s")
attempt("s back", con, "select * from s order by 1")

# Another connection changes the schema of a shared file.
import os
import tempfile

d = tempfile.mkdtemp()
path = os.path.join(d, "shared.db")
a = sqlite3.connect(path, isolation_level=None)
b = sqlite3.connect(path, isolation_level=None)
a.execute("create table w(x references p, y)")
a.execute("insert into w values (1, 2)")
attempt("w", a, "select * from w")
attempt("w fk", a, "pragma foreign_key_list(w)")
b.execute("drop table w")
b.execute("create table w(y, x, z)")
b.execute("insert into w values (3, 4, 5)")
attempt("w changed", a, "select * from w")
attempt("w fk changed", a, "pragma foreign_key_list(w)")
a.close()
b.close()
os.remove(path)
os.rmdir(d)
