#!/usr/bin/env python3
"""Write a C program printing the size of every structure our sqlite3.h
defines and the offset of each of its fields.

run.sh compiles it once against our header and once against SQLite's
reference header; the outputs must be equal (same layouts).
Usage: layout_check.py OUR_HEADER > layout.c
"""
import re
import sys

text = open(sys.argv[1]).read()
lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "sqlite3.h"', 'int main(void) {']
for m in re.finditer(r'^struct ((?:sqlite3_|fts5_|Fts5)\w+) \{\n(.*?)^\};', text, flags=re.S | re.M):
    name, body = m.group(1), m.group(2)
    lines.append('  printf("%%s size %%zu\\n", "%s", sizeof(struct %s));' % (name, name))
    # Members end with ';' (function pointer members may span lines).
    for member in re.sub(r'/\*.*?\*/|//[^\n]*', '', body, flags=re.S).split(';'):
        member = ' '.join(member.split())
        if not member:
            continue
        fp = re.search(r'\(\s*\*\s*(?:\(\s*\*\s*)?(\w+)\s*\)', member)
        field = fp.group(1) if fp else re.search(r'(\w+)\s*(\[[^\]]*\])?$', member).group(1)
        lines.append('  printf("%%s.%%s %%zu\\n", "%s", "%s", offsetof(struct %s, %s));' % (name, field, name, field))
lines += ['  return 0;', '}']
print('\n'.join(lines))
