#!/usr/bin/python3
"""A sweep that does not depend on one list (issue 30): --sweep of -d 31
dumps against drgn's counts on the unfiltered dump of the same moment.

usage: test_sweep_filtered.py SET

Truth: SET/slab-truth.txt (tests/vmcores/drgn_slab_truth.py, drgn 0.3.0 or
0.0.22 reading the unfiltered dump): each superblock's s_inodes length.
The set's -d 31 dumps (makedumpfile 1.7.2 and 1.7.8) lose slab pages: a
superblock, inodes on s_inodes, super_blocks itself.

On the unfiltered dump (d0, else d17): every superblock's count equals
drgn's, no slab walk. On each -d 31 dump, with vmlinux and from the dump
alone (5.10's kallsyms found in its kernel image):
- never exit 3: the sweep goes on past every broken list (exit 4);
- no inode twice; every inode's superblock is one drgn knows;
- no superblock has more inodes than drgn counts on its s_inodes;
- what is missing is explained: the sweep's note counts the allocated
  inode objects that are not in the dump, and the inodes missing from
  all superblocks together are no more than that;
- superblocks_cut_short counts the superblock events that say why.
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run, set_dir  # noqa: E402


def truth_sbs(d):
    out = {}
    with open(os.path.join(d, "slab-truth.txt")) as f:
        for line in f:
            if line.startswith("sb "):
                t = dict(x.split("=", 1) for x in line.split()[1:])
                out["0x" + t["addr"]] = (t["type"], int(t["s_inodes"]))
    if not out:
        raise SystemExit(f"FAIL no 'sb' lines in {d}/slab-truth.txt")
    return out


def sweep(args, dump):
    p = run([*args, "--sweep", "--jsonl", dump])
    inodes, sbs, summary = [], {}, None
    for line in p.stdout.splitlines():
        try:
            o = json.loads(line)
        except json.JSONDecodeError:
            raise SystemExit(f"FAIL not JSON Lines: {line[:200]!r}; "
                             f"exit {p.returncode}; {p.stderr[-500:]}")
        if "summary" in o:
            summary = o["summary"]
        elif "superblock" in o:
            sbs.setdefault(o["superblock"], []).append(o)
        else:
            inodes.append(o)
    return p, inodes, sbs, summary


def main():
    name = sys.argv[1]
    d = set_dir(name)
    truth = truth_sbs(d)
    vmlinux = os.path.join(d, "vmlinux")
    base = "d0-zlib.vmcore" if os.path.exists(os.path.join(d, "d0-zlib.vmcore")) \
        else "d17-zlib.vmcore"
    c = Checker()
    empty = tempfile.mkdtemp(prefix="sweepf-noroot-")
    cache = tempfile.mkdtemp(prefix="sweepf-cache-")
    os.environ["XDG_CACHE_HOME"] = cache

    p, inodes, sbs, summary = sweep(["-k", vmlinux], os.path.join(d, base))
    c.eq(f"{name} {base}: exit", p.returncode, 0)
    for sb, (fstype, n) in truth.items():
        got = sum(e["inodes"] for e in sbs.get(sb, []))
        c.eq(f"{name} {base}: {fstype} {sb} inodes as drgn counts", got, n)
    c.ok(f"{name} {base}: no slab walk on a whole dump",
         not any(e.get("from_slabs") for v in sbs.values() for e in v), "")

    filtered = sorted(f for f in os.listdir(d) if "d31" in f and f.endswith(".vmcore"))
    c.ok(f"{name}: -d 31 dumps", filtered, "none")
    sessions = [("dwarf", ["-k", vmlinux]), ("btf", ["--debug-root", empty])]
    for f in filtered:
        for sname, args in sessions:
            tag = f"{name} {f} {sname}"
            p, inodes, sbs, summary = sweep(args, os.path.join(d, f))
            c.ok(f"{tag}: goes on past broken lists (exit 0, 1 or 4)",
                 p.returncode in (0, 1, 4), f"exit {p.returncode}: {p.stderr[-600:]}")
            addrs = [i["address"] for i in inodes]
            c.eq(f"{tag}: no inode twice", len(addrs), len(set(addrs)))
            unknown = [sb for sb in sbs if sb not in truth]
            c.eq(f"{tag}: every superblock is one drgn knows", unknown, [])
            missing = 0
            for sb, (fstype, n) in truth.items():
                got = sum(e["inodes"] for e in sbs.get(sb, []))
                c.ok(f"{tag}: {fstype} {sb}: no more than drgn's {n}", got <= n,
                     f"got {got}")
                missing += n - min(got, n)
            said = sum(1 for v in sbs.values() for e in v if e.get("error"))
            c.eq(f"{tag}: superblocks_cut_short counts the walks that say why",
                 (summary or {}).get("superblocks_cut_short"), said)
            if missing:
                m = re.search(r"(\d+) allocated inode objects are not in the dump",
                              p.stderr)
                c.ok(f"{tag}: what is missing is counted", m, p.stderr[-800:])
                lost = int(m.group(1)) if m else 0
                nw = re.search(r"(\d+) caches of inodes whose inode offset is "
                               r"not known", p.stderr)
                unwalked = int(nw.group(1)) if nw else 0
                # what the slabs could not give is counted, or the caches
                # that could not be walked are named as such
                c.ok(f"{tag}: {missing} inodes missing, no more than the "
                     f"{lost} objects not in the dump"
                     f"{' (or in caches not walked)' if unwalked else ''}",
                     missing <= lost or unwalked > 0, "")
                c.eq(f"{tag}: partial", p.returncode, 4)
            print(f"{tag}: {len(addrs)} inodes of drgn's "
                  f"{sum(n for _, n in truth.values())}; {missing} missing, "
                  f"{(summary or {}).get('inodes_from_slabs', 0)} found only "
                  "through the slabs")
    c.finish()


if __name__ == "__main__":
    main()
