#!/usr/bin/env python3
"""Small but complete dump files for the "flattened" fuzz target (which
opens any dump file through idd_target_open): a kdump-compressed file and an
x86-64 ELF core that inodedump's own reader (lib/dumpfile.c) takes, so the
fuzzer starts inside that reader instead of at its refusals.

    make_dump_seeds.py OUTDIR

Each file: VMCOREINFO from fuzz/data/vmcoreinfo.txt, three pages of memory
(pfns 0, 1, 3; pfn 2 left out), the diskdump one with a zlib page, an lzo-
flagged raw page (not compressed, so flags 0) and a raw page. The layout
follows makedumpfile's diskdump_mod.h (header version 6) and the ELF spec.
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = 4096


def vmcoreinfo():
    with open(os.path.join(HERE, "..", "data", "vmcoreinfo.txt"), "rb") as f:
        return f.read()


def pages():
    return {0: bytes(range(256)) * 16, 1: b"\x11" * PAGE, 3: b"inode" * 819 + b"x"}


def diskdump(path):
    vi = vmcoreinfo()
    pfns = sorted(pages())
    max_pfn = 8
    bitmap_blocks = 2  # one block per bitmap
    sub_hdr_size = 1
    hdr = bytearray(PAGE)
    hdr[0:8] = b"KDUMP   "
    struct.pack_into("<i", hdr, 8, 6)
    for i, field in enumerate((b"Linux", b"seed", b"6.12.0", b"#1", b"x86_64", b"")):
        hdr[12 + 65 * i:12 + 65 * i + len(field)] = field
    struct.pack_into("<IiiIIIIIIi", hdr, 424, 1, PAGE, sub_hdr_size,
                     bitmap_blocks, max_pfn, 0, 0, 0, 0, 1)
    vi_off = PAGE * 2 - len(vi) - 8  # inside the sub-header block
    sub = bytearray(PAGE)
    struct.pack_into("<QiiQQqQqQqQQQQ", sub, 0, 0, 17, 0, 0, max_pfn,
                     PAGE + 256, len(vi), 0, 0, 0, 0, 0, max_pfn, max_pfn)
    sub[256:256 + len(vi)] = vi
    bm = bytearray(PAGE)
    for p in pfns:
        bm[p // 8] |= 1 << (p % 8)
    desc_off = PAGE * (1 + sub_hdr_size + bitmap_blocks)
    data_off = desc_off + 24 * len(pfns)
    descs, data = b"", b""
    for p in pfns:
        raw = pages()[p]
        if p == 0:
            body, flags = zlib.compress(raw), 1
        else:
            body, flags = raw, 0
        descs += struct.pack("<QIIQ", data_off + len(data), len(body), flags, 0)
        data += body
    with open(path, "wb") as f:
        f.write(bytes(hdr) + bytes(sub) + bytes(bm) + bytes(bm) + descs + data)
    del vi_off


def elf(path):
    vi = vmcoreinfo()
    name = b"VMCOREINFO\0"
    note = struct.pack("<III", len(name), len(vi), 0) + name + b"\0" * (-len(name) % 4)
    note += vi + b"\0" * (-len(vi) % 4)
    pg = pages()
    runs = [(0, pg[0] + pg[1]), (3 * PAGE, pg[3])]
    phnum = 1 + len(runs)
    off = 64 + 56 * phnum
    phdrs = struct.pack("<IIQQQQQQ", 4, 0, off, 0, 0, len(note), len(note), 4)
    body = note
    for pa, blob in runs:
        phdrs += struct.pack("<IIQQQQQQ", 1, 7, off + len(body),
                             0xffff888000000000 + pa, pa, len(blob), len(blob), PAGE)
        body += blob
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
    with open(path, "wb") as f:
        f.write(eh + phdrs + body)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    diskdump(os.path.join(out, "native-diskdump.raw"))
    elf(os.path.join(out, "native-elf.raw"))


if __name__ == "__main__":
    main()
