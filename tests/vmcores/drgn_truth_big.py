#!/usr/bin/python3
"""Truth for the big set: drgn's own walk of every superblock's s_inodes.

    drgn_truth_big.py VMLINUX VMCORE > truth.txt

One line per superblock on super_blocks, in list order:
    sb addr=HEX fs=NAME id=S_ID inodes=N
then one line per inode on its s_inodes list, in list order:
    inode sb=HEX addr=HEX ino=N mode=OCTAL nlink=N size=N
Works with drgn 0.0.22 (Debian 12) and 0.3.0: only types, memory reads and
list_for_each_entry, none of the helpers that 0.0.22 gets wrong on 6.12.
"""
import sys

import drgn
from drgn.helpers.linux.list import list_for_each_entry


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    prog = drgn.Program()
    prog.set_core_dump(sys.argv[2])
    prog.load_debug_info([sys.argv[1]])
    sbs = []
    head = prog["super_blocks"].address_of_()
    for sb in list_for_each_entry("struct super_block", head, "s_list"):
        name = sb.s_type.name.string_().decode()
        s_id = sb.s_id.string_().decode(errors="replace")
        rows = []
        for ino in list_for_each_entry("struct inode", sb.s_inodes.address_of_(), "i_sb_list"):
            rows.append("inode sb=%x addr=%x ino=%d mode=%o nlink=%d size=%d" % (
                sb.value_(), ino.value_(), ino.i_ino.value_(), ino.i_mode.value_(),
                ino.i_nlink.value_(), ino.i_size.value_()))
        sbs.append((sb.value_(), name, s_id, rows))
    out = sys.stdout
    for addr, name, s_id, rows in sbs:
        out.write("sb addr=%x fs=%s id=%s inodes=%d\n" % (addr, name, s_id.replace(" ", "_"), len(rows)))
    for _, _, _, rows in sbs:
        out.write("\n".join(rows))
        if rows:
            out.write("\n")


if __name__ == "__main__":
    main()
