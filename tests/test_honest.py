#!/usr/bin/python3
"""Honest under damage (issue 29): a read that failed never passes for a
value. Mutants of the committed fixture (a real 7.3 diskdump), each a
kind the mutation campaign found answered silently with exit 0 or 1:

usage: test_honest.py CASE
  vmcoreinfo_shifted   the sub-header's VMCOREINFO offset one byte on:
                       the OSRELEASE line is lost ("SRELEASE=7.3.4")
  vmcoreinfo_twice     a key written twice (the PAGESIZE line rewritten
                       as a second, different OSRELEASE)
  vmcoreinfo_cut       VMCOREINFO's size one byte short: its last line
                       has no newline
  fsname_unreadable    the page holding ext4's s_type->name fails to
                       decompress: --sweep must not print "?" as its type
  cached_link_unreadable  the page holding the targets of IOP_CACHED_LINK
                       symlinks fails to decompress: no cached_link_length
                       violation (damage is no kernel bug), skipped
                       "unreadable" with the reason, exit 4, said once
  module_symbols_unreadable  (the stock 6.12 set, ext4 a module) a page of
                       ext4's kallsyms symbol table fails to decompress:
                       ext4's operations tables are no bare addresses, a
                       note names module symbols, exit 4
  elf_segments_disagree  (the patched set's elf-nopaging, an ELF dump)
                       mutant 15/2/311 of test_mutate.py: a PT_LOAD's
                       p_paddr set to 1, over the low segments with other
                       bytes: which is right cannot be known, said

Each must end partial (exit 4; 3 where the run fails anyway) with a note
on stderr naming the cause, and never answer "osrelease": "" nor "?".
Where things are comes from the dump's own bytes, vmlinux's symbol table
(readelf), pahole and drgn 0.0.22 (which reads this dump's memory but not
its vmlinux's DWARF), and the kernel's truth lines; never from
vmcore-inode.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir  # noqa: E402

D = set_dir("committed")
DUMP = os.path.join(D, "d17-zlib.vmcore")
VMLINUX = os.path.join(D, "vmlinux")
TRUTH = read_truth(os.path.join(D, "truth.txt"))
# Inodes whose decoding depends on the kernel's version (flag tables,
# ctime's flag bits): a symlink each of tmpfs and ext4, the bad mode.
ROLES = ("victim_symlink", "victim_ext4", "bug_badmode")
SUB_VMCOREINFO = 32  # kdump_sub_header: offset_vmcoreinfo, size_vmcoreinfo


def ok(c, name, cond, why=""):
    c.ok(name, bool(cond), str(why))


def header(data):
    """block_size, the sub-header's offset, VMCOREINFO's offset and size."""
    bs = struct.unpack_from("<i", data, 428)[0]
    off, size = struct.unpack_from("<QQ", data, bs + SUB_VMCOREINFO)
    return bs, off, size


def mutant(tmp, name, change):
    data = bytearray(open(DUMP, "rb").read())
    change(data)
    path = os.path.join(tmp, name + ".vmcore")
    with open(path, "wb") as f:
        f.write(data)
    return path


def shifted(data):
    bs, off, size = header(data)
    struct.pack_into("<Q", data, bs + SUB_VMCOREINFO, off + 1)


def twice(data):
    bs, off, size = header(data)
    text = bytes(data[off:off + size])
    line = re.search(rb"\nPAGESIZE=[^\n]*\n", text)
    other = b"OSRELEASE=7.3"
    assert line and len(line.group()) - 2 == len(other), line
    at = off + line.start() + 1
    data[at:at + len(other)] = other


def cut(data):
    bs, off, size = header(data)
    assert data[off + size - 1] == ord("\n")
    struct.pack_into("<Q", data, bs + SUB_VMCOREINFO + 8, size - 1)


def addresses():
    return [next(t["addr"] for t in TRUTH if t["role"] == r) for r in ROLES]


def notes_of(stderr, word):
    return [ln for ln in stderr.splitlines() if word in ln]


def check_vmcoreinfo(c, tmp, case, change):
    path = mutant(tmp, case, change)
    addrs = addresses()
    good = run(["-k", VMLINUX, "--json", DUMP, *addrs])
    bad = run(["-k", VMLINUX, "--json", path, *addrs])
    c.eq(f"{case}: the unmutated run is clean but for violations",
         good.returncode, 1)
    c.eq(f"{case}: decode exits 4", bad.returncode, 4)
    said = notes_of(bad.stderr, "VMCOREINFO")
    ok(c, f"{case}: stderr names VMCOREINFO", said, bad.stderr)
    try:
        doc, ref = json.loads(bad.stdout), json.loads(good.stdout)
    except json.JSONDecodeError as e:
        ok(c, f"{case}: JSON out ({e})", False, bad.stdout[:500])
        return
    ok(c, f"{case}: osrelease is not \"\" as if known",
         doc.get("osrelease") != "", doc.get("osrelease"))
    if doc.get("osrelease") is not None and case != "vmcoreinfo_cut":
        # its OSRELEASE line is lost: the release comes from elsewhere
        ok(c, f"{case}: a release not from VMCOREINFO says whence",
             doc.get("osrelease_source"), json.dumps(doc)[:200])
    # What differs from the unmutated decoding must be covered by a note.
    for a, b in zip(ref["inodes"], doc["inodes"]):
        for key in sorted(set(a) | set(b)):
            if a.get(key) == b.get(key):
                continue
            ok(c, f"{case}: {a.get('address')} {key} differs with no note "
                 "that says the release is unknown",
                 "version is unknown" in bad.stderr, bad.stderr)
    # The other modes say it too, once: the reports, --info, the sweep.
    rep = run(["-k", VMLINUX, "--json", path])
    ok(c, f"{case}: reports exit 4 or 3 (an ERR_PTR report is 3)",
         rep.returncode in (3, 4), rep.returncode)
    ok(c, f"{case}: reports name VMCOREINFO",
         notes_of(rep.stderr, "VMCOREINFO"), rep.stderr)
    ok(c, f"{case}: reports' osrelease is not \"\"",
         '"osrelease": ""' not in rep.stdout, rep.stdout[:200])
    for mode in (["--info"], ["--sweep", "--jsonl"]):
        p = run(["-k", VMLINUX, *mode, path])
        c.eq(f"{case}: {' '.join(mode)} exits 4", p.returncode, 4)
        c.eq(f"{case}: {' '.join(mode)} says each note once",
             notes_of(p.stderr, "VMCOREINFO"), said)


def pahole_offset(struct_name, member):
    out = subprocess.run(["pahole", "-C", struct_name, VMLINUX],
                         capture_output=True, text=True).stdout
    m = re.search(r"\s\*?" + member + r";\s+/\*\s+(\d+)", out)
    if not m:
        raise SystemExit(f"FAIL pahole: no {struct_name}.{member}")
    return int(m.group(1))


def symbol(name):
    out = subprocess.run(["readelf", "-Ws", VMLINUX], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == name:
            return int(f[1], 16)
    raise SystemExit(f"FAIL vmlinux has no symbol {name}")


def vmcoreinfo_value(data, key):
    bs, off, size = header(data)
    m = re.search(rb"(?m)^" + re.escape(key) + rb"=(.*)$",
                  bytes(data[off:off + size]))
    return m.group(1).decode()


def descriptor_of(data, pfn):
    """File offset of pfn's page descriptor: its rank among the pages the
    second bitmap keeps (makedumpfile's diskdump_mod.h)."""
    bs, sub, blocks = struct.unpack_from("<iii", data, 428)
    bitmap2 = bs * (1 + sub) + blocks // 2 * bs
    desc = bs * (1 + sub) + blocks * bs
    byte = data[bitmap2 + pfn // 8]
    assert byte >> (pfn % 8) & 1, "the page is not in the dump"
    rank = sum(bin(b).count("1") for b in data[bitmap2:bitmap2 + pfn // 8])
    rank += bin(byte & ((1 << (pfn % 8)) - 1)).count("1")
    return desc + rank * 24


def check_fsname(c, tmp):
    import drgn
    ext4 = next(t for t in TRUTH if t["fstype"] == "ext4")
    sb = int(ext4["sb"], 16)
    data = bytearray(open(DUMP, "rb").read())
    kaslr = int(vmcoreinfo_value(data, b"KERNELOFFSET"), 16)
    phys_base = int(vmcoreinfo_value(data, b"NUMBER(phys_base)"))
    prog = drgn.Program()
    prog.set_core_dump(DUMP)
    fs_type = symbol("ext4_fs_type") + kaslr
    c.eq("drgn: the ext4 superblock's s_type is ext4_fs_type",
         prog.read_u64(sb + pahole_offset("super_block", "s_type")), fs_type)
    name = prog.read_u64(fs_type + pahole_offset("file_system_type", "name"))
    c.eq("drgn: its name", prog.read(name, 5), b"ext4\0")
    # The kernel image's mapping: __START_KERNEL_map plus phys_base.
    pa = name - 0xffffffff80000000 + phys_base
    c.eq("drgn: the name's physical address", prog.read(pa, 5, True),
         b"ext4\0")
    at = descriptor_of(data, pa >> 12)
    off, size, flags = struct.unpack_from("<QII", data, at)
    ok(c, "the name's page is zlib-compressed", flags & 1, flags)
    data[off:off + 4] = b"\xff\xff\xff\xff"  # no zlib stream there
    path = os.path.join(tmp, "fsname.vmcore")
    with open(path, "wb") as f:
        f.write(data)
    where = f"superblock {sb:#x}"
    for mode in (["--sweep"], ["--sweep", "--jsonl"],
                 ["--sweep", "--fs", "ext4"]):
        what = " ".join(mode)
        p = run(["-k", VMLINUX, *mode, path])
        c.eq(f"{what}: exit 4", p.returncode, 4)
        said = notes_of(p.stderr, where)
        c.eq(f"{what}: one note names {where}", len(said), 1)
        ok(c, f"{what}: it says why (the page does not decompress)",
             said and "decompress" in said[0], p.stderr)
        for line in p.stdout.splitlines():
            if "--jsonl" in mode and '"superblock"' in line:
                o = json.loads(line)
                if int(o["superblock"], 16) == sb:
                    c.eq("jsonl: fs_type null", o["fs_type"], None)
                    ok(c, "jsonl: fs_type_error", o.get("fs_type_error"))
            elif ("--jsonl" not in mode and f" {sb:#x} " in line and
                  not line[0].isspace()):  # the superblock's line
                ok(c, f"{what}: not \"?\" as a type", not line.startswith("?"),
                     line)
                ok(c, f"{what}: (unreadable)",
                     line.startswith("(unreadable)"), line)


def corrupt(data, pa):
    """Make the page at physical pa fail to decompress; its pfn."""
    at = descriptor_of(data, pa >> 12)
    off, size, flags = struct.unpack_from("<QII", data, at)
    assert flags & 1, "the page is not zlib-compressed"
    data[off:off + 4] = b"\xff\xff\xff\xff"  # no zlib stream there
    return pa >> 12


def save(tmp, name, data):
    path = os.path.join(tmp, name + ".vmcore")
    with open(path, "wb") as f:
        f.write(data)
    return path


def check_cached_link(c, tmp):
    import drgn
    data = bytearray(open(DUMP, "rb").read())
    kaslr = int(vmcoreinfo_value(data, b"KERNELOFFSET"), 16)
    prog = drgn.Program()
    prog.set_core_dump(DUMP)
    pob = prog.read_u64(symbol("page_offset_base") + kaslr)
    at_link = pahole_offset("inode", "i_link")
    victim = next(t for t in TRUTH if t["role"] == "victim_symlink")
    link = prog.read_u64(int(victim["addr"], 16) + at_link)
    c.eq("drgn: victim_symlink's i_link is its target",
         prog.read(link, len(victim["link"])), victim["link"].encode())
    pfn = corrupt(data, link - pob)
    c.ok("the inode is not on the target's page",
         (int(victim["addr"], 16) - pob) >> 12 != pfn)
    path = save(tmp, "link", data)
    # Every cached symlink whose target is on that page (drgn says which).
    hit = sorted({t["addr"] for t in TRUTH if t["link"] is not None and
                  int(t["opflags"], 16) & 0x40 and  # IOP_CACHED_LINK, 7.3
                  (prog.read_u64(int(t["addr"], 16) + at_link) - pob) >> 12
                  == pfn})
    ok(c, "the page holds the victim's target", victim["addr"] in hit, hit)
    good = run(["-k", VMLINUX, "--json", DUMP, *hit])
    c.eq("unmutated: the victim's real violation, exit 1", good.returncode, 1)
    p = run(["-k", VMLINUX, "--json", path, *hit])
    c.eq("decode exits 4, not 1 (violation)", p.returncode, 4)
    said = notes_of(p.stderr, "cached_link_length")
    c.eq("one note for the check on stderr", len(said), 1)
    ok(c, "it says why (the page does not decompress)",
       said and "decompress" in said[0], p.stderr)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        ok(c, f"JSON out ({e})", False, p.stdout[:500])
        return
    for ino in doc["inodes"]:
        a = ino["address"]
        ok(c, f"{a}: no cached_link_length violation",
           not [v for v in ino["violations"]
                if v["check"] == "cached_link_length"], ino["violations"])
        why = [k["reason"] for k in ino["skipped_checks"]
               if k["check"] == "cached_link_length"]
        ok(c, f"{a}: skipped, unreadable, with the reason",
           why and why[0].startswith("unreadable: ") and
           "decompress" in why[0], why)
    for mode in (["--sweep"], ["--sweep", "--jsonl"], []):
        what = " ".join(mode) or "reports"
        q = run(["-k", VMLINUX, *mode, path])
        ok(c, f"{what}: exit 4 (3 where a report is ERR_PTR)",
           q.returncode in ((4,) if mode else (3, 4)), q.returncode)
        c.eq(f"{what}: one note names the check",
             len(notes_of(q.stderr, "cached_link_length")), 1)
        ok(c, f"{what}: no unreadable link as a violation",
           "is unreadable (i_linklen" not in q.stdout, q.stdout[:300])


def page_walk(prog, va, phys_base):
    """va's physical address through init_mm's page tables (x86-64)."""
    try:
        l5 = bool(prog["__pgtable_l5_enabled"].value_())
    except KeyError:
        l5 = False
    table = prog["init_mm"].pgd.value_() - 0xffffffff80000000 + phys_base
    for s in ([48] if l5 else []) + [39, 30, 21, 12]:
        e = prog.read_u64(table + ((va >> s) & 511) * 8, True)
        assert e & 1, f"{va:#x} not mapped at level {s}"
        pa = e & 0x000ffffffffff000
        if s in (30, 21) and e & 0x80:  # a huge page
            return (pa & ~((1 << s) - 1)) | (va & ((1 << s) - 1))
        table = pa
    return table | (va & 0xfff)


OPS = ("i_op", "i_fop", "a_ops", "s_op")


def check_module_symbols(c, tmp):
    import drgn
    from drgn.helpers.linux.list import list_for_each_entry
    d = set_dir("stock")
    dump, vmlinux = os.path.join(d, "d17-zlib.vmcore"), os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    data = bytearray(open(dump, "rb").read())
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    ext4 = next(m for m in list_for_each_entry(
        "struct module", prog["modules"].address_of_(), "list")
        if m.name.string_() == b"ext4")
    ks = ext4.kallsyms
    n = int(ks.num_symtab)
    symtab = ks.symtab.value_()
    ok(c, "drgn: ext4's symbol table spans pages", n * 24 > 3 * 4096, n)
    va = symtab + n * 24 // 2  # a page in its middle: nothing else there
    phys_base = int(vmcoreinfo_value(data, b"NUMBER(phys_base)"))
    pa = page_walk(prog, va, phys_base)
    c.eq("drgn: the page walk lands on the same bytes",
         prog.read(pa, 64, True), prog.read(va, 64))
    corrupt(data, pa)
    path = save(tmp, "modsyms", data)
    addrs = sorted({t["addr"] for t in truth if t["fstype"] == "ext4"})
    good = run(["-k", vmlinux, "--json", dump, *addrs])
    p = run(["-k", vmlinux, "--json", path, *addrs])
    c.eq("decode exits 4", p.returncode, 4)
    said = notes_of(p.stderr, "module symbols unreadable")
    c.eq("one note names module symbols", len(said), 1)
    ok(c, "it says why (the page does not decompress)",
       said and "decompress" in said[0], p.stderr)
    try:
        doc, ref = json.loads(p.stdout), json.loads(good.stdout)
    except json.JSONDecodeError as e:
        ok(c, f"JSON out ({e})", False, p.stdout[:500])
        return
    unnamed = 0
    for a, b in zip(ref["inodes"], doc["inodes"]):
        for key in OPS:
            if a.get(key) == b.get(key):
                continue
            unnamed += 1
            ok(c, f"{b['address']} {key}: an address that says why no name",
               str(b.get(key)).startswith("0x") and
               "module symbols unreadable" in
               (b.get(key + "_symbol_error") or ""), b.get(key))
    ok(c, "ext4's operations were named before, and not now", unnamed, 0)
    t = run(["-k", vmlinux, path, *addrs])
    c.eq("text: exit 4", t.returncode, 4)
    for line in t.stdout.splitlines():
        f = line.split()
        if f and f[0] in OPS and f[1].startswith("0x"):
            ok(c, f"text: {f[0]} {f[1]} says why no name",
               "(no name: module symbols unreadable" in line, line)
    for mode in (["--sweep"], ["--sweep", "--jsonl"]):
        q = run(["-k", vmlinux, *mode, path])
        c.eq(f"{' '.join(mode)}: exit 4", q.returncode, 4)
        c.eq(f"{' '.join(mode)}: one note names module symbols",
             len(notes_of(q.stderr, "module symbols unreadable")), 1)


def check_elf_segments(c, tmp):
    d = set_dir("patched")
    dump, vmlinux = os.path.join(d, "elf-nopaging.vmcore"), os.path.join(d, "vmlinux")
    with open(dump, "rb") as f:
        h = f.read(1 << 16)
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    loads = [i for i in range(phnum)
             if struct.unpack_from("<I", h, phoff + 56 * i)[0] == 1]
    low = [i for i in loads
           if struct.unpack_from("<Q", h, phoff + 56 * i + 24)[0] < 1 << 20]
    ok(c, "the dump's low segments: below 1 MiB and above", low and
       len(loads) > len(low), loads)
    victim = loads[-2]  # mutant 15/2/311's: program header 3 of 5
    path = os.path.join(tmp, "segments.vmcore")
    shutil.copyfile(dump, path)
    with open(path, "r+b") as f:
        f.seek(phoff + 56 * victim + 24)  # p_paddr
        f.write(struct.pack("<Q", 1))
    good = run(["-k", vmlinux, "--json", dump])
    ok(c, "the unmutated dump's reports: nothing said",
       good.returncode in (0, 1) and not good.stderr.strip(), good.stderr)
    want = f"program headers {low[0]} and {victim} both hold physical 0x1-"
    for mode in (["--json"], ["--info"], ["--log"], ["--sweep", "--jsonl"]):
        p = run(["-k", vmlinux, *mode, path])
        name = " ".join(mode)
        # the sweep's walk of super_blocks meets the wrong bytes: exit 3
        ok(c, f"{name}: exit 4 (the sweep: 3 or 4)", p.returncode == 4 or
           (mode[0] == "--sweep" and p.returncode == 3), p.returncode)
        said = notes_of(p.stderr, "ELF dump: ")
        c.eq(f"{name}: one note says the program headers disagree",
             len(said), 1)
        ok(c, f"{name}: it names them and the memory",
           said and want in said[0] and "cannot be trusted" in said[0],
           p.stderr)


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    c = Checker()
    tmp = tempfile.mkdtemp(prefix="honest-")
    try:
        if case == "fsname_unreadable":
            check_fsname(c, tmp)
        elif case == "cached_link_unreadable":
            check_cached_link(c, tmp)
        elif case == "module_symbols_unreadable":
            check_module_symbols(c, tmp)
        elif case == "elf_segments_disagree":
            check_elf_segments(c, tmp)
        elif case in ("vmcoreinfo_shifted", "vmcoreinfo_twice",
                      "vmcoreinfo_cut"):
            change = {"vmcoreinfo_shifted": shifted,
                      "vmcoreinfo_twice": twice,
                      "vmcoreinfo_cut": cut}[case]
            check_vmcoreinfo(c, tmp, case, change)
        else:
            raise SystemExit(__doc__)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{case}:", end=" ")
    c.finish()


if __name__ == "__main__":
    main()
