#!/usr/bin/python3
"""The kernel's BTF found by its header, where kallsyms keeps text only:
each way it can fail, on a copy of a real dump changed in one place.

usage: test_btf_find.py SET      (arm64-510 or arm64-61)

Debian's arm64 5.10 and 6.1 keep no __start_BTF in kallsyms
(CONFIG_KALLSYMS_ALL off); vmcore-inode finds the BTF by its header
between _etext and _sinittext (lib/types/btf_find.c) and checks it
against VMCOREINFO. On copies of the set's QEMU ELF (physical addresses:
a kernel address is at its file offset through kimage_voffset), with no
vmlinux and an empty cache, each a decode of the first truth inode:

  - unchanged: the BTF found where vmlinux's __start_BTF is (with
    KERNELOFFSET), exit 0 — the control for the three below;
  - the header's magic cleared: no BTF, exit 3, saying what was looked
    for (the magic, the range, all of it read) and never that the kernel
    was built without CONFIG_DEBUG_INFO_BTF;
  - a second copy of the header 4 KiB lower (its sections then end inside
    the range too): refused, exit 3, both places named;
  - VMCOREINFO's OFFSET(list_head.prev) changed from 8 to 9: the BTF
    found is not taken (exit 3), VMCOREINFO's value and the BTF's named.

The addresses come from the set's vmlinux (nm) and the dump's own
VMCOREINFO, never from vmcore-inode's output.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir  # noqa: E402

ELF = "elf-nopaging.vmcore"


def symbols(vmlinux, names):
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in names:
            got[f[2]] = int(f[0], 16)
    missing = set(names) - set(got)
    if missing:
        raise SystemExit(f"FAIL {vmlinux} has no {sorted(missing)}")
    return got


def load_segments(path):
    """[(paddr, offset, filesz)] of the ELF's PT_LOAD headers."""
    with open(path, "rb") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        segs = []
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _flags, off, _vaddr, paddr, filesz = struct.unpack(
                "<IIQQQQ", f.read(40))
            if p_type == 1:
                segs.append((paddr, off, filesz))
    return segs


def file_offset(segs, pa):
    for paddr, off, size in segs:
        if paddr <= pa < paddr + size:
            return off + pa - paddr
    raise SystemExit(f"FAIL physical 0x{pa:x} is in no PT_LOAD")


def vmcoreinfo(path):
    """(text, file offset) of the dump's VMCOREINFO note."""
    with open(path, "rb") as f:
        head = f.read(64 << 20)
    at = head.find(b"OSRELEASE=")
    if at < 0:
        raise SystemExit(f"FAIL no VMCOREINFO in the first 64 MiB of {path}")
    end = head.find(b"\0", at)
    return head[at:end].decode(), at


def patch(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def main():
    name = sys.argv[1]
    d = set_dir(name)
    src = os.path.join(d, ELF)
    sym = symbols(os.path.join(d, "vmlinux"),
                  {"__start_BTF", "__stop_BTF", "_etext", "_sinittext"})
    info, info_at = vmcoreinfo(src)
    kv = dict(line.split("=", 1) for line in info.splitlines() if "=" in line)
    kaslr = int(kv["KERNELOFFSET"], 16)
    voff = int(kv["NUMBER(kimage_voffset)"], 16)
    start = sym["__start_BTF"] + kaslr
    size = sym["__stop_BTF"] - sym["__start_BTF"]
    segs = load_segments(src)
    btf_off = file_offset(segs, (start - voff) & (2**64 - 1))
    with open(src, "rb") as f:
        f.seek(btf_off)
        header = f.read(24)
    addr = "0x" + read_truth(os.path.join(d, "truth.txt"))[0]["addr"]
    c = Checker()
    c.eq(f"{name}: the header at __start_BTF is BTF's (magic 0xeB9F, version 1)",
         header[:3], b"\x9f\xeb\x01")

    with tempfile.TemporaryDirectory(prefix="btf-find-") as tmp:
        empty = os.path.join(tmp, "no-debug")
        os.mkdir(empty)

        def decode(dump, tag):
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-" + tag))
            env.pop("DEBUGINFOD_URLS", None)
            return run(["--debug-root", empty, dump, addr], env=env, timeout=600)

        def copy(tag):
            path = os.path.join(tmp, tag + ".vmcore")
            subprocess.run(["cp", "--sparse=always", src, path], check=True)
            return path

        p = decode(src, "control")
        # 0, or 4 where the inode's slab is a CPU's active one: this
        # kernel's kallsyms (text only) has no __per_cpu_offset, so
        # whether a CPU holds the object free cannot be read (which boot
        # of the set puts the truth inode there is chance).
        c.ok(f"{name} unchanged: exit 0, or 4 for the CPUs' slabs alone",
             p.returncode == 0 or
             (p.returncode == 4 and "no symbol __per_cpu_offset" in p.stderr
              and "text symbols only" in p.stderr),
             f"exit {p.returncode}: {p.stderr[-600:]}")
        c.ok(f"{name} unchanged: the BTF at __start_BTF, found by its header",
             f"the dump's BTF ({size} bytes at 0x{start:x}, " in p.stderr and
             "found by its header" in p.stderr, p.stderr[-600:])

        dump = copy("nomagic")
        patch(dump, btf_off, b"\0\0")
        p = decode(dump, "nomagic")
        c.eq(f"{name} magic cleared: exit", p.returncode, 3)
        lo, hi = sym["_etext"] + kaslr, sym["_sinittext"] + kaslr
        c.ok(f"{name} magic cleared: says what was looked for, and where",
             "no BTF header (magic 0xeB9F" in p.stderr and
             f"(0x{lo:x}..0x{hi:x}, {hi - lo} bytes, all read)" in p.stderr,
             p.stderr[-700:])
        c.ok(f"{name} magic cleared: names no config option",
             "CONFIG_DEBUG_INFO_BTF" not in p.stderr, p.stderr[-700:])
        os.unlink(dump)

        dump = copy("twice")
        patch(dump, btf_off - 4096, header)
        p = decode(dump, "twice")
        c.eq(f"{name} two headers: exit", p.returncode, 3)
        c.ok(f"{name} two headers: refused, both named",
             "2 BTF headers" in p.stderr and f"0x{start - 4096:x}" in p.stderr
             and f"0x{start:x}" in p.stderr and "none is taken" in p.stderr,
             p.stderr[-700:])
        os.unlink(dump)

        key = "OFFSET(list_head.prev)=8"
        c.ok(f"{name}: VMCOREINFO has {key}", key in info, "")
        dump = copy("vmcoreinfo")
        patch(dump, info_at + info.index(key) + len(key) - 1, b"9")
        p = decode(dump, "vmcoreinfo")
        c.eq(f"{name} VMCOREINFO disagrees: exit", p.returncode, 3)
        c.ok(f"{name} VMCOREINFO disagrees: the BTF not taken, both values said",
             "OFFSET(list_head.prev)=9, the BTF found says 8" in p.stderr and
             "is not taken" in p.stderr, p.stderr[-700:])
        os.unlink(dump)
    c.finish()


if __name__ == "__main__":
    main()
