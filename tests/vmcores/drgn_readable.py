#!/usr/bin/python3
"""The truth lines whose inode drgn cannot read from DUMP (a filtered dump:
makedumpfile dropped the page), each with drgn's error as a comment; for
make-small.sh's lost.txt.

usage: drgn_readable.py VMLINUX DUMP TRUTH
"""
import sys

import drgn

prog = drgn.Program()
prog.set_core_dump(sys.argv[2])
prog.load_debug_info([sys.argv[1]])
size = drgn.sizeof(prog.type("struct inode"))
with open(sys.argv[3]) as f:
    for line in f:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        addr = int(line.split(" ", 1)[0].removeprefix("addr="), 16)
        try:
            prog.read(addr, size)
        except drgn.FaultError as e:
            print(f"# drgn {drgn.__version__}: {e}")
            print(line)
