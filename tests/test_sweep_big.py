#!/usr/bin/python3
"""--sweep at real-server scale (the big sets: tests/vmcores/recipes/big.sh).

    test_sweep_big.py [SET] STAGE FORMAT SET big (stock 6.12, the default)
                                         or big73 (stock 7.3); STAGE small
                                         (~20 k inodes) or big (>= 200 k);
                                         FORMAT d17-zlib, d17-lzo,
                                         d17-zstd or elf

Truth is STAGE-truth.txt, drgn's own walk of every s_inodes list of
STAGE-d17-zlib.vmcore (drgn_truth_big.py; 0.0.22 for big, 0.3.0 for
big73); every format of a stage was written from the same stopped guest.
Checks:
- the superblocks, in list order, and the inodes counted on each, are
  drgn's; no walk is cut short;
- every inode drgn walked is swept, with drgn's ino, mode, nlink and size
  (all formats: the memory is the same);
- --threads 1 and --threads 2 write the same bytes, JSONL and text.
"""
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, schema_checked, set_dir, vmcore_inode  # noqa: E402


def read_truth(path):
    sbs, inodes = [], {}
    with open(path) as f:
        for line in f:
            kind, _, rest = line.strip().partition(" ")
            row = dict(tok.split("=", 1) for tok in rest.split(" "))
            if kind == "sb":
                sbs.append(row)
            elif kind == "inode":
                inodes["0x" + row["addr"]] = row
    if not sbs or not inodes:
        raise SystemExit(f"FAIL no truth in {path}")
    return sbs, inodes


def sweep(vmlinux, dump, threads, jsonl):
    """(exit code, sha256 of stdout, stdout lines when jsonl) of a sweep."""
    cmd = [vmcore_inode(), "-k", vmlinux, "--sweep", "--threads", str(threads)]
    if jsonl:
        cmd.append("--jsonl")
    p = schema_checked(cmd[1:] + [dump],
                       subprocess.run(cmd + [dump], capture_output=True,
                                      timeout=1500))
    if p.returncode not in (0, 1):
        raise SystemExit(f"FAIL {' '.join(cmd)} {dump}: exit {p.returncode}\n"
                         f"{p.stderr.decode(errors='replace')[-2000:]}")
    return p.returncode, hashlib.sha256(p.stdout).hexdigest(), \
        p.stdout.splitlines() if jsonl else None


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    set_name = sys.argv[1] if len(sys.argv) == 4 else "big"
    stage, fmt = sys.argv[-2:]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, f"{stage}-{fmt}.vmcore")
    if not os.path.exists(dump):
        raise SystemExit(f"FAIL no {dump}: run tests/vmcores/make-fixtures.sh {set_name}")
    want_sbs, want = read_truth(os.path.join(d, f"{stage}-truth.txt"))
    c = Checker()

    rc1, h1, lines = sweep(vmlinux, dump, 1, True)
    sbs, seen = [], {}
    for raw in lines:
        x = json.loads(raw)
        if "superblock" in x:
            sbs.append(x)
        elif "address" in x:
            if x["address"] in want:
                seen[x["address"]] = (x["ino"], x["mode"], x["nlink"], x["size"])
            else:
                seen.setdefault("extra", []).append(x["address"])
    del lines
    c.eq("superblocks in list order", [s["superblock"] for s in sbs],
         ["0x" + s["addr"] for s in want_sbs])
    for got, w in zip(sbs, want_sbs):
        c.eq(f"inodes on {w['addr']} ({w['fs']} {w['id']})", got["inodes"], int(w["inodes"]))
        c.eq(f"walk of {w['addr']} complete", got["error"], None)
    total = sum(int(s["inodes"]) for s in want_sbs)
    c.ok(f"{stage}: at least {'200000' if stage == 'big' else '15000'} inodes",
         total >= (200000 if stage == "big" else 15000), f"drgn walked {total}")
    c.eq("no inode drgn did not walk", seen.get("extra"), None)
    missing = [a for a in want if a not in seen]
    c.eq("every truth inode swept (missing)", missing[:5], [])
    bad = []
    for a, w in want.items():
        got = seen.get(a)
        if got and got != (int(w["ino"]), int(w["mode"], 8), int(w["nlink"]), int(w["size"])):
            bad.append((a, got, w))
    c.eq("ino, mode, nlink, size as drgn read them (first differences)", bad[:3], [])
    c.eq("exit code: no violation on a healthy kernel", rc1, 0)

    rc2, h2, _ = sweep(vmlinux, dump, 2, True)
    c.eq("JSONL: --threads 2 writes --threads 1's bytes", h2, h1)
    c.eq("JSONL: --threads 2 exit code", rc2, rc1)
    t1 = sweep(vmlinux, dump, 1, False)
    t2 = sweep(vmlinux, dump, 2, False)
    c.eq("text: --threads 2 writes --threads 1's bytes", t2[1], t1[1])
    c.finish()


if __name__ == "__main__":
    main()
