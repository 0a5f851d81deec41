#!/usr/bin/python3
"""The sweep by filesystem (issue 31): --sweep --fs NAME on the fs sets,
with and without --fs-rows, against drgn's counts.

usage: test_sweep_fs.py SET

Truth: SET/slab-truth.txt (tests/vmcores/drgn_slab_truth.py, drgn reading
the unfiltered dump): each superblock's type and s_inodes length.

On the unfiltered dump (d0-zlib), for every filesystem type drgn counts
(XFS, btrfs, overlay, ext4, tmpfs, sockfs, ...), with the set's vmlinux
and from the dump alone:
- --fs NAME gives exactly the superblocks drgn gives that type, each with
  drgn's count, and only inodes on them;
- --fs-rows adds each inode's filesystem rows ("fs") where its filesystem
  has a table (kernel/fs_rows.c), the same object as a decode of that
  inode gives; without it "fs" is null, and the per-superblock counts are
  the same either way.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run, set_dir  # noqa: E402
from test_sweep_filtered import truth_sbs  # noqa: E402

# Filesystems with a table of rows (lib/kernel/fs_rows.c), as the
# superblock's s_type->name says; checked to be non-null under --fs-rows.
WITH_ROWS = {"xfs", "ext4", "tmpfs"}


def sweep(args):
    p = run([*args, "--sweep", "--jsonl"])
    inodes, sbs = [], {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "superblock" in o:
            sbs[o["superblock"]] = o
        elif "address" in o:
            inodes.append(o)
    return p, inodes, sbs


def main():
    name = sys.argv[1]
    d = set_dir(name)
    truth = truth_sbs(d)
    dump = os.path.join(d, "d0-zlib.vmcore")
    c = Checker()
    empty = tempfile.mkdtemp(prefix="sweepfs-noroot-")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="sweepfs-cache-")
    types = sorted({t for t, _ in truth.values()})
    for want in ("xfs", "btrfs", "overlay", "ext4", "tmpfs"):
        c.ok(f"{name}: drgn counts a {want} superblock", want in types, str(types))
    for sname, sargs in (("dwarf", ["-k", os.path.join(d, "vmlinux")]),
                         ("btf", ["--debug-root", empty])):
        for fs in types:
            tag = f"{name} {sname} --fs {fs}"
            p, inodes, sbs = sweep([*sargs, "--fs", fs, dump])
            c.eq(f"{tag}: exit", p.returncode, 0)
            want = {sb: n for sb, (t, n) in truth.items() if t == fs}
            c.eq(f"{tag}: drgn's superblocks, drgn's counts",
                 {sb: e["inodes"] for sb, e in sbs.items()}, want)
            c.eq(f"{tag}: only its inodes",
                 sorted({i["fs_type"] for i in inodes}), [fs] if inodes else [])
            c.eq(f"{tag}: no fs rows without --fs-rows",
                 [i["address"] for i in inodes if i.get("fs") is not None], [])
            if fs not in WITH_ROWS:
                continue
            p2, rows, sbs2 = sweep([*sargs, "--fs", fs, "--fs-rows", dump])
            c.eq(f"{tag} --fs-rows: exit", p2.returncode, 0)
            c.eq(f"{tag} --fs-rows: the same counts",
                 {sb: e["inodes"] for sb, e in sbs2.items()}, want)
            lacking = [i["address"] for i in rows
                       if not (i.get("fs") or {}).get("rows")]
            c.eq(f"{tag} --fs-rows: every inode has its rows", lacking, [])
            # the same object a decode gives, for a few of them
            sample = [i for i in rows if i.get("fs")][:3]
            if sample:
                dec = run([*sargs, "--json", dump, *[i["address"] for i in sample]])
                got = {i["address"]: i.get("fs")
                       for i in json.loads(dec.stdout)["inodes"]}
                c.eq(f"{tag} --fs-rows: as a decode gives them",
                     {i["address"]: i["fs"] for i in sample}, got)
    c.finish()


if __name__ == "__main__":
    main()
