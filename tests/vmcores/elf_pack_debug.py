#!/usr/bin/env python3
"""Pack a debug-only ELF (objcopy --only-keep-debug output) tightly.

    elf_pack_debug.py IN OUT

`objcopy --only-keep-debug` keeps every section's file offset, so a vmlinux
debug file starts with megabytes of zeros where .text/.rodata used to be
(they are NOBITS now). OUT has the same ELF header, program headers and
section headers (addresses, flags, symbols untouched); only the file offsets
change: section contents are packed one after another, LOAD segments get
p_filesz 0 (their sections are all NOBITS), a NOTE segment follows its
section. SHF_COMPRESSED (zlib) sections are recompressed at level 9.
ELF64 little-endian only.
"""
import struct
import sys
import zlib

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
SHDR = struct.Struct("<IIQQQQIIQQ")
CHDR = struct.Struct("<IIQQ")
SHT_NOBITS = 8
SHF_COMPRESSED = 0x800
PT_LOAD, PT_NOTE = 1, 4
ELFCOMPRESS_ZLIB = 1


def align(x, a):
    return x if a <= 1 else (x + a - 1) // a * a


def main(src, dst):
    data = open(src, "rb").read()
    eh = list(EHDR.unpack_from(data, 0))
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{src}: not ELF64 little-endian")
    phoff, shoff, phnum, shnum = eh[5], eh[6], eh[10], eh[12]
    phdrs = [list(PHDR.unpack_from(data, phoff + i * PHDR.size)) for i in range(phnum)]
    shdrs = [list(SHDR.unpack_from(data, shoff + i * SHDR.size)) for i in range(shnum)]

    out = bytearray(EHDR.size + phnum * PHDR.size)
    new_off = {}
    for i, sh in enumerate(shdrs):
        sh_type, sh_flags, sh_offset, sh_size, sh_addralign = sh[1], sh[2], sh[4], sh[5], sh[8]
        if i == 0:
            continue
        if sh_type == SHT_NOBITS:
            sh[4] = align(len(out), max(sh_addralign, 1))
            continue
        body = data[sh_offset:sh_offset + sh_size]
        if sh_flags & SHF_COMPRESSED:
            ch_type, _, ch_size, ch_align = CHDR.unpack_from(body, 0)
            if ch_type == ELFCOMPRESS_ZLIB:
                raw = zlib.decompress(body[CHDR.size:])
                assert len(raw) == ch_size
                body = CHDR.pack(ch_type, 0, ch_size, ch_align) + zlib.compress(raw, 9)
        off = align(len(out), max(sh_addralign, 1))
        out += b"\0" * (off - len(out))
        new_off[sh_offset] = off
        sh[4] = off
        sh[5] = len(body)
        out += body

    for ph in phdrs:
        p_type, p_offset, p_filesz = ph[0], ph[2], ph[5]
        if p_type == PT_LOAD:
            ph[2] = 0
            ph[5] = 0
        elif p_filesz:
            if p_offset not in new_off:
                sys.exit(f"{src}: segment type {p_type} at {p_offset:#x} does not start a section")
            ph[2] = new_off[p_offset]

    shoff_new = align(len(out), 8)
    out += b"\0" * (shoff_new - len(out))
    for sh in shdrs:
        out += SHDR.pack(*sh)
    eh[5] = EHDR.size if phnum else 0
    eh[6] = shoff_new
    out[0:EHDR.size] = EHDR.pack(*eh)
    for i, ph in enumerate(phdrs):
        PHDR.pack_into(out, EHDR.size + i * PHDR.size, *ph)
    open(dst, "wb").write(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
