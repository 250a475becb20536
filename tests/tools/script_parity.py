#!/usr/bin/env python3
"""script_parity.py: compare `scorch script` with `perf script` line by line.

usage: script_parity.py NAME PERF_OUT SCORCH_OUT [--foreign]

Lines are aligned with difflib; a changed line is explained only by one of
the kinds below (each with its reason), else it is a failure. Prints

  RESULT NAME lines=N differing=M kinds=KIND:COUNT,...   (exit 0)
  FAIL NAME ... and the first unexplained lines           (exit 1)

--foreign: the recording comes from another machine (its kernel is not the
running one), which allows the kinds where perf 6.1 names that machine's
kernel or vdso with this machine's symbols.
"""
import difflib
import re
import sys

# ADDR SYMBOL (DSO) at the end of a line: a sample line or a chain entry
FRAME = re.compile(r'^(?P<pre>.*?)(?P<addr>[0-9a-f]+) (?P<sym>\S+)( \((?P<dso>[^()]*)\))?$')

KINDS = {
    'foreign-kernel': 'perf 6.1 names a kernel (or module) of another machine with this '
                      "machine's symbols (no build id to compare, e.g. pipe mode): scorch "
                      'prints [unknown], as perf does when a build id tells it the kernel differs',
    'foreign-vdso': "perf 6.1 names another machine's [vdso] with this machine's vdso "
                    'symbols: scorch prints [unknown]',
    'entry-start': "scorch names the entry point of a stripped executable _start (its "
                   'resolver does so everywhere for complete stacks); perf has no symbol there',
    'perf-vtable-return': "perf's DWARF unwinder (libunwind) takes a C++ vtable's address "
                          '(data, in no executable segment: never a return address) as the '
                          'caller of __run_exit_handlers and stops there; scorch goes on '
                          'through exit to _start, frame for frame as libdwfl unwinds the '
                          'same registers and stack (tests/e2e/peer_frames.sh)',
    'perf-no-frames': 'perf prints a sample with no frame under it where scorch prints its '
                      "frames: a new thread's first sample at clone3's return in the child "
                      '(the CFI marks the outermost frame; perf, DWARF, prints no frame) or a '
                      'frame-pointer chain holding a value in the context range (-16 read '
                      'from a stack without frame pointers: perf resets the whole chain as an '
                      '"invalid callchain context"; scorch keeps the frames before it). With '
                      '-F fields that print no header (ip, sym, dso) the sample is the empty '
                      'line in its place',
    'perf-plt-unnamed': 'perf 6.1 prints [unknown] for a PLT entry that scorch names NAME@plt '
                        '(the stub that calls NAME, from .rela.plt): perf makes its @plt names '
                        'only for a file in which it found a function or object symbol of its '
                        'own, which a stripped PIE executable (its .dynsym: imports only) lacks',
    'perf-plt-init': 'perf 6.1 prints _init+OFFSET for a PLT entry that scorch names NAME@plt: '
                     'perf stretches the unsized _init (.init, just before .plt) to the next '
                     'symbol, over .plt, and its lookup among overlapping symbols may meet '
                     '_init before the @plt name',
}

VTABLE = re.compile(r'^\s*([0-9a-f]+ )?vtable for ')
START = re.compile(r'(^|\s)_start(\+0x[0-9a-f]+)?( \(|$)')
CHAIN = re.compile(r'^\s+\S')
HEADER = re.compile(r'^\S.*:\s*$')
PLT = re.compile(r'\S+@plt(\+0x[0-9a-f]+)?')


def explain_block(a, i1, i2, b, j1, j2):
    """A changed block of unequal length that a named kind explains, or None."""
    # perf: one frame at a vtable; scorch: the frames from there to _start
    if i2 - i1 == 1 and VTABLE.match(a[i1]) and j2 > j1 and \
            all(CHAIN.match(x) for x in b[j1:j2]) and START.search(b[j2 - 1]):
        return 'perf-vtable-return'
    # perf: a sample line with no frame under it; scorch: its frames
    if i1 == i2 and j2 > j1 and all(CHAIN.match(x) for x in b[j1:j2]) and j1 > 0 and \
            HEADER.match(b[j1 - 1]) and (j2 >= len(b) or not CHAIN.match(b[j2])):
        return 'perf-no-frames'
    # the same where the fields print no header: an empty line, the frames
    # between it and the blank line that ends the sample
    if i1 == i2 and j2 > j1 and all(CHAIN.match(x) for x in b[j1:j2]) and j1 > 0 and \
            b[j1 - 1] == '' and j2 < len(b) and b[j2] == '':
        return 'perf-no-frames'
    return None


def kernel_dso(d):
    return d == '[kernel.kallsyms]' or d.endswith('.ko') or (d.startswith('[') and d not in (
        '[unknown]', '[vdso]', '[vsyscall]', '[heap]', '[stack]'))


def explain(p, s, foreign):
    mp, ms = FRAME.match(p), FRAME.match(s)
    if not mp or not ms:
        return None
    if mp.group('pre') != ms.group('pre') or mp.group('addr') != ms.group('addr') or \
            mp.group('dso') != ms.group('dso'):
        return None
    ps, ss, dso = mp.group('sym'), ms.group('sym'), mp.group('dso') or ''  # pipe: no DSO
    if foreign and ss == '[unknown]' and ps != '[unknown]' and kernel_dso(dso):
        return 'foreign-kernel'
    if foreign and ss == '[unknown]' and ps != '[unknown]' and dso == '[vdso]':
        return 'foreign-vdso'
    if ps == '[unknown]' and re.fullmatch(r'_start(\+0x[0-9a-f]+)?', ss):
        return 'entry-start'
    if ps == '[unknown]' and PLT.fullmatch(ss):
        return 'perf-plt-unnamed'
    if re.fullmatch(r'_init\+0x[0-9a-f]+', ps) and PLT.fullmatch(ss):
        return 'perf-plt-init'
    return None


def opcodes(a, b):
    """difflib's opcodes of a against b, made piecewise: the lines both
    files begin and end with are equal, and so is each line found exactly
    once in each file, in the same order in both (a sample's header with its
    time); difflib aligns only what lies between two such lines. On outputs
    of tens of thousands of lines that repeat (the same frames in many
    samples) one difflib run over the whole takes seconds; the pieces take
    milliseconds and give the same alignment where the files agree."""
    lo, n = 0, min(len(a), len(b))
    while lo < n and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and a[len(a) - 1 - hi] == b[len(b) - 1 - hi]:
        hi += 1
    ea, eb = len(a) - hi, len(b) - hi
    count = {}
    for x in a[lo:ea]:
        count[x] = count.get(x, 0) + 1
    inb = {}
    for j in range(lo, eb):
        x = b[j]
        if count.get(x) == 1:
            inb[x] = -1 if x in inb else j
    # anchors: lines once in each, kept while their places in b increase
    anchors, last = [], lo - 1
    for i in range(lo, ea):
        j = inb.get(a[i], -1)
        if count[a[i]] == 1 and j > last:
            anchors.append((i, j))
            last = j
    anchors.append((ea, eb))
    ops = [('equal', 0, lo, 0, lo)] if lo else []
    pa, pb = lo, lo
    for i, j in anchors:
        if (pa, pb) != (i, j):
            sm = difflib.SequenceMatcher(None, a[pa:i], b[pb:j], autojunk=False)
            for op, i1, i2, j1, j2 in sm.get_opcodes():
                ops.append((op, pa + i1, pa + i2, pb + j1, pb + j2))
        if i < ea:
            ops.append(('equal', i, i + 1, j, j + 1))
        pa, pb = i + 1, j + 1
    if hi:
        ops.append(('equal', ea, len(a), eb, len(b)))
    return ops


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    foreign = '--foreign' in sys.argv
    name, pf, sf = args
    a = open(pf, errors='replace').read().splitlines()
    b = open(sf, errors='replace').read().splitlines()
    kinds, bad = {}, []
    for op, i1, i2, j1, j2 in opcodes(a, b):
        if op == 'equal':
            continue
        if op == 'replace' and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                kind = explain(a[i1 + k], b[j1 + k], foreign)
                if kind:
                    kinds[kind] = kinds.get(kind, 0) + 1
                else:
                    bad.append((i1 + k + 1, a[i1 + k], b[j1 + k]))
            continue
        kind = explain_block(a, i1, i2, b, j1, j2)
        if kind:
            kinds[kind] = kinds.get(kind, 0) + max(i2 - i1, j2 - j1)
            continue
        for k in range(i1, i2):
            bad.append((k + 1, a[k], None))
        for k in range(j1, j2):
            bad.append((k + 1, None, b[k]))
    differing = sum(kinds.values()) + len(bad)
    ks = ','.join('%s:%d' % kv for kv in sorted(kinds.items())) or 'none'
    if bad:
        print('FAIL %s lines=%d differing=%d unexplained=%d kinds=%s' %
              (name, len(a), differing, len(bad), ks))
        for n, x, y in bad[:6]:
            print('  line %d\n    perf:   %s\n    scorch: %s' % (n, x, y))
        return 1
    print('RESULT %s lines=%d differing=%d kinds=%s' % (name, len(a), differing, ks))
    for k in sorted(kinds):
        print('  kind %s: %s' % (k, KINDS[k]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
