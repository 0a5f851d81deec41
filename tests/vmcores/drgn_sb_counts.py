#!/usr/bin/python3
"""Each superblock of a dump and how many inodes its s_inodes list holds.

    python3 drgn_sb_counts.py VMLINUX VMCORE      (drgn 0.3.0: the sid chroot)

One line a superblock, in super_blocks order:
    sb=0xADDR fstype=NAME s_id=ID inodes=N
what `vmcore-inode --sweep` visits (tests/vmcores/README.md, "The s390x
sets": the set's sweep-counts.txt, written at build time beside truth.txt).
"""
import sys

import drgn
from drgn.helpers.linux.list import list_for_each_entry


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    prog = drgn.Program()
    prog.set_core_dump(argv[2])
    prog.load_debug_info([argv[1]])
    for sb in list_for_each_entry("struct super_block",
                                  prog["super_blocks"].address_of_(), "s_list"):
        n = sum(1 for _ in list_for_each_entry(
            "struct inode", sb.s_inodes.address_of_(), "i_sb_list"))
        print(f"sb=0x{sb.value_():x} fstype={sb.s_type.name.string_().decode()} "
              f"s_id={sb.s_id.string_().decode()} inodes={n}")


if __name__ == "__main__":
    main(sys.argv)
