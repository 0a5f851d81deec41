#!/usr/bin/python3
"""Truth lines for the fs sets (XFS, btrfs, overlayfs in a mount namespace,
sockets, pipes, eventfd), read with drgn 0.3.0 (the sid chroot).

    python3 drgn_truth_fs.py VMLINUX VMCORE SPEC...

SPEC is ROLE:PID:PATH (PATH looked up, without following its last
component, from PID's root in PID's mount namespace: the mounts of that
namespace only, so overlayfs's private layer mounts are never crossed) or
ROLE:PID:fd:N (the inode of PID's open file N). The specs come from the
guest's `inodedump-stat:` lines (fxfs stat), the values never do.

Each line is drgn_truth.py's line (the same keys in the same order: parsers
of the stock sets' truth read it unchanged) followed by
    ns=INUM       the mount namespace's inode (what /proc/PID/ns/mnt shows)
    pid=PID comm=COMM   the process the path was resolved from (or holder)
    dev=MAJ:MIN   the superblock's s_dev
    holder=PID:FD only for ROLE:PID:fd:N
Module symbols (xfs, btrfs, overlay, ext4 operations) come from the
modules' own kallsyms (drgn_truth.sym_name), no module debuginfo needed.
"""
import sys

import drgn
from drgn.helpers.linux.list import container_of
from drgn.helpers.linux.pid import find_task

import drgn_truth as dt

MINORBITS = 20


class NsView:
    """A process's root and mount namespace, with that namespace's mountpoints."""

    def __init__(self, prog, task):
        self.prog = prog
        root = task.fs.root
        self.mnt = container_of(root.mnt, "struct mount", "mnt")
        self.dentry = root.dentry
        self.ns = task.nsproxy.mnt_ns
        self.index = {}
        for m in dt.ns_mounts(prog, self.ns):
            if int(m.mnt_parent) == int(m):
                continue
            self.index.setdefault((int(m.mnt_parent), int(m.mnt_mountpoint)), []).append(m)

    def down(self, mnt, d):
        while True:
            ms = self.index.get((int(mnt), int(d)))
            if not ms:
                return mnt, d
            mnt = ms[-1]
            d = mnt.mnt.mnt_root

    def lookup(self, path):
        mnt, d = self.down(self.mnt, self.dentry)
        for comp in [c for c in path.split("/") if c]:
            for child in dt.d_children(self.prog, d):
                if dt.d_name(child) == comp and child.d_inode:
                    d = child
                    break
            else:
                raise LookupError(f"{path}: no dentry {comp!r} under {dt.d_name(d)!r}")
            mnt, d = self.down(mnt, d)
        return d


def ns_inum(task):
    return int(task.nsproxy.mnt_ns.ns.inum)


def main(argv):
    major, minor = (int(x) for x in drgn.__version__.split(".")[:2])
    if (major, minor) < (0, 3):
        sys.exit(f"drgn_truth_fs.py: needs drgn >= 0.3.0, this is {drgn.__version__}")
    if len(argv) < 4:
        sys.exit(__doc__)
    prog = dt.open_program(argv[1], argv[2])
    views = {}
    bad = 0
    for spec in argv[3:]:
        role, pid, rest = spec.split(":", 2)
        pid = int(pid)
        try:
            task = find_task(prog, pid)
            if not task:
                raise LookupError(f"no task {pid}")
            if rest.startswith("fd:"):
                fd = int(rest[3:])
                fdt = task.files.fdt
                if fd >= int(fdt.max_fds):
                    raise LookupError(f"pid {pid} has no fd {fd}")
                f = fdt.fd[fd]
                if not f:
                    raise LookupError(f"pid {pid} fd {fd} is not open")
                inode, path, holder = f.f_inode, "-", f" holder={pid}:{fd}"
            else:
                if pid not in views:
                    views[pid] = NsView(prog, task)
                inode, path, holder = views[pid].lookup(rest).d_inode, rest, ""
            fields = dt.inode_fields(prog, inode)
            sdev = int(inode.i_sb.s_dev)
            comm = task.comm.string_().decode(errors="replace")
            print(dt.truth_line(fields, path, role) +
                  f" ns={ns_inum(task)} pid={pid} comm={comm}"
                  f" dev={sdev >> MINORBITS}:{sdev & ((1 << MINORBITS) - 1)}{holder}")
        except (LookupError, drgn.FaultError, ValueError) as e:
            print(f"drgn_truth_fs.py: {spec}: {e}", file=sys.stderr)
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
