#!/usr/bin/env python3
"""mkkcore.py: a kernel memory image in /proc/kcore's form, for tests.

  mkkcore.py OUT BUILD_ID VADDR CODE [LEN]
      OUT: an ELF64 little-endian ET_CORE file (EM_X86_64) with a PT_NOTE
      holding a VMCOREINFO note whose text has "BUILD-ID=BUILD_ID" (none
      when BUILD_ID is '-'), and one PT_LOAD mapping the kernel address
      VADDR (hex) to the bytes of the file CODE (its first LEN bytes when
      LEN is given).
"""
import struct
import sys


def note(name, typ, desc):
    pad = lambda b: b + b'\0' * (-len(b) % 4)
    return struct.pack('<III', len(name), len(desc), typ) + pad(name) + pad(desc)


def main():
    out, bid, vaddr, code = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), open(sys.argv[4], 'rb').read()
    if len(sys.argv) > 5:
        code = code[:int(sys.argv[5])]
    text = b'OSRELEASE=test\nPAGESIZE=4096\n' + (b'BUILD-ID=' + bid.encode() + b'\n' if bid != '-' else b'')
    notes = note(b'CORE\0', 1, b'\0' * 336) + note(b'VMCOREINFO\0', 0, text)
    ehsize, phsize = 64, 56
    noff = ehsize + 2 * phsize
    coff = (noff + len(notes) + 4095) & ~4095
    eh = struct.pack('<16sHHIQQQIHHHHHH', b'\x7fELF\x02\x01\x01' + b'\0' * 9, 4, 62, 1, 0,
                     ehsize, 0, 0, ehsize, phsize, 2, 0, 0, 0)
    ph_note = struct.pack('<IIQQQQQQ', 4, 0, noff, 0, 0, len(notes), 0, 4)
    ph_load = struct.pack('<IIQQQQQQ', 1, 7, coff, vaddr, 0, len(code), len(code), 4096)
    with open(out, 'wb') as f:
        f.write(eh + ph_note + ph_load + notes)
        f.write(b'\0' * (coff - noff - len(notes)))
        f.write(code)


main()
