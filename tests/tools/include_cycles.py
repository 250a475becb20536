#!/usr/bin/env python3
"""include_cycles.py [SRC]: the include circles between units of SRC (default
src). A unit is a .c file with the .h of the same name (a header alone is a
unit too); unit A uses unit B when A's .c or .h includes B's .h. A circle is
a set of units that reach each other through these edges. Prints each circle
with one include line per edge of it (file:line) and exits 1 when there is
one, else prints nothing and exits 0. Includes are found as "#include \"X\""
and resolved against SRC, then the including file's folder; others
(system headers, generated ones) are not units."""
import os
import re
import sys

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def units(src):
    files = {}
    for d, _, names in os.walk(src):
        for n in names:
            if n.endswith(('.c', '.h')):
                p = os.path.relpath(os.path.join(d, n), src)
                files[p] = p[:-2]
    return files


def edges(src, files):
    out = {}  # (from unit, to unit) -> first "file:line"
    for p, u in sorted(files.items()):
        with open(os.path.join(src, p), errors='replace') as f:
            for no, line in enumerate(f, 1):
                m = INC.match(line)
                if not m:
                    continue
                t = m.group(1)
                cands = [t, os.path.normpath(os.path.join(os.path.dirname(p), t))]
                tgt = next((c for c in cands if c in files), None)
                if tgt is None or files[tgt] == u:
                    continue
                out.setdefault((u, files[tgt]), '%s:%d' % (p, no))
    return out


def sccs(nodes, adj):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, res, n = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = n[0]; n[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    res.append(sorted(comp))
    return res


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    files = units(src)
    e = edges(src, files)
    adj = {}
    for a, b in e:
        adj.setdefault(a, set()).add(b)
    circles = sccs(set(files.values()), adj)
    for c in circles:
        print('circle: ' + ' '.join(c))
        for (a, b), where in sorted(e.items()):
            if a in c and b in c:
                print('  %s -> %s (%s)' % (a, b, where))
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main())
