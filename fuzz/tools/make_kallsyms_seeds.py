#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Seeds for the "kallsyms" fuzz target (fuzz/fuzz_kallsyms.c): kallsyms
tables laid out as scripts/kallsyms.c lays them out in three eras, 300
symbols each (two blocks of names), with one-character tokens.

    make_kallsyms_seeds.py OUTDIR

An input is a 32-byte header (num_syms, then the offsets from the image's
start of kallsyms_names, _token_table, _token_index, _offsets and
_relative_base, 0: none; u32 each, little-endian), then the image, read at
0xffffffff82000000.
"""
import os
import struct
import sys

TEXT = 0xffffffff81000000
N = 300


def symbols():
    names = ["f%05u_%d" % ((i * 7919) % 100003, i % 7) for i in range(N)]
    addrs = [TEXT + 0x20 * i for i in range(N)]
    addrs[11] = addrs[10]
    names[10], names[11] = "alias_first", "alias_second"
    names[50] = names[250] = "dup_name"
    return names, addrs


def build(era):
    names, addrs = symbols()
    align = 4 if era == "7.3" else 8
    img = bytearray()
    at = {}

    def pad():
        while len(img) % align:
            img.append(0)

    def emit_offsets(relbase):
        pad()
        at["offsets"] = len(img)
        base = 0xffffffff82000000 + len(img)
        for i, a in enumerate(addrs):
            off = a - TEXT if relbase else a - (base + 4 * i)
            img.extend(struct.pack("<i", off if off < 1 << 31 else off - (1 << 32)))
        if relbase:
            pad()
            at["relbase"] = len(img)
            img.extend(struct.pack("<Q", TEXT))

    def emit_names():
        pad()
        img.extend(struct.pack("<I", N))
        pad()
        at["names"] = start = len(img)
        markers = []
        for i, n in enumerate(names):
            if i % 256 == 0:
                markers.append(len(img) - start)
            img.append(len(n) + 1)
            img.extend(b"T" + n.encode())
        pad()
        for m in markers:
            img.extend(struct.pack("<I", m))

    def emit_seqs():
        pad()
        order = sorted(range(N), key=lambda i: (names[i], addrs[i], i))
        for i in order:
            img.extend(bytes([(i >> 16) & 255, (i >> 8) & 255, i & 255]))

    def emit_tokens():
        pad()
        at["tokens"] = len(img)
        for c in range(256):
            img.extend(bytes([c, 0]) if c else b"\0\0")
        pad()
        at["index"] = len(img)
        for c in range(256):
            img.extend(struct.pack("<H", 2 * c))

    if era in ("6.4", "7.3"):
        emit_names()
        emit_tokens()
        emit_offsets(era == "6.4")
        emit_seqs()
    else:  # 6.2
        emit_offsets(True)
        emit_names()
        emit_seqs()
        emit_tokens()
    head = struct.pack("<6I8x", N, at["names"], at["tokens"], at["index"],
                       at["offsets"], at.get("relbase", 0))
    return head + bytes(img)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for era in ("6.4", "7.3", "6.2"):
        with open(os.path.join(out, "layout-%s.img" % era), "wb") as f:
            f.write(build(era))


if __name__ == "__main__":
    main()
