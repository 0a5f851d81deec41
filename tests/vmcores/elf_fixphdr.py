#!/usr/bin/env python3
"""Rewrite a QEMU ELF vmcore so makedumpfile 1.7.2 can read it.

    elf_fixphdr.py IN OUT

QEMU 7.2 writes the program headers at e_phoff=192 (after two section
headers at 64); makedumpfile 1.7.2 reads them at offset 64 ("Can't get the
number of PT_LOAD"). OUT gets the ELF header, the program headers right at
64, no section headers, then every segment's bytes with p_offset shifted.
Only ELF64 little-endian with fewer than 0xffff program headers (use a
paging:false dump: it has one PT_LOAD per RAM range).
"""
import os
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")


def main(src, dst):
    with open(src, "rb") as f:
        eh = list(EHDR.unpack(f.read(EHDR.size)))
        ident = eh[0]
        if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
            sys.exit(f"{src}: not an ELF64 little-endian file")
        phoff, phentsize, phnum = eh[5], eh[9], eh[10]
        if phnum == 0xFFFF:
            sys.exit(f"{src}: PN_XNUM program headers not supported (use a paging:false dump)")
        if phentsize != PHDR.size:
            sys.exit(f"{src}: unexpected e_phentsize {phentsize}")
        f.seek(phoff)
        phdrs = [list(PHDR.unpack(f.read(PHDR.size))) for _ in range(phnum)]
        used = [p for p in phdrs if p[5] > 0]  # p_filesz
        start = min(p[2] for p in used)
        end = max(p[2] + p[5] for p in used)
        new_start = EHDR.size + phnum * PHDR.size
        delta = new_start - start
        for p in phdrs:
            if p[5] > 0:
                p[2] += delta
        eh[5] = EHDR.size          # e_phoff
        eh[6] = 0                  # e_shoff
        eh[11] = 0                 # e_shentsize
        eh[12] = 0                 # e_shnum
        eh[13] = 0                 # e_shstrndx
        with open(dst, "wb") as out:
            out.write(EHDR.pack(*eh))
            for p in phdrs:
                out.write(PHDR.pack(*p))
            assert out.tell() == new_start
            out.flush()
            remaining = end - start
            off = start
            while remaining > 0:
                n = os.copy_file_range(f.fileno(), out.fileno(), min(remaining, 1 << 30), off)
                if n <= 0:
                    sys.exit(f"{src}: short copy at {off}")
                off += n
                remaining -= n


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
