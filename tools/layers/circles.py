#!/usr/bin/env python3
"""Circles of files that call each other, measured from the objects' symbol tables.

    python3 tools/layers/circles.py [--max N] [--edges] [--root SRCDIR] OBJDIR

Every object file under OBJDIR (e.g. build/obj) is read with `nm`: a file depends on another
when it uses a symbol the other defines. A circle is a strongly connected component of that
graph (Tarjan): files that reach each other through calls, so none can be understood, tested
or replaced without the others. Prints each circle of two or more files, largest first, then
the largest size, the number of file-to-file dependencies and how many of them lie inside a
circle (the "upward" ones: no order of the files puts them all below their callers).
--edges also prints those dependencies with the symbols they use. With --root, an object
counts only when its source (SRCDIR/<path under OBJDIR>.c) exists: objects left behind by a
renamed or deleted source are not measured.
Exit status: 0, 1 when a circle has more than N files (--max; LIMIT when not given), 2 on a
usage error or when nm fails. docs/architecture.md ("Circles") says what the limit is and why.
"""
import os
import subprocess
import sys

# The most files one circle may have: what the code has reached. Lower it when a circle shrinks;
# never raise it to let a change in (`make layers` and the suite's layers/* tests check it).
LIMIT = 6


def fail(msg):
    print("circles.py: " + msg, file=sys.stderr)
    sys.exit(2)


def objects(root, src):
    found = []
    for d, subdirs, files in os.walk(root):
        subdirs.sort()
        for f in sorted(files):
            o = os.path.join(d, f)
            if f.endswith(".o") and (src is None or os.path.isfile(os.path.join(src, os.path.relpath(o, root)[:-2] + ".c"))):
                found.append(o)
    return found


def symbols(objs):
    """Each object's defined and undefined global symbols (nm -P: 'file: name type ...')."""
    defined = {o: set() for o in objs}
    used = {o: set() for o in objs}
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        r = subprocess.run(["nm", "-A", "-P", *chunk], capture_output=True, text=True)
        if r.returncode != 0:
            fail("nm failed: " + r.stderr.strip())
        for line in r.stdout.splitlines():
            head, _, rest = line.rpartition(": ")
            if head not in defined:
                continue
            parts = rest.split()
            if len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            if kind == "U":
                used[head].add(name)
            elif kind in "TDBRCVW":
                defined[head].add(name)
    return defined, used


def graph(objs, defined, used):
    owner = {}
    for o in objs:
        for s in defined[o]:
            owner.setdefault(s, o)
    edges = {o: {} for o in objs}
    for o in objs:
        for s in sorted(used[o]):
            t = owner.get(s)
            if t is not None and t != o:
                edges[o].setdefault(t, []).append(s)
    return edges


def circles(nodes, edges):
    """Tarjan's strongly connected components, iterative (no recursion limit)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main(argv):
    limit, show_edges, src, args = LIMIT, False, None, []
    it = iter(argv)
    for a in it:
        if a == "--max":
            v = next(it, "")
            if not v.isdigit():
                fail("--max needs a number")
            limit = int(v)
        elif a == "--root":
            src = next(it, None)
            if src is None or not os.path.isdir(src):
                fail("--root needs a directory")
        elif a == "--edges":
            show_edges = True
        elif a.startswith("-"):
            fail("usage: circles.py [--max N] [--edges] [--root SRCDIR] OBJDIR")
        else:
            args.append(a)
    if len(args) != 1 or not os.path.isdir(args[0]):
        fail("usage: circles.py [--max N] [--edges] [--root SRCDIR] OBJDIR")
    root = args[0]
    objs = objects(root, src)
    edges = graph(objs, *symbols(objs))
    name = lambda o: os.path.relpath(o, root)
    comps = [c for c in circles(objs, edges) if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), name(c[0])))
    where = {o: i for i, c in enumerate(comps) for o in c}
    for c in comps:
        print("%d files: %s" % (len(c), " ".join(name(o) for o in c)))
    ndeps = sum(len(e) for e in edges.values())
    inside = sum(1 for o in objs for t in edges[o] if o in where and where.get(t) == where[o])
    largest = len(comps[0]) if comps else 1
    print("largest circle: %d files (limit %d)" % (largest, limit))
    print("file-to-file dependencies: %d, inside circles: %d" % (ndeps, inside))
    if show_edges:
        for o in objs:
            for t in sorted(edges[o]):
                up = " (inside a circle)" if o in where and where.get(t) == where[o] else ""
                print("%s -> %s%s: %s" % (name(o), name(t), up, " ".join(edges[o][t])))
    if largest > limit:
        print("circles.py: a circle of %d files is more than the limit of %d" % (largest, limit), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
