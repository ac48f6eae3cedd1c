#!/usr/bin/env python3
"""Write compat-tests/tcl-ext-files.md (copied into STATUS.md by `make
compat-status`): the extensions' TCL test files outside the ringlite
ratchet, as the reference SQLite 3.54.1 and ringlite run them, and what
each needs that tclsh with Debian's libsqlite3-tcl lacks.

    python3 compat-tests/tcl_ext_files.py > /tmp/files.txt   # the file list
    RINGLITE_LIBDIR=build/ref tcl/run.sh --lib ringlite --jobs 1 --timeout 120 --results ref.tsv $(cat /tmp/files.txt)
    RINGLITE_LIBDIR=build/lib tcl/run.sh --lib ringlite --jobs 1 --timeout 120 --results ours.tsv $(cat /tmp/files.txt)
    python3 compat-tests/tcl_ext_files.py --write ref.tsv ours.tsv "WHEN AND WHAT" > compat-tests/tcl-ext-files.md

The first form lists every fts3*, fts4*, fts5*, rtree*, session*,
changeset* and dbstat* file of tcl/sqlite-src not in
tcl/ratchet/ringlite.txt. A file's need is read from its first failure:
a command Tcl does not know is a testfixture command, an SQL function
SQLite does not know a test-build function, a variable the tester does
not set a testfixture variable.
"""
import collections
import glob
import os
import re
import sys

PREFIXES = ("fts3", "fts4", "fts5", "rtree", "session", "changeset", "dbstat")


def ext_files(root):
    src = os.path.join(root, "tcl", "sqlite-src")
    names = set()
    for d in ("test", "ext/fts5/test", "ext/rtree", "ext/session"):
        for p in glob.glob(os.path.join(src, d, "*.test")):
            n = os.path.basename(p)
            if n.startswith(PREFIXES):
                names.add(n)
    with open(os.path.join(root, "tcl", "ratchet", "ringlite.txt")) as f:
        ratchet = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    return sorted(names - ratchet)


def read_tsv(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (4 - len(parts))
            out[parts[0]] = (parts[1], parts[2], parts[3])
    return out


def need_of(first):
    m = re.search(r'invalid command name "([^"]+)"', first)
    if m:
        return f"testfixture command `{m.group(1)}`"
    m = re.search(r"no such function: (\w+)", first)
    if m:
        return f"test-build SQL function `{m.group(1)}()`"
    m = re.search(r"can't read \"(?:::)?([^\"]+)\": no such variable", first)
    if m:
        return f"testfixture variable `${m.group(1)}`"
    m = re.search(r'unknown config option: "(\w+)"', first)
    if m:
        return f"testfixture `sqlite3_db_config {m.group(1)}`"
    return None


def cell(status, counts):
    return status if counts in ("", "-") else f"{status} {counts}"


def clip(s, n=90):
    s = s.replace("|", "\\|").replace("`", "'")
    return s if len(s) <= n else s[:n]


def write(ref_path, ours_path, when):
    ref, ours = read_tsv(ref_path), read_tsv(ours_path)
    names = sorted(set(ref) | set(ours))
    needs = collections.Counter()
    rows = []
    for n in names:
        r = ref.get(n, ("-", "-", ""))
        o = ours.get(n, ("-", "-", ""))
        need = need_of(r[2]) or (need_of(o[2]) if r[0] == "PASS" else None)
        if need:
            needs[need] += 1
        why = need or (clip(r[2]) if r[0] != "PASS" else clip(o[2]))
        rows.append(f"| `{n}` | {cell(r[0], r[1])} | {cell(o[0], o[1])} | {why} |")
    ref_pass = sum(1 for v in ref.values() if v[0] == "PASS")
    ours_pass = sum(1 for v in ours.values() if v[0] == "PASS")
    both = sum(1 for n in names if ref.get(n, ("",))[0] == "PASS" and ours.get(n, ("",))[0] == "PASS")
    print("## Extension TCL files outside the ringlite ratchet (issue #20)\n")
    print("Written by `compat-tests/tcl_ext_files.py` (see its header for the commands), copied in here by `make compat-status`.")
    print("Every fts3\\*, fts4\\*, fts5\\*, rtree\\*, session\\*, changeset\\* and dbstat\\* test file of Debian's 3.40.1 source")
    print(f"that is not in `tcl/ratchet/ringlite.txt`, run on the reference SQLite 3.54.1 (`build/ref`) and on ringlite ({when}), 120 s each.\n")
    print(f"3.54.1 passes {ref_pass} of these {len(names)} files, ringlite {ours_pass} ({both} on both): most need what only SQLite's")
    print("`testfixture` binary has (tclsh with Debian's libsqlite3-tcl lacks it), or test-build SQL functions, so they fail or")
    print("stop on SQLite itself. The causes (first failure on 3.54.1, else on ringlite), by count:\n")
    print("| needs | files |")
    print("|---|---|")
    for need, k in sorted(needs.items(), key=lambda x: (-x[1], x[0])):
        print(f"| {need} | {k} |")
    print("\nPer file (status, failed/tests):\n")
    print("| file | SQLite 3.54.1 | ringlite | why (testfixture need, else first failure on 3.54.1, or on ringlite where 3.54.1 passes) |")
    print("|---|---|---|---|")
    for r in rows:
        print(r)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) == 5 and sys.argv[1] == "--write":
        write(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print("\n".join(ext_files(root)))


if __name__ == "__main__":
    main()
