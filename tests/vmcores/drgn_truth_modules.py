#!/usr/bin/python3
"""drgn_truth.py with modules' debug files loaded beside vmlinux.

usage: drgn_truth_modules.py VMLINUX VMCORE MODULE.ko... -- (--stock | ROLE=PATH...)

The truth lines of drgn_truth.py, with drgn also given each MODULE.ko (a
-dbg package's lib/modules/R/kernel/.../M.ko): drgn relocates it to the
module's place in the dump, so a module's data symbols (its operations
tables) are named as the module's symbol table names them, which the
kernel's own kallsyms cannot when it was built with CONFIG_KALLSYMS_ALL
off (the arm64-510 and arm64-61 sets). drgn_truth.py itself is left as it
is: its text is in other sets' keys.
"""
import os
import sys

import drgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drgn_truth  # noqa: E402


def main(argv):
    if "--" not in argv or len(argv) < 5:
        sys.exit(__doc__)
    sep = argv.index("--")
    vmlinux, vmcore, modules = argv[1], argv[2], argv[3:sep]

    def open_program(vmlinux, vmcore):
        prog = drgn.Program()
        prog.set_core_dump(vmcore)
        prog.load_debug_info([vmlinux, *modules])
        return prog

    drgn_truth.open_program = open_program
    drgn_truth.main([argv[0], vmlinux, vmcore, *argv[sep + 1:]])


if __name__ == "__main__":
    main(sys.argv)
