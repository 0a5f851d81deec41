#!/usr/bin/python3
"""inodedump-triage.path and .service under a real systemd as PID 1.

usage: test_systemd.py BUILDDIR

A Debian 12 root filesystem with systemd (tests/systemd/rootfs.sh, cached
in ~/.cache/inodedump) is put under an overlay (the cache stays as it is),
`meson install --destdir` installs this build into it, and the README's
`systemctl enable inodedump-triage.path inodedump-triage.service` enables
the units. systemd-nspawn boots it, its /var/crash bound to a directory
here. Then nobody types anything in the container:

 1. a dump already in /var/crash when it boots (as after a kdump reboot) is
    triaged by the boot-time run;
 2. a second dump dropped in later, as kdump-tools writes one (a new
    subdirectory, the dump written under a temporary name, renamed), is
    triaged by the .path unit's run;
 3. a 0-byte dump, a truncated one and one whose kernel has neither BTF
    nor debuginfo on disk (nobtf) get their error files;
 4. debuginfod (Debian's, started here on loopback, serving nobtf's
    vmlinux): DEBUGINFOD_URLS alone in a drop-in does not reach it — the
    service has no network — and the shipped drop-in (debuginfod.conf,
    its URL filled in, systemctl daemon-reload through nsenter) does: a
    nobtf dump is then triaged with the vmlinux fetched by its build-id.

Expected values come from the guests' consoles (the report lines in
serial.log), never from inodedump's output. The journal (read on the host
after the container powers off) shows who wrote the results: the service,
started by the boot or by the .path unit. systemd-analyze security's
exposure score for the installed service is printed and must stay at
0.5 or under (measured: 0.7 before PrivateUsers=yes, 0.5 with it). Needs
root, systemd-nspawn (systemd-container) and debootstrap; fails, never
skips, without them.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, json_checked, set_dir  # noqa: E402
from test_debuginfod import free_port, start_debuginfod, wait_indexed  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HOUR_AGO = time.time() - 3600


def console_reports(serial):
    out = 0
    for line in open(serial, errors="replace"):
        line = re.sub(r"^\[[ 0-9.]+\] ", "", line.rstrip("\r\n"))
        if ("encountered for inode" in line or line.find(": inode:") > 0
                or ": unreadable inode:" in line):
            out += 1
    return out


def wait_for(paths, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if all(os.path.exists(p) for p in paths):
            return time.monotonic() - t0
        time.sleep(0.5)
    return None


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    c = Checker()
    build = os.path.abspath(sys.argv[1])
    for tool in ("systemd-nspawn", "debootstrap", "journalctl"):
        if not shutil.which(tool):
            print(f"FAIL {tool} missing: scripts/install-deps.sh installs it")
            sys.exit(1)
    if os.geteuid():
        print("FAIL needs root (overlay mounts, systemd-nspawn)")
        sys.exit(1)
    dv, stock, nobtf = set_dir("debugvfs73"), set_dir("stock"), set_dir("nobtf")
    t0 = time.monotonic()
    r = sh([os.path.join(HERE, "systemd/rootfs.sh")])
    if r.returncode:
        print(r.stderr[-3000:])
        print("FAIL the root filesystem could not be built")
        sys.exit(1)
    rootfs = r.stdout.strip().splitlines()[-1]
    print(f"rootfs {rootfs} ({time.monotonic() - t0:.1f} s)")

    tmp = tempfile.mkdtemp(prefix="triage-systemd-")
    root, crash = os.path.join(tmp, "root"), os.path.join(tmp, "crash")
    for d in ("upper", "work", "root", "crash"):
        os.makedirs(os.path.join(tmp, d))
    nspawn = None
    mounted = False
    total = -1.0
    # debuginfod on loopback, serving nobtf's vmlinux (indexed meanwhile).
    served = os.path.join(tmp, "served")
    os.makedirs(served)
    os.link(os.path.join(nobtf, "vmlinux"), os.path.join(served, "vmlinux"))
    server, port = start_debuginfod(tmp, served)
    nobtf_id = re.search(r"Build ID: ([0-9a-f]+)", sh(
        ["readelf", "-n", os.path.join(nobtf, "vmlinux")]).stdout).group(1)

    def drop(name, dump_name, src, size=None):
        d = os.path.join(crash, name)
        os.makedirs(d)
        with open(src, "rb") as f:
            data = f.read(size) if size else f.read()
        open(os.path.join(d, dump_name), "wb").write(data)
        return d

    def service_idle(timeout):
        """Wait until inodedump-triage.service is no longer running: an
        event on /var/crash while a run is still ending starts no new run
        (systemd merges the start into the running one; the README says
        so), so "a dump dropped in later" means after the last run."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            pid = sh(["pgrep", "-P", str(nspawn.pid)]).stdout.split()
            r = sh(["nsenter", "-t", pid[0], "-a", "systemctl", "is-active",
                    "inodedump-triage.service"]) if pid else None
            if r and r.stdout.strip() in ("inactive", "failed"):
                return True
            time.sleep(0.5)
        return False

    def reload_units():
        pid = sh(["pgrep", "-P", str(nspawn.pid)]).stdout.split()
        r = sh(["nsenter", "-t", pid[0], "-a", "systemctl", "daemon-reload"])
        c.ok("systemctl daemon-reload in the container", r.returncode == 0,
             r.stderr)
    try:
        r = sh(["mount", "-t", "overlay", "overlay", "-o",
                f"lowerdir={rootfs},upperdir={tmp}/upper,workdir={tmp}/work",
                root])
        c.ok("overlay over the cached root", r.returncode == 0, r.stderr)
        if r.returncode:
            c.finish()
        mounted = True
        r = sh(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
                "--destdir", root])
        c.ok("meson install into the container's root", r.returncode == 0,
             r.stderr[-2000:])
        # /lib is /usr/lib on Debian 12: one file, two names.
        units = sorted({os.path.realpath(p) for p in glob.glob(
            os.path.join(root, "**/inodedump-triage.*"), recursive=True)
            if "/systemd/system/" in p})
        c.eq("both units installed in systemd's unit directory",
             sorted(os.path.basename(p) for p in units),
             ["inodedump-triage.path", "inodedump-triage.service"])
        m = re.search(r"ExecStart=(\S+)", open(
            [p for p in units if p.endswith(".service")][0]).read())
        exe = m.group(1)
        c.ok("ExecStart names the installed command",
             os.path.exists(root + exe), exe)
        # A sanitizer build's runtime libraries, where the root has none.
        for line in sh(["ldd", root + exe]).stdout.splitlines():
            f = line.split()
            if len(f) >= 3 and f[1] == "=>" and not os.path.exists(root + f[2]):
                os.makedirs(os.path.dirname(root + f[2]), exist_ok=True)
                shutil.copy2(f[2], root + f[2])
        if "libasan" in sh(["ldd", root + exe]).stdout:
            # LeakSanitizer stops the world with ptrace, which the unit's
            # system call filter forbids: leaks are the other tests' job.
            dropin = os.path.join(root, "etc/systemd/system/"
                                  "inodedump-triage.service.d")
            os.makedirs(dropin)
            open(os.path.join(dropin, "asan.conf"), "w").write(
                "[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n")
        r = sh(["chroot", root, "systemctl", "enable",
                "inodedump-triage.path", "inodedump-triage.service"])
        c.ok("systemctl enable (the README's command)", r.returncode == 0,
             r.stderr)
        r = sh(["systemd-analyze", "security", "--offline=yes", f"--root={root}",
                "inodedump-triage.service"])
        m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout)
        score = float(m.group(1)) if m else None
        print(f"systemd-analyze security: {score}")
        c.ok("exposure score 0.5 or under", score is not None and score <= 0.5,
             r.stdout[-1500:])
        os.makedirs(os.path.join(root, "var/log/journal"), exist_ok=True)

        # 1. A dump kdump wrote before the reboot.
        first = os.path.join(crash, "202612050101")
        os.makedirs(first)
        shutil.copyfile(os.path.join(dv, "d31-zlib.vmcore"),
                        os.path.join(first, "dump.202612050101"))
        for p in (os.path.join(first, "dump.202612050101"), first):
            os.utime(p, (HOUR_AGO, HOUR_AGO))
        log = open(os.path.join(tmp, "console.log"), "w")
        boot = time.monotonic()
        nspawn = subprocess.Popen(
            ["systemd-nspawn", "-D", root, "-b", "-M", "idtriage",
             "--keep-unit", "--register=no", "--console=passive",
             f"--bind={crash}:/var/crash"], stdout=log, stderr=subprocess.STDOUT)
        took = wait_for([os.path.join(first, "inodedump.json")], 120)
        print(f"boot-time run: results after {took} s")
        c.ok("1: the dump present at boot triaged by the boot-time run",
             took is not None)

        # 2. A second dump, written as kdump-tools writes one, once the
        # boot-time run has ended.
        c.ok("the boot-time run ends", service_idle(120))
        second = os.path.join(crash, "202612050202")
        os.makedirs(second)
        shutil.copyfile(os.path.join(stock, "d31-zlib.vmcore"),
                        os.path.join(second, "dump-incomplete"))
        os.rename(os.path.join(second, "dump-incomplete"),
                  os.path.join(second, "dump.202612050202"))
        t1 = time.monotonic()
        took = wait_for([os.path.join(second, "inodedump.json")], 120)
        print(f".path run: results after {took} s")
        c.ok("2: a dump dropped in later triaged through the .path unit",
             took is not None)

        # 3. Bad ones.
        bad = os.path.join(crash, "202612050303")
        os.makedirs(bad)
        open(os.path.join(bad, "dump.202612050303"), "w").close()
        trunc = os.path.join(crash, "127.0.0.1-2026-12-05-03:03:03")
        os.makedirs(trunc)
        with open(os.path.join(dv, "d31-zlib.vmcore"), "rb") as f:
            open(os.path.join(trunc, "vmcore"), "wb").write(f.read(4096))
        nodebug = drop("127.0.0.1-2026-12-05-04:04:04", "vmcore",
                       os.path.join(nobtf, "d17-zlib.vmcore"))
        took = wait_for([os.path.join(bad, "inodedump.json"),
                         os.path.join(trunc, "inodedump.json"),
                         os.path.join(nodebug, "inodedump.json")], 120)
        print(f"bad dumps: error files after {took} s")
        c.ok("3: the bad dumps get their error files", took is not None)

        # 4. debuginfod: the URL alone, then the shipped drop-in.
        c.ok("debuginfod indexed nobtf's vmlinux", wait_indexed(port, nobtf_id))
        dropins = os.path.join(root, "etc/systemd/system/"
                               "inodedump-triage.service.d")
        os.makedirs(dropins, exist_ok=True)
        url = f"http://127.0.0.1:{port}"
        open(os.path.join(dropins, "url-only.conf"), "w").write(
            f"[Service]\nEnvironment=DEBUGINFOD_URLS={url}\n")
        reload_units()
        isolated = drop("202612050505", "dump.202612050505",
                        os.path.join(nobtf, "d17-zlib.vmcore"))
        took = wait_for([os.path.join(isolated, "inodedump.json")], 120)
        print(f"debuginfod without network: results after {took} s")
        c.ok("4: URL alone: results", took is not None)
        shipped = glob.glob(os.path.join(root, "usr/**/inodedump/systemd/"
                                         "debuginfod.conf"), recursive=True)
        c.eq("the drop-in installed with the documentation", len(shipped), 1)
        text = open(shipped[0]).read() if shipped else ""
        os.unlink(os.path.join(dropins, "url-only.conf"))
        open(os.path.join(dropins, "debuginfod.conf"), "w").write(
            text.replace("Environment=DEBUGINFOD_URLS=\n",
                         f"Environment=DEBUGINFOD_URLS={url}\n"))
        reload_units()
        fetched = drop("202612050606", "dump.202612050606",
                       os.path.join(nobtf, "d17-zlib.vmcore"))
        took = wait_for([os.path.join(fetched, "inodedump.json")], 180)
        print(f"debuginfod with the drop-in: results after {took} s")
        c.ok("4: with the drop-in: results", took is not None)
        total = time.monotonic() - boot
    finally:
        server.terminate()
        server.wait()
        if nspawn:
            nspawn.send_signal(signal.SIGTERM)  # powers the container off
            try:
                nspawn.wait(timeout=60)
            except subprocess.TimeoutExpired:
                nspawn.kill()
                nspawn.wait()
    print(f"boot to last result: {total:.1f} s; "
          f"whole test {time.monotonic() - t0:.1f} s")

    def results(d):
        """The unit's results; a file the published schema refuses fails
        the test (an error document is no error here)."""
        try:
            return json_checked(os.path.join(d, "inodedump.json"),
                                "triage_result")
        except OSError as e:
            return {"error": str(e)}

    j = results(first)
    c.eq("1: its reports, as the guest's console printed them",
         j.get("reports"), console_reports(os.path.join(dv, "serial.log")))
    j = results(second)
    c.eq("2: its reports, as the guest's console printed them",
         j.get("reports"), console_reports(os.path.join(stock, "serial.log")))
    c.ok("2: triaged, not an error", "error" not in j, str(j)[:300])
    j = results(bad)
    c.ok("3: the empty dump's error", "empty file" in j.get("error", ""),
         str(j)[:300])
    c.eq("3: its exit code", j.get("exit_code"), 3)
    j = results(trunc)
    c.ok("3: the truncated dump's error", "truncated" in j.get("error", ""),
         str(j)[:300])
    j = results(nodebug)
    c.ok("3: no BTF, no vmlinux: the error says so",
         "no BTF" in j.get("error", ""), str(j)[:300])
    c.ok("3: and debuginfod was not asked (no URL)",
         any("DEBUGINFOD_URLS unset" in t for t in j.get("tried", [])),
         str(j.get("tried")))
    j = results(isolated)
    print("4: URL without the network:", j.get("error", "")[:600])
    c.ok("4: URL without the network: still an error", "error" in j, str(j)[:300])
    c.ok("4: the URL was tried",
         any(url in t for t in j.get("tried", [])), str(j.get("tried")))
    j = results(fetched)
    c.ok("4: the shipped drop-in: triaged", "error" not in j,
         str(j.get("error"))[:500])
    c.ok("4: with the vmlinux fetched by build-id from debuginfod",
         f"fetched by build-id {nobtf_id} from debuginfod" in j.get("facts", ""),
         j.get("facts", "")[:1500])
    c.eq("4: its reports, as the guest's console printed them",
         j.get("reports"), console_reports(os.path.join(nobtf, "serial.log")))
    jdir = glob.glob(os.path.join(root, "var/log/journal/*"))
    journal = sh(["journalctl", "-D", jdir[0] if jdir else root, "--no-pager",
                  "-o", "short-monotonic", "-u", "inodedump-triage.service",
                  "-u", "inodedump-triage.path"]).stdout
    print(journal[-4000:])
    runs = len(re.findall(r"Starting inodedump-triage.service", journal))
    c.ok("journal: the service ran at boot and for each drop (3 or more runs)",
         runs >= 3, f"{runs} runs")
    c.ok("journal: the service wrote the results",
         "triaged" in journal and "/var/crash/202612050202/dump.202612050202"
         in journal)
    c.ok("journal: the .path unit watched /var/crash",
         "Started inodedump-triage.path" in journal)
    ends = re.findall(r"(Finished inodedump-triage\.service|"
                      r"inodedump-triage\.service: Failed with result)", journal)
    c.ok("journal: a dump read in part (status 4 for the batch) leaves the "
         "unit good", ends[:1] == ["Finished inodedump-triage.service"],
         str(ends))
    c.ok("journal: a dump that cannot be read leaves it failed",
         ends[-1:] == ["inodedump-triage.service: Failed with result"],
         str(ends))
    if mounted:
        sh(["umount", root])
    shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
