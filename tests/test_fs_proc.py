#!/usr/bin/python3
"""What proc and sysfs inodes stand for (issue 31): the proc and kernfs
rows (lib/kernel/fs_proc.def, fs_kernfs.def) of every proc and sysfs
inode a sweep finds, against drgn 0.0.22 reading the same dump.

usage: test_fs_proc.py SET

On SET's d17-zlib dump (6.12 stock and fs612, 5.10 old510): --sweep --fs proc
--fs-rows and --fs sysfs --fs-rows, with the set's vmlinux and from the
dump alone; every inode's rows equal drgn's reading of its proc_inode
(pid number, fd, proc_dir_entry name and low_ino, sysctl procname) or of
the kernfs_node at i_private (name, parent and its name, flags, mode).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run, set_dir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = {"proc": ("pid", "pid_nr", "fd", "pde", "pde_name", "pde_low_ino",
                 "sysctl_procname"),
        "kernfs": ("kernfs_node", "name", "parent", "parent_name", "flags",
                   "mode")}


def ours_value(v):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v.replace(" ", "\\x20") or "''"
    return v


def drgn_rows(vmlinux, dump, kind, addrs):
    out = {}
    for i in range(0, len(addrs), 400):
        p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "drgn_fs_kernel.py"),
                            vmlinux, dump, kind, *addrs[i:i + 400]],
                           capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(f"FAIL drgn_fs_kernel.py: {p.stderr[-800:]}")
        for line in p.stdout.splitlines():
            kv = dict(x.split("=", 1) for x in line.split())
            out[kv.pop("addr")] = kv
    return out


def main():
    name = sys.argv[1]
    d = set_dir(name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "d17-zlib.vmcore")
    c = Checker()
    empty = tempfile.mkdtemp(prefix="fsproc-noroot-")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="fsproc-cache-")
    for fs, kind in (("proc", "proc"), ("sysfs", "kernfs")):
        truth = None
        for sname, sargs in (("dwarf", ["-k", vmlinux]), ("btf", ["--debug-root", empty])):
            tag = f"{name} {sname} {fs}"
            p = run([*sargs, "--sweep", "--jsonl", "--fs", fs, "--fs-rows", dump])
            c.eq(f"{tag}: exit", p.returncode, 0)
            inodes = [json.loads(x) for x in p.stdout.splitlines() if '"address"' in x]
            inodes = [i for i in inodes if "mode" in i]
            # proc: the tasks' /proc entries; sysfs: at least its root
            c.ok(f"{tag}: inodes found", len(inodes) > (5 if fs == "proc" else 0),
                 str(len(inodes)))
            if truth is None:
                truth = drgn_rows(vmlinux, dump, kind,
                                  [i["address"][2:] for i in inodes])
            bad, named, compared = [], 0, 0
            for i in inodes:
                rows = (i.get("fs") or {}).get("rows") or {}
                want = truth.get(i["address"][2:])
                if want is None or "fault" in want:
                    continue
                compared += 1
                got = {k: str(ours_value(rows.get(k))) for k in KEYS[kind] if k in want}
                exp = {k: want[k] for k in got}
                if len(got) < 5:  # drgn and we name the same members
                    bad.append((i["address"], "too few keys compared", sorted(got)))
                # drgn says numbers in decimal, addresses in hex: so do we
                if got != exp:
                    bad.append((i["address"], got, exp))
                named += bool(rows.get("pde_name") or rows.get("name") not in (None, ""))
            print(f"NOTE {tag}: {compared} of {len(inodes)} inodes compared with drgn "
                  f"({len(inodes) - compared} drgn could not read)")
            c.ok(f"{tag}: drgn read most of them", compared * 10 >= len(inodes) * 9,
                 f"{compared} of {len(inodes)}")
            c.eq(f"{tag}: every inode's rows as drgn reads them ({len(inodes)})",
                 bad[:3], [])
            if len(inodes) > 1:
                c.ok(f"{tag}: names read", named > 0, str(named))
    c.finish()


if __name__ == "__main__":
    main()
