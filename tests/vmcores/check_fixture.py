#!/usr/bin/python3
"""Check one inodedump fixture set against its truth, with drgn.

    /usr/bin/python3 check_fixture.py DIR [--vmlinux PATH] [--set patched|stock]

DIR is a fixture set (tests/vmcores/out/<set>, or tests/vmcores/committed).
Checks, one output line each: `PASS name [(detail)]`, `FAIL name: why`, or
`SKIP name: why` (a dump format drgn cannot open -- reported, not a failure).
Exit status 1 if any check FAILs (or if drgn could open no dump at all).

  truth-format          every truth line has the contract's keys in order;
                        the set's roles are all there; hardlink shares its
                        inode with regular
  serial-reports        serial.log (or reports.txt) holds exactly the expected
                        `encountered for inode <addr>` reports: 2 naming the
                        victim_symlink and victim_new truth addresses (patched),
                        none (stock)
  serial-stat           the guest's own stat(1) of each path (inodedump-stat
                        lines in serial.log) agrees with truth.txt on ino,
                        mode, nlink, size, uid, gid, rdev
  open:<dump>           drgn opens the dump with the vmlinux
  dmesg:<dump>          the dump's own kernel log (drgn get_dmesg) holds the
                        expected reports (and, for panic.vmcore, the panic)
  truth:<dump>          drgn reads every truth inode at its address and agrees
                        field by field; every truth path resolves (dentry walk)
                        to that address. d31-zlib.vmcore is allowed to have
                        lost inodes (makedumpfile 1.7.2 -d 31 drops slab pages
                        on 6.10+, FIXTURES pitfall 8): there only readable
                        inodes must agree.
  *:panic.vmcore~makedumpfile-d17
                        drgn cannot read QEMU's paging:false ELF, so the
                        post-panic dump is also checked after elf_fixphdr.py +
                        makedumpfile -d 17 -c (into a temporary file), with
                        dmesg-panic: the log holds "sysrq triggered crash"
"""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import drgn  # noqa: E402
from drgn.helpers.linux.printk import get_dmesg  # noqa: E402

import drgn_truth as dt  # noqa: E402

DUMPS = ["elf-nopaging.vmcore", "elf-paging.vmcore", "qemu-kdump-zlib.flat",
         "d17-zlib.vmcore", "d17-lzo.vmcore", "d31-zlib.vmcore", "panic.vmcore"]
LOSSY = {"d31-zlib.vmcore"}
REPORT_RE = re.compile(r"VFS_(?:WARN|BUG)_ON_INODE\(.*\) encountered for inode ([0-9a-f]+)")
STAT_RE = re.compile(r"inodedump-stat: ([^\r\n]*)", re.M)
PATCHED_ROLES = set(dt.FILES) | {"victim_symlink", "victim_new"}
STOCK_ROLES = {r for r, _ in dt.STOCK_ROLES}

results = []


def report(status, name, why=""):
    results.append(status)
    if status == "PASS":
        print(f"PASS {name}" + (f" ({why})" if why else ""))
    else:
        print(f"{status} {name}: {why}")
    sys.stdout.flush()


def read_truth(path):
    lines = [ln.strip() for ln in open(path) if ln.strip()]
    return [dt.parse_truth_line(ln) for ln in lines], lines


def check_truth_format(truth, raw, set_):
    bad = []
    for t, ln in zip(truth, raw):
        keys = [kv.split("=", 1)[0] for kv in ln.split(" ")]
        if keys[:len(dt.KEYS)] != dt.KEYS:
            bad.append(f"{t.get('role', '?')}: keys {keys[:len(dt.KEYS)]}")
        extra = keys[len(dt.KEYS):]
        if any(k not in dt.OPTIONAL_KEYS for k in extra):
            bad.append(f"{t.get('role', '?')}: unknown optional keys {extra}")
        if any(v == "" for v in t.values()):
            bad.append(f"{t.get('role', '?')}: empty value")
        if not re.fullmatch(r"[0-9a-f]+", t.get("addr", "")):
            bad.append(f"{t.get('role', '?')}: addr {t.get('addr')!r}")
    roles = {t["role"] for t in truth}
    want = PATCHED_ROLES if set_ == "patched" else STOCK_ROLES
    if roles != want:
        bad.append(f"roles missing {sorted(want - roles)} extra {sorted(roles - want)}")
    by_role = {t["role"]: t for t in truth}
    for pre in ("", "ext4_") if set_ == "stock" else ("",):
        r, h = by_role.get(pre + "regular"), by_role.get(pre + "hardlink")
        if r and h and r["addr"] != h["addr"]:
            bad.append(f"{pre}hardlink addr {h['addr']} != {pre}regular addr {r['addr']}")
    for t in truth:
        if t["role"].endswith("symlink_long") and t["size"] != "-" and int(t["size"]) <= 128:
            bad.append(f"{t['role']} size {t['size']} <= 128")
        if t["role"] == "victim_symlink" and int(t["size"]) <= 128:
            bad.append(f"victim_symlink size {t['size']} <= 128")
    if bad:
        report("FAIL", "truth-format", "; ".join(bad))
    else:
        report("PASS", "truth-format", f"{len(truth)} lines, roles ok")


def expected_reports(truth, set_):
    if set_ != "patched":
        return []
    by_role = {t["role"]: t for t in truth}
    return sorted(by_role[r]["addr"] for r in ("victim_symlink", "victim_new") if r in by_role)


def check_reports(name, text, want):
    got = sorted(REPORT_RE.findall(text))
    if got == want:
        report("PASS", name, f"{len(got)} reports" + (f": {' '.join(got)}" if got else ""))
    else:
        report("FAIL", name, f"reports {got}, expected {want}")


def check_serial_stat(d, truth):
    log = open(os.path.join(d, "serial.log"), errors="replace").read()
    stats = {}
    for m in STAT_RE.finditer(log):
        s = dt.parse_truth_line(m.group(1).strip())
        stats[s["path"]] = s
    bad, n = [], 0
    for t in truth:
        if t["path"] == "-":
            continue
        s = stats.get(t["path"])
        if s is None:
            bad.append(f"{t['path']}: no inodedump-stat line")
            continue
        maj, mnr = (int(x, 16) for x in s["rdev"].split(":"))
        view = {"ino": s["ino"], "mode": "0%o" % int(s["rawmode"], 16), "nlink": s["nlink"],
                "size": s["size"], "uid": s["uid"], "gid": s["gid"], "rdev": f"{maj}:{mnr}"}
        for k, v in view.items():
            if k in t and t[k] != v:
                bad.append(f"{t['role']} {k}: stat {v} truth {t[k]}")
        n += 1
    if bad:
        report("FAIL", "serial-stat", "; ".join(bad[:10]))
    else:
        report("PASS", "serial-stat", f"{n} paths agree with the guest's stat")


def compare_dump(prog, truth, lossy):
    """-> (mismatches, unreadable inodes, lost path walks, agreed)"""
    mism, unread, lostpaths, ok = [], [], [], 0
    for t in truth:
        role = t["role"]
        try:
            f = dt.inode_fields(prog, drgn.Object(prog, "struct inode *", value=int(t["addr"], 16)))
        except drgn.FaultError as e:
            unread.append(f"{role}: {e}")
            continue
        diffs = [f"{k}: dump {f[k]!r} truth {t[k]!r}" for k in t
                 if k not in ("path", "role") and k in f and f[k] != t[k]]
        missing = [k for k in t if k not in ("path", "role") and k not in f]
        if missing:
            diffs.append(f"keys drgn cannot compute: {missing}")
        if t["path"] != "-":
            try:
                dent = dt.lookup_path(prog, t["path"])
                a = "%x" % int(dent.d_inode)
                if a != t["addr"]:
                    diffs.append(f"path {t['path']} -> {a}, truth addr {t['addr']}")
            except (LookupError, drgn.FaultError) as e:
                if lossy:
                    lostpaths.append(f"{role} path: {e}")
                else:
                    diffs.append(f"path {t['path']}: {e}")
        if diffs:
            mism.append(f"{role}: " + ", ".join(diffs))
        else:
            ok += 1
    return mism, unread, lostpaths, ok


def check_dump(name, path, vmlinux, truth, want, panic=None):
    """open/dmesg/truth checks for one dump; False if drgn cannot open it."""
    if panic is None:
        panic = name == "panic.vmcore"
    t0 = time.monotonic()
    dt._mount_index = None
    dt._module_syms = None
    try:
        prog = dt.open_program(vmlinux, path)
        prog["init_task"].comm.string_()
    except Exception as e:  # drgn raises ValueError, FaultError, OSError ...
        report("SKIP", f"open:{name}", f"drgn cannot open it: {type(e).__name__}: {e}")
        return False
    report("PASS", f"open:{name}", f"{time.monotonic() - t0:.2f} s")
    try:
        log = get_dmesg(prog).decode(errors="replace")
        check_reports(f"dmesg:{name}", log, want)
        if panic:
            if "sysrq triggered crash" in log:
                report("PASS", f"dmesg-panic:{name}")
            else:
                report("FAIL", f"dmesg-panic:{name}", "no 'sysrq triggered crash' in the dump's log")
    except Exception as e:
        report("FAIL", f"dmesg:{name}", f"{type(e).__name__}: {e}")
    lossy = name in LOSSY
    mism, unread, lostpaths, ok = compare_dump(prog, truth, lossy)
    if mism:
        report("FAIL", f"truth:{name}", f"{len(mism)} inodes disagree: " + " | ".join(mism[:6]))
    elif unread and not lossy:
        report("FAIL", f"truth:{name}", f"{len(unread)} unreadable: " + " | ".join(unread[:4]))
    elif unread or lostpaths:
        report("PASS", f"truth:{name}",
               f"lossy dump as expected: {ok}/{len(truth)} inodes readable and agree, "
               f"{len(unread)} inodes and {len(lostpaths)} path walks lost, e.g. "
               f"{(unread + lostpaths)[0]}")
    else:
        report("PASS", f"truth:{name}", f"{ok}/{len(truth)} inodes agree on every key "
               f"and every path resolves to its inode, {time.monotonic() - t0:.2f} s")
    return True


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    d = args[0]
    vmlinux = os.path.join(d, "vmlinux")
    set_ = None
    if "--vmlinux" in args:
        vmlinux = args[args.index("--vmlinux") + 1]
    if "--set" in args:
        set_ = args[args.index("--set") + 1]
    truth, raw = read_truth(os.path.join(d, "truth.txt"))
    if set_ is None:
        set_ = "patched" if any(t["role"] == "victim_symlink" for t in truth) else "stock"
    print(f"# {d}: set={set_} vmlinux={vmlinux} truth lines={len(truth)}")

    check_truth_format(truth, raw, set_)
    want = expected_reports(truth, set_)
    if os.path.exists(os.path.join(d, "serial.log")):
        check_reports("serial-reports", open(os.path.join(d, "serial.log"), errors="replace").read(), want)
        check_serial_stat(d, truth)
    elif os.path.exists(os.path.join(d, "reports.txt")):
        check_reports("reports.txt", open(os.path.join(d, "reports.txt")).read(), want)
    else:
        report("FAIL", "serial-reports", "neither serial.log nor reports.txt")

    opened = 0
    skipped = []
    for name in DUMPS:
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        if check_dump(name, path, vmlinux, truth, want):
            opened += 1
        else:
            skipped.append(name)
    # drgn 0.0.22 cannot read QEMU's paging:false ELF (FIXTURES pitfall 1).
    # Check the post-panic dump's contents through makedumpfile -d 17 instead.
    if "panic.vmcore" in skipped:
        with tempfile.TemporaryDirectory(prefix="check_fixture.") as tmp:
            try:
                fixed, out = os.path.join(tmp, "fixed.elf"), os.path.join(tmp, "panic-d17.vmcore")
                subprocess.run([sys.executable, os.path.join(HERE, "elf_fixphdr.py"),
                                os.path.join(d, "panic.vmcore"), fixed], check=True)
                subprocess.run(["makedumpfile", "-d", "17", "-c", fixed, out], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                os.unlink(fixed)
            except (OSError, subprocess.CalledProcessError) as e:
                report("FAIL", "convert:panic.vmcore", f"elf_fixphdr.py + makedumpfile -d 17: {e}")
            else:
                if check_dump("panic.vmcore~makedumpfile-d17", out, vmlinux, truth, want,
                              panic=True):
                    opened += 1
    if opened == 0:
        report("FAIL", "open:any", "drgn could open none of the dumps")
    nfail = results.count("FAIL")
    print(f"# {results.count('PASS')} passed, {nfail} failed, {results.count('SKIP')} skipped")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
