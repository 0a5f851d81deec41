"""Raw bytes of a dump at kernel addresses, read by drgn alone (no types):
for test_fs_rows.py's check of the filesystem rows against pahole's
offsets. usage: drgn_raw_read.py DUMP ADDR:SIZE... -> one line each,
"ADDR:SIZE HEX" (little-endian bytes as read), or "ADDR:SIZE -" when the
dump lacks them."""
import sys

import drgn

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
for arg in sys.argv[2:]:
    a, _, n = arg.partition(":")
    try:
        b = prog.read(int(a, 16), int(n))
        print(arg, b.hex())
    except drgn.FaultError:
        print(arg, "-")
