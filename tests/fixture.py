"""Shared helpers for the tests: fixture sets, truth lines, running vmcore-inode.

Truth comes from the fixture kernel itself (patched set) or from drgn (stock
set), never from inodedump: see tests/vmcores/CONTRACT.md.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import schema_check

HERE = os.path.dirname(os.path.abspath(__file__))
VMCORES = os.path.join(HERE, "vmcores")
COMMITTED = os.path.join(VMCORES, "committed")

# Every dump format the recipe writes, by file name (CONTRACT.md).
FORMATS = {
    "elf-nopaging": "elf-nopaging.vmcore",
    "elf-paging": "elf-paging.vmcore",
    "d17-zlib": "d17-zlib.vmcore",
    "d17-lzo": "d17-lzo.vmcore",
    # QEMU's kdump-zlib exactly as QEMU wrote it: makedumpfile's flattened
    # format, partial header (FIXTURES.md pitfalls 2 and 3).
    "qemu-kdump-zlib": "qemu-kdump-zlib.flat",
}


def set_dir(name):
    """Directory of a fixture set; fails loudly when it was not built."""
    if name == "committed":
        d = COMMITTED
    else:
        d = os.path.join(VMCORES, "out", name)
    if not os.path.isdir(d):
        raise SystemExit(
            f"FAIL fixture set '{name}' missing at {d}: "
            "run tests/vmcores/make-fixtures.sh first")
    return d


def read_truth(path):
    """List of dicts, one per truth line; '-' becomes None."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            row = {}
            for tok in line.split(" "):
                k, _, v = tok.partition("=")
                row[k] = None if v == "-" else v
            rows.append(row)
    if not rows:
        raise SystemExit(f"FAIL no truth lines in {path}")
    return rows


def stat_lines(d):
    """role -> the fields of the guest's own `inodedump-stat:` line for it
    (the fs sets' serial.log: fs_init.sh's `fxfs stat`, one line a role)."""
    out = {}
    with open(os.path.join(d, "serial.log"), errors="replace") as f:
        for line in f:
            i = line.find("inodedump-stat: ")
            if i < 0:
                continue
            row = dict(t.partition("=")[::2] for t in line[i + 16:].split())
            out.setdefault(row.get("role"), row)
    if not out:
        raise SystemExit(f"FAIL no inodedump-stat lines in {d}/serial.log")
    return out


def expected_violations(role):
    """The checks a truth inode must fail, by its role (CONTRACT.md): every
    victim_* has a cached link whose length is wrong (the patched and
    wrapped sets' two, debugvfs73's victim_symlink, victim_ext4 and
    victim_new); debugvfs73's bug_badmode has a mode with no file type,
    which may_open() refuses; everything else (cached_twice too: its
    report was about setting the link twice, which memory cannot show)
    fails nothing."""
    if role.startswith("victim"):
        return ["cached_link_length"]
    if role == "bug_badmode":
        return ["may_open_mode"]
    return []


def build_id(elf):
    """The GNU build-id of an ELF file (vmlinux), as readelf prints it."""
    out = subprocess.run(["readelf", "-n", elf], capture_output=True,
                         text=True, check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def elf_section(path, name, flags=False):
    """The bytes of section `name` of the ELF64 file at path, or None (none,
    or SHT_NOBITS: a debug-only file); flags: (sh_flags, bytes)."""
    with open(path, "rb") as f:
        h = f.read(64)
        shoff, = struct.unpack_from("<Q", h, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", h, 0x3a)
        f.seek(shoff)
        sh = f.read(shentsize * shnum)

        def sect(i):
            name_off, sh_type, sh_flags, _, off, size = struct.unpack_from(
                "<IIQQQQ", sh, i * shentsize)
            return name_off, sh_type, sh_flags, off, size
        _, _, _, stroff, strsize = sect(shstrndx)
        f.seek(stroff)
        names = f.read(strsize)
        for i in range(shnum):
            n, sh_type, sh_flags, off, size = sect(i)
            if names[n:names.index(b"\0", n)].decode() == name:
                data = None
                if sh_type != 8:  # SHT_NOBITS
                    f.seek(off)
                    data = f.read(size)
                return (sh_flags, data) if flags else data
    return (0, None) if flags else None


def link_fixture(src, dst):
    """A fixture's file under another name: a hard link (or a copy keeping
    its mtime), never written afterwards — it is the fixture's inode."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def vmcore_inode():
    exe = os.environ.get("VMCORE_INODE")
    if not exe:
        raise SystemExit("FAIL VMCORE_INODE is not set (run through meson test)")
    return exe


def escape_log(raw):
    """The kernel log's bytes as --log prints them (issue 15): printable
    ASCII, newlines, tabs and well-formed UTF-8 (not C1) as they are, ESC,
    CR and every other byte C-style (\\e, \\r, \\xNN)."""
    out, i = bytearray(), 0
    while i < len(raw):
        c = raw[i]
        if 0x20 <= c < 0x7f or c in (0x0a, 0x09):
            out.append(c)
            i += 1
            continue
        if c >= 0xc2:
            n = 2 if c <= 0xdf else 3 if c <= 0xef else 4 if c <= 0xf4 else 0
            try:
                ch = raw[i:i + n].decode("utf-8") if n else ""
            except UnicodeDecodeError:
                ch = ""
            if len(ch) == 1 and ord(ch) >= 0xa0:
                out += raw[i:i + n]
                i += n
                continue
        out += {0x1b: b"\\e", 0x0d: b"\\r"}.get(c, b"\\x%02x" % c)
        i += 1
    return bytes(out)


def schema_checked(args, p):
    """p, a finished run of vmcore-inode with args, once what it wrote as
    JSON (stdout with --json/--jsonl, --triage's results files) matches
    the published schema (tests/schema_check.py); else the test fails
    here, with the path of the offending key."""
    try:
        schema_check.check_run(args, p.stdout, p.returncode)
    except schema_check.SchemaFailure as e:
        raise SystemExit(f"FAIL schema: vmcore-inode {' '.join(map(str, args))}"
                         f" (exit {p.returncode}): {e}")
    return p


def json_checked(text, kind, what="document"):
    """A JSON document vmcore-inode wrote (text or a file's path), parsed,
    once the schema's kind says it is right; else the test fails here."""
    if os.path.sep in text and not text.lstrip().startswith(("{", "[")):
        what = text
        with open(text, errors="surrogateescape") as f:
            text = f.read()
    try:
        return schema_check.check_text(text, kind, what)
    except schema_check.SchemaFailure as e:
        raise SystemExit(f"FAIL schema: {e}")


def schema_check_dir(path):
    """Every inodedump.json --triage left below path, checked."""
    try:
        return schema_check.check_triage_dir(path)
    except schema_check.SchemaFailure as e:
        raise SystemExit(f"FAIL schema: {e}")


def run(args, text=True, **kw):
    return schema_checked(args, subprocess.run([vmcore_inode()] + args,
                                               capture_output=True,
                                               text=text, **kw))


def what(args, dump, addrs):
    """vmcore-inode ARGS --json --what A... DUMP: (process, its answers)."""
    cmd = [*args, "--json"]
    for a in addrs:
        cmd += ["--what", a]
    p = run(cmd + [dump])
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL --what output is not JSON ({e}); exit "
                         f"{p.returncode}; stderr {p.stderr[:2000]}")
    return p, doc["what"]


def private_env(tmp):
    """(env, empty): a cache of the run's own under tmp, no debuginfod,
    and an empty debug root (a run with no vmlinux to find)."""
    empty = os.path.join(tmp, "no-debug")
    os.makedirs(empty, exist_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    env.pop("DEBUGINFOD_URLS", None)
    return env, empty


def run_json(vmlinux, dump, addrs, extra=()):
    p = run(["-k", vmlinux, "--json", *extra, dump, *addrs])
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL output is not JSON ({e}); exit {p.returncode}; "
                         f"stderr: {p.stderr}\nstdout: {p.stdout[:2000]}")
    return p, doc


class Checker:
    """Counts checks; prints PASS/FAIL lines; exit status at the end."""

    def __init__(self):
        self.failed = 0
        self.passed = 0

    def eq(self, name, got, want):
        if got == want:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {name}: got {got!r}, want {want!r}")

    def ok(self, name, cond, why=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {name}{': ' + why if why else ''}")

    def finish(self):
        print(f"{self.passed} checks passed, {self.failed} failed")
        if self.passed == 0:
            print("FAIL no check ran")
            sys.exit(1)
        sys.exit(1 if self.failed else 0)


class ElfCopy:
    """A writable copy of a set's elf-nopaging.vmcore, written by physical
    address: every p_vaddr is 0 there, each PT_LOAD is found by p_paddr."""

    def __init__(self, set_dir, tmp, name="changed.vmcore"):
        self.path = os.path.join(tmp, name)
        shutil.copyfile(os.path.join(set_dir, "elf-nopaging.vmcore"), self.path)
        out = subprocess.run(["readelf", "-lW", self.path], capture_output=True,
                             text=True, check=True).stdout
        self.loads = [(int(f[1], 16), int(f[3], 16), int(f[4], 16))
                      for f in (line.split() for line in out.splitlines())
                      if f and f[0] == "LOAD"]

    def write_phys(self, phys, data):
        for off, paddr, size in self.loads:
            if paddr <= phys and phys + len(data) <= paddr + size:
                with open(self.path, "r+b") as f:
                    f.seek(off + phys - paddr)
                    f.write(data)
                return
        raise SystemExit(f"FAIL physical 0x{phys:x} not in any PT_LOAD")
