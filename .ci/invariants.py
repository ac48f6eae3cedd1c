#!/usr/bin/env python3
"""List the invariants the `//!` module docs state, and the checks of each.

Usage: .ci/invariants.py [--list] [--update] [SRC_DIR ...]   (default: src)

An invariant statement is a paragraph of a `//!` doc that starts (or has a
sentence starting) with "Invariant:", "Invariants:", "Invariant (...):" or
"Invariants of the set:", or a paragraph under a `# ... Invariants`
heading; a bulleted list after "Invariants:" is one statement per bullet
(unless the lead-in names a check: then the bullets spell that one out).

A statement names the checks that enforce it with `(checked: NAME)` (or
`(checked: A, B)`), and each NAME is tagged at its check with a comment
`// invariant: NAME` right above (or on) a `debug_assert!`/`assert!`, or
a runtime check that refuses the broken state (`SQLITE_CORRUPT`, an
error, a `return` of "no" or a `break` out of the work, a `const _: () =`
block the compiler checks). Checks may be anywhere under SRC_DIR or
tests/ (a test asserting it counts).

Exit status 1, with a message, when:
- a NAME in a doc has no tagged check, or a tag names no documented
  invariant (so a name is never left behind by a change);
- a tag is not followed, within 4 lines, by an assertion or a check;
- a file holds more untagged (prose-only) statements than
  `.ci/invariants-prose.txt` allows, or fewer (the list is a ratchet:
  lower it with --update once a statement is checked or reworded).

--list prints every statement with its tags and the checks they point at.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RATCHET = os.path.join(ROOT, ".ci", "invariants-prose.txt")

STARTS = re.compile(r"(?:^|[.:;)]\s+)(Invariants?\b(?: of [^:.]{1,40})?(?: \([^)]*\))?:)")
HEADING = re.compile(r"^#+ .*\binvariants?\b", re.I)
BULLET = re.compile(r"^[-*] ")
DOC_TAG = re.compile(r"\(checked: ([a-z0-9_]+(?:, [a-z0-9_]+)*)\)")
CHECK_TAG = re.compile(r"//\s*invariant: ([a-z0-9_]+(?:, [a-z0-9_]+)*)\s*$")
CHECK = re.compile(r"assert(?:_eq|_ne)?!|\bdebug_check|\bcorrupt|\bErr\(|\breturn\b|\bbreak\b|\bpanic!|unreachable!|\bconst _: \(\) =")


def rust_files(dirs):
    for d in dirs:
        for dirpath, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".rs"):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def statements(path):
    """(line, text) of each invariant statement in the file's `//!` docs."""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    paras, cur = [], []
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s.startswith("//!"):
            if cur:
                paras.append(cur)
                cur = []
            continue
        t = s[3:].strip()
        if not t or t.startswith("#") or t.startswith("```"):
            if cur:
                paras.append(cur)
                cur = []
            if t.startswith("#"):
                paras.append([(n, t)])
            continue
        cur.append((n, t))
    if cur:
        paras.append(cur)
    out = []
    under_heading = False
    for para in paras:
        if len(para) == 1 and para[0][1].startswith("#"):
            under_heading = bool(HEADING.match(para[0][1]))
            continue
        text = " ".join(t for _, t in para)
        m = STARTS.search(text)
        if not m and not under_heading:
            continue
        bullets = [i for i, (_, t) in enumerate(para) if BULLET.match(t)]
        head = " ".join(t for _, t in para[: bullets[0]]) if bullets else ""
        if bullets and DOC_TAG.search(head):
            # A tagged lead-in ("Invariant: every page is consistent
            # (checked: NAME), that is:") covers the bullets that spell it out.
            out.append((para[0][0], text))
        elif bullets:
            bounds = bullets + [len(para)]
            for a, b in zip(bounds, bounds[1:]):
                out.append((para[a][0], " ".join(t for _, t in para[a:b])))
        else:
            start = 0 if not m else m.start(1)
            # The line the statement starts on: count the characters of
            # the lines joined before it.
            line, seen = para[0][0], 0
            for n, t in para:
                if seen + len(t) >= start:
                    line = n
                    break
                seen += len(t) + 1
            out.append((line, text[start:]))
    return out


def checks(dirs):
    """NAME -> [(path, line)] of tagged checks, and the errors found."""
    found, errors = {}, []
    for path in rust_files(dirs):
        lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = CHECK_TAG.search(line)
            if not m or line.strip().startswith("//!"):
                continue
            window = lines[i : i + 5]
            if not any(CHECK.search(CHECK_TAG.sub("", w)) for w in window):
                errors.append(f"{path}:{i + 1}: `invariant: {m.group(1)}` is followed by no assertion or check")
            for name in m.group(1).split(", "):
                found.setdefault(name, []).append((path, i + 1))
    return found, errors


def read_ratchet():
    allowed = {}
    if os.path.exists(RATCHET):
        for line in open(RATCHET, encoding="utf-8"):
            line = line.split("#")[0].strip()
            if line:
                path, count = line.rsplit(None, 1)
                allowed[path] = int(count)
    return allowed


def main(argv):
    listing = "--list" in argv
    update = "--update" in argv
    dirs = [a for a in argv if not a.startswith("--")] or ["src"]
    dirs = [os.path.join(ROOT, d) for d in dirs]
    found, errors = checks(dirs + [os.path.join(ROOT, "tests")])
    documented = {}
    prose = {}
    total = tagged = 0
    for path in rust_files(dirs):
        for line, text in statements(path):
            total += 1
            names = [n for m in DOC_TAG.finditer(text) for n in m.group(1).split(", ")]
            if names:
                tagged += 1
            else:
                prose[path] = prose.get(path, 0) + 1
            for name in names:
                # (A name may be cited by several docs: a layer's summary
                # and the module that keeps it.)
                documented.setdefault(name, (path, line))
                if name not in found:
                    errors.append(f"{path}:{line}: invariant `{name}` has no check tagged `// invariant: {name}`")
            if listing:
                short = text if len(text) <= 110 else text[:107] + "..."
                print(f"{path}:{line}: {short}")
                for name in names:
                    where = ", ".join(f"{p}:{n}" for p, n in found.get(name, [])) or "NO CHECK"
                    print(f"    {name}: {where}")
    for name, sites in sorted(found.items()):
        if name not in documented:
            for p, n in sites:
                errors.append(f"{p}:{n}: `invariant: {name}` names no invariant of a `//!` doc (`(checked: {name})`)")
    if update:
        with open(RATCHET, "w", encoding="utf-8") as f:
            f.write("# Invariant statements of `//!` docs that name no check yet, per file\n")
            f.write("# (.ci/invariants.py: a ratchet; only ever lower it).\n")
            for path in sorted(prose):
                f.write(f"{path} {prose[path]}\n")
    else:
        allowed = read_ratchet()
        for path in sorted(set(prose) | set(allowed)):
            have, may = prose.get(path, 0), allowed.get(path, 0)
            if have > may:
                errors.append(f"{path}: {have} invariant statement(s) without `(checked: NAME)`, {may} allowed: tag a check or reword")
            elif have < may and os.path.exists(os.path.join(ROOT, path)):
                errors.append(f"{path}: {have} unchecked invariant statement(s), the ratchet allows {may}: lower it (--update)")
            elif have < may:
                errors.append(f"{path}: listed in {os.path.relpath(RATCHET, ROOT)} but gone: --update")
    checked_names = sum(1 for n in documented if n in found)
    print(f"{total} invariant statements: {tagged} name checks ({checked_names} names, "
          f"{sum(len(found[n]) for n in documented if n in found)} tagged checks), {total - tagged} prose only")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
