#!/usr/bin/env python3
"""Give a QEMU ELF vmcore the VMCOREINFO note its guest's kernel holds.

    elf_addnote.py IN OUT PHYS SIZE

QEMU's pseries (ppc64) machine has no fw_cfg, hence no `-device
vmcoreinfo`: its ELF (dump-guest-memory) carries no VMCOREINFO. The
guest's kernel keeps the note in its own memory and says where in
/sys/kernel/vmcoreinfo ("PHYS SIZE", hex), which is what kexec-tools puts
into a kdump kernel's ELF core header: /proc/vmcore, and `makedumpfile -E`
of it, carry exactly these bytes as a PT_NOTE. OUT is IN with that note as
a second PT_NOTE, laid out as elf_fixphdr.py does (program headers right
after the ELF header, no section headers: makedumpfile 1.7.2 reads them
there). PHYS and SIZE come from the guest's console, not from memory:
the bytes must be a note named VMCOREINFO, else this fails.
QEMU 7.2 writes a pseries little-endian guest's ELF with big-endian
headers and notes (it takes the byte order from LPCR's HILE, which a
pseries guest never sets): either order is read, OUT is little-endian,
with the VMCOREINFO note and the PT_LOADs only, each at its linear-map
virtual address as kexec-tools writes them (QEMU's register notes are
in the header's order and are dropped). ELF64, paging:false.
s390x (EM_S390): QEMU writes the s390-ccw-virtio machine's ELF, which has
no VMCOREINFO either (no fw_cfg), in the kernel's own order, big-endian:
OUT stays big-endian and keeps QEMU's CPU notes (a kdump kernel's
/proc/vmcore has them too) before the VMCOREINFO note, each PT_LOAD at
p_vaddr = its physical address (the 6.1 kernel's elfcorehdr does that:
its identity map starts at 0) or, where the note says IDENTITYBASE=hex
(7.x), at that base + physical (its __va()); --vaddr-base BASE overrides.

    elf_addnote.py IN OUT PHYS SIZE [--vaddr-base HEX]
"""
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
EHDR_BE = struct.Struct(">16sHHIQQQIHHHHHH")
PHDR_BE = struct.Struct(">IIQQQQQQ")
PT_LOAD, PT_NOTE = 1, 4
EM_S390 = 22
# Each machine's PT_LOAD virtual base: PAGE_OFFSET, as __va() maps it.
VADDR_BASE = {EM_S390: 0}
PPC64_PAGE_OFFSET = 0xC000000000000000


def main(src, dst, phys, size, vaddr_base=None):
    phys, size = int(phys, 16), int(size, 16)
    with open(src, "rb") as f:
        raw = f.read(EHDR.size)
        if raw[:4] != b"\x7fELF" or raw[4] != 2 or raw[5] not in (1, 2):
            sys.exit(f"{src}: not an ELF64 file")
        be = raw[5] == 2
        eh = list((EHDR_BE if be else EHDR).unpack(raw))
        phoff, phnum = eh[5], eh[10]
        f.seek(phoff)
        phdrs = [list((PHDR_BE if be else PHDR).unpack(f.read(PHDR.size)))
                 for _ in range(phnum)]
        note = None
        for p in phdrs:
            if p[0] == PT_LOAD and p[4] <= phys and phys + size <= p[4] + p[5]:
                f.seek(p[2] + phys - p[4])
                note = f.read(size)
        if note is None:
            sys.exit(f"{src}: physical 0x{phys:x}+0x{size:x} is in no PT_LOAD")
        # the kernel's order: the one in which namesz reads 11
        kbe = struct.unpack_from(">I", note)[0] == 11
        namesz, descsz, ntype = struct.unpack_from(">III" if kbe else "<III", note)
        if namesz != 11 or note[12:23] != b"VMCOREINFO\0" or 24 + descsz > size + 12:
            sys.exit(f"{src}: physical 0x{phys:x} holds no VMCOREINFO note")
        note = note[:24 + ((descsz + 3) & ~3)]
        # QEMU's own notes (registers) are in its header's byte order: kept
        # when that is the kernel's (s390x), else dropped (ppc64le). The
        # kernel's byte order is the file's.
        qemu_notes = []
        if kbe == be:
            for p in phdrs:
                if p[0] == PT_NOTE:
                    f.seek(p[2])
                    qemu_notes.append(f.read(p[5]))
        notes = qemu_notes + [note]
        phdrs = [p for p in phdrs if p[0] == PT_LOAD]
        out_ph = [[PT_NOTE, 0, 0, 0, 0, len(n), len(n), 0] for n in notes]
        out_ph += [p[:] for p in phdrs]
        eh[0] = raw[:5] + (b"\x02" if kbe else b"\x01") + raw[6:16]
        if vaddr_base is None:
            vaddr_base = VADDR_BASE.get(eh[2], PPC64_PAGE_OFFSET)
            # s390x 6.10+: the identity map starts at __identity_base,
            # which the kernel's VMCOREINFO names (IDENTITYBASE=hex)
            for line in note[24:].split(b"\n"):
                if eh[2] == EM_S390 and line.startswith(b"IDENTITYBASE="):
                    vaddr_base = int(line[13:], 16)
        off = EHDR.size + len(out_ph) * PHDR.size
        chunks = []
        for p, data in zip(out_ph, notes):
            p[2] = off
            chunks.append(data)
            off += len(data)
        off = (off + 0xFFFF) & ~0xFFFF
        loads = [p for p in out_ph if p[0] == PT_LOAD]
        for p in loads:
            # kexec-tools gives each PT_LOAD its linear-map address
            # (PAGE_OFFSET + physical, as __va() does): so does OUT.
            p[3] = vaddr_base + p[4]
            src_off = p[2]
            p[2] = off
            p.append(src_off)
            off += p[5]
        eh[5], eh[6], eh[8], eh[9], eh[10] = EHDR.size, 0, EHDR.size, PHDR.size, len(out_ph)
        eh[11], eh[12], eh[13] = 0, 0, 0
        ehdr, phdr = (EHDR_BE, PHDR_BE) if kbe else (EHDR, PHDR)
        with open(dst, "wb") as o:
            o.write(ehdr.pack(*eh))
            for p in out_ph:
                o.write(phdr.pack(*p[:8]))
            for c in chunks:
                o.write(c)
            for p in loads:
                o.seek(p[2])
                f.seek(p[8])
                left = p[5]
                while left:
                    buf = f.read(min(left, 1 << 24))
                    if not buf:
                        sys.exit(f"{src}: truncated segment")
                    o.write(buf)
                    left -= len(buf)


if __name__ == "__main__":
    args = sys.argv[1:]
    base = None
    if len(args) == 6 and args[4] == "--vaddr-base":
        base = int(args.pop(5), 16)
        args.pop(4)
    if len(args) != 4:
        sys.exit(__doc__)
    main(*args, vaddr_base=base)
