#!/usr/bin/env python3
"""A page the dump's writer left out is explained from the dump's own
struct page, and every claim agrees with drgn 0.3.0 reading the unfiltered
ELF dump of the same moment (tests/drgn_pages.py, sid chroot; on a set
that names no sid chroot, old510's 5.10, the host's drgn 0.0.22).

usage: test_pages.py SET DUMP [--want-slab]

Explanations come from two kinds of read of DUMP (a -d 31 dump): every
truth inode (what a user meets: a slab page lost under it), and one
page-cache, one free and one anonymous page that drgn picks (given as the
address to decode: the first read hits the page). --want-slab: at least
one truth inode's read must hit a slab page (the writer's mistake).
"""
import json
import os
import re
import subprocess
import sys

import sid_drgn
from fixture import Checker, read_truth, run, run_json, set_dir

EXPLAINED = re.compile(
    r"address (0x[0-9a-f]+) \(physical (0x[0-9a-f]+)\) was filtered out of "
    r"the dump by its writer \(dump level (\d+)[^)]*\): pfn (0x[0-9a-f]+) "
    r"\(struct page (0x[0-9a-f]+)\) was (.*?) \[flags ([^;]*); page_type "
    r"(\w+)\]; (.*)")


def explanations(text):
    """pfn -> parsed explanation, for every filtered read in text."""
    out = {}
    for m in EXPLAINED.finditer(text):
        addr, phys, level, pfn, page, what, flags, ptype, verdict = m.groups()
        e = {"phys": int(phys, 16), "level": int(level), "pfn": int(pfn, 16),
             "struct_page": int(page, 16), "what": what,
             "flags": [] if flags == "none" else flags.split("|"),
             "page_type": ptype, "verdict": verdict, "text": m.group(0)}
        out[e["pfn"]] = e
    return out


def drgn_pages(d, args):
    """drgn_pages.py ARGS on the set's vmlinux and elf-paging.vmcore: in the
    set's sid chroot, or with the host's drgn where the set names none."""
    if sid_drgn.chroot_of(d):
        return sid_drgn.run(d, "drgn_pages.py",
                            ["/fx/vmlinux", "/fx/elf-paging.vmcore", *args])
    p = subprocess.run(["/usr/bin/python3", os.path.join(sid_drgn.HERE, "drgn_pages.py"),
                        os.path.join(d, "vmlinux"), os.path.join(d, "elf-paging.vmcore"),
                        *args], capture_output=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"FAIL drgn_pages.py {' '.join(args[:1])}: exit {p.returncode}\n"
                         f"{p.stderr.decode(errors='replace')}")
    return p.stdout


def kind(e):
    w = e["what"]
    for prefix, k in (("a slab page", "slab"), ("free (in the buddy", "free"),
                      ("page cache", "cache"), ("private page cache", "cache"),
                      ("an anonymous", "anon")):
        if w.startswith(prefix):
            return k
    return "other"


def check(c, n, e, f, facts_of):
    """Each claim of explanation e against drgn's facts f of the same pfn."""
    k = kind(e)
    c.eq(n + " struct page", e["struct_page"], f["struct_page"])
    c.eq(n + " physical address in the page", e["phys"] >> 12, f["pfn"])
    head = re.search(r"page (\d+) of the compound page at pfn (0x[0-9a-f]+)",
                     e["what"])
    c.eq(n + " head page", int(head.group(2), 16) if head else e["pfn"],
         f["head_pfn"] if k != "free" else e["pfn"])
    drgn_flags = set(f["flags"].split("|")) if f["flags"] != "0" else set()
    for flag in e["flags"]:
        c.ok(f"{n} flag {flag} set (drgn)", "PG_" + flag in drgn_flags,
             f["flags"])
    # slab by page_type (6.10+) or by the PG_slab flag (before)
    c.eq(n + " slab page_type or flag", e["page_type"] == "slab" or
         "slab" in e["flags"], f["slab"])
    c.ok(n + " no writer named by version", "makedumpfile 1." not in e["text"],
         e["text"])
    if k == "slab":
        c.ok(n + " slab page (drgn PageSlab)", f["slab"], str(f))
        cache = re.search(r'kmem_cache "([^"]+)"', e["what"])
        c.eq(n + " kmem_cache (drgn slab_object_info)",
             cache.group(1) if cache else None, f["cache"])
        c.ok(n + " a slab page left out is the writer's mistake",
             "the writer's mistake, not the kernel's" in e["verdict"],
             e["verdict"])
    elif k == "free":
        block = re.search(r"a block of (\d+) pages from pfn (0x[0-9a-f]+)",
                          e["what"])
        c.ok(n + " names its buddy block", block is not None, e["what"])
        if block:
            first, size = int(block.group(2), 16), int(block.group(1))
            c.ok(n + " pfn inside the block", first <= e["pfn"] < first + size,
                 e["what"])
            c.ok(n + " block head is a buddy page (drgn page_type)",
                 facts_of(first)["buddy"], str(facts_of(first)))
        c.ok(n + " excluded as free pages, as asked",
             "excludes free pages, bit 16: left out as asked" in e["verdict"],
             e["verdict"])
    elif k == "cache":
        c.ok(n + " on an LRU list, not anonymous (drgn)",
             f["lru"] and not f["anon"], str(f))
        ino = re.search(r"of inode (\d+) \(0x[0-9a-f]+\)(?: on (\S+))?", e["what"])
        if ino or "not in the dump either" not in e["what"]:
            c.eq(n + " inode of the page cache (drgn mapping->host)",
                 (int(ino.group(1)), ino.group(2)) if ino else None,
                 (f["host_ino"], f["s_id"]))
        else:
            # its inode is in a page the writer lost too: said, not guessed
            c.ok(n + " says its inode is lost too", f["host_ino"] is not None,
                 str(f))
            print(f"NOTE {n}: the page cache's inode is not in the dump")
        c.ok(n + " excluded as cache pages, as asked",
             "cache pages" in e["verdict"] and "left out as asked" in e["verdict"],
             e["verdict"])
    elif k == "anon":
        c.ok(n + " anonymous (drgn mapping)", f["anon"], str(f))
        c.ok(n + " excluded as user pages, as asked",
             "excludes user pages, bit 8: left out as asked" in e["verdict"],
             e["verdict"])
    else:
        c.ok(n + " a kind the test knows", False, e["text"])
    return k


def main():
    set_name, dump_name = sys.argv[1], sys.argv[2]
    want_slab = "--want-slab" in sys.argv
    d = set_dir(set_name)
    vmlinux, dump = os.path.join(d, "vmlinux"), os.path.join(d, dump_name)
    truth = read_truth(os.path.join(d, "truth.txt"))
    c = Checker()
    found = {}

    # What a user meets: the truth inodes, read from the filtered dump.
    p, doc = run_json(vmlinux, dump, [t["addr"] for t in truth])
    from_truth = explanations(json.dumps(doc).replace('\\"', '"'))
    found.update(from_truth)

    # One page of each kind drgn finds in the unfiltered dump, read as such.
    picks = json.loads(drgn_pages(d, ["pick"]))
    picked = {}
    for k, page in picks.items():
        c.ok(f"drgn found a {k} page", page is not None)
        if page is None:
            continue
        r = run(["-k", vmlinux, dump, page["virt"]])
        c.eq(f"{k} page {page['virt']}: exit code", r.returncode, 3)
        e = explanations(r.stderr)
        c.ok(f"{k} page {page['virt']}: explained", page["pfn"] in e,
             r.stderr.strip())
        if page["pfn"] in e:
            picked[k] = e[page["pfn"]]
            found[page["pfn"]] = e[page["pfn"]]

    pfns = sorted(set(found) | {
        int(b.group(2), 16) for e in found.values()
        for b in [re.search(r"a block of (\d+) pages from pfn (0x[0-9a-f]+)",
                            e["what"])] if b})
    facts = {f["pfn"]: f for f in json.loads(drgn_pages(d, ["facts", *map(str, pfns)]))}
    kinds = {}
    for pfn, e in sorted(found.items()):
        k = check(c, f"pfn {pfn:#x}", e, facts[pfn], facts.__getitem__)
        kinds.setdefault(k, []).append(pfn)
        c.eq(f"pfn {pfn:#x} dump level", e["level"], 31)
    for k in ("cache", "free", "anon"):
        c.eq(f"the picked {k} page is explained as {k}",
             kind(picked[k]) if k in picked else None, k)
    truth_kinds = sorted({kind(e) for e in from_truth.values()})
    print(f"NOTE {set_name}/{dump_name}: {len(from_truth)} pages lost under "
          f"truth inodes ({', '.join(truth_kinds) or 'none'}); kinds "
          f"explained: {', '.join(f'{k} {len(v)}' for k, v in sorted(kinds.items()))}")
    if want_slab:
        c.ok("a truth inode's read hit a slab page", "slab" in truth_kinds,
             str(truth_kinds))
    c.finish()


if __name__ == "__main__":
    main()
