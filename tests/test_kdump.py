#!/usr/bin/env python3
"""The kdump sets (tests/vmcores/recipes/kdump.sh): dumps a real kdump
capture wrote. The capture kernel (loaded with Debian 12's `kexec -p`) ran
Debian 12's makedumpfile on /proc/vmcore after the panic and saved the
dumps and the kernel log to a virtio disk in kdump-tools' layout
(/var/crash/STAMP/dump.STAMP, dmesg.STAMP) and RHEL's
(/var/crash/127.0.0.1-DATE/vmcore, vmcore-dmesg.txt), each at -d 31 and
-d 17; the set holds them as var-crash/ (dumps.txt lists them) and the disk
image.

Expected values come from the guest kernel (the trigger module's truth
lines and the console's report lines: kdump73) or from drgn reading the
-d 17 capture (kdump612), from makedumpfile's own header fields and bitmap
(read here with struct, not by vmcore-inode), and from debugfs reading the
disk image; never from vmcore-inode.

usage: test_kdump.py SET capture|truth|reports|dmesg
  capture  four dumps, both layouts at both levels, named as the tools
           name them, each the file on the disk image, its header saying
           the level and compression it was asked for; the capture kernel
           ran after the panic
  truth    every truth inode of every dump: at -d 17 decoded and equal to
           the truth; at -d 31 equal to the truth, or lost with the reason
           (filtered out at dump level 31) and a page frame the dump's own
           bitmap lacks and the -d 17 dump of the same capture has
  reports  every dump_inode() report of the console found in every dump
           (tests/test_reports_console.py on each; at -d 31 a reported
           inode may be lost, said so), none on kdump612
  dmesg    the saved dmesg file of every dump holds the console's report
           and truth lines and the panic, and every line of it is in the
           dump's log as vmcore-inode --log prints it
"""
import hashlib
import json
import os
import re
import struct
import subprocess
import sys

from fixture import Checker, read_truth, run, run_json, set_dir
from test_truth import check_inode

HERE = os.path.dirname(os.path.abspath(__file__))
TS = re.compile(r"^\[ *\d+\.\d+\] ")
STAMP = r"\d{12}"
DATE = r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d"
LAYOUT_RE = {
    "kdump-tools": (re.compile(rf"^var-crash/(?P<stamp>{STAMP})/dump\.(?P=stamp)$"),
                    re.compile(rf"^var-crash/(?P<stamp>{STAMP})/dmesg\.(?P=stamp)$")),
    "rhel": (re.compile(rf"^var-crash/127\.0\.0\.1-{DATE}/vmcore$"),
             re.compile(rf"^var-crash/127\.0\.0\.1-{DATE}/vmcore-dmesg\.txt$")),
}
# makedumpfile's diskdump_mod.h: disk_dump_header.status bits
COMPRESS = {"-c": 0x1, "-l": 0x2}
FILTERED = re.compile(r"\(physical (0x[0-9a-f]+)\) was filtered out of the dump "
                      r"by its writer \(dump level (\d+)")


def dumps_of(d):
    """dumps.txt: one dict a dump (layout, args, level, dump, dmesg paths)."""
    path = os.path.join(d, "dumps.txt")
    if not os.path.exists(path):
        raise SystemExit(f"FAIL {path} missing: the set was not built by "
                         "recipes/kdump.sh")
    out = []
    for line in open(path):
        row = dict(t.partition("=")[::2] for t in line.split())
        args = row["args"].split("_")
        row["level"] = int(args[args.index("-d") + 1])
        row["compress"] = next(a for a in args if a in COMPRESS)
        out.append(row)
    return out


class Kdump:
    """The header and the dumped-pages bitmap of a makedumpfile kdump file
    (diskdump_mod.h: disk_dump_header, kdump_sub_header, two bitmaps)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            head = f.read(4096)
            self.signature = head[:8]
            self.status, self.block_size, self.sub_blocks, self.bitmap_blocks = \
                struct.unpack_from("<iiii", head, 424)
            f.seek(self.block_size)
            _phys_base, self.dump_level = struct.unpack("<Qi", f.read(12))
            bitmap = self.block_size * (1 + self.sub_blocks)
            half = self.bitmap_blocks // 2 * self.block_size
            f.seek(bitmap + half)
            self.bitmap2 = f.read(half)

    def has_pfn(self, pfn):
        i = pfn // 8
        return i < len(self.bitmap2) and bool(self.bitmap2[i] >> (pfn % 8) & 1)


# the first kernel's crash: sysrq-c's, or an oops (kernel BUG) that with
# oops=panic enters the capture kernel from oops_end(), before panic()
# prints its "Kernel panic - not syncing" line
CRASH = re.compile(r"^(sysrq: Trigger a crash|kernel BUG at |Kernel panic - not syncing)")


def capture_index(con):
    return next((i for i, x in enumerate(con)
                 if x.startswith("inodedump-kdump: capture kernel ")), None)


def console_lines(d):
    text = open(os.path.join(d, "serial.log"), errors="replace").read()
    return [TS.sub("", x) for x in text.replace("\r", "").split("\n")]


def dmesg_lines(path):
    text = open(path, errors="replace").read()
    return [TS.sub("", x) for x in text.replace("\r", "").split("\n")]


def case_capture(c, set_name, d, dumps):
    info = dict(x.strip().partition("=")[::2] for x in open(os.path.join(d, "info.txt")))
    c.eq("four dumps: both layouts at -d 31 and -d 17",
         sorted((x["layout"], x["level"]) for x in dumps),
         [("kdump-tools", 17), ("kdump-tools", 31), ("rhel", 17), ("rhel", 31)])
    con = console_lines(d)
    loaded = [x for x in con if x.startswith("inodedump-kdump: loaded=")]
    c.ok("the first kernel loaded the capture kernel (kexec -p)",
         len(loaded) == 1 and loaded[0].startswith("inodedump-kdump: loaded=1 "), str(loaded))
    crash = next((i for i, x in enumerate(con) if CRASH.match(x)), None)
    cap = capture_index(con)
    c.ok("the capture kernel's /init ran after the crash",
         crash is not None and cap is not None and cap > crash, f"crash {crash} capture {cap}")
    c.eq("the capture kernel did not panic",
         [x for x in con[cap or 0:] if "Kernel panic" in x], [])
    if cap is not None:
        c.ok("the capture kernel is the same release",
             con[cap].startswith(f"inodedump-kdump: capture kernel {info.get('release')} "), con[cap])
        c.ok("the capture kernel runs with elfcorehdr= (kexec added it)",
             "elfcorehdr=" in con[cap], con[cap])
        c.ok("and without crashkernel=", "crashkernel=" not in con[cap], con[cap])
    c.eq("one done marker", sum(x.startswith("inodedump-kdump: done captures=4") for x in con), 1)
    c.eq("no FAILED line", [x for x in con if "inodedump-kdump: FAILED" in x
                             or "inodedump-init: FAILED" in x], [])
    disk = os.path.join(d, "kdump-disk.img")
    c.ok("the disk image is kept", os.path.isfile(disk))
    ls = subprocess.run(["debugfs", "-R", "ls -p /var/crash", disk], capture_output=True,
                        text=True)
    names = sorted(f.split("/")[5] for f in ls.stdout.splitlines()
                   if f.count("/") >= 6 and f.split("/")[5] not in (".", ".."))
    c.eq("the disk's /var/crash holds the four directories, nothing else",
         names, sorted(os.path.dirname(x["dump"]).split("/", 1)[1] for x in dumps))
    for x in dumps:
        n = f"{x['layout']} -d {x['level']}"
        dump_re, dmesg_re = LAYOUT_RE[x["layout"]]
        c.ok(n + ": dump named as the tool names it", dump_re.match(x["dump"]) is not None,
             x["dump"])
        c.ok(n + ": dmesg named as the tool names it", dmesg_re.match(x["dmesg"]) is not None,
             x["dmesg"])
        c.eq(n + ": dump and dmesg in one directory", os.path.dirname(x["dump"]),
             os.path.dirname(x["dmesg"]))
        listing = subprocess.run(["debugfs", "-R", "ls -p /var/crash/" +
                                  os.path.dirname(x["dump"]).split("/", 1)[1], disk],
                                 capture_output=True, text=True).stdout
        files = sorted(f.split("/")[5] for f in listing.splitlines()
                       if f.count("/") >= 6 and f.split("/")[5] not in (".", ".."))
        c.eq(n + ": its directory holds the dump and the dmesg (no *-incomplete)",
             files, sorted([os.path.basename(x["dump"]), os.path.basename(x["dmesg"])]))
        for rel in (x["dump"], x["dmesg"]):
            path = os.path.join(d, rel)
            mine = hashlib.sha256(open(path, "rb").read()).hexdigest()
            cat = subprocess.run(["debugfs", "-R", "cat /var/crash/" + rel.split("/", 1)[1],
                                  disk], capture_output=True)
            c.eq(f"{n}: {rel} is the file on the disk image", hashlib.sha256(
                cat.stdout).hexdigest(), mine)
        k = Kdump(os.path.join(d, x["dump"]))
        c.eq(n + ": makedumpfile's kdump signature", k.signature, b"KDUMP   ")
        c.eq(n + ": header's dump level", k.dump_level, x["level"])
        c.eq(n + ": header's compression", k.status & 0x27, COMPRESS[x["compress"]])
        osrel = re.search(rb"OSRELEASE=(\S+)", open(os.path.join(d, x["dump"]), "rb").read(
            k.block_size * (1 + k.sub_blocks)))
        c.eq(n + ": its VMCOREINFO's release", osrel and osrel.group(1).decode(),
             info.get("release"))
    by = {(x["layout"], x["level"]): os.path.getsize(os.path.join(d, x["dump"])) for x in dumps}
    for layout in LAYOUT_RE:
        if (layout, 17) in by and (layout, 31) in by:
            c.ok(f"{layout}: the -d 31 dump is smaller than the -d 17 one",
                 by[(layout, 31)] < by[(layout, 17)], str(by))


def d17_of(d, dumps, layout):
    x = next(y for y in dumps if y["layout"] == layout and y["level"] == 17)
    return Kdump(os.path.join(d, x["dump"]))


def check_filtered(c, n, reason, level, k, k17):
    """A part said lost: the reason names the dump level, and the page frame
    it names is missing from this dump's bitmap but in the -d 17 dump's."""
    m = FILTERED.search(reason or "")
    c.ok(n + ": lost with its reason (filtered out, dump level)", m is not None, reason)
    if not m:
        return
    c.eq(n + ": the reason's dump level", int(m.group(2)), level)
    pfn = int(m.group(1), 16) >> 12
    c.ok(f"{n}: pfn 0x{pfn:x} is not in this dump's bitmap", not k.has_pfn(pfn))
    c.ok(f"{n}: pfn 0x{pfn:x} is in the -d 17 dump of the same capture", k17.has_pfn(pfn))


def case_truth(c, set_name, d, dumps):
    vmlinux = os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    for x in dumps:
        level = x["level"]
        n0 = f"{x['layout']} -d {level}"
        path = os.path.join(d, x["dump"])
        k, k17 = Kdump(path), d17_of(d, dumps, x["layout"])
        p, doc = run_json(vmlinux, path, addrs)
        c.ok(n0 + ": no signal, no sanitizer report", p.returncode >= 0 and
             "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr[-600:])
        inodes = doc.get("inodes", [])
        c.eq(n0 + ": one result per address", len(inodes), len(truth))
        lost = partial = violations = 0
        for t, got in zip(truth, inodes):
            n = f"{set_name}/{x['dump']}/{t['role']}"
            if "error" in got:
                lost += 1
                c.ok(n + ": only -d 31 may lose an inode", level == 31, str(got["error"]))
                c.eq(n + ": error kind", got["error"].get("kind"), "filtered")
                check_filtered(c, n, got["error"].get("message"), level, k, k17)
                c.ok(n + ": stderr says it", f"struct inode at 0x{t['addr']}" in p.stderr,
                     p.stderr[-1000:])
                continue
            violations += len(got["violations"])
            errs = got.get("errors") or []
            if level == 17:
                c.eq(n + ": nothing partial at -d 17", errs, [])
            for e in errs:
                partial += 1
                check_filtered(c, f"{n} {e['field']}", e["reason"], level, k, k17)
            lost_path = any(e["field"] in ("paths", "i_dentry") for e in errs)
            check_inode(c, n, t, got, paths=not lost_path)
        print(f"NOTE {set_name} {n0}: {lost} of {len(truth)} truth inodes lost, "
              f"{partial} parts lost")
        c.eq(n0 + ": exit code (3 an inode lost, 4 a part lost, 1 a violation)",
             p.returncode, 3 if lost else 4 if partial else 1 if violations else 0)


def case_reports(c, set_name, d, dumps):
    if set_name.startswith("kdump73"):
        # the console's report lines (reports.txt: the recipe's awk), by address
        want = [m.group(1) for m in (re.search(r"inode:([0-9a-f]{16})", ln) for ln in
                open(os.path.join(d, "reports.txt"))) if m]
        c.ok("the console holds the trigger's 8 reports", len(want) == 8, str(want))
        for x in dumps:
            n = f"{x['layout']} -d {x['level']}"
            p = run(["-k", os.path.join(d, "vmlinux"), "--reports", "--json",
                     os.path.join(d, x["dump"])])
            try:
                got = [r["address"] for r in json.loads(p.stdout)["reports"]]
            except (json.JSONDecodeError, KeyError):
                got = p.stderr[-500:]
            c.eq(n + ": --reports finds every report line of the console, in order",
                 got, ["0x" + a for a in want])
            p = subprocess.run([sys.executable, os.path.join(HERE, "test_reports_console.py"),
                                set_name, x["dump"]] + (["lossy"] if x["level"] == 31 else []),
                               capture_output=True, text=True)
            fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAIL")]
            c.ok(n + ": test_reports_console.py passes", p.returncode == 0,
                 "\n".join(fails[:20]) + p.stderr[-500:])
            print(f"NOTE {n}: {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ''}")
        return
    con = console_lines(d)
    c.eq("the console holds no report", [x for x in con if ": inode:" in x], [])
    for x in dumps:
        n = f"{x['layout']} -d {x['level']}"
        p = run(["-k", os.path.join(d, "vmlinux"), "--json", os.path.join(d, x["dump"])])
        try:
            doc = json.loads(p.stdout)
        except json.JSONDecodeError:
            c.ok(n + ": JSON", False, p.stderr[-500:])
            continue
        c.eq(n + ": no report found", doc.get("reports"), [])
        c.eq(n + ": exit code", p.returncode, 0)


def case_dmesg(c, set_name, d, dumps):
    con = console_lines(d)
    con = con[:capture_index(con)]   # the first kernel's console
    version = next((x for x in con if x.startswith("Linux version ")), None)
    want = []
    if set_name.startswith("kdump73"):
        want += [("report", x) for x in open(os.path.join(d, "reports.txt")).read().splitlines()]
        want += [("truth", x) for x in con if x.startswith("inodedump-truth: ")]
        want += [("bug", x) for x in con if x.startswith("kernel BUG at fs/namei.c:")][:1]
        want += [("oops", next((x for x in con if x.startswith("Oops: ")), "(no Oops: line)"))]
        c.eq("the console's truth lines", len([w for w in want if w[0] == "truth"]),
             len(read_truth(os.path.join(d, "truth.txt"))))
    else:
        want += [("sysrq", "sysrq: Trigger a crash")]
        want += [("panic", next((x for x in con if x.startswith(
            "Kernel panic - not syncing")), "(no panic line on the console)"))]
    want += [("version", version)]
    for x in dumps:
        n = f"{x['layout']} -d {x['level']} {os.path.basename(x['dmesg'])}"
        lines = dmesg_lines(os.path.join(d, x["dmesg"]))
        have = set(lines)
        for kind, w in want:
            c.ok(f"{n} holds the console's {kind} line", w in have, w)
        c.ok(n + ": nothing of the capture kernel's", not any(
            "elfcorehdr=" in ln for ln in lines if ln.startswith("Command line:")))
        p = run(["-k", os.path.join(d, "vmlinux"), "--log", os.path.join(d, x["dump"])])
        # a record of several lines: makedumpfile indents the lines after
        # the first by the timestamp's width, vmcore-dmesg and --log do not
        log = set(TS.sub("", ln).strip() for ln in p.stdout.replace("\r", "").split("\n"))
        missing = [ln for ln in lines if ln.strip() and ln.strip() not in log]
        c.ok(n + ": every line is in the dump's --log", not missing and p.returncode == 0,
             f"exit {p.returncode}, {len(missing)} of {len(lines)} missing, first: "
             f"{missing[:3]} {p.stderr[-300:]}")


def main():
    set_name, case = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    dumps = dumps_of(d)
    c = Checker()
    globals()["case_" + case](c, set_name, d, dumps)
    c.finish()


if __name__ == "__main__":
    main()
