#!/usr/bin/env python3
"""Check that include/sqlite3.h documents its API (issue #24).

Every function prototype, structure and group of #defines (a run of them
with nothing else between) must have a C comment right above it (the line
before, blank lines aside, ends a comment), and no parameter may be named
argN: parameters carry the names SQLite's documentation uses
(capi/tools/param_names.txt for the ones its prototypes leave unnamed).
Prints the offenders and exits 1 if there are any.
Usage: header_docs.py HEADER
"""
import re
import sys

lines = open(sys.argv[1]).read().split("\n")
proto = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(sqlite3\w*)\s*\((.*)\);\s*$")
bad = []
depth = 0
count = 0
for i, line in enumerate(lines):
    # Structure members are function pointers, not prototypes.
    if depth == 0:
        m = proto.match(line)
        if m:
            count += 1
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j < 0 or not lines[j].rstrip().endswith("*/"):
                bad.append("undocumented: %s" % m.group(1))
            else:
                # The comment must say something beyond the function's name.
                k = j
                while k > 0 and "/*" not in lines[k]:
                    k -= 1
                text = " ".join(lines[k : j + 1]).replace(m.group(1), "")
                if len(re.findall(r"[A-Za-z]{2,}", text)) < 3:
                    bad.append("comment says nothing: %s" % m.group(1))
            if re.search(r"\barg\d+\b", m.group(2)):
                bad.append("argN parameter: %s" % m.group(1))
        # A structure, and each run of #defines (a constant group), opens
        # with a comment.
        if re.match(r"^struct \w+ \{", line) or (line.startswith("#define ") and not line.startswith("#define SQLITE3_H")):
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            prev = lines[j].rstrip() if j >= 0 else ""
            if not prev.endswith("*/") and not (line.startswith("#define") and prev.startswith("#define")):
                bad.append("undocumented: %s" % line.split()[1])
    depth += line.count("{") - line.count("}")
    if line.startswith('extern "C" {'):
        depth -= 1
for b in bad:
    print(b)
print("header docs: %d prototypes, %d problems" % (count, len(bad)), file=sys.stderr)
sys.exit(1 if bad else 0)
