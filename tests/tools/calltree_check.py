#!/usr/bin/env python3
"""calltree_check.py: the call tree of one entry in `scorch report` and in
`perf report --stdio -g ...`, as the set of its nodes (the path of labels
from the tree's root, and the node's percentage), compared for the nodes
at or above a limit.

  calltree_check.py SCORCH_OUT PERF_OUT SYMBOL [--limit 1.0] [--files a.c,b.c]

A label is what both print for a callchain entry: "name" or, with the
address and srcline keys, "name file.c:12" ("name +off" without a line).
--files: the workload's own source files; a line of another file (a
library's) is compared by function and line number only: binutils'
addr2line, which perf runs, names another file than the line table's for
some library addresses (libc's __libc_start_call_main: libc-start.c, where
the line table says libc_start_call_main.h).

Prints the differences and exits 1 when the node sets differ (or a tree
is missing), else prints the number of nodes compared and exits 0.
"""
import re
import sys

PCT = re.compile(r'(\d+\.\d+)%')


def norm(label, files):
    label = label.strip()
    m = re.match(r'^(.*) (\S+):(\d+)$', label)
    if files and m and m.group(2) not in files:
        return '%s <lib>:%s' % (m.group(1), m.group(3))
    return label


def perf_tree(path, symbol):
    """Nodes of perf's tree under the entry whose symbol is SYMBOL."""
    lines = open(path, errors='replace').read().split('\n')
    head = re.compile(r'^\s+([\d.]+)%(?:\s+[\d.]+%)?\s+.*\[[.kgHu]\] (.*?)\s*$')
    start = None
    for i, l in enumerate(lines):
        m = head.match(l)
        if m and m.group(2) == symbol:
            start, entry_pct = i, float(m.group(1))
            break
    if start is None:
        return None
    # perf indents a level by 11 columns ("|" and ten spaces): a node's
    # children (branch markers "|--P%--", or the rest of its chain) start
    # 11 columns right of its own marker; the root's chain "---" by 3
    nodes = []       # (path, pct)
    at = None        # child column -> the last node whose children start there
    prev = None      # the previous node
    for l in lines[start + 1:]:
        if not l.strip():
            break
        body = l.rstrip()
        if at is None:
            col0 = body.index('|') if '|' in body else len(body) - len(body.lstrip())
            at = {col0: ((), entry_pct)}
        m = re.search(r'--(\d+\.\d+)%--', body)
        if m:
            mcol = m.start() - 1
            parent = at.get(mcol)
            if parent is None:
                raise SystemExit('%s: no parent at column %d: %r' % (path, mcol, l))
            node = (parent[0] + (body[m.end():],), float(m.group(1)))
            ccol = mcol + 11
        elif body.lstrip().startswith('---'):
            ccol = body.index('---') + 3
            node = ((body[ccol:],), entry_pct)
        else:
            stripped = body.lstrip(' |')
            if not stripped:
                continue
            ccol = len(body) - len(stripped)
            if prev is None:
                raise SystemExit('%s: a chain line without a node above: %r' % (path, l))
            node = (prev[0] + (stripped,), prev[1])
        at = {c: v for c, v in at.items() if c < ccol}
        at[ccol] = node
        prev = node
        nodes.append(node)
    return nodes


def scorch_tree(path, symbol):
    """Nodes of scorch report's tree under the heading of SYMBOL."""
    lines = open(path, errors='replace').read().split('\n')
    try:
        calls = lines.index(next(l for l in lines if l.startswith('# Call trees')))
    except StopIteration:
        return None
    head = re.compile(r'^([\d.]+)%  (.*?)(?:  \([^()]*\))?(?:  called from:)?$')
    start = None
    for i in range(calls, len(lines)):
        m = head.match(lines[i])
        if m and m.group(2) == symbol:
            start = i
            break
    if start is None:
        return None
    nodes = []
    chain = {}   # level -> last chain node there
    branch = {}  # level -> last branch node there
    prev = None
    for l in lines[start + 1:]:
        if not l.startswith('  '):
            break
        m = PCT.search(l)
        if not m or l.strip().startswith('('):
            continue
        prefix = l[:m.start()]
        label = l[m.end():]
        label = label[2:] if label.startswith('  ') else label
        if label.endswith(' [k]'):
            label = label[:-4]
        pct = float(m.group(1))
        if prefix.endswith('|--') or prefix.endswith('`--'):
            lvl = len(prefix) - 3
            if lvl in chain:
                parent = chain[lvl]
            elif lvl == 2:
                parent = ((), 0.0)
            else:
                parent = branch.get(lvl - 4)
            if parent is None:
                raise SystemExit('%s: no parent at level %d: %r' % (path, lvl, l))
            node = (parent[0] + (label,), pct)
            chain = {k: v for k, v in chain.items() if k <= lvl}
            branch = {k: v for k, v in branch.items() if k < lvl}
            branch[lvl] = node
        else:
            lvl = len(prefix)
            parent = prev if prev is not None else ((), 0.0)
            node = (parent[0] + (label,), pct)
            chain = {k: v for k, v in chain.items() if k < lvl}
            branch = {k: v for k, v in branch.items() if k < lvl}
            chain[lvl] = node
        prev = node
        nodes.append(node)
    return nodes


def main():
    args = sys.argv[1:]
    limit, files = 1.0, None
    if '--limit' in args:
        i = args.index('--limit')
        limit = float(args[i + 1])
        del args[i:i + 2]
    if '--files' in args:
        i = args.index('--files')
        files = set(args[i + 1].split(','))
        del args[i:i + 2]
    sc, pf, sym = args
    a, b = scorch_tree(sc, sym), perf_tree(pf, sym)
    if a is None or b is None:
        print('no tree of %s in %s' % (sym, sc if a is None else pf))
        return 1

    def keyed(nodes):
        out = {}
        for p, v in nodes:
            if v >= limit:
                k = (tuple(norm(x, files) for x in p), '%.2f' % v)
                out[k] = out.get(k, 0) + 1
        return out
    ka, kb = keyed(a), keyed(b)
    if ka == kb:
        print('%d nodes >= %.1f%% equal, %d with a line' %
              (sum(ka.values()), limit,
               sum(n for k, n in ka.items() if re.search(r':\d+$', k[0][-1]))))
        return 0
    for k in sorted(set(ka) | set(kb)):
        if ka.get(k, 0) != kb.get(k, 0):
            print('%s %s%%: scorch %d, perf %d' % (' > '.join(k[0]), k[1], ka.get(k, 0), kb.get(k, 0)))
    return 1


if __name__ == '__main__':
    sys.exit(main())
