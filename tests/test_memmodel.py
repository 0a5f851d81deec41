#!/usr/bin/python3
"""A kernel without SPARSEMEM_VMEMMAP (issue 42): every struct page found
where the kernel itself finds it, on the patched set's kernel.

usage: test_memmodel.py SET

The patched kernel is SPARSEMEM (EXTREME) without VMEMMAP: its struct
pages are in a memory map per memory section. Neither drgn 0.0.22 nor
0.3.0 reads that model (pfn_to_page() wants `vmemmap` or FLATMEM's
`mem_map`), so the truth is the kernel's own: the trigger module prints,
per truth inode, an `inodedump-page:` line on the console with
virt_to_page()'s struct page and pfn, the slab's head page, and
kmem_dump_obj()'s cache, object start, offset and object size.

Checked, with vmlinux (DWARF) and from the dump alone (BTF, kallsyms):
- the dump's VMCOREINFO says this model (mem_section, no vmemmap), so the
  set proves what it is for;
- `--what` of every truth inode on every dump: the slab's head page, the
  cache, the object, the offset and the object size equal the kernel's,
  allocated (the module pins the inodes); on a -d 31 dump a missing answer
  only with a reason;
- the kernel's two reports, decoded with no address: exit 1, the
  violation, and the slab object the kernel names;
- a VMCOREINFO whose section size is renamed away, or whose mem_section
  points at memory the dump lacks: the answer is unknown (exit 4) naming
  what is missing, never a struct page address.
"""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir, what  # noqa: E402

PAGE_LINE = re.compile(
    r"inodedump-page: role=(\S+) addr=([0-9a-f]+) pfn=0x([0-9a-f]+) "
    r"page=([0-9a-f]+) head=([0-9a-f]+) slab (\S+) start ([0-9a-f]+) "
    r"pointer offset (\d+) size (\d+)")


def kernel_pages(d):
    with open(os.path.join(d, "serial.log"), errors="replace") as f:
        rows = [m.groups() for m in PAGE_LINE.finditer(f.read())]
    keys = ("role", "addr", "pfn", "page", "head", "cache", "start",
            "offset", "size")
    return [dict(zip(keys, r)) for r in rows]


def check_what(c, tag, rows, got, lenient):
    c.eq(f"{tag}: one answer per address", len(got), len(rows))
    for k, w in zip(rows, got):
        t = f"{tag} {k['role']}"
        s = w.get("slab")
        if s is None or s.get("state") == "unknown" or s.get("cache") is None:
            if lenient:
                why = (s or {}).get("unread") or w.get("memory")
                c.ok(f"{t}: unknown only with a reason", why, str(w))
                continue
        c.ok(f"{t}: in a slab", s is not None, str(w))
        if s is None:
            continue
        c.eq(f"{t}: slab head page", s["slab"], "0x" + k["head"])
        c.eq(f"{t}: cache", s["cache"], k["cache"])
        c.eq(f"{t}: object", s["object"], "0x" + k["start"])
        c.eq(f"{t}: offset", s["offset"], int(k["offset"]))
        c.eq(f"{t}: object_size", s["object_size"], int(k["size"]))
        c.eq(f"{t}: allocated", s["state"], "allocated")


def check_reports(c, tag, args, dump, victims, by_addr):
    p = run([*args, "--json", dump])
    c.eq(f"{tag}: reports exit 1", p.returncode, 1)
    try:
        reports = json.loads(p.stdout)["reports"]
    except (json.JSONDecodeError, KeyError):
        reports = []
    reported = {r["address"]: r for r in reports}
    for v in victims:
        t = f"{tag} report {v['role']}"
        r, k = reported.get("0x" + v["addr"]), by_addr.get(v["addr"])
        c.ok(f"{t}: reported", r is not None, str(list(reported)))
        c.ok(f"{t}: the kernel printed its page", k is not None)
        if not r or not k:
            continue
        ino = r.get("inode") or {}
        c.eq(f"{t}: violation",
             [x["check"] for x in ino.get("violations", [])],
             ["cached_link_length"])
        sl = ino.get("slab") or {}
        c.eq(f"{t}: slab cache", sl.get("cache"), k["cache"])
        c.eq(f"{t}: slab object", sl.get("object"), "0x" + k["start"])
        c.eq(f"{t}: slab state", sl.get("state"), "allocated")


def mutant(src, dst, old, new):
    """A copy of a diskdump whose VMCOREINFO (in its header, stored as
    it is) has old replaced by new, once."""
    with open(src, "rb") as f:
        data = f.read()
    c = data.count(old)
    if c != 1:
        raise SystemExit(f"FAIL {old!r} is in {src} {c} times, not once")
    with open(dst, "wb") as f:
        f.write(data.replace(old, new))


def check_unknown(c, d, args, victims, tmp):
    src = os.path.join(d, "d17-zlib.vmcore")
    with open(src, "rb") as f:
        head = f.read(1 << 20)
    root = re.search(rb"SYMBOL\(mem_section\)=([0-9a-f]+)", head)
    c.ok("VMCOREINFO has SYMBOL(mem_section)", root)
    if not root:
        return
    # an address in the direct map's hole far above the guest's 256 MiB
    far = root.group(1)[:-9] + b"7ff000000"
    cases = [("section size renamed away", b"NUMBER(SECTION_SIZE_BITS)=",
              b"NUMBER(SECTION_SIZE_BITX)=", "SECTION_SIZE_BITS"),
             ("mem_section not in the dump", b"SYMBOL(mem_section)=" + root.group(1),
              b"SYMBOL(mem_section)=" + far, "no memory section's map")]
    for name, old, new, why in cases:
        dump = os.path.join(tmp, "mutant.vmcore")
        mutant(src, dump, old, new)
        for v in victims:
            p, got = what(args, dump, [v["addr"]])
            text = json.dumps(got)
            c.eq(f"{name}: --what {v['role']}: exit 4", p.returncode, 4)
            c.ok(f"{name}: --what {v['role']}: says {why!r}", why in text,
                 text[:600])
            c.ok(f"{name}: --what {v['role']}: no struct page address given",
                 "struct page at" not in text, text[:600])
        p = run([*args, dump])
        c.eq(f"{name}: reports: exit 4", p.returncode, 4)
        c.ok(f"{name}: reports say {why!r}", why in p.stdout + p.stderr,
             (p.stdout + p.stderr)[:600])
        c.ok(f"{name}: reports give no struct page address",
             "struct page at" not in p.stdout + p.stderr,
             (p.stdout + p.stderr)[:600])
        os.unlink(dump)


def main():
    name = sys.argv[1]
    d = set_dir(name)
    c = Checker()
    with open(os.path.join(d, "d17-zlib.vmcore"), "rb") as f:
        head = f.read(1 << 20)
    c.ok(f"{name}: VMCOREINFO names mem_section (SPARSEMEM)",
         b"SYMBOL(mem_section)=" in head)
    c.ok(f"{name}: VMCOREINFO names no vmemmap (no SPARSEMEM_VMEMMAP)",
         b"SYMBOL(vmemmap)=" not in head)
    rows = kernel_pages(d)
    truth = read_truth(os.path.join(d, "truth.txt"))
    c.eq(f"{name}: an inodedump-page line per truth inode",
         sorted(r["role"] for r in rows), sorted(t["role"] for t in truth))
    by_addr = {r["addr"]: r for r in rows}
    victims = [t for t in truth if t["role"].startswith("victim")]
    c.eq(f"{name}: two victims", len(victims), 2)
    tmp = tempfile.mkdtemp(prefix="memmodel-")
    empty = os.path.join(tmp, "empty-root")
    os.mkdir(empty)
    sessions = {"dwarf": ["-k", os.path.join(d, "vmlinux")],
                "btf": ["--debug-root", empty]}
    dumps = [f for f in ("d17-zlib.vmcore", "d31-zlib.vmcore",
                         "qemu-kdump-zlib.flat", "elf-paging.vmcore")
             if os.path.exists(os.path.join(d, f))]
    for sname, args in sessions.items():
        for f in dumps:
            tag = f"{name} {sname} {f}"
            p, got = what(args, os.path.join(d, f), [r["addr"] for r in rows])
            lenient = "d31" in f
            c.ok(f"{tag}: exit 0 (4 only -d 31)",
                 p.returncode == 0 or (lenient and p.returncode == 4),
                 f"exit {p.returncode}: {p.stderr[:400]}")
            check_what(c, tag, rows, got, lenient)
        check_reports(c, f"{name} {sname} d17-zlib", args,
                      os.path.join(d, "d17-zlib.vmcore"), victims, by_addr)
        check_unknown(c, d, args, victims, tmp)
    shutil.rmtree(tmp)
    c.finish()


if __name__ == "__main__":
    main()
