#!/usr/bin/python3
"""--holders names the same (pid, comm, fd/cwd/root, file refs) as drgn's walk.

The fixture's init keeps fds 3.. open on the fixture files and a sleeper
uses the fixture dir as its cwd (tests/vmcores/init.sh). On a set whose
info.txt names a sid chroot (stock73) drgn 0.3.0 in that chroot walks the
tasks: this script runs there as `test_holders.py --holders DUMP`
(tests/sid_drgn.py).
usage: test_holders.py SET
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run_json, set_dir  # noqa: E402
import sid_drgn  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.fs import for_each_file  # noqa: E402
from drgn.helpers.linux.pid import for_each_task  # noqa: E402


# include/linux/file_ref.h (6.13+, 64-bit): the counter holds the count
# minus one; at or above FILE_REF_RELEASED the file is released or dead.
FILE_REF_RELEASED = 0xC000000000000000


def file_refs(f):
    """file_ref_read() of f_ref (6.13+), or f_count before it."""
    try:
        c = int(f.f_ref.refcnt.counter) & (2**64 - 1)
    except AttributeError:
        return int(f.f_count.counter)
    return 0 if c >= FILE_REF_RELEASED else c + 1


def drgn_holders(prog):
    held = {}
    for task in for_each_task(prog):
        pid, comm = int(task.pid), task.comm.string_().decode()
        for fd, f in for_each_file(task):
            # A slot open() reserved but had not filled yet (the debugvfs73
            # guest panicked inside cat's open()): no file, no holder.
            if not f.value_():
                continue
            held.setdefault(int(f.f_inode.value_()), set()).add(
                (pid, comm, "fd", fd, file_refs(f)))
        if task.fs:
            for kind, path in (("cwd", task.fs.pwd), ("root", task.fs.root)):
                held.setdefault(int(path.dentry.d_inode.value_()), set()).add(
                    (pid, comm, kind, None, None))
    return held


def main():
    if sys.argv[1] == "--holders":  # in the sid chroot: the set is at /fx
        prog = drgn.Program()
        prog.set_core_dump(sys.argv[2])
        prog.load_debug_info(["/fx/vmlinux"])
        json.dump({str(k): sorted(v, key=str)
                   for k, v in drgn_holders(prog).items()}, sys.stdout)
        return
    d = set_dir(sys.argv[1])
    truth = read_truth(os.path.join(d, "truth.txt"))
    if sid_drgn.chroot_of(d):
        want = {int(k): {tuple(h) for h in v} for k, v in json.loads(
            sid_drgn.run(d, "test_holders.py",
                         ["--holders", "/fx/elf-paging.vmcore"])).items()}
        print("drgn (sid chroot) walked the tasks of elf-paging.vmcore")
    else:
        prog = drgn.Program()
        prog.set_core_dump(os.path.join(d, "elf-paging.vmcore"))
        prog.load_debug_info([os.path.join(d, "vmlinux")])
        want = drgn_holders(prog)
    p, doc = run_json(os.path.join(d, "vmlinux"), os.path.join(d, "d17-zlib.vmcore"),
                      [t["addr"] for t in truth], extra=("--holders",))
    c = Checker()
    some = 0
    for t, got in zip(truth, doc["inodes"]):
        mine = {(h["pid"], h["comm"], h["kind"], h["fd"], h["file_refs"])
                for h in got["holders"]}
        theirs = want.get(int(t["addr"], 16), set())
        some += bool(theirs)
        c.eq(f"{t['role']} holders", sorted(mine, key=str), sorted(theirs, key=str))
    c.ok("the fixture has held inodes", some >= 3, f"only {some}")
    shared = sum(1 for v in want.values() for h in v if h[4] and h[4] > 1)
    c.ok("some open file has more than one reference (fork)", shared >= 1,
         f"only {shared}")
    c.finish()


if __name__ == "__main__":
    main()
