"""File names that are not valid UTF-8 (Unix names are bytes): the file is
created under exactly that name, by a plain path and by a percent-encoded
URI, reopened, and reported back by the database list. Output is diffed
between SQLite and ringlite."""
import os
import sqlite3
import tempfile
import urllib.parse

d = tempfile.mkdtemp()
raw = os.path.join(os.fsencode(d), b"db-\xff\xfe-caf\xc3\xa9.sqlite")
name = os.fsdecode(raw)
with sqlite3.connect(name) as c:
    c.execute("create table t(x)")
    c.execute("insert into t values(1)")
c.close()
print("exists", os.path.exists(raw), sorted(os.listdir(os.fsencode(d))) == [os.path.basename(raw)])
c = sqlite3.connect(name)
print(c.execute("select x from t").fetchall())
c.text_factory = bytes
print("listed", c.execute("pragma database_list").fetchall()[0][2] == raw)
c.close()
uri = "file:" + urllib.parse.quote(os.fsencode(d) + b"/u-\xff.db")
c = sqlite3.connect(uri, uri=True)
c.execute("create table u(y)")
c.close()
print("uri", os.path.exists(os.fsencode(d) + b"/u-\xff.db"))
for f in os.listdir(os.fsencode(d)):
    os.unlink(os.path.join(os.fsencode(d), f))
os.rmdir(d)
