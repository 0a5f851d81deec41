#!/usr/bin/env python3
"""A slab page a writer left out of a 5.10 dump is explained as a slab
page of its kmem_cache: 5.10 marks slab pages with the PG_slab flag (not a
page type) and keeps the cache in struct page's slab_cache (no struct
slab before 5.17). makedumpfile 1.7.2 keeps every 5.10 slab page, so the
loss is made here: a copy of the old510 set's d17-zlib.vmcore without the
page under a truth inode (its bit in the dumped-pages bitmap cleared and
its descriptor taken out: without_page()), for one tmpfs and one ext4
(module cache) inode. The truth is the host's drgn on the whole dump: PageSlab() and
slab_object_info() (never inodedump).

usage: test_slab510.py
"""
import os
import re
import struct
import tempfile

import drgn
from drgn import Object
from drgn.helpers.linux.mm import PageSlab, compound_head, virt_to_page, virt_to_phys
from drgn.helpers.linux.slab import slab_object_info

from fixture import Checker, read_truth, run, set_dir

ROLES = ("regular", "ext4_regular")


def without_page(data, pfn):
    """data (a diskdump) with pfn no longer dumped: its bit of the second
    bitmap cleared and its descriptor removed (makedumpfile's
    diskdump_mod.h: a page's descriptor is its rank among the dumped
    pages). The table keeps its length, as a reader checks it against the
    data after it: the first RAM page frame the dump left out takes the
    freed place, its data the zero page makedumpfile writes at the start
    of the data."""
    bs, sub, blocks = struct.unpack_from("<iii", data, 428)
    bitmap = bs * (1 + sub)
    half = blocks // 2 * bs
    bitmap2 = bitmap + half
    desc = bitmap + blocks * bs

    def bit(base, n):
        return data[base + n // 8] >> (n % 8) & 1

    def rank(n):
        b = data[bitmap2:bitmap2 + n // 8]
        return sum(bin(v).count("1") for v in b) + \
            bin(data[bitmap2 + n // 8] & ((1 << (n % 8)) - 1)).count("1")

    if not bit(bitmap2, pfn):
        raise SystemExit(f"FAIL pfn 0x{pfn:x} is not in the dump")
    count = rank(half * 8 - 1) + bit(bitmap2, half * 8 - 1)
    spare = next((n for n in range(half * 8) if bit(bitmap, n) and not bit(bitmap2, n)),
                 None)
    if spare is None:
        raise SystemExit("FAIL every RAM page frame is in the dump")
    end = desc + 24 * count
    descs = [bytes(data[desc + 24 * i:desc + 24 * i + 24]) for i in range(count)]
    del descs[rank(pfn)]
    data[bitmap2 + pfn // 8] &= ~(1 << (pfn % 8)) & 0xFF
    data[bitmap2 + spare // 8] |= 1 << (spare % 8)
    descs.insert(rank(spare), struct.pack("<qIIQ", end, 4096, 0, 0))
    data[desc:end] = b"".join(descs)
    return data


def main():
    d = set_dir("old510")
    vmlinux, dump = os.path.join(d, "vmlinux"), os.path.join(d, "d17-zlib.vmcore")
    truth = {t["role"]: t for t in read_truth(os.path.join(d, "truth.txt"))}
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    c = Checker()
    whole = open(dump, "rb").read()
    for role in ROLES:
        addr = int(truth[role]["addr"], 16)
        page = virt_to_page(prog, addr)
        head = compound_head(page)
        pfn = virt_to_phys(prog, addr).value_() >> 12
        info = slab_object_info(prog, addr)
        cache = info.slab_cache.name.string_().decode() if info else None
        c.ok(f"{role}: drgn says its page is a slab page", bool(PageSlab(head)))
        c.ok(f"{role}: drgn names its cache", cache is not None)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "noslab.vmcore")
            with open(path, "wb") as f:
                f.write(without_page(bytearray(whole), pfn))
            p = run(["-k", vmlinux, path, f"{addr:x}"])
        e = p.stderr.strip()
        print(f"NOTE {role} pfn 0x{pfn:x} ({cache}): {e[:400]}")
        c.eq(f"{role}: exit code (the inode itself lost)", p.returncode, 3)
        c.ok(f"{role}: names the filtered pfn", f"pfn 0x{pfn:x} " in e, e)
        c.ok(f"{role}: a slab page of drgn's kmem_cache",
             re.search(rf'was a slab page of kmem_cache "{re.escape(cache or "?")}" '
                       r"\(0x[0-9a-f]+\)", e) is not None, e)
        flags = re.search(r"\[flags ([^;]*); page_type (\w+)\]", e)
        c.ok(f"{role}: the slab flag among its flags (5.10: PG_slab)",
             flags is not None and "slab" in flags.group(1).split("|"), e)
        c.ok(f"{role}: a slab page left out is the writer's mistake",
             "the writer's mistake, not the kernel's" in e, e)
    c.finish()


if __name__ == "__main__":
    main()
