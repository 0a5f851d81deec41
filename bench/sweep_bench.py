# SPDX-License-Identifier: LGPL-2.1-or-later
"""The sweep at scale (issue 18): vmcore-inode --sweep against drgn's bare
walk of the same lists and a bare-read floor, on the big fixture set.

    bench/run.sh --sweep-scale [--runs N]      (after the rest of the report)
    bench/run.sh --sweep-only [--runs N] [--set big|big73] [--stages S,..]
                 [--formats F,..] [--baseline PATH]   (this section alone)

A module of bench.py (which calls main() here); it has no entry point of
its own. What both use is in common.py.

For each stage of a big set (`--set big`: the stock 6.12 kernel, the
default; `--set big73`: the stock 7.3 kernel, which drgn 0.0.22 cannot read,
so its rows have drgn 0.3.0 only) (small: ~20 k inodes, big: >= 200 k) and each
dump format (-d 17 zlib, lzo, zstd; QEMU's paging ELF), in one alternation:

- ours, text:   vmcore-inode --sweep (stdout to a file), --threads 1 and 2
- ours, JSONL:  --sweep --jsonl to a file, --threads 1 and 2
- ours, pipe:   --sweep --jsonl | python3 reading and json.loads()ing
                every line (the consumer's CPU is in the CPU column)
- drgn 0.0.22 (host) and drgn 0.3.0 (sid chroot): drgn_bench.py sweep,
  list_for_each_entry over super_blocks and each s_inodes reading i_mode
  and i_ino
- floor: bench/floor_probe.c, libkdumpfile alone on the same walk (three
  kdump_read() calls an inode: the next pointer, i_mode, i_ino), offsets
  and the super_blocks address from drgn
- our floor: the same probe built with -DFLOOR_OURS (build-bench/floor_ours):
  the same three reads through inodedump's own reader (lib/target), none of
  the decode, checks or output

Every ours/drgn/floor warm-up run's inode count must agree, or the row says
DIFFER. Prints Markdown on stdout.
"""
import argparse
import os
import shlex
import subprocess

import common
from common import HERE, PY, ROOT
import sid_drgn  # noqa: E402 - common put tests/ on the path

STAGES = ("small", "big")
FORMATS = ("d17-zlib", "d17-lzo", "d17-zstd", "elf")
CONSUMER = ("import json, sys\n"
            "n = 0\n"
            "for line in sys.stdin:\n"
            "    json.loads(line)\n"
            "    n += 1\n"
            "print('lines=%d' % n)\n")


def drgn_chroot():
    """The sid chroot with drgn 0.3.0: the stock73 set's, else any complete
    one in the cache that has drgn."""
    d, _ = common.fixture_set("stock73")
    if d and sid_drgn.chroot_of(d):
        c = sid_drgn.chroot_of(d)
        if os.path.exists(os.path.join(c, ".complete")):
            return c
    cache = os.environ.get("INODEDUMP_CACHE", os.path.expanduser("~/.cache/inodedump"))
    for name in sorted(os.listdir(cache)):
        c = os.path.join(cache, name)
        if name.startswith("sid-chroot-") and os.path.exists(os.path.join(c, ".complete")) \
                and os.path.exists(os.path.join(c, "drgn-version")):
            return c
    return None


def floor_binary():
    out = os.path.join(ROOT, "build-bench", "floor_probe")
    src = os.path.join(HERE, "floor_probe.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libkdumpfile"],
                               check=True, stdout=subprocess.PIPE).stdout.decode().split()
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, src] + flags,
                       check=True)
    return out


def floor_ours_binary(vmci):
    """build-bench/floor_ours (meson builds it next to vmcore-inode)."""
    out = os.path.join(os.path.dirname(vmci), "floor_ours")
    return out if os.path.exists(out) else None


def floor_args(setdir, vmlinux, dump, chroot=None):
    """super_blocks' address and the offsets, from drgn on this dump of
    setdir (the sid chroot's when given: 0.0.22 cannot read 7.3)."""
    code = ("import drgn, sys\n"
            "p = drgn.Program(); p.set_core_dump(sys.argv[1]); p.load_debug_info([sys.argv[2]])\n"
            "sb, ino = p.type('struct super_block'), p.type('struct inode')\n"
            "print('%x' % p['super_blocks'].address_, drgn.offsetof(sb, 's_list'),\n"
            "      drgn.offsetof(sb, 's_inodes'), drgn.offsetof(ino, 'i_sb_list'),\n"
            "      drgn.offsetof(ino, 'i_mode'), drgn.offsetof(ino, 'i_ino'))\n")
    if chroot:
        cmd = common.in_sid(chroot, setdir, [
            "/usr/bin/python3", "-c", code, "/fx/" + os.path.basename(dump),
            "/fx/" + os.path.basename(vmlinux)])
    else:
        cmd = [PY, "-c", code, dump, vmlinux]
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout.decode().split()


def count(name, out):
    """Inodes a warm-up run saw, from its output."""
    lines = out.splitlines()
    if name.startswith("ours jsonl file"):
        return sum(1 for l in lines if l.startswith('{"address"'))
    if name.startswith("ours text"):
        for l in lines:
            if l.endswith("superblock walks cut short"):
                return int(l.split()[0])
        return None
    if name.startswith("ours pipe"):
        return None  # the consumer counts lines (inodes + superblocks + 1)
    for l in reversed(lines):
        if l.startswith("total="):
            return int(l.split("=")[1])
    return None


def ns(s, n):
    return "%.0f" % (s / n * 1e9)


def main(argv=None, vmci=None, runs=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--vmcore-inode", default=vmci or os.path.join(ROOT, "build-bench", "vmcore-inode"))
    ap.add_argument("--runs", type=int, default=runs or 3)
    ap.add_argument("--set", default="big", choices=("big", "big73"))
    ap.add_argument("--stages", default=",".join(STAGES))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--baseline", help="also time this vmcore-inode (e.g. main's "
                    "build): text and JSONL to a file, one thread, in the same "
                    "alternation (rows '..., baseline')")
    args = ap.parse_args(argv)
    vmci = os.path.abspath(args.vmcore_inode)
    setdir, why = common.fixture_set(args.set)
    if not setdir:
        print("**Sweep at scale (%s) not measured**: %s." % (args.set, why))
        return
    vml = os.path.join(setdir, "vmlinux")
    chroot = drgn_chroot()
    old_drgn = args.set == "big"   # drgn 0.0.22 reads 6.12, not 7.3
    if not old_drgn and not chroot:
        print("**Sweep at scale (%s) not measured**: no sid chroot with drgn 0.3.0 "
              "(make-fixtures.sh big73 makes it)." % args.set)
        return
    floor = floor_binary()
    floor_ours = floor_ours_binary(vmci)
    rows = []
    for stage in args.stages.split(","):
        for fmt in args.formats.split(","):
            dump = os.path.join(setdir, "%s-%s.vmcore" % (stage, fmt))
            if not os.path.exists(dump):
                rows.append((stage, fmt, None, "no %s" % os.path.basename(dump)))
                continue
            ours = [vmci, "-k", vml, "--sweep"]
            cmds = [
                ("ours text, 1 thread", ours + ["--threads", "1", dump]),
                ("ours text, 2 threads", ours + ["--threads", "2", dump]),
                ("ours jsonl file, 1 thread", ours + ["--jsonl", "--threads", "1", dump]),
                ("ours jsonl file, 2 threads", ours + ["--jsonl", "--threads", "2", dump]),
                ("ours pipe to json.loads, 2 threads",
                 ["sh", "-c", "%s | %s -c %s" % (
                     " ".join(shlex.quote(a) for a in ours + ["--jsonl", "--threads", "2", dump]),
                     PY, shlex.quote(CONSUMER))]),
            ]
            if old_drgn:
                cmds.append(("drgn 0.0.22", [PY, common.DRGN_SCRIPT, "sweep", vml, dump]))
            if args.baseline:
                base = [os.path.abspath(args.baseline), "-k", vml, "--sweep"]
                cmds[4:4] = [
                    ("ours text, 1 thread, baseline", base + ["--threads", "1", dump]),
                    ("ours jsonl file, 1 thread, baseline",
                     base + ["--jsonl", "--threads", "1", dump])]
            if chroot:
                cmds.append(("drgn 0.3.0", common.in_sid(chroot, setdir, [
                    "/usr/bin/python3", "/src/drgn_bench.py", "sweep", "/fx/vmlinux",
                    "/fx/" + os.path.basename(dump)])))
            fargs = floor_args(setdir, vml, dump, None if old_drgn else chroot)
            cmds.append(("floor (libkdumpfile, 3 reads an inode)",
                         [floor, dump] + fargs))
            if floor_ours:
                cmds.append(("our floor (our reader, 3 reads an inode)",
                             [floor_ours, dump] + fargs))
            common.log("sweep at scale: %s %s (%d commands, %d runs)" % (
                stage, fmt, len(cmds), args.runs))
            st, warm = common.measure(cmds, args.runs, (0, 1))
            counts = {name: count(name, warm[name].out) for name, _ in cmds}
            rows.append((stage, fmt, (cmds, st, counts), None))
    report(rows, args.set, setdir, chroot, args.runs)


def report(rows, set_name, setdir, chroot, runs):
    print("### Sweep at scale (issue 18): %s set, every check on every inode" % set_name)
    print()
    print("Set `%s`: the stock %s kernel, 1 GiB guest, tree on tmpfs and ext4 "
          "(tests/vmcores/recipes/big.sh); `small-*` dumps at ~20 k inodes, `big-*` at "
          ">= 200 k. drgn 0.3.0: `%s`. Median of %d runs after a warm-up, all "
          "commands of a dump alternating; CPU = user + system of the whole "
          "command (a pipe: both ends). ns/inode and inodes/s from the wall "
          "median, start-up included. Ratios: the other's wall / ours." % (
              setdir, "6.12" if set_name == "big" else "7.3", chroot or "not found", runs))
    print()
    print("| stage | dump | inodes | command | wall, median (min–max) | CPU | peak RSS | inodes/s | ns/inode | × drgn 0.0.22 | × drgn 0.3.0 | ours / floor (the lower) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    goals = []
    for stage, fmt, data, why in rows:
        if not data:
            print("| %s | %s | | %s | | | | | | | | |" % (stage, fmt, why))
            continue
        cmds, st, counts = data
        truth = counts.get("drgn 0.0.22") or counts.get("drgn 0.3.0")
        n = truth or 1
        d22 = st.get("drgn 0.0.22")
        d30 = st.get("drgn 0.3.0")
        # the floor the goal names: the cheaper of the two readers
        fl = [v for k, v in st.items() if "floor" in k]
        fl.sort(key=lambda v: v.median)
        fl = fl[0] if fl else None
        for name, _ in cmds:
            s = st[name]
            c = counts.get(name)
            agree = "" if c is None or c == truth else " **DIFFER: %s inodes**" % c
            ours = name.startswith("ours")
            print("| %s | %s | %s | %s%s | %s (%s–%s) | %s | %s | %.0f | %s | %s | %s | %s |" % (
                stage, fmt, truth, name, agree, common.ms(s.median), common.ms(s.min),
                common.ms(s.max), common.ms(s.cpu), common.mb(s.rss_kb), n / s.median,
                ns(s.median, n),
                "%.2f×" % (d22.median / s.median) if d22 and ours else "",
                "%.2f×" % (d30.median / s.median) if d30 and ours else "",
                "%.2f" % (s.median / fl.median) if fl and ours else ""))
        fastest = min(x.median for x in (d22, d30) if x)
        for name in ("ours text, 2 threads", "ours jsonl file, 2 threads",
                     "ours pipe to json.loads, 2 threads"):
            goals.append((stage, fmt, name, fastest / st[name].median,
                          st[name].median / fl.median if fl else None,
                          st[name].rss_kb, truth))
    print()
    print("Goal: ≥ 10× the faster drgn at both sizes and every format, and "
          "within 3× of the floor:")
    print()
    print("| stage | dump | command | × the faster drgn | ≥ 10×? | ours / floor (the lower) | ≤ 3×? | peak RSS |")
    print("|---|---|---|---|---|---|---|---|")
    for stage, fmt, name, ratio, fl, rss, _ in goals:
        print("| %s | %s | %s | %.2f× | %s | %s | %s | %s |" % (
            stage, fmt, name, ratio, "met" if ratio >= 10 else "**missed**",
            "%.2f" % fl if fl else "?", "met" if fl and fl <= 3 else "**missed**",
            common.mb(rss)))
    print()

