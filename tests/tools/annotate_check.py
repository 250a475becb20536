#!/usr/bin/env python3
"""annotate_check.py: scorch annotate's output against its peers.

  annotate_check.py syms SCORCH_OUT N
      the first N annotated symbols that were disassembled, one per line:
      NAME<TAB>DSO<TAB>FIRST_ADDR<TAB>LAST_ADDR (hex)
  annotate_check.py counts SCORCH_OUT PERF_OUT NAME
      scorch's per-instruction sample counts of NAME (annotate -n) equal
      perf annotate --stdio -n's: same addresses, same counts (a symbol
      with bytes Capstone 4 does not decode, AVX-512: the total only)
  annotate_check.py text SCORCH_OUT OBJDUMP_OUT NAME MIN_PERCENT
      the instruction text (mnemonic and operands, whitespace folded; the
      '<sym+off>' and '# addr' annotations left out) equals objdump's at
      the same address for at least MIN_PERCENT of NAME's instructions.
      Named exceptions (differences of Capstone 4 from objdump 2.40):
      - AVX-512 (EVEX) code: Capstone 4 decodes few of its instructions
        ('(bad)', and the bytes after it out of step); a symbol whose
        objdump text has mask registers (%k0-%k7) or the registers
        %xmm16-%zmm31 is left out of the count, named in the output;
      - x87 instructions whose implicit %st operand objdump prints and
        Capstone omits (counted as differences).
  annotate_check.py srcline SCORCH_REPORT PERF_REPORT MIN
      the entries of scorch report --sort srcline (or sym,srcline) and
      perf report --sort ... --no-children: every entry of at least MIN
      percent in either has the same share in both (to the printed 0.01%);
      entries whose key has no file:line (perf's 'sym+off') are compared too
"""
import re
import sys

INSN = re.compile(r'^\s*([0-9.]+) :\s+([0-9a-f]+):\s+(.*)$')
HEAD = re.compile(r'^## (\S.*?)  \[(.*)\]$')


def sections(path):
    """{name: [(addr, count, text)]} of scorch's output (first of a name)."""
    out, cur, order = {}, None, []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = HEAD.match(line)
        if m:
            cur = m.group(1)
            if cur in out:
                cur = None
            else:
                out[cur] = {'dso': m.group(2), 'rows': [], 'dis': True}
                order.append(cur)
            continue
        if cur and line.startswith('## not disassembled'):
            out[cur]['dis'] = False
        if cur and re.match(r'^## \d+ bytes were no instruction the disassembler knows', line):
            out[cur]['bad'] = True
        m = INSN.match(line)
        if cur and m:
            out[cur]['rows'].append((int(m.group(2), 16), float(m.group(1)), m.group(3)))
    return out, order


def norm(t):
    t = re.sub(r'\s+#.*$', '', t)
    t = re.sub(r'\s+<.*>$', '', t)  # (C++ names hold '>')
    return re.sub(r'\s+', ' ', t).strip()


def main():
    mode = sys.argv[1]
    if mode == 'syms':
        secs, order = sections(sys.argv[2])
        n = int(sys.argv[3])
        for name in order:
            s = secs[name]
            if not s['dis'] or not s['rows'] or s['dso'].startswith('['):
                continue
            print('%s\t%s\t%x\t%x' % (name, s['dso'], s['rows'][0][0], s['rows'][-1][0]))
            n -= 1
            if not n:
                break
        return 0
    if mode == 'counts':
        secs, _ = sections(sys.argv[2])
        name = sys.argv[4]
        mine = {a: int(c) for a, c, _ in secs[name]['rows'] if c}
        perf = {}
        for line in open(sys.argv[3], errors='replace'):
            m = INSN.match(line)
            if m and float(m.group(1)):
                perf[int(m.group(2), 16)] = perf.get(int(m.group(2), 16), 0) + int(float(m.group(1)))
        if secs[name].get('bad'):
            # AVX-512 code (the named exception of 'text'): where Capstone 4
            # decodes no instruction its instructions start elsewhere than
            # objdump's, so the samples are compared in all, not by address
            a, b = sum(mine.values()), sum(perf.values())
            print('%s: %d samples, perf %d (by address left out: bytes Capstone 4 does not '
                  'decode, AVX-512)' % (name, a, b))
            return 0 if a == b else 1
        if mine != perf:
            diff = sorted(set(mine) | set(perf))
            bad = ['%x: scorch %d perf %d' % (a, mine.get(a, 0), perf.get(a, 0))
                   for a in diff if mine.get(a, 0) != perf.get(a, 0)]
            print('%s: %d addresses differ: %s' % (name, len(bad), '; '.join(bad[:8])))
            return 1
        print('%s: %d instructions with samples, %d samples, equal' %
              (name, len(mine), sum(mine.values())))
        return 0
    if mode == 'text':
        secs, _ = sections(sys.argv[2])
        name, want = sys.argv[4], float(sys.argv[5])
        obj = {}
        for line in open(sys.argv[3], errors='replace'):
            m = re.match(r'^\s*([0-9a-f]+):\t(.*)$', line.rstrip('\n'))
            if m:
                obj[int(m.group(1), 16)] = norm(m.group(2))
        rows = secs[name]['rows']
        evex = re.compile(r'%k[0-7]\b|%[xyz]mm(1[6-9]|2[0-9]|3[01])\b|\b[xyz]mm(1[6-9]|2[0-9]|3[01])\b|\bk[0-7]\b')
        if any(evex.search(t) for t in obj.values()):
            print('%s: 0 of 0 instructions as objdump (left out: AVX-512 code, '
                  'which Capstone 4 does not decode)' % name)
            return 0
        same, diffs = 0, []
        for a, _, t in rows:
            if norm(t) == obj.get(a):
                same += 1
            else:
                diffs.append('%x: scorch "%s" objdump "%s"' % (a, norm(t), obj.get(a)))
        pct = 100.0 * same / len(rows) if rows else 0
        print('%s: %d of %d instructions as objdump (%.2f%%)%s' %
              (name, same, len(rows), pct, ('; ' + '; '.join(diffs[:5])) if diffs else ''))
        return 0 if rows and pct >= want else 1
    if mode == 'srcline':
        def entries(path):
            out = {}
            for line in open(path, errors='replace'):
                m = re.match(r'^ +([0-9.]+)% +(\S.*?)\s*$', line)
                if m:
                    out[re.sub(r'\s+', ' ', m.group(2))] = float(m.group(1))
            return out
        mine, perf = entries(sys.argv[2]), entries(sys.argv[3])
        lim = float(sys.argv[4])
        keys = sorted(k for k in set(mine) | set(perf) if max(mine.get(k, 0), perf.get(k, 0)) >= lim)
        bad = ['%s: scorch %.2f perf %.2f' % (k, mine.get(k, 0), perf.get(k, 0))
               for k in keys if abs(mine.get(k, 0) - perf.get(k, 0)) > 0.005]
        lines = sum(1 for k in keys if re.search(r':\d+$', k))
        print('%d entries >= %g%% (%d with file:line), %d differ%s' %
              (len(keys), lim, lines, len(bad), (': ' + '; '.join(bad[:6])) if bad else ''))
        return 0 if keys and lines and not bad else 1
    return 2


sys.exit(main())
