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
checked against the guest's own `inodedump-stat:` lines; for arm64-64k
(debugvfs73's guest on a 64 KiB-page arm64 kernel) the trigger module's
`inodedump-truth:` lines, which the recipe checked against drgn 0.3.0.

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

FILES = dict(FORMATS, panic="panic.vmcore")
# Sets whose kernel keeps text symbols only in kallsyms (CONFIG_KALLSYMS_ALL
# off: Debian's arm64 5.10 and 6.1): from the dump alone, no data symbol
# of vmlinux has a name, so each of its operations tables is its address,
# drgn's value; a module's (ext4's) is named by the module's debug file
# (the set's debug/, the -dbg package's ext4.ko: truth-modules.txt, drgn
# given the same file), and without one is MODULE+0xOFFSET, the offset in
# the module's memory as drgn reads its core_layout, with why.
TEXT_ONLY_KALLSYMS = {"arm64-510", "arm64-61"}
OPS = ("i_op", "i_fop", "a_ops", "s_op")


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


def drgn_ops_host(path, vmlinux, addrs):
    """{addr: {i_op: "0x..." or "-", ...}}: each truth inode's operations
    pointers as drgn reads them (the kernel's %px of each)."""
    os.environ["DRGN_USE_LIBKDUMPFILE_FOR_ELF"] = "1"
    import drgn
    prog = drgn.Program()
    prog.set_core_dump(path)
    prog.load_debug_info([vmlinux])
    out = {}
    for a in addrs:
        inode = drgn.Object(prog, "struct inode *", int(a, 16))
        vals = {"i_op": inode.i_op, "i_fop": inode.i_fop,
                "a_ops": inode.i_mapping.a_ops if int(inode.i_mapping) else 0,
                "s_op": inode.i_sb.s_op}
        out[a] = {k: ("0x%x" % int(v)) if int(v) else "-" for k, v in vals.items()}
    btf = [prog.symbol(n).address for n in ("__start_BTF", "__stop_BTF")]
    return out, btf


def drgn_module_bases(path, vmlinux):
    """[(name, base, size)]: each loaded module's core memory as drgn reads
    its struct module (5.10 and 6.1: core_layout)."""
    os.environ["DRGN_USE_LIBKDUMPFILE_FOR_ELF"] = "1"
    import drgn
    from drgn.helpers.linux.list import list_for_each_entry
    prog = drgn.Program()
    prog.set_core_dump(path)
    prog.load_debug_info([vmlinux])
    return [(m.name.string_().decode(), int(m.core_layout.base), int(m.core_layout.size))
            for m in list_for_each_entry("struct module", prog["modules"].address_of_(), "list")]


def module_form(addr, bases):
    """"ext4+0x7c880": addr's module and offset in its memory, or None."""
    a = int(addr, 16)
    for name, base, size in bases:
        if base <= a < base + size:
            return f"{name}+0x{a - base:x}"
    return None


def unnamed_ops(d, fmt, truth, named=None, module_debug=False):
    """truth with each operations table as what a dump whose kallsyms
    keeps no data symbols can say of it: vmlinux's as its address (drgn's
    value); a module's by its debug file (named: truth-modules.txt) or,
    without one, as MODULE+0xOFFSET. Also where drgn finds the BTF."""
    src, vmlinux = os.path.join(d, drgn_source(fmt)), os.path.join(d, "vmlinux")
    ops, btf = drgn_ops_host(src, vmlinux, [t["addr"] for t in truth])
    bases = drgn_module_bases(src, vmlinux)
    named = {t["addr"]: t for t in (named or [])}
    out = []
    for t in truth:
        row = dict(t)
        for k in OPS:
            if k not in t:
                continue
            addr = ops[t["addr"]][k]
            mod = module_form(addr, bases) if addr != "-" else None
            if mod is None:
                row[k] = addr
            elif module_debug:
                row[k] = named[t["addr"]][k]
            else:
                row[k] = mod
        out.append(row)
    return out, btf


def module_ops_said(c, name, doc, module_debug, release):
    """Each module operations table unnamed says why (JSON key_symbol_note);
    with the debug file, none is left unnamed."""
    notes = [(g["address"], k, g.get(k), g.get(k + "_symbol_note"))
             for g in doc.get("inodes", []) for k in OPS if g.get(k + "_symbol_note")]
    if module_debug:
        c.eq(name + " no module table left unnamed", notes, [])
        return
    c.ok(name + " module tables unnamed, each saying why", len(notes) > 0, "")
    for a, k, v, note in notes:
        c.ok(f"{name} {a} {k} {v}: why no name",
             note.startswith("module data; no name: its kallsyms keep functions only")
             and f"linux-image-{release}-dbg" in note, note)


def drgn_counts(d, fmt):
    src = drgn_source(fmt)
    if sid_drgn.chroot_of(d):
        return json.loads(sid_drgn.run(d, "test_arm64.py", ["--counts", "/fx/" + src]))
    return drgn_counts_host(os.path.join(d, src), os.path.join(d, "vmlinux"))


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
    want = drgn_counts(d, fmt)
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "no-debug")
        os.mkdir(empty)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("DEBUGINFOD_URLS", None)
        debug = os.path.join(d, "debug")
        text_only = set_name in TEXT_ONLY_KALLSYMS
        runs = [("vmlinux", ["-k", vmlinux]), ("btf", ["--debug-root", empty])]
        if text_only:  # module debug files given, and (btf) not
            runs = [("vmlinux", ["-k", vmlinux, "--debug-root", debug]),
                    ("btf-moddebug", ["--debug-root", debug]),
                    ("btf", ["--debug-root", empty])]
            named = read_truth(os.path.join(d, "truth-modules.txt"))
            release = [ln.split("=", 1)[1].strip()
                       for ln in open(os.path.join(d, "info.txt"))
                       if ln.startswith("release=")][0]
        for how, k in runs:
            name = f"{set_name}/{fmt}/{how}"
            if how.startswith("btf") and text_only:
                # a cache of its own: the BTF is found by its header, not
                # taken from what the vmlinux run kept
                env = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache-" + how))
            p = run([*k, "--json", dump, *addrs], env=env, timeout=600)
            try:
                doc = json.loads(p.stdout)
            except json.JSONDecodeError as e:
                c.ok(name, False, f"not JSON ({e}); exit {p.returncode}; "
                     f"stderr: {p.stderr[-600:]}")
                continue
            c.eq(name + " schema", doc.get("schema"), 1)
            inodes = doc.get("inodes", [])
            c.eq(name + " one result per address", len(inodes), len(truth))
            expect = truth
            if text_only:
                mod_debug = how != "btf"
                module_ops_said(c, name, doc, mod_debug, release)
                if mod_debug:
                    c.ok(name + " says which debug file named ext4's data",
                         "module ext4: names from its debug file " + debug in p.stderr,
                         p.stderr[-600:])
            if how == "vmlinux" and text_only:
                expect = named
            elif how.startswith("btf") and text_only:
                expect, (start, stop) = unnamed_ops(d, fmt, truth, named,
                                                    how == "btf-moddebug")
                c.ok(name + " says kallsyms keeps text only",
                     "text symbols only" in p.stderr, p.stderr[-400:])
                # where vmlinux's __start_BTF..__stop_BTF is (drgn, KASLR
                # applied): the one header found, and checked
                c.ok(name + " BTF found by its header at __start_BTF, checked",
                     f"the dump's BTF ({stop - start} bytes at 0x{start:x}, " in p.stderr
                     and "found by its header" in p.stderr and "agree)" in p.stderr,
                     f"want {stop - start} bytes at 0x{start:x}: {p.stderr[-700:]}")
            violations = test_truth.compare(c, name, expect, inodes)
            want_rc = 1 if violations else 0
            if expect is not truth:
                # an inode in a CPU's active slab: allocated or free is
                # not known without __per_cpu_offset (exit 4, said)
                unsure = [g["address"] for g in inodes
                          if (g.get("slab") or {}).get("state") == "unknown"]
                for a in unsure:
                    c.ok(f"{name} {a}: slab state unknown for the CPUs' slabs",
                         "__per_cpu_offset" in str(next(
                             g for g in inodes if g["address"] == a).get("slab")),
                         "")
                if unsure and not violations:
                    want_rc = 4
                print(f"{name}: {len(inodes) - len(unsure)} of {len(inodes)} "
                      "inodes' slab state known from the dump alone")
            c.eq(name + " exit code", p.returncode, want_rc)
            if how.startswith("btf"):
                c.ok(name + " says where types come from",
                     "no vmlinux: types from the dump's BTF" in p.stderr,
                     p.stderr[-400:])
            if how.startswith("btf") and text_only:
                no_sweep(c, name, k, dump, env)
            else:
                sweep(c, name, k, dump, env, truth, want)
    c.finish()


def no_sweep(c, name, k, dump, env):
    """A kallsyms of text symbols only has no super_blocks: the sweep is
    refused (exit 3) saying so, never an empty sweep."""
    p = run([*k, "--sweep", "--jsonl", dump], env=env, timeout=600)
    c.eq(name + " sweep: refused", p.returncode, 3)
    c.ok(name + " sweep: says kallsyms has no super_blocks, keeping text only",
         "no symbol super_blocks in the dump's kallsyms (it keeps text "
         "symbols only" in p.stderr, p.stderr[-600:])


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
