#!/usr/bin/python3
"""The buddy allocator's free pages as drgn sees them: the independent side
of test_info_free.py (never inodedump's output).

    drgn_free_pages.py VMLINUX DUMP      one JSON object on stdout

DUMP is a dump of the moment under test whose struct pages and zones are
kept (-d 17 keeps both; the free pages' own bytes are not needed). Counted
twice, each from the kernel's own data:
  by_page_type  every struct page whose page_type marks it a buddy block's
                head, 2^private pages each. The mark is the kernel's own:
                PGTY_buddy << 24 where the pagetype enum exists (6.11+),
                else the word VMCOREINFO gives dump writers
                (NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE), read from the kernel's
                vmcoreinfo_data);
  by_free_area  the zones' free_area[order].nr_free << order, every node.
Also one free block of order >= 1 (its head pfn, order, and the direct-map
address of its head and of its last page), for a read of a free page.
Works with Debian 12's drgn 0.0.22 (5.10, 6.12) and drgn 0.3.0.
"""
import json
import sys

import drgn
from drgn.helpers.linux.mm import for_each_page, page_to_pfn, pfn_to_virt


def vmcoreinfo(prog):
    data = prog["vmcoreinfo_data"]
    size = prog["vmcoreinfo_size"].value_()
    text = prog.read(data.value_(), size).decode(errors="replace")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def buddy_mark(prog):
    """(value, mask, whence): page_type & mask == value marks a buddy head."""
    try:
        pgty = prog.constant("PGTY_buddy").value_() & 0xFF
        return pgty << 24, 0xFF000000, "PGTY_buddy"
    except LookupError:
        v = int(vmcoreinfo(prog)["NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)"]) & 0xFFFFFFFF
        return v, 0xFFFFFFFF, "VMCOREINFO NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)"


def by_free_area(prog):
    total = 0
    try:
        nodes = [prog["node_data"][i] for i in range(len(prog["node_data"]))
                 if prog["node_data"][i].value_()]
    except (KeyError, LookupError, TypeError):
        nodes = [prog["contig_page_data"].address_of_()]
    for pgdat in nodes:
        zones = pgdat.node_zones
        for z in range(len(zones)):
            area = zones[z].free_area
            for order in range(len(area)):
                total += area[order].nr_free.value_() << order
    return total


def main():
    prog = drgn.Program()
    prog.set_core_dump(sys.argv[2])
    prog.load_debug_info([sys.argv[1]])
    value, mask, whence = buddy_mark(prog)
    pages = heads = 0
    pick = None
    for page in for_each_page(prog):
        try:
            if (page.page_type.value_() & mask) != value:
                continue
            order = page.private.value_()
        except drgn.FaultError:
            continue
        heads += 1
        pages += 1 << order
        if pick is None and 1 <= order <= 10:
            pfn = page_to_pfn(page).value_()
            pick = {"pfn": pfn, "order": order,
                    "head_virt": hex(pfn_to_virt(prog, pfn).value_()),
                    "last_virt": hex(pfn_to_virt(prog, pfn + (1 << order) - 1).value_())}
    print(json.dumps({"mark": whence, "value": value, "heads": heads,
                      "by_page_type": pages, "by_free_area": by_free_area(prog),
                      "pick": pick}))


if __name__ == "__main__":
    main()
