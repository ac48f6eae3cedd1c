#!/usr/bin/env python3
"""Print the import cycles between the modules of a Rust crate.

Usage: .ci/module_cycles.py [--child-paths] [--max N] [SRC_DIR ...]   (default: src capi/src)

A module is a file (`a/b.rs` or `a/b/mod.rs` is module `a::b`). Module A
uses module B when A's text names a path into B (`crate::x::y`, `super::y`,
`self::y` in a `use` or inline). Paths are resolved to the longest module
they name. The strongly connected components of that graph with more than
one module are the cycles; they are printed largest first, with the layers
(top-level modules) each one spans, then the pairs of layers that use each
other (a cycle that crosses a layer boundary).

With --child-paths, a path a file starts at a child module it declares
(`mod x;` then `x::Item`, as a mod.rs may write it without `self::`)
counts too: stricter, and it shows a hub module that names its children
(a `Compiler` naming the statement families it dispatches to).

Exit status: 0, or 1 with --max N when the largest cycle has more than N
modules (so a change can check itself: `.ci/module_cycles.py --max 12 src`).
"""

import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^}]*)\}", re.S)
COMMENT = re.compile(r"//[^\n]*")
CHILD = re.compile(r"^\s*(?:pub(?:\([^)]*\))? )?mod ([a-z_][a-z0-9_]*);", re.M)
CHILD_PATHS = False


def modules(src):
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            mods[tuple(rel)] = full
    return mods


def resolve(mods, base, kind, rest):
    if kind == "crate":
        path = list(rest)
    elif kind == "self":
        path = list(base) + list(rest)
    else:  # super (possibly repeated: super::super::x)
        path = list(base[:-1])
        rest = list(rest)
        while rest and rest[0] == "super":
            path = path[:-1]
            rest = rest[1:]
        path += rest
    for n in range(len(path), -1, -1):
        if tuple(path[:n]) in mods:
            return tuple(path[:n])
    return None


def graph(src):
    mods = modules(src)
    edges = {m: set() for m in mods}
    for m, file in mods.items():
        text = COMMENT.sub("", open(file, encoding="utf-8").read())
        # A file `a/b.rs` that is not mod.rs: `self` is a::b, `super` is a.
        base = m
        refs = []
        for g in GROUP.finditer(text):
            head = [p for p in g.group(2).split("::") if p]
            for item in g.group(3).split(","):
                item = item.strip().split(" as ")[0].strip()
                if item and item != "self":
                    refs.append((g.group(1), head + item.split("::")))
                elif item == "self":
                    refs.append((g.group(1), head))
        for p in PATH.finditer(text):
            refs.append((p.group(1), [x for x in p.group(2).split("::") if x]))
        if CHILD_PATHS:
            # A path starting at a child module this file declares (`mod x;`
            # then `x::Item` or `use x::Item`) is `self::x::Item`.
            for child in CHILD.findall(text):
                for p in re.finditer(r"(?<![\w:])" + child + r"((?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
                    refs.append(("self", [child] + [x for x in p.group(1).split("::") if x]))
        for kind, rest in refs:
            target = resolve(mods, base, kind, rest)
            if target is not None and target != m and target != ():
                edges[m].add(target)
    return edges


def sccs(edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv):
    global CHILD_PATHS
    if "--child-paths" in argv:
        CHILD_PATHS = True
        argv = [a for a in argv if a != "--child-paths"]
    limit = None
    if "--max" in argv:
        i = argv.index("--max")
        limit = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    srcs = argv or ["src", "capi/src"]
    worst = 0
    for src in srcs:
        edges = graph(src)
        cycles = sorted((c for c in sccs(edges) if len(c) > 1), key=len, reverse=True)
        print(f"== {src}: {len(edges)} modules, {len(cycles)} cycles")
        for c in cycles:
            layers = sorted({m[0] for m in c})
            names = sorted("::".join(m) for m in c)
            print(f"{len(c):4} modules, layers {', '.join(layers)}: {' '.join(names)}")
            worst = max(worst, len(c))
        # Layers are the top-level modules that are folders (a crate of
        # flat files, like capi/, has none).
        folders = {m[0] for m in edges if len(m) > 1}
        layer_uses = {(a[0], b[0]) for a, bs in edges.items() for b in bs if a and b and a[0] != b[0] and a[0] in folders and b[0] in folders}
        both = sorted({tuple(sorted(p)) for p in layer_uses if (p[1], p[0]) in layer_uses})
        for a, b in both:
            print(f"     layers using each other: {a} <-> {b}")
    if limit is not None and worst > limit:
        print(f"largest cycle has {worst} modules (limit {limit})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
