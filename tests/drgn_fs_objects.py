#!/usr/bin/python3
"""drgn (0.3.0, in the sid chroot) reading the objects behind socket and
pipe inodes, for test_fs_overlay.py: the truth its rows are held to.

usage: drgn_fs_objects.py VMLINUX DUMP KIND:ADDR...   (KIND sock or pipe)
                          fop:PID:FD...
Prints one JSON object: {ADDR: {...}}, a socket's struct socket and sock
(state as its enumerator's name), a pipe's pipe_inode_info counters;
{"PID:FD": SYMBOL}, what the file->f_op of that fd points to.
"""
import json
import sys

import drgn
from drgn import Object, container_of


def enum_name(obj):
    t = obj.type_
    while t.kind == drgn.TypeKind.TYPEDEF:
        t = t.type
    v = obj.value_()
    for e in t.enumerators or ():
        if e.value == v:
            return e.name
    return None


def sock(prog, addr):
    inode = Object(prog, "struct inode", address=addr)
    sa = container_of(inode.address_of_(), "struct socket_alloc", "vfs_inode")
    s = sa.socket
    sk = s.sk
    return {
        "state": s.state.value_(), "state_name": enum_name(s.state),
        "type": s.type.value_(), "flags": s.flags.value_(),
        "file": s.file.value_(), "sk": sk.value_(),
        "family": sk.__sk_common.skc_family.value_(),
        "sk_state": sk.__sk_common.skc_state.value_(),
        "sk_type": sk.sk_type.value_(),
        "protocol": sk.sk_protocol.value_(),
    }


def pipe(prog, addr):
    p = Object(prog, "struct inode", address=addr).i_pipe
    return {k: getattr(p, k).value_() for k in (
        "readers", "writers", "files", "head", "tail", "ring_size",
        "max_usage")} | {"pipe": p.value_()}


def main(argv):
    prog = drgn.Program()
    prog.set_core_dump(argv[2])
    prog.load_debug_info([argv[1]])
    out = {}
    for arg in argv[3:]:
        kind, _, a = arg.partition(":")
        if kind == "fop":
            from drgn.helpers.linux.fs import fget
            from drgn.helpers.linux.pid import find_task
            pid, fd = (int(x) for x in a.split(":"))
            f = fget(find_task(prog, pid), fd)
            out[a] = prog.symbol(f.f_op.value_()).name
            continue
        out[a] = (sock if kind == "sock" else pipe)(prog, int(a, 16))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
