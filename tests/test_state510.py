#!/usr/bin/env python3
"""i_state bit names on Debian 11's 5.10 (the old510 set): bit 9 is
I_DIO_WAKEUP and bit 19 I_LRU_ISOLATING, a stable backport that 5.10.262
has ("vfs: Don't evict inode under the inode lru traversing context"),
known from the functions that came with it in fs/inode.c (inlined: in the
vmlinux's DWARF only), not from the version.

usage: test_state510.py

A copy of the set's elf-nopaging.vmcore with the tmpfs "regular" inode's
i_state given bits 9 and 19 besides its own; the host's drgn finds where
i_state is (never inodedump). The decode must name both bits, and keep the
inode's own.
"""
import os
import struct
import tempfile

import drgn
from drgn import Object
from drgn.helpers.linux.mm import virt_to_phys

from fixture import Checker, ElfCopy, read_truth, run_json, set_dir

DIO_WAKEUP, LRU_ISOLATING = 1 << 9, 1 << 19


def main():
    d = set_dir("old510")
    vmlinux = os.path.join(d, "vmlinux")
    t = next(t for t in read_truth(os.path.join(d, "truth.txt"))
             if t["role"] == "regular")
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "d17-zlib.vmcore"))
    prog.load_debug_info([vmlinux])
    ino = Object(prog, "struct inode *", int(t["addr"], 16))
    state = ino.i_state
    old = state.value_()
    phys = virt_to_phys(prog, state.address_).value_()
    c = Checker()
    c.eq("truth: i_state as drgn reads it", "0x%x" % old, t["state"])
    with tempfile.TemporaryDirectory() as tmp:
        e = ElfCopy(d, tmp)
        new = old | DIO_WAKEUP | LRU_ISOLATING
        fmt = "<I" if drgn.sizeof(state.type_) == 4 else "<Q"
        e.write_phys(phys, struct.pack(fmt, new))
        p, doc = run_json(vmlinux, e.path, [t["addr"]])
    c.eq("exit code", p.returncode, 0)
    got = doc["inodes"][0] if doc.get("inodes") else {}
    names = got.get("state_names")
    print(f"NOTE i_state 0x{old:x} -> 0x{new:x}: {got.get('state')!r} names {names!r}")
    c.ok("bit 9 named I_DIO_WAKEUP", names is not None and "I_DIO_WAKEUP" in names,
         str(names))
    c.ok("bit 19 named I_LRU_ISOLATING (the kernel has its fs/inode.c functions)",
         names is not None and "I_LRU_ISOLATING" in names, str(names))
    c.ok("no bit left without a name", names is not None and
         not any(n.startswith("0x") for n in names), str(names))
    c.finish()


if __name__ == "__main__":
    main()
