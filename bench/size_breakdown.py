#!/usr/bin/env python3
"""Where the shared library's bytes are.

    python3 bench/size_breakdown.py LIB [--depth N] [--generics] [--inlined] [--top N]

LIB is the *unstripped* library `make lib` links (build/lib/libsqlite3.so.0.8.6-ringlite-X):
the sections are measured on a stripped copy (`objcopy --strip-debug --strip-unneeded`, as
`make install` strips), the code by its symbols (`nm -S -C`), grouped by crate and the first
N path components (default 3, e.g. `ringlite::sql::codegen`).

--generics  generic functions by family (DWARF names carry the type arguments that legacy
            symbol mangling drops): bytes and instances of each, e.g. 35 copies of std's
            stable sort.
--inlined   functions inlined into others (DWARF inlined subroutines, outermost level):
            bytes and call sites of each: helpers duplicated at hundreds of sites.
Both read the debug info with `llvm-dwarfdump` (a minute, ~500 MB of text through a pipe).
"""
import argparse
import collections
import os
import re
import subprocess
import tempfile


def strip_generics(name):
    """`f<T, U>::g<V>` -> `f::g` (angle groups removed)."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def origin(name):
    """The module path a demangled symbol belongs to (best effort)."""
    if name.startswith("core::ptr::drop_in_place"):
        return "core::ptr::drop_in_place"
    n = name
    if n.startswith("<"):
        # `<T as Trait>::f`, `<impl Trait for T>::f`: charged to T.
        m = re.match(r"^<(?:impl [^ ]+ for )?&?(?:mut )?([A-Za-z_][\w:]*)", n)
        n = m.group(1) if m else n
    n = strip_generics(n).replace("{{closure}}", "")
    parts = [p for p in n.split("::") if p and not p.startswith("impl ") and not p.startswith("{")]
    return "::".join(parts) if parts else name


def sections(path):
    with tempfile.NamedTemporaryFile(suffix=".so") as tmp:
        subprocess.run(["objcopy", "--strip-debug", "--strip-unneeded", path, tmp.name], check=True)
        text = subprocess.run(["size", "-A", tmp.name], capture_output=True, text=True, check=True).stdout
        total = os.path.getsize(tmp.name)
    print(f"stripped: {total:,} bytes")
    for line in text.splitlines():
        bits = line.split()
        if len(bits) >= 2 and bits[0].startswith(".") and bits[1].isdigit() and int(bits[1]) >= 10000:
            print(f"  {bits[0]:<20} {int(bits[1]):>10,}")


def symbols(path):
    """(address, size, kind, demangled name) of every sized symbol."""
    out = subprocess.run(["nm", "-S", "--size-sort", "-C", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        bits = line.split(" ", 3)
        if len(bits) == 4:
            yield int(bits[0], 16), int(bits[1], 16), bits[2], bits[3]


def dwarf_lines(path):
    p = subprocess.Popen(["llvm-dwarfdump", "--debug-info", path], stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    yield from p.stdout
    p.wait()


def dwarf_scan(path):
    """Subprogram names by address, and outermost inlined callees' (bytes, sites)."""
    names = {}
    inl_bytes, inl_sites = collections.Counter(), collections.Counter()
    stack = []  # (indent, kind) of open subprogram / inlined entries
    cur = None  # [indent, kind, origin, name, low, size]
    in_ranges = False

    def close():
        if cur is None:
            return
        ind, kind, orig, name, low, size = cur
        while stack and stack[-1][0] >= ind:
            stack.pop()
        if kind == "sub" and low is not None and name:
            names[low] = name
        if kind == "inl" and stack and stack[-1][1] == "sub":
            inl_bytes[orig] += size
            inl_sites[orig] += 1
        stack.append((ind, kind))

    tag = re.compile(r"^0x[0-9a-f]+:( +)(DW_TAG_\w+|NULL)")
    for line in dwarf_lines(path):
        m = tag.match(line)
        if m:
            close()
            cur, in_ranges = None, False
            ind = len(m.group(1))
            if m.group(2) == "DW_TAG_subprogram":
                cur = [ind, "sub", None, None, None, 0]
            elif m.group(2) == "DW_TAG_inlined_subroutine":
                cur = [ind, "inl", "?", None, None, 0]
            elif m.group(2) == "NULL":
                while stack and stack[-1][0] >= ind:
                    stack.pop()
            continue
        if cur is None:
            continue
        s = line.strip()
        if s.startswith("DW_AT_abstract_origin"):
            q = re.search(r'"(.*)"', s)
            cur[2] = q.group(1) if q else "?"
        elif s.startswith("DW_AT_name"):
            cur[3] = s.split('("', 1)[1].rsplit('")', 1)[0]
        elif s.startswith("DW_AT_low_pc"):
            cur[4] = int(s.split("(")[1].rstrip(")"), 16)
        elif s.startswith("DW_AT_high_pc") and cur[4] is not None:
            cur[5] += int(s.split("(")[1].rstrip(")"), 16) - cur[4]
        elif s.startswith("DW_AT_ranges"):
            in_ranges = True
        elif in_ranges and s.startswith("["):
            a, b = re.findall(r"0x([0-9a-f]+)", s)[:2]
            cur[5] += int(b, 16) - int(a, 16)
    close()
    return names, inl_bytes, inl_sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--generics", action="store_true")
    ap.add_argument("--inlined", action="store_true")
    a = ap.parse_args()
    sections(a.lib)
    syms = list(symbols(a.lib))
    groups, counts = collections.Counter(), collections.Counter()
    for _addr, size, kind, name in syms:
        key = "::".join(origin(name).split("::")[: a.depth])
        if kind.lower() not in "tw":
            key = "[data] " + key
        groups[key] += size
        counts[key] += 1
    print(f"\nsymbols by origin (depth {a.depth}): bytes, symbols; total {sum(groups.values()):,}")
    for key, size in groups.most_common(a.top):
        print(f"{size:>10,} {counts[key]:>6}  {key}")
    if not (a.generics or a.inlined):
        return
    names, inl_bytes, inl_sites = dwarf_scan(a.lib)
    if a.generics:
        fam, n = collections.Counter(), collections.Counter()
        for addr, size, kind, name in syms:
            d = names.get(addr)
            if kind.lower() in "tw" and d and "<" in d:
                key = "::".join(name.split("::")[:-1]) + "::" + strip_generics(d)
                fam[key] += size
                n[key] += 1
        print("\ngeneric families with more than one instance: bytes, instances")
        for key, size in fam.most_common():
            if n[key] > 1 and size >= 4000:
                print(f"{size:>10,} {n[key]:>6}  {key[:140]}")
    if a.inlined:
        keys = [k for k, _ in inl_bytes.most_common(a.top)]
        dem = subprocess.run(["c++filt"], input="\n".join(keys), capture_output=True, text=True).stdout.splitlines()
        print("\ninlined (outermost level): bytes, sites")
        for k, d in zip(keys, dem):
            print(f"{inl_bytes[k]:>10,} {inl_sites[k]:>6}  {d[:140]}")


if __name__ == "__main__":
    main()
