#!/usr/bin/python3
"""Live sweep (issue 43): `vmcore-inode --live --sweep` through our own
/proc/kcore reader (lib/target/kcore.c) in the follow73 guest (the
debugvfs73 7.3 kernel, QEMU TCG), against the same kernel's dump sweep
and drgn's live s_inodes walk in the same guest, imported by bench.py
(`--live-sweep`).

Each run boots the guest afresh (follow_bench.boot(): make-fixtures.sh
follow73 BINARY, the cached copy removed first). Its /init
(tests/vmcores/follow_init.sh) asks the host for a dump of itself (QMP
dump-guest-memory, kdump-zlib, the VM stopped), reads it from /dev/vda,
and times with CLOCK_MONOTONIC (followstamp time), one after the other:
- `vmcore-inode -k /live/vmlinux --live --sweep --jsonl` (live-sweep);
- `vmcore-inode -k /live/vmlinux --sweep --jsonl DUMP` (dump-sweep): the
  same kernel, the same inodes a moment before, the same binary and
  machine; QEMU's flattened dump put in place on the host (makedumpfile
  -R), every page kept;
- drgn 0.3.0 on /proc/kcore walking super_blocks and every s_inodes list,
  five members of each inode read (tests/vmcores/drgn_sweep_inodes.py;
  drgn-sweep), and drgn's one-shot single inode (drgn-kcore: its start
  and vmlinux load) for the walk alone.

usage: kcore_bench.py [--vmcore-inode PATH] [--runs N]
"""
import os
import re

from follow_bench import boots, med, timed


def read_run(d):
    console = open(os.path.join(d, "console.txt"), errors="replace").read()
    times = timed(console)
    counts = {m[1]: int(m[2]) for m in re.finditer(
        r"^inodedump-bench: (live-sweep|dump-sweep) inodes=(\d+)$", console, re.M)}
    dt = re.search(r"^inodedump-bench: drgn-sweep total superblocks=(\d+) inodes=(\d+)$",
                   console, re.M)
    if dt:
        counts["drgn-sweep"] = int(dt[2])
    size = re.search(r"^inodedump-bench: dump bytes=(\d+)$", console, re.M)
    return {"times": times, "counts": counts, "dump_bytes": int(size[1]) if size else 0}


def main(argv=None, vmci=None, runs=None):
    vmci, rs = boots(argv, vmci, runs, "Live sweep", read_run)
    if not rs:
        return

    def t(k):
        return [v for r in rs for v in r["times"].get(k, [])]

    def fmt(v):
        return "%.0f (%.0f–%.0f)" % (med(v), min(v), max(v)) if v else "—"

    def n(k):
        return "/".join(str(r["counts"].get(k, "?")) for r in rs)
    live, dump, drgn, one = t("live-sweep"), t("dump-sweep"), t("drgn-sweep"), t("drgn-kcore")
    print("### Live sweep (issue 43): the follow73 guest, %d boot%s" % (
        len(rs), "" if len(rs) == 1 else "s"))
    print()
    print("`%s` in a guest of the debugvfs73 kernel (7.3; QEMU TCG, 2 vCPUs, 1024 MiB, "
          "no KVM: every figure is the emulated machine's). Milliseconds, median "
          "(min–max) over the boots, each boot's inode count listed." % vmci)
    print()
    print("| what | ms | inodes |")
    print("|---|---|---|")
    print("| `--live --sweep --jsonl` (/proc/kcore) | %s | %s |"
          % (fmt(live), n("live-sweep")))
    print("| `--sweep --jsonl` of a dump of the guest taken just before (QEMU kdump-zlib, "
          "every page, %.1f MB) | %s | %s |"
          % (med([r["dump_bytes"] for r in rs]) / 1e6, fmt(dump), n("dump-sweep")))
    print("| drgn 0.3.0 on /proc/kcore: s_inodes walk, 5 members an inode (start, load "
          "vmlinux, walk) | %s | %s |" % (fmt(drgn), n("drgn-sweep")))
    print("| drgn 0.3.0 on /proc/kcore: one inode (start, load vmlinux) | %s | 1 |"
          % fmt(one))
    print()
    if live and dump and drgn:
        walk = med(drgn) - med(one) if one else float("nan")
        alone = ("%.1f× counting drgn's walk alone (its one-shot start and vmlinux load "
                 "taken off: %.0f ms)" % (walk / med(live), walk) if walk > 0 else
                 "drgn's walk alone not measurable here (its start and vmlinux load vary "
                 "by more than the walk takes)")
        print("**Ratios**: the live sweep takes **%.2f×** the dump sweep's time (%.0f / "
              "%.0f ms; goal ≤ 3×); drgn's live s_inodes walk takes **%.1f×** the live "
              "sweep's (%.0f / %.0f ms; goal ≥ 10×), %s." % (
                  med(live) / med(dump), med(live), med(dump), med(drgn) / med(live),
                  med(drgn), med(live), alone))
        print()


if __name__ == "__main__":
    main()
