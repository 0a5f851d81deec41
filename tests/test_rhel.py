#!/usr/bin/env python3
"""Red Hat-shaped debuginfo (issue 44, item 4): the rhel612 set's debug root
gives the same answers as Debian's -dbg vmlinux.

usage: test_rhel.py

The rhel612 set (tests/vmcores/recipes/rhel612.sh) is the fs612 kernel's
real -dbg package turned into Red Hat's shape with Debian's tools: vmlinux
at usr/lib/debug/lib/modules/R/vmlinux compressed by `dwz -m` (its shared
DIEs and strings in usr/lib/debug/.dwz/kernel-R.x86_64, named by a relative
.gnu_debugaltlink with its build-id), every debug section SHF_COMPRESSED,
the modules as kernel/…/M.ko.debug, .build-id/ links. The dumps and truth
are fs612's (79 truth inodes: tmpfs, ext4, XFS, btrfs, overlayfs, NFS,
sockets, pipes, proc, sysfs).

First the shape itself is checked (so a recipe that lost a part of it
fails here, not as a silent pass): the link in vmlinux names the .dwz file
by the build-id that file has, vmlinux's and the .dwz file's .debug_info
are compressed, vmlinux's DWARF refers into the .dwz file
(DW_FORM_GNU_ref_alt and DW_FORM_GNU_strp_alt in its abbreviations), and
each file layout.txt lists has its .build-id link. Then every truth inode
of the -d 17 and -d 31 dumps decodes, text and JSON, byte-identical to the
run with Debian's vmlinux (-k), with vmlinux found under --debug-root:
  - by the dump's build-id (the set's root as made);
  - by the dump's release (a root without .build-id/);
  - with the .dwz file found by its build-id only (no .dwz/ folder);
each run's stderr saying how vmlinux was found; and the -d 17 dump's
--sweep, text and --jsonl, the same. The truth's own values
(ino, mode, i_op, s_id) are checked on the Red Hat-shaped run's JSON of
the -d 17 dump too (-d 31 leaves out pages some of them are on: exit 3,
the same in both runs).
A second run with the same cache reads what the first kept (the cache
folder of this vmlinux and .dwz file, kernel/BUILD-ID/dwz-ALT-ID/: the
index, the inflated copies), writing none of it again, and decodes the
same. Broken shapes are errors that say what is wrong, by path and
build-id, and exit 3 (vmlinux unreadable) without output: the .dwz file
missing; a .dwz file of another build (its build-id changed) where the
link points; a link that is not a file name and a build-id.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, build_id, elf_section, link_fixture,  # noqa: E402
                     read_truth, run, set_dir)

DUMPS = ["d17-zlib.vmcore", "d31-zlib.vmcore"]
EXIT_VMLINUX = 3  # input unreadable: vmlinux (vmcore-inode(1))


SHF_COMPRESSED = 0x800


def altlink(path):
    """.gnu_debugaltlink of an ELF file: (file name, build-id hex)."""
    raw = elf_section(path, ".gnu_debugaltlink") or b""
    name, _, bid = raw.partition(b"\0")
    return name.decode(), bid.hex()


def check_shape(c, root, rel, layout):
    dbg = os.path.join(root, "usr/lib/debug")
    vml = os.path.join(dbg, "lib/modules", rel, "vmlinux")
    name, bid = altlink(vml)
    alt = os.path.normpath(os.path.join(os.path.dirname(vml), name))
    c.eq("the link names .dwz/kernel-R.x86_64, relative", name,
         f"../../../.dwz/kernel-{rel}.x86_64")
    c.ok("the .dwz file is there", os.path.isfile(alt), alt)
    c.eq("the .dwz file has the build-id the link names", build_id(alt), bid)
    for f in (vml, alt):
        c.ok(f"{os.path.basename(f)}'s .debug_info is SHF_COMPRESSED",
             elf_section(f, ".debug_info", flags=True)[0] & SHF_COMPRESSED)
    abbrev = subprocess.run(["readelf", "--debug-dump=abbrev", vml],
                            capture_output=True, text=True).stdout
    for form in ("DW_FORM_GNU_ref_alt", "DW_FORM_GNU_strp_alt"):
        c.ok(f"vmlinux's DWARF uses {form}", form in abbrev)
    mods = [p for p in layout.values() if p.endswith(".ko.debug")]
    c.ok("module debug files as kernel/.../M.ko.debug", len(mods) >= 20,
         f"{len(mods)}")
    for bid_, path in layout.items():
        link = os.path.join(dbg, ".build-id", bid_[:2], bid_[2:] + ".debug")
        c.ok(f".build-id link of {path}",
             os.path.realpath(link) == os.path.realpath(os.path.join(root, path)))
    return vml, alt, bid


def env_with(cache):
    e = dict(os.environ)
    e["XDG_CACHE_HOME"] = cache
    e.pop("INODEDUMP_NO_CACHE", None)
    e.pop("DEBUGINFOD_URLS", None)
    return e


def decode(args, cache):
    text = run(args, env=env_with(cache))
    js = run(["--json"] + args, env=env_with(cache))
    return text, js


def same(c, what, got, want):
    c.eq(f"{what}: exit", got[0].returncode, want[0].returncode)
    c.ok(f"{what}: text identical", got[0].stdout == want[0].stdout,
         first_difference(got[0].stdout, want[0].stdout))
    c.ok(f"{what}: JSON identical", got[1].stdout == want[1].stdout,
         first_difference(got[1].stdout, want[1].stdout))


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {i + 1}: {x!r} vs {y!r}"
    return f"{len(a.splitlines())} lines vs {len(b.splitlines())}"


def root_with(tmp, name, files):
    """A debug root of hard links: {path under root: fixture file}."""
    r = os.path.join(tmp, name)
    for rel_path, src in files.items():
        dst = os.path.join(r, rel_path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        link_fixture(src, dst)
    return r


def other_build(src, dst):
    """A copy of the .dwz file whose build-id's last byte differs: another
    build's file where the link points."""
    data = bytearray(open(src, "rb").read())
    bid = bytes.fromhex(build_id(src))
    at = data.find(b"GNU\0" + bid)
    if at < 0:
        raise SystemExit(f"FAIL no build-id note found in {src}")
    data[at + 4 + len(bid) - 1] ^= 0xff
    with open(dst, "wb") as f:
        f.write(data)
    return build_id(dst)


def check_truth(c, what, js, truth):
    doc = json.loads(js.stdout)
    by_addr = {}
    for i in doc.get("inodes", []):
        by_addr[i.get("address", "").removeprefix("0x")] = i
    for t in truth:
        i = by_addr.get(t["addr"])
        c.ok(f"{what}: {t['role']} decoded", i is not None)
        if i is None:
            continue
        c.eq(f"{what}: {t['role']} ino", str(i.get("ino")), t["ino"])
        c.eq(f"{what}: {t['role']} mode", i.get("mode"), int(t["mode"], 8))
        c.eq(f"{what}: {t['role']} i_op", i.get("i_op"), t["i_op"])
        c.eq(f"{what}: {t['role']} s_id", i.get("s_id"), t["s_id"])


def cache_files(cache, vbid, abid):
    d = os.path.join(cache, "inodedump/kernel", vbid, f"dwz-{abid}")
    out = {}
    for n in ("dwarf.index", "dwarf.elf", "dwz.elf"):
        p = os.path.join(d, n)
        if os.path.exists(p):
            st = os.stat(p)
            out[n] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return d, out


def main():
    c = Checker()
    rhel = set_dir("rhel612")
    fs = set_dir("fs612")
    rel = open(os.path.join(rhel, "release")).read().strip()
    root = os.path.join(rhel, "root")
    layout = dict(line.split() for line in open(os.path.join(rhel, "layout.txt")))
    vml, alt, abid = check_shape(c, root, rel, layout)
    vbid = build_id(vml)
    c.eq("vmlinux keeps the -dbg vmlinux's build-id", vbid,
         build_id(os.path.join(fs, "vmlinux")))
    truth = read_truth(os.path.join(fs, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    c.eq("truth inodes", len(addrs), 79)
    tmp = tempfile.mkdtemp(prefix="test-rhel-")
    try:
        by_release = root_with(tmp, "by-release", {
            f"usr/lib/debug/lib/modules/{rel}/vmlinux": vml,
            f"usr/lib/debug/.dwz/kernel-{rel}.x86_64": alt})
        alt_by_id = root_with(tmp, "alt-by-id", {
            f"usr/lib/debug/lib/modules/{rel}/vmlinux": vml,
            f"usr/lib/debug/.build-id/{abid[:2]}/{abid[2:]}.debug": alt})
        roots = [("by build-id", root, "found by the dump's build-id"),
                 ("by release", by_release, "found by the dump's release"),
                 (".dwz by its build-id", alt_by_id, "found by the dump's release")]
        for dump in DUMPS:
            path = os.path.join(fs, dump)
            cache = os.path.join(tmp, "cache-" + dump)
            plain = decode(["-k", os.path.join(fs, "vmlinux"), path] + addrs, cache)
            # -d 31 drops pages some truth inodes are on: exit 3 there
            c.eq(f"{dump}: -dbg vmlinux exit", plain[0].returncode,
                 0 if dump == DUMPS[0] else 3)
            for what, r, how in roots:
                w = f"{dump} {what}"
                got = decode(["--debug-root", r, path] + addrs, cache)
                same(c, w, got, plain)
                c.ok(f"{w}: stderr says how vmlinux was found", how in got[0].stderr,
                     got[0].stderr[-500:])
                if what == "by build-id" and dump == DUMPS[0]:
                    check_truth(c, w, got[1], truth)
        # Every inode of every superblock (its units walked, its lists).
        for extra in (["--sweep"], ["--sweep", "--jsonl"]):
            path = os.path.join(fs, DUMPS[0])
            cache = os.path.join(tmp, "cache-sweep")
            want = run(["-k", os.path.join(fs, "vmlinux"), *extra, path],
                       env=env_with(cache))
            got = run(["--debug-root", root, *extra, path], env=env_with(cache))
            what = " ".join(extra)
            c.ok(f"{what}: output", want.stdout.count("\n") > 20, want.stdout[-300:])
            c.eq(f"{what}: exit", got.returncode, want.returncode)
            c.ok(f"{what}: identical", got.stdout == want.stdout,
                 first_difference(got.stdout, want.stdout))
        # The per-build-id cache: a first run keeps, a second reads.
        cache = os.path.join(tmp, "cache-second")
        args = ["--debug-root", root, os.path.join(fs, DUMPS[0])] + addrs
        first = run(args, env=env_with(cache))
        d, kept = cache_files(cache, vbid, abid)
        c.eq(f"first run keeps the index and inflated copies in {d}",
             sorted(kept), ["dwarf.elf", "dwarf.index", "dwz.elf"])
        second = run(args, env=env_with(cache))
        _, again = cache_files(cache, vbid, abid)
        c.eq("second run writes none of them again", again, kept)
        c.ok("second run decodes the same", second.stdout == first.stdout and
             second.returncode == first.returncode == 0)
        # Broken shapes.
        dump = os.path.join(fs, DUMPS[0])
        missing = root_with(tmp, "missing", {
            f"usr/lib/debug/lib/modules/{rel}/vmlinux": vml})
        p = run(["--debug-root", missing, dump, addrs[0]],
                env=env_with(os.path.join(tmp, "cache-missing")))
        c.eq("the .dwz file missing: exit", p.returncode, EXIT_VMLINUX)
        c.eq("the .dwz file missing: no output", p.stdout, "")
        for want in (f"kernel-{rel}.x86_64", abid, "no file of that build-id",
                     os.path.join(missing, "usr/lib/debug/.dwz", f"kernel-{rel}.x86_64"),
                     os.path.join(missing, "usr/lib/debug/.build-id", abid[:2],
                                  abid[2:] + ".debug")):
            c.ok(f"the .dwz file missing: stderr names {want}", want in p.stderr,
                 p.stderr)
        other = root_with(tmp, "other", {
            f"usr/lib/debug/lib/modules/{rel}/vmlinux": vml})
        os.makedirs(os.path.join(other, "usr/lib/debug/.dwz"))
        obid = other_build(alt, os.path.join(other, "usr/lib/debug/.dwz",
                                             f"kernel-{rel}.x86_64"))
        p = run(["--debug-root", other, dump, addrs[0]],
                env=env_with(os.path.join(tmp, "cache-other")))
        c.eq("a .dwz file of another build: exit", p.returncode, EXIT_VMLINUX)
        c.ok("a .dwz file of another build: said, with both build-ids",
             f"another build: build-id {obid}" in p.stderr and abid in p.stderr,
             p.stderr)
        # A link that is not a name and a build-id (its bytes zeroed in a
        # copy of vmlinux).
        bad = os.path.join(tmp, "bad", f"usr/lib/debug/lib/modules/{rel}")
        os.makedirs(bad)
        link = elf_section(vml, ".gnu_debugaltlink")
        data = bytearray(open(vml, "rb").read())
        at = data.find(link)
        c.ok("the link's bytes are in vmlinux once", at > 0 and
             data.find(link, at + 1) < 0)
        data[at:at + len(link)] = bytes(len(link))
        with open(os.path.join(bad, "vmlinux"), "wb") as f:
            f.write(data)
        del data
        p = run(["--debug-root", os.path.join(tmp, "bad"), dump, addrs[0]],
                env=env_with(os.path.join(tmp, "cache-bad")))
        c.eq("a damaged link: exit", p.returncode, EXIT_VMLINUX)
        c.ok("a damaged link: said", ".gnu_debugaltlink section is not a file "
             "name and a build-id" in p.stderr, p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
