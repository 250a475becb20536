#!/usr/bin/env python3
"""damage_sample.py IN OUT K...: copy a file-format perf.data of one event
(its samples with a call chain) with the K-th sample record of the data
section (file order, from 1) damaged: its call chain's nr set past the
record, so that decoding that sample fails and nothing else does (the
reader's framing stays intact). Prints the damaged records' file offsets."""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
ks = sorted(int(k) for k in sys.argv[3:])
b = bytearray(open(src, "rb").read())
assert b[:8] == b"PERFILE2", "not a file-format perf.data"
attr_size = struct.unpack_from("<Q", b, 16)[0]
attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
data_off, data_size = struct.unpack_from("<QQ", b, 40)
assert attrs_size == attr_size, "one event only"
sample_type = struct.unpack_from("<Q", b, attrs_off + 24)[0]
assert sample_type & (1 << 5), "no call chain in the samples"
assert not sample_type & (1 << 4), "READ before the call chain: not handled"
# the fixed u64 fields before the call chain, in perf_event.h's order:
# IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD
before = sum(1 for bit in (16, 0, 1, 2, 3, 6, 9, 7, 8) if sample_type & (1 << bit))
pos, k, done = data_off, 0, []
while pos + 8 <= data_off + data_size and len(done) < len(ks):
    rtype, _, size = struct.unpack_from("<IHH", b, pos)
    assert size >= 8, "record of size %d at %d" % (size, pos)
    if rtype == 9:  # PERF_RECORD_SAMPLE
        k += 1
        if k in ks:
            struct.pack_into("<Q", b, pos + 8 + 8 * before, 1 << 40)
            done.append(pos)
    pos += size
assert len(done) == len(ks), "fewer samples than asked"
open(dst, "wb").write(bytes(b))
print(" ".join(str(p) for p in done))
