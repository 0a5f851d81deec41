"""The s390x set (Debian's s390x kernel on QEMU s390-ccw-virtio, a
big-endian kernel): every truth inode decoded equal to the truth (the
guest's stat lines and drgn 0.3.0, tests/vmcores/README.md) through our
s390x DAT walk and the dump's byte order, on the kdump ELF, makedumpfile's
-d 17 and -d 31 and QEMU's own ELF dumps (no VMCOREINFO note: the
kernel's found in its memory, said on --info's writer line); the sweep's
per-superblock counts against drgn's (sweep-counts.txt); --log's banner
as the console printed it; QEMU's kdump
(no VMCOREINFO in its sub-header either) the same way, the kernel's note
found in its compressed memory, on 6.1 and 7.2 alike; its note damaged
(another BUILD-ID: the vmlinux refused, naming the dump's) or a second,
different one beside it (not trusted: not our reader's, why said);
without a vmlinux, where the kernel has BTF (7.x:
big-endian BTF, kallsyms read on demand) every truth inode equal to the
truth again, else exit 3.

    test_s390x.py SET FORMAT
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, private_env, read_truth, run,  # noqa: E402
                     set_dir)
import kdump_patch  # noqa: E402
import test_truth  # noqa: E402
from test_ppc64 import FILES, sweep  # noqa: E402

# QEMU's ELF and kdump: no VMCOREINFO (no fw_cfg), the kernel's found in
# memory.
FROM_MEMORY = {"elf-nopaging", "elf-paging", "panic", "qemu-kdump-zlib"}


def info(d):
    """The set's info.txt as a dict (the recipe's facts)."""
    with open(os.path.join(d, "info.txt")) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f
                    if "=" in line)


def has_btf(d):
    return info(d).get("config_DEBUG_INFO_BTF") == "y"


def drgn_counts(d):
    """{superblock: inodes}: drgn 0.3.0's walk of each s_inodes list."""
    want = {}
    with open(os.path.join(d, "sweep-counts.txt")) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split())
            want[kv["sb"]] = int(kv["inodes"])
    return want


def damaged_note(c, name, d, dump, env, addrs):
    """QEMU's kdump with the kernel's note in memory damaged: another
    BUILD-ID (the vmlinux refused, naming the dump's), then a second,
    different note beside it (neither trusted: not our reader's, said)."""
    flat = kdump_patch.assemble(dump)
    vi = info_page(flat)
    k = ["-k", os.path.join(d, "vmlinux")]
    release = info(d)["release"].encode()
    with tempfile.TemporaryDirectory() as tmp:
        page = kdump_patch.page(flat, vi)
        bid = page.index(b"BUILD-ID=") + len(b"BUILD-ID=")
        wrong = page[:bid] + b"0" * 40 + page[bid + 40:]
        bad = bytearray(flat)
        kdump_patch.replace(bad, vi, wrong)
        path = os.path.join(tmp, "build-id.vmcore")
        with open(path, "wb") as f:
            f.write(bad)
        p = run([*k, path, addrs[0]], env=env, timeout=600)
        c.eq(name + " damaged note (BUILD-ID): exit 3", p.returncode, 3)
        c.ok(name + " damaged note: the vmlinux refused, the dump's "
             "BUILD-ID named", "is not the kernel of" in p.stderr and
             "VMCOREINFO BUILD-ID " + "0" * 40 in p.stderr, p.stderr[-600:])
        # A second note, of another release, in a page of zeros.
        other = page.replace(b"OSRELEASE=" + release,
                             b"OSRELEASE=" + b"9" * len(release))
        bad = bytearray(flat)
        kdump_patch.replace(bad, zero_page(flat, vi), other)
        path = os.path.join(tmp, "two-notes.vmcore")
        with open(path, "wb") as f:
            f.write(bad)
        p = run([*k, "--info", path], env=env, timeout=600)
        c.ok(name + " two different notes: not our reader's",
             "read by            inodedump" not in p.stdout,
             p.stdout[:300] + p.stderr[-300:])
        c.ok(name + " two different notes: why said",
             "no VMCOREINFO in its sub-header, and two different VMCOREINFO "
             "notes in the kernel's memory" in p.stderr, p.stderr[-600:])


def info_page(flat):
    """The pfn of the page the kernel's note begins (found by its first
    bytes, big-endian, as the kernel writes it)."""
    for pfn in range(1 << 17):
        try:
            p = kdump_patch.page(flat, pfn)
        except ValueError:
            continue
        if p[:4] == b"\0\0\0\x0b" and \
                p[12:34] == b"VMCOREINFO\0\0OSRELEASE=":
            return pfn
    raise AssertionError("no VMCOREINFO note in the dump's memory")


def zero_page(flat, not_pfn):
    """A page of zeros, high in memory."""
    for pfn in range((1 << 17) - 1, 0, -1):
        if pfn != not_pfn and not any(kdump_patch.page(flat, pfn)):
            return pfn
    raise AssertionError("no page of zeros")


def module_form(c, name, k, dump, truth, addrs):
    """Without the module's debug file each table drgn gives as a bare
    address in a module is MODULE+0xOFFSET with why, one base per module."""
    with tempfile.TemporaryDirectory() as tmp:
        # a cache of its own: the -k run's kept the debug file's names
        p = run([*k, "--json", dump, *addrs], env=private_env(tmp)[0],
                timeout=600)
    doc = json.loads(p.stdout) if p.stdout.strip() else {}
    by = {g.get("address", "").lower(): g for g in doc.get("inodes", [])}
    bases, seen = {}, 0
    for t in truth:
        g = by.get("0x" + t["addr"].lower(), {})
        for op in ("i_op", "i_fop", "a_ops", "s_op"):
            v, want = g.get(op, ""), t.get(op, "-")
            if not want.startswith("0x") or "+0x" not in str(v):
                continue
            seen += 1
            mod, off = v.split("+0x")
            bases.setdefault(mod, set()).add(int(want, 16) - int(off, 16))
            c.ok(f"{name} {t['role']} {op} {v}: why no name",
                 "its kallsyms keep functions only" in
                 g.get(op + "_symbol_note", ""), g.get(op + "_symbol_note"))
    c.ok(name + " module tables as MODULE+0xOFFSET without debug files",
         seen > 0, p.stdout[:300])
    c.ok(name + " one base per module, its offsets agreeing with drgn's "
         "addresses", all(len(b) == 1 for b in bases.values()), str(bases))


def main():
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    dump = os.path.join(d, FILES.get(fmt, fmt + ".vmcore"))
    truth = read_truth(os.path.join(d, "truth.txt"))
    # A module's operations tables: this kernel's kallsyms keep functions
    # only (KALLSYMS_ALL off), so with -k they are named from the module's
    # debug file in the set's debug/ (truth-modules.txt: drgn given the
    # same ext4.ko); without it they are MODULE+0xOFFSET (checked below).
    debug = os.path.join(d, "debug")
    named = os.path.join(d, "truth-modules.txt")
    ktruth = read_truth(named) if os.path.isfile(named) else truth
    addrs = [t["addr"] for t in truth]
    name = f"{set_name}/{fmt}"
    c = Checker()
    c.ok(f"{name} exists", os.path.isfile(dump))
    c.ok(f"{set_name}: truth has inodes", len(truth) > 0)
    with tempfile.TemporaryDirectory() as tmp:
        env, empty = private_env(tmp)
        k = ["-k", os.path.join(d, "vmlinux")]
        p = run([*k, "--info", dump], env=env, timeout=600)
        c.ok(name + " read by our reader",
             "read by            inodedump" in p.stdout,
             p.stdout[:400])
        c.ok(name + " translated by our s390x walk",
             "translated by      inodedump (s390x, 4 KiB pages"
             in p.stdout, p.stdout[:400])
        c.ok(name + " --info: the release",
             f"release            {info(d)['release']}" in p.stdout,
             p.stdout[:600])
        c.ok(name + " --info says whether VMCOREINFO came from memory",
             ("the kernel's own, in its memory at physical 0x" in p.stdout)
             == (fmt in FROM_MEMORY), p.stdout[:800])
        kd = [*k, "--debug-root", debug] if os.path.isdir(debug) else k
        p = run([*kd, "--json", dump, *addrs], env=env, timeout=600)
        doc = json.loads(p.stdout) if p.stdout.strip() else {}
        c.ok(name + " a JSON document", bool(doc),
             f"exit {p.returncode}; stderr: {p.stderr[-600:]}")
        inodes = doc.get("inodes", [])
        c.eq(name + " one result per address", len(inodes), len(truth))
        violations = test_truth.compare(c, name, ktruth, inodes)
        c.eq(name + " exit code", p.returncode, 1 if violations else 0)
        said = [ln for ln in p.stderr.splitlines()
                if not ln.startswith("vmcore-inode: module ")]
        c.ok(name + " nothing on stderr but which file named a "
             "module's data", not said, p.stderr[-400:])
        if ktruth is not truth:
            module_form(c, name, k, dump, truth, addrs)
        sweep(c, name, k, dump, env, truth, drgn_counts(d),
              {"0x" + t["sb"] for t in truth} if fmt == "panic" else None)
        # the printk ring, big-endian: the banner the console printed
        p = run([*k, "--log", dump], env=env, timeout=600)
        banner = f"Linux version {info(d)['release']} "
        c.ok(name + " --log: the kernel's banner, as on its console",
             p.returncode == 0 and banner in p.stdout and
             banner in open(os.path.join(d, "serial.log"),
                            errors="replace").read(),
             f"exit {p.returncode}: {p.stdout[:300]} {p.stderr[-300:]}")
        if fmt == "qemu-kdump-zlib":
            damaged_note(c, name, d, dump, env, addrs)
        # No vmlinux: the dump's BTF and kallsyms, or one honest failure.
        p = run(["--debug-root", empty, "--json", dump, *addrs], env=env,
                timeout=600)
        if has_btf(d):
            doc = json.loads(p.stdout) if p.stdout.strip() else {}
            inodes = doc.get("inodes", [])
            c.eq(name + "/btf one result per address", len(inodes),
                 len(truth))
            violations = test_truth.compare(c, name + "/btf", truth, inodes)
            c.eq(name + "/btf exit code", p.returncode,
                 1 if violations else 0)
            c.ok(name + "/btf types from the dump's BTF",
                 "types from the dump's BTF" in p.stderr, p.stderr[-400:])
        else:
            c.eq(name + "/btf exit status (no BTF in this kernel)",
                 p.returncode, 3)
            c.ok(name + "/btf decodes nothing", not p.stdout.strip(),
                 p.stdout[:300])
    c.finish()


if __name__ == "__main__":
    main()
