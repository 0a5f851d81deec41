#!/usr/bin/python3
"""An unlinked file still held open is named as /proc/PID/fd names it,
"(deleted)", with nlink 0, and --holders finds who holds it.

The fixture's init opens /tmp/fx/unlinked on fd 9 and removes it
(tests/vmcores/init.sh); drgn finds that file through init's fd table.
usage: test_unlinked.py SET
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run_json, set_dir  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.fs import for_each_file  # noqa: E402
from drgn.helpers.linux.pid import find_task  # noqa: E402


def main():
    d = set_dir(sys.argv[1])
    vmlinux = os.path.join(d, "vmlinux")
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "elf-paging.vmcore"))
    prog.load_debug_info([vmlinux])
    init = find_task(prog, 1)
    files = dict(for_each_file(init))
    c = Checker()
    c.ok("init holds fd 9", 9 in files, str(sorted(files)))
    if 9 not in files:
        c.finish()
    f = files[9]
    inode = f.f_inode.value_()
    name = f.f_path.dentry.d_name.name.string_().decode()
    c.eq("drgn: the file's name", name, "unlinked")
    c.eq("drgn: nlink", int(f.f_inode.i_nlink), 0)
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
