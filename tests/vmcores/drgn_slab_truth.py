#!/usr/bin/python3
"""Slab truth from drgn: what each address is, per drgn's slab_object_info().

usage: drgn_slab_truth.py VMLINUX VMCORE TRUTH.txt > slab-truth.txt

Reads an unfiltered (or -d 17) dump with drgn (0.3.0 in the sid chroot, or
the host's 0.0.22 where it reads the kernel) and writes, never from
inodedump's output:

  what addr=HEX kind=K cache=NAME|- object_size=N|- size=N|- start=HEX|- state=allocated|free|unknown|-
      for every truth inode (kind=inode), a few free objects of inode caches
      (kind=freed: the address where the object's inode would be), the
      first truth inode's superblock (kind=super) and dentry (kind=dentry),
      an address inside that inode (kind=mid: +0x40) and one outside the
      direct map (kind=nonslab: &init_task). cache=- when drgn says the
      address is in no slab object.
  cache name=NAME object_size=N size=N allocated=N
      for every inode cache the kernel has: its allocated objects, counted by
      slab_cache_for_each_allocated_object().
  sb addr=HEX type=NAME s_id=ID s_inodes=N
      for every superblock on super_blocks: the length of its s_inodes list.
"""
import sys

import drgn
from drgn import Object, cast, offsetof
from drgn.helpers.linux.list import hlist_for_each_entry, list_for_each_entry
from drgn.helpers.linux.mm import PageSlab, compound_head, for_each_page, page_to_virt
from drgn.helpers.linux.slab import (find_slab_cache, slab_cache_for_each_allocated_object,
                                     slab_object_info)

# The caches whose objects embed a struct inode, with the embedding struct and
# member where vmlinux has the type (module types are not loaded here: the
# freed address of a module's cache is then the object's start).
INODE_CACHES = {
    "inode_cache": ("struct inode", None),
    "shmem_inode_cache": ("struct shmem_inode_info", "vfs_inode"),
    "proc_inode_cache": ("struct proc_inode", "vfs_inode"),
    "sock_inode_cache": ("struct socket_alloc", "vfs_inode"),
    "bdev_cache": ("struct bdev_inode", "vfs_inode"),
    "hugetlbfs_inode_cache": ("struct hugetlbfs_inode_info", "vfs_inode"),
    "mqueue_inode_cache": ("struct mqueue_inode_info", "vfs_inode"),
    "debugfs_inode_cache": ("struct debugfs_inode_info", "vfs_inode"),
    "tracefs_inode_cache": ("struct tracefs_inode", "vfs_inode"),
    "ext4_inode_cache": (None, None),
    "xfs_inode": (None, None),
    "btrfs_inode": (None, None),
    "ovl_inode": (None, None),
    "nfs_inode_cache": (None, None),
    "fuse_inode": (None, None),
}
FREED_PER_CACHE = 2


def inode_offset(prog, name):
    struct, member = INODE_CACHES[name]
    if struct is None:
        return 0
    if member is None:
        return 0
    try:
        return offsetof(prog.type(struct), member)
    except LookupError:
        return 0


def slab_of(prog, page):
    """struct slab (5.17+) over the page, or the page itself (before)."""
    try:
        return cast(prog.type("struct slab *"), page)
    except LookupError:
        return page


def what(prog, addr, kind):
    info = slab_object_info(prog, addr)
    if info is None:
        return f"what addr={addr:x} kind={kind} cache=- object_size=- size=- start=- state=-"
    c = info.slab_cache
    state = {True: "allocated", False: "free", None: "unknown"}[info.allocated]
    return (f"what addr={addr:x} kind={kind} cache={c.name.string_().decode()} "
            f"object_size={c.object_size.value_()} size={c.size.value_()} "
            f"start={info.address:x} state={state}")


def main():
    vmlinux, vmcore, truth = sys.argv[1:4]
    prog = drgn.Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux])

    addrs = []
    with open(truth) as f:
        for line in f:
            for tok in line.split():
                if tok.startswith("addr="):
                    addrs.append(int(tok[5:], 16))
    out = [what(prog, a, "inode") for a in addrs]

    caches = {}
    for name in INODE_CACHES:
        c = find_slab_cache(prog, name)
        if c is not None:
            caches[c.value_()] = (name, c)

    # the slabs of the inode caches, from one pass over struct pages
    slabs = {k: [] for k in caches}
    for page in for_each_page(prog):
        try:
            if not PageSlab(page) or compound_head(page) != page:
                continue
            sc = slab_of(prog, page).slab_cache.value_()
        except (drgn.FaultError, LookupError):
            continue
        if sc in slabs:
            slabs[sc].append(page)

    for key, (name, c) in sorted(caches.items(), key=lambda kv: kv[1][0]):
        off = inode_offset(prog, name)
        size = c.size.value_()
        try:
            pad = c.red_left_pad.value_()
        except AttributeError:
            pad = 0
        found = 0
        for page in slabs[key]:
            if found >= FREED_PER_CACHE:
                break
            base = page_to_virt(page).value_() + pad
            nobj = slab_of(prog, page).objects.value_()
            for i in range(nobj):
                info = slab_object_info(prog, base + i * size)
                if info is not None and info.allocated is False:
                    out.append(what(prog, base + i * size + off, "freed"))
                    found += 1
                    if found >= FREED_PER_CACHE:
                        break

    if addrs:
        ino = Object(prog, "struct inode", address=addrs[0])
        out.append(what(prog, ino.i_sb.value_(), "super"))
        dentry = prog.type("struct dentry")
        alias = "d_u.d_alias" if dentry.has_member("d_u") else "d_alias"
        for d in hlist_for_each_entry(dentry, ino.i_dentry.address_of_(), alias):
            out.append(what(prog, d.value_(), "dentry"))
            break
        out.append(what(prog, addrs[0] + 0x40, "mid"))
    out.append(what(prog, prog["init_task"].address_of_().value_(), "nonslab"))

    for key, (name, c) in sorted(caches.items(), key=lambda kv: kv[1][0]):
        n = sum(1 for _ in slab_cache_for_each_allocated_object(c, "void"))
        out.append(f"cache name={name} object_size={c.object_size.value_()} "
                   f"size={c.size.value_()} allocated={n}")

    for sb in list_for_each_entry("struct super_block", prog["super_blocks"].address_of_(),
                                  "s_list"):
        n = sum(1 for _ in list_for_each_entry("struct inode", sb.s_inodes.address_of_(),
                                                 "i_sb_list"))
        out.append(f"sb addr={sb.value_():x} type={sb.s_type.name.string_().decode()} "
                   f"s_id={sb.s_id.string_().decode()} s_inodes={n}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
