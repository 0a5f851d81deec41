#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The speed gate (issue 40, item 5): instruction counts of representative
runs against the committed baseline bench/instructions.txt.

usage: bench/gate.py [--only CASE,...] [--vmcore-inode PATH]
                     [--build-dir DIR] [--baseline FILE] [--scale F]
       bench/gate.py --record --reason TEXT [--only CASE,...] [...]

Each case is one run of vmcore-inode on a dump committed in tests/vmcores/
(no fixture cache, no network), under
`valgrind --tool=cachegrind --cache-sim=no`: its total Ir (instructions
executed, the `summary:` line, summed over every process of the run) is
deterministic, not a timing, so a loaded machine does not move it.

Check (the default): a table of case, baseline, now, ratio; exit 1 when a
case grew past 1.10x its baseline, has no baseline, or exited with another
status than its table says. A case below 0.80x is a note suggesting
--record, not a failure. --record rewrites the baseline (the cases of --only
alone, the others kept) with a header naming the build, the toolchain, the
date and --reason: a commit that makes a case slower on purpose carries the
new baseline and says why, and the gate compares against the committed file
only.

The binary measured is a plain build (debugoptimized, no sanitizer): DIR
(default build-gate/ beside the sources) is set up with those options if
needed and `ninja vmcore-inode` brought up to date in it, under a lock.
--vmcore-inode PATH measures that binary instead (refused if it carries
AddressSanitizer). --baseline FILE compares against another file; --scale F
multiplies every baseline count by F (to see the gate fail: --scale 0.5).
"""
import argparse
import datetime
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BASELINE = os.path.join(HERE, "instructions.txt")
GROW = 1.10          # more than this x the baseline: fail
SHRINK = 0.80        # less: a note to record the gain
BUILD_OPTIONS = {"buildtype": "debugoptimized", "b_sanitize": "none",
                 "b_coverage": "false"}

COMMITTED = "tests/vmcores/committed"
# committed truth.txt: /tmp/fx/symlink_short
SYMLINK_SHORT = "ff32e18500b4cf10"
# The small real dumps of tests/vmcores/small/ (read without vmlinux): the
# directory, its dump, the truth.txt role of the inode decoded, the exit
# status of that decode and of the sweep. Each row is three cases (the
# inode cold and warm, the sweep): a dump added there is measured once it
# is added here and --record'ed.
SMALL = [
    ("x86_64-510-d31", "d31-zlib.vmcore", "symlink_short", 0, 0),
    ("arm64-612-qemu-kdump", "qemu-kdump-zlib.flat", "symlink_short", 0, 0),
]

# name, arguments (after the binary; {E}: an empty --debug-root, {T}: the
# crash directory of a --triage case), cache state (cold: an empty
# XDG_CACHE_HOME; warm: filled by one uncounted run first), exit status.
CASES = [
    # DWARF from the committed vmlinux (compressed .debug_* sections)
    ("committed-vmlinux-inode-warm",
     ["-k", "c/vmlinux", "c/d17-zlib.vmcore", SYMLINK_SHORT], "warm", 0),
    ("committed-vmlinux-inode-cold",
     ["-k", "c/vmlinux", "c/d17-zlib.vmcore", SYMLINK_SHORT], "cold", 0),
    # no vmlinux: the dump's BTF and kallsyms
    ("committed-btf-inode-warm",
     ["--debug-root", "{E}", "c/d17-zlib.vmcore", SYMLINK_SHORT], "warm", 0),
    ("committed-btf-inode-cold",
     ["--debug-root", "{E}", "c/d17-zlib.vmcore", SYMLINK_SHORT], "cold", 0),
    # every report of the log (one is ERR_PTR(-ENOENT): exit 3)
    ("committed-btf-reports-warm",
     ["--debug-root", "{E}", "c/d17-zlib.vmcore"], "warm", 3),
    ("committed-btf-sweep-warm",
     ["--debug-root", "{E}", "--sweep", "--threads", "1",
      "c/d17-zlib.vmcore"], "warm", 1),
    ("committed-btf-what-warm",
     ["--debug-root", "{E}", "--what", SYMLINK_SHORT, "c/d17-zlib.vmcore"],
     "warm", 0),
    ("committed-btf-info-warm",
     ["--debug-root", "{E}", "--info", "c/d17-zlib.vmcore"], "warm", 0),
    # kdump-tools' layout: {T}/202612071200/dump.202612071200; a fresh
    # directory each run (a triaged dump is not triaged again); the
    # ERR_PTR report's 3 counts as 4 for the batch
    # no types at all (Debian's ppc64el 6.1 has no BTF): the log by
    # VMCOREINFO's layout
    ("small-ppc64le-61-d31-log-warm",
     ["--debug-root", "{E}", "--log", "s/ppc64le-61-d31/d31-zlib.vmcore"],
     "warm", 0),
    ("committed-triage-cold",
     ["--triage", "--settle", "0", "--debug-root", "{E}", "{T}"], "cold", 4),
]
for _dir, _dump, _role, _inode_rc, _sweep_rc in SMALL:
    _inode = ["--debug-root", "{E}", f"s/{_dir}/{_dump}", f"@{_dir}:{_role}"]
    CASES += [
        (f"small-{_dir}-inode-cold", _inode, "cold", _inode_rc),
        (f"small-{_dir}-inode-warm", _inode, "warm", _inode_rc),
        (f"small-{_dir}-sweep-warm",
         ["--debug-root", "{E}", "--sweep", "--threads", "1",
          f"s/{_dir}/{_dump}"], "warm", _sweep_rc),
    ]


def die(msg):
    print(f"FAIL: gate: {msg}", flush=True)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kw).stdout


def truth_address(small_dir, role):
    with open(os.path.join(ROOT, "tests/vmcores/small", small_dir,
                           "truth.txt")) as f:
        for line in f:
            if f" role={role} " in line + " ":
                return re.search(r"\baddr=([0-9a-f]+)", line)[1]
    die(f"no inode with role={role} in "
        f"tests/vmcores/small/{small_dir}/truth.txt")


# ------------------------------------------------------------------ binary

def build_options(build_dir):
    with open(os.path.join(build_dir, "meson-info",
                           "intro-buildoptions.json")) as f:
        return {o["name"]: str(o["value"]).lower() for o in json.load(f)}


def is_plain(build_dir):
    """build_dir configured as the gate's own build would be."""
    try:
        opts = build_options(build_dir)
    except (OSError, ValueError):
        return False
    return (all(opts.get(k) == v for k, v in BUILD_OPTIONS.items())
            and opts.get("static_cli") == "auto")


def plain_binary(build_dir):
    """vmcore-inode of a plain build in build_dir, set up and up to date."""
    os.makedirs(build_dir, exist_ok=True)
    lock = open(os.path.join(build_dir, ".gate-lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)   # one build at a time in it
    try:
        args = [f"-D{k}={v}" for k, v in BUILD_OPTIONS.items()]
        if not os.path.exists(os.path.join(build_dir, "build.ninja")):
            run(["meson", "setup", *args, build_dir, ROOT])
        elif any(build_options(build_dir).get(k) != v
                 for k, v in BUILD_OPTIONS.items()):
            run(["meson", "configure", *args, build_dir])
        run(["ninja", "-C", build_dir, "-j", os.environ.get("GATE_JOBS", "2"),
             "vmcore-inode"])
    except subprocess.CalledProcessError as e:
        die(f"cannot build {build_dir}/vmcore-inode:\n{e.stdout[-3000:]}")
    finally:
        lock.close()
    return os.path.join(build_dir, "vmcore-inode")


def build_description(binary):
    """Its build's options; the compilers (its .comment) and libdw/libelf."""
    try:
        opts = build_options(os.path.dirname(binary))
        build = " ".join(f"{k}={opts.get(k)}" for k in
                         ("buildtype", "b_sanitize", "static_cli"))
    except (OSError, KeyError, ValueError):
        build = "(not in a meson build dir)"
    try:
        comment = run(["readelf", "-p", ".comment", binary])
        cc = sorted({m.strip() for m in
                     re.findall(r"\]\s+(.*)", comment)}) or ["?"]
    except (subprocess.CalledProcessError, OSError):
        cc = ["?"]
    try:
        elfutils = run(["pkg-config", "--modversion", "libdw"]).strip()
    except (subprocess.CalledProcessError, OSError):
        elfutils = "?"
    return build, f"{', '.join(cc)}; elfutils {elfutils}"


def sanitized(binary):
    with open(binary, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__ubsan_handle" in data


# ------------------------------------------------------------------ measure

def case_argv(args):
    out = []
    for a in args:
        a = a.replace("{E}", "empty").replace("{T}", "crash")
        if a.startswith("@"):       # @DIR:ROLE: that inode's address
            a = truth_address(*a[1:].split(":"))
        out.append(a)
    return out


def measure(binary, case, valgrind):
    """Ir of one run of case, and its exit status."""
    name, args, cache, want = case
    with tempfile.TemporaryDirectory(prefix="gate-") as work:
        os.symlink(os.path.join(ROOT, COMMITTED), os.path.join(work, "c"))
        os.symlink(os.path.join(ROOT, "tests/vmcores/small"),
                   os.path.join(work, "s"))
        os.mkdir(os.path.join(work, "empty"))
        os.mkdir(os.path.join(work, "home"))
        # The same environment everywhere, nothing inherited: no
        # DEBUGINFOD_URLS, no MALLOC_PERTURB_ (meson's), one reader thread.
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC",
               "HOME": os.path.join(work, "home"),
               "XDG_CACHE_HOME": os.path.join(work, "cache"),
               "INODEDUMP_READ_THREADS": "1"}
        argv = [binary] + case_argv(args)

        def crash_dir():
            d = os.path.join(work, "crash")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(os.path.join(d, "202612071200"))
            # a copy: --triage follows no symbolic link below its
            # directory (issue 41), as a hostile /var/crash may hold one
            shutil.copyfile(os.path.join(ROOT, COMMITTED, "d17-zlib.vmcore"),
                            os.path.join(d, "202612071200", "dump.202612071200"))

        if cache == "warm":
            crash_dir()
            subprocess.run(argv, cwd=work, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        crash_dir()
        out = os.path.join(work, "cg")
        os.mkdir(out)
        r = subprocess.run([valgrind, "-q", "--tool=cachegrind",
                            "--cache-sim=no",
                            f"--cachegrind-out-file={out}/cg.%p"] + argv,
                           cwd=work, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        total, files = 0, 0
        for f in os.listdir(out):
            with open(os.path.join(out, f)) as fh:
                for line in fh:
                    if line.startswith("summary:"):
                        total += int(line.split()[1])
                        files += 1
        if not files:
            die(f"{name}: no cachegrind summary (exit {r.returncode}):\n"
                f"{r.stderr[-2000:]}")
        err = "\n".join(l for l in r.stderr.splitlines()
                        if not re.match(r"--\d+-- warning: .*cache", l))
        return total, r.returncode, err


# ------------------------------------------------------------------ baseline

def read_baseline(path):
    counts, header = {}, []
    if not os.path.exists(path):
        return counts, header
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or not line.strip():
                header.append(line)
                continue
            name, ir = line.split()
            counts[name] = int(ir)
    return counts, header


def write_baseline(path, counts, binary, valgrind, reason):
    build, compiler = build_description(binary)
    vg = run([valgrind, "--version"]).strip()
    try:
        commit = run(["git", "-C", ROOT, "log", "-1",
                      "--format=%h %s"]).strip()
    except (subprocess.CalledProcessError, OSError):
        commit = "?"
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [c[0] for c in CASES]
    lines = [
        "# Instructions (cachegrind Ir, whole process) of bench/gate.py's",
        "# cases; the gate fails when one grows past 1.10x. Rewritten by",
        "# `bench/gate.py --record --reason TEXT`; a commit that accepts a",
        "# growth carries this file and its reason.",
        f"# reason: {reason}",
        f"# recorded: {now:%Y-%m-%d %H:%M} UTC, on (or on top of) {commit}",
        f"# build: {build}; {compiler}",
        f"# valgrind: {vg} --tool=cachegrind --cache-sim=no",
    ]
    order = names + sorted(n for n in counts if n not in names)
    lines += [f"{n} {counts[n]}" for n in order if n in counts]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--reason", help="why the baseline changes (--record)")
    ap.add_argument("--only", help="these cases (comma-separated)")
    ap.add_argument("--vmcore-inode", help="measure this binary")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-gate"))
    ap.add_argument("--prefer-build", metavar="DIR",
                    help="measure DIR/vmcore-inode if DIR is a plain build "
                    "(the meson test passes its own build)")
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--list", action="store_true", help="the cases, then exit")
    a = ap.parse_args()

    if a.list:
        for name, args, cache, want in CASES:
            print(name, cache, "exit", want, " ".join(args))
        return 0
    if a.record and not a.reason:
        ap.error("--record needs --reason TEXT (it goes into the baseline)")
    cases = CASES
    if a.only:
        want = a.only.split(",")
        unknown = set(want) - {c[0] for c in CASES}
        if unknown:
            ap.error("no such case: " + ", ".join(sorted(unknown)))
        cases = [c for c in CASES if c[0] in want]

    valgrind = shutil.which("valgrind")
    if not valgrind:
        die("valgrind is not installed (Debian: apt-get install valgrind; "
            "scripts/install-deps.sh installs it): no instructions counted")
    if a.vmcore_inode:
        binary = os.path.abspath(a.vmcore_inode)
    elif a.prefer_build and is_plain(a.prefer_build):
        binary = os.path.join(os.path.abspath(a.prefer_build), "vmcore-inode")
    else:
        binary = plain_binary(os.path.abspath(a.build_dir))
    if sanitized(binary):
        die(f"{binary} is a sanitizer build; the baseline counts a plain one "
            "(leave out --vmcore-inode to build one)")
    baseline, _ = read_baseline(a.baseline)
    build, compiler = build_description(binary)
    print(f"gate: {binary} ({build}; {compiler})")
    print(f"gate: baseline {a.baseline}"
          + (f" scaled by {a.scale}" if a.scale != 1.0 else ""))

    counts, failed, notes, wrong_exit = {}, [], [], []
    width = max(len(c[0]) for c in cases)
    print(f"{'case':<{width}} {'baseline':>14} {'now':>14} {'ratio':>7}")
    for case in cases:
        name, _args, _cache, want = case
        ir, rc, err = measure(binary, case, valgrind)
        counts[name] = ir
        base = baseline.get(name)
        base = round(base * a.scale) if base is not None else None
        ratio = ir / base if base else None
        verdict = ""
        if rc != want:
            verdict = f"FAIL: exit {rc}, not {want}: {err.strip()[-300:]}"
            wrong_exit.append(name)
        elif a.record:
            verdict = "recorded"
        elif base is None:
            verdict = "FAIL: not in the baseline"
        elif ratio > GROW:
            verdict = f"FAIL: grew past {GROW:.2f}x"
        elif ratio < SHRINK:
            verdict = "note: much lower, record it"
            notes.append(name)
        if verdict.startswith("FAIL"):
            failed.append(name)
        print(f"{name:<{width}} {base if base is not None else '-':>14} "
              f"{ir:>14} {(f'{ratio:.3f}' if ratio else '-'):>7} {verdict}",
              flush=True)

    if a.record:
        if wrong_exit:
            die("not recorded: a case exited with an unexpected status: "
                + ", ".join(wrong_exit))
        merged = dict(baseline) if a.only else {}
        merged.update(counts)
        write_baseline(a.baseline, merged, binary, valgrind, a.reason)
        print(f"gate: recorded {len(counts)} cases in {a.baseline}")
        return 0
    if notes:
        print("gate: much lower than the baseline: " + ", ".join(notes)
              + "; bench/gate.py --record --reason TEXT keeps the gain")
    if failed:
        print(f"FAIL: gate: {len(failed)} of {len(cases)} cases: "
              + ", ".join(failed) + " (a growth on purpose: "
              "bench/gate.py --record --reason TEXT, commit the baseline)")
        return 1
    print(f"ok: gate: {len(cases)} case{'s' if len(cases) > 1 else ''} "
          f"within {GROW:.2f}x of the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
