#!/usr/bin/python3
"""ppc64le dumps read as the guest's own kernel and drgn saw them.

The ppc64le fixture set (tests/vmcores/README.md, "The ppc64le set"):
Debian 12's ppc64el 6.1 kernel on QEMU's pseries machine (POWER9, radix,
64 KiB pages). For one dump format:
  - with the set's vmlinux (-k): every truth inode decodes to the truth's
    members, paths, operations and checks (test_truth.compare), exit 0,
    ext4's tables (the kernel's kallsyms keep a module's functions only,
    and no debug file of ext4 is given) as ext4+0x… at the offset drgn
    reads from the module's core_layout, each saying why,
    read by our own reader and our ppc64 radix walk (--info says so);
  - --sweep visits every inode of every superblock: counts per superblock
    equal drgn 0.3.0's walk (sid chroot) of the same moment, every truth
    inode is there with its fields, nothing violates a check, exit 0;
  - without a vmlinux (an empty --debug-root): this kernel has no BTF
    (Debian's ppc64el 6.1 is built without CONFIG_DEBUG_INFO_BTF), so the
    run must fail with exit 3 saying the dump has no BTF, and decode
    nothing.
Truth: truth.txt, drgn 0.3.0's reading of elf-vmcoreinfo.vmcore, which the
recipe checked against the guest's own `inodedump-stat:` lines.

QEMU's own ELF dumps of this guest (elf-nopaging, elf-paging, panic) have
no VMCOREINFO note (pseries has no fw_cfg) and big-endian headers (QEMU
7.2): read with the kernel's own note found in memory, which --info says
(its writer line), not as a problem (exit 0). QEMU's kdump-zlib (big-endian header, no VMCOREINFO) is named in
EXPECTED_UNREADABLE, where the test asserts exit 3 with a message, and
fails the day it reads (then move it). The sweep's counts of every format
are drgn's of elf-vmcoreinfo.vmcore, the live guest's moment (the guest
is idle, waiting for the panic, when each dump is taken).

usage: test_ppc64.py SET FORMAT
       test_ppc64.py --counts DUMP       (in the sid chroot: drgn's counts)
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (FORMATS, Checker, expected_violations,  # noqa: E402
                     private_env, read_truth, run, set_dir)
import sid_drgn  # noqa: E402
import test_truth  # noqa: E402
from test_arm64 import OPS, counts_of, module_form  # noqa: E402  (drgn's counts)

EXPECTED_UNREADABLE = {"qemu-kdump-zlib"}
FILES = dict(FORMATS, panic="panic.vmcore")
# The dump drgn counts for each format: the ELF of the same moment.
DRGN_SOURCE = "elf-vmcoreinfo.vmcore"


def dump_file(d, fmt):
    return os.path.join(d, FILES.get(fmt, fmt + ".vmcore"))


def unreadable(c, name, p, codes=(3,)):
    if p.returncode in codes and p.stderr.strip():
        print(f"NOTE {name}: still unreadable (exit {p.returncode}), as "
              f"EXPECTED_UNREADABLE says: {p.stderr.strip()[:200]}")
        c.ok(name + " still fails, and says so", True)
    elif p.returncode in (0, 1):
        c.ok(name, False, f"reads now (exit {p.returncode}): move it out of "
             "EXPECTED_UNREADABLE in tests/test_ppc64.py")
    else:
        c.ok(name, False, f"exit {p.returncode} (want {codes} with a message): "
             f"{p.stderr.strip()[:400]}")


def sweep(c, name, k, dump, env, truth, want, counted=None):
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
        if counted is not None and sb not in counted:
            continue
        c.eq(f"{name} sweep: inodes on {sb} ({got.get('fs_type')})",
             got.get("inodes"), n)
        c.eq(f"{name} sweep: walk of {sb} complete", got.get("error"), None)
    if counted is None:
        c.eq(name + " sweep: one object per inode", len(inodes),
             sum(want.values()))
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


def main():
    if sys.argv[1] in ("--counts", "--bases"):  # in the sid chroot: the set is at /fx
        import drgn
        from drgn.helpers.linux.list import list_for_each_entry
        prog = drgn.Program()
        prog.set_core_dump(sys.argv[2])
        prog.load_debug_info(["/fx/vmlinux"])
        if sys.argv[1] == "--counts":
            json.dump(counts_of(prog), sys.stdout)
            return
        # each loaded module's core memory (6.1: core_layout)
        json.dump([(m.name.string_().decode(), int(m.core_layout.base),
                    int(m.core_layout.size))
                   for m in list_for_each_entry("struct module",
                                                prog["modules"].address_of_(), "list")],
                  sys.stdout)
        return
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    dump = dump_file(d, fmt)
    vmlinux = os.path.join(d, "vmlinux")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    c = Checker()
    c.ok(f"{set_name}: {os.path.basename(dump)} exists", os.path.isfile(dump))
    c.ok(f"{set_name}: truth has inodes", len(truth) > 0)
    with tempfile.TemporaryDirectory() as tmp:
        env, empty = private_env(tmp)
        name = f"{set_name}/{fmt}"
        k = ["-k", vmlinux]
        if fmt in EXPECTED_UNREADABLE:
            unreadable(c, name + " decode", run([*k, "--json", dump, *addrs],
                                                env=env, timeout=600))
            unreadable(c, name + " sweep", run([*k, "--sweep", "--jsonl", dump],
                                               env=env, timeout=600), (3, 4))
            c.finish()
            return
        p = run([*k, "--info", dump], env=env, timeout=600)
        c.ok(name + " read by our reader", "read by            inodedump"
             in p.stdout, p.stdout[:400])
        from_memory = ("no VMCOREINFO note, big-endian headers; the kernel's "
                       "own, in its memory at physical 0x")
        c.eq(name + " --info says VMCOREINFO came from memory",
             from_memory in p.stdout,
             fmt in ("elf-nopaging", "elf-paging", "panic"))
        c.ok(name + " translated by our radix walk",
             "translated by      inodedump (ppc64, 64 KiB pages, radix MMU"
             in p.stdout, p.stdout[:400])
        p = run([*k, "--json", dump, *addrs], env=env, timeout=600)
        try:
            doc = json.loads(p.stdout)
        except json.JSONDecodeError as e:
            c.ok(name, False, f"not JSON ({e}); exit {p.returncode}; "
                 f"stderr: {p.stderr[-600:]}")
            c.finish()
            return
        c.eq(name + " schema", doc.get("schema"), 1)
        inodes = doc.get("inodes", [])
        c.eq(name + " one result per address", len(inodes), len(truth))
        # The kernel's kallsyms keep functions only (CONFIG_KALLSYMS_ALL
        # off): drgn with vmlinux alone gives ext4's tables as addresses
        # (truth.txt); no debug file of ext4 here, so each is ext4+0x…,
        # its offset in the module's memory as drgn reads core_layout,
        # saying why.
        bases = json.loads(sid_drgn.run(d, "test_ppc64.py",
                                        ["--bases", "/fx/" + DRGN_SOURCE]))
        rel = [ln.split("=", 1)[1].strip() for ln in open(os.path.join(d, "info.txt"))
               if ln.startswith("release=")]
        expect, module_ops = [], 0
        for t in truth:
            row = dict(t)
            for key in OPS:
                if key in t and t[key].startswith("0x") and module_form(t[key], bases):
                    row[key] = module_form(t[key], bases)
                    module_ops += 1
            expect.append(row)
        c.ok(name + " ext4's tables are among the truth's", module_ops >= 9, str(module_ops))
        violations = test_truth.compare(c, name, expect, inodes)
        for t, g in zip(expect, inodes):
            for key in OPS:
                if str(t.get(key, "")).startswith("ext4+0x"):
                    note = g.get(key + "_symbol_note") or ""
                    c.ok(f"{name} {t['role']} {key}: says why it has no name",
                         note.startswith("module data; no name: its kallsyms keep "
                                         "functions only") and
                         (not rel or f"linux-image-{rel[0]}-dbg" in note), note)
        c.eq(name + " exit code", p.returncode, 1 if violations else 0)
        said = [ln for ln in p.stderr.splitlines() if ln.strip()]
        c.ok(name + " on stderr only that no debug file names ext4's data",
             len(said) == 1 and said[0].startswith(
                 "vmcore-inode: module ext4: no debug file names its data"), p.stderr[-400:])
        want = json.loads(sid_drgn.run(d, "test_ppc64.py",
                                       ["--counts", "/fx/" + DRGN_SOURCE]))
        # The panic is a later moment than drgn's (the guest's shell has
        # opened /proc/sysrq-trigger since): there only the truth's own
        # superblocks (tmpfs, ext4: nothing changed on them) are counted.
        counted = ({"0x" + t["sb"] for t in truth} if fmt == "panic"
                   else None)
        sweep(c, name, k, dump, env, truth, want, counted)
        # No vmlinux and no BTF in this kernel: one honest failure.
        p = run(["--debug-root", empty, "--json", dump, *addrs], env=env,
                timeout=600)
        c.eq(name + "/btf exit status (no BTF in this kernel)", p.returncode, 3)
        c.ok(name + "/btf says the dump has no BTF",
             "the dump has no BTF" in p.stderr, p.stderr[-600:])
        c.ok(name + "/btf decodes nothing", not p.stdout.strip(), p.stdout[:300])
    c.finish()


if __name__ == "__main__":
    main()
