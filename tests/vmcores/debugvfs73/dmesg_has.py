#!/usr/bin/python3
"""The dump's own kernel log (drgn's get_dmesg) holds every given line.

    dmesg_has.py VMLINUX VMCORE LINES_FILE      (drgn >= 0.3.0: the sid chroot)

Used by make-committed.sh on the debugvfs73 fixture: LINES_FILE is its
reports.txt (the report lines as the console printed them). Exits 1 when
a line is missing or LINES_FILE is empty.
"""
import sys

import drgn
from drgn.helpers.linux.printk import get_dmesg


def main():
    vmlinux, vmcore, lines = sys.argv[1:4]
    prog = drgn.Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux])
    log = get_dmesg(prog).decode(errors="replace")
    want = [line for line in open(lines).read().split("\n") if line]
    miss = [line for line in want if line not in log]
    for line in miss:
        print(f"dmesg_has: not in the log: {line}")
    print(f"drgn {drgn.__version__} get_dmesg(): {len(want) - len(miss)} of "
          f"{len(want)} report lines in the log")
    sys.exit(1 if miss or not want else 0)


if __name__ == "__main__":
    main()
