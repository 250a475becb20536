#!/usr/bin/env python3
"""mutate.py SEED_FILE OUT_DIR N: write N malformed variants of a perf.data
file: truncations, and corruptions aimed at length fields (record sizes,
counts, section offsets), deterministic for a given seed file."""
import os
import random
import struct
import sys

src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
rnd = random.Random(len(data))
os.makedirs(out, exist_ok=True)
hostile = [0, 1, 7, 8, 0xffff, 0xffffffff, 0x7fffffffffffffff, 0xffffffffffffffff, 1 << 40]
for i in range(n):
    b = bytearray(data)
    kind = i % 4
    if kind == 0:
        b = b[: rnd.randrange(0, len(b))]
    elif kind == 1:  # header fields: sections, attr size
        off = rnd.choice([8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96])
        if off + 8 <= len(b):
            struct.pack_into("<Q", b, off, rnd.choice(hostile))
    elif kind == 2:  # a u16 record size or u32 type somewhere
        off = rnd.randrange(0, max(1, len(b) - 8)) & ~7
        if rnd.random() < 0.5:
            struct.pack_into("<H", b, off + 6, rnd.choice([0, 1, 8, 9, 0xffff]))
        else:
            struct.pack_into("<I", b, off, rnd.choice([9, 64, 66, 69, 71, 80, 81, 1000]))
    else:  # a u64 count somewhere
        off = rnd.randrange(0, max(1, len(b) - 8)) & ~7
        struct.pack_into("<Q", b, off, rnd.choice(hostile))
    open(os.path.join(out, "m%04d" % i), "wb").write(bytes(b))
