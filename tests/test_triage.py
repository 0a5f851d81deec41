#!/usr/bin/python3
"""vmcore-inode --triage over a crash directory as kdump leaves it.

usage: test_triage.py             the built tree below
       test_triage.py KDUMPSET    a real kdump capture set's var-crash/


A temporary /var/crash is built from the fixture sets' real dumps, named as
the two kdump layouts name them:

  Debian kdump-tools  STAMP/dump.STAMP + dmesg.STAMP     (debugvfs73 -d 31)
  RHEL kdump          127.0.0.1-DATE/vmcore + vmcore-dmesg.txt  (stock -d 17)

plus a dump whose printk ring cannot be read (debugvfs73 -d 17 with its
VMCOREINFO SYMBOL(prb) pointed at an unmapped address) beside its saved
dmesg, a 5.10 dump (old510), a truncated dump, a 0-byte one, a kernel with
neither debuginfo nor BTF (nobtf, no vmlinux given), a symlink loop
(never followed below DIR: test_triage_hostile.py has the rest), a
directory the run cannot read, a dump still growing and one still under its
writer's temporary name. The saved dmesg files are the guest's own console
lines (serial.log).

Truth, never inodedump's output: how many dump_inode() reports each guest
printed and the inodes they name (its console, reports.txt / serial.log),
the kernel release (the set's info.txt), the vmlinux's build-id (readelf).
Checked: one line per entry in the summary, the states and exit codes, the
results and error files beside each dump, nothing half-written, a second
run writes nothing (inodes and mtimes unchanged), a lock makes a second run
wait, --wait picks up a dump once it stops growing.

With KDUMPSET (kdump612, kdump73: a guest that crashed into kdump-tools' and
RHEL's kdump with their makedumpfile arguments, its var-crash/ as they left
it, dumps.txt naming each dump, its layout, arguments and saved log): a
hard-linked copy of var-crash/ is triaged; each dump of dumps.txt is
triaged once, with its saved log found, its dump level as the arguments
gave it, the reports its console printed and the release of info.txt.
"""
import atexit
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, build_id, json_checked, schema_check_dir,  # noqa: E402
                     schema_checked, set_dir, vmcore_inode)
# A fixture's dump under a kdump name, never touched afterwards.
from fixture import link_fixture as link  # noqa: E402

HOUR_AGO = time.time() - 3600
REPORT = re.compile(r"(?: encountered for inode |\binode:|unreadable inode:)"
                    r"([0-9a-f]{6,16})\b")


def console_reports(serial):
    """The report lines the guest printed, as (reason, address)."""
    out = []
    for line in open(serial, errors="replace"):
        line = re.sub(r"^\[[ 0-9.]+\] ", "", line.rstrip("\r\n"))
        m = REPORT.search(line)
        if m and ("encountered for inode" in line or line.find(": inode:") > 0
                  or ": unreadable inode:" in line):
            out.append(int(m.group(1), 16))
    return out


def saved_dmesg(serial, dest):
    """The console's kernel lines, as makedumpfile --dump-dmesg writes them."""
    with open(serial, errors="replace") as f, open(dest, "w") as o:
        for line in f:
            if line.startswith("["):
                o.write(line.rstrip("\r\n") + "\n")


def old(*paths):
    """Settled: modified an hour ago. Only what this test made; a fixture's
    own file (a hard link here) was written hours ago and is left alone."""
    for p in paths:
        st = os.lstat(p)
        if st.st_nlink > 1 and not os.path.isdir(p):
            continue
        os.utime(p, (HOUR_AGO, HOUR_AGO), follow_symlinks=False)


def release(set_name):
    for line in open(os.path.join(set_dir(set_name), "info.txt")):
        if line.startswith("release="):
            return line.split("=", 1)[1].strip()
    return None


def triage(args):
    """A run; as root, without the power to read any directory: the
    unreadable one stays unreadable."""
    cmd = [vmcore_inode(), "--triage", "--json"] + args
    if os.geteuid() == 0:
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] + cmd
    return schema_checked(["--triage", "--json"] + args,
                          subprocess.run(cmd, capture_output=True, text=True))


ANY = object()


def rows(res):
    try:
        doc = json.loads(res.stdout)
    except ValueError:
        print("stdout:", res.stdout[-2000:], "stderr:", res.stderr[-2000:])
        return None, {}
    return doc, {os.path.basename(os.path.dirname(r["path"])) + "/" +
                 os.path.basename(r["path"]): r for r in doc["dumps"]}


def results(path):
    return json_checked(path, "triage_result")


def files_state(root):
    """Every result file under root: inode, mtime in ns, bytes."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            if "inodedump" in n:
                p = os.path.join(d, n)
                st = os.lstat(p)
                out[p] = (st.st_ino, st.st_mtime_ns, open(p, "rb").read())
    return out


def kdump_set(set_name):
    c = Checker()
    d = set_dir(set_name)
    truth_reports = len(console_reports(os.path.join(d, "serial.log")))
    dumps = []
    for line in open(os.path.join(d, "dumps.txt")):
        f = dict(kv.split("=", 1) for kv in line.split())
        dumps.append(f)
    c.ok("dumps.txt names dumps", len(dumps) > 0)
    tmp = tempfile.mkdtemp(prefix="triage-")
    atexit.register(shutil.rmtree, tmp, True)
    crash = os.path.join(tmp, "var-crash")
    shutil.copytree(os.path.join(d, "var-crash"), crash, copy_function=os.link)
    res = triage(["--settle", "0", crash])  # a set built seconds ago is whole
    doc, by = rows(res)
    c.ok("batch summary is JSON", doc is not None, res.stderr[-500:])
    if doc is None:
        c.finish()
    print(res.stdout[:2000], res.stderr[-2000:])
    c.eq("one row per dump of dumps.txt", len(by), len(dumps))
    for f in dumps:
        rel = f["dump"][len("var-crash/"):]
        key = rel
        r = by.get(key)
        c.ok(f"{rel}: in the summary", r is not None, str(sorted(by)))
        if r is None:
            continue
        c.eq(f"{rel}: triaged", r["state"], "triaged")
        j = results(r["results"])
        c.eq(f"{rel}: its saved log found", j.get("dmesg"),
             os.path.join(crash, f["dmesg"][len("var-crash/"):]))
        level = re.search(r"-d_(\d+)", f["args"]).group(1)
        c.ok(f"{rel}: dump level {level} as makedumpfile was told",
             re.search(rf"dump level +{level} ", j.get("facts", "")) is not None)
        c.ok(f"{rel}: release of info.txt",
             f"release            {release(set_name)}" in j.get("facts", ""))
        c.eq(f"{rel}: reports as the console printed them", j.get("reports"),
             truth_reports)
    res = triage([crash])
    doc, by = rows(res)
    c.ok("rerun: every dump already triaged",
         doc is not None and all(r["state"] == "already triaged"
                                 for r in by.values()), res.stdout[:1000])
    c.finish()


def main():
    if len(sys.argv) > 1:
        return kdump_set(sys.argv[1])
    c = Checker()
    dv = set_dir("debugvfs73")
    stock, o510, nobtf = set_dir("stock"), set_dir("old510"), set_dir("nobtf")
    dv_reports = console_reports(os.path.join(dv, "serial.log"))
    reports_txt = [int(REPORT.search(line).group(1), 16)
                   for line in open(os.path.join(dv, "reports.txt"))]
    c.eq("debugvfs73's console and reports.txt agree", dv_reports, reports_txt)
    stock_reports = console_reports(os.path.join(stock, "serial.log"))
    o510_reports = console_reports(os.path.join(o510, "serial.log"))

    fixture_dumps = {p: os.stat(p).st_mtime_ns for p in (
        os.path.join(dv, "d31-zlib.vmcore"), os.path.join(stock, "d17-zlib.vmcore"),
        os.path.join(stock, "d31-zlib.vmcore"), os.path.join(o510, "d31-zlib.vmcore"),
        os.path.join(nobtf, "d17-zlib.vmcore"))}
    tmp = tempfile.mkdtemp(prefix="triage-")
    atexit.register(shutil.rmtree, tmp, True)
    crash = os.path.join(tmp, "crash")
    os.makedirs(crash)
    # A debug root holding debugvfs73's vmlinux where its build-id says.
    bid = build_id(os.path.join(dv, "vmlinux"))
    debug = os.path.join(tmp, "root")
    os.makedirs(os.path.join(debug, "usr/lib/debug/.build-id", bid[:2]))
    link(os.path.join(dv, "vmlinux"),
         os.path.join(debug, "usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug"))

    def layout(name, dump_name, src, dmesg_name=None, serial=None):
        d = os.path.join(crash, name)
        os.makedirs(d)
        if src is not None:
            link(src, os.path.join(d, dump_name))
        if dmesg_name:
            saved_dmesg(serial, os.path.join(d, dmesg_name))
        return d

    deb = layout("202612050101", "dump.202612050101",
                 os.path.join(dv, "d31-zlib.vmcore"), "dmesg.202612050101",
                 os.path.join(dv, "serial.log"))
    rhel = layout("127.0.0.1-2026-12-05-01:02:03", "vmcore",
                  os.path.join(stock, "d17-zlib.vmcore"), "vmcore-dmesg.txt",
                  os.path.join(stock, "serial.log"))
    # The ring unreadable: SYMBOL(prb) in VMCOREINFO pointed elsewhere.
    noring = layout("202612050202", "dump.202612050202", None,
                    "dmesg.202612050202", os.path.join(dv, "serial.log"))
    data = bytearray(open(os.path.join(dv, "d17-zlib.vmcore"), "rb").read())
    at = data.find(b"SYMBOL(prb)=") + len("SYMBOL(prb)=")
    data[at:at + 16] = b"ffffffff00000000"
    open(os.path.join(noring, "dump.202612050202"), "wb").write(data)
    os.chmod(os.path.join(noring, "dump.202612050202"), 0o600)  # as kdump writes
    v510 = layout("202612050303", "dump.202612050303",
                  os.path.join(o510, "d31-zlib.vmcore"))
    # Truncated: past its header (what is left is read, the rest said) and
    # within it (nothing to read).
    bad = layout("bad", "vmcore", None)
    short = layout("short", "vmcore", None)
    with open(os.path.join(dv, "d31-zlib.vmcore"), "rb") as f:
        head = f.read(3_000_000)
    open(os.path.join(bad, "vmcore"), "wb").write(head)
    open(os.path.join(short, "vmcore"), "wb").write(head[:4096])
    zero = layout("zero", "vmcore", None)
    open(os.path.join(zero, "vmcore"), "w").close()
    nb = layout("nobtf", "vmcore", os.path.join(nobtf, "d17-zlib.vmcore"))
    unread = layout("unreadable", "vmcore", os.path.join(stock, "d31-zlib.vmcore"))
    # makedumpfile failed: kdump-tools kept the log alone.
    lonely = layout("202612050606", None, None, "dmesg.202612050606",
                    os.path.join(dv, "serial.log"))
    inc = layout("202612050404", "vmcore-incomplete", None)
    open(os.path.join(inc, "vmcore-incomplete"), "w").write("x")
    os.symlink("loop", os.path.join(crash, "loop"))
    looped = layout("127.0.0.1-2026-12-05-08:08:08", None, None)
    os.symlink("vmcore", os.path.join(looped, "vmcore"))
    for d in (deb, rhel, noring, v510, bad, short, zero, nb, unread, inc,
              lonely, looped):
        old(*[os.path.join(d, n) for n in os.listdir(d)], d)
    os.chmod(unread, 0)
    grow = layout("202612050505", "dump.202612050505", None)
    growing = os.path.join(grow, "dump.202612050505")

    def writer():
        """A dump written a piece at a time, ~4 s from first to last byte."""
        with open(os.path.join(stock, "d31-zlib.vmcore"), "rb") as src, \
                open(growing, "wb") as dst:
            while True:
                chunk = src.read(256 << 10)
                if not chunk:
                    break
                dst.write(chunk)
                dst.flush()
                time.sleep(0.05)

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(0.3)

    # Root keeps its way into every directory: the run drops that power.
    args = ["--debug-root", debug, crash]
    t0 = time.monotonic()
    res = triage(args)
    first_s = time.monotonic() - t0
    doc, by = rows(res)
    c.ok("batch summary is JSON", doc is not None, res.stderr[-500:])
    if doc is None:
        t.join()
        c.finish()
    print(f"first run: {first_s:.2f} s, {len(by)} rows, exit {res.returncode}")
    print(res.stderr, end="")
    c.eq("batch exit status: the worst, unreadable (3)", res.returncode, 3)
    c.eq("batch exit code in the summary", doc["exit_code"], 3)

    def row(key, state, code, name=None):
        r = by.get(key)
        c.ok(f"{key}: in the summary", r is not None, str(sorted(by)))
        if r is None:
            return None
        c.eq(f"{key}: state", r["state"], state)
        if code is not ANY:
            c.eq(f"{key}: exit code", r["exit_code"], code)
        return r

    # Debian layout, -d 31: the console's reports, vmlinux by build-id.
    r = row("202612050101/dump.202612050101", "triaged", 3)
    j = results(os.path.join(deb, "inodedump.json"))
    c.eq("deb: reports as the console printed them", j["reports"], len(dv_reports))
    addrs = [int(x["address"], 16) for x in j["reports_document"]["reports"]]
    c.eq("deb: the reported inodes, in order", addrs, dv_reports)
    c.eq("deb: summary row's report count", r and r["reports"], len(dv_reports))
    c.ok("deb: vmlinux found by the dump's build-id",
         f"found by the dump's build-id {bid}" in j["facts"], j["facts"][:800])
    c.ok("deb: the release", f"release            {release('debugvfs73')}"
         in j["facts"])
    c.ok("deb: the dump's own log used", j["log"].startswith("the dump's kernel log"))
    c.ok("deb: the sweep ran and summed up",
         any("summary" in x for x in j["sweep"]), str(j["sweep"])[:300])
    c.eq("deb: results key is the dump's size",
         j["size"], os.stat(os.path.join(deb, "dump.202612050101")).st_size)
    txt = open(os.path.join(deb, "inodedump.txt")).read()
    c.ok("deb: text results name every reported inode",
         all(f"0x{a:x}" in txt for a in dv_reports if a != 0xfffffffffffffffe))

    # RHEL layout: the stock guest's reports (its console's count).
    r = row("127.0.0.1-2026-12-05-01:02:03/vmcore", "triaged", ANY)
    j = results(os.path.join(rhel, "inodedump.json"))
    c.eq("rhel: reports as the console printed them", j["reports"],
         len(stock_reports))
    c.ok("rhel: release", f"release            {release('stock')}" in j["facts"])
    c.eq("rhel: summary's exit code is the file's", r and r["exit_code"],
         j["exit_code"])

    # The ring unreadable: the saved dmesg gives the same reports.
    r = row("202612050202/dump.202612050202", "triaged", 3)
    j = results(os.path.join(noring, "inodedump.json"))
    c.ok("noring: reports from the saved dmesg",
         j["log"].startswith(f"the saved log {noring}/dmesg.202612050202"),
         j["log"])
    c.ok("noring: and why", "cannot be read" in j["log"], j["log"])
    addrs = [int(x["address"], 16) for x in j["reports_document"]["reports"]]
    c.eq("noring: the reported inodes, from the saved log", addrs, dv_reports)
    c.eq("noring: results readable by whom the dump is (0600)",
         [oct(os.stat(os.path.join(noring, n)).st_mode & 0o777)
          for n in ("inodedump.json", "inodedump.txt")], ["0o600", "0o600"])

    # 5.10: its console's reports (none or some), the sweep.
    r = row("202612050303/dump.202612050303", "triaged", ANY)
    j = results(os.path.join(v510, "inodedump.json"))
    c.eq("old510: reports as the console printed them", j["reports"],
         len(o510_reports))
    c.ok("old510: release", f"release            {release('old510')}" in j["facts"])

    # The bad ones: each its line and its error file.
    r = row("bad/vmcore", "triaged", 4)
    j = results(os.path.join(bad, "inodedump.json"))
    c.ok("bad: what is past the end is said",
         any("past the end of the file" in m for m in j["messages"]),
         str(j["messages"])[:500])
    for key, d, want in (("short/vmcore", short, "truncated"),
                         ("zero/vmcore", zero, "empty file (0 bytes)"),
                         ("nobtf/vmcore", nb, "no BTF")):
        row(key, "error", 3)
        j = results(os.path.join(d, "inodedump.json"))
        c.ok(f"{key}: error file says why", want in j.get("error", ""),
             j.get("error"))
        c.eq(f"{key}: error file's exit code", j["exit_code"], 3)
        c.ok(f"{key}: and what was tried", "tried" in j["error"]
             or key != "nobtf/vmcore", j["error"])
    j = results(os.path.join(nb, "inodedump.json"))
    c.ok("nobtf: the build-id path was tried",
         "/usr/lib/debug/.build-id/" in j["error"], j["error"])
    c.ok("nobtf: 'tried' names the debug root and debuginfod",
         any(debug in t and "debuginfod" in t for t in j.get("tried", [])),
         str(j.get("tried")))
    r = row("crash/202612050606", "nothing", None)
    c.ok("dmesg alone: said", r and "only the saved log dmesg.202612050606"
         in r["note"], str(r))
    r = row("127.0.0.1-2026-12-05-08:08:08/vmcore", "error", 3)
    j = results(os.path.join(looped, "inodedump.json"))
    # Below DIR no symlink is followed (issue 41): a loop is one too.
    c.ok("a dump that is a symlink loop: its error file",
         "symbolic link: not followed" in j.get("error", ""), str(j)[:300])
    r = row("crash/loop", "error", 3)
    c.ok("loop: said", r and "symbolic link: not followed" in r["note"])
    c.eq("loop: said once on stderr",
         res.stderr.count(os.path.join(crash, "loop") + ": a symbolic link"), 1)
    c.ok("loop: its error file", os.path.exists(os.path.join(crash, "loop.inodedump.json")))
    r = row("crash/unreadable", "error", 3)
    c.ok("unreadable: said", r and "cannot be read" in r["note"], str(r))
    c.ok("unreadable: its error file",
         os.path.exists(os.path.join(crash, "unreadable.inodedump.json")))
    r = row("202612050505/dump.202612050505", "skipped", None)
    c.ok("growing: said it may be being written", r and "being written" in r["note"])
    c.ok("growing: nothing written beside it",
         not [n for n in os.listdir(grow) if "inodedump" in n], str(os.listdir(grow)))
    r = row("202612050404/vmcore-incomplete", "skipped", None)
    c.eq("rows: one per entry", len(by), 14)
    leftovers = [n for d, _, ns in os.walk(crash) for n in ns if "tmp" in n]
    c.eq("no temporary file left", leftovers, [])

    # A second run writes nothing; the growing dump is still skipped.
    before = files_state(crash)
    res = triage(args)
    doc, by2 = rows(res)
    after = files_state(crash)
    c.eq("rerun: no result file rewritten (inode, mtime, bytes)", after, before)
    c.eq("rerun: the triaged are 'already triaged'",
         sorted(k for k, r in by2.items() if r["state"] == "already triaged"),
         sorted(k for k, r in by.items() if r["state"] in ("triaged", "error")
                # no size and mtime to key on: looked at each run, said
                # each run, its file rewritten only if what it says changed
                and k not in ("crash/loop", "crash/unreadable",
                              "127.0.0.1-2026-12-05-08:08:08/vmcore")))
    c.eq("rerun: same batch status", res.returncode, 3)

    # The growing dump, once whole and settled, is triaged by --wait.
    t.join()
    res = triage(["--settle", "2", "--wait", "30"] + args)
    doc, by3 = rows(res)
    r = by3.get("202612050505/dump.202612050505")
    c.eq("grown: triaged once it settled", r and r["state"], "triaged")
    c.ok("grown: its results", os.path.exists(os.path.join(grow, "inodedump.json")))

    # --wait and a directory being filled: made first, its dump a second
    # later (kdump-tools' order); the run waits for it, and its summary
    # has the dump's row, no stale one for the directory.
    filling = os.path.join(tmp, "filling")
    os.makedirs(os.path.join(filling, "202612050808"))
    p = subprocess.Popen([vmcore_inode(), "--triage", "--json", "--settle", "2",
                          "--wait", "30", "--debug-root", debug, filling],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    link(os.path.join(dv, "d31-zlib.vmcore"),
         os.path.join(filling, "202612050808", "dump.202612050808"))
    out, err = p.communicate(timeout=120)
    doc, by4 = rows(schema_checked(p.args[1:], subprocess.CompletedProcess(
        p.args, p.returncode, out, err)))
    c.eq("filling: the dump that came later, triaged; nothing else",
         {k: r["state"] for k, r in by4.items()},
         {"202612050808/dump.202612050808": "triaged"})

    # The lock: a run waits while another holds it, then runs.
    lock = os.open(os.path.join(crash, ".inodedump-triage.lock"), os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    p = subprocess.Popen([vmcore_inode(), "--triage", "--again", crash],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2)
    c.ok("lock: the second run waits while the lock is held", p.poll() is None)
    fcntl.flock(lock, fcntl.LOCK_UN)
    os.close(lock)
    out, err = p.communicate(timeout=300)
    schema_checked(p.args[1:], subprocess.CompletedProcess(p.args, p.returncode,
                                                           out, err))
    c.ok("lock: said it waited", "another triage holds" in err, err[-300:])
    c.ok("lock: then triaged (--again)", "\ntriaged " in out, out[-500:])

    # A dump given directly: its results named after it, beside it.
    one = os.path.join(tmp, "single")
    os.makedirs(one)
    link(os.path.join(dv, "d31-zlib.vmcore"), os.path.join(one, "x.vmcore"))
    old(os.path.join(one, "x.vmcore"))
    res = triage([os.path.join(one, "x.vmcore")])
    c.ok("single dump: its results",
         os.path.exists(os.path.join(one, "x.vmcore.inodedump.json")),
         str(os.listdir(one)))
    # Its status is vmcore-inode's on it: 3, a reported inode filtered out
    # of this -d 31 dump; for the batch the dump was read, in part: 4.
    c.eq("single dump: its own status, as vmcore-inode DUMP's",
         results(os.path.join(one, "x.vmcore.inodedump.json"))["exit_code"], 3)
    c.eq("single dump: the batch's, read in part", res.returncode, 4)

    # Results that cannot be written: said, exit 3, no file half-written.
    ro = os.path.join(tmp, "ro")
    os.makedirs(os.path.join(ro, "202612050707"))
    link(os.path.join(dv, "d31-zlib.vmcore"),
         os.path.join(ro, "202612050707", "dump.202612050707"))
    old(os.path.join(ro, "202612050707"))
    os.chmod(os.path.join(ro, "202612050707"), 0o555)
    res = triage(["--debug-root", debug, ro])
    doc, by = rows(res)
    r = by.get("202612050707/dump.202612050707")
    c.ok("read-only dump dir: said", r and "results not written" in r["note"],
         str(r))
    c.eq("read-only dump dir: exit 3", res.returncode, 3)
    c.eq("read-only dump dir: nothing in it but the dump",
         os.listdir(os.path.join(ro, "202612050707")), ["dump.202612050707"])
    os.chmod(os.path.join(ro, "202612050707"), 0o755)

    # A terminal: a progress line per dump on stderr.
    tty = subprocess.run(["script", "-qec", f"{vmcore_inode()} --triage --again "
                          f"--debug-root {debug} {deb}", "/dev/null"],
                         capture_output=True)
    schema_check_dir(deb)
    out = tty.stdout.decode(errors="replace")
    c.ok("terminal: a progress line naming the dump",
         "\rvmcore-inode: triage [1] " + os.path.join(deb, "dump.202612050101")
         in out, repr(out[:300]))

    # Usage: seconds that are none, two directories.
    for bad_args in (["--wait", "-1", crash], ["--settle", "5x", crash],
                     [crash, crash]):
        res = triage(bad_args)
        c.eq(f"usage {bad_args[:2]}: exit 2", res.returncode, 2)
    # One vmlinux for a batch of dumps of any kernel: refused, not ignored.
    for bad_args in (["-k", "/nonexistent/vmlinux", crash],
                     ["--ignore-build-id", crash]):
        res = triage(bad_args)
        c.eq(f"usage {bad_args[0]}: exit 2", res.returncode, 2)
        c.ok(f"usage {bad_args[0]}: said", "for one dump" in res.stderr,
             res.stderr[:300])

    # Nothing to do: a missing or an empty directory is exit 0, said.
    res = triage([os.path.join(tmp, "missing")])
    c.eq("missing dir: exit 0", res.returncode, 0)
    c.ok("missing dir: said", "no such directory" in res.stdout, res.stdout)
    os.makedirs(os.path.join(tmp, "empty"))
    res = schema_checked(["--triage", os.path.join(tmp, "empty")],
                         subprocess.run([vmcore_inode(), "--triage",
                                         os.path.join(tmp, "empty")],
                                        capture_output=True, text=True))
    c.eq("empty dir: exit 0", res.returncode, 0)
    c.ok("empty dir: said", "no dump to triage" in res.stdout, res.stdout)

    for src in fixture_dumps:
        c.eq(f"fixture {src} left as it was", os.stat(src).st_mtime_ns,
             fixture_dumps[src])
    c.finish()


if __name__ == "__main__":
    main()
