#!/usr/bin/python3
"""A real dump of a kernel built without BTF, and no vmlinux (issue 16).

    test_nobtf.py

The nobtf set (tests/vmcores/recipes/nobtf.sh): the debugvfs73 kernel rebuilt
without CONFIG_DEBUG_INFO_BTF, booted, its own truth lines printed, dumped
after may_open()'s panic. The kernel's console says it had no BTF (its
/proc/kallsyms has no __start_BTF, /sys/kernel/btf/vmlinux is absent);
on each of its dumps:

  no vmlinux   (an empty --debug-root, DEBUGINFOD_URLS empty, a cache of
               its own) decoding a truth inode exits 3, and stderr says
               that no vmlinux was found for the release and where it was
               looked for, that the dump has no BTF, that its kernel was
               built without CONFIG_DEBUG_INFO_BTF, and where types come
               from instead (-k, the -dbg package, DEBUGINFOD_URLS); the
               reports run (no address) says the same; no sanitizer report
  --info       without vmlinux neither crashes nor pretends: either it
               names where types came from (none) or it exits 3 with the
               same message
  -k vmlinux   the kernel's own vmlinux: the same inode decodes to the
               values the kernel printed (the dump itself is good;
               test_truth.py checks every truth inode of the set)

Expected values come from the kernel's console (serial.log, truth.txt),
never from inodedump. A missing set fails (fixture.set_dir), it never
skips.
"""
import json
import os
import re
import tempfile

from fixture import Checker, read_truth, run, set_dir

DUMPS = ("d17-zlib.vmcore", "elf-nopaging.vmcore", "qemu-kdump-zlib.flat")
SANITIZERS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
              "runtime error:")


def console(d):
    """What the guest kernel said of itself: the nobtf line's fields and
    uname -r (debugvfs73/init.sh's first line)."""
    facts = {}
    with open(os.path.join(d, "serial.log"), errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("inodedump-nobtf: "):
                facts.update(kv.split("=", 1) for kv in line.split()[1:])
            m = re.match(r"inodedump-init: set=\S+ kernel=(\S+)$", line)
            if m:
                facts["release"] = m.group(1)
    return facts


def no_sanitizer(c, name, p):
    c.ok(f"{name}: no sanitizer report",
         not any(s in p.stderr for s in SANITIZERS), p.stderr[-1500:])


def no_btf_message(c, name, p, release, empty):
    """The message of lib/decode/session.c's open_from_dump, by its parts."""
    err = p.stderr
    c.eq(f"{name}: exit status", p.returncode, 3)
    for what, want in (
            ("no vmlinux for the dump's release",
             f"no vmlinux for release {release} (tried "),
            ("where vmlinux was looked for (the build-id path first)",
             f"(tried {empty}/usr/lib/debug/.build-id/"),
            ("the dump has no BTF", "the dump has no BTF"),
            ("how it knows (kallsyms)", "kallsyms has no __start_BTF"),
            ("why: built without CONFIG_DEBUG_INFO_BTF",
             "its kernel was built without CONFIG_DEBUG_INFO_BTF"),
            ("where to get types: the debuginfo package",
             f"install the kernel's debuginfo (Debian: linux-image-{release}-dbg)"),
            ("where to get types: -k", "give it with -k"),
            ("where to get types: debuginfod", "set DEBUGINFOD_URLS to a server")):
        c.ok(f"{name}: says {what}", want in err, err[-1500:])
    # One message, not a decode: nothing on stdout, no BTF claimed.
    c.eq(f"{name}: nothing on stdout", p.stdout, "")
    c.ok(f"{name}: does not claim types from BTF",
         "types from the dump's BTF" not in err, err[-800:])
    no_sanitizer(c, name, p)


def main():
    d = set_dir("nobtf")
    c = Checker()
    kernel = console(d)
    release = kernel.get("release")
    # The premise, as the running kernel reported it.
    c.ok("the guest kernel printed its BTF facts",
         {"kallsyms", "stext", "start_btf", "sys_btf"} <= kernel.keys(),
         str(kernel))
    c.eq("the guest's /proc/kallsyms names _stext", kernel.get("stext"), "1")
    c.eq("the guest's /proc/kallsyms has no __start_BTF",
         kernel.get("start_btf"), "0")
    c.eq("the guest had no /sys/kernel/btf/vmlinux", kernel.get("sys_btf"), "no")
    c.ok("the guest printed its release (uname -r)", bool(release), str(kernel))
    truth = read_truth(os.path.join(d, "truth.txt"))
    by_role = {t["role"]: t for t in truth}
    regular = by_role.get("regular")
    c.ok("truth has the regular file", regular is not None)
    if regular is None or not release:
        c.finish()
    vmlinux = os.path.join(d, "vmlinux")
    dumps = [n for n in DUMPS if os.path.exists(os.path.join(d, n))]
    c.eq("the set's dumps", dumps, list(DUMPS))

    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty-debug-root")
        os.mkdir(empty)
        env = dict(os.environ)
        env["DEBUGINFOD_URLS"] = ""
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        for name in dumps:
            dump = os.path.join(d, name)
            # (a) no vmlinux, no BTF: exit 3 with what is missing and where.
            p = run(["--debug-root", empty, dump, regular["addr"]], env=env)
            no_btf_message(c, f"{name} {regular['addr']}", p, release, empty)
            if name == "d17-zlib.vmcore":
                p = run(["--debug-root", empty, dump], env=env)
                no_btf_message(c, f"{name} reports", p, release, empty)
                p = run(["--debug-root", empty, "-j", dump, regular["addr"]],
                        env=env)
                no_btf_message(c, f"{name} -j", p, release, empty)

            # (b) --info without vmlinux: facts with no types, or the message.
            p = run(["--debug-root", empty, "--info", dump], env=env)
            no_sanitizer(c, f"{name} --info", p)
            c.ok(f"{name} --info: exits, not killed by a signal",
                 p.returncode in (0, 3), f"exit {p.returncode}: {p.stderr[-800:]}")
            if p.returncode == 0:
                types = [l for l in p.stdout.splitlines() if l.startswith("types")]
                c.ok(f"{name} --info: says there are no types (no BTF)",
                     len(types) == 1 and "BTF" in types[0] and
                     "the dump's BTF (" not in types[0], p.stdout)
            else:
                no_btf_message(c, f"{name} --info", p, release, empty)

            # (c) with the kernel's vmlinux the same inode decodes to what
            # the kernel printed (test_truth.py holds every truth inode of
            # these dumps to every value).
            p = run(["-k", vmlinux, "-j", dump, regular["addr"]], env=env)
            no_sanitizer(c, f"{name} -k", p)
            try:
                got = json.loads(p.stdout)["inodes"][0]
            except (json.JSONDecodeError, KeyError, IndexError) as e:
                c.ok(f"{name} -k: one inode in JSON", False,
                     f"{e!r}: {p.stderr[-800:]}")
                continue
            c.eq(f"{name} -k: exit status", p.returncode, 0)
            want = {"address": "0x" + regular["addr"],
                    "ino": int(regular["ino"]),
                    "mode": int(regular["mode"], 8),
                    "nlink": int(regular["nlink"]),
                    "size": int(regular["size"]),
                    "uid": int(regular["uid"]), "gid": int(regular["gid"]),
                    "s_id": regular["s_id"], "fs_type": regular["fstype"],
                    "i_fop": regular["i_fop"]}
            c.eq(f"{name} -k: regular as the kernel printed it",
                 {k: got.get(k) for k in want}, want)
    c.finish()


if __name__ == "__main__":
    main()
