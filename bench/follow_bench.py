#!/usr/bin/python3
"""Follow latency: `vmcore-inode --live --follow` in the follow73 guest
(the debugvfs73 7.3 kernel, TCG), imported by bench.py (`--follow`).

Each run boots the guest afresh (tests/vmcores/make-fixtures.sh follow73
BINARY, the set's cached copy removed first: one boot a run) and reads what
the guest measured with the kernel's own clocks (tests/vmcores/README.md,
"The follow73 set"):
- report-to-output latency: the report's kmsg record (its timestamp, the
  moment dump_inode() printed it) to followstamp's kmsg mark written right
  after the decoded JSON line reached it through a pipe, both stamped by
  the kernel's printk clock;
- what the follower spent on each report (INODEDUMP_FOLLOW_TIMES: dropping
  the pages read before, and the decode);
- the one-shot ways a user without --follow has, timed in the same guest
  right after: `vmcore-inode --live ADDRESS` (session open + one decode),
  `--live --info` (the session alone), and drgn 0.3.0 started on
  /proc/kcore decoding that one inode (tests/vmcores/drgn_one_inode.py).
drgn has no follow mode: the ratio is drgn's one-shot time over the
follower's latency for a report. The trigger fires its 7 reports within
~70 ms, so a later report's latency includes the decodes of the ones before
it (the follower is one thread): the first report's is the latency of a
report alone, the median over all 7 that of a burst.

usage: follow_bench.py [--vmcore-inode PATH] [--runs N]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess

from common import ROOT, log

MAKE = os.path.join(ROOT, "tests", "vmcores", "make-fixtures.sh")


def boot(vmci):
    """One fresh boot of the follow73 guest: its set directory (a copy the
    cache holds for this binary is removed first: every run boots)."""
    key = subprocess.run(["bash", MAKE, "key", "follow73"], capture_output=True,
                         text=True, env=dict(os.environ, VMCORE_INODE=vmci))
    for line in key.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "follow73" and os.path.isdir(f[3]):
            shutil.rmtree(f[3])
    p = subprocess.run(["bash", MAKE, "follow73", vmci], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("make-fixtures.sh follow73: exit %d: %s" % (
            p.returncode, p.stderr[-1500:]))
    return p.stdout.strip().splitlines()[-1]


def timed(console):
    """followstamp's timings of the guest's one-shot runs: {name without its
    run number: [ms, ...]}, those that exited 0 or 1."""
    times = {}
    for m in re.finditer(r"^inodedump-time: name=(\S+?)(?:-\d+)? ms=([0-9.]+) rc=(\d+)$",
                         console, re.M):
        if m[3] in ("0", "1"):
            times.setdefault(m[1], []).append(float(m[2]))
    return times


def read_run(d):
    """What one boot measured."""
    console = open(os.path.join(d, "console.txt"), errors="replace").read()
    objs = [json.loads(line) for line in open(os.path.join(d, "follow.jsonl"), "rb")]
    marks = {int(m[2]): int(m[1]) for m in re.finditer(
        r"^inodedump-follow-mark: usec=(\d+) seq=(\d+)$", console, re.M)}
    lat = [(marks[x["seq"]] - x["timestamp_ns"] // 1000) / 1000.0
           for x in objs if x["seq"] in marks]
    dec = [(float(m[1]), float(m[2])) for m in re.finditer(
        r"^inodedump-follow-err: vmcore-inode: inode 0x[0-9a-f]+: forget ([0-9.]+) ms, "
        r"decode ([0-9.]+) ms$", console, re.M)]
    return {"lat": lat, "dec": dec, "times": timed(console), "reports": len(objs),
            "lost": re.search(r"(\d+) kernel log records lost", console)}


def med(v):
    return statistics.median(v) if v else float("nan")


def boots(argv, vmci, runs, what, read):
    """The arguments (--vmcore-inode, --runs), then that many fresh boots of
    the follow73 guest, each read by read(set_dir): (binary, [run, ...])."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--vmcore-inode", default=vmci or os.path.join(ROOT, "build", "vmcore-inode"))
    ap.add_argument("--runs", type=int, default=runs or 3)
    args = ap.parse_args(argv)
    vmci = os.path.abspath(args.vmcore_inode)
    rs = []
    for i in range(args.runs):
        log("follow73 guest (%s), boot %d of %d" % (what, i + 1, args.runs))
        try:
            rs.append(read(boot(vmci)))
        except (RuntimeError, OSError, ValueError) as e:
            print("**%s: boot %d failed**: %s" % (what, i + 1, e))
    return vmci, rs


def main(argv=None, vmci=None, runs=None):
    vmci, rs = boots(argv, vmci, runs, "Follow latency", read_run)
    if not rs:
        return
    first = [r["lat"][0] for r in rs if r["lat"]]
    every = [v for r in rs for v in r["lat"]]
    dec_first = [r["dec"][0][1] for r in rs if r["dec"]]
    dec_rest = [d for r in rs for _, d in r["dec"][1:]]
    forget = [f for r in rs for f, _ in r["dec"]]
    one = {k: [v for r in rs for v in r["times"].get(k, [])]
           for k in ("vmcore-inode-live", "vmcore-inode-live-info", "drgn-kcore")}
    print("### Follow latency (issue 32): the follow73 guest, %d boot%s" % (
        len(rs), "" if len(rs) == 1 else "s"))
    print()
    print("`vmcore-inode --live --follow --jsonl` (%s) in a guest of the debugvfs73 "
          "kernel (7.3, CONFIG_DEBUG_VFS; QEMU TCG, 2 vCPUs, no KVM: every figure is "
          "the emulated machine's, many times a real one's), %d reports a boot, "
          "the log overrun before them (%s records lost a boot). Milliseconds, "
          "median (min–max) over the boots; the guest's clocks tick in 4 ms." % (
              vmci, rs[0]["reports"],
              "/".join(r["lost"][1] if r["lost"] else "?" for r in rs)))
    print()

    def fmt(v):
        return "%.0f (%.0f–%.0f)" % (med(v), min(v), max(v)) if v else "—"
    print("| what | ms |")
    print("|---|---|")
    print("| report to output, the first report (alone) | %s |" % fmt(first))
    print("| report to output, all reports (a burst of %d within ~70 ms: each waits for "
          "the decodes before it) | %s |" % (rs[0]["reports"], fmt(every)))
    print("| the follower's decode, first report (types prepared before the ready line) "
          "| %s |" % fmt(dec_first))
    print("| the follower's decode, later reports | %s |" % fmt(dec_rest))
    print("| dropping what was read before (`inodedump_forget()`: the pages of "
          "/proc/kcore our reader kept) | %s |" % fmt(forget))
    print("| one-shot `vmcore-inode --live ADDRESS` (start, open, decode) | %s |"
          % fmt(one["vmcore-inode-live"]))
    print("| one-shot `vmcore-inode --live --info` (start, open) | %s |"
          % fmt(one["vmcore-inode-live-info"]))
    print("| one-shot drgn 0.3.0 on /proc/kcore, that inode (start, load vmlinux, "
          "decode) | %s |" % fmt(one["drgn-kcore"]))
    print()
    if first and one["drgn-kcore"]:
        print("**Ratio**: drgn's one-shot decode of the reported inode takes **%.0f×** "
              "the follower's report-to-output latency for a report alone (%.0f ms / "
              "%.0f ms), %.0f× its median latency over a burst; `vmcore-inode --live "
              "ADDRESS` one-shot takes %.0f× (most of it is opening the session, which "
              "--follow does once)." % (
                  med(one["drgn-kcore"]) / med(first), med(one["drgn-kcore"]), med(first),
                  med(one["drgn-kcore"]) / med(every),
                  med(one["vmcore-inode-live"]) / med(first)))
        print()


if __name__ == "__main__":
    main()
