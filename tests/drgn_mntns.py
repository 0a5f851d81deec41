"""drgn's own answer for test_mntns.py: every mount namespace a task is in
(its inode number, the lowest pid in it and that task's comm) and, for each
inode address given, every (namespace, path) drgn finds through the mounts
of each namespace (drgn's for_each_mount() and d_path()).

usage (drgn 0.3.0, sid chroot): drgn_mntns.py DUMP VMLINUX ADDR...
Prints one JSON object. Never reads inodedump's output.
"""
import json
import sys

import drgn
from drgn import Object
from drgn.helpers.linux.fs import d_path, for_each_mount
from drgn.helpers.linux.list import hlist_for_each_entry
from drgn.helpers.linux.pid import for_each_task

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info([sys.argv[2]], default=False)

namespaces = {}  # address -> [inum, pid, comm]
for task in for_each_task(prog):
    if task.pid.value_() != task.tgid.value_() or not task.nsproxy:
        continue
    ns = task.nsproxy.mnt_ns
    pid = task.pid.value_()
    e = namespaces.get(ns.value_())
    if e is None or pid < e[1]:
        namespaces[ns.value_()] = [ns.ns.inum.value_(), pid,
                                   task.comm.string_().decode()]


def aliases(inode):
    for member in ("d_u.d_alias", "d_alias"):
        try:
            return list(hlist_for_each_entry("struct dentry",
                                             inode.i_dentry.address_of_(), member))
        except (LookupError, AttributeError):
            continue
    return []


def below(dentry, root):
    d = dentry
    for _ in range(512):
        if d.value_() == root.value_():
            return True
        if d.d_parent.value_() == d.value_():
            return False
        d = d.d_parent
    return False


rows = {}
for addr in sys.argv[3:]:
    inode = Object(prog, "struct inode *", int(addr, 16))
    out = set()
    for nsaddr, (inum, _, _) in namespaces.items():
        ns = Object(prog, "struct mnt_namespace *", nsaddr)
        for mnt in for_each_mount(ns):
            if mnt.mnt.mnt_sb.value_() != inode.i_sb.value_():
                continue
            for dentry in aliases(inode):
                if below(dentry, mnt.mnt.mnt_root):
                    p = d_path(mnt.mnt.address_of_(), dentry).decode()
                    out.add((inum, p))
    rows[addr] = sorted(out)
print(json.dumps({"namespaces": sorted(namespaces.values()), "rows": rows}))
