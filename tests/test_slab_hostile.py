#!/usr/bin/python3
"""Slab damage (issue 30): copies of a real dump (the stock set's 6.12
elf-nopaging ELF, memory as it was) with one slab structure broken, each
answered with a clear note, exit 4 (or 3 where nothing can be said), no
crash and no hang (the run is bounded by a timeout):

usage: test_slab_hostile.py CASE
  freelist_garbage   the free pointer of a free object of the truth
                     inode's slab points nowhere: "a corrupted free
                     pointer", the state of an object of that slab unknown
  freelist_cycle     a free object's free pointer leads back to itself:
                     "a cycle", unknown
  cache_size_absurd  the slab's kmem_cache says an object size of 4 GiB:
                     "is not one", unknown
  cache_nowhere      the slab's slab_cache points into unmapped space: the
                     slab's cache unreadable, unknown
  cache_stride_flipped  bit 21 of kmem_cache.size set (the campaign's
                     952 -> 0x2003b8), asked about an allocated object of a slab
                     whose freelist starts at its object 0 (the stock
                     set's inode caches have none: the first such cache
                     drgn finds): every address then falls in
                     object 0, which main reported "free"; the stride
                     does not fit the slab's pages: unknown, never free
Where each structure is and what it holds (the slab, its cache, the
cache's offset and random, a free object) comes from drgn 0.0.22 reading
the unmodified dump with vmlinux's types, never from vmcore-inode.
"""
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drgn  # noqa: E402
from drgn import Object, cast  # noqa: E402
from drgn.helpers.linux.mm import compound_head, virt_to_page, virt_to_phys  # noqa: E402
from fixture import Checker, ElfCopy, read_truth, run, set_dir  # noqa: E402

UNMAPPED = 0xffffc8ffff000000


def swab(v):
    return int.from_bytes(v.to_bytes(8, "little"), "big")


def kernel_phys(prog, va):
    """va's physical address by x86-64's page tables, read as physical
    memory with drgn (the vmemmap is not in the direct map)."""
    start = prog.symbol("init_top_pgt").address
    phys_base = int.from_bytes(prog.read(prog.symbol("phys_base").address, 8),
                               "little")
    pgd = (start - 0xffffffff80000000 + phys_base) & 0xffffffffffffffff
    l5 = prog.symbol("__pgtable_l5_enabled").address
    levels = 5 if int.from_bytes(prog.read(l5, 4), "little") else 4
    table = pgd
    for level in range(levels, 0, -1):
        shift = 12 + 9 * (level - 1)
        e = int.from_bytes(prog.read(table + ((va >> shift) & 511) * 8, 8, True),
                           "little")
        if not e & 1:
            raise SystemExit(f"FAIL 0x{va:x} not mapped (level {level})")
        frame = e & 0x000ffffffffff000
        if level in (2, 3) and e & 0x80:  # a large page
            return frame + (va & ((1 << shift) - 1))
        table = frame
    return table + (va & 0xfff)


def slab_with_free(prog, page, cache):
    """A slab of the same cache near page that has a freelist (the truth
    inode's may be full): drgn, pages of the same kmem_cache nearby."""
    size = prog.type("struct page").size
    for step in range(1, 8192):
        for sign in (1, -1):
            p = Object(prog, "struct page *", value=page.value_() + sign * step * size)
            try:
                s = cast("struct slab *", p)
                if s.slab_cache.value_() == cache.value_() and s.freelist.value_() \
                        and not p.compound_head.value_() & 1:
                    return p
            except drgn.FaultError:
                continue
    return None


def cpu_freelist(prog, cache):
    """(the struct page of a CPU's slab, its first free object) from the
    CPUs' freelists (a quiet cache's slabs are full but the CPUs')."""
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    from drgn.helpers.linux.percpu import per_cpu_ptr

    for cpu in for_each_online_cpu(prog):
        c = per_cpu_ptr(cache.cpu_slab, cpu)
        if c.freelist.value_() and c.slab.value_():
            return Object(prog, "struct page *", value=c.slab.value_()), \
                c.freelist.value_()
    raise SystemExit("FAIL no freelist of the cache to damage, slab or CPU")


def freelist_of(prog, cache, first, limit):
    """The free objects of a freelist from first (hardened pointers
    decoded as mm/slub.c's freelist_ptr_decode() does), walked with drgn."""
    random = cache.random.value_()
    off = cache.offset.value_()
    p, seen = first, []
    while p and p not in seen and len(seen) <= limit:
        seen.append(p)
        at = p + off
        p = int.from_bytes(prog.read(at, 8), "little") ^ random ^ swab(at)
    return seen


def slab_free_first(prog):
    """(kmem_cache, struct slab, an allocated object) of a cache (an
    inode cache's if one has such a slab; the stock set's has none): a slab on a node's partial list or a CPU's whose freelist (its own or
    the CPU's) starts at its object 0, and not all of whose objects are
    free."""
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.percpu import per_cpu_ptr

    psize = prog.type("struct page").size
    caches = sorted(list_for_each_entry("struct kmem_cache",
                                        prog["slab_caches"].address_of_(),
                                        "list"),
                    key=lambda c: not c.name.string_().endswith(b"inode_cache"))
    for c in caches:
        slabs = [(s, s.freelist.value_()) for s in list_for_each_entry(
            "struct slab", c.node[0].partial.address_of_(), "slab_list")]
        for cpu in for_each_online_cpu(prog):
            cc = per_cpu_ptr(c.cpu_slab, cpu)
            if cc.slab.value_():
                slabs.append((cc.slab, cc.freelist.value_()))
        for s, cpu_free in slabs:
            n = s.objects.value_()
            free = freelist_of(prog, c, s.freelist.value_(), n) + \
                freelist_of(prog, c, cpu_free, n)
            base = prog["page_offset_base"].value_() + \
                (s.value_() - prog["vmemmap_base"].value_()) // psize * 4096 + \
                c.red_left_pad.value_()
            # first on a freelist: a walk with the wrong stride meets it
            # before any object it would take for damage
            if base not in (s.freelist.value_(), cpu_free):
                continue
            for i in range(1, n):
                if base + i * c.size.value_() not in free:
                    return c, s, base + i * c.size.value_()
    raise SystemExit("FAIL no slab whose freelist starts at its object 0 "
                     "and with an object allocated (drgn)")


def main():
    case = sys.argv[1]
    d = set_dir("stock")
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "elf-paging.vmcore")  # drgn reads this one
    truth = next(t for t in read_truth(os.path.join(d, "truth.txt"))
                 if t["role"] == "regular")
    addr = int(truth["addr"], 16)
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    page = compound_head(virt_to_page(prog, addr))
    slab = cast("struct slab *", page)
    cache = slab.slab_cache
    size = cache.size.value_()
    off = cache.offset.value_()
    random = cache.random.value_()
    free = None
    ask = None
    if case == "cache_stride_flipped":
        cache, slab, ask = slab_free_first(prog)
        page = cast("struct page *", slab)
        size = cache.size.value_()
    if case in ("freelist_garbage", "freelist_cycle"):
        found = slab_with_free(prog, page, cache)
        if found is None:
            page, free = cpu_freelist(prog, cache)
        else:
            page = found
        slab = cast("struct slab *", page)
    base = prog["page_offset_base"].value_() + \
        (page.value_() - prog["vmemmap_base"].value_()) // prog.type("struct page").size * 4096
    base += cache.red_left_pad.value_()
    nobj = slab.objects.value_()
    if free is None:
        free = slab.freelist.value_()
    # the address asked: an object of that slab that is not its first free one
    if ask is None:
        ask = base + (0 if base != free else size)
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        copy = ElfCopy(d, tmp)
        if case in ("freelist_garbage", "freelist_cycle"):
            if not free:
                raise SystemExit("FAIL the truth inode's slab has no freelist "
                                 "to damage (drgn: slab.freelist NULL)")
            at = free + off
            target = 0xdead4ead00000000 if case == "freelist_garbage" else free
            raw = target ^ random ^ swab(at)
            copy.write_phys(virt_to_phys(prog, at).value_(), struct.pack("<Q", raw))
            want = "corrupted free pointer" if case == "freelist_garbage" else "a cycle"
        elif case == "cache_size_absurd":
            m = cache.size
            copy.write_phys(virt_to_phys(prog, m.address_).value_(),
                            struct.pack("<I", 0xffffffff))
            want = "is not one"
        elif case == "cache_stride_flipped":
            m = cache.size
            copy.write_phys(virt_to_phys(prog, m.address_).value_(),
                            struct.pack("<I", size | 1 << 21))
            want = "stride of %d bytes" % (size | 1 << 21)
        elif case == "cache_nowhere":
            copy.write_phys(kernel_phys(prog, slab.slab_cache.address_),
                            struct.pack("<Q", UNMAPPED))
            want = "slab 0x"
        else:
            raise SystemExit(f"unknown case {case}")
        p = run(["-k", vmlinux, "--json", "--what", "%x" % ask, copy.path],
                timeout=120)
        c.ok(f"{case}: no crash (exit 0, 3 or 4)", p.returncode in (0, 3, 4),
             f"exit {p.returncode}: {p.stderr[-500:]}")
        try:
            w = json.loads(p.stdout)["what"][0]
        except (json.JSONDecodeError, KeyError, IndexError):
            w = {}
            c.ok(f"{case}: JSON", False, p.stdout[:300] + p.stderr[-300:])
        s = w.get("slab") or {}
        c.eq(f"{case}: allocated or free is not known", s.get("state"), "unknown")
        c.ok(f"{case}: unread says '{want}'", want in (s.get("unread") or ""),
             str(s)[:600])
        c.eq(f"{case}: partial (exit 4)", p.returncode, 4)
        c.ok(f"{case}: said on stderr", want in p.stderr, p.stderr[-600:])
        # A decode of that object (--force: it may be no inode): decoded,
        # the slab's damage a note, partial.
        p = run(["-k", vmlinux, "--force", "--json", copy.path, "%x" % ask],
                timeout=120)
        c.ok(f"{case}: a decode there notes the slab (exit 4)",
             p.returncode == 4 and '"field": "slab"' in p.stdout,
             f"exit {p.returncode}: {p.stderr[-400:]}")
        # A sweep on it: no hang, no crash.
        p = run(["-k", vmlinux, "--sweep", "--jsonl", copy.path], timeout=300)
        c.ok(f"{case}: the sweep runs (exit 0, 1 or 4)", p.returncode in (0, 1, 4),
             f"exit {p.returncode}: {p.stderr[-400:]}")
    print(f"{case}: slab 0x{slab.value_():x} of {cache.name.string_().decode()}, "
          f"{nobj} objects, free pointer at +{off}")
    c.finish()


if __name__ == "__main__":
    main()
