#!/usr/bin/python3
"""drgn (0.0.22, the host's) reads what proc and kernfs inodes stand for:
truth for tests/test_fs_proc.py, independent of inodedump.

usage: drgn_fs_kernel.py VMLINUX VMCORE proc|kernfs ADDRESS...

One line per address: addr=... then key=value for each member read
(container_of(inode, struct proc_inode, vfs_inode), or the kernfs_node
at i_private); "-" where a pointer is NULL; "?" where a read faults.
"""
import sys

import drgn
from drgn import Object, cast, container_of


def text(p):
    if not p:
        return "-"
    try:
        return p.string_().decode("latin-1").replace(" ", "\\x20") or "''"
    except drgn.FaultError:
        return "?"


def proc(prog, inode):
    pi = container_of(inode, "struct proc_inode", "vfs_inode")
    out = {"fd": int(pi.fd)}
    pid = pi.pid
    out["pid"] = hex(pid.value_())
    out["pid_nr"] = int(pid.numbers[0].nr) if pid else "-"
    pde = pi.pde
    out["pde"] = hex(pde.value_())
    out["pde_name"] = text(pde.name) if pde else "-"
    out["pde_low_ino"] = int(pde.low_ino) if pde else "-"
    se = pi.sysctl_entry
    out["sysctl_procname"] = text(se.procname) if se else "-"
    return out


def kernfs(prog, inode):
    kn = cast("struct kernfs_node *", inode.i_private)
    out = {"kernfs_node": hex(kn.value_())}
    if not kn:
        return out
    try:
        parent = kn.parent
    except AttributeError:  # 6.13+: __parent
        parent = kn.__parent
    out["name"] = text(kn.name)
    out["parent"] = hex(parent.value_())
    out["parent_name"] = text(parent.name) if parent else "-"
    out["flags"] = int(kn.flags)
    out["mode"] = int(kn.mode)
    return out


def main():
    vmlinux, vmcore, kind = sys.argv[1:4]
    prog = drgn.Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux])
    for a in sys.argv[4:]:
        inode = Object(prog, "struct inode *", value=int(a, 16))
        try:
            kv = (proc if kind == "proc" else kernfs)(prog, inode)
        except drgn.FaultError as e:
            kv = {"fault": str(e).replace(" ", "_")}
        print("addr=" + a + " " + " ".join(f"{k}={v}" for k, v in kv.items()))


if __name__ == "__main__":
    main()
