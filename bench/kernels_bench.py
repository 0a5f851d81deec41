#!/usr/bin/python3
"""Issue 40, item 3: one inode, every feature on (slab, namespaces,
filesystem rows: the default decode), on each kernel the issue names,
beside drgn on the same dump in the same alternation.

  /usr/bin/python3 bench/kernels_bench.py [--runs N] [--vmcore-inode PATH]
                                          [--only SET,SET]

Per kernel three commands alternate (measure(): a warm-up each, then N
rounds): ours warm (the per-kernel cache of an earlier run: what a second
look at a dump costs), ours cold (a new empty cache directory every run,
made by a shell that then execs vmcore-inode: what the first look at a
kernel costs, with writing the cache), and drgn (0.0.22 on the host;
0.3.0 in the sid chroot for kernels 0.0.22 cannot read, 7.x; the chroot's
entry is part of its time and said). Goals: warm >= 100x drgn's wall and
<= 1/20 of its peak RSS; cold >= 30x its wall (judged on the wall; the
CPU ratios beside them say what load did to it). A Markdown table on stdout.
"""
import argparse
import os
import sys

from common import (DRGN_SCRIPT, PY, ROOT, Cmd, fixture_set, in_sid, log, mb,
                    truth_addr,
                    measure, ms, sid_chroot)

# (kernel, set, our dump, drgn's dump, drgn: "host" or "sid")
KERNELS = (
    ("x86-64 5.10", "old510", "d17-zlib.vmcore", "d17-zlib.vmcore", "host"),
    ("x86-64 6.12", "stock", "d17-zlib.vmcore", "d17-zlib.vmcore", "host"),
    ("x86-64 7.3", "stock73", "d17-zlib.vmcore", "d17-zlib.vmcore", "sid"),
    ("arm64 5.10", "arm64-510", "d17-zlib.vmcore", "d17-zlib.vmcore", "host"),
    ("arm64 6.1", "arm64-61", "d17-zlib.vmcore", "d17-zlib.vmcore", "host"),
    ("arm64 6.12", "arm64", "elf-nopaging.vmcore", "elf-nopaging.vmcore", "host"),
    ("arm64 7.3", "arm64-73", "elf-nopaging.vmcore", "elf-nopaging.vmcore", "sid"),
    ("ppc64le 6.1", "ppc64le", "d17-zlib.vmcore", "d17-zlib.vmcore", "host"),
)

GOAL_WARM, GOAL_RSS, GOAL_COLD = 100.0, 20.0, 30.0


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--vmcore-inode",
                    default=os.path.join(ROOT, "build-bench", "vmcore-inode"))
    ap.add_argument("--only", help="these sets (comma-separated)")
    args = ap.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    vmci = os.path.abspath(args.vmcore_inode)
    if not os.access(vmci, os.X_OK):
        sys.exit("kernels_bench: no binary %s (meson setup build-bench "
                 "--buildtype=release && ninja -C build-bench)" % vmci)
    warm_cache = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                              "inodedump-kernels-bench-cache")
    os.makedirs(warm_cache, exist_ok=True)
    rows, notes = [], []
    load = os.getloadavg()
    for kernel, setname, dump, drgn_dump, where in KERNELS:
        if only and setname not in only:
            continue
        setdir, why = fixture_set(setname)
        if not setdir:
            notes.append("**%s not measured**: %s." % (kernel, why))
            continue
        addr = truth_addr(setdir, "symlink_short")["addr"]
        vml = os.path.join(setdir, "vmlinux")
        ours = [vmci, "-k", vml, os.path.join(setdir, dump), addr]
        # The environment is the harness's (common.Cmd), set before the
        # clock starts: no env(1), sh or mktemp process is timed with ours.
        warm = Cmd(ours, {"XDG_CACHE_HOME": warm_cache})
        cold = Cmd(ours, fresh_cache=True)  # a new empty cache every run
        kdf = {"DRGN_USE_LIBKDUMPFILE_FOR_ELF": "1"}
        if where == "sid":
            chroot = sid_chroot("python3-drgn")
            if not chroot:
                notes.append("**%s not measured**: no sid chroot with drgn "
                             "0.3.0 (make-fixtures.sh stock73)." % kernel)
                continue
            drgn_name = "drgn 0.3.0 (sid chroot)"
            drgn = in_sid(chroot, setdir, ["env", "DRGN_USE_LIBKDUMPFILE_FOR_ELF=1",
                                           "/usr/bin/python3", "/src/drgn_bench.py",
                                           "inode", "/fx/vmlinux", "/fx/" + drgn_dump,
                                           addr])
        else:
            drgn_name = "drgn 0.0.22"
            drgn = Cmd([PY, DRGN_SCRIPT, "inode", vml,
                        os.path.join(setdir, drgn_dump), addr], kdf)
        log("kernels: %s (%s %s, %s)" % (kernel, setname, dump, addr))
        try:
            st, first = measure([("warm", warm), ("cold", cold), ("drgn", drgn)],
                                args.runs, (0, 1))
        except RuntimeError as e:
            notes.append("**%s not measured**: %s" % (kernel, str(e).splitlines()[0]))
            continue
        same = first["warm"].out == first["cold"].out
        w, c, d = st["warm"], st["cold"], st["drgn"]
        rows.append((kernel, setname, dump, addr, w, c, d, drgn_name, same))
    out = ["| kernel | set, dump | ours warm: wall (CPU), peak RSS | ours cold: wall (CPU), peak RSS "
           "| drgn: wall (CPU), peak RSS | warm: wall ratio (CPU), RSS ratio "
           "| cold: wall ratio (CPU) | goals (warm 100×, 1/20 RSS; cold 30×) |",
           "|---|---|---|---|---|---|---|---|"]
    for kernel, setname, dump, addr, w, c, d, name, same in rows:
        rw, rr, rc = d.median / w.median, d.rss_kb / w.rss_kb, d.median / c.median
        cw = d.cpu / w.cpu if w.cpu else float("inf")
        cc = d.cpu / c.cpu if c.cpu else float("inf")
        met = [("warm wall", rw >= GOAL_WARM), ("RSS", rr >= GOAL_RSS),
               ("cold wall", rc >= GOAL_COLD)]
        verdict = ("met" if all(ok for _, ok in met) else
                   "missed: " + ", ".join(n for n, ok in met if not ok))
        out.append("| %s | %s `%s` `%s` | %s (%s), %s | %s (%s), %s | %s: %s (%s), %s "
                   "| **%.0f×** (%.0f×), **1/%.0f** | **%.0f×** (%.0f×) | %s%s |" % (
                       kernel, setname, dump, addr, ms(w.median), ms(w.cpu), mb(w.rss_kb),
                       ms(c.median), ms(c.cpu), mb(c.rss_kb), name, ms(d.median),
                       ms(d.cpu), mb(d.rss_kb), rw, cw, rr, rc, cc, verdict,
                       "" if same else "; **warm and cold outputs differ**"))
    print("\n".join(out))
    print()
    print("- %d runs each after a warm-up, alternating; load average before: "
          "%.1f %.1f %.1f." % ((args.runs,) + load))
    for n in notes:
        print("- " + n)


if __name__ == "__main__":
    main()
