# SPDX-License-Identifier: LGPL-2.1-or-later
"""inodedump benchmark: vmcore-inode against drgn and crash on real vmcores.

Run through bench/run.sh (which builds vmcore-inode first), with
/usr/bin/python3. Prints a Markdown report on stdout; progress on stderr.
See bench/README.md for what is measured and how.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import (CACHE, PY, ROOT, DRGN_SCRIPT, Stats, fixture_set, in_sid, log, mb,
                    truth_addr,
                    measure, ms, run_once, sid_chroot)
import follow_bench
import kcore_bench
import kernels_bench
import sweep_bench

REPORT_RE = re.compile(r"encountered for inode ([0-9a-f]+)")


# ------------------------------------------------------------------ running

def instructions(cmd):
    """Instructions the command executes (callgrind's count): unlike wall
    time, the same on a busy machine as on a quiet one. None without
    valgrind. A leading env(1) with VAR=value words becomes the
    environment (callgrind would count env itself)."""
    if not shutil.which("valgrind"):
        return None
    env = None
    if cmd and cmd[0] == "env":
        env = dict(os.environ)
        cmd = cmd[1:]
        while cmd and "=" in cmd[0] and not cmd[0].startswith("/"):
            k, _, v = cmd[0].partition("=")
            env[k] = v
            cmd = cmd[1:]
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    m = re.search(rb"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else None


# ------------------------------------------------------------------ fixtures

def kept_inode(vmci, setdir, dump, role):
    """The address of a truth inode that vmcore-inode decodes from dump
    with the set's vmlinux: the one of role first, then the others in
    truth.txt's order; one decoded whole (exit 0) before one decoded in
    part (exit 4: a page it follows left out); None when none is. A -d 31
    dump may have left an inode's own page out (exit 3)."""
    addrs = []
    with open(os.path.join(setdir, "truth.txt")) as f:
        for line in f:
            kv = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if "addr" in kv:
                addrs.insert(0, kv["addr"]) if kv.get("role") == role else addrs.append(kv["addr"])
    partial = None
    for a in addrs:
        r = subprocess.run([vmci, "-k", os.path.join(setdir, "vmlinux"),
                            os.path.join(setdir, dump), a],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            return a
        if r.returncode == 4 and not partial:
            partial = a
    return partial


# ------------------------------------------------------------------ checks

def parse_kv(line):
    return dict(p.split("=", 1) for p in line.split() if "=" in p)


def compare_inode(ours_json, drgn_line):
    """Same values from both tools? Returns a short verdict."""
    d = parse_kv(drgn_line)
    o = ours_json
    pairs = {
        "ino": o.get("ino"), "mode": "0%o" % o["mode"] if o.get("mode") is not None else None,
        "opflags": hex(o["opflags"]) if o.get("opflags") is not None else None,
        "flags": hex(o["flags"]) if o.get("flags") is not None else None,
        "state": hex(o["state"]) if o.get("state") is not None else None,
        "count": o.get("count"), "nlink": o.get("nlink"), "size": o.get("size"),
        "uid": o.get("uid"), "gid": o.get("gid"), "s_id": o.get("s_id"),
        "fstype": o.get("fs_type"), "i_op": o.get("i_op"),
        "link": o.get("link") if o.get("link") is not None else "-",
    }
    bad = ["%s: ours %s, drgn %s" % (k, v, d.get(k)) for k, v in pairs.items()
           if str(v) != str(d.get(k))]
    return "same %d fields" % len(pairs) if not bad else "DIFFER: " + "; ".join(bad)


def ours_json(vmci, vmlinux, dump, addrs):
    p = subprocess.run([vmci, "-k", vmlinux, "--json", dump] + addrs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return json.loads(p.stdout)


# ------------------------------------------------------------------ formatting

class Report:
    def __init__(self):
        self.rows = []       # main table
        self.notes = []
        self.crash = []
        self.scaling = []
        self.goal = None
        self.sections = []
        self.baseline = []   # (case, ours Stats, baseline Stats)
        self.btf = []        # (set, label, Stats, instructions, same output?)

    def row(self, case, dump, ours, other_name, other, other_dump, check):
        self.rows.append((case, dump, ours, other_name, other, other_dump, check))


def table(rep):
    out = ["| case | dump | vmcore-inode wall, median (min–max) | CPU | peak RSS | other | its dump | wall, median (min–max) | CPU | peak RSS | speed ratio | RSS ratio | same output? |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case, dump, o, name, t, tdump, check in rep.rows:
        out.append("| %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s (%s–%s) | %s | %s | **%.1f×** | **1/%.1f** | %s |" % (
            case, dump, ms(o.median), ms(o.min), ms(o.max), ms(o.cpu), mb(o.rss_kb), name, tdump,
            ms(t.median), ms(t.min), ms(t.max), ms(t.cpu), mb(t.rss_kb), t.median / o.median,
            t.rss_kb / o.rss_kb, check))
    return "\n".join(out)


# ------------------------------------------------------------------ crash

def run_crash(vmlinux, dump, addr, runs, wrap=lambda cmd: cmd, command=None,
              expect="struct inode {", options=()):
    """crash on the dump; wrap(cmd) runs it elsewhere (a sid chroot);
    command (default "struct inode ADDR") and the text its output holds;
    options: crash's own (--no_modules)."""
    stdin = "%s\nexit\n" % (command or "struct inode %s" % addr)
    crash = ["crash", *options]
    r = run_once(wrap(crash + ["-s", vmlinux, dump]), stdin, timeout=120)
    works = r.rc == 0 and not r.timed_out and expect in r.out
    if works:
        rs = [r] + [run_once(wrap(crash + ["-s", vmlinux, dump]), stdin, timeout=120)
                    for _ in range(runs)]
        st = Stats(rs[1:])
        return "works", st, ""
    err = ""
    lines = [l for l in (r.out + r.err).splitlines() if l.startswith("crash:")]
    if not lines and not r.timed_out:
        # crash -s says nothing on this failure; -d 1 prints the reason.
        r2 = run_once(wrap(crash + ["-s", "-d", "1", vmlinux, dump]), stdin, timeout=120)
        lines = [l for l in (r2.out + r2.err).splitlines()
                 if l.startswith("crash:") and re.search(r"error|invalid|cannot|fail", l, re.I)]
    if r.timed_out:
        err = "timed out after 120 s"
    elif lines:
        err = lines[-1].strip()
    else:
        err = "exit %s, no error line" % r.rc
    return "fails (exit %s)" % r.rc, Stats([r]), err


# ------------------------------------------------------------------ profile

GROUPS = [
    ("open dump: our reader (or libkdumpfile's), VMCOREINFO (idd_target_open)",
     ["idd_target_open"]),
    ("open vmlinux: elf_begin/dwarf_begin, build-id, symtab section (idd_types_open, idd_elf_build_id, idd_symbols_open)",
     ["idd_types_open", "idd_elf_build_id", "idd_symbols_open"]),
    ("vmlinux .symtab linear scans (idd_symbols_name, idd_symbols_address)",
     ["idd_symbols_name", "idd_symbols_address"]),
    ("load types: DWARF lookups in libdw (idd_types_struct*, idd_types_member*, idd_types_enumerator)",
     ["idd_types_struct", "idd_types_struct_in", "idd_types_member",
      "idd_types_pointee_struct", "idd_types_enumerator", "idd_types_member_enum"]),
    ("read memory: page-table walk, page decompression (idd_target_read*)",
     ["idd_target_read", "idd_target_read_string"]),
    ("module symbols from the dump (idd_module_symbol, load_modules, own code only)",
     ["idd_module_symbol", "load_modules"]),
    ("paths: dentry/mount walk (idd_decode_paths, own code only)",
     ["idd_decode_paths", "path_layout"]),
    ("kernel log (inodedump_read_log, report parsing)",
     ["inodedump_read_log", "inodedump_find_reports"]),
    ("format output (inodedump_*_print_*)",
     ["inodedump_inode_print_text", "inodedump_inode_print_json",
      "inodedump_log_print"]),
    ("close: dwarf_end, kdump_free, frees (inodedump_close, inodedump_inode_free)",
     ["inodedump_close", "inodedump_inode_free"]),
    ("rest of decode and CLI (inodedump_decode, main: own code)",
     ["main", "inodedump_decode", "inodedump_open"]),
]


def parse_callgrind(path):
    """Self cost per function and inclusive cost per call edge, from a
    callgrind.out file (name compression handled)."""
    names = {}
    selfc, edges, calls = {}, {}, {}

    def name(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if not m:
            return spec.strip()
        if m.group(2):
            names[m.group(1)] = m.group(2).strip()
        return names.get(m.group(1), spec)

    fn = cfn = None
    pending_call = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                fn = name(line[3:])
                selfc.setdefault(fn, 0)
            elif line.startswith(("cfn=", "cfi=", "cfl=")):
                if line.startswith("cfn="):
                    cfn = name(line[4:])
            elif line.startswith("calls="):
                pending_call = int(line[6:].split()[0])
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call is not None:
                    edges[(fn, cfn)] = edges.get((fn, cfn), 0) + cost
                    calls[(fn, cfn)] = calls.get((fn, cfn), 0) + pending_call
                    pending_call = None
                elif fn is not None:
                    selfc[fn] = selfc.get(fn, 0) + cost
    return selfc, edges, calls


def group_profile(selfc, edges):
    """Attribute every function's self cost to the innermost group on its
    call path; a function reached from several groups is split in
    proportion to the inclusive cost each caller spends in it."""
    group_of = {}
    for gi, (_, fns) in enumerate(GROUPS):
        for f in fns:
            group_of[f] = gi
    nstartup = len(GROUPS)   # before main / after main: ld.so, libc
    incoming = {}
    for (c, f), w in edges.items():
        if c != f:
            incoming.setdefault(f, []).append((c, w))
    funcs = set(selfc) | {f for _, f in edges} | {c for c, _ in edges}
    dist = {f: {nstartup: 1.0} for f in funcs}
    for f in funcs:
        if f in group_of:
            dist[f] = {group_of[f]: 1.0}
    for _ in range(60):
        changed = False
        for f in funcs:
            if f in group_of or f not in incoming:
                continue
            tot = sum(w for _, w in incoming[f])
            if not tot:
                continue
            nd = {}
            for c, w in incoming[f]:
                for g, frac in dist[c].items():
                    nd[g] = nd.get(g, 0.0) + frac * w / tot
            if any(abs(nd.get(g, 0) - dist[f].get(g, 0)) > 1e-9 for g in set(nd) | set(dist[f])):
                dist[f] = nd
                changed = True
        if not changed:
            break
    totals = [0.0] * (len(GROUPS) + 1)
    for f, c in selfc.items():
        for g, frac in dist.get(f, {nstartup: 1.0}).items():
            totals[g] += c * frac
    return totals


def inclusive_costs(selfc, edges):
    inc = dict(selfc)
    for (c, f), w in edges.items():
        if c != f:
            inc[c] = inc.get(c, 0) + w
    return inc


def profile(vmci, vmlinux, dump, addr):
    out = []
    cmd = [vmci, "-k", vmlinux, dump, addr]
    if shutil.which("perf"):
        p = subprocess.run(["perf", "stat", "-x", ",", "-e",
                            "task-clock,page-faults,major-faults,context-switches"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        vals = {}
        for line in p.stderr.decode().splitlines():
            parts = line.split(",")
            if len(parts) > 3:
                vals[parts[2]] = parts[0]
        if vals:
            out.append("`perf stat` (software counters; this VM exposes no hardware "
                       "counters): task-clock %s ms, %s page faults (%s major), "
                       "%s context switches." % (
                           vals.get("task-clock", "?"), vals.get("page-faults", "?"),
                           vals.get("major-faults", "?"), vals.get("context-switches", "?")))
    rs = [run_once(cmd) for _ in range(5)]
    out.append("")
    out.append("CPU split (median of 5 runs, from wait4): user %s, system %s. System time "
               "here is mostly page faults on the mmap of vmlinux (each first touch of a "
               "page maps 64 KiB of it); callgrind below counts user-space instructions "
               "only." % (ms(statistics.median(r.user for r in rs)),
                          ms(statistics.median(r.sys for r in rs))))
    if not shutil.which("valgrind"):
        out.append("valgrind not installed: no callgrind profile.")
        return "\n".join(out)
    with tempfile.TemporaryDirectory(prefix="bench-cg-") as d:
        cg = os.path.join(d, "callgrind.out")
        t0 = time.perf_counter()
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log("callgrind took %.1f s" % (time.perf_counter() - t0))
        selfc, edges, calls = parse_callgrind(cg)
    total = sum(selfc.values())
    totals = group_profile(selfc, edges)
    out.append("")
    out.append("callgrind, `%s` (instructions executed, Ir; total %.1f M). Each "
               "function's own instructions are charged to the innermost group on its "
               "call path, so the groups add up to the total:" % (
                   " ".join(["vmcore-inode", "-k", "VMLINUX", os.path.basename(dump), addr]),
                   total / 1e6))
    out.append("")
    out.append("| group | Ir (M) | share |")
    out.append("|---|---|---|")
    order = sorted(range(len(totals)), key=lambda g: -totals[g])
    for g in order:
        label = GROUPS[g][0] if g < len(GROUPS) else "process start/exit: ld.so relocation, libc init"
        out.append("| %s | %.1f | %.1f%% |" % (label, totals[g] / 1e6, 100.0 * totals[g] / total))
    inc = inclusive_costs(selfc, edges)
    ours = [(f, c) for f, c in inc.items()
            if re.match(r"(idd_|inodedump_|take_ptr|load_modules|path_layout|find_cu|search_all|check_match|build_layout)", f)]
    ours.sort(key=lambda x: -x[1])
    out.append("")
    out.append("Top inclusive functions of libinodedump (with their callees):")
    out.append("")
    out.append("| function | inclusive Ir (M) | share |")
    out.append("|---|---|---|")
    for f, c in ours[:16]:
        out.append("| `%s` | %.1f | %.1f%% |" % (f, c / 1e6, 100.0 * c / total))
    # Who calls the expensive lookups, and how often.
    out.append("")
    out.append("Calls into the expensive lookups (caller → callee: calls, inclusive Ir):")
    out.append("")
    for callee in ("idd_symbols_name", "idd_symbols_address", "idd_module_symbol",
                   "find_cu", "search_all", "idd_types_struct_in"):
        for (c, f), w in sorted(edges.items(), key=lambda e: -e[1]):
            if f == callee and c != f:
                out.append("- `%s` → `%s`: %d call(s), %.1f M Ir" % (
                    c, f, calls.get((c, f), 0), w / 1e6))
    return "\n".join(out)


def vmlinux_pages(vmci, vmlinux, dump, addr):
    """Which sections of vmlinux are mapped (resident in the process) just
    before inodedump_close(): that is where the peak RSS comes from."""
    if not shutil.which("gdb"):
        return "gdb not installed: no RSS breakdown."
    secs = []
    p = subprocess.run(["readelf", "-SW", vmlinux], stdout=subprocess.PIPE)
    for line in p.stdout.decode().splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            secs.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
    script = r'''
import gdb, re, struct, json
pid = gdb.selected_inferior().pid
secs = %s
path = %r
agg = {}
total = 0
pm = open('/proc/%%d/pagemap' %% pid, 'rb')
for line in open('/proc/%%d/maps' %% pid):
    p = line.split()
    if len(p) < 6 or p[5] != path:
        continue
    lo, hi = [int(x, 16) for x in p[0].split('-')]
    off = int(p[2], 16)
    n = (hi - lo) // 4096
    pm.seek(lo // 4096 * 8)
    data = pm.read(n * 8)
    for i in range(n):
        if struct.unpack_from('<Q', data, i * 8)[0] >> 63:
            fo = off + i * 4096
            name = 'other'
            for so, sz, sn in secs:
                if so <= fo < so + sz:
                    name = sn
                    break
            agg[name] = agg.get(name, 0) + 4
rss = {}
for line in open('/proc/%%d/smaps_rollup' %% pid):
    k = line.split(':')[0]
    if k in ('Rss', 'Anonymous'):
        rss[k] = int(line.split()[1])
print('BENCHJSON' + json.dumps({'sections': agg, 'rss': rss}))
''' % (repr(secs), os.path.realpath(vmlinux))
    with tempfile.TemporaryDirectory(prefix="bench-gdb-") as d:
        sp = os.path.join(d, "pm.py")
        with open(sp, "w") as f:
            f.write(script)
        cmds = ["set pagination off", "set breakpoint pending on",
                "break inodedump_close", "run", "source " + sp, "kill", "quit"]
        args = ["gdb", "-q", "-batch"]
        for c in cmds:
            args += ["-ex", c]
        p = subprocess.run(args + ["--args", vmci, "-k", vmlinux, dump, addr],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    m = re.search(r"BENCHJSON(.*)", p.stdout.decode(errors="replace"))
    if not m:
        return "gdb could not stop at inodedump_close: no RSS breakdown."
    data = json.loads(m.group(1))
    agg = data["sections"]
    tot = sum(agg.values())
    out = ["Resident memory just before `inodedump_close()` (gdb breakpoint, "
           "/proc/PID/smaps_rollup and pagemap): RSS %s, of which anonymous %s and "
           "**vmlinux pages mapped %s** (file pages are mapped 64 KiB at a time by "
           "the kernel's fault-around, so touching one byte of a page maps its "
           "neighbours):" % (mb(data["rss"].get("Rss", 0)), mb(data["rss"].get("Anonymous", 0)), mb(tot)),
           "", "| vmlinux section | mapped |", "|---|---|"]
    for n, k in sorted(agg.items(), key=lambda x: -x[1]):
        if k >= 64:
            out.append("| `%s` | %s |" % (n, mb(k)))
    return "\n".join(out)


# ------------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=None, help="runs per figure (default 5; "
                    "the sweep's default is 3)")
    ap.add_argument("--vmcore-inode", default=os.path.join(ROOT, "build-bench", "vmcore-inode"))
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--no-crash", action="store_true")
    ap.add_argument("--no-sid", action="store_true",
                    help="leave out drgn 0.3.0 and crash 9.0.2 (sid chroots)")
    ap.add_argument("--sweep-scale", action="store_true",
                    help="also the sweep at ~20 k and >= 200 k inodes on the big "
                         "sets (6.12 and 7.3), all formats (bench/sweep_bench.py; minutes)")
    ap.add_argument("--sweep-only", action="store_true",
                    help="only the sweep at scale (sweep_bench.py); the options after "
                         "it that bench.py does not know (--set, --stages, --formats) go there")
    ap.add_argument("--follow", action="store_true",
                    help="also --live --follow's latency in the follow73 guest against "
                         "drgn's one-shot decode there (bench/follow_bench.py; a guest "
                         "boot a run, ~1.5 min each)")
    ap.add_argument("--live-sweep-only", action="store_true",
                    help="only --live --sweep in the follow73 guest against the dump "
                         "sweep and drgn's s_inodes walk there (bench/kcore_bench.py)")
    ap.add_argument("--follow-only", action="store_true",
                    help="only that section")
    ap.add_argument("--arch-only", action="store_true",
                    help="only one inode on arm64 and ppc64le dumps beside x86-64's "
                         "and drgn (issue 33)")
    ap.add_argument("--kernels-only", action="store_true",
                    help="only one inode, every feature on, on each kernel of issue 40 "
                         "(x86-64 5.10/6.12/7.3, arm64 5.10/6.1/6.12/7.3, ppc64le 6.1), "
                         "warm and cold beside drgn (bench/kernels_bench.py)")
    ap.add_argument("--baseline", metavar="BINARY",
                    help="another vmcore-inode (e.g. the build before a change), "
                         "timed in the same alternation as ours: a before/after table")
    args, rest = ap.parse_known_args()
    if args.sweep_only:
        sweep_bench.main(["--vmcore-inode", args.vmcore_inode] +
                         (["--runs", str(args.runs)] if args.runs else []) +
                         (["--baseline", args.baseline] if args.baseline else []) + rest)
        return
    if args.kernels_only:
        kernels_bench.main(["--vmcore-inode", args.vmcore_inode, "--runs",
                            str(args.runs or 5)] + rest)
        return
    if args.live_sweep_only:
        kcore_bench.main(["--vmcore-inode", args.vmcore_inode, "--runs",
                          str(args.runs or 1)])
        return
    if args.follow_only:
        follow_bench.main(["--vmcore-inode", args.vmcore_inode, "--runs",
                           str(args.runs or 3)])
        return
    if rest:
        ap.error("unrecognized arguments: %s" % " ".join(rest))
    if args.runs is None:
        args.runs = 5
    base = os.path.abspath(args.baseline) if args.baseline else None
    vmci = os.path.abspath(args.vmcore_inode)
    runs = max(args.runs, 1)
    started = time.time()
    rep = Report()
    load_before = os.getloadavg()

    spawn = statistics.median(run_once(["/bin/true"]).wall for _ in range(11))
    stock, why_stock = fixture_set("stock")
    patched, why_patched = fixture_set("patched")
    if not stock and not patched:
        sys.exit("bench: no fixture set: %s; %s (tests/vmcores/make-fixtures.sh)" % (
            why_stock, why_patched))

    goal = None
    ours_figs = {}    # (set, what) -> Stats, for the scaling table

    def timed(label, cmds, ok_rcs=(0, 1)):
        """measure(), with the baseline binary as a third command in the
        same alternation when --baseline is given."""
        if base:
            ours = dict(cmds)["ours"]
            cmds = cmds + [("base", [base] + ours[1:])]
        st, warm = measure(cmds, runs, ok_rcs)
        if base:
            d = dict(cmds)
            rep.baseline.append((label, st["ours"], st["base"],
                                 instructions(d["ours"]), instructions(d["base"])))
        return st, warm
    drgn_fail = None

    def inode_case(setname, setdir, dump, drgn_dump, addr, label, drgn="drgn",
                   drgn_cmd=None):
        vml = os.path.join(setdir, "vmlinux")
        ours_cmd = [vmci, "-k", vml, os.path.join(setdir, dump), addr]
        drgn_cmd = drgn_cmd or [PY, DRGN_SCRIPT, "inode", vml,
                                os.path.join(setdir, drgn_dump), addr]
        log("%s: %s (%s on %s)" % (setname, label, drgn, drgn_dump))
        st, warm = timed("%s, %s" % (label, dump), [("ours", ours_cmd), (drgn, drgn_cmd)])
        try:
            oj = ours_json(vmci, vml, os.path.join(setdir, dump), [addr])["inodes"][0]
            check = compare_inode(oj, warm[drgn].out.strip().splitlines()[-1])
        except Exception as e:  # noqa: BLE001 - the check is informative only
            check = "check failed: %s" % e
        rep.row(label, dump, st["ours"], drgn, st[drgn], drgn_dump, check)
        return st

    def sid_inode_case(setname, setdir, dump, addr):
        """The same decode against drgn 0.3.0 in its sid chroot; what the
        chroot's entry costs is measured and named, and a failure shown."""
        chroot = sid_chroot("python3-drgn")
        if not chroot:
            rep.notes.append("**drgn 0.3.0 not measured**: no sid chroot with "
                             "python3-drgn in %s (make-fixtures.sh stock73)." % CACHE)
            return
        cmd = in_sid(chroot, setdir, ["/usr/bin/python3", "/src/drgn_bench.py", "inode",
                                      "/fx/vmlinux", "/fx/" + dump, addr])
        r = run_once(cmd, timeout=300)
        if r.rc != 0:
            lines = [l for l in r.err.splitlines() if l.strip()]
            rep.notes.append("**drgn 0.3.0 (sid chroot) fails** on `%s`: exit %d, `%s`" % (
                dump, r.rc, lines[-1] if lines else "?"))
            return
        entry = statistics.median(run_once(in_sid(chroot, setdir, ["/bin/true"])).wall
                                  for _ in range(5))
        rep.notes.append("drgn 0.3.0 runs in the sid chroot `%s`: entering it "
                         "(unshare, two bind mounts, chroot) costs %s of its wall "
                         "time (median of 5 `/bin/true`)." % (chroot, ms(entry)))
        inode_case(setname, setdir, dump, dump, addr,
                   "%s: open + decode 1 inode, drgn 0.3.0" % setname,
                   "drgn 0.3.0", cmd)

    def btf_case(setname, setdir, dump, addr):
        """Issue 16: the same decode with no vmlinux (types from the dump's
        BTF, symbols from its kallsyms), with the per-kernel cache empty
        (INODEDUMP_NO_CACHE: nothing read or written) and filled, against
        the DWARF path and drgn, in one alternation. Every command runs
        through env(1), so each pays the same exec."""
        tmp = tempfile.mkdtemp(prefix="bench-btf-")
        try:
            empty = os.path.join(tmp, "no-debug-root")
            os.makedirs(empty)
            vml = os.path.join(setdir, "vmlinux")
            d = os.path.join(setdir, dump)
            # Whether this kernel's BTF is read on demand: what its first run says.
            probe = run_once(["env", "XDG_CACHE_HOME=" + os.path.join(tmp, "probe"),
                              "DEBUGINFOD_URLS=", "INODEDUMP_NO_CACHE=1", vmci,
                              "--debug-root", empty, os.path.join(setdir, dump), addr])
            on_demand = ", read on demand" in probe.err.split("symbols")[0]
            base_env = ["env", "XDG_CACHE_HOME=" + os.path.join(tmp, "cache"),
                        "DEBUGINFOD_URLS="]
            first = base_env + ["INODEDUMP_NO_CACHE=1"]
            cmds = [
                ("DWARF (-k vmlinux)", base_env + [vmci, "-k", vml, d, addr]),
                ("BTF, first run (no cache)", first + [vmci, "--debug-root", empty, d, addr]),
                ("BTF, first run, one thread", first + ["INODEDUMP_READ_THREADS=1", vmci,
                                                        "--debug-root", empty, d, addr]),
                # A sorted-BTF kernel (7.3) is read on demand on its first
                # run: the same run reading its BTF whole, as every older one.
                ("BTF, first run, read whole", first + ["INODEDUMP_BTF_WHOLE=1", vmci,
                                                        "--debug-root", empty, d, addr]),
                ("BTF, cached", base_env + [vmci, "--debug-root", empty, d, addr]),
                ("drgn 0.0.22", [PY, DRGN_SCRIPT, "inode", vml,
                                 d.replace("elf-nopaging", "elf-paging"), addr]),
            ]
            if not on_demand:
                cmds.pop(3)  # read whole anyway
            if dump.startswith("elf"):
                cmds.pop(2)  # nothing to decompress: one thread is the same
            if setname != "stock":
                cmds.pop()  # drgn 0.0.22 cannot read 7.3
            run_once(dict(cmds)["BTF, cached"])  # fills the cache
            log("%s: BTF-only decode against DWARF and drgn" % setname)
            # 4: decoded in part (a -d 31 dump's left-out page), as DWARF.
            st, warm = measure(cmds, runs, (0, 1, 4))
            want = warm[cmds[0][0]].out
            for name, cmd in cmds:
                same = "—" if name.startswith("drgn") else (
                    "yes" if warm[name].out == want else "**no**")
                rep.btf.append(("%s %s" % (setname, dump.split(".")[0]), name, st[name],
                                instructions(cmd) if not args.no_profile and
                                not name.startswith("drgn") else None, same))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def fs_rows_case():
        """Issue 31: an XFS and a btrfs inode decoded with their
        filesystem rows (and what stat would show, derived), against
        --no-fs-rows and drgn 0.0.22 reading the same members by hand at
        pahole's offsets (drgn has no module types for this kernel)."""
        fsdir, why = fixture_set("fs612")
        if not fsdir:
            rep.notes.append("**fs612 not measured** (fs rows): %s." % why)
            return
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from test_fs_rows import kernel_dir, pahole, MODULES  # noqa: E402
        vml = os.path.join(fsdir, "vmlinux")
        d = os.path.join(fsdir, "d17-zlib.vmcore")
        addrs, specs = [], []
        kdir = kernel_dir(fsdir)
        for fs, role in (("xfs", "xfs_symlink_short"), ("btrfs", "btrfs_sub_symlink")):
            ko, struct, vfs, checks = MODULES[fs]
            a = truth_addr(fsdir, role)["addr"]
            m = pahole(kdir, ko, struct)
            offs = ["%d/%d" % m[k] for k in sorted(m) if m[k][1] <= 8][:20]
            addrs.append(a)
            specs.append("%s:%d:%s" % (a, m[vfs][0], ",".join(offs)))
        cmds = [("ours", [vmci, "-k", vml, d] + addrs),
                ("ours --no-fs-rows", [vmci, "-k", vml, "--no-fs-rows", d] + addrs),
                ("drgn", [PY, DRGN_SCRIPT, "fsrows", vml, d] + specs)]
        log("fs612: XFS + btrfs inode with fs rows")
        st, warm = timed("fs612: fs rows", cmds)
        rep.row("fs612: open + decode an XFS and a btrfs inode with fs rows",
                "d17-zlib.vmcore", st["ours"], "drgn (20 members each by hand)",
                st["drgn"], "d17-zlib.vmcore", "—")
        rep.row("fs612: the same, `--no-fs-rows`", "d17-zlib.vmcore",
                st["ours --no-fs-rows"], "drgn (20 members each by hand)",
                st["drgn"], "d17-zlib.vmcore", "—")
        # A sweep of every inode with its rows, beside the same sweep
        # without them and drgn's sweep (the VFS fields only: drgn has no
        # module types for this kernel, so no rows by hand at this scale).
        # ("ours" is the plain sweep: what a --baseline binary also runs)
        scmds = [("ours", [vmci, "-k", vml, "--sweep", "--jsonl", d]),
                 ("ours with rows", [vmci, "-k", vml, "--sweep", "--jsonl", "--fs-rows", d]),
                 ("drgn", [PY, DRGN_SCRIPT, "sweep", vml, d])]
        log("fs612: sweep with fs rows")
        sst, _ = timed("fs612: sweep (without, then with fs rows)", scmds)
        rep.row("fs612: sweep every inode with its fs rows (`--sweep --jsonl --fs-rows`)",
                "d17-zlib.vmcore", sst["ours with rows"], "drgn (VFS fields only)",
                sst["drgn"], "d17-zlib.vmcore", "—")
        rep.row("fs612: the same sweep without fs rows", "d17-zlib.vmcore",
                sst["ours"], "drgn (VFS fields only)", sst["drgn"],
                "d17-zlib.vmcore", "—")
        if not args.no_profile:
            a, b = instructions(cmds[0][1]), instructions(cmds[1][1])
            if a and b:
                rep.notes.append("fs612 XFS + btrfs inode: %d instructions with fs "
                                 "rows, %d with `--no-fs-rows` (callgrind): the rows "
                                 "cost %d (%.1f×)." % (a, b, a - b, a / b))

    try:
        if not args.arch_only:
            fs_rows_case()
    except Exception as e:  # noqa: BLE001 - one case's failure, said
        rep.notes.append("**fs612 fs rows not measured**: %s" % e)

    def arch_cases():
        """Issue 33: one inode decoded from arm64 and ppc64le dumps through
        our own page walks, beside drgn 0.0.22 on the same dump (through
        libkdumpfile for ELF, as it reads arm64's) and beside the
        x86-64 stock set's ELF in the same run: the ratio of medians (and
        of instructions, callgrind) arm64 / x86-64."""
        env_kdf = ["env", "DRGN_USE_LIBKDUMPFILE_FOR_ELF=1"]
        figs = {}
        for setname, dump, drgn_dump in (
                ("stock", "elf-nopaging.vmcore", "elf-paging.vmcore"),
                ("arm64", "elf-nopaging.vmcore", "elf-nopaging.vmcore"),
                ("arm64max", "elf-nopaging.vmcore", "elf-nopaging.vmcore"),
                # drgn reads no QEMU arm64 kdump (64 KiB blocks): beside
                # it, drgn on the same moment's ELF
                ("arm64", "qemu-kdump-zlib.flat", "elf-nopaging.vmcore"),
                ("ppc64le", "elf-vmcoreinfo.vmcore", "elf-vmcoreinfo.vmcore")):
            setdir, why = fixture_set(setname)
            if not setdir:
                rep.notes.append("**%s not measured** (architectures): %s." % (setname, why))
                continue
            addr = truth_addr(setdir, "symlink_short")["addr"]
            vml = os.path.join(setdir, "vmlinux")
            label = "%s: open + decode 1 inode (%s)" % (
                setname, "x86-64" if setname == "stock" else
                "ppc64le" if setname.startswith("ppc") else "arm64")
            st = inode_case(setname, setdir, dump, drgn_dump, addr, label,
                            "drgn 0.0.22", env_kdf + [PY, DRGN_SCRIPT, "inode", vml,
                                                      os.path.join(setdir, drgn_dump), addr])
            ours = st["ours"]
            figs[(setname, dump)] = (ours, None if args.no_profile else instructions(
                [vmci, "-k", vml, os.path.join(setdir, dump), addr]))
        x86 = figs.get(("stock", "elf-nopaging.vmcore"))
        for (setname, dump), (st, ins) in sorted(figs.items()):
            if not x86 or setname == "stock":
                continue
            ratio = st.median / x86[0].median if x86[0].median else float("nan")
            iratio = ("; instructions %d vs %d, %.2f×" % (ins, x86[1], ins / x86[1])
                      if ins and x86[1] else "")
            rep.notes.append("%s `%s`: one inode in %.2f× the wall time of x86-64's "
                             "stock `elf-nopaging.vmcore` (medians, same run)%s." % (
                                 setname, dump, ratio, iratio))

    try:
        arch_cases()
    except Exception as e:  # noqa: BLE001 - one case's failure, said
        rep.notes.append("**architectures not measured**: %s" % e)
    if args.arch_only:
        print(table(rep))
        print()
        for n in rep.notes:
            print("- " + n)
        return
    for setname, setdir, why in (("stock", stock, why_stock), ("patched", patched, why_patched)):
        if not setdir:
            rep.notes.append("**%s set not measured**: %s." % (setname, why))
            continue
        t = truth_addr(setdir, "symlink_short")
        addr = t["addr"]
        vml = os.path.join(setdir, "vmlinux")
        rep.notes.append("%s set: `%s`, vmlinux %s, inode `%s` (%s, %s)." % (
            setname, setdir, mb(os.path.getsize(vml) / 1024), addr, t.get("role"), t.get("path")))
        dumps = ["d17-zlib.vmcore"]
        if setname == "stock":
            dumps += ["d17-lzo.vmcore", "elf-nopaging.vmcore"]
        for dump in dumps:
            drgn_dump = "elf-paging.vmcore" if dump == "elf-nopaging.vmcore" else dump
            st = inode_case(setname, setdir, dump, drgn_dump, addr,
                            "%s: open + decode 1 inode" % setname)
            if dump == "d17-zlib.vmcore" and setname == "stock" and not args.no_sid:
                sid_inode_case(setname, setdir, dump, addr)
            if dump == "d17-zlib.vmcore":
                ours_figs[(setname, "inode")] = st["ours"]
                ours_figs[(setname, "inode-drgn")] = st["drgn"]
                if setname == "stock":
                    goal = (st["ours"], st["drgn"])
        if setname == "stock":
            btf_case(setname, setdir, "d17-zlib.vmcore", addr)
            btf_case(setname, setdir, "elf-nopaging.vmcore", addr)
            s73, _ = fixture_set("stock73")
            if s73:
                btf_case("stock73", s73, "d17-zlib.vmcore",
                         truth_addr(s73, "symlink_short")["addr"])
                # Debian's kdump-tools writes -d 31: the kernel's index of
                # its BTF is left out there (bench/RESULTS.md). That dump
                # may have left the inode's own page out too (makedumpfile
                # drops some slab tail pages): a truth inode it kept.
                a31 = kept_inode(vmci, s73, "d31-zlib.vmcore", "symlink_short")
                if a31:
                    btf_case("stock73", s73, "d31-zlib.vmcore", a31)
                else:
                    rep.notes.append("**stock73 d31-zlib not measured**: no truth "
                                     "inode of the set decodes from that dump.")
            # Our ELF open cost on the dump drgn can read, for a like-for-like ratio.
            inode_case(setname, setdir, "elf-paging.vmcore", "elf-paging.vmcore", addr,
                       "%s: open + decode 1 inode" % setname)
            # drgn on the paging:false ELF dump: does it open at all?
            r = run_once([PY, DRGN_SCRIPT, "inode", vml,
                          os.path.join(setdir, "elf-nopaging.vmcore"), addr], timeout=120)
            if r.rc != 0:
                lines = [l for l in r.err.splitlines() if l.strip()]
                drgn_fail = "drgn on `elf-nopaging.vmcore`: exit %d after %s, `%s`" % (
                    r.rc, ms(r.wall), lines[-1] if lines else "?")
            else:
                drgn_fail = "drgn on `elf-nopaging.vmcore` worked (exit 0, %s)" % ms(r.wall)
        # The kernel log: reports where there are some, else the log alone.
        d = os.path.join(setdir, "d17-zlib.vmcore")
        nrep = 0
        try:
            with open(os.path.join(setdir, "serial.log"), errors="replace") as f:
                nrep = len(REPORT_RE.findall(f.read()))
        except OSError:
            pass
        if nrep:
            log("%s: reports" % setname)
            st, warm = timed("%s: reports" % setname,
                             [("ours", [vmci, "-k", vml, d]),
                              ("drgn", [PY, DRGN_SCRIPT, "reports", vml, d])])
            try:
                oj = ours_json(vmci, vml, d, [])
                a = sorted(r["address"].replace("0x", "") for r in oj.get("reports", []))
                b = sorted(REPORT_RE.findall(warm["drgn"].out))
                check = ("same %d reported inodes" % len(a) if a == b else
                         "DIFFER: ours %s, drgn %s" % (a, b))
            except Exception as e:  # noqa: BLE001
                check = "check failed: %s" % e
            rep.row("%s: open + find and decode all reports" % setname, "d17-zlib.vmcore",
                    st["ours"], "drgn", st["drgn"], "d17-zlib.vmcore", check)
            ours_figs[(setname, "reports")] = st["ours"]
        log("%s: kernel log" % setname)
        st, warm = timed("%s: --log" % setname,
                         [("ours", [vmci, "-k", vml, "--log", d]),
                          ("drgn", [PY, DRGN_SCRIPT, "log", vml, d])])
        a, b = warm["ours"].out.splitlines(), warm["drgn"].out.splitlines()
        check = ("identical (%d lines)" % len(a) if a == b else
                 "%d vs %d lines, %d differ" % (len(a), len(b),
                                                sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))))
        rep.row("%s: open + read the log (`--log` / `get_dmesg`)" % setname, "d17-zlib.vmcore",
                st["ours"], "drgn", st["drgn"], "d17-zlib.vmcore", check)
        ours_figs[(setname, "log")] = st["ours"]
        ours_figs[(setname, "log-drgn")] = st["drgn"]
        # The sweep: every inode of every superblock (issue 9).
        log("%s: sweep" % setname)
        st, warm = timed("%s: --sweep --jsonl" % setname,
                         [("ours", [vmci, "-k", vml, "--sweep", "--jsonl", d]),
                          ("drgn", [PY, DRGN_SCRIPT, "sweep", vml, d])])
        try:
            ours_n = sum(1 for l in warm["ours"].out.splitlines()
                         if l.startswith('{"address"'))
            drgn_n = int(warm["drgn"].out.strip().splitlines()[-1].split("=")[1])
            check = ("same %d inodes (ours fully decoded and checked, drgn "
                     "i_mode + i_ino)" % ours_n if ours_n == drgn_n else
                     "DIFFER: ours %d, drgn %d inodes" % (ours_n, drgn_n))
        except Exception as e:  # noqa: BLE001
            check = "check failed: %s" % e
        rep.row("%s: sweep every inode (`--sweep --jsonl`)" % setname,
                "d17-zlib.vmcore", st["ours"], "drgn", st["drgn"],
                "d17-zlib.vmcore", check)
        if not args.no_crash and shutil.which("crash"):
            log("%s: crash" % setname)
            status, cst, err = run_crash(vml, d, addr, runs)
            rep.crash.append((setname, "d17-zlib.vmcore", "8.0.2 (host)", status, cst, err))
        crash9 = None if args.no_crash or args.no_sid else sid_chroot("crash")
        if crash9:
            log("%s: crash 9.0.2 (sid chroot)" % setname)
            status, cst, err = run_crash("/fx/vmlinux", "/fx/d17-zlib.vmcore", addr, runs,
                                         lambda cmd: in_sid(crash9, setdir, cmd))
            rep.crash.append((setname, "d17-zlib.vmcore", "9.0.2 (sid chroot)", status, cst, err))
        elif not args.no_crash and not args.no_sid:
            rep.notes.append("**crash 9.0.2 not measured**: no sid chroot with crash "
                             "in %s (tests/bridges/sid_chroot.sh makes it)." % CACHE)

    # Issue 30: what an address is (--what) beside drgn 0.3.0's
    # slab_object_info() and crash 9.0.2's kmem -s, same dump, same run;
    # and the sweep of a -d 31 dump whose lists broke (the slab walk).
    s73, _ = fixture_set("stock73")
    chroot = None if args.no_sid else sid_chroot("python3-drgn")
    if s73 and chroot:
        vml = os.path.join(s73, "vmlinux")
        addr = truth_addr(s73, "symlink_short")["addr"]
        d = os.path.join(s73, "d17-zlib.vmcore")
        log("stock73: --what (drgn 0.3.0 slab_object_info in the sid chroot)")
        dcmd = in_sid(chroot, s73, ["/usr/bin/python3", "/src/drgn_bench.py", "what",
                                    "/fx/vmlinux", "/fx/d17-zlib.vmcore", addr])
        st, warm = timed("stock73: --what", [("ours", [vmci, "-k", vml, "--what", addr, d]),
                                             ("drgn 0.3.0", dcmd)])
        try:
            oj = json.loads(run_once([vmci, "-k", vml, "--json", "--what", addr, d]).out)
            s = oj["what"][0]["slab"]
            kv = parse_kv(warm["drgn 0.3.0"].out.strip().splitlines()[-1])
            check = ("same cache, object and state (%s, %s)" % (s["cache"], s["state"])
                     if (s["cache"], s["object"], s["state"]) ==
                     (kv["cache"], "0x" + kv["start"], kv["state"]) else
                     "DIFFER: ours %s, drgn %s" % (s, kv))
        except Exception as e:  # noqa: BLE001
            check = "check failed: %s" % e
        rep.row("stock73: open + what is this address (`--what` / `slab_object_info`)",
                "d17-zlib.vmcore", st["ours"], "drgn 0.3.0", st["drgn 0.3.0"],
                "d17-zlib.vmcore", check)
        crash9 = None if args.no_crash else sid_chroot("crash")
        if crash9:
            log("stock73: crash 9.0.2 kmem -s (sid chroot)")
            status, cst, err = run_crash("/fx/vmlinux", "/fx/d17-zlib.vmcore", addr, runs,
                                         lambda cmd: in_sid(crash9, s73, cmd),
                                         command="kmem -s %s" % addr, expect="CACHE",
                                         # crash 9.0.2 stops at 7.x's struct
                                         # module (module_num_gpl_syms)
                                         options=("--no_modules",))
            rep.crash.append(("stock73 `kmem -s` (--what)", "d17-zlib.vmcore",
                              "9.0.2 (sid chroot)", status, cst, err))
            if stock:  # 6.12, where crash's kmem -s works
                a612 = truth_addr(stock, "symlink_short")["addr"]
                status, cst, err = run_crash("/fx/vmlinux", "/fx/d17-zlib.vmcore", a612,
                                             runs, lambda cmd: in_sid(crash9, stock, cmd),
                                             command="kmem -s %s" % a612, expect="CACHE")
                rep.crash.append(("stock `kmem -s` (--what)", "d17-zlib.vmcore",
                                  "9.0.2 (sid chroot)", status, cst, err))
    fs73, why_fs73 = fixture_set("fs73")
    if fs73:
        vml = os.path.join(fs73, "vmlinux")
        log("fs73: sweep of d31 (lists broken, slab walk) and of d17 (whole lists)")
        st, warm = timed("fs73: --sweep d31", [
            ("ours", [vmci, "-k", vml, "--sweep", "--jsonl",
                      os.path.join(fs73, "d31-zlib.vmcore")]),
            ("ours, d17", [vmci, "-k", vml, "--sweep", "--jsonl",
                           os.path.join(fs73, "d17-zlib.vmcore")])], ok_rcs=(0, 1, 4))
        n31 = sum(1 for l in warm["ours"].out.splitlines() if l.startswith('{"address"'))
        n17 = sum(1 for l in warm["ours, d17"].out.splitlines() if l.startswith('{"address"'))
        rep.row("fs73: sweep a -d 31 dump whose lists broke (slab walk) / "
                "the -d 17 dump of the same moment (whole lists)",
                "d31-zlib.vmcore", st["ours"], "ours, d17", st["ours, d17"],
                "d17-zlib.vmcore", "%d inodes of %d (the rest not in the dump)" % (n31, n17))
    elif not fs73:
        rep.notes.append("**fs73 set not measured**: %s." % why_fs73)

    # Startup against vmlinux size.
    if stock and patched:
        for what, label in (("inode", "open + decode 1 inode"), ("log", "open + read the log")):
            a, b = ours_figs.get(("patched", what)), ours_figs.get(("stock", what))
            if a and b:
                rep.scaling.append((label, a, b, ours_figs.get(("patched", what + "-drgn")),
                                    ours_figs.get(("stock", what + "-drgn"))))

    prof = ""
    pages = ""
    if stock and not args.no_profile:
        log("profile (perf stat, callgrind, RSS breakdown)")
        addr = truth_addr(stock, "symlink_short")["addr"]
        vml = os.path.join(stock, "vmlinux")
        d = os.path.join(stock, "d17-zlib.vmcore")
        prof = profile(vmci, vml, d, addr)
        try:
            pages = vmlinux_pages(vmci, vml, d, addr)
        except Exception as e:  # noqa: BLE001
            pages = "RSS breakdown failed: %s" % e

    # ---------------------------------------------------------- report
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    def ver(cmd):
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                                  ).stdout.decode().splitlines()[0].strip()
        except Exception:  # noqa: BLE001
            return "?"
    print("## Run of %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M %Z").strip())
    print()
    print("Machine: %s, %d CPUs (nproc), %.1f GiB memory, kernel %s; load average "
          "%.2f before, %.2f after the run." % (
              platform.node(), os.cpu_count(), mem_kb / 1048576.0, platform.release(),
              load_before[0], os.getloadavg()[0]))
    drgn_ver = subprocess.run([PY, "-c", "import drgn; print(drgn.__version__)"],
                              stdout=subprocess.PIPE).stdout.decode().strip()
    def pkg(p):
        try:
            return subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL).stdout.decode().strip() or "?"
        except OSError:
            return "?"
    print("Tools: vmcore-inode `%s` (git %s, libkdumpfile %s, libdw %s), drgn %s (python3-drgn %s) "
          "on %s, crash %s, GNU time %s, valgrind %s." % (
              vmci, ver(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
              pkg("libkdumpfile10") if pkg("libkdumpfile10") != "?" else pkg("libkdumpfile-dev"),
              pkg("libdw1"), drgn_ver, pkg("python3-drgn"), ver([PY, "--version"]),
              pkg("crash"), pkg("time"), pkg("valgrind")))
    print("Each figure: median of %d runs after one warm-up run, the two tools "
          "alternating; wall clock around `/usr/bin/time`, peak RSS = `ru_maxrss` "
          "of that one process (`%%M`), the largest over the runs; CPU = user + system "
          "time of the process (drgn indexes DWARF on several threads, so its CPU can "
          "exceed its wall time). Page cache warm. Starting a process under "
          "`/usr/bin/time` from the harness costs %s (median wall of `/bin/true`); it "
          "is included in every wall figure, not subtracted." % (runs, ms(spawn)))
    print()
    for n in rep.notes:
        print("- " + n)
    if drgn_fail:
        print("- " + drgn_fail + " — so drgn's ELF figures use `elf-paging.vmcore`.")
    print()
    print(table(rep))
    print()
    if rep.btf:
        print("### No vmlinux: BTF and kallsyms from the dump (one inode, same alternation)")
        print()
        print("Kallsyms are looked up in place. The BTF is read on demand "
              "(`read whole`: the same run with `INODEDUMP_BTF_WHOLE=1`, "
              "libbpf parsing all of it). A kernel whose BTF is sorted "
              "(stock73's 7.3) has it read through the kernel's index of "
              "it, every run, nothing cached; on the `-d 31` dump, which "
              "does not keep that index, its type records are read whole "
              "and kept (`cached`). Any other (stock's 6.12) has it read "
              "from its start as far as the lookups need, and what was read "
              "kept for later runs (`cached`), under "
              "`$XDG_CACHE_HOME/inodedump/kernel/BUILD-ID/`. Reads of 64 "
              "pages or more of a compressed dump are inflated on one thread "
              "per CPU, at most 8 (`INODEDUMP_READ_THREADS=1`: one). "
              "Instructions are callgrind's, every thread's (loader "
              "included). This machine has %d online CPUs." % os.cpu_count())
        print()
        print("| set | path | wall, median (min–max) | CPU | peak RSS | instructions | wall / DWARF | instructions / DWARF | same output as DWARF? |")
        print("|---|---|---|---|---|---|---|---|---|")
        dw = {}
        for setname, name, st, ins, same in rep.btf:
            if name.startswith("DWARF"):
                dw[setname] = (st, ins)
        for setname, name, st, ins, same in rep.btf:
            d_st, d_ins = dw[setname]
            print("| %s | %s | %s (%s–%s) | %s | %s | %s | %.2f | %s | %s |" % (
                setname, name, ms(st.median), ms(st.min), ms(st.max), ms(st.cpu),
                mb(st.rss_kb), "%.1f M" % (ins / 1e6) if ins else "—",
                st.median / d_st.median,
                "%.2f" % (ins / d_ins) if ins and d_ins else "—", same))
        print()
    if rep.baseline:
        print("### This build against the baseline `%s` (same alternation)" % base)
        print()
        print("Instructions (callgrind) do not move with the machine's load; "
              "wall and CPU medians do.")
        print()
        print("| case | this build, median | baseline, median | wall this/baseline | CPU this/baseline | instructions this / baseline | instructions this/baseline | peak RSS this/baseline |")
        print("|---|---|---|---|---|---|---|---|")
        for case, o, b, io, ib in rep.baseline:
            print("| %s | %s | %s | %.3f | %.3f | %s | **%s** | %.3f |" % (
                case, ms(o.median), ms(b.median), o.median / b.median,
                o.cpu / b.cpu if b.cpu else float("nan"),
                "%.1f M / %.1f M" % (io / 1e6, ib / 1e6) if io and ib else "?",
                "%.3f" % (io / ib) if io and ib else "?", o.rss_kb / b.rss_kb))
        print()
    if goal:
        o, d = goal
        sp, rr = d.median / o.median, d.rss_kb / o.rss_kb
        ok_t, ok_m = sp >= 50, rr >= 20
        print("### Goal (stock kernel, full -dbg vmlinux, -d 17 zlib dump, open + decode one inode)")
        print()
        print("- speed: %s vs drgn %s = **%.1f×** (goal ≥ 50×): **%s**" % (
            ms(o.median), ms(d.median), sp, "met" if ok_t else "MISSED"))
        print("- peak RSS: %s vs drgn %s = **1/%.1f** (goal ≤ 1/20, i.e. ≤ %s): **%s**" % (
            mb(o.rss_kb), mb(d.rss_kb), rr, mb(d.rss_kb / 20.0), "met" if ok_m else "MISSED"))
        print()
    if rep.scaling:
        print("### Startup against vmlinux size (d17-zlib dumps)")
        print()
        print("vmlinux: patched %s, stock %s." % (
            mb(os.path.getsize(os.path.join(patched, "vmlinux")) / 1024),
            mb(os.path.getsize(os.path.join(stock, "vmlinux")) / 1024)))
        print()
        print("| what | tool | patched (small vmlinux) | stock (full -dbg vmlinux) | time stock/patched | RSS stock/patched |")
        print("|---|---|---|---|---|---|")
        for label, a, b, da, db in rep.scaling:
            for tool, x, y in (("vmcore-inode", a, b), ("drgn", da, db)):
                if x and y:
                    print("| %s | %s | %s, %s | %s, %s | %.2f× | %.2f× |" % (
                        label, tool, ms(x.median), mb(x.rss_kb), ms(y.median), mb(y.rss_kb),
                        y.median / x.median, y.rss_kb / x.rss_kb))
        print()
    if rep.crash:
        print("### crash (`crash -s VMLINUX VMCORE`, stdin `struct inode ADDR` + `exit`, timeout 120 s)")
        print()
        print("| set | dump | crash | result | time | peak RSS | error line |")
        print("|---|---|---|---|---|---|---|")
        for s, dump, version, status, st, err in rep.crash:
            print("| %s | %s | %s | %s | %s%s | %s | %s |" % (
                s, dump, version, status, ms(st.median), " (median of %d)" % len(st.runs)
                if status == "works" else " to failure", mb(st.rss_kb),
                "`%s`" % err if err else ""))
        print()
    if prof or pages:
        print("### Where vmcore-inode's time and memory go (stock, d17-zlib, one inode)")
        print()
        if prof:
            print(prof)
            print()
        if pages:
            print(pages)
            print()
    if args.sweep_scale:
        for set_name in ("big", "big73"):
            sweep_bench.main(["--vmcore-inode", vmci, "--runs", str(runs), "--set", set_name])
    if args.follow:
        follow_bench.main(["--vmcore-inode", vmci, "--runs", str(runs)])
    print("Bench wall time: %.0f s." % (time.time() - started))


if __name__ == "__main__":
    main()
