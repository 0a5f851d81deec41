#!/usr/bin/python3
"""arm64 5.10's memory map, worked out where VMCOREINFO has no
VMEMMAP_START, is checked before use; refuted, every answer that needs it
says "not known" with the reason and exit 4 — never "in no slab".

usage: test_memmap_derived.py SET      (arm64-510)

On the set's dumps as they are, with vmlinux: --what on the first truth
inode names drgn's cache and object (slab-truth.txt, drgn 0.0.22's
slab_object_info()), exit 0, and --info counts the -d 31 dump's excluded
pages by kind with no "struct page not read". On copies whose VMCOREINFO
says SIZE(page)=72 instead of 64 (STRUCT_PAGE_MAX_SHIFT 7, not 6: an
input of the worked-out VMEMMAP_START the check can catch) the memory
sections (SYMBOL(mem_section)) still lead to the kernel's struct pages:
--what names drgn's object. With the sections hidden too, the struct
pages then read are not the kernel's: --what and the decode of that inode
exit 4 saying the check against the kernel's own struct pages failed,
and --info says why the struct pages were not read.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run, set_dir  # noqa: E402

REFUTED = "and a check of it against the kernel's own struct pages failed"


def with_edits(src, dst, edits):
    """dst: src with each (old, new) of edits (same lengths) made once in
    its VMCOREINFO (its note, in the ELF's notes or the diskdump header)."""
    subprocess.run(["cp", "--sparse=always", src, dst], check=True)
    with open(dst, "rb") as f:
        head = f.read(1 << 20)
    for old, new in edits:
        at = head.find(old)
        if at < 0 or len(old) != len(new):
            raise SystemExit(f"FAIL no {old!r} in the first MiB of {src}")
        with open(dst, "r+b") as f:
            f.seek(at)
            f.write(new)


SIZE_72 = (b"SIZE(page)=64\n", b"SIZE(page)=72\n")
# The memory sections name every struct page themselves (decode/memmap.c):
# hidden, the worked-out VMEMMAP_START is all there is to go by.
NO_SECTIONS = (b"SYMBOL(mem_section)=", b"SYMBOL(mem_sectiox)=")


def main():
    name = sys.argv[1]
    d = set_dir(name)
    vmlinux = os.path.join(d, "vmlinux")
    with open(os.path.join(d, "slab-truth.txt")) as f:
        row = next(dict(t.split("=", 1) for t in line.split()[1:])
                   for line in f if " kind=inode " in line)
    addr = "0x" + row["addr"]
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="memmap-") as tmp:
        for fmt in ("elf-nopaging.vmcore", "d31-zlib.vmcore"):
            src = os.path.join(d, fmt)
            p = run(["-k", vmlinux, "--what", addr, src])
            c.eq(f"{name} {fmt}: --what exit", p.returncode, 0)
            c.ok(f"{name} {fmt}: --what names drgn's cache and object",
                 f'in kmem_cache "{row["cache"]}"' in p.stdout and
                 f"0x{row['start']} +" in p.stdout, p.stdout[:400])
            # SIZE(page) wrong, the sections there: they lead to the
            # kernel's own struct pages, the answer is drgn's still.
            wrong = os.path.join(tmp, "sections-" + fmt)
            with_edits(src, wrong, [SIZE_72])
            p = run(["-k", vmlinux, "--what", addr, wrong])
            c.eq(f"{name} {fmt} SIZE(page) wrong, sections kept: --what exit",
                 p.returncode, 0)
            c.ok(f"{name} {fmt} SIZE(page) wrong, sections kept: drgn's object",
                 f'in kmem_cache "{row["cache"]}"' in p.stdout and
                 f"0x{row['start']} +" in p.stdout, p.stdout[:400])
            os.unlink(wrong)
            bad = os.path.join(tmp, fmt)
            with_edits(src, bad, [SIZE_72, NO_SECTIONS])
            p = run(["-k", vmlinux, "--what", addr, bad])
            c.eq(f"{name} {fmt} refuted: --what exit", p.returncode, 4)
            c.ok(f"{name} {fmt} refuted: --what says not known, and why",
                 "in a slab object or not: not known" in p.stdout and
                 REFUTED in p.stdout, p.stdout[-600:])
            p = run(["-k", vmlinux, bad, addr])
            c.eq(f"{name} {fmt} refuted: decode exit", p.returncode, 4)
            c.ok(f"{name} {fmt} refuted: decode says why its slab is unknown",
                 REFUTED in p.stderr, p.stderr[-600:])
        src = os.path.join(d, "d31-zlib.vmcore")
        p = run(["-k", vmlinux, "--info", src])
        line = next((x for x in p.stdout.splitlines()
                     if x.startswith("excluded, by kind")), "")
        c.ok(f"{name} d31: --info counts excluded pages by kind",
             line.startswith("excluded, by kind  free ") and
             "struct page not read" not in line, line)
        p = run(["-k", vmlinux, "--info", os.path.join(tmp, "d31-zlib.vmcore")])
        line = next((x for x in p.stdout.splitlines()
                     if x.startswith("excluded, by kind")), "")
        c.ok(f"{name} d31 refuted: --info says why no struct page was read",
             "struct page not read" in line and REFUTED in line, line)
    c.finish()


if __name__ == "__main__":
    main()
