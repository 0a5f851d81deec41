# SPDX-License-Identifier: LGPL-2.1-or-later
"""The drgn side of the benchmark: the same work vmcore-inode does.

Run with /usr/bin/python3 (Debian's python3-drgn):

    drgn_bench.py inode   VMLINUX VMCORE ADDRESS...   open, decode these inodes
    drgn_bench.py reports VMLINUX VMCORE              open, read the log, decode
                                                      every "encountered for
                                                      inode <hex>" report
    drgn_bench.py log     VMLINUX VMCORE              open, print the log (dmesg)
    drgn_bench.py what    VMLINUX VMCORE ADDRESS...   open, slab_object_info() of
                                                      each (drgn 0.3.0 for 6.x)
    drgn_bench.py fsrows  VMLINUX VMCORE ADDR:OBJ:OFF/SIZE,...
                                                      open, decode each inode and
                                                      read its filesystem's struct
                                                      by hand: the object at
                                                      ADDR - OBJ, each member at
                                                      OFF of SIZE bytes (offsets
                                                      from pahole: drgn has no
                                                      module types here)
    drgn_bench.py sweep   VMLINUX VMCORE              open, walk super_blocks and
                                                      every s_inodes list reading
                                                      i_mode and i_ino

Each decoded inode is printed as one line of key=value pairs so that
bench.py can check that drgn and vmcore-inode read the same values.
"""
import re
import sys

import drgn
from drgn import Object, Program

S_IFMT = 0o170000
S_IFLNK = 0o120000
REPORT = re.compile(rb"encountered for inode ([0-9a-f]+)")


def open_program(vmlinux, vmcore):
    prog = Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux])
    return prog


def symbol(prog, addr):
    if not addr:
        return "-"
    try:
        return prog.symbol(addr).name
    except LookupError:
        return hex(addr)


def decode(prog, addr):
    inode = Object(prog, "struct inode *", value=addr)
    mode = inode.i_mode.value_()
    sb = inode.i_sb
    out = {
        "addr": "%x" % addr,
        "ino": inode.i_ino.value_(),
        "mode": "0%o" % mode,
        "opflags": hex(inode.i_opflags.value_()),
        "flags": hex(inode.i_flags.value_()),
        "state": hex(inode.i_state.value_()),
        "count": inode.i_count.counter.value_(),
        "nlink": inode.i_nlink.value_(),
        "size": inode.i_size.value_(),
        "uid": inode.i_uid.val.value_(),
        "gid": inode.i_gid.val.value_(),
        "s_id": sb.s_id.string_().decode(errors="replace"),
        "fstype": sb.s_type.name.string_().decode(errors="replace"),
        "i_op": symbol(prog, inode.i_op.value_()),
        "link": "-",
    }
    if mode & S_IFMT == S_IFLNK and inode.i_link.value_():
        out["link"] = inode.i_link.string_().decode(
            errors="replace")
    return out


def emit(fields):
    print(" ".join("%s=%s" % kv for kv in fields.items()))



def sweep(prog):
    """What vmcore-inode --sweep walks, reading only i_mode and i_ino."""
    from drgn.helpers.linux.list import list_for_each_entry
    total = 0
    for sb in list_for_each_entry("struct super_block",
                                  prog["super_blocks"].address_of_(), "s_list"):
        n = 0
        for ino in list_for_each_entry("struct inode", sb.s_inodes.address_of_(),
                                       "i_sb_list"):
            int(ino.i_mode)
            int(ino.i_ino)
            n += 1
        print("sb=%x inodes=%d" % (sb.value_(), n))
        total += n
    print("total=%d" % total)


def main(argv):
    if len(argv) < 4 or argv[1] not in ("inode", "reports", "log", "sweep", "what",
                                        "fsrows"):
        sys.exit(__doc__)
    mode, vmlinux, vmcore = argv[1:4]
    prog = open_program(vmlinux, vmcore)
    if mode == "inode":
        for a in argv[4:]:
            emit(decode(prog, int(a, 16)))
    elif mode == "reports":
        from drgn.helpers.linux.printk import get_printk_records

        for rec in get_printk_records(prog):
            m = REPORT.search(rec.text)
            if m:
                print(rec.text.decode(errors="replace"))
                emit(decode(prog, int(m.group(1), 16)))
    elif mode == "fsrows":
        for a in argv[4:]:
            addr, obj, members = a.split(":")
            out = decode(prog, int(addr, 16))
            base = int(addr, 16) - int(obj)
            for i, m in enumerate(members.split(",")):
                off, size = (int(x) for x in m.split("/"))
                out["m%d" % i] = int.from_bytes(prog.read(base + off, size),
                                                "little")
            emit(out)
    elif mode == "sweep":
        sweep(prog)
    elif mode == "what":
        from drgn.helpers.linux.slab import slab_object_info

        for a in argv[4:]:
            info = slab_object_info(prog, int(a, 16))
            if info is None:
                print("addr=%s cache=- start=- state=-" % a)
                continue
            print("addr=%s cache=%s start=%x state=%s" % (
                a, info.slab_cache.name.string_().decode(), info.address,
                {True: "allocated", False: "free", None: "unknown"}[info.allocated]))
    else:
        from drgn.helpers.linux.printk import get_dmesg

        sys.stdout.buffer.write(get_dmesg(prog))


if __name__ == "__main__":
    main(sys.argv)
