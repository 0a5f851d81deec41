#!/usr/bin/python3
"""Truth lines for the stock73 set (Debian's 7.3 kernel), read with drgn 0.3.0.

    python3 drgn_truth73.py VMLINUX VMCORE --stock     (in the sid chroot)

drgn_truth.py's walk and fields (it is the library here), run by sid's drgn
0.3.0: Debian 12's drgn 0.0.22 cannot read a 7.3 kernel. What 7.3 changed
and how this reads it (tests/vmcores/README.md, "The stock73 set"):
- `i_state` is `struct inode_state_flags { enum inode_state_bits __state; }`
  (drgn_truth.inode_fields takes the struct's only member);
- `i_linklen` shares a union with `i_devices`: it is printed for symlinks
  only (for any other inode it is a list pointer's low half);
- bit 31 of `i_ctime_nsec` is I_CTIME_QUERIED (6.13 multigrain
  timestamps): ctime_nsec() masks it as the kernel's inode_get_ctime_nsec();
- the init task's root is no longer the root userspace sees: on 7.x
  init_task.fs.root is the root of `nullfs` (an empty filesystem under
  everything), and the initramfs's rootfs is mounted over it; the walk
  starts from the root of PID 1 (/init), whose "/" the guest's paths and
  its stat lines mean;
- drgn 0.3.0's virt_to_page() fails on these dumps ("could not find variable
  in direct mapping"): nothing here uses it.
"""
import sys

import drgn
from drgn.helpers.linux.list import container_of
from drgn.helpers.linux.pid import find_task

import drgn_truth

I_CTIME_QUERIED = 1 << 31


def ctime_nsec(inode):
    """inode_get_ctime_nsec(): i_ctime_nsec without the I_CTIME_QUERIED bit.

    Harmless on kernels before 6.13: a valid nsec is < 10^9 < 2^31."""
    return int(inode.i_ctime_nsec) & ~I_CTIME_QUERIED


def pid1_fs_root(prog):
    """(struct mount *, struct dentry *, mnt_namespace *) of PID 1's root."""
    task = find_task(prog, 1)
    root = task.fs.root
    mnt = container_of(root.mnt, "struct mount", "mnt")
    return mnt, root.dentry, task.nsproxy.mnt_ns


def main(argv):
    major, minor = (int(x) for x in drgn.__version__.split(".")[:2])
    if (major, minor) < (0, 3):
        sys.exit(f"drgn_truth73.py: needs drgn >= 0.3.0, this is {drgn.__version__}")
    drgn_truth.init_fs_root = pid1_fs_root
    drgn_truth.main(argv)


if __name__ == "__main__":
    main(sys.argv)
