#!/usr/bin/python3
"""vmcore-inode --live --follow decodes each VFS_WARN_ON_INODE report as it
comes, inside a guest of the 7.3 CONFIG_DEBUG_VFS kernel.

usage: test_follow.py [BINARY]      (default: $VMCORE_INODE, as meson sets it)

`tests/vmcores/make-fixtures.sh follow73 BINARY` boots the debugvfs73
kernel with BINARY, its ldd closure and a debug-only vmlinux in the
initramfs; the guest (tests/vmcores/follow_init.sh) starts
`vmcore-inode --live --follow --jsonl` before anything fires, overruns the
log under it (stopped, then flooded), loads the trigger module (seven
upstream reports, warnings only), and ends it with SIGTERM. The set is
cached by the binary's and libraries' contents. A missing set is a failure.

Truth, all from the guest kernel: the report lines its console printed
(reports.txt), the trigger module's inodedump-truth lines (truth.txt,
printed after every report: the inodes' final state), the addresses of
dump_inode()'s direct calls, and the sequence numbers of the kernel's
/dev/kmsg around the flood (the records lost). Besides, on the host: the
usage errors, and /proc/kcore missing.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth  # noqa: E402
import schema_check  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(HERE, "vmcores", "make-fixtures.sh")
IOP_CACHED_LINK = 0x40

# "<reason>: inode:<addr> fs:<fs> mode:<o> opflags:<x> flags:<x> state:<x>
# count:<d>" or "<reason>: unreadable inode:<addr>" (7.0 and later)
REPORT = re.compile(r"^(?P<reason>.*): inode:(?P<addr>[0-9a-f]+) fs:(?P<fs>.*) "
                    r"mode:(?P<mode>[0-7]+) opflags:(?P<opflags>(?:0x)?[0-9a-f]+) "
                    r"flags:(?P<flags>(?:0x)?[0-9a-f]+) state:(?P<state>(?:0x)?[0-9a-f]+) "
                    r"count:(?P<count>-?\d+)$")
UNREADABLE = re.compile(r"^(?P<reason>.*): unreadable inode:(?P<addr>[0-9a-f]+)$")


def host_checks(c, binary):
    """Usage errors, and the live kernel's memory missing, on the host."""
    for args, want in ((["--follow"], "needs --live"),
                       (["--follow", "/some/vmcore"], "needs --live"),
                       (["--live", "--follow", "ffff888000000000"],
                        "no ADDRESS"),
                       (["--live", "--follow", "--log"], "no ADDRESS and no other mode"),
                       (["--live", "--from-start"], "--from-start goes with --follow")):
        p = subprocess.run([binary] + args, capture_output=True, text=True,
                           timeout=60)
        c.eq(f"{' '.join(args)}: exit code", p.returncode, 2)
        c.ok(f"{' '.join(args)}: says why", want in p.stderr, p.stderr)
    if os.path.exists("/proc/kcore"):
        # Here it would follow this machine's log: the guest checks it.
        print("host has /proc/kcore: kcore unreadable is checked in the guest only")
        return
    p = subprocess.run([binary, "--live", "--follow"], capture_output=True,
                       text=True, timeout=60)
    c.eq("--live --follow without /proc/kcore: exit code", p.returncode, 3)
    c.ok("--live --follow without /proc/kcore: says so",
         "/proc/kcore" in p.stderr and p.stdout == "", p.stderr)


def console_lines(console, prefix):
    return [line[len(prefix):] for line in console.splitlines()
            if line.startswith(prefix)]


def check_inode_vs_truth(c, n, got, t):
    c.eq(n + " address", got.get("address"), "0x" + t["addr"])
    for key, base in (("ino", 10), ("mode", 8), ("opflags", 16),
                      ("flags", 16), ("state", 16), ("count", 10),
                      ("nlink", 10), ("size", 10), ("uid", 10), ("gid", 10)):
        c.eq(f"{n} {key} (truth line)", got.get(key),
             int(t[key].removeprefix("0x"), base))
    c.eq(n + " s_id", got.get("s_id"), t["s_id"])
    c.eq(n + " fs_type", got.get("fs_type"), t["fstype"])


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("VMCORE_INODE")
    if not binary:
        raise SystemExit("FAIL VMCORE_INODE is not set (run through meson test)")
    c = Checker()
    host_checks(c, binary)

    p = subprocess.run(["bash", MAKE, "follow73", binary], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(p.stderr[-6000:])
        raise SystemExit(f"FAIL make-fixtures.sh follow73 {binary}: exit {p.returncode}")
    d = p.stdout.strip().splitlines()[-1]
    reused = "reusing complete set" in p.stderr
    print(f"follow73 set {d} ({'reused: same binary and libraries' if reused else 'booted now'})")
    console = open(os.path.join(d, "console.txt"), errors="replace").read()
    truth = {t["addr"]: t for t in read_truth(os.path.join(d, "truth.txt"))}
    lines = open(os.path.join(d, "reports.txt")).read().splitlines()
    err = console_lines(console, "inodedump-follow-err: ")
    errtext = "\n".join(err)

    # The guest: /proc/kcore unusable (/dev/null mounted over it).
    nokcore = console_lines(console, "inodedump-follow-nokcore: ")
    nr_err = "\n".join(console_lines(console, "inodedump-follow-nokcore-err: "))
    c.ok("--live --follow without a usable /proc/kcore ran", len(nokcore) == 1,
         str(nokcore))
    if nokcore:
        c.ok("no kcore: exit 3, nothing on stdout",
             nokcore[0].startswith("rc=3 out=0"), nokcore[0])
        c.ok("no kcore: says what /proc/kcore is and that it is needed",
             "cannot open /proc/kcore: a character device" in nr_err and
             "reading the live kernel needs it" in nr_err, nr_err)

    # Sanitizer builds: nothing reported inside the guest.
    for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
        c.ok(f"follower: no '{bad}'", bad not in errtext + nr_err, errtext[-3000:])

    # The follower's life: ready, the lost records, SIGTERM, the status.
    c.ok("follower said it was following (the ready line)",
         any("vmcore-inode: following the kernel log (JSON Lines)" == e for e in err),
         errtext[-2000:])
    mark = re.search(r"^inodedump-follow: mark seq=(\d+)$", console, re.M)
    first = re.search(r"^inodedump-follow: flood first=(\d+)$", console, re.M)
    c.ok("the guest's kmsg seq numbers around the flood", mark and first,
         "no mark/flood lines")
    if mark and first:
        a, b = int(mark[1]) + 1, int(first[1]) - 1
        c.ok("the flood overran the ring (records were lost)", b >= a, f"{a}..{b}")
        want = f"vmcore-inode: {b - a + 1} kernel log records lost (seq {a} to {b}):"
        c.ok("the lost records said exactly (count and seq range)",
             any(e.startswith(want) for e in err), f"want '{want}' in:\n{errtext[-2000:]}")
        print(f"overrun: records {a}..{b} lost ({b - a + 1}), the kernel's own numbers")
    rc = re.search(r"^inodedump-follow: rc=(\d+)$", console, re.M)
    # 3: one report names an ERR_PTR ("unreadable inode:"), not decodable;
    # it wins over 4 (records lost) and 1 (violations).
    c.ok("follower exit status 3 after SIGTERM", rc and rc[1] == "3",
         rc[0] if rc else "no rc line")
    c.ok("follower said it stopped by SIGTERM with every report written",
         any(e.startswith(f"vmcore-inode: stopped by SIGTERM: {len(lines)} reports,")
             for e in err), errtext[-1500:])

    # One JSON Lines object a report, in the console's order.
    raw = open(os.path.join(d, "follow.jsonl"), "rb").read()
    objs = []
    for i, line in enumerate(raw.splitlines()):
        try:  # each line a REPORT, as the published schema says
            objs.append(schema_check.check_text(
                line.decode("utf-8", "surrogateescape"), "follow_line",
                f"follow.jsonl line {i + 1}"))
        except schema_check.SchemaFailure as e:
            c.ok(f"follow.jsonl line {i + 1} is JSON, as the schema says",
                 False, str(e)[:1000])
    c.eq("one JSON object per report line on the console", len(objs), len(lines))
    direct = re.search(r"inodedump-direct: sb_cleared=([0-9a-f]+) unreadable=([0-9a-f]+)",
                       console)
    c.ok("the module named its direct dump_inode() calls", direct, "")
    changed = []
    last_seq = -1
    for i, (line, x) in enumerate(zip(lines, objs)):
        n = f"report {i + 1}"
        c.ok(n + ": seq increases", x["seq"] > last_seq, str(x["seq"]))
        last_seq = x["seq"]
        c.eq(n + ": format", x["format"], "7.0")
        m, u = REPORT.match(line), UNREADABLE.match(line)
        c.ok(n + ": console line parsed here", m or u, line)
        if not (m or u):
            continue
        g = (m or u).groupdict()
        c.eq(n + ": reason", x["reason"], g["reason"])
        c.eq(n + ": address", x["address"], "0x" + g["addr"])
        if g["reason"].startswith("vfsdbg73_trigger("):
            # dump_inode() called directly: no WARNING, no splat
            c.eq(n + ": direct call: no location", x["location"], None)
            c.eq(n + ": direct call: no task", x["task"], None)
        else:
            c.eq(n + ": task (the splat's Comm:)", x["task"], "insmod")
            c.ok(n + ": location is the WARNING line",
                 (x["location"] or "").startswith("WARNING: ") and
                 "vfsdbg73_trigger" in x["location"], str(x["location"]))
        ino = x["inode"]
        if u:
            c.eq(n + ": unreadable_at_report", x["unreadable_at_report"], True)
            c.ok(n + ": ERR_PTR not decoded, said", "error" in ino, str(ino)[:300])
            continue
        fields = {"mode": int(g["mode"], 8), "opflags": int(g["opflags"], 16),
                  "flags": int(g["flags"], 16), "state": int(g["state"], 16),
                  "count": int(g["count"])}
        c.eq(n + ": fields_at_report", x["fields_at_report"],
             dict(fs_type=g["fs"], **fields))
        if "error" in ino:
            c.ok(n + ": decoded", False, str(ino["error"]))
            continue
        t = truth.get(g["addr"])
        diffs = {df["field"]: df for df in x["differences"]}
        for key, at_report in fields.items():
            if key not in diffs:
                c.eq(f"{n}: {key} as the report line printed it", ino[key], at_report)
                continue
            # The kernel changed it between the report and the decode: the
            # decode must show the new value, the truth line's.
            df = diffs[key]
            c.eq(f"{n}: {key} difference, at report", df["at_report"], at_report)
            c.eq(f"{n}: {key} difference, decoded", df["in_dump"], ino[key])
            c.ok(f"{n}: {key} changed only where the kernel changes it after "
                 f"the report (IOP_CACHED_LINK set by inode_set_cached_link())",
                 key == "opflags" and ino[key] == at_report | IOP_CACHED_LINK and
                 "strlen(link) != linklen" in g["reason"], f"{at_report:#x} -> {ino[key]:#x}")
            changed.append(f"{n} {key} {at_report:#x}->{ino[key]:#x}")
        if t and "opflags" not in diffs and "strlen(link) != linklen" in g["reason"] \
                and ino["opflags"] == fields["opflags"] \
                and int(t["opflags"], 16) == fields["opflags"] | IOP_CACHED_LINK:
            # Read before the kernel went on to inode_set_cached_link() (it
            # prints the WARNING splat first; the follower reads /proc/kcore
            # faster than that): the opflags the report line printed, both
            # values the kernel's own.
            changed.append(f"{n} opflags read before inode_set_cached_link()")
            t = dict(t, opflags=hex(fields["opflags"]))
        if t:
            check_inode_vs_truth(c, f"{n} ({t['role']})", ino, t)
        elif direct and g["addr"] == direct[1]:
            # a kmemdup() copy nobody changes: as the report line, exactly
            c.eq(n + ": the sb-cleared copy has no superblock", ino.get("sb"), "0x0")
            c.eq(n + ": the sb-cleared copy, no difference", x["differences"], [])
        else:
            c.ok(n + ": a truth line for the inode", False, g["addr"])
    if changed:
        print("fields the kernel changed after its report, seen changed: " + "; ".join(changed))
    roles = sorted({truth[o["address"][2:]]["role"] for o in objs
                    if o["address"][2:] in truth})
    print(f"reports decoded: {len(objs)}; roles: {', '.join(roles)}")

    # Latency: the report's kmsg record vs followstamp's mark after its line.
    marks = {int(m[2]): int(m[1]) for m in
             re.finditer(r"^inodedump-follow-mark: usec=(\d+) seq=(\d+)$", console, re.M)}
    lat = []
    for x in objs:
        if x["seq"] in marks:
            lat.append((marks[x["seq"]] - x["timestamp_ns"] // 1000) / 1000)
    c.eq("a latency mark for every report", len(lat), len(objs))
    stamp = re.search(r"^inodedump-followstamp: lines=(\d+) marks=(\d+)$", console, re.M)
    c.ok("followstamp passed every line on, a mark each",
         stamp and int(stamp[1]) == int(stamp[2]) == len(objs), stamp[0] if stamp else "none")
    for m in re.finditer(r"^inodedump-follow-err: vmcore-inode: inode (0x[0-9a-f]+): "
                         r"forget ([0-9.]+) ms, decode ([0-9.]+) ms$", console, re.M):
        print(f"follower: inode {m[1]}: forget {m[2]} ms, decode {m[3]} ms")
    if lat:
        print("report-to-output latency ms: " + ", ".join(f"{v:.1f}" for v in lat))
    times = {}
    for m in re.finditer(r"^inodedump-time: name=(\S+) ms=([0-9.]+) rc=(\d+)$", console, re.M):
        print(f"one-shot {m[1]}: {m[2]} ms, exit {m[3]}")
        times[m[1]] = (float(m[2]), int(m[3]))
    # The one-shot ways the benchmark compares with: they ran, and drgn
    # saw the inode the follower decoded as the truth line has it.
    for name, want in (("vmcore-inode-live-1", 1), ("vmcore-inode-live-info", 0),
                       ("drgn-kcore-1", 0), ("drgn-kcore-2", 0), ("drgn-kcore-3", 0)):
        c.eq(f"one-shot {name} exit code", times.get(name, (None, None))[1], want)
    victim = next((t for t in truth.values() if t["role"] == "victim_symlink"), None)
    drgn_line = console_lines(console, "inodedump-drgn: ")
    c.ok("drgn on /proc/kcore read the victim as the truth line has it",
         victim and drgn_line and drgn_line[0].startswith(
             f"inode 0x{victim['addr']} ino {victim['ino']} mode {victim['mode'][1:]} "
             f"opflags {victim['opflags']} flags {victim['flags']} "
             f"state {victim['state']} count {victim['count']} "),
         f"{drgn_line[:3]} vs {victim}")

    # Every inode three ways (bench/kcore_bench.py): --live --sweep through
    # our /proc/kcore reader, the sweep of a QEMU dump of the guest taken
    # just before, drgn's s_inodes walk after. The same kernel a moment
    # apart: the counts agree but for the few inodes made in between.
    counts = {m[1]: int(m[2]) for m in re.finditer(
        r"^inodedump-bench: (live-sweep|dump-sweep) inodes=(\d+)$", console, re.M)}
    dt = re.search(r"^inodedump-bench: drgn-sweep total superblocks=\d+ inodes=(\d+)$",
                   console, re.M)
    bench_err = console_lines(console, "inodedump-bench-err: ")
    for name in ("live-sweep", "dump-sweep", "drgn-sweep"):
        # 1: the sweep found the trigger's broken inodes (violations)
        c.ok(f"{name} ran", times.get(name, (None, None))[1] in
             ((0, 1) if name != "drgn-sweep" else (0,)), str(times.get(name)))
    c.ok("no sanitizer report in the sweeps",
         not any(b in e for e in bench_err
                 for b in ("AddressSanitizer", "runtime error:", "LeakSanitizer")),
         "\n".join(bench_err)[-2000:])
    info = console_lines(console, "inodedump-bench: info ")
    c.ok("--live: /proc/kcore read by inodedump's own reader, its program "
         "headers translating", any(re.match(r"read by +inodedump$", i) for i in info) and
         any(re.match(r"translated by +/proc/kcore's program headers", i) for i in info),
         "\n".join(info))
    live_n, dump_n = counts.get("live-sweep"), counts.get("dump-sweep")
    c.ok("the live sweep and the dump's found (nearly) the same inodes",
         live_n and dump_n and live_n > 1000 and abs(live_n - dump_n) <= 20,
         f"live {live_n}, dump {dump_n}")
    c.ok("the live sweep and drgn's s_inodes walk found (nearly) the same inodes",
         live_n and dt and abs(live_n - int(dt[1])) <= 20,
         f"live {live_n}, drgn {dt[1] if dt else None}")
    print(f"sweep inodes: live {live_n}, dump {dump_n}, drgn {dt[1] if dt else None}")

    # The guest stayed up: warnings only.
    for bad in ("Kernel panic", "kernel BUG", "Oops"):
        c.ok(f"no '{bad}' on the console", bad not in console)
    c.finish()


if __name__ == "__main__":
    main()
