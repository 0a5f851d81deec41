#!/usr/bin/python3
"""An unlinked file still held open is named as /proc/PID/fd names it,
"(deleted)", with nlink 0, and --holders finds who holds it.

The fixture's init opens /tmp/fx/unlinked on fd 9 and removes it
(tests/vmcores/init.sh); drgn finds that file through init's fd table:
the host's drgn, or drgn 0.3.0 in the set's sid chroot where the host's
cannot read the kernel (stock73; tests/sid_drgn.py).
usage: test_unlinked.py SET
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run_json, set_dir  # noqa: E402
import sid_drgn  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.fs import for_each_file  # noqa: E402
from drgn.helpers.linux.pid import find_task  # noqa: E402


def drgn_fd9(vmlinux, dump):
    """What drgn reads of init's fd 9: {"fds", "inode", "name", "nlink"}."""
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    files = dict(for_each_file(find_task(prog, 1)))
    out = {"fds": sorted(files)}
    if 9 in files:
        f = files[9]
        out["inode"] = f.f_inode.value_()
        out["name"] = f.f_path.dentry.d_name.name.string_().decode()
        out["nlink"] = int(f.f_inode.i_nlink)
    return out


def main():
    if sys.argv[1] == "--drgn":  # in the sid chroot: the set is at /fx
        json.dump(drgn_fd9("/fx/vmlinux", sys.argv[2]), sys.stdout)
        return
    d = set_dir(sys.argv[1])
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "elf-paging.vmcore")
    if sid_drgn.chroot_of(d):
        fd9 = json.loads(sid_drgn.run(d, "test_unlinked.py",
                                      ["--drgn", sid_drgn.fx(dump)]))
    else:
        fd9 = drgn_fd9(vmlinux, dump)
    c = Checker()
    c.ok("init holds fd 9", 9 in fd9["fds"], str(fd9["fds"]))
    if 9 not in fd9["fds"]:
        c.finish()
    inode = fd9["inode"]
    c.eq("drgn: the file's name", fd9["name"], "unlinked")
    c.eq("drgn: nlink", fd9["nlink"], 0)
    p, doc = run_json(vmlinux, os.path.join(d, "d17-zlib.vmcore"), [hex(inode)],
                      extra=("--holders",))
    got = doc["inodes"][0]
    c.eq("nlink", got.get("nlink"), 0)
    c.eq("unlinked", got.get("unlinked"), True)
    c.eq("paths", got.get("paths"), ["/tmp/fx/unlinked (deleted)"])
    c.ok("held by init on fd 9",
         any(h["pid"] == 1 and h["fd"] == 9 for h in got.get("holders") or []),
         str(got.get("holders")))
    c.eq("exit code", p.returncode, 0)
    c.finish()


if __name__ == "__main__":
    main()
