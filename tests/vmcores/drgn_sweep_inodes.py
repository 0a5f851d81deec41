#!/usr/bin/env python3
"""What a drgn user does to look at every inode of the running kernel:
drgn on /proc/kcore with the kernel's vmlinux, `super_blocks` and each
superblock's `s_inodes` list walked, a few fields of each inode read. The
follow73 guest times it against `vmcore-inode --live --sweep`
(bench/kcore_bench.py, "Live sweep"): a floor for drgn, which reads far
fewer members than the sweep decodes and checks.

usage: drgn_sweep_inodes.py [VMLINUX]     (default /live/vmlinux)
Prints one "sb ADDRESS FSTYPE INODES" line a superblock, then
"total superblocks=N inodes=M".
"""
import sys

import drgn
from drgn.helpers.linux.list import list_for_each_entry

prog = drgn.Program()
prog.set_core_dump("/proc/kcore")
prog.load_debug_info([sys.argv[1] if len(sys.argv) > 1 else "/live/vmlinux"])
total = sbs = 0
for sb in list_for_each_entry("struct super_block", prog["super_blocks"].address_of_(),
                              "s_list"):
    n = 0
    for ino in list_for_each_entry("struct inode", sb.s_inodes.address_of_(), "i_sb_list"):
        (int(ino.i_ino), int(ino.i_mode), int(ino.i_nlink), int(ino.i_size),
         int(ino.i_count.counter))
        n += 1
    print(f"sb {sb.value_():#x} {sb.s_type.name.string_().decode()} {n}")
    total += n
    sbs += 1
print(f"total superblocks={sbs} inodes={total}")
