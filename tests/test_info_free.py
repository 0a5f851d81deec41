#!/usr/bin/env python3
"""--info counts the pages a -d 31 dump left out as free as the buddy
allocator's, never as the writer's mistake, and a read of a free page says
it was free (issue 30, item 5: 5.10 marks buddy pages with VMCOREINFO's
PAGE_BUDDY_MAPCOUNT_VALUE, 6.11+ with the pagetype enum).

usage: test_info_free.py SET DUMP

Truth from drgn (tests/drgn_free_pages.py, the host's drgn) reading the
set's d17-zlib.vmcore, made from the same ELF dump as DUMP: the free pages
counted once by page_type and once by the zones' free_area counts (the two
must agree), and one free block to read. DUMP excludes free pages (bit 16),
so every free page is one the writer left out.
"""
import json
import os
import re
import subprocess
import sys

from fixture import Checker, run, set_dir

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = re.compile(
    r"free (\d+) \(bit 16\), cache (\d+) \(bits 2, 4\), user (\d+) \(bit 8\), "
    r"at every level (\d+); slab (\d+) and other kernel memory (\d+) \(no bit "
    r"excludes these: the writer's mistake\)(?:; struct page not read: (\d+))?")


def main():
    set_name, dump_name = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    vmlinux, dump = os.path.join(d, "vmlinux"), os.path.join(d, dump_name)
    p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "drgn_free_pages.py"),
                        vmlinux, os.path.join(d, "d17-zlib.vmcore")],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"FAIL drgn_free_pages.py: exit {p.returncode}\n{p.stderr}")
    truth = json.loads(p.stdout)
    c = Checker()
    free = truth["by_page_type"]
    print(f"NOTE drgn ({truth['mark']} = {truth['value']:#x}): {free} free pages "
          f"in {truth['heads']} blocks; zones' free_area: {truth['by_free_area']}")
    c.ok("drgn: free pages by page_type equal the zones' free_area counts",
         free == truth["by_free_area"], f"{free} != {truth['by_free_area']}")
    c.ok("drgn found free pages", free > 0)

    r = run(["-k", vmlinux, "--info", dump])
    c.eq("--info exit code", r.returncode, 0)
    m = KINDS.search(r.stdout)
    total = re.search(r"^excluded +(\d+) of (\d+) pages", r.stdout, re.M)
    c.ok("--info says what the excluded pages were", m is not None and total is not None,
         r.stdout + r.stderr)
    if m and total:
        n = [int(x) if x else 0 for x in m.groups()]
        print(f"NOTE --info: excluded {total.group(1)}; free {n[0]}, cache {n[1]}, "
              f"user {n[2]}, always {n[3]}, slab {n[4]}, other {n[5]}, unread {n[6]}")
        c.eq("free pages (bit 16) as drgn counts them", n[0], free)
        c.eq("the kinds add up to the pages excluded", sum(n), int(total.group(1)))
        c.ok("free pages are not the writer's mistake: other kernel memory "
             "is fewer than the free pages", n[5] < free, str(n))

    pick = truth["pick"]
    c.ok("drgn picked a free block of order >= 1", pick is not None)
    if pick:
        first, size = pick["pfn"], 1 << pick["order"]
        for what, virt in (("head", pick["head_virt"]), ("last page", pick["last_virt"])):
            r = run(["-k", vmlinux, dump, virt])
            c.eq(f"read of the free block's {what} {virt}: exit code", r.returncode, 3)
            c.ok(f"read of the free block's {what}: said free, with its block",
                 f"was free (in the buddy allocator: a block of {size} pages "
                 f"from pfn {first:#x})" in r.stderr, r.stderr.strip())
            c.ok(f"read of the free block's {what}: page_type buddy",
                 "page_type buddy]" in r.stderr, r.stderr.strip())
            c.ok(f"read of the free block's {what}: left out as asked",
                 "excludes free pages, bit 16: left out as asked" in r.stderr,
                 r.stderr.strip())
            c.ok(f"read of the free block's {what}: not the writer's mistake",
                 "writer's mistake" not in r.stderr, r.stderr.strip())
    c.finish()


if __name__ == "__main__":
    main()
