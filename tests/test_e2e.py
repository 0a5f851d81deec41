#!/usr/bin/python3
"""End to end with Debian's kdump-tools (issue 43, item 2): set e2e61.

usage: test_e2e.py [SET]             (default e2e61; tests/vmcores/make-fixtures.sh SET)
       test_e2e.py SET --mutants    broken copies of the set must fail

A real Debian 12 system (stock 6.1, systemd, kdump-tools, this tree's
packages installed with apt and the README's enable line) was booted under
QEMU with no input at all; README.md of tests/vmcores, "The e2e61 set".
Two runs are read here, both from the disk image, offline:

  capture/  the cached part: first boot (kdump-tools builds and loads its
            kdump initrd), the guest's unit prints truth lines and panics
            it, kdump-tools captures and reboots, second boot: the triage
            unit writes its results, the guest powers off.
  .         this tree's part: a copy of that image with the results
            removed and this tree's packages installed offline; one boot.

Truth, never inodedump's output: the guest's stat(1) (ino, mode, nlink,
size, uid, gid) and the kernel's own view of the same file (a kprobe event
on vfs_getattr_nosec() printing the inode's address, i_ino, i_mode and
s_dev while stat ran, checked against stat in the guest); the capture's
saved dmesg; the journal that the guest's systemd wrote; QEMU's command
line (no input device) and exit status (the guest's own poweroff).

Checked, for each run: the results (inodedump.json, inodedump.txt) exist
beside the dump, schema-valid, naming that dump's kernel release; the
journal holds one boot per expected boot, the triage unit's start job
done with no failure, and the guest's own `systemctl show` line
Result=success; nobody typed: QEMU had no input device, ran once from the
first boot to the poweroff (two boots in the capture run's journal, one
in this tree's), and exited 0. Then every truth inode, decoded by this
tree's vmcore-inode from the dump kdump-tools wrote (no vmlinux: the
dump's BTF and kallsyms), equals its truth line.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, link_fixture, private_env, read_truth,  # noqa: E402
                     run, schema_check_dir, set_dir)



def journal(d, *args):
    p = subprocess.run(["journalctl", "--directory", d, "--no-pager", *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL journalctl --directory {d} {' '.join(args)}: "
                         f"{p.stderr[:500]}")
    return p.stdout


def journal_dir(run_dir):
    ds = [d for d in glob.glob(os.path.join(run_dir, "journal", "*"))
          if os.path.isdir(d)]
    return ds[0] if len(ds) == 1 else None


def check_no_input(c, n, cmdline_file, rc_file):
    """QEMU's command line had no input device; it exited 0 (poweroff)."""
    try:
        args = open(cmdline_file).read().splitlines()
    except OSError as e:
        c.ok(n + " QEMU command line recorded", False, str(e))
        return
    bad = []
    for i, a in enumerate(args):
        if a in ("-qmp", "-gdb", "-s", "-nographic", "-netdev", "-net"):
            bad.append(a)
        elif a == "-monitor" and args[i + 1] != "none":
            bad.append(" ".join(args[i:i + 2]))
        elif a == "-nic" and args[i + 1] != "none":
            bad.append(" ".join(args[i:i + 2]))
        elif a == "-chardev" and not args[i + 1].startswith("file,"):
            bad.append(" ".join(args[i:i + 2]))
        elif a == "-serial" and not args[i + 1].startswith("chardev:"):
            bad.append(" ".join(args[i:i + 2]))
        elif a == "-device":
            bad.append(" ".join(args[i:i + 2]))
    c.ok(n + " nobody typed: QEMU had no input (file console, no monitor, "
         "QMP, network or device)", not bad and "-monitor" in args and
         "-nic" in args, str(bad))
    rc = open(rc_file).read().strip() if os.path.exists(rc_file) else None
    c.eq(n + " QEMU ended by the guest's own poweroff (exit 0)", rc, "0")


def check_run(c, n, run_dir, serial, boots, release, dumpname):
    """One run's results, journal and unit, read from its disk image."""
    crash = os.path.join(run_dir, "var-crash")
    dumps = sorted(glob.glob(os.path.join(crash, "*", "dump.*")))
    c.eq(n + " one kdump-tools dump in /var/crash",
         [os.path.relpath(d, crash) for d in dumps], [dumpname])
    if not dumps:
        return
    ddir = os.path.dirname(dumps[0])
    for f in ("inodedump.json", "inodedump.txt"):
        c.ok(f"{n} results {f} beside the dump",
             os.path.isfile(os.path.join(ddir, f)), str(os.listdir(ddir)))
    res = os.path.join(ddir, "inodedump.json")
    if os.path.isfile(res):
        schema_check_dir(crash)
        text = open(res).read()
        c.ok(n + " results name the dump's kernel release",
             release in text, text[:300])
        doc = json.loads(text)
        stamp = os.path.basename(ddir)
        c.eq(n + " results: the dump triaged", doc.get("state"), "triaged")
        c.eq(n + " results: for this dump", doc.get("dump"), f"/var/crash/{dumpname}")
        c.eq(n + " results: kdump-tools' saved log found beside it", doc.get("dmesg"),
             f"/var/crash/{stamp}/dmesg.{stamp}")
        dm = open(os.path.join(ddir, f"dmesg.{stamp}"), errors="replace").read()
        c.eq(n + " results: as many reports as the saved log has (none on stock 6.1)",
             doc.get("reports"), dm.count(" encountered for inode "))
        c.ok(n + " results: not an error", "error" not in doc, str(doc.get("error"))[:300])
    jd = journal_dir(run_dir)
    c.ok(n + " the guest's persistent journal read offline", jd is not None,
         str(glob.glob(os.path.join(run_dir, "journal", "*"))))
    if jd is None:
        return
    nboots = len([x for x in journal(jd, "--list-boots").splitlines()
                  if x.strip() and not x.lstrip().startswith("IDX")])
    c.eq(n + " boots in the journal (one QEMU run, nobody typed)", nboots, len(boots))
    for i, want in enumerate(boots):
        if i >= nboots:
            break
        # each boot, oldest first, by the lines that say what it was
        text = journal(jd, "-b", str(i + 1), "-o", "cat")
        for w in want:
            c.ok(f"{n} boot {i + 1} of {len(boots)}: {w!r} in its journal", w in text,
                 text[-300:])
    entries = [json.loads(x) for x in journal(jd, "-b", "0", "-o", "json").splitlines()
               if x.strip()]

    def unit(e):
        return e.get("UNIT") == "inodedump-triage.service" or \
            e.get("_SYSTEMD_UNIT") == "inodedump-triage.service"
    started = [e for e in entries if unit(e) and e.get("JOB_TYPE") == "start"]
    c.ok(n + " triage unit: its start job done in the last boot",
         any(e.get("JOB_RESULT") == "done" for e in started),
         str([(e.get("JOB_RESULT"), e.get("MESSAGE")) for e in started]))
    failed = [e.get("MESSAGE") for e in entries if unit(e) and
              (e.get("UNIT_RESULT") or "Failed" in str(e.get("MESSAGE")))]
    c.eq(n + " triage unit: no failure in the journal", failed, [])
    shown = [e.get("MESSAGE") for e in entries
             if str(e.get("MESSAGE", "")).startswith("inodedump-e2e: triage-unit ")]
    c.ok(n + " triage unit Result=success (its systemd, in the journal)",
         "inodedump-e2e: triage-unit Result=success" in shown, str(shown))
    status = [s for s in shown if "ExecMainStatus=" in s]
    c.ok(n + " triage's vmcore-inode exit status 0, 1 or 4",
         len(status) == 1 and status[0].rsplit("=", 1)[1] in ("0", "1", "4"),
         str(status))
    if status and os.path.isfile(res):
        c.eq(n + " the unit's exit status is the results' exit_code",
             status[0].rsplit("=", 1)[1], str(json.load(open(res)).get("exit_code")))
    own = [e for e in entries if e.get("_SYSTEMD_UNIT") == "inodedump-triage.service"]
    c.ok(n + " triage unit wrote to the journal", bool(own))
    con = open(serial, errors="replace").read()
    c.ok(n + " the guest powered itself off after the triage",
         "inodedump-e2e: poweroff" in con)
    c.ok(n + " no FAILED line from the guest", "inodedump-e2e: FAILED" not in con,
         "\n".join(x for x in con.splitlines() if "FAILED" in x)[:500])


def check_set(d, c):
    """Every check on the set in d, counted in c."""
    cap = os.path.join(d, "capture")
    info = dict(x.split("=", 1) for x in open(os.path.join(d, "info.txt")).read().split("\n") if "=" in x)
    release = info.get("release", "?")

    # The truth: the guest's lines, on its console and in its file.
    con1 = open(os.path.join(cap, "serial.log"), errors="replace").read().replace("\r", "")
    lines = [x.split("inodedump-e2e-truth: ", 1)[1]
             for x in con1.splitlines() if "inodedump-e2e-truth: " in x]
    truth_file = os.path.join(d, "truth.txt")
    c.eq("truth: the image's file equals the console's lines",
         open(truth_file).read().splitlines() if os.path.exists(truth_file) else None, lines)
    truth = read_truth(truth_file) if os.path.exists(truth_file) else []
    c.eq("truth: 18 inodes (9 on tmpfs, 9 on ext4)", len(truth), 18)
    c.ok("truth: the kernel printed every address",
         all(t.get("addr") for t in truth), str([t["path"] for t in truth if not t.get("addr")]))
    c.ok("truth: the guest said its release", f"inodedump-e2e: release {release}" in con1)

    # The capture: kdump-tools' dump and log of this panic.
    cdumps = sorted(glob.glob(os.path.join(cap, "var-crash", "*", "dump.*")))
    c.eq("capture: one dump", len(cdumps), 1)
    if not cdumps:
        return
    stamp = os.path.basename(cdumps[0]).split(".", 1)[1]
    dumpname = f"{stamp}/dump.{stamp}"
    dmesg = os.path.join(cap, "var-crash", stamp, f"dmesg.{stamp}")
    c.ok("capture: kdump-tools saved the log beside it", os.path.isfile(dmesg))
    dm = open(dmesg, errors="replace").read() if os.path.isfile(dmesg) else ""
    c.ok("capture: the saved log is this panic's (sysrq-c by the guest's script)",
         "sysrq: Trigger a crash" in dm and "Comm: inodedump-e2e" in dm, dm[-500:])
    with open(cdumps[0], "rb") as f:
        head = f.read(16)
    c.ok("capture: kdump-tools' default, makedumpfile -F (flattened)",
         head.startswith(b"makedumpfile"), repr(head))

    check_no_input(c, "capture run:", os.path.join(cap, "qemu-capture.cmdline"),
                   os.path.join(cap, "qemu-capture.rc"))
    # Debian's kdump-tools 1.8.1 boots the capture kernel on the system's
    # own root with systemd.unit=kdump-tools-dump.service: its journal is a
    # boot of its own, between the first boot and the second.
    check_run(c, "capture run:", cap, os.path.join(cap, "serial.log"),
              [["loaded kdump kernel", "inodedump-e2e-truth: ",
                "inodedump-e2e: panic: echo c > /proc/sysrq-trigger"],
               ["running makedumpfile -F -c -d 31 /proc/vmcore",
                f"saved vmcore in /var/crash/{stamp}"],
               ["inodedump-e2e: triage-unit Result=success", "inodedump-e2e: poweroff"]],
              release, dumpname)

    # This tree's run: results removed, this tree's packages, one boot.
    before = open(os.path.join(d, "var-crash-before.txt")).read()
    c.ok("this tree: no results in /var/crash before its boot",
         "inodedump" not in before, before)
    debs = open(os.path.join(d, "debs.txt")).read()
    ver = subprocess.run(["dpkg-parsechangelog", "-S", "Version", "-l",
                          os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "..", "debian", "changelog")],
                         capture_output=True, text=True).stdout.strip()
    c.ok("this tree: its packages installed in the image",
         f"inodedump={ver}" in debs and f"libinodedump0={ver}" in debs, debs[:400])
    check_no_input(c, "this tree's run:", os.path.join(d, "qemu-triage.cmdline"),
                   os.path.join(d, "qemu-triage.rc"))
    check_run(c, "this tree's run:", d, os.path.join(d, "serial.log"),
              [["inodedump-e2e: triage-unit Result=success", "inodedump-e2e: poweroff"]],
              release, dumpname)

    # The dump against the truth, by this tree's vmcore-inode, no vmlinux.
    dump = os.path.join(d, "var-crash", dumpname)
    if truth and os.path.exists(dump):
        with tempfile.TemporaryDirectory() as tmp:
            env, empty = private_env(tmp)
            p = run(["--debug-root", empty, "--json", dump,
                     *[t["addr"] for t in truth]], env=env)
            try:
                doc = json.loads(p.stdout)
            except json.JSONDecodeError as e:
                raise SystemExit(f"FAIL decode: not JSON ({e}); exit {p.returncode}; "
                                 f"{p.stderr[:1500]!r}")
            inodes = doc.get("inodes", [])
            c.eq("decode: one result per truth address", len(inodes), len(truth))
            for t, got in zip(truth, inodes):
                n = f"decode {t['path']}"
                if "error" in got:
                    c.ok(n, False, str(got["error"])[:300])
                    continue
                c.eq(n + " address", got.get("address"), t["addr"])
                for k in ("ino", "nlink", "size", "uid", "gid"):
                    c.eq(f"{n} {k}", got.get(k), int(t[k]))
                c.eq(n + " mode", got.get("mode"), int(t["mode"], 8))
                c.eq(n + " fs_type", got.get("fs_type"), t["fs"])


# Broken copies of the set (hard links: nothing of the set is written), each
# of which must fail, on the check named: the test can fail.
def _no_results(d):
    for f in glob.glob(os.path.join(d, "var-crash", "*", "inodedump.*")):
        os.unlink(f)


def _wrong_truth(d):
    p = os.path.join(d, "truth.txt")
    lines = open(p).read().splitlines()
    lines[0] = lines[0].replace(" size=6 ", " size=7 ")
    os.unlink(p)
    open(p, "w").write("\n".join(lines) + "\n")


def _someone_typed(d):
    p = os.path.join(d, "qemu-triage.cmdline")
    args = open(p).read().splitlines()
    os.unlink(p)
    open(p, "w").write("\n".join(args + ["-monitor", "stdio"]) + "\n")


def _other_journal(d):
    """The capture run's journal (three boots: first, capture, second) in
    place of this run's one boot: as if the guest had been booted again."""
    jd = glob.glob(os.path.join(d, "journal", "*"))[0]
    for j in glob.glob(os.path.join(jd, "*.journal*")):
        os.unlink(j)
    for j in glob.glob(os.path.join(d, "capture", "journal", "*", "*.journal*")):
        os.link(j, os.path.join(jd, os.path.basename(j)))


MUTANTS = [
    ("results removed", _no_results, "this tree's run: results inodedump.json beside the dump"),
    ("a wrong truth line (size 7 for 6)", _wrong_truth, "decode /dev/shm/e2e/regular size"),
    ("a monitor on stdio", _someone_typed, "this tree's run: nobody typed"),
    ("another run's journal", _other_journal, "this tree's run: boots in the journal"),
]


def mutants(d):
    import contextlib
    import io
    import shutil
    c = Checker()
    for what, mutate, want in MUTANTS:
        with tempfile.TemporaryDirectory() as tmp:
            m = os.path.join(tmp, "set")
            shutil.copytree(d, m, copy_function=link_fixture, symlinks=True)
            mutate(m)
            mc, out = Checker(), io.StringIO()
            with contextlib.redirect_stdout(out):
                try:
                    check_set(m, mc)
                except SystemExit as e:
                    print(f"FAIL {e}")
            text = out.getvalue()
            c.ok(f"broken set ({what}) fails: {want!r}",
                 mc.failed > 0 and f"FAIL {want}" in text,
                 f"{mc.failed} failed; " + " | ".join(
                     x for x in text.splitlines() if x.startswith("FAIL"))[:600])
    c.finish()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    d = set_dir(args[0] if args else "e2e61")
    if "--mutants" in sys.argv:
        mutants(d)
    c = Checker()
    check_set(d, c)
    c.finish()


if __name__ == "__main__":
    main()
