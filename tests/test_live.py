#!/usr/bin/python3
"""--live decodes the running kernel's inodes and reports, inside a real
guest of the patched kernel.

usage: test_live.py [BINARY]      (default: $VMCORE_INODE, as meson sets it)

`tests/vmcores/make-fixtures.sh live BINARY` boots the patched kernel
with BINARY, its ldd closure and a debug-only vmlinux
in the initramfs; the guest's /init loads the trigger module and runs
vmcore-inode --live, its framed output going to the guest's ttyS2
(live.txt). The set is cached by the binary's and libraries' contents, so an
unchanged build does not boot again. Truth: the guest kernel's own
inodedump-truth lines and its own /dev/kmsg view of its log.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "vmcores"))
from fixture import Checker, escape_log, read_truth  # noqa: E402
import schema_check  # noqa: E402
from printk_ring import dmesg_line, parse_kmsg_bytes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(HERE, "vmcores", "make-fixtures.sh")

BEGIN = re.compile(rb"^inodedump-live-begin name=(\S+)$", re.M)


def parse_live(path):
    """live.txt -> {name: {"out", "err", "rc", "seconds"}}"""
    data = open(path, "rb").read()
    runs = {}
    for m in BEGIN.finditer(data):
        name = m[1].decode()
        rest = data[m.end() + 1:]
        sep = b"\ninodedump-live-stderr name=" + m[1] + b"\n"
        end = re.search(rb"\ninodedump-live-end name=" + re.escape(m[1]) +
                        rb" rc=(\d+) seconds=([0-9.]+)\n", rest)
        if not end or sep not in rest[:end.end()]:
            runs[name] = None
            continue
        # live_run appends a newline to each stream: the markers' own
        out, _, err = rest[:end.start()].partition(sep)
        runs[name] = {"out": out, "err": err, "rc": int(end[1]),
                      "seconds": float(end[2])}
    return runs


def as_int(v, base=10):
    return None if v is None else int(v.removeprefix("0x"), base)


def check_inode(c, n, got, t):
    """One decoded inode against one truth line."""
    if "error" in got:
        c.ok(n, False, f"decode failed: {got['error']}")
        return
    c.eq(n + " address", got["address"], "0x" + t["addr"])
    for key, base in (("ino", 10), ("mode", 8), ("opflags", 16), ("flags", 16),
                      ("state", 16), ("count", 10), ("nlink", 10),
                      ("size", 10), ("uid", 10), ("gid", 10)):
        c.eq(f"{n} {key}", got[key], as_int(t[key], base))
    c.eq(n + " s_id", got["s_id"], t["s_id"])
    c.eq(n + " fs_type", got["fs_type"], t["fstype"])
    c.eq(n + " link", got["link"], t["link"])
    c.eq(n + " link_strlen", got["link_strlen"], as_int(t["link_strlen"]))
    if got["type"] == "symlink" and got["opflags"] & 0x40:
        c.eq(n + " linklen", got["linklen"], as_int(t["linklen"]))
    elif t["linklen"] is None:
        c.eq(n + " linklen", got["linklen"], None)
    for key in ("i_op", "i_fop", "a_ops", "s_op"):
        if key in t:
            c.eq(f"{n} {key}", got[key], t[key])
    if t.get("sb"):
        c.eq(n + " sb", got["sb"], "0x" + t["sb"])
    if t.get("rdev") is not None:
        c.eq(n + " rdev", got["rdev"], t["rdev"])
    if t.get("path"):
        c.ok(n + " path", t["path"] in (got.get("paths") or []),
             f"{t['path']} not in {got.get('paths')}")
    want = ["cached_link_length"] if t["role"].startswith("victim") else []
    c.eq(n + " violations", sorted(v["check"] for v in got["violations"]), want)


def load_json(c, name, run):
    try:  # a document as the published schema says
        return schema_check.check_text(run["out"], "decode_document", name)
    except (schema_check.SchemaFailure, UnicodeDecodeError) as e:
        c.ok(f"{name}: stdout is JSON, as the schema says", False,
             f"{e}; rc {run['rc']}; stderr {run['err'][-2000:]!r}; "
             f"stdout {run['out'][:500]!r}")
        return None


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("VMCORE_INODE")
    if not binary:
        raise SystemExit("FAIL VMCORE_INODE is not set (run through meson test)")
    p = subprocess.run(["bash", MAKE, "live", binary], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(p.stderr[-6000:])
        raise SystemExit(f"FAIL make-fixtures.sh live {binary}: exit {p.returncode}")
    d = p.stdout.strip().splitlines()[-1]
    reused = "reusing complete set" in p.stderr
    print(f"live set {d} ({'reused: same binary and libraries' if reused else 'booted now'})")
    info = dict(line.split("=", 1) for line in
                open(os.path.join(d, "info.txt")).read().splitlines() if "=" in line)
    print(f"guest boot to ready (including every live run) {info.get('boot_to_ready_s')} s, "
          f"QEMU total {info.get('qemu_total_s')} s")
    truth = read_truth(os.path.join(d, "truth.txt"))
    victims = {t["role"]: t for t in truth if t["role"].startswith("victim")}
    serial = open(os.path.join(d, "serial.log"), "rb").read()
    runs = parse_live(os.path.join(d, "live.txt"))
    c = Checker()
    for name, r in sorted(runs.items()):
        if r:
            print(f"  guest run {name}: rc {r['rc']}, {r['seconds']:.2f} s")

    def get(name):
        r = runs.get(name)
        c.ok(f"guest ran {name}", r is not None, "missing or unframed in live.txt")
        return r

    # Sanitizer builds: nothing may have been reported inside the guest.
    for name, r in runs.items():
        if r:
            c.ok(f"{name}: no sanitizer report", b"AddressSanitizer" not in r["err"]
                 and b"runtime error:" not in r["err"]
                 and b"LeakSanitizer" not in r["err"], r["err"][-3000:].decode(errors="replace"))

    r = get("id")
    if r:
        c.ok("the live runs are root", r["out"].startswith(b"uid=0 "),
             r["out"].decode(errors="replace"))

    # Every truth inode, all in one run and each alone.
    addrs = [t["addr"] for t in truth]
    seen = []
    r = get("addrs")
    if r:
        c.eq("addrs exit code", r["rc"], 1 if victims else 0)
        doc = load_json(c, "addrs", r)
        if doc:
            c.eq("addrs schema", doc.get("schema"), 1)
            inodes = doc.get("inodes", [])
            c.eq("addrs: one result per address", len(inodes), len(addrs))
            for t, got in zip(truth, inodes):
                check_inode(c, f"live/{t['role']}", got, t)
    for t in truth:
        if t["addr"] in seen:        # hardlink: same inode as regular
            continue
        seen.append(t["addr"])
        r = get(f"addr-{t['addr']}")
        if not r:
            continue
        c.eq(f"live alone/{t['role']} exit code", r["rc"],
             1 if t["role"].startswith("victim") else 0)
        doc = load_json(c, f"addr-{t['addr']}", r)
        if doc and len(doc.get("inodes", [])) == 1:
            check_inode(c, f"live alone/{t['role']}", doc["inodes"][0], t)
        elif doc:
            c.ok(f"live alone/{t['role']}: one inode", False, str(doc)[:500])

    # No address: the reports, read from the live kernel log.
    r = get("reports")
    if r:
        c.eq("reports exit code", r["rc"], 1)
        doc = load_json(c, "reports", r)
        reports = (doc or {}).get("reports") or []
        c.eq("one report per victim", len(reports), len(victims))
        by_addr = {x["address"]: x for x in reports}
        for role, t in sorted(victims.items()):
            x = by_addr.get("0x" + t["addr"])
            c.ok(f"live report {role}", x is not None, str(list(by_addr)))
            if not x:
                continue
            c.eq(f"live report {role} reason", x["reason"],
                 "VFS_WARN_ON_INODE(strlen(link) != linklen)")
            c.ok(f"live report {role} line on the console",
                 f"{x['reason']} encountered for inode {t['addr']}".encode() in serial)
            c.ok(f"live report {role} location", (x["location"] or "").startswith(
                "WARNING: CPU: ") and "vfsdbg_trigger" in x["location"],
                str(x["location"]))
            c.eq(f"live report {role} task", x["task"], "insmod")
            c.eq(f"live report {role} differences", x["differences"], [])
            check_inode(c, f"live report {role}", x["inode"], t)

    # --log on the live kernel: the kernel's own /dev/kmsg view around it.
    before, after, r = get("kmsg-before"), get("kmsg-after"), get("log")
    if before and after and r:
        kb, eb = parse_kmsg_bytes(before["out"])
        ka, ea = parse_kmsg_bytes(after["out"])
        c.ok("kmsg views complete", eb and ea and eb["lost"] == "0" and ea["lost"] == "0")
        # The guest filled its ring (as the wrapped set does) before the
        # trigger: the live log reader works on a ring wrapped many times.
        c.ok("live ring wrapped: early boot records gone",
             kb and kb[0]["seq"] > 0 and b"Linux version" in serial and
             not any(b"Linux version" in k["text"] for k in kb),
             f"first seq {kb[0]['seq'] if kb else None}")
        # The kernel's bytes; --log escapes what a terminal would act on.
        wb = escape_log(b"".join(dmesg_line(k["ts_usec"], k["text"])
                                 for k in kb))
        wa = escape_log(b"".join(dmesg_line(k["ts_usec"], k["text"])
                                 for k in ka))
        c.eq("live --log exit code", r["rc"], 0)
        ok = r["out"] in (wb, wa) or (r["out"].startswith(wb) and wa.startswith(r["out"]))
        if not ok:
            gl, wl = r["out"].split(b"\n"), wb.split(b"\n")
            for i, (g, w) in enumerate(zip(gl, wl)):
                if g != w:
                    print(f"live --log differs at line {i + 1}:\n ours   {g!r}\n kernel {w!r}")
                    break
            nafter = wa.count(b"\n")
            print(f"ours {len(gl) - 1} lines, kernel {len(wl) - 1} lines "
                  f"before, {nafter} after")
        c.ok("live --log equals the kernel's /dev/kmsg view", ok)
        c.ok("live log holds both reports",
             r["out"].count(b" encountered for inode ") == len(victims))

    # The guest kernel itself stayed quiet: the two reports' splats only.
    c.eq("kernel WARNINGs on the console", serial.count(b"WARNING: CPU: "),
         len(victims))
    for bad in (b"BUG: ", b"Oops", b"usercopy", b"Kernel panic"):
        c.ok(f"no '{bad.decode()}' on the console", bad not in serial)
    c.finish()


if __name__ == "__main__":
    main()
