#!/usr/bin/python3
"""A part asked of a decode that cannot be read makes the run partial:
exit 4, what failed on stderr (issue 15). Paths are asked unless --sweep
runs without --paths; holders with --holders.

usage: test_partial.py CASE [SET]
  dentry_damaged   the patched set's d17-zlib dump (a 6.12 report dump
                   drgn 0.0.22 reads; the committed fixture is 7.3 now)
                   with the page of the victim's dentry damaged (its
                   descriptor says 65535 bytes)
  holders_damaged  the same with the page of init's open files damaged
  d31 SET          the set's -d 31 dump, which lost slab pages of
                   dentries and tasks (FIXTURES.md pitfall 8)
Where each damaged page is, and which addresses a -d 31 dump lacks, comes
from drgn (0.0.22, /usr/bin/python3) reading the dumps, never from
vmcore-inode.
"""
import json
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir  # noqa: E402

import drgn  # noqa: E402
from drgn import FaultError, Object  # noqa: E402
from drgn.helpers.linux.mm import virt_to_phys  # noqa: E402
from drgn.helpers.linux.pid import find_task  # noqa: E402

PATCHED = set_dir("patched")
DUMP = os.path.join(PATCHED, "d17-zlib.vmcore")
VMLINUX = os.path.join(PATCHED, "vmlinux")
PATH_FIELDS = ("i_dentry", "paths")


def program(dump, vmlinux):
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    return prog


def victim(d):
    return next(t for t in read_truth(os.path.join(d, "truth.txt"))
                if t["role"] == "victim_symlink")


def descriptor_of(data, pfn):
    """File offset of the page descriptor of pfn in a diskdump: its rank
    among the pages the second bitmap keeps (makedumpfile's
    diskdump_mod.h)."""
    bs, sub, blocks = struct.unpack_from("<iii", data, 428)
    bitmap = bs * (1 + sub)
    bitmap2 = bitmap + blocks // 2 * bs
    desc = bitmap + blocks * bs
    bits = data[bitmap2:bitmap2 + pfn // 8]
    rank = sum(bin(b).count("1") for b in bits)
    last = data[bitmap2 + pfn // 8]
    if not last >> (pfn % 8) & 1:
        raise SystemExit(f"FAIL pfn 0x{pfn:x} is not in the dump")
    rank += bin(last & ((1 << (pfn % 8)) - 1)).count("1")
    return desc + 24 * rank


def damaged_copy(tmp, name, phys):
    """A copy of the patched set's dump whose page at phys has a descriptor
    claiming 65535 bytes of data: our reader refuses that page, by name."""
    data = bytearray(open(DUMP, "rb").read())
    at = descriptor_of(data, phys >> 12)
    data[at + 8:at + 12] = struct.pack("<I", 65535)
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def decode(args):
    p = run(["-k", VMLINUX, "--json", *args])
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        raise SystemExit(f"FAIL not JSON ({e}); exit {p.returncode}; "
                         f"{p.stderr}")
    return p, doc


def no_crash(c, name, p):
    c.ok(f"{name}: no signal, no sanitizer report",
         p.returncode >= 0 and "Sanitizer" not in p.stderr
         and "runtime error" not in p.stderr, p.stderr[-600:])


def case_dentry_damaged(c):
    t = victim(PATCHED)
    prog = program(DUMP, VMLINUX)
    ino = Object(prog, "struct inode *", int(t["addr"], 16))
    dentry = drgn.container_of(ino.i_dentry.first, "struct dentry",
                               "d_u.d_alias")
    c.eq("drgn: the victim's one alias is its name",
         dentry.d_name.name.string_().decode(), os.path.basename(t["path"]))
    phys = virt_to_phys(prog, dentry.value_()).value_()
    whole_p, whole = decode([DUMP, t["addr"]])
    c.eq("whole dump: the victim's path", whole["inodes"][0]["paths"],
         [t["path"]])
    c.eq("whole dump: exit code (the victim's violation)", whole_p.returncode, 1)
    with tempfile.TemporaryDirectory() as tmp:
        dump = damaged_copy(tmp, "dentry.vmcore", phys)
        p, doc = decode([dump, t["addr"]])
        # The sweep asks for no path unless --paths.
        sweep = run(["-k", VMLINUX, "--sweep", "--jsonl", "--type", "symlink",
                     dump])
        sweep_paths = run(["-k", VMLINUX, "--sweep", "--paths", "--jsonl",
                           "--type", "symlink", dump])
    no_crash(c, "dentry page damaged", p)
    c.eq("dentry page damaged: exit code (partial wins over the violation)",
         p.returncode, 4)
    got = doc["inodes"][0]
    c.eq("dentry page damaged: the inode still decoded, its violation "
         "kept", [v["check"] for v in got["violations"]],
         [v["check"] for v in whole["inodes"][0]["violations"]])
    c.eq("dentry page damaged: no path", got["paths"], [])
    dentry_hex = f"0x{dentry.value_():x}"
    c.ok("dentry page damaged: the errors name the dentry",
         any(e["field"] in PATH_FIELDS and dentry_hex in e["reason"]
             for e in got["errors"]), str(got["errors"]))
    want = (f"inode 0x{t['addr']}: paths could not be read in full: "
            f"dentry {dentry_hex}")
    c.ok("dentry page damaged: stderr says which inode, which part, which "
         "dentry", want in p.stderr, p.stderr.strip())
    c.ok("dentry page damaged: and what is wrong with the page",
         f"page frame 0x{phys >> 12:x}" in p.stderr and
         "65535 bytes of page data" in p.stderr, p.stderr.strip())
    r = sweep
    c.ok("sweep without --paths: not partial for a path it did not ask",
         r.returncode in (0, 1) and "paths" not in r.stderr,
         f"exit {r.returncode}: {r.stderr.strip()}")
    r = sweep_paths
    c.eq("sweep --paths: exit code", r.returncode, 4)
    c.ok("sweep --paths: stderr counts the inodes and gives the first reason",
         re.search(r"paths of \d+ inodes? could not be read in full \(the "
                   r"first: .*page frame 0x%x," % (phys >> 12), r.stderr)
         is not None,
         r.stderr.strip())


def case_holders_damaged(c):
    t = victim(PATCHED)
    prog = program(DUMP, VMLINUX)
    init = find_task(prog, 1)
    fds = init.files.fdt.fd
    phys = virt_to_phys(prog, fds.value_()).value_()
    whole_p, whole = decode(["--holders", DUMP, t["addr"]])
    c.eq("whole dump: exit code", whole_p.returncode, 1)
    c.eq("whole dump: no error", whole["inodes"][0]["errors"], [])
    with tempfile.TemporaryDirectory() as tmp:
        dump = damaged_copy(tmp, "files.vmcore", phys)
        p, doc = decode(["--holders", dump, t["addr"]])
        plain_p, _ = decode([dump, t["addr"]])
    no_crash(c, "init's fd array damaged", p)
    c.eq("init's fd array damaged, --holders: exit code", p.returncode, 4)
    task = f"task 0x{init.value_():x}"
    c.ok("init's fd array damaged: stderr names the holders, the task and "
         "the page", "holders could not be read in full" in p.stderr and
         task in p.stderr and f"page frame 0x{phys >> 12:x}" in p.stderr,
         p.stderr.strip())
    c.ok("init's fd array damaged: the inode's errors say it",
         any(e["field"] == "holders" and task in e["reason"]
             for e in doc["inodes"][0]["errors"]),
         str(doc["inodes"][0]["errors"]))
    c.eq("init's fd array damaged, without --holders: exit code (as the "
         "whole dump)", plain_p.returncode, 1)


def filtered_in(prog, address):
    """drgn cannot read address in this dump."""
    try:
        prog.read(address, 1)
        return False
    except FaultError:
        return True


def case_d31(c, set_name):
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    d31 = os.path.join(d, "d31-zlib.vmcore")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    lossy = program(d31, vmlinux)
    whole = program(os.path.join(d, "elf-paging.vmcore"), vmlinux)
    p = run(["-k", vmlinux, "--json", "--holders", d31, *addrs])
    no_crash(c, "-d 31", p)
    doc = json.loads(p.stdout)
    lost_paths = 0
    for t, got in zip(truth, doc["inodes"]):
        n = f"-d 31 {t['role']}"
        if "error" in got:
            continue  # the inode itself lost: exit 3, test_writers.py
        notes = [e for e in got["errors"] if e["field"] in PATH_FIELDS]
        if not notes:
            continue
        lost_paths += 1
        ino = Object(whole, "struct inode *", int(t["addr"], 16))
        c.ok(n + ": drgn: a dentry names it in the whole dump (a path was "
             "there to lose)", ino.i_dentry.first.value_() != 0)
        for e in notes:
            m = re.search(r"address (0x[0-9a-f]+) \(physical", e["reason"])
            c.ok(n + ": the reason names an address", m is not None,
                 e["reason"])
            if m:
                a = int(m.group(1), 16)
                c.ok(f"{n}: drgn: {m.group(1)} is not in the -d 31 dump",
                     filtered_in(lossy, a))
                c.ok(f"{n}: drgn: {m.group(1)} is in the ELF dump",
                     not filtered_in(whole, a))
        c.ok(n + ": stderr names it", f"inode 0x{t['addr']}: paths could not "
             "be read in full" in p.stderr, p.stderr[-2000:])
    print(f"NOTE {set_name} -d 31: paths lost for {lost_paths} of "
          f"{len(truth)} truth inodes")
    holders = [e for got in doc["inodes"] if "error" not in got
               for e in got["errors"] if e["field"] == "holders"]
    # What the task walk meets: tasks drgn cannot read in the -d 31 dump.
    unreadable = sum(filtered_in(lossy, t.value_()) for t in
                     _tasks(whole))
    # Whether makedumpfile dropped a page of a task_struct depends, as the
    # dentries below, on where the allocator put them (a build of patched
    # from nothing, 2026-12-05 23:10, lost none): the holders are then
    # whole, and must be said whole; "partial holders_damaged" holds the
    # lost case deterministically (a task's page removed from a real dump).
    if unreadable:
        c.ok("-d 31: every decoded inode's holders are incomplete",
             all(any(e["field"] == "holders" for e in g["errors"])
                 for g in doc["inodes"] if "error" not in g), str(holders[:2]))
        c.ok("-d 31: stderr says so once", p.stderr.count(
            "holders could not be read in full") == 1, p.stderr[-2000:])
    else:
        print(f"NOTE {set_name} -d 31: drgn finds no task lost in this dump: "
              "the holders must be whole (partial holders_damaged covers the "
              "lost case)")
        c.eq("-d 31: no task lost: no inode's holders incomplete", holders, [])
    lost_inodes = sum("error" in g for g in doc["inodes"])
    partial = any(g.get("errors") for g in doc["inodes"] if "error" not in g)
    c.eq("-d 31: exit code (3 if an inode itself was lost, 4 if a part was, "
         "else 0 or 1)", p.returncode,
         3 if lost_inodes else 4 if partial else
         1 if any(g.get("violations") for g in doc["inodes"]) else 0)
    # Whether makedumpfile 1.7.2 dropped a slab page holding a dentry of a
    # truth inode depends on where the guest's allocator put them: a fresh
    # build of stock4 lost none (2026-12-04), earlier ones lost some. Not a
    # property of ours to assert; the path part is held deterministically by
    # "partial dentry_damaged" (a dentry page removed from a real dump).
    if not lost_paths:
        print(f"NOTE {set_name} -d 31: no truth inode lost its path in this "
              "dump: the checks above on lost paths did not run here "
              "(partial dentry_damaged covers them)")
    # The same inodes from the whole dump: nothing partial.
    r = run(["-k", vmlinux, "--json", "--holders",
             os.path.join(d, "elf-paging.vmcore"), *addrs])
    c.ok("ELF dump: the same run is not partial",
         r.returncode in (0, 1) and "could not be read" not in r.stderr,
         f"exit {r.returncode}: {r.stderr.strip()}")
    # One address at a time, the inodes that were read: 4 where the paths
    # were lost, else as the whole dump says.
    for t, got in zip(truth, doc["inodes"]):
        if "error" in got:
            continue
        one = run(["-k", vmlinux, d31, t["addr"]])
        # paths lost, or another part (the slab's freelist, a superblock's
        # page): partial; the holders were asked only of the first run
        lost = any(e["field"] != "holders" for e in got["errors"])
        c.eq(f"-d 31 {t['role']} alone: exit code", one.returncode,
             4 if lost else 1 if got["violations"] else 0)


def _tasks(prog):
    from drgn.helpers.linux.pid import for_each_task
    return list(for_each_task(prog))


def main():
    case = sys.argv[1]
    c = Checker()
    if case == "d31":
        case_d31(c, sys.argv[2])
    else:
        globals()["case_" + case](c)
    c.finish()


if __name__ == "__main__":
    main()
