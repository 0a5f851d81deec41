#!/usr/bin/python3
"""Damage under the memory map is said as damage (issue 41): a copy of
the committed fixture (a real 7.3 diskdump, makedumpfile -d 17 -c) whose
page descriptor of a page the kernel's struct pages depend on is damaged.
On main the struct page that could not be read was said to be "not in the
dump", as if its writer had left it out, and the damage went unsaid.

usage: test_honest_memmap.py CASE
  table_size     the page table page that maps the victim inode's struct
                 page (vmemmap's last table, walked from init_top_pgt):
                 its descriptor's size 0xffffffff
  table_lzo      the same descriptor claims LZO over its zlib data
                 (the mutation campaign's LeakSanitizer case)
  table_snappy   the same descriptor claims snappy, which the header's
                 status does not name (main handed the page to
                 libkdumpfile, which failed: "not mapped", and --info's
                 free pages became "struct page not read", exit 0)
  sections_root  (the patched set's d17-lzo: SPARSEMEM_EXTREME) the page
                 of mem_section's roots, its descriptor's size 0xffffffff:
                 --info exit 4, the memory map's damage said once
  slab_detail_leak  (the sanitizer build only) a slab's first page's bit
                 swapped with the nearest free page's, the descriptor
                 table rotated to match (every other page keeps its
                 bytes): the slab page now reads as left out, and its
                 explanation reads the slab's kmem_cache, whose page's
                 descriptor claims LZO over its zlib data. On e8a86ec^
                 the error of that read leaked (LeakSanitizer, exit 23);
                 now it is freed, and said

Each --what of the victim inode and --info (whose excluded pages' kinds
are read from their struct pages) end partial (exit 4), and a decode of a
free page's address unreadable (exit 3), each naming the damaged page's
descriptor ("corrupt diskdump", its page frame) and never "not in the
dump". Where things are comes from the dump's own headers (bitmaps,
descriptors: makedumpfile's diskdump_mod.h), vmlinux's symbol table
(readelf), pahole, and drgn 0.0.22 reading the dump's physical memory;
never from vmcore-inode.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, set_dir, vmcore_inode  # noqa: E402
from test_honest import (descriptor_of, pahole_offset,  # noqa: E402
                         symbol, vmcoreinfo_value)

D = set_dir("committed")
DUMP = os.path.join(D, "d17-zlib.vmcore")
VMLINUX = os.path.join(D, "vmlinux")
TRUTH = read_truth(os.path.join(D, "truth.txt"))
KERNEL_MAP = 0xffffffff80000000  # x86-64's __START_KERNEL_map
DUMP_DH_COMPRESSED_ZLIB, DUMP_DH_COMPRESSED_LZO = 0x1, 0x2
DUMP_DH_COMPRESSED_SNAPPY = 0x4
PGTY_SLAB = 0xf5  # include/linux/page-flags.h, enum pagetype, 6.12+


class Dump:
    """The fixture's bytes, its bitmaps and its memory through drgn."""

    def __init__(self):
        import drgn
        self.data = bytearray(open(DUMP, "rb").read())
        bs, sub, blocks = struct.unpack_from("<iii", self.data, 428)
        self.bitmap1 = bs * (1 + sub)
        self.bitmap2 = self.bitmap1 + blocks // 2 * bs
        self.descs = self.bitmap1 + blocks * bs
        self.pfns = blocks // 2 * bs * 8
        kaslr = int(vmcoreinfo_value(self.data, b"KERNELOFFSET"), 16)
        self.phys_base = int(vmcoreinfo_value(self.data,
                                              b"NUMBER(phys_base)"))
        self.l5 = vmcoreinfo_value(self.data,
                                   b"NUMBER(pgtable_l5_enabled)") == "1"
        self.page_size = int(vmcoreinfo_value(self.data, b"SIZE(page)"))
        self.prog = drgn.Program()
        self.prog.set_core_dump(DUMP)
        self.kaslr = kaslr
        self.pob = self.prog.read_u64(symbol("page_offset_base") + kaslr)
        self.vmemmap = self.prog.read_u64(symbol("vmemmap_base") + kaslr)

    def bit(self, bitmap, pfn):
        return self.data[bitmap + pfn // 8] >> (pfn % 8) & 1

    def kept(self, pfn):
        return self.bit(self.bitmap2, pfn)

    def left_out(self, pfn):
        """RAM (first bitmap) the writer left out (second)."""
        return self.bit(self.bitmap1, pfn) and not self.kept(pfn)

    def struct_page(self, pfn):
        return self.vmemmap + pfn * self.page_size

    def tables(self, va):
        """The physical addresses of the page tables that map va, from
        init_top_pgt down (the last one's entry is a leaf)."""
        table = symbol("init_top_pgt") + self.kaslr - KERNEL_MAP + \
            self.phys_base
        out = []
        for shift in ([48] if self.l5 else []) + [39, 30, 21, 12]:
            out.append(table)
            e = self.prog.read_u64(table + ((va >> shift) & 511) * 8, True)
            assert e & 1, f"{va:#x} not mapped at level {shift}"
            if shift in (30, 21) and e & 0x80 or shift == 12:
                return out
            table = e & 0x000ffffffffff000
        return out

    def descriptor(self, pfn):
        at = descriptor_of(self.data, pfn)
        return at, struct.unpack_from("<QII", self.data, at)

    def save(self, tmp, name):
        path = os.path.join(tmp, name + ".vmcore")
        with open(path, "wb") as f:
            f.write(self.data)
        return path


def victim():
    return next(t for t in TRUTH if t["role"] == "victim_symlink")


def a_free_page(d):
    """A free page's address (left out by -d 17) in the direct map."""
    pfn = next(p for p in range(0x1000, d.pfns) if d.left_out(p))
    return d.pob + pfn * 4096 + 0x100


def memmap_table(c, d, change):
    """The last page table over the victim's struct page, its descriptor
    changed by change(at, flags)."""
    pfn = (int(victim()["addr"], 16) - d.pob) >> 12
    table = d.tables(d.struct_page(pfn))[-1] >> 12
    at, (off, size, flags) = d.descriptor(table)
    c.ok(f"the table page 0x{table:x} is kept, zlib",
         flags == DUMP_DH_COMPRESSED_ZLIB and 0 < size < 4096, (size, flags))
    change(at, flags)
    return table


def table_size(c, d):
    return memmap_table(c, d, lambda at, _: struct.pack_into(
        "<I", d.data, at + 8, 0xffffffff))


def table_lzo(c, d):
    return memmap_table(c, d, lambda at, _: struct.pack_into(
        "<I", d.data, at + 12, DUMP_DH_COMPRESSED_LZO))


def table_snappy(c, d):
    """(a zlib dump's header names no snappy: the page is not libkdumpfile's
    to read, and its failure then was "not mapped")"""
    return memmap_table(c, d, lambda at, _: struct.pack_into(
        "<I", d.data, at + 12, DUMP_DH_COMPRESSED_SNAPPY))


def run(*args, asan=False):
    env = dict(os.environ)
    if asan:
        env["ASAN_OPTIONS"] = "detect_leaks=1"
    return subprocess.run([vmcore_inode(), "-k", VMLINUX, *args], env=env,
                          capture_output=True, text=True, timeout=300)


def names_the_damage(c, what, p, frame):
    c.ok(f"{what}: names the damaged descriptor (page frame 0x{frame:x})",
         f"corrupt diskdump" in p.stderr and
         f"page frame 0x{frame:x}," in p.stderr, p.stderr)
    c.ok(f"{what}: never 'not in the dump'",
         "not in the dump" not in p.stderr + p.stdout, p.stderr)


def check_table(c, d, tmp, case):
    frame = CASES[case](c, d)
    path = d.save(tmp, case)
    addr = victim()["addr"]
    good = run("--what", addr, DUMP)
    c.eq("the unmutated --what: exit 0", good.returncode, 0)
    c.ok("the unmutated --what: a shmem_inode_cache object",
         "shmem_inode_cache" in good.stdout, good.stdout)
    p = run("--what", addr, path)
    c.eq(f"{case}: --what exit 4", p.returncode, 4)
    names_the_damage(c, f"{case}: --what", p, frame)
    good = run("--info", DUMP)
    p = run("--info", path)
    c.eq(f"{case}: --info exit 4 (its free pages' kinds not known)",
         (good.returncode, p.returncode), (0, 4))
    names_the_damage(c, f"{case}: --info", p, frame)
    free = f"0x{a_free_page(d):x}"
    p = run(path, free)
    c.eq(f"{case}: a free page's address: exit 3", p.returncode, 3)
    c.ok(f"{case}: it was left out by the writer",
         "filtered out of the dump by its writer" in p.stderr, p.stderr)
    names_the_damage(c, f"{case}: a free page's address", p, frame)


def sanitized(exe):
    with open(exe, "rb") as f:
        return b"__lsan" in f.read()


def rank(d, pfn):
    """pfn's place among the pages the second bitmap keeps."""
    b = d.data[d.bitmap2:d.bitmap2 + pfn // 8]
    return sum(bin(x).count("1") for x in b) + bin(
        d.data[d.bitmap2 + pfn // 8] & ((1 << (pfn % 8)) - 1)).count("1")


def slab_head(d, pfn, at={}):
    """pfn's struct page when it is a slab's first page, else None (a
    tail page's word 1 has bit 0 set: 7.3's compound_info, before it
    compound_head)."""
    import drgn
    if not at:
        at["page_type"] = pahole_offset("page", "page_type")
        at["tail"] = pahole_offset("page", "compound_info")
    page = d.struct_page(pfn)
    try:
        tail = d.prog.read_u64(page + at["tail"]) & 1
        pt = d.prog.read_u32(page + at["page_type"])
    except drgn.FaultError:
        return None
    return page if not tail and pt >> 24 == PGTY_SLAB else None


def check_slab_detail_leak(c, d, tmp):
    c.ok("the binary is the LeakSanitizer build", sanitized(vmcore_inode()),
         vmcore_inode())
    left = [p for p in range(0x1000, d.pfns) if d.left_out(p)]
    # the kept slab page nearest a free page: fewest descriptors to move
    best = None
    for p in range(0x1000, d.pfns):
        if not d.kept(p) or slab_head(d, p) is None:
            continue
        q = min(left, key=lambda q: abs(q - p))
        if best is None or abs(q - p) < abs(best[1] - best[0]):
            best = (p, q)
    slab, free = best
    c.ok(f"slab page 0x{slab:x}, free page 0x{free:x} (below it)",
         free < slab, best)
    cache = d.prog.read_u64(slab_head(d, slab) +
                            pahole_offset("slab", "slab_cache"))
    cache_pfn = (cache - d.pob) >> 12
    c.ok("the kmem_cache is outside the pages moved",
         not free <= cache_pfn <= slab, hex(cache_pfn))
    # free takes the first descriptor of the run, slab's goes
    first, last = rank(d, free + 1), rank(d, slab)
    at = [d.descs + 24 * r for r in range(first, last + 1)]
    old = [bytes(d.data[a:a + 24]) for a in at]
    for a, b in zip(at, [old[-1]] + old[:-1]):
        d.data[a:a + 24] = b
    d.data[d.bitmap2 + free // 8] |= 1 << (free % 8)
    d.data[d.bitmap2 + slab // 8] &= ~(1 << (slab % 8)) & 0xff
    a, (off, size, flags) = d.descriptor(cache_pfn)
    c.eq("the kmem_cache's page is zlib", flags, DUMP_DH_COMPRESSED_ZLIB)
    struct.pack_into("<I", d.data, a + 12, DUMP_DH_COMPRESSED_LZO)
    path = d.save(tmp, "slab_detail_leak")
    addr = f"0x{d.pob + slab * 4096 + 0x40:x}"
    p = run(path, addr, asan=True)
    c.ok("no LeakSanitizer report", "LeakSanitizer" not in p.stderr,
         p.stderr[-2000:])
    c.eq("exit 3: the address was left out", p.returncode, 3)
    c.ok("its page explained: a slab page", "was a slab page" in p.stderr,
         p.stderr)
    names_the_damage(c, "the slab's cache", p, cache_pfn)


def check_sections_root(c, tmp):
    """(the patched set: SPARSEMEM_EXTREME, no vmemmap) the page of
    mem_section's roots (VMCOREINFO's SYMBOL(mem_section), in the direct
    map) with its descriptor's size 0xffffffff: no struct page can be
    found. Main said nothing, --info's free pages became "struct page not
    read", exit 0."""
    import drgn
    pd = set_dir("patched")
    dump, vmlinux = (os.path.join(pd, "d17-lzo.vmcore"),
                     os.path.join(pd, "vmlinux"))
    data = bytearray(open(dump, "rb").read())
    roots = int(vmcoreinfo_value(data, b"SYMBOL(mem_section)"), 16)
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    c.eq("drgn: mem_section is VMCOREINFO's roots",
         prog["mem_section"].value_(), roots)
    frame = (roots - prog["page_offset_base"].value_()) >> 12
    at = descriptor_of(data, frame)
    struct.pack_into("<I", data, at + 8, 0xffffffff)
    path = os.path.join(tmp, "sections_root.vmcore")
    with open(path, "wb") as f:
        f.write(data)

    def vi(*args):
        return subprocess.run([vmcore_inode(), "-k", vmlinux, *args],
                              capture_output=True, text=True, timeout=300)
    good, p = vi("--info", dump), vi("--info", path)
    c.eq("sections_root: --info exit 0, then 4", (good.returncode,
                                                  p.returncode), (0, 4))
    c.eq("sections_root: one line says the memory map cannot be found",
         len([ln for ln in p.stderr.splitlines()
              if "the memory map cannot be found where the dump is damaged"
              in ln and f"page frame 0x{frame:x}," in ln]), 1)


CASES = {"table_size": table_size, "table_lzo": table_lzo,
         "table_snappy": table_snappy, "slab_detail_leak": None,
         "sections_root": None}


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in CASES:
        raise SystemExit(__doc__)
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="honest-memmap-") as tmp:
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        if case == "sections_root":
            check_sections_root(c, tmp)
            print(f"{case}:", end=" ")
            c.finish()
        d = Dump()
        if case == "slab_detail_leak":
            check_slab_detail_leak(c, d, tmp)
        else:
            check_table(c, d, tmp, case)
        shutil.rmtree(os.environ["XDG_CACHE_HOME"], ignore_errors=True)
    print(f"{case}:", end=" ")
    c.finish()


if __name__ == "__main__":
    main()
