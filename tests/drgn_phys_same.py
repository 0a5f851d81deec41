#!/usr/bin/python3
"""The same bytes at the same physical addresses in two dumps (drgn).

    python3 drgn_phys_same.py VMLINUX DUMP-A DUMP-B SIZE-TYPE ADDR...   (sid chroot)

For each ADDR (hex, a physical address: an identity-mapped object), SIZE
bytes (sizeof SIZE-TYPE, from VMLINUX's types) read physically from each
dump: one line "ADDR same|differs|unreadable-A|unreadable-B". Physical
reads need no address translation: a dump whose kernel virtual addresses
drgn cannot translate (libkdumpfile's "No way to translate") still
answers them. tests/test_s390x_fixture.py (drgn).
"""
import sys

import drgn


def program(vmlinux, dump):
    prog = drgn.Program()
    prog.set_core_dump(dump)
    try:
        prog.load_debug_info([vmlinux])
    except drgn.MissingDebugInfoError:
        pass  # the modules' debug info: not needed for physical reads
    return prog


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    vmlinux, a, b, tname = argv[1:5]
    pa, pb = program(vmlinux, a), program(vmlinux, b)
    size = drgn.sizeof(pa.type(tname))
    for addr in argv[5:]:
        out = []
        for prog in (pa, pb):
            try:
                out.append(prog.read(int(addr, 16), size, True))
            except drgn.FaultError:
                out.append(None)
        if out[0] is None:
            state = "unreadable-A"
        elif out[1] is None:
            state = "unreadable-B"
        else:
            state = "same" if out[0] == out[1] else "differs"
        print(addr, state)


if __name__ == "__main__":
    main(sys.argv)
