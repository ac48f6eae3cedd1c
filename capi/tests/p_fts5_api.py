"""FTS5 extended from Python through ctypes, as packages that register
their own FTS5 tokenizers and ranking functions do: the fts5_api pointer
from SELECT fts5(?1) (sqlite3_bind_pointer), a tokenizer written in Python
and an auxiliary function written in Python, used by SQL run through the
interpreter's sqlite3 module. run.sh runs it on the reference library and
on ringlite and requires identical output.
"""
import ctypes
import sqlite3
from ctypes import (CFUNCTYPE, POINTER, Structure, byref, c_char_p, c_int,
                    c_int64, c_void_p, string_at)

lib = ctypes.CDLL("libsqlite3.so.0")
lib.sqlite3_prepare_v2.argtypes = [c_void_p, c_char_p, c_int, POINTER(c_void_p), c_void_p]
lib.sqlite3_bind_pointer.argtypes = [c_void_p, c_int, c_void_p, c_char_p, c_void_p]
lib.sqlite3_step.argtypes = [c_void_p]
lib.sqlite3_finalize.argtypes = [c_void_p]
lib.sqlite3_result_text.argtypes = [c_void_p, c_char_p, c_int, c_void_p]
lib.sqlite3_result_int64.argtypes = [c_void_p, c_int64]
lib.sqlite3_value_text.argtypes = [c_void_p]
lib.sqlite3_value_text.restype = c_char_p
lib.sqlite3_value_int64.argtypes = [c_void_p]
lib.sqlite3_value_int64.restype = c_int64
lib.sqlite3_result_error.argtypes = [c_void_p, c_char_p, c_int]
lib.sqlite3_get_autocommit.argtypes = [c_void_p]

XTOKEN = CFUNCTYPE(c_int, c_void_p, c_int, c_void_p, c_int, c_int, c_int)
XCREATE = CFUNCTYPE(c_int, c_void_p, POINTER(c_char_p), c_int, POINTER(c_void_p))
XDELETE = CFUNCTYPE(None, c_void_p)
XTOKENIZE = CFUNCTYPE(c_int, c_void_p, c_void_p, c_int, c_void_p, c_int, XTOKEN)


class Fts5Tokenizer(Structure):
    _fields_ = [("xCreate", XCREATE), ("xDelete", XDELETE), ("xTokenize", XTOKENIZE)]


class Fts5ExtensionApi(Structure):
    pass


AUXFN = CFUNCTYPE(None, POINTER(Fts5ExtensionApi), c_void_p, c_void_p, c_int, POINTER(c_void_p))
Fts5ExtensionApi._fields_ = [
    ("iVersion", c_int),
    ("xUserData", CFUNCTYPE(c_void_p, c_void_p)),
    ("xColumnCount", CFUNCTYPE(c_int, c_void_p)),
    ("xRowCount", CFUNCTYPE(c_int, c_void_p, POINTER(c_int64))),
    ("xColumnTotalSize", CFUNCTYPE(c_int, c_void_p, c_int, POINTER(c_int64))),
    ("xTokenize", CFUNCTYPE(c_int, c_void_p, c_char_p, c_int, c_void_p, XTOKEN)),
    ("xPhraseCount", CFUNCTYPE(c_int, c_void_p)),
    ("xPhraseSize", CFUNCTYPE(c_int, c_void_p, c_int)),
    ("xInstCount", CFUNCTYPE(c_int, c_void_p, POINTER(c_int))),
    ("xInst", CFUNCTYPE(c_int, c_void_p, c_int, POINTER(c_int), POINTER(c_int), POINTER(c_int))),
    ("xRowid", CFUNCTYPE(c_int64, c_void_p)),
    ("xColumnText", CFUNCTYPE(c_int, c_void_p, c_int, POINTER(c_void_p), POINTER(c_int))),
    ("xColumnSize", CFUNCTYPE(c_int, c_void_p, c_int, POINTER(c_int))),
]


class Fts5Api(Structure):
    _fields_ = [
        ("iVersion", c_int),
        ("xCreateTokenizer", CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, POINTER(Fts5Tokenizer), c_void_p)),
        ("xFindTokenizer", c_void_p),
        ("xCreateFunction", CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, AUXFN, c_void_p)),
    ]


con = sqlite3.connect(":memory:")
# The sqlite3* of the connection: the first member after the object header.
db = c_void_p.from_address(id(con) + 2 * ctypes.sizeof(c_void_p)).value
print("autocommit:", lib.sqlite3_get_autocommit(db))

stmt = c_void_p()
api_ptr = POINTER(Fts5Api)()
print("prepare:", lib.sqlite3_prepare_v2(db, b"SELECT fts5(?1)", -1, byref(stmt), None))
print("bind:", lib.sqlite3_bind_pointer(stmt, 1, ctypes.addressof(api_ptr), b"fts5_api_ptr", None))
print("step:", lib.sqlite3_step(stmt))
lib.sqlite3_finalize(stmt)
api = api_ptr.contents
print("fts5_api version:", api.iVersion)

# A tokenizer: words separated by spaces, each indexed reversed and lower-cased.
instances = {}


@XCREATE
def rev_create(user, argv, argc, out):
    args = [argv[i].decode() for i in range(argc)]
    handle = len(instances) + 1
    instances[handle] = args
    out[0] = handle
    return 0


@XDELETE
def rev_delete(handle):
    instances.pop(handle, None)


@XTOKENIZE
def rev_tokenize(handle, ctx, flags, text, n, xtoken):
    data = string_at(text, n) if n > 0 else b""
    pos = 0
    for word in data.split(b" "):
        if word:
            tok = word[::-1].lower()
            rc = xtoken(ctx, 0, ctypes.cast(c_char_p(tok), c_void_p), len(tok), pos, pos + len(word))
            if rc:
                return rc
        pos += len(word) + 1
    return 0


tokenizer = Fts5Tokenizer(rev_create, rev_delete, rev_tokenize)
print("create tokenizer:", api.xCreateTokenizer(ctypes.cast(api_ptr, c_void_p), b"rev", None, byref(tokenizer), None))


@AUXFN
def describe(papi, fts, ctx, nval, vals):
    a = papi.contents
    nrow = c_int64()
    a.xRowCount(fts, byref(nrow))
    ninst = c_int()
    a.xInstCount(fts, byref(ninst))
    parts = [f"rowid={a.xRowid(fts)} cols={a.xColumnCount(fts)} rows={nrow.value} phrases={a.xPhraseCount(fts)}"]
    for i in range(ninst.value):
        p, c, o = c_int(), c_int(), c_int()
        a.xInst(fts, i, byref(p), byref(c), byref(o))
        z, nz = c_void_p(), c_int()
        a.xColumnText(fts, c.value, byref(z), byref(nz))
        parts.append(f"inst {p.value}/{c.value}/{o.value} in {string_at(z, nz.value).decode()!r}")
    toks = []

    @XTOKEN
    def collect(_ctx, flags, tok, ntok, start, end):
        toks.append(string_at(tok, ntok).decode())
        return 0

    a.xTokenize(fts, b"Abc Def", 7, None, collect)
    parts.append("tokenize: " + ",".join(toks))
    parts.extend(lib.sqlite3_value_text(vals[i]).decode() for i in range(nval))
    lib.sqlite3_result_text(ctx, "; ".join(parts).encode(), -1, c_void_p(-1))


print("create function:", api.xCreateFunction(ctypes.cast(api_ptr, c_void_p), b"describe", None, describe, None))

con.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize='rev x y')")
con.executemany("INSERT INTO docs VALUES (?, ?)", [
    ("Hello World", "first Document here"),
    ("Another one", "hello again world"),
    ("Third", "nothing to see"),
])
print("tokenizer args:", sorted(set(tuple(v) for v in instances.values())))
for q in ["hello", "world", "hello AND again", "one", "tsri*", "olleh"]:
    rows = con.execute("SELECT rowid, describe(docs, 'extra') FROM docs WHERE docs MATCH ? ORDER BY rowid", (q,)).fetchall()
    print(q, rows)
print(con.execute("SELECT rowid, highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'world' ORDER BY rowid").fetchall())


# An auxiliary function as the rank function: the table's 'rank' option
# and the query's rank MATCH, ORDER BY rank both ways.
@AUXFN
def myrank(papi, fts, ctx, nval, vals):
    a = papi.contents
    ninst = c_int()
    a.xInstCount(fts, byref(ninst))
    mult = lib.sqlite3_value_int64(vals[0]) if nval > 0 else 1
    if mult < 0:
        lib.sqlite3_result_error(ctx, b"negative multiplier", -1)
        return
    lib.sqlite3_result_int64(ctx, ninst.value * 100 + a.xRowid(fts) * mult)


print("create rank function:", api.xCreateFunction(ctypes.cast(api_ptr, c_void_p), b"myrank", None, myrank, None))
con.execute("INSERT INTO docs(docs, rank) VALUES('rank', 'myrank(7)')")
for sql in [
    "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello OR world OR nothing' ORDER BY rank",
    "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello OR world OR nothing' ORDER BY rank DESC",
    "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello OR world' ORDER BY rowid",
    "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello OR world OR nothing' AND rank MATCH 'myrank(-1000)' ORDER BY rank",
    "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello OR world OR nothing' AND rank MATCH 'myrank()' ORDER BY rank",
    "SELECT rowid, rank, describe(docs) FROM docs('world') ORDER BY rank",
    "SELECT rowid, rank FROM docs ORDER BY rowid",
]:
    try:
        print(sql, con.execute(sql).fetchall())
    except sqlite3.Error as e:
        print(sql, "error:", e)
con.execute("INSERT INTO docs(docs, rank) VALUES('rank', 'myrank(-1)')")
try:
    print(con.execute("SELECT rowid, rank FROM docs WHERE docs MATCH 'hello' ORDER BY rank").fetchall())
except sqlite3.Error as e:
    print("rank error:", e)
for sql in ["SELECT rowid FROM docs WHERE docs MATCH 'hello' ORDER BY rowid",
            "SELECT rowid, rank FROM docs WHERE docs MATCH 'hello' ORDER BY rowid"]:
    try:
        print(sql, con.execute(sql).fetchall())
    except sqlite3.Error as e:
        print(sql, "error:", e)
con.execute("INSERT INTO docs(docs, rank) VALUES('rank', 'bm25()')")
try:
    con.execute("SELECT describe(1)").fetchall()
except sqlite3.Error as e:
    print("outside:", e)
con.close()
print("instances left:", len(instances))
