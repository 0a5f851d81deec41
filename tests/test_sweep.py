#!/usr/bin/python3
"""--sweep visits every inode of every superblock: counts per superblock
equal drgn's walk of the same lists, every truth inode is there with its
fields, and the patched fixture's violations are exactly its two victims.

On a set whose info.txt names a sid chroot (stock73) drgn 0.3.0 in that
chroot counts: this script runs there as `test_sweep.py --counts DUMP`
(tests/sid_drgn.py).

usage: test_sweep.py SET            (the d17-zlib dump)
       test_sweep.py SET corrupt    (a copy of the ELF dump whose tmpfs
                                     s_inodes list is broken)
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, expected_violations, read_truth, run,  # noqa: E402
                     set_dir)
import sid_drgn  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.list import list_for_each_entry  # noqa: E402
from drgn.helpers.linux.mm import virt_to_phys  # noqa: E402


def drgn_counts(prog):
    counts = {}
    for sb in list_for_each_entry("struct super_block",
                                  prog["super_blocks"].address_of_(), "s_list"):
        n = sum(1 for _ in list_for_each_entry(
            "struct inode", sb.s_inodes.address_of_(), "i_sb_list"))
        counts[hex(sb.value_())] = n
    return counts


def sweep(vmlinux, dump):
    p = run(["-k", vmlinux, "--sweep", "--jsonl", dump], timeout=300)
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    return p, lines


def main():
    if sys.argv[1] == "--counts":  # in the sid chroot: the set is at /fx
        prog = drgn.Program()
        prog.set_core_dump(sys.argv[2])
        prog.load_debug_info(["/fx/vmlinux"])
        json.dump(drgn_counts(prog), sys.stdout)
        return
    set_name = sys.argv[1]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    c = Checker()
    if sid_drgn.chroot_of(d):
        if len(sys.argv) > 2:
            raise SystemExit("FAIL the corrupt case runs on the patched set")
        want = json.loads(sid_drgn.run(d, "test_sweep.py",
                                       ["--counts", "/fx/elf-paging.vmcore"]))
        print("drgn (sid chroot) counted elf-paging.vmcore")
    else:
        prog = drgn.Program()
        prog.set_core_dump(os.path.join(d, "elf-paging.vmcore"))
        prog.load_debug_info([vmlinux])
        if len(sys.argv) > 2:
            corrupt(c, prog, d, vmlinux, truth)
            c.finish()
        want = drgn_counts(prog)
    p, lines = sweep(vmlinux, os.path.join(d, "d17-zlib.vmcore"))
    sbs = {x["superblock"]: x for x in lines if "superblock" in x}
    inodes = {x["address"]: x for x in lines if "address" in x}
    summary = [x for x in lines if "summary" in x]
    c.eq("superblocks", sorted(sbs), sorted(want))
    for sb, n in sorted(want.items()):
        c.eq(f"inodes on {sb} ({sbs.get(sb, {}).get('fs_type')})",
             sbs.get(sb, {}).get("inodes"), n)
        c.eq(f"walk of {sb} complete", sbs.get(sb, {}).get("error"), None)
    c.eq("one object per inode", len(inodes), sum(want.values()))
    c.eq("summary object", len(summary), 1)
    for t in truth:
        got = inodes.get("0x" + t["addr"])
        c.ok(f"{t['role']} swept", got is not None)
        if got:
            for key, base in (("ino", 10), ("mode", 8), ("opflags", 16),
                              ("nlink", 10), ("size", 10)):
                c.eq(f"{t['role']} {key}", got[key], int(t[key].removeprefix("0x"), base))
    bad = sorted(a for a, x in inodes.items() if x["violations"])
    victims = sorted("0x" + t["addr"] for t in truth
                     if expected_violations(t["role"]))
    c.eq("violations are the victims", bad, victims)
    c.eq("exit code", p.returncode, 1 if victims else 0)
    c.finish()


def corrupt(c, prog, d, vmlinux, truth):
    """Point the 3rd inode of the fixture tmpfs's s_inodes at garbage."""
    t = truth[0]
    ino = drgn.Object(prog, "struct inode *", int(t["addr"], 16))
    sb = ino.i_sb
    nodes = list(list_for_each_entry("struct inode", sb.s_inodes.address_of_(),
                                     "i_sb_list"))
    victim = nodes[min(2, len(nodes) - 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corrupt.vmcore")
        shutil.copyfile(os.path.join(d, "elf-nopaging.vmcore"), path)
        phys = virt_to_phys(prog, victim.i_sb_list.next.address_).value_()
        out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                off, paddr, size = int(f[1], 16), int(f[3], 16), int(f[4], 16)
                if paddr <= phys < paddr + size:
                    with open(path, "r+b") as fh:
                        fh.seek(off + phys - paddr)
                        # A pointer into unmapped kernel space.
                        fh.write(struct.pack("<Q", 0xffffc8ffff000000))
        want = drgn_counts(prog)
        p, lines = sweep(vmlinux, path)
        sbs = {x["superblock"]: x for x in lines if "superblock" in x}
        broken = hex(sb.value_())
        c.ok("the broken superblock says why",
             sbs.get(broken, {}).get("error") is not None, str(sbs.get(broken)))
        # Forward to the garbage link, then back from the list's end to
        # the inodes already walked: every inode of the list, once.
        c.eq("every inode of the broken list, walked back from its end",
             sbs.get(broken, {}).get("inodes"), len(nodes))
        c.ok("the walk back is said",
             "walked back from the list's end" in (sbs.get(broken, {}).get("error") or ""),
             str(sbs.get(broken)))
        addrs = [x["address"] for x in lines if "address" in x]
        c.eq("no inode twice", len(addrs), len(set(addrs)))
        for other, n in want.items():
            if other != broken:
                c.eq(f"other superblock {other} complete",
                     (sbs.get(other, {}).get("inodes"),
                      sbs.get(other, {}).get("error")), (n, None))
        # Inodes went unchecked: partial (4), said on stderr, never 0.
        c.eq("exit code: partial", p.returncode, 4)
        c.ok("stderr says walks were cut short", "cut short" in p.stderr,
             p.stderr)


if __name__ == "__main__":
    main()
