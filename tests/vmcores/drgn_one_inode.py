#!/usr/bin/env python3
"""What a drgn user does to see one reported inode of the running kernel:
drgn on /proc/kcore with the kernel's vmlinux, the inode at ADDRESS, its
fields printed. The follow73 guest times it (bench/, "Follow latency")
against vmcore-inode --live --follow, which has the session open already.

usage: drgn_one_inode.py ADDRESS [VMLINUX]     (default /live/vmlinux)
"""
import sys

import drgn
from drgn import Object

prog = drgn.Program()
prog.set_core_dump("/proc/kcore")
prog.load_debug_info([sys.argv[2] if len(sys.argv) > 2 else "/live/vmlinux"])
ino = Object(prog, "struct inode", address=int(sys.argv[1], 16))
state = ino.i_state
if state.type_.kind == drgn.TypeKind.STRUCT:   # 7.x: struct inode_state_flags
    state = state.member_(state.type_.members[0].name)
print(f"inode {int(sys.argv[1], 16):#x} ino {int(ino.i_ino)} "
      f"mode {int(ino.i_mode):o} opflags {int(ino.i_opflags):#x} "
      f"flags {int(ino.i_flags):#x} state {int(state):#x} "
      f"count {int(ino.i_count.counter)} nlink {int(ino.i_nlink)} "
      f"size {int(ino.i_size)} sb {int(ino.i_sb):#x} "
      f"fs {ino.i_sb.s_type.name.string_().decode()}")
