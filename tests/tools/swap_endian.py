#!/usr/bin/env python3
"""swap_endian.py IN OUT: rewrite a little-endian perf.data file as a
big-endian machine would have written it (header, attrs, ids, and the
records scorch decodes: SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, LOST,
FINISHED_ROUND with their sample_id_all trailers). Feature sections are
dropped (their payloads differ per feature). For testing the reader's
opposite-endian path: `scorch script` must print the same for both."""
import struct
import sys

SAMPLE_FIELDS = [  # (bit, kind) in sample order; kind: q=u64, pair=2*u32
    (1 << 16, "q"), (1 << 0, "q"), (1 << 1, "pair"), (1 << 2, "q"), (1 << 3, "q"),
    (1 << 6, "q"), (1 << 9, "q"), (1 << 7, "pair"), (1 << 8, "q")]
TRAILER = [(1 << 1, "pair"), (1 << 2, "q"), (1 << 6, "q"), (1 << 9, "q"), (1 << 7, "pair"), (1 << 16, "q")]
CALLCHAIN = 1 << 5

def sw64(b, o):
    b[o:o + 8] = b[o:o + 8][::-1]

def sw32(b, o):
    b[o:o + 4] = b[o:o + 4][::-1]

def sw16(b, o):
    b[o:o + 2] = b[o:o + 2][::-1]

def field(b, o, kind):
    if kind == "q":
        sw64(b, o)
    else:
        sw32(b, o)
        sw32(b, o + 4)

def main():
    d = bytearray(open(sys.argv[1], "rb").read())
    magic, hsize, attr_size = struct.unpack_from("<QQQ", d, 0)
    assert hsize == 104, "file format only"
    a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", d, 24)
    sample_type = None
    nattr = a_size // attr_size
    for i in range(nattr):
        o = a_off + i * attr_size
        st = struct.unpack_from("<Q", d, o + 24)[0]
        if sample_type is None:
            sample_type = st
        assert st == sample_type, "one sample_type only"
        sample_id_all = (struct.unpack_from("<Q", d, o + 40)[0] >> 18) & 1
        ids_off, ids_size = struct.unpack_from("<QQ", d, o + attr_size - 16)
        for k in range(ids_size // 8):
            sw64(d, ids_off + 8 * k)
        sw32(d, o)
        sw32(d, o + 4)
        for f in range(8, 40, 8):
            sw64(d, o + f)
        for f in range(40, 48):  # bitfield: bit order within each byte flips
            d[o + f] = int("{:08b}".format(d[o + f])[::-1], 2)
        sw32(d, o + 48)
        sw32(d, o + 52)
        for f in range(56, 88, 8):
            sw64(d, o + f)
        sw32(d, o + 88)
        sw32(d, o + 92)
        sw64(d, o + 96)
        sw64(d, o + attr_size - 16)
        sw64(d, o + attr_size - 8)
    trailer = [k for bit, k in TRAILER if sample_type & bit] if sample_id_all else []
    tsize = 8 * len(trailer)
    pos, end = d_off, d_off + d_size
    while pos + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", d, pos)
        if size < 8:
            break
        b = pos + 8
        if typ == 9:  # SAMPLE
            o = b
            for bit, kind in SAMPLE_FIELDS:
                if sample_type & bit:
                    field(d, o, kind)
                    o += 8
            if sample_type & CALLCHAIN:
                nr = struct.unpack_from("<Q", d, o)[0]
                for k in range(nr + 1):
                    sw64(d, o + 8 * k)
                o += 8 * (nr + 1)
            while o + 8 <= pos + size:  # anything else: u64 words
                sw64(d, o)
                o += 8
        else:
            body_end = pos + size - (tsize if typ < 64 else 0)
            if typ in (1, 10):  # MMAP, MMAP2
                sw32(d, b); sw32(d, b + 4)
                for f in (8, 16, 24):
                    sw64(d, b + f)
                if typ == 10:
                    sw32(d, b + 32); sw32(d, b + 36); sw64(d, b + 40); sw64(d, b + 48)
                    sw32(d, b + 56); sw32(d, b + 60)
            elif typ == 3:  # COMM
                sw32(d, b); sw32(d, b + 4)
            elif typ in (4, 7):  # EXIT, FORK
                for f in (0, 4, 8, 12):
                    sw32(d, b + f)
                sw64(d, b + 16)
            else:
                o = b
                while o + 8 <= body_end:
                    sw64(d, o)
                    o += 8
            if typ < 64 and sample_id_all:
                o = pos + size - tsize
                for kind in trailer:
                    field(d, o, kind)
                    o += 8
        sw32(d, pos)
        sw16(d, pos + 4)
        sw16(d, pos + 6)
        pos += size
    # header: swap every u64; drop the features
    struct.pack_into("<4Q", d, 72, 0, 0, 0, 0)
    for f in range(0, 104, 8):
        sw64(d, f)
    open(sys.argv[2], "wb").write(bytes(d[:end]))

main()
