#!/usr/bin/python3
"""arm64 dumps read as the guest's own kernel and drgn saw them.

The arm64 fixture sets (tests/vmcores/README.md, "The arm64 sets"): Debian's
arm64 kernels on QEMU's virt machine. For one set and one dump format,
twice, with the set's vmlinux (-k) and with none (no -k, an empty
--debug-root: types from the dump's BTF, symbols from its kallsyms):
  - every truth inode decodes to the truth's members, paths, operations
    and checks (test_truth.compare), exit 0;
  - --sweep visits every inode of every superblock: counts per superblock
    equal drgn's walk of the same moment (drgn 0.0.22 through libkdumpfile
    for 6.12, drgn 0.3.0 in the sid chroot for 7.x), every truth inode is
    there with its fields, nothing violates a check, exit 0.
Truth: truth.txt, drgn's reading of the set's ELF dump, which the recipe
checked against the guest's own `inodedump-stat:` lines.

A format the current reader cannot read yet is named in
EXPECTED_UNREADABLE_UNTIL_BACKEND: there the test asserts that it still
fails, with exit 3 and a message (a sweep: 3, or 4 saying which lists
broke), in each run above, and fails the day it
starts to read (remove the entry then: the checks above apply).

usage: test_arm64.py SET FORMAT
       test_arm64.py --counts DUMP       (in the sid chroot: drgn's counts)
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (FORMATS, Checker, expected_violations, read_truth,  # noqa: E402
                     run, set_dir)
import sid_drgn  # noqa: E402
import test_truth  # noqa: E402

# (set, format) the reader cannot read before the arm64 backend branch
# (our own aarch64 page walk, QEMU's kdump-zlib 64 KiB header blocks)
# lands: the lead removes these entries when it merges. Until then the
# test asserts they fail with exit 3 and a message.
EXPECTED_UNREADABLE_UNTIL_BACKEND = set()  # the arm64 backend reads them all

FILES = dict(FORMATS, panic="panic.vmcore")


def dump_file(d, fmt):
    return os.path.join(d, FILES.get(fmt, fmt + ".vmcore"))


def drgn_source(fmt):
    """The dump drgn counts for FORMAT: the ELF of the same moment (panic:
    itself; QEMU's and makedumpfile's other formats are the live guest's
    ELF moment)."""
    return "panic.vmcore" if fmt == "panic" else "elf-nopaging.vmcore"


def drgn_counts_host(path, vmlinux):
    os.environ["DRGN_USE_LIBKDUMPFILE_FOR_ELF"] = "1"
    import drgn
    prog = drgn.Program()
    prog.set_core_dump(path)
    prog.load_debug_info([vmlinux])
    return counts_of(prog)


def counts_of(prog):
    from drgn.helpers.linux.list import list_for_each_entry
    counts = {}
    for sb in list_for_each_entry("struct super_block",
                                  prog["super_blocks"].address_of_(), "s_list"):
        counts[hex(sb.value_())] = sum(1 for _ in list_for_each_entry(
            "struct inode", sb.s_inodes.address_of_(), "i_sb_list"))
    return counts


def drgn_counts(d, fmt):
    src = drgn_source(fmt)
    if sid_drgn.chroot_of(d):
        return json.loads(sid_drgn.run(d, "test_arm64.py", ["--counts", "/fx/" + src]))
    return drgn_counts_host(os.path.join(d, src), os.path.join(d, "vmlinux"))


def unreadable(c, name, p, codes=(3,)):
    """An expected failure still fails, with exit 3 (a sweep: 3, or 4 when
    it says which lists broke) and a message."""
    if p.returncode in codes and p.stderr.strip():
        print(f"NOTE {name}: still unreadable (exit {p.returncode}), as "
              f"EXPECTED_UNREADABLE_UNTIL_BACKEND says: {p.stderr.strip()[:200]}")
        c.ok(name + " still fails, and says so", True)
    elif p.returncode in (0, 1):
        c.ok(name, False, f"reads now (exit {p.returncode}): remove it from "
             "EXPECTED_UNREADABLE_UNTIL_BACKEND in tests/test_arm64.py")
    else:
        c.ok(name, False, f"exit {p.returncode} (want {codes} with a message): "
             f"{p.stderr.strip()[:400]}")


def main():
    if sys.argv[1] == "--counts":  # in the sid chroot: the set is at /fx
        import drgn
        prog = drgn.Program()
        prog.set_core_dump(sys.argv[2])
        prog.load_debug_info(["/fx/vmlinux"])
        json.dump(counts_of(prog), sys.stdout)
        return
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    dump = dump_file(d, fmt)
    vmlinux = os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    c = Checker()
    c.ok(f"{set_name}: {os.path.basename(dump)} exists", os.path.isfile(dump))
    expected_fail = (set_name, fmt) in EXPECTED_UNREADABLE_UNTIL_BACKEND
    want = None if expected_fail else drgn_counts(d, fmt)
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "no-debug")
        os.mkdir(empty)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("DEBUGINFOD_URLS", None)
        for how, k in (("vmlinux", ["-k", vmlinux]),
                       ("btf", ["--debug-root", empty])):
            name = f"{set_name}/{fmt}/{how}"
            p = run([*k, "--json", dump, *addrs], env=env, timeout=600)
            if expected_fail:
                unreadable(c, name + " decode", p)
                p = run([*k, "--sweep", "--jsonl", dump], env=env, timeout=600)
                unreadable(c, name + " sweep", p, (3, 4))
                continue
            try:
                doc = json.loads(p.stdout)
            except json.JSONDecodeError as e:
                c.ok(name, False, f"not JSON ({e}); exit {p.returncode}; "
                     f"stderr: {p.stderr[-600:]}")
                continue
            c.eq(name + " schema", doc.get("schema"), 1)
            inodes = doc.get("inodes", [])
            c.eq(name + " one result per address", len(inodes), len(truth))
            violations = test_truth.compare(c, name, truth, inodes)
            c.eq(name + " exit code", p.returncode, 1 if violations else 0)
            if how == "btf":
                c.ok(name + " says where types come from",
                     "no vmlinux: types from the dump's BTF" in p.stderr,
                     p.stderr[-400:])
            sweep(c, name, k, dump, env, truth, want)
    c.finish()


def sweep(c, name, k, dump, env, truth, want):
    p = run([*k, "--sweep", "--jsonl", dump], env=env, timeout=600)
    try:
        lines = [json.loads(line) for line in p.stdout.splitlines()]
    except json.JSONDecodeError as e:
        c.ok(name + " sweep", False, f"not JSON lines ({e}); exit "
             f"{p.returncode}; stderr: {p.stderr[-600:]}")
        return
    sbs = {x["superblock"]: x for x in lines if "superblock" in x}
    inodes = {x["address"]: x for x in lines if "address" in x}
    c.eq(name + " sweep: superblocks as drgn", sorted(sbs), sorted(want))
    for sb, n in sorted(want.items()):
        got = sbs.get(sb, {})
        c.eq(f"{name} sweep: inodes on {sb} ({got.get('fs_type')})",
             got.get("inodes"), n)
        c.eq(f"{name} sweep: walk of {sb} complete", got.get("error"), None)
    c.eq(name + " sweep: one object per inode", len(inodes), sum(want.values()))
    c.eq(name + " sweep: summary object",
         sum(1 for x in lines if "summary" in x), 1)
    for t in truth:
        got = inodes.get("0x" + t["addr"])
        c.ok(f"{name} sweep: {t['role']} swept", got is not None)
        if got:
            for key, base in (("ino", 10), ("mode", 8), ("opflags", 16),
                              ("nlink", 10), ("size", 10)):
                c.eq(f"{name} sweep: {t['role']} {key}", got[key],
                     int(t[key].removeprefix("0x"), base))
    bad = sorted(a for a, x in inodes.items() if x["violations"])
    victims = sorted("0x" + t["addr"] for t in truth
                     if expected_violations(t["role"]))
    c.eq(name + " sweep: violations are the victims'", bad, victims)
    c.eq(name + " sweep: exit code", p.returncode, 1 if victims else 0)


if __name__ == "__main__":
    main()
