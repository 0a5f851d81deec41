#!/usr/bin/python3
"""--live inside an arm64 (or s390x) guest reads the running kernel as
drgn read its dump a moment before.

The arm64-live set (tests/vmcores/recipes/arm64-live.sh; README.md "The
arm64 sets"): this tree's vmcore-inode, cross-built for arm64, runs in the
arm64 6.12 guest with no vmlinux (/proc/kcore, the running kernel's BTF
and kallsyms). At the ready marker the host dumped the guest, drgn read
truth.txt from that dump (checked against the guest's own stat lines),
and the guest ran, framed on its console (serial.log):
  decode   vmcore-inode --live --json ADDR...   (the truth's addresses)
  sweep    vmcore-inode --live --sweep --jsonl
Checked: both exit 0 and say where types come from; every truth inode's
members, paths, operations and checks (test_truth.compare); the sweep
holds every truth inode with its fields, and on the fixture's tmpfs and
ext4 (idle between the dump and the runs) as many inodes as drgn counted
in the dump.

The s390x-live set (recipes/s390x-live.sh; README.md "The s390x sets"):
the same in Debian's s390x 7.2 guest (big-endian, tmpfs only), drgn's
counts in sweep-counts.txt; its guest also ran
  info     vmcore-inode --live --info
which must say our reader read the big-endian /proc/kcore (no
libkdumpfile) and the kernel's release.

usage: test_arm64_live.py [SET]      (default arm64-live)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, expected_violations, read_truth, set_dir  # noqa: E402
import schema_check  # noqa: E402
import test_arm64  # noqa: E402
import test_s390x  # noqa: E402
import test_truth  # noqa: E402

FRAME = re.compile(r"^inodedump-live-begin name=(\S+)\n(.*?)\n"
                   r"inodedump-live-stderr name=\1\n(.*?)\n"
                   r"inodedump-live-end name=\1 rc=(\d+)$", re.M | re.S)


def runs_of(serial):
    text = open(serial, "rb").read().decode(errors="replace").replace("\r", "")
    return {m[1]: {"out": m[2], "err": m[3], "rc": int(m[4])}
            for m in FRAME.finditer(text)}


def main():
    set_name = sys.argv[1] if len(sys.argv) > 1 else "arm64-live"
    d = set_dir(set_name)
    truth = read_truth(os.path.join(d, "truth.txt"))
    runs = runs_of(os.path.join(d, "serial.log"))
    c = Checker()
    if set_name == "s390x-live":
        r = runs.get("info")
        c.ok("info: a framed run in serial.log", r is not None)
        if r:
            c.eq("info: exit code", r["rc"], 0)
            c.ok("info: /proc/kcore read by our reader",
                 "read by            inodedump" in r["out"] and
                 "translated by      /proc/kcore's program headers"
                 in r["out"], r["out"][:600])
            c.ok("info: the running kernel's release",
                 "release            " +
                 test_s390x.info(d)["release"] in r["out"], r["out"][:800])
            c.ok("info: nothing left to libkdumpfile",
                 "libkdumpfile" not in r["out"] + r["err"], r["err"][-400:])
    for name in ("decode", "sweep"):
        r = runs.get(name)
        c.ok(f"{name}: a framed run in serial.log", r is not None)
        if not r:
            continue
        c.eq(f"{name}: exit code", r["rc"], 0)
        c.ok(f"{name}: says where types come from",
             "no vmlinux: types from the dump's BTF" in r["err"], r["err"][-400:])
    r = runs.get("decode")
    if r:
        try:
            doc = schema_check.check_text(r["out"], "decode_document", "decode")
        except schema_check.SchemaFailure as e:
            c.ok("decode: JSON, as the schema says", False, str(e)[:1000])
            doc = {}
        inodes = doc.get("inodes", [])
        c.eq("decode: one result per address", len(inodes), len(truth))
        test_truth.compare(c, f"{set_name}/live", truth, inodes)
    r = runs.get("sweep")
    if r:
        try:
            lines = schema_check.check_lines(r["out"], "sweep_line", "sweep")
        except schema_check.SchemaFailure as e:
            c.ok("sweep: JSON lines, as the schema says", False, str(e)[:1000])
            lines = []
        sbs = {x["superblock"]: x for x in lines if "superblock" in x}
        got = {x["address"]: x for x in lines if "address" in x}
        # drgn's counts: in the set (s390x-live), or drgn run now
        if os.path.isfile(os.path.join(d, "sweep-counts.txt")):
            want = test_s390x.drgn_counts(d)
        else:
            want = test_arm64.drgn_counts(d, "elf-nopaging")
        # the fixture's own filesystems: the truth inodes' superblocks
        for sb in sorted({"0x" + t["sb"] for t in truth}):
            c.ok(f"sweep: superblock {sb} walked", sb in sbs)
            c.eq(f"sweep: inodes on {sb} ({sbs.get(sb, {}).get('fs_type')}) "
                 "as drgn counted in the dump", sbs.get(sb, {}).get("inodes"),
                 want.get(hex(int(sb, 16))))
            c.eq(f"sweep: walk of {sb} complete", sbs.get(sb, {}).get("error"), None)
        c.eq("sweep: the dump's superblocks are all there",
             sorted(set(want) - set(sbs)), [])
        for t in truth:
            x = got.get("0x" + t["addr"])
            c.ok(f"sweep: {t['role']} swept", x is not None)
            if x:
                for key, base in (("ino", 10), ("mode", 8), ("opflags", 16),
                                  ("nlink", 10), ("size", 10)):
                    c.eq(f"sweep: {t['role']} {key}", x[key],
                         int(t[key].removeprefix("0x"), base))
        bad = sorted(a for a, x in got.items() if x["violations"])
        c.eq("sweep: violations are the victims'", bad,
             sorted("0x" + t["addr"] for t in truth
                    if expected_violations(t["role"])))
        c.eq("sweep: summary object", sum(1 for x in lines if "summary" in x), 1)
    c.finish()


if __name__ == "__main__":
    main()
