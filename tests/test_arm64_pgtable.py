"""Broken arm64 page tables in a real dump, said clearly (exit 3, a line
naming what is wrong), never handed to libkdumpfile: in a copy of the
arm64 set's elf-nopaging (QEMU's ELF, physical addresses only; a
VA_BITS=52 kernel running with 48 bits: four levels of 4 KiB), the
entry on the victim inode's walk that points at its level-2 table is
made to point back at the root (a loop), then at physical memory the
dump does not hold. The entry is found by a walk written here from the
kernel's VMCOREINFO (swapper_pg_dir less kimage_voffset, TCR_EL1_T1SZ),
not by inodedump. The unbroken copy decodes first (exit 0).

    test_arm64_pgtable.py
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import read_truth, set_dir  # noqa: E402

BIN = os.environ["VMCORE_INODE"]


def loads(path):
    """(paddr, file offset, size) of each PT_LOAD, and VMCOREINFO's keys."""
    with open(path, "rb") as f:
        h = f.read(1 << 20)
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    segs = []
    for i in range(phnum):
        t, _, off, _, paddr, filesz = struct.unpack_from("<IIQQQQ", h,
                                                         phoff + 56 * i)
        if t == 1:
            segs.append((paddr, off, filesz))
    info = dict(re.findall(rb"^([A-Z_]+(?:\([A-Za-z0-9_]+\))?)=(\S+)$", h,
                           re.M))
    return segs, info


def main():
    d = set_dir("arm64")
    src = os.path.join(d, "elf-nopaging.vmcore")
    victim = next(t for t in read_truth(os.path.join(d, "truth.txt"))
                  if t["role"] == "symlink_long")["addr"]
    segs, info = loads(src)

    def off(pa):
        for paddr, o, size in segs:
            if paddr <= pa < paddr + size:
                return o + pa - paddr
        raise SystemExit(f"FAIL physical 0x{pa:x} not in the dump")

    t1sz = int(info[b"NUMBER(TCR_EL1_T1SZ)"], 16)
    if int(info[b"PAGESIZE"]) != 4096 or 64 - t1sz != 48:
        raise SystemExit("FAIL the arm64 set is not 4 KiB pages at 48 bits")
    root = (int(info[b"SYMBOL(swapper_pg_dir)"], 16) -
            int(info[b"NUMBER(kimage_voffset)"], 16)) % (1 << 64)
    va = int(victim, 16)
    with open(src, "rb") as f:
        table, slots = root, []
        for shift in (39, 30, 21):
            slot = off(table + ((va >> shift) & 511) * 8)
            f.seek(slot)
            e, = struct.unpack("<Q", f.read(8))
            if e & 3 != 3:
                raise SystemExit(f"FAIL no table at shift {shift}: 0x{e:x}")
            slots.append((slot, e))
            table = e & 0x0000fffffffff000
    slot, entry = slots[1]  # level 1: points at the level-2 table
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "broken.vmcore")
        shutil.copyfile(src, dump)
        for what, new, want in (
                ("unbroken", entry, None),
                ("loop", (entry & ~0x0000fffffffff000) | root,
                 "the page tables loop"),
                ("outside memory", (entry & ~0x0000fffffffff000) | 0x7f0000000000,
                 "page table at physical 0x7f0000000000 is not in the dump")):
            with open(dump, "r+b") as f:
                f.seek(slot)
                f.write(struct.pack("<Q", new))
            r = subprocess.run([BIN, "-k", os.path.join(d, "vmlinux"), dump,
                                victim], capture_output=True, text=True,
                               timeout=120)
            ok = (r.returncode == 0 if want is None else
                  r.returncode == 3 and want in r.stderr and
                  "libkdumpfile" not in r.stderr and "Cannot" not in r.stderr)
            print("ok" if ok else "FAIL", what, "rc", r.returncode,
                  r.stderr.strip()[:300])
            bad += not ok
    if bad:
        raise SystemExit(f"FAIL {bad} of 3")
    print("ok 3 of 3")


if __name__ == "__main__":
    main()
