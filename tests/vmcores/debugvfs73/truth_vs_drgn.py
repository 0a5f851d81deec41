#!/usr/bin/python3
"""The debugvfs73 kernel's own truth lines agree with drgn's on the dump.

    truth_vs_drgn.py TRUTH DRGN_TRUTH

TRUTH: the trigger module's lines (printed before the panic); DRGN_TRUTH:
drgn_truth73.py (drgn 0.3.0) on a dump taken after it, one line per role
with a path. Every key both lines hold must be equal. Prints a line per
disagreement; exits 1 on any, or when a role of DRGN_TRUTH has no kernel
line, or when DRGN_TRUTH is empty.
"""
import sys


def lines(path):
    out = {}
    for line in open(path):
        kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
        if kv:
            out[kv["role"]] = kv
    return out


def main():
    kernel, drgn = lines(sys.argv[1]), lines(sys.argv[2])
    bad = n = 0
    if not drgn:
        print("truth_vs_drgn: no drgn truth line")
        sys.exit(1)
    for role, d in sorted(drgn.items()):
        k = kernel.get(role)
        if k is None:
            print(f"truth_vs_drgn: {role}: no kernel truth line")
            bad += 1
            continue
        for key in sorted(set(k) & set(d)):
            n += 1
            if k[key] != d[key]:
                print(f"truth_vs_drgn: {role} {key}: kernel {k[key]}, drgn {d[key]}")
                bad += 1
    print(f"truth_vs_drgn: {len(drgn)} roles, {n} values compared, {bad} disagreements")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
