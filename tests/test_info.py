#!/usr/bin/env python3
"""--info names what the dump is and where each fact came from.

usage: test_info.py SET
"""
import os
import re
import sys

from fixture import Checker, run, set_dir


def fields(out):
    got = {}
    for line in out.splitlines():
        m = re.match(r"(\S.*?)\s{2,}(.+?)(?:\s{2,}\[(.*)\])?$", line)
        if m:
            got[m.group(1)] = (m.group(2), m.group(3))
    return got


def main():
    d = set_dir(sys.argv[1])
    serial = open(os.path.join(d, "serial.log"), errors="replace").read()
    release = re.search(r"Linux version (\S+)", serial).group(1)
    c = Checker()
    # The paging mode the kernel wrote into its own VMCOREINFO.
    with open(os.path.join(d, "d17-zlib.vmcore"), "rb") as f:
        m = re.search(rb"NUMBER\(pgtable_l5_enabled\)=(\d)", f.read(1 << 20))
    if not m:
        raise SystemExit("FAIL no NUMBER(pgtable_l5_enabled) in the dump's VMCOREINFO")
    levels = "5-level" if m.group(1) == b"1" else "4-level"
    for dump, fmt, level in (("d17-zlib.vmcore", "diskdump", "17"),
                             ("d31-zlib.vmcore", "diskdump", "31"),
                             ("qemu-kdump-zlib.flat", "flattened", None),
                             ("elf-nopaging.vmcore", "elf", None)):
        p = run(["-k", os.path.join(d, "vmlinux"), "--info",
                 os.path.join(d, dump)])
        c.eq(f"{dump} exit code", p.returncode, 0)
        f = fields(p.stdout)
        c.ok(f"{dump} format", f.get("format", ("",))[0].startswith(fmt),
             p.stdout)
        if level:
            c.eq(f"{dump} dump level", f.get("dump level"),
                 (level, "diskdump sub-header"))
        c.eq(f"{dump} release (the kernel's own banner)",
             f.get("release"), (release, "VMCOREINFO OSRELEASE"))
        c.eq(f"{dump} architecture", f.get("architecture", ("",))[0], "x86_64")
        c.eq(f"{dump} page size", f.get("page size", ("",))[0], "4096")
        c.ok(f"{dump} build-ids agree",
             f.get("build-id", ("?",))[0] == f.get("vmlinux build-id", ("!",))[0],
             p.stdout)
        c.eq(f"{dump} read by our reader, not libkdumpfile",
             f.get("read by", ("",))[0], "inodedump")
        c.eq(f"{dump} translated by our {levels} walk",
             f.get("translated by", ("",))[0],
             f"inodedump (x86-64, {levels} page tables)")
        c.ok(f"{dump} KASLR offset from VMCOREINFO",
             f.get("KASLR offset", ("", ""))[1] == "VMCOREINFO KERNELOFFSET",
             p.stdout)
    c.finish()


if __name__ == "__main__":
    main()
