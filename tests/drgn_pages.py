#!/usr/bin/python3
"""What drgn (0.3.0, sid chroot; the host's 0.0.22 for 5.10) says about
pages: the independent side of the filtered-page explanation (test_pages.py).

    drgn_pages.py VMLINUX DUMP pick           one page-cache, one free and
                                              one anonymous page, as JSON
    drgn_pages.py VMLINUX DUMP facts PFN...   per pfn, as JSON

DUMP is an unfiltered dump of the same moment as the filtered one under
test. Only drgn's own helpers and the kernel's types are used: page flags
by decode_page_flags(), slab pages by PageSlab() and slab_object_info(),
the buddy allocator's pages by page_type and the kernel's PGTY_buddy (or,
before the pagetype enum, VMCOREINFO's PAGE_BUDDY_MAPCOUNT_VALUE).
"""
import json
import sys

import drgn
from drgn.helpers.linux.mm import (PageLRU, PageSlab, PageTail,
                                   decode_page_flags,
                                   for_each_page, page_to_pfn, page_to_virt,
                                   pfn_to_page)
from drgn.helpers.linux.slab import compound_head, slab_object_info


_vmcoreinfo = None


def vmcoreinfo(prog):
    """The kernel's own VMCOREINFO text (vmcoreinfo_data), as a dict."""
    global _vmcoreinfo
    if _vmcoreinfo is None:
        data = prog["vmcoreinfo_data"].value_()
        text = prog.read(data, prog["vmcoreinfo_size"].value_()).decode(errors="replace")
        _vmcoreinfo = dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)
    return _vmcoreinfo


def is_type(prog, page, name):
    """page_type says name: by the pagetype enum (6.11+), else (5.10) by
    the whole word VMCOREINFO gives writers (PAGE_BUDDY_MAPCOUNT_VALUE)."""
    try:
        want = prog.constant("PGTY_" + name).value_()
    except LookupError:
        v = vmcoreinfo(prog).get(f"NUMBER(PAGE_{name.upper()}_MAPCOUNT_VALUE)")
        return v is not None and page.page_type.value_() == int(v) & 0xFFFFFFFF
    return (page.page_type.value_() >> 24) == (want & 0xFF)


def mapping_of(page):
    return page.mapping.value_()


def facts(prog, pfn):
    page = pfn_to_page(prog, pfn)
    head = compound_head(page)
    addr = page_to_virt(page).value_()
    out = {
        "pfn": pfn,
        "struct_page": page.value_(),
        "head_pfn": page_to_pfn(head).value_(),
        "flags": decode_page_flags(head),
        "slab": bool(PageSlab(head)),
        "buddy": is_type(prog, head, "buddy"),
        "lru": bool(PageLRU(head)),
        "anon": bool(mapping_of(head) & 1),
        "cache": None,
        "host_ino": None,
        "s_id": None,
    }
    if out["slab"]:
        info = slab_object_info(prog, addr)
        if info is not None:
            out["cache"] = info.slab_cache.name.string_().decode()
    elif out["lru"] and mapping_of(head) and not out["anon"]:
        host = head.mapping.host
        out["host_ino"] = host.i_ino.value_()
        out["s_id"] = host.i_sb.s_id.string_().decode()
    return out


def pick(prog):
    """The first page-cache page, free buddy block head and anonymous page."""
    want = {"cache": None, "free": None, "anon": None}
    for page in for_each_page(prog):
        try:
            if PageTail(page):
                continue
            kind = None
            if is_type(prog, page, "buddy") and page.private.value_() >= 1:
                kind = "free"
            elif PageLRU(page) and mapping_of(page):
                kind = "anon" if mapping_of(page) & 1 else "cache"
            if kind and want[kind] is None:
                want[kind] = {"pfn": page_to_pfn(page).value_(),
                              "virt": hex(page_to_virt(page).value_())}
        except drgn.FaultError:
            continue
        if all(want.values()):
            break
    return want


def main(argv):
    vmlinux, dump, cmd = argv[1:4]
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    if cmd == "pick":
        print(json.dumps(pick(prog)))
    elif cmd == "facts":
        print(json.dumps([facts(prog, int(p, 0)) for p in argv[4:]]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
