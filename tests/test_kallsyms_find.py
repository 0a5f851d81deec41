#!/usr/bin/python3
"""kallsyms found in the kernel image where VMCOREINFO names none (issue
31 item 3): Debian 11's 5.10 (the old510 set) decoded from the dump alone.

usage: test_kallsyms_find.py TEST_KALLSYMS

Truth is never inodedump's: the set's truth.txt (the guest kernel, drgn),
vmlinux's own symbol table (nm) and drgn 0.0.22 reading the dump with its
vmlinux.

- every dump of old510, no vmlinux: every truth inode's fields equal
  truth.txt and the vmlinux session's decode (JSON documents equal), the
  first run (scan) and the cached run alike; --info says the tables were
  found by scanning the kernel image, each at vmlinux's address plus the
  KASLR offset, and the places of kallsyms_markers etc. are vmlinux's;
  the decoded table another boot kept (its addresses moved as another
  KASLR offset moves them) is not taken: the tables are found again;
- the symbols the found tables give (test_kallsyms.c: lookups through the
  library): 3,000 names of vmlinux's symtab at its addresses plus KASLR,
  2,000 of its addresses named back; 99% of the BTF's function names in
  them, none at another address than vmlinux's;
- i_bdev: every block-device inode of the sweep (no vmlinux) has drgn's
  i_bdev; the text view shows it;
- the other layouts, from real dumps whose VMCOREINFO lines are taken
  away: 7.3 (labels aligned to 4, offsets place-relative) found where
  VMCOREINFO named them, decoded as with DWARF (6.12: test_btf.py find);
- i_state bits 9 and 19 set in a copy of the ELF dump: from the dump
  alone bit 9 is I_DIO_WAKEUP; bit 19 (Debian's I_LRU_ISOLATING backport,
  known from functions only the DWARF has) is that or left unnamed;
- bad input: a copy of the ELF dump whose token table is zeroed, one whose
  kallsyms_names has a run of bytes zeroed: exit 3 saying the tables were
  not found, no crash, no symbol.

Prints the time to open old510 from the dump alone (the scan; then the
cache) and with vmlinux.
"""
import json
import mmap
import os
import struct
import subprocess
import sys
import tempfile
import time

import drgn
from drgn.helpers.linux.list import list_for_each_entry

from drgn.helpers.linux.mm import virt_to_phys

from fixture import FORMATS, Checker, ElfCopy, read_truth, run, set_dir

NO_DEBUG = None
TABLES = ("kallsyms_token_table", "kallsyms_token_index", "kallsyms_markers",
          "kallsyms_names", "kallsyms_num_syms", "kallsyms_offsets",
          "kallsyms_relative_base")


def btf_run(args, cache, **kw):
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = cache
    env.pop("DEBUGINFOD_URLS", None)
    return run(["--debug-root", NO_DEBUG, *args], env=env, **kw)


def dumps_of(d):
    out = [(f, os.path.join(d, n)) for f, n in FORMATS.items()
           if os.path.exists(os.path.join(d, n))]
    for extra in ("d31-zlib.vmcore", "panic.vmcore"):
        if os.path.exists(os.path.join(d, extra)):
            out.append((extra.split(".")[0], os.path.join(d, extra)))
    return out


def nm(vmlinux):
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    return {f[2]: int(f[0], 16) for f in (l.split() for l in out.splitlines())
            if len(f) == 3}


def rodata(vmlinux):
    """(address, file offset, size) of vmlinux's .rodata."""
    out = subprocess.run(["readelf", "-SW", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[1] == ".rodata":
            return int(f[3], 16), int(f[4], 16), int(f[5], 16)
    raise SystemExit("FAIL vmlinux has no .rodata")


def compare_truth(c, tag, t, got):
    if "error" in got:
        c.ok(f"{tag} decoded", False, str(got["error"]))
        return
    for key, base in (("ino", 10), ("mode", 8), ("opflags", 16), ("flags", 16),
                      ("state", 16), ("count", 10), ("nlink", 10), ("size", 10),
                      ("uid", 10), ("gid", 10)):
        want = int(t[key].removeprefix("0x"), base) if t[key] else None
        c.eq(f"{tag} {key}", got[key], want)
    c.eq(f"{tag} s_id", got["s_id"], t["s_id"])
    c.eq(f"{tag} fs_type", got["fs_type"], t["fstype"])
    c.eq(f"{tag} sb", got["sb"], "0x" + t["sb"])
    c.eq(f"{tag} generation", got["generation"], int(t["gen"]))
    c.eq(f"{tag} blocks", got["blocks"], int(t["blocks"]))
    c.eq(f"{tag} rdev", got["rdev"], t["rdev"])
    if t.get("link") is not None:
        c.eq(f"{tag} link", got["link"], t["link"])
    if t.get("path"):
        c.ok(f"{tag} path", t["path"] in (got["paths"] or []),
             f"{t['path']} not in {got['paths']}")
    for key in ("i_op", "i_fop", "a_ops", "s_op"):
        c.eq(f"{tag} {key}", got[key], t[key])


def info_facts(stdout):
    return {l[:18].strip(): l[19:] for l in stdout.splitlines() if len(l) > 19}


def case_old510(c, tmp):
    d = set_dir("old510")
    vmlinux = os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    syms = nm(vmlinux)
    c.ok("old510's vmlinux has no kallsyms_seqs_of_names (before 6.2)",
         "kallsyms_seqs_of_names" not in syms)
    dumps = dumps_of(d)
    c.ok("old510: seven dumps", len(dumps) == 7, str(dumps))
    for fmt, dump in dumps:
        want = run(["-k", vmlinux, "-j", dump, *addrs])
        cache = os.path.join(tmp, "cache-" + fmt)
        for run_no in ("first run", "cached run"):
            tag = f"old510 {fmt} {run_no}"
            got = btf_run(["-j", dump, *addrs], cache)
            c.ok(f"{tag}: types from the dump's BTF",
                 "no vmlinux: types from the dump's BTF" in got.stderr,
                 got.stderr[-600:])
            if run_no == "first run":
                c.ok(f"{tag}: kallsyms found by scanning the kernel image",
                     "found by scanning the kernel image" in got.stderr,
                     got.stderr[-600:])
            else:
                c.ok(f"{tag}: kallsyms from the cache",
                     ", cached in " + cache in
                     got.stderr.split("symbols from the dump's kallsyms")[-1],
                     got.stderr[-600:])
            c.eq(f"{tag}: exit status as with vmlinux", got.returncode,
                 want.returncode)
            c.eq(f"{tag}: every truth inode as with vmlinux", got.stdout,
                 want.stdout)
            try:
                inodes = json.loads(got.stdout)["inodes"]
            except (json.JSONDecodeError, KeyError) as e:
                c.ok(f"{tag}: JSON", False, f"{e}: {got.stderr[-400:]}")
                continue
            c.eq(f"{tag}: one result per address", len(inodes), len(truth))
            for t, g in zip(truth, inodes):
                compare_truth(c, f"{tag} {t['role']}", t, g)

    # The decoded table kept by another boot of this kernel (every address
    # moved as another KASLR offset moves it): not taken, found again.
    dump = os.path.join(d, "d17-zlib.vmcore")
    cache = os.path.join(tmp, "cache-d17-zlib")
    kept = [os.path.join(r, f) for r, _, fs in os.walk(cache) for f in fs
            if f == "kallsyms"]
    c.eq("old510: the decoded kallsyms kept in the cache", len(kept), 1)
    if kept:
        with open(kept[0], "r+b") as f:
            head = f.read(32)
            n = struct.unpack_from("<Q", head, 8)[0]
            c.ok("cache file: IDDKSYM2 header", head[:8] == b"IDDKSYM2", str(head))
            addrs_raw = bytearray(f.read(8 * n))
            for i in range(n):
                a, = struct.unpack_from("<Q", addrs_raw, 8 * i)
                if a >= 1 << 63:
                    struct.pack_into("<Q", addrs_raw, 8 * i, a + 0x200000)
            f.seek(32)
            f.write(addrs_raw)
        want = run(["-k", vmlinux, "-j", dump, *addrs])
        got = btf_run(["-j", dump, *addrs], cache)
        c.ok("another boot's cache: not taken, the tables found again",
             "found by scanning the kernel image" in got.stderr,
             got.stderr[-600:])
        c.eq("another boot's cache: decoded as with vmlinux",
             (got.returncode, got.stdout), (want.returncode, want.stdout))

    # --info: each table where vmlinux has it, KASLR applied.
    dump = os.path.join(d, "d17-zlib.vmcore")
    info = btf_run(["--info", dump], os.path.join(tmp, "cache-info"))
    facts = info_facts(info.stdout)
    kaslr = int(facts.get("KASLR offset", "0x0").split()[0], 16)
    c.ok("--info: kaslr offset read", kaslr != 0, info.stdout)
    sym = facts.get("symbols", "")
    c.ok("--info: symbols found by scanning the kernel image",
         "found by scanning the kernel image" in sym, sym)
    for name in TABLES:
        c.ok(f"--info: {name} at vmlinux's address + KASLR",
             f"{name} at 0x{syms[name] + kaslr:x}" in sym, sym)

    # Timing: the scan, the cache, vmlinux (the first run is timed alone).
    times = {}
    for what, args, cache in (
            ("no vmlinux, first run (scan)", ["--info", dump], "cache-t"),
            ("no vmlinux, cached", ["--info", dump], "cache-t"),
            ("vmlinux", ["-k", vmlinux, "--info", dump], None)):
        t0 = time.monotonic()
        p = btf_run(args, os.path.join(tmp, cache)) if cache else run(args)
        times[what] = time.monotonic() - t0
        c.eq(f"timed {what}: exit", p.returncode, 0)
    print("NOTE open old510 d17-zlib (--info): " +
          ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))
    return d, vmlinux, syms


def case_symbols(c, tmp, d, vmlinux, helper):
    """The found tables' symbols (through test_kallsyms, as a run without
    vmlinux looks them up) against vmlinux's symbol table plus the KASLR
    offset, by name and by address; and the BTF's function names."""
    from test_btf import Btf, elf_section
    dump = os.path.join(d, "d17-zlib.vmcore")
    info = btf_run(["--info", dump], os.path.join(tmp, "cache-syms"))
    kaslr = int(info_facts(info.stdout).get("KASLR offset", "0x0").split()[0], 16)
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    where, twice, at = {}, set(), {}
    for line in out.splitlines():
        f = line.split()
        if len(f) != 3:
            continue
        a = int(f[0], 16)
        if f[2] in where and where[f[2]] != a:
            twice.add(f[2])
        where[f[2]] = a
        # What kallsyms keeps (scripts/mksysmap leaves out local labels,
        # __crc_ and __kstrtab symbols; scripts/kallsyms.c its own tables).
        if a >= 1 << 63 and f[1] in "tTdDrRbB" and \
                not f[2].startswith((".", "__crc_", "__kstrtab", "kallsyms_")):
            at.setdefault(a, set()).add(f[2])

    def runtime(name):
        a = where[name]
        return a + (kaslr if a >= 1 << 63 else 0)

    kept = sorted(n for a, ns in at.items() for n in ns if n not in twice)
    names = kept[::max(1, len(kept) // 3000)]
    addrs = sorted(at)[::max(1, len(at) // 2000)]
    btf = Btf(elf_section(vmlinux, ".BTF"))
    funcs = sorted({btf.name(i) for i in range(1, len(btf.off))
                    if btf.info[i][1] == 12 and btf.info[i][0]})
    queries = [f"N {n}" for n in names + funcs] + \
              [f"A 0x{a + kaslr:x}" for a in addrs]
    p = subprocess.run([helper, dump, NO_DEBUG], input="\n".join(queries) + "\n",
                       capture_output=True, text=True,
                       env=dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-helper")))
    lines = p.stdout.splitlines()
    c.eq("test_kallsyms: exit", p.returncode, 0)
    if p.returncode or not lines:
        c.ok("test_kallsyms ran", False, p.stderr[-500:])
        return
    c.ok("test_kallsyms: read on demand, no seqs_of_names (5.10)",
         lines[0].startswith("lazy 1 by-name 0 count 105158"), lines[0])
    got = {}
    for line in lines[1:]:
        f = line.split()
        got[(f[0], f[1])] = f[2]
    bad = [n for n in names if got.get(("N", n)) != f"0x{runtime(n):x}"]
    c.ok(f"{len(names)} names of vmlinux's symtab at its address + KASLR",
         len(names) >= 1000 and not bad, f"{len(bad)} wrong: {bad[:5]}")
    bad = []
    for a in addrs:
        name = got.get(("A", f"0x{a + kaslr:x}"), "-")
        if name not in at[a]:
            bad.append(f"0x{a:x} -> {name} (vmlinux: {sorted(at[a])[:3]})")
    c.ok(f"{len(addrs)} addresses of vmlinux's symtab named as vmlinux names them",
         len(addrs) >= 1000 and not bad, f"{len(bad)} wrong: {bad[:5]}")
    found = [f for f in funcs if got.get(("N", f), "-") != "-"]
    wrong = [f for f in found if f in where and f not in twice and
             got[("N", f)] != f"0x{runtime(f):x}"]
    print(f"NOTE the BTF's {len(funcs)} function names: {len(found)} in the "
          f"found kallsyms, {len(wrong)} at another address than vmlinux's")
    c.ok("the BTF's function names are in the found kallsyms (99%)",
         len(funcs) > 1000 and len(found) >= 0.99 * len(funcs),
         f"{len(found)} of {len(funcs)}: missing "
         f"{[f for f in funcs if got.get(('N', f), '-') == '-'][:5]}")
    c.eq("the BTF's functions at vmlinux's addresses", wrong, [])


def case_bdev(c, tmp, d, vmlinux):
    dump = os.path.join(d, "d17-zlib.vmcore")
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    want = {}
    for sb in list_for_each_entry("struct super_block",
                                  prog["super_blocks"].address_of_(), "s_list"):
        for ino in list_for_each_entry("struct inode", sb.s_inodes.address_of_(),
                                       "i_sb_list"):
            if ino.i_mode.value_() & 0o170000 == 0o060000:
                want[f"0x{ino.value_():x}"] = f"0x{ino.i_bdev.value_():x}"
    c.ok("drgn: block-device inodes, one with i_bdev set",
         len(want) > 1 and any(v != "0x0" for v in want.values()), str(want))
    p = btf_run(["--sweep", "--jsonl", dump], os.path.join(tmp, "cache-bdev"))
    got = {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if o.get("type") == "blockdev":
            got[o["address"]] = o.get("i_bdev")
    c.eq("sweep, no vmlinux: every block-device inode's i_bdev is drgn's",
         got, want)
    addr = next(a for a, v in sorted(want.items()) if v != "0x0")
    text = btf_run([dump, addr[2:]], os.path.join(tmp, "cache-bdev"))
    c.ok("text view: i_bdev shown for a block device",
         f"  i_bdev       {want[addr]}" in text.stdout, text.stdout)


def case_layout73(c, tmp):
    """7.3's layout: VMCOREINFO's kallsyms lines taken away, found anyway."""
    d = set_dir("stock73")
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "d17-zlib.vmcore")
    addrs = sorted({t["addr"] for t in read_truth(os.path.join(d, "truth.txt"))})
    data = bytearray(open(dump, "rb").read())
    i = data.find(b"SYMBOL(kallsyms_names)=")
    named = {}
    for line in data[i:i + 4096].split(b"\n"):
        if line.startswith(b"SYMBOL(kallsyms_") and b"=" in line:
            k, v = line.decode().split("=", 1)
            named[k[len("SYMBOL("):-1]] = int(v, 16)
    c.ok("stock73: VMCOREINFO names the tables", i > 0 and len(named) >= 5,
         str(named))
    data[i:i + 23] = b"SYMBOL(kallsyms_nameX)="
    path = os.path.join(tmp, "stock73-noks.vmcore")
    open(path, "wb").write(data)
    want = run(["-k", vmlinux, "-j", dump, *addrs])
    p = btf_run(["-j", path, *addrs], os.path.join(tmp, "cache-73"))
    c.eq("stock73 without VMCOREINFO's kallsyms: as with DWARF",
         (p.returncode, p.stdout), (want.returncode, want.stdout))
    c.ok("stock73: offsets place-relative (7.0+), found so",
         "offsets place-relative" in p.stderr, p.stderr[-800:])
    for name, at in sorted(named.items()):
        c.ok(f"stock73: {name} found where VMCOREINFO named it",
             f"{name} at 0x{at:x}" in p.stderr, p.stderr[-800:])


def case_bad(c, tmp, d, vmlinux, syms):
    """A copy of the ELF dump with a table damaged: exit 3, said."""
    ro_addr, ro_off, ro_size = rodata(vmlinux)
    with open(vmlinux, "rb") as f:
        def at(addr, n):
            f.seek(ro_off + addr - ro_addr)
            return f.read(n)
        tokens = at(syms["kallsyms_token_table"],
                    syms["kallsyms_token_index"] - syms["kallsyms_token_table"])
        mid = (syms["kallsyms_names"] + syms["kallsyms_markers"]) // 2
        names_mid = at(mid, 256)
    e = ElfCopy(d, tmp, "bad.vmcore")
    copy = e.path
    truth = read_truth(os.path.join(d, "truth.txt"))
    a = truth[0]["addr"]

    # i_state bits 9 and 19 set (as test_state510.py does with vmlinux):
    # from the dump alone bit 9 is I_DIO_WAKEUP; bit 19 is I_LRU_ISOLATING
    # only where the kernel shows the backport (its fs/inode.c functions,
    # inlined: in the DWARF only), else left unnamed; never another name.
    t = next(t for t in truth if t["role"] == "regular")
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "d17-zlib.vmcore"))
    prog.load_debug_info([vmlinux])
    state = drgn.Object(prog, "struct inode *", int(t["addr"], 16)).i_state
    phys = virt_to_phys(prog, state.address_).value_()
    old = state.value_()
    fmt = "<I" if drgn.sizeof(state.type_) == 4 else "<Q"
    e.write_phys(phys, struct.pack(fmt, old | 1 << 9 | 1 << 19))
    got = btf_run(["-j", copy, t["addr"]], os.path.join(tmp, "cache-state"))
    e.write_phys(phys, struct.pack(fmt, old))
    names = (json.loads(got.stdout)["inodes"][0].get("state_names")
             if got.returncode in (0, 1) else None) or []
    # The names the inode had already (its state at the dump: I_DIRTY_SYNC
    # on some boots) are not the two bits set here.
    orig = btf_run(["-j", os.path.join(d, "d17-zlib.vmcore"), t["addr"]],
                   os.path.join(tmp, "cache-state"))
    had = (json.loads(orig.stdout)["inodes"][0].get("state_names")
           if orig.returncode in (0, 1) else None) or []
    c.ok("no vmlinux: bits 9 and 19 clear at the dump", not old & (1 << 9 | 1 << 19),
         f"i_state 0x{old:x}")
    new = [n for n in names if n not in had]
    print(f"NOTE no vmlinux, i_state 0x{old | 1 << 9 | 1 << 19:x}: {names} "
          f"(0x{old:x} at the dump: {had})")
    c.ok("no vmlinux: bit 9 named I_DIO_WAKEUP", "I_DIO_WAKEUP" in new, str(names))
    c.ok("no vmlinux: bit 19 I_LRU_ISOLATING or unnamed, nothing else",
         len(new) == 2 and new[1] in ("I_LRU_ISOLATING", "0x80000"), str(names))

    for what, needle, start, length in (
            ("token table zeroed", tokens[:64], 0, len(tokens)),
            ("64 bytes of kallsyms_names zeroed", names_mid, 64, 64)):
        with open(copy, "r+b") as f:
            m = mmap.mmap(f.fileno(), 0)
            pos = m.find(needle)
            c.ok(f"{what}: the bytes are in the dump once",
                 pos >= 0 and m.find(needle, pos + 1) < 0)
            saved = m[pos + start:pos + start + length]
            m[pos + start:pos + start + length] = b"\0" * length
            m.flush()
            p = btf_run(["-j", copy, a], os.path.join(tmp, "cache-bad"))
            m[pos + start:pos + start + length] = saved
            m.flush()
            m.close()
        c.eq(f"{what}: exit 3", p.returncode, 3)
        c.ok(f"{what}: says the tables were not found in the kernel image",
             "names no kallsyms tables" in p.stderr and
             "were not found in the kernel image" in p.stderr, p.stderr[-800:])
        c.ok(f"{what}: nothing decoded", p.stdout.strip() == "", p.stdout[:300])
        c.ok(f"{what}: no sanitizer report, no crash",
             "Sanitizer" not in p.stderr and p.returncode > 0, p.stderr[-300:])
        print(f"NOTE {what}: {p.stderr.strip()[-300:]}")


def main():
    global NO_DEBUG
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="inodedump-ksfind-") as tmp:
        NO_DEBUG = os.path.join(tmp, "no-debug-root")
        os.makedirs(NO_DEBUG)
        d, vmlinux, syms = case_old510(c, tmp)
        case_symbols(c, tmp, d, vmlinux, sys.argv[1])
        case_bdev(c, tmp, d, vmlinux)
        case_layout73(c, tmp)
        case_bad(c, tmp, d, vmlinux, syms)
    c.finish()


if __name__ == "__main__":
    main()
