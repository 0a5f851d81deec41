#!/usr/bin/python3
"""A loaded module's data named from its debug file, and each way that
fails said (issue 42 item 2, issue 44 item 4's modules).

usage: test_module_debug.py rhel612 | refused | broken | mutated | cache |
       debuginfod

rhel612: the fs612 dump (-d 17) with the rhel612 set's Red Hat-shaped root
  (.build-id/ links to kernel/…/M.ko.debug) under --debug-root. Its kernel
  has CONFIG_KALLSYMS_ALL: the modules' own kallsyms name their data, so the
  debug files are asked first (INODEDUMP_MODULE_DEBUG_FIRST, the diagnostic
  for this). Every truth inode's operations equal the truth's (drgn's
  names, fs612's truth.txt), with each module's debug file named on stderr:
  by its .build-id link, and, in a root that has only lib/modules/R (no
  .build-id/), as kernel/…/M.ko.debug found by the module's name. The
  same without the diagnostic (kallsyms' names): the same answers.
refused: arm64-510's dump with a root whose ext4.ko is arm64-61's (another
  build-id): refused, saying both build-ids; ext4's tables stay
  ext4+0x…, their note saying the refusal; the run not partial for it.
broken: the same with ext4.ko cut to its first 64 KiB, and with one that
  is no ELF file: each said by path, ext4+0x… kept.
debuginfod: a real debuginfod on loopback serving ext4.ko: fetched by the
  build-id of the module's notes, its data named; a server without it:
  ext4+0x… kept, saying so.
cache: what the debug file's symbol table gave is kept per build-id; a
  second run takes it from there (said), a kept file damaged (cut short,
  another magic, an index out of range) is not trusted and rewritten.
mutated: copies of arm64-510's ELF dump (QEMU's, physical: a struct found
  by its bytes as drgn reads them) with ext4's struct module damaged:
  sect_attrs pointing at the module itself (garbage sections), at an
  address outside memory, its nsections made 2^31: each a clear note,
  ext4+0x… kept; and (from the dump alone, where the module list is
  walked from ext4's own node) its list.next pointing at its own name
  (garbage links): ext4's tables still ext4+0x…, a tmpfs inode's (vmlinux
  data, in no module) unknown, the module list said broken (exit 4).
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, build_id, read_truth, run, set_dir  # noqa: E402

OPS = ("i_op", "i_fop", "a_ops", "s_op")


def decode(c, name, args, dump, addrs, env):
    p = run([*args, "--json", dump, *addrs], env=env, timeout=600)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        c.ok(name + " JSON", False, f"{e}; exit {p.returncode}; {p.stderr[-800:]}")
        return p, []
    inodes = doc.get("inodes", [])
    c.eq(name + " one result per address", len(inodes), len(addrs))
    return p, inodes


def rhel612(c, env, tmp):
    fs, rh = set_dir("fs612"), set_dir("rhel612")
    root = os.path.join(rh, "root")
    rel = open(os.path.join(rh, "release")).read().strip()
    truth = [t for t in read_truth(os.path.join(fs, "truth.txt"))
             if t["fstype"] in ("ext4", "xfs", "btrfs")]
    c.ok("fs612 has module filesystems' truth inodes", len(truth) >= 9, str(len(truth)))
    addrs = [t["addr"] for t in truth]
    dump = os.path.join(fs, "d17-zlib.vmcore")
    k = ["-k", os.path.join(fs, "vmlinux")]
    only_mods = os.path.join(tmp, "modules-only")
    os.makedirs(os.path.join(only_mods, "usr/lib/debug/lib/modules"))
    os.symlink(os.path.join(root, "usr/lib/debug/lib/modules", rel),
               os.path.join(only_mods, "usr/lib/debug/lib/modules", rel))
    runs = (("build-id", root, True, "usr/lib/debug/.build-id/"),
            ("by name", only_mods, True, "/kernel/fs/ext4/ext4.ko.debug"),
            ("kallsyms", root, False, None))
    for how, dr, first, where in runs:
        name = f"rhel612 {how}"
        e = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache-" + how.replace(" ", "")))
        if first:
            e["INODEDUMP_MODULE_DEBUG_FIRST"] = "1"
        p, inodes = decode(c, name, [*k, "--debug-root", dr], dump, addrs, e)
        for t, g in zip(truth, inodes):
            for key in OPS:
                c.eq(f"{name} {t['role']} {key}", g.get(key), t[key])
                c.eq(f"{name} {t['role']} {key} has no note",
                     g.get(key + "_symbol_note"), None)
        c.eq(name + " exit code", p.returncode, 0)
        for mod in ("ext4", "xfs", "btrfs"):
            said = [ln for ln in p.stderr.splitlines()
                    if f"module {mod}: names from its debug file" in ln]
            if where is None:
                c.eq(f"{name} {mod}: no debug file read (kallsyms named it)", said, [])
                continue
            c.ok(f"{name} {mod}: its debug file named, with its build-id",
                 len(said) == 1 and where.replace("ext4", mod) in said[0]
                 if mod == "ext4" or "build-id" in how else len(said) == 1, str(said))
            if said and "(build-id " in said[0]:
                bid = said[0].rsplit("(build-id ", 1)[1].rstrip(")")
                path = said[0].split("debug file ", 1)[1].rsplit(" (build-id", 1)[0]
                c.eq(f"{name} {mod}: the file named has that build-id",
                     build_id(path), bid)


def arm64_510():
    d = set_dir("arm64-510")
    rel = [ln.split("=", 1)[1].strip() for ln in open(os.path.join(d, "info.txt"))
           if ln.startswith("release=")][0]
    truth = [t for t in read_truth(os.path.join(d, "truth.txt")) if t["fstype"] == "ext4"]
    return d, rel, truth


def ext4_ko(d, rel):
    return os.path.join(d, "debug/lib/modules", rel, "kernel/fs/ext4/ext4.ko")


def root_with(tmp, rel, name, data):
    """A debug root holding only lib/modules/R/kernel/fs/ext4/ext4.ko = data."""
    root = os.path.join(tmp, name)
    ko = os.path.join(root, "lib/modules", rel, "kernel/fs/ext4/ext4.ko")
    os.makedirs(os.path.dirname(ko))
    with open(ko, "wb") as f:
        f.write(data)
    return root, ko


def unnamed(c, name, p, inodes, want_in_note, truth, vmlinux_named=True):
    """Every table of ext4's (those drgn with vmlinux alone cannot name:
    truth.txt's hex values) is ext4+0x…, its note saying want_in_note;
    vmlinux's keep drgn's names."""
    checked = 0
    for t, g in zip(truth, inodes):
        for key in OPS:
            if not t[key].startswith("0x"):
                if vmlinux_named:
                    c.eq(f"{name} {g['address']} {key}", g.get(key), t[key])
                continue
            checked += 1
            v, note = g.get(key), g.get(key + "_symbol_note") or ""
            c.ok(f"{name} {g['address']} {key} is ext4+0x…", str(v).startswith("ext4+0x"), str(v))
            c.ok(f"{name} {g['address']} {key}: its note says why",
                 note.startswith("module data; no name: its kallsyms keep functions only")
                 and want_in_note in note, note)
    c.ok(name + " some tables are ext4's", checked >= 9, str(checked))
    c.ok(name + " stderr says it once for ext4",
         sum(1 for ln in p.stderr.splitlines()
             if "module ext4: no debug file names its data" in ln and want_in_note in ln) == 1,
         p.stderr[-900:])


def refused(c, env, tmp):
    d, rel, truth = arm64_510()
    other = os.path.join(set_dir("arm64-61"), "debug/lib/modules")
    other = [os.path.join(r, f) for r, _, fs in os.walk(other) for f in fs if f == "ext4.ko"][0]
    root, ko = root_with(tmp, rel, "other-build", open(other, "rb").read())
    want, theirs = build_id(ext4_ko(d, rel)), build_id(other)
    c.ok("the two ext4.ko differ in build-id", want != theirs, want)
    k = ["-k", os.path.join(d, "vmlinux"), "--debug-root", root]
    p, inodes = decode(c, "refused", k, os.path.join(d, "d17-zlib.vmcore"),
                       [t["addr"] for t in truth], env)
    unnamed(c, "refused", p, inodes,
            f"{ko} has build-id {theirs}, the module's is {want}: refused", truth)
    c.eq("refused: not partial for it", p.returncode, 0)


def broken(c, env, tmp):
    d, rel, truth = arm64_510()
    good = open(ext4_ko(d, rel), "rb").read()
    k = ["-k", os.path.join(d, "vmlinux"), "--debug-root"]
    for case, data, said in (("truncated", good[:65536], "is truncated or damaged: its section headers"),
                             ("not ELF", b"not an ELF file\n" * 64, "is not a module's ELF file")):
        root, ko = root_with(tmp, rel, case.replace(" ", "-"), data)
        p, inodes = decode(c, case, k + [root], os.path.join(d, "d17-zlib.vmcore"),
                           [t["addr"] for t in truth], env)
        unnamed(c, case, p, inodes, said, truth)
        c.ok(case + ": the note names the file", all(
            ko in (g.get(key + "_symbol_note") or "") for t, g in zip(truth, inodes)
            for key in OPS if t[key].startswith("0x")), "")
        c.eq(case + ": exit code", p.returncode, 0)


def cache(c, env, tmp):
    """The symbols of the debug file are kept per build-id: a second run
    takes them from the cache (said) and names the same; a cache file
    cut short, of another kind, or whose entries point outside it is not
    trusted: the debug file is read again, the names the same."""
    d, rel, truth = arm64_510()
    named = {t["addr"]: t for t in read_truth(os.path.join(d, "truth-modules.txt"))}
    ko = ext4_ko(d, rel)
    bid = build_id(ko)
    cdir = os.path.join(tmp, "cache")
    e = dict(env, XDG_CACHE_HOME=cdir)
    kept = os.path.join(cdir, "inodedump/kernel", bid, "module.syms")
    k = ["--debug-root", os.path.join(d, "debug")]
    addrs = [t["addr"] for t in truth]
    good = None
    for case in ("first", "second", "cut short", "other magic", "index out"):
        if case == "cut short":
            open(kept, "wb").write(good[:len(good) // 2])
        elif case == "other magic":
            open(kept, "wb").write(b"IDDMSYM9" + good[8:])
        elif case == "index out":  # the first symbol's section index huge
            head = 8 + 4 * 4 + 8
            path_len, = struct.unpack_from("<I", good, 16)
            nsec, = struct.unpack_from("<I", good, 12)
            at = head + path_len + nsec * 64
            open(kept, "wb").write(good[:at] + struct.pack("<I", 1 << 30) + good[at + 4:])
        p, inodes = decode(c, "cache " + case, k, os.path.join(d, "d17-zlib.vmcore"), addrs, e)
        for t, g in zip(truth, inodes):
            for key in OPS:
                if t[key].startswith("0x"):
                    c.eq(f"cache {case} {t['role']} {key}", g.get(key), named[t["addr"]][key])
        from_cache = "its symbols as the cache kept them" in p.stderr
        c.eq(f"cache {case}: names from the cache", from_cache, case == "second")
        c.ok(f"cache {case}: the file kept", os.path.isfile(kept), kept)
        if case == "first":
            good = open(kept, "rb").read()
            c.ok("cache: it names the debug file", ko.encode() in good, "")
        elif case != "second":
            c.ok(f"cache {case}: rewritten whole", open(kept, "rb").read() == good, "")


def debuginfod(c, env, tmp):
    """A real debuginfod (Debian's) on loopback serving arm64-510's
    ext4.ko: from the dump alone, no debug file on disk, the module's
    debug file is fetched by the build-id of its notes and names its data
    as drgn does; a server without it (arm64-61's ext4.ko only): the
    tables stay ext4+0x…, the note saying debuginfod has it not."""
    import test_debuginfod as dbg
    d, rel, truth = arm64_510()
    named = {t["addr"]: t for t in read_truth(os.path.join(d, "truth-modules.txt"))}
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    addrs = [t["addr"] for t in truth]
    dump = os.path.join(d, "d17-zlib.vmcore")
    other = [os.path.join(r, f) for r, _, fs in
             os.walk(os.path.join(set_dir("arm64-61"), "debug")) for f in fs if f == "ext4.ko"][0]
    for case, ko in (("served", ext4_ko(d, rel)), ("not served", other)):
        sub = os.path.join(tmp, case.replace(" ", "-"))
        served = os.path.join(sub, "served")
        os.makedirs(served)
        os.symlink(ko, os.path.join(served, "ext4.ko"))
        proc, port = dbg.start_debuginfod(sub, served)
        try:
            c.ok(f"debuginfod {case}: indexed", dbg.wait_indexed(port, build_id(ko)),
                 open(os.path.join(sub, "debuginfod.log")).read()[-1500:])
            e = dbg.env_for(sub, f"http://127.0.0.1:{port}")
            p, inodes = decode(c, "debuginfod " + case, ["--debug-root", empty],
                               dump, addrs, e)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        if case == "not served":
            unnamed(c, "debuginfod " + case, p, inodes, "no debug file of ext4", truth,
                    vmlinux_named=False)
            c.ok("debuginfod not served: stderr says debuginfod has it not",
                 f"has no ext4 with build-id {build_id(ext4_ko(d, rel))}" in p.stderr,
                 p.stderr[-800:])
            continue
        for t, g in zip(truth, inodes):
            for key in OPS:
                if t[key].startswith("0x"):
                    c.eq(f"debuginfod {t['role']} {key}", g.get(key), named[t["addr"]][key])
        c.ok("debuginfod: says the file came from its cache",
             "module ext4: names from its debug file " + os.path.join(sub, "client-cache")
             in p.stderr, p.stderr[-800:])


def drgn_places(d):
    """ext4's struct module and sect_attrs as drgn reads them: (address,
    first 256 bytes, member offsets), from the set's ELF dump."""
    os.environ["DRGN_USE_LIBKDUMPFILE_FOR_ELF"] = "1"
    import drgn
    from drgn.helpers.linux.list import list_for_each_entry
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "elf-nopaging.vmcore"))
    prog.load_debug_info([os.path.join(d, "vmlinux")])
    mod = next(m for m in list_for_each_entry("struct module", prog["modules"].address_of_(), "list")
               if m.name.string_() == b"ext4")
    T = prog.type("struct module")
    sa = mod.sect_attrs
    return {
        "mod": int(mod), "mod_bytes": prog.read(int(mod), 256),
        "sect_attrs_off": drgn.offsetof(T, "sect_attrs"),
        "list_off": drgn.offsetof(T, "list"), "name_off": drgn.offsetof(T, "name"),
        "sa": int(sa), "sa_bytes": prog.read(int(sa), 64),
        "nsections_off": drgn.offsetof(sa.type_.type, "nsections"),
    }


def find_once(c, blob, sig, what):
    at = blob.find(sig)
    c.ok(f"{what} found once in the ELF dump by its bytes",
         at >= 0 and blob.find(sig, at + 1) < 0, str(at))
    return at


def mutated(c, env, tmp):
    d, rel, truth = arm64_510()
    places = drgn_places(d)
    src = os.path.join(d, "elf-nopaging.vmcore")
    blob = bytearray(open(src, "rb").read())
    mod_at = find_once(c, blob, places["mod_bytes"], "ext4's struct module")
    sa_at = find_once(c, blob, places["sa_bytes"], "ext4's sect_attrs")
    addrs = [t["addr"] for t in truth]
    k = ["-k", os.path.join(d, "vmlinux"), "--debug-root", os.path.join(d, "debug")]
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty, exist_ok=True)
    q = struct.Struct("<Q")
    cases = (
        ("sect_attrs at the module", k, mod_at + places["sect_attrs_off"],
         q.pack(places["mod"]), "its sect_attrs place none of its"),
        ("sect_attrs outside memory", k, mod_at + places["sect_attrs_off"],
         q.pack(0xffff00000000dea0), "its sections or build-id cannot be read"),
        ("nsections 2^31", k, sa_at + places["nsections_off"],
         struct.pack("<I", 1 << 31), "sect_attrs claims 2147483648 sections"),
        ("module list garbage", ["--debug-root", empty], mod_at + places["list_off"],
         q.pack(places["mod"] + places["name_off"]), None),
    )
    dump = os.path.join(tmp, "mutant.vmcore")
    for case, args, at, data, said in cases:
        c.ok(case + ": the place is in the file", at >= 0, str(at))
        old = bytes(blob[at:at + len(data)])
        blob[at:at + len(data)] = data
        with open(dump, "wb") as f:
            f.write(blob)
        blob[at:at + len(data)] = old
        e = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache-" + case.replace(" ", "-")))
        tmpfs = [t["addr"] for t in read_truth(os.path.join(d, "truth.txt"))
                 if t["fstype"] == "tmpfs"][:1] if not said else []
        p, inodes = decode(c, case, args, dump, addrs + tmpfs, e)
        c.ok(case + ": no crash", p.returncode in (0, 1, 3, 4), f"exit {p.returncode}")
        if said:
            unnamed(c, case, p, inodes, said, truth)
            continue
        # ext4's own node was read: its tables are still ext4+0x…; an
        # address in no module read is unknown, the list said broken
        unnamed(c, case, p, inodes[:len(addrs)], "no debug file of ext4", truth,
                vmlinux_named=False)
        for g in inodes[len(addrs):]:
            for key in OPS:
                c.ok(f"{case} {g['address']} {key}: unknown, said why",
                     str(g.get(key)).startswith("0x") and
                     "module symbols unreadable: module list walked from" in
                     (g.get(key + "_symbol_error") or ""),
                     f"{g.get(key)} {g.get(key + '_symbol_error')}")
        c.eq(case + ": exit code (partial)", p.returncode, 4)


def main():
    case = sys.argv[1]
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("DEBUGINFOD_URLS", None)
        env.pop("INODEDUMP_MODULE_DEBUG_FIRST", None)
        {"rhel612": rhel612, "refused": refused, "broken": broken,
         "mutated": mutated, "cache": cache, "debuginfod": debuginfod}[case](c, env, tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
