# SPDX-License-Identifier: LGPL-2.1-or-later
"""What bench.py and sweep_bench.py both use: paths, running a command under
GNU time, alternating measurements, finding a fixture set, formatting.
Imports nothing of the bench's own, so neither imports the other back."""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GNU_TIME = "/usr/bin/time"
PY = "/usr/bin/python3"          # Debian's python3, the one with drgn
DRGN_SCRIPT = os.path.join(HERE, "drgn_bench.py")
CACHE = os.environ.get("INODEDUMP_CACHE", os.path.expanduser("~/.cache/inodedump"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import sid_drgn  # noqa: E402 - the chroot runner the tests use


def sid_chroot(package):
    """A complete sid chroot of the fixture recipe (prepare_sid_chroot)
    whose include list holds PACKAGE, or None."""
    for d in sorted(os.listdir(CACHE)) if os.path.isdir(CACHE) else ():
        inputs = os.path.join(CACHE, d, "inodedump-inputs.txt")
        if d.startswith("sid-chroot-") and os.path.isfile(os.path.join(CACHE, d, ".complete")):
            with open(inputs) as f:
                m = re.search(r"\binclude=(\S+)", f.read())
                if m and package in m[1].split(","):
                    return os.path.join(CACHE, d)
    return None


def in_sid(chroot, setdir, cmd):
    """cmd run in a sid chroot with setdir at /fx and bench/ at /src."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            sid_drgn.SCRIPT, "bench", chroot, os.path.realpath(setdir), HERE, *cmd]


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ running

class Cmd(list):
    """A command whose environment the harness sets before the clock starts,
    so that no env(1), sh or mktemp process is inside the time measured:
    env, added to ours; fresh_cache, a new empty XDG_CACHE_HOME for every
    run (made before the clock starts and removed after it stops)."""
    def __init__(self, argv, env=None, fresh_cache=False):
        super().__init__(argv)
        self.env, self.fresh_cache = dict(env or {}), fresh_cache


class Run:
    def __init__(self, wall, rss_kb, user, sys_, rc, out, err, timed_out):
        self.wall, self.rss_kb, self.user, self.sys = wall, rss_kb, user, sys_
        self.rc, self.out, self.err, self.timed_out = rc, out, err, timed_out


def run_once(cmd, stdin_text=None, timeout=600):
    """One process under GNU time. Wall clock is measured here around it;
    peak RSS is time(1)'s %M, the ru_maxrss of that one process (time(1) is
    a small C program, so the measured child's RSS high-water mark does not
    inherit a big parent's, as it would after a fork from Python); CPU (user
    + system, microseconds) comes from wait4() on time(1), which covers
    time(1) and the process it waited for. cmd may be a Cmd: its
    environment is set here, outside the time measured."""
    env, fresh = None, None
    if isinstance(cmd, Cmd) and (cmd.env or cmd.fresh_cache):
        env = dict(os.environ, **cmd.env)
        if cmd.fresh_cache:
            fresh = tempfile.mkdtemp(prefix="bench-cold-")
            env["XDG_CACHE_HOME"] = fresh
    try:
        return _run_once(cmd, env, stdin_text, timeout)
    finally:
        if fresh:
            shutil.rmtree(fresh, ignore_errors=True)


def _run_once(cmd, env, stdin_text, timeout):
    with tempfile.NamedTemporaryFile("r", prefix="bench-time-") as tf, \
            tempfile.TemporaryFile(prefix="bench-out-") as fo, \
            tempfile.TemporaryFile(prefix="bench-err-") as fe, \
            tempfile.TemporaryFile(prefix="bench-in-") as fi:
        if stdin_text is not None:
            fi.write(stdin_text.encode())
            fi.seek(0)
        full = [GNU_TIME, "-f", "%e %M %U %S", "-o", tf.name] + cmd
        timed_out = []

        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdin=fi if stdin_text is not None else subprocess.DEVNULL,
                             stdout=fo, stderr=fe, start_new_session=True, env=env)

        def kill():
            timed_out.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        fields = None
        for line in tf.read().splitlines():
            parts = line.split()
            if len(parts) == 4:
                try:
                    fields = [float(x) for x in parts]
                except ValueError:
                    pass
        rss = int(fields[1]) if fields else 0
        fo.seek(0)
        fe.seek(0)
        return Run(wall, rss, ru.ru_utime, ru.ru_stime, p.returncode,
                   fo.read().decode(errors="replace"), fe.read().decode(errors="replace"),
                   bool(timed_out))


class Stats:
    def __init__(self, runs):
        self.runs = runs
        walls = [r.wall for r in runs]
        self.median = statistics.median(walls)
        self.min, self.max = min(walls), max(walls)
        self.rss_kb = max(r.rss_kb for r in runs)  # each value is one process
        self.rss_med = statistics.median(r.rss_kb for r in runs)
        self.cpu = statistics.median(r.user + r.sys for r in runs)
        self.rcs = sorted({r.rc for r in runs})


def measure(cmds, runs, ok_rcs, stdin=None):
    """Warm up each command once, then run them in alternation `runs`
    times (so background load hits both sides alike). Returns {name: Stats}
    and the warm-up Run of each (for output checks)."""
    warm = {}
    for name, cmd in cmds:
        r = run_once(cmd, stdin)
        if r.rc not in ok_rcs:
            raise RuntimeError("%s failed (exit %s): %s\n%s" % (
                name, r.rc, " ".join(cmd), (r.err or r.out)[-2000:]))
        warm[name] = r
    res = {name: [] for name, _ in cmds}
    for _ in range(runs):
        for name, cmd in cmds:
            r = run_once(cmd, stdin)
            if r.rc not in ok_rcs:
                raise RuntimeError("%s failed (exit %s) during timing" % (name, r.rc))
            res[name].append(r)
    return {k: Stats(v) for k, v in res.items()}, warm



# ------------------------------------------------------------------ fixtures

def truth_addr(setdir, role):
    """The set's truth line (truth.txt, the kernel's own) of role, as a
    dict, else its first one."""
    first = None
    with open(os.path.join(setdir, "truth.txt")) as f:
        for line in f:
            kv = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if "addr" not in kv:
                continue
            first = first or kv
            if kv.get("role") == role:
                return kv
    return first


def fixture_set(name):
    """The set's directory: where tests/vmcores/out/<name> points if that is
    complete, else the newest complete fixtures-<name>-* in the cache (the
    link is repointed while a set is being rebuilt). Resolved once, so a
    rebuild during the run does not mix two sets."""
    link = os.path.join(ROOT, "tests", "vmcores", "out", name)
    why = None
    if os.path.islink(link) or os.path.isdir(link):
        target = os.path.realpath(link)
        if os.path.exists(os.path.join(target, ".complete")):
            return target, None
        why = "tests/vmcores/out/%s -> %s is not complete (no .complete)" % (name, target)
    else:
        why = "tests/vmcores/out/%s does not exist" % name
    cache = os.environ.get("INODEDUMP_CACHE", os.path.expanduser("~/.cache/inodedump"))
    cands = []
    try:
        for d in os.listdir(cache):
            full = os.path.join(cache, d)
            if d.startswith("fixtures-%s-" % name) and os.path.exists(os.path.join(full, ".complete")):
                cands.append((os.path.getmtime(os.path.join(full, ".complete")), full))
    except OSError:
        pass
    if cands:
        chosen = max(cands)[1]
        log("%s; using %s" % (why, chosen))
        return chosen, None
    return None, why + ", and no complete fixtures-%s-* in %s (tests/vmcores/make-fixtures.sh %s)" % (
        name, cache, name)


# ------------------------------------------------------------------ formatting

def ms(s):
    return "%.0f ms" % (s * 1000) if s >= 0.1 else "%.1f ms" % (s * 1000)


def mb(kb):
    return "%.1f MB" % (kb / 1024.0)
