#!/usr/bin/python3
"""The guest's own stat(1) of every truth path agrees with the truth line.

    stat_vs_truth.py SERIAL_LOG TRUTH

A truth made by a host-side reader (drgn) is checked against what the guest
saw from userspace (`inodedump-stat:` lines, busybox stat -c, no symlink
following): ino, mode, nlink, size, uid, gid and rdev. Prints a line per
disagreement and exits 1 on any; exits 1 too if a truth path has no stat line.
"""
import sys


def kv(line):
    return dict(t.split("=", 1) for t in line.split() if "=" in t)


def main():
    serial, truth = sys.argv[1], sys.argv[2]
    stats = {}
    for line in open(serial, errors="replace"):
        i = line.find("inodedump-stat: ")
        if i >= 0:
            s = kv(line[i + len("inodedump-stat: "):].strip())
            stats[s["path"]] = s
    bad = n = 0
    for line in open(truth):
        t = kv(line.strip())
        s = stats.get(t["path"])
        if s is None:
            print(f"{t['role']}: no inodedump-stat line for {t['path']}")
            bad += 1
            continue
        maj, mnr = (int(x, 16) for x in s["rdev"].split(":"))
        want = {"ino": t["ino"], "mode": int(t["mode"], 8), "nlink": t["nlink"],
                "size": t["size"], "uid": t["uid"], "gid": t["gid"],
                "rdev": t["rdev"]}
        got = {"ino": s["ino"], "mode": int(s["rawmode"], 16), "nlink": s["nlink"],
               "size": s["size"], "uid": s["uid"], "gid": s["gid"],
               "rdev": f"{maj}:{mnr}"}
        for k in want:
            n += 1
            if want[k] != got[k]:
                print(f"{t['role']} {k}: truth {want[k]} but the guest's stat says {got[k]}")
                bad += 1
    print(f"stat_vs_truth: {n - bad} of {n} agree")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
