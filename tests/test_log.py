#!/usr/bin/python3
"""--log prints the dump's kernel log byte for byte as drgn's get_dmesg().

On a set whose info.txt names a sid chroot (stock73) drgn 0.3.0 in that
chroot reads the log: this script runs there as `test_log.py --dmesg DUMP`
(tests/sid_drgn.py).

usage: test_log.py SET FORMAT
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import escape_log, FORMATS, Checker, run, set_dir  # noqa: E402
import sid_drgn  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.printk import get_dmesg  # noqa: E402

DRGN_SUBSTITUTE = {"elf-nopaging": "elf-paging",
                   "qemu-kdump-zlib": "elf-paging"}
# drgn 0.3.0 (sid chroot) reads QEMU's paging:false ELF itself; the
# flattened format still not ("KDUMP_ATTR_ARCH_NAME: Key has no value").
DRGN_SUBSTITUTE_SID = {"qemu-kdump-zlib": "elf-paging"}


def dmesg(vmlinux, dump):
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    return get_dmesg(prog)


def main():
    if sys.argv[1] == "--dmesg":  # in the sid chroot: the set is at /fx
        sys.stdout.buffer.write(dmesg("/fx/vmlinux", sys.argv[2]))
        return
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    ours = os.path.join(d, FORMATS.get(fmt, fmt))
    sid = sid_drgn.chroot_of(d)
    subst = DRGN_SUBSTITUTE_SID if sid else DRGN_SUBSTITUTE
    theirs = os.path.join(d, FORMATS[subst.get(fmt, fmt)])
    if sid:
        want = sid_drgn.run(d, "test_log.py", ["--dmesg", sid_drgn.fx(theirs)])
        print(f"drgn (sid chroot) read {os.path.basename(theirs)}")
    else:
        want = dmesg(vmlinux, theirs)
    # drgn gives the raw bytes; --log escapes what a terminal would act on.
    want = escape_log(want)
    p = run(["-k", vmlinux, "--log", ours], text=False)
    c = Checker()
    c.eq("exit code", p.returncode, 0)
    c.ok("log is not empty", len(want) > 1000, f"{len(want)} bytes")
    same = p.stdout == want
    if not same:
        got_lines, want_lines = p.stdout.split(b"\n"), want.split(b"\n")
        for i, (g, w) in enumerate(zip(got_lines, want_lines)):
            if g != w:
                print(f"first difference at line {i + 1}:\n ours {g!r}\n drgn {w!r}")
                break
        print(f"ours {len(p.stdout)} bytes/{len(got_lines)} lines, "
              f"drgn {len(want)} bytes/{len(want_lines)} lines")
    c.ok("identical to drgn get_dmesg()", same)
    c.finish()


if __name__ == "__main__":
    main()
