#!/usr/bin/env python3
"""stack_cut.py: a perf.data file whose samples keep only the first bytes of
their user stack copy, as if recorded with a shorter --call-graph dwarf size.

  stack_cut.py IN OUT BYTES

IN is a perf.data file (not a pipe) whose attrs all have the same
sample_type with PERF_SAMPLE_STACK_USER. Each sample's stack copy is cut to
BYTES (its dynamic size too); the attrs' sample_stack_user says BYTES; the
feature sections after the data move with it. What scorch reads with
--stack-limit BYTES, any reader (hotspot-perfparser) reads from OUT.
"""
import struct
import sys

# sample_type bits, in the order their fields come in a sample
IDENTIFIER, IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = (
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10)
BRANCH_STACK, REGS_USER, STACK_USER = 1 << 11, 1 << 12, 1 << 13
READ_GROUP, READ_ID, READ_LOST = 1 << 3, 1 << 2, 1 << 4
READ_TIMES = (1 << 0) | (1 << 1)
BRANCH_HW_INDEX = 1 << 17
PERF_RECORD_SAMPLE = 9


def fail(msg):
    print(f'stack_cut: {msg}', file=sys.stderr)
    sys.exit(2)


def stack_at(rec, st, rf, regs_mask, branch_fmt):
    """offset of the stack's size field in sample record rec"""
    o = 8
    if st & IDENTIFIER:
        o += 8
    for bit in (IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD):
        if st & bit:
            o += 8
    if st & READ:
        per = 8 + (8 if rf & READ_ID else 0) + (8 if rf & READ_LOST else 0)
        times = 8 * bin(rf & READ_TIMES).count('1')
        if rf & READ_GROUP:
            nr, = struct.unpack_from('<Q', rec, o)
            o += 8 + times + nr * per
        else:
            o += per + times
    if st & CALLCHAIN:
        nr, = struct.unpack_from('<Q', rec, o)
        o += 8 + 8 * nr
    if st & RAW:
        size, = struct.unpack_from('<I', rec, o)
        o += 4 + size
    if st & BRANCH_STACK:
        nr, = struct.unpack_from('<Q', rec, o)
        o += 8 + (8 if branch_fmt & BRANCH_HW_INDEX else 0) + 24 * nr
    if st & REGS_USER:
        abi, = struct.unpack_from('<Q', rec, o)
        o += 8 + (8 * bin(regs_mask).count('1') if abi else 0)
    return o


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, 'rb').read()
    if data[:8] != b'PERFILE2':
        fail('not a perf.data file (or a pipe)')
    hsize, attr_size = struct.unpack_from('<QQ', data, 8)
    a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', data, 24)
    # the attrs: each a perf_event_attr and an ids section
    attrs = []
    for o in range(a_off, a_off + a_size, attr_size):
        st, = struct.unpack_from('<Q', data, o + 24)
        rf, = struct.unpack_from('<Q', data, o + 32)
        br, = struct.unpack_from('<Q', data, o + 72)
        regs, = struct.unpack_from('<Q', data, o + 80)
        attrs.append((st, rf, regs, br))
    if not attrs or len({a[0] for a in attrs}) != 1 or not attrs[0][0] & STACK_USER:
        fail('the attrs differ in sample_type or have no user stack')
    st, rf, regs, br = attrs[0]
    out = bytearray(data[:d_off])
    for o in range(a_off, a_off + a_size, attr_size):
        struct.pack_into('<I', out, o + 88, cut)  # sample_stack_user
    o = d_off
    end = d_off + d_size
    while o < end:
        typ, misc, size = struct.unpack_from('<IHH', data, o)
        if size < 8 or o + size > end:
            fail(f'a damaged record at offset {o}')
        rec = data[o:o + size]
        o += size
        if typ != PERF_RECORD_SAMPLE:
            out += rec
            continue
        s = stack_at(rec, st, rf, regs, br)
        ssize, = struct.unpack_from('<Q', rec, s)
        if ssize <= cut:
            out += rec
            continue
        dyn, = struct.unpack_from('<Q', rec, s + 8 + ssize)
        head = bytearray(rec[:s])
        tail = rec[s + 8 + ssize + 8:]
        new = head + struct.pack('<Q', cut) + rec[s + 8:s + 8 + cut] + struct.pack('<Q', min(dyn, cut)) + tail
        struct.pack_into('<H', new, 6, len(new))
        out += new
    delta = len(out) - end
    struct.pack_into('<Q', out, 48, d_size + delta)
    # the feature sections' table, right after the data, and what it points at
    flags = data[hsize - 32:hsize] if hsize >= 104 else b''
    nfeat = sum(bin(b).count('1') for b in flags)
    table = data[end:end + 16 * nfeat]
    rest = data[end + 16 * nfeat:]
    fixed = bytearray()
    for i in range(nfeat):
        fo, fs = struct.unpack_from('<QQ', table, 16 * i)
        fixed += struct.pack('<QQ', fo + delta if fo >= end else fo, fs)
    out += fixed + rest
    open(dst, 'wb').write(out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
