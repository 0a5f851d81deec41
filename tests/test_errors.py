#!/usr/bin/env python3
"""Bad input gets a clear error, the documented exit code, and no crash.

usage: test_errors.py CASE   (CASE as listed in CASES below)
Runs on the committed fixture (always present) and, for the wrong-vmlinux
case, the stock set's vmlinux.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from fixture import COMMITTED, Checker, read_truth, run, set_dir

DUMP = os.path.join(COMMITTED, "d17-zlib.vmcore")
VMLINUX = os.path.join(COMMITTED, "vmlinux")


def truth():
    return read_truth(os.path.join(COMMITTED, "truth.txt"))


def victim():
    return next(t for t in truth() if t["role"] == "victim_symlink")


def expect(c, name, args, code, *words):
    p = run(args)
    c.eq(f"{name} exit code", p.returncode, code)
    for w in words:
        c.ok(f"{name} message names {w!r}", w in p.stderr, p.stderr.strip())
    c.ok(f"{name} no crash", p.returncode >= 0 and "Sanitizer" not in p.stderr,
         p.stderr[-500:])
    return p


def case_missing_dump(c, tmp):
    expect(c, "missing dump", ["-k", VMLINUX, os.path.join(tmp, "nope"), "ffff0"],
           3, "nope", "No such file")


def case_not_a_dump(c, tmp):
    p = os.path.join(tmp, "text.vmcore")
    with open(p, "w") as f:
        f.write("this is not a dump\n" * 100)
    expect(c, "not a dump", ["-k", VMLINUX, p, victim()["addr"]], 3, p)


def case_truncated_dump(c, tmp):
    p = os.path.join(tmp, "truncated.vmcore")
    with open(DUMP, "rb") as src, open(p, "wb") as dst:
        dst.write(src.read(os.path.getsize(DUMP) // 3))
    r = expect(c, "truncated dump", ["-k", VMLINUX, p, victim()["addr"]], 3)
    c.ok("truncated dump says why", "truncated" in r.stderr or "EOF" in r.stderr
         or "not in the dump" in r.stderr or "Unexpected" in r.stderr
         or "read" in r.stderr, r.stderr)


def truncated_copy(tmp, src, size, name):
    p = os.path.join(tmp, name)
    with open(src, "rb") as f, open(p, "wb") as out:
        out.write(f.read(size))
    return p


def case_truncated_at_offsets(c, tmp):
    # Inside the header, inside the page bitmap, and mid-data.
    for size in (100, 6000, os.path.getsize(DUMP) // 2):
        p = truncated_copy(tmp, DUMP, size, f"trunc-{size}.vmcore")
        r = run(["-k", VMLINUX, p, victim()["addr"]])
        c.eq(f"truncated at {size}: exit code", r.returncode, 3)
        c.ok(f"truncated at {size}: names the file or address",
             p in r.stderr or "0x" in r.stderr, r.stderr)


def case_corrupt_header(c, tmp):
    p = os.path.join(tmp, "corrupt.vmcore")
    shutil.copyfile(DUMP, p)
    with open(p, "r+b") as f:
        f.seek(428)  # block_size of the diskdump header
        f.write(b"\xff\xff\xff\x7f")
    expect(c, "corrupt header", ["-k", VMLINUX, p, victim()["addr"]], 3, p)


def elf_copy(tmp, name, patch):
    """The first 64 KiB of the patched set's ELF dump with header bytes
    replaced: {offset: bytes}."""
    src = os.path.join(set_dir("patched"), "elf-nopaging.vmcore")
    p = os.path.join(tmp, name)
    with open(src, "rb") as f:
        data = bytearray(f.read(1 << 16))
    for off, b in patch.items():
        data[off:off + len(b)] = b
    with open(p, "wb") as f:
        f.write(data)
    return p


def case_elf_without_program_headers(c, tmp):
    # e_phnum (offset 56) 0 crashed libkdumpfile (fuzz finding 13).
    p = elf_copy(tmp, "no-phdrs.vmcore", {56: b"\0\0"})
    expect(c, "ELF without program headers", ["-k", VMLINUX, p], 3, p,
           "without program headers")


def case_elf_headers_past_end(c, tmp):
    # e_phoff (offset 32) past the end of the file.
    p = elf_copy(tmp, "phoff.vmcore", {32: (1 << 40).to_bytes(8, "little")})
    expect(c, "ELF program headers past the end", ["-k", VMLINUX, p], 3, p,
           "corrupt or truncated ELF dump", "program headers")


def case_random_bytes_dump(c, tmp):
    p = os.path.join(tmp, "random.vmcore")
    with open(p, "wb") as f:
        f.write(os.urandom(1 << 20))
    expect(c, "random dump", ["-k", VMLINUX, p, victim()["addr"]], 3, p)


def case_empty_dump(c, tmp):
    p = os.path.join(tmp, "empty.vmcore")
    open(p, "wb").close()
    expect(c, "empty dump", ["-k", VMLINUX, p, victim()["addr"]], 3, p)


def case_directory_as_dump(c, tmp):
    expect(c, "directory as dump", ["-k", VMLINUX, tmp, victim()["addr"]], 3,
           tmp)


def case_random_bytes_vmlinux(c, tmp):
    p = os.path.join(tmp, "vmlinux-random")
    with open(p, "wb") as f:
        f.write(os.urandom(1 << 16))
    expect(c, "random vmlinux", ["-k", p, DUMP, victim()["addr"]], 3, p)


def case_flattened_truncated(c, tmp):
    flat = os.path.join(set_dir("patched"), "qemu-kdump-zlib.flat")
    p = truncated_copy(tmp, flat, os.path.getsize(flat) // 2, "half.flat")
    expect(c, "truncated flattened dump", ["-k", VMLINUX, p], 3,
           "flattened dump", "truncated")


def case_missing_vmlinux(c, tmp):
    expect(c, "missing vmlinux", ["-k", os.path.join(tmp, "vmlinux-nope"),
                                  DUMP, victim()["addr"]], 3, "vmlinux-nope")


def case_vmlinux_without_dwarf(c, tmp):
    p = os.path.join(tmp, "vmlinux-stripped")
    subprocess.run(["objcopy", "--strip-debug", VMLINUX, p], check=True)
    expect(c, "vmlinux without DWARF", ["-k", p, DUMP, victim()["addr"]], 3,
           "no DWARF", p)


def case_vmlinux_not_elf(c, tmp):
    p = os.path.join(tmp, "bzImage")
    with open(p, "wb") as f:
        f.write(b"MZ" + b"\0" * 4094)
    expect(c, "vmlinux not ELF", ["-k", p, DUMP, victim()["addr"]], 3,
           "not an ELF file")


def case_wrong_vmlinux(c, tmp):
    other = os.path.join(set_dir("stock"), "vmlinux")
    expect(c, "wrong vmlinux", ["-k", other, DUMP, victim()["addr"]], 3,
           "is not the kernel of", "build-id")


def case_unmapped_address(c, tmp):
    # A user-space address: never mapped by the kernel's page tables.
    expect(c, "unmapped address", ["-k", VMLINUX, DUMP, "0x1000"], 3,
           "0x1000", "not mapped")


def free_page_address(d):
    """drgn's pick of a free page (buddy allocator), read from an ELF dump."""
    import drgn
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.mm import page_to_virt
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "elf-paging.vmcore"))
    prog.load_debug_info([os.path.join(d, "vmlinux")])
    for zone in prog["node_data"][0].node_zones:
        for order in range(1, 8):
            for fl in zone.free_area[order].free_list:
                for page in list_for_each_entry("struct page",
                                                fl.address_of_(), "buddy_list"):
                    return hex(page_to_virt(page).value_())
    raise SystemExit("FAIL drgn found no free page")


def case_filtered_page(c, tmp):
    # makedumpfile -d 17 leaves free pages out of the dump.
    d = set_dir("stock")
    addr = free_page_address(d)
    r = expect(c, "filtered page", ["-k", os.path.join(d, "vmlinux"),
                                    os.path.join(d, "d17-zlib.vmcore"), addr],
               3, "filtered out", "dump level 17", addr)
    # The same page is in the unfiltered ELF dump: not a read failure there.
    r = run(["-k", os.path.join(d, "vmlinux"),
             os.path.join(d, "elf-nopaging.vmcore"), addr])
    c.ok("free page readable in the ELF dump", "filtered" not in r.stderr,
         r.stderr)


def case_filtered_d31_explains_free_page(c, tmp):
    # What the page was comes from its struct page, not from a writer's
    # version: a free page left out at -d 31 was left out as asked.
    d = set_dir("stock")
    addr = free_page_address(d)
    p = expect(c, "filtered at -d 31", ["-k", os.path.join(d, "vmlinux"),
                                        os.path.join(d, "d31-zlib.vmcore"), addr],
               3, "filtered out", "dump level 31", "free (in the buddy allocator",
               "excludes free pages, bit 16: left out as asked")
    c.ok("no writer named by version", "makedumpfile 1." not in p.stderr,
         p.stderr.strip())


def case_not_an_inode(c, tmp):
    sb = victim()["sb"]
    p = expect(c, "not an inode", ["-k", VMLINUX, DUMP, sb], 3,
               "does not look like a struct inode", "--force")
    r = run(["-k", VMLINUX, "--json", "--force", DUMP, sb])
    c.ok("--force decodes it anyway", r.returncode in (0, 1), r.stderr)
    c.ok("--force marks the result", '"forced": true' in r.stdout, r.stdout[:300])


def debian_root(tmp, release, vmlinux):
    """A directory laid out like Debian's, with vmlinux where -dbg puts it."""
    boot = os.path.join(tmp, "root", "usr", "lib", "debug", "boot")
    os.makedirs(boot, exist_ok=True)
    os.symlink(vmlinux, os.path.join(boot, "vmlinux-" + release))
    return os.path.join(tmp, "root")


def release_of(d):
    for line in open(os.path.join(d, "serial.log"), errors="replace"):
        if "Linux version " in line:
            return line.split("Linux version ", 1)[1].split()[0]
    raise SystemExit("FAIL no 'Linux version' line in serial.log")


def case_vmlinux_discovery(c, tmp):
    d = set_dir("stock")
    root = debian_root(tmp, release_of(d), os.path.join(d, "vmlinux"))
    t = read_truth(os.path.join(d, "truth.txt"))[0]
    r = run(["--debug-root", root, "--json", os.path.join(d, "d17-zlib.vmcore"),
             t["addr"]])
    c.eq("found vmlinux: exit code", r.returncode, 0)
    c.ok("says which vmlinux it used",
         "using " + os.path.join(root, "usr/lib/debug/boot") in r.stderr, r.stderr)
    c.ok("decoded the inode", '"ino": %s,' % t["ino"] in r.stdout, r.stdout[:400])


def case_vmlinux_discovery_missing(c, tmp):
    d = set_dir("stock")
    expect(c, "no vmlinux found", ["--debug-root", tmp,
                                   os.path.join(d, "d17-zlib.vmcore")], 3,
           "no vmlinux for release " + release_of(d), tmp + "/boot/vmlinux-")


def case_vmlinux_discovery_wrong_build_id(c, tmp):
    # The patched kernel's vmlinux installed under the stock release's name.
    d = set_dir("stock")
    root = debian_root(tmp, release_of(d), VMLINUX)
    expect(c, "discovered vmlinux of another build",
           ["--debug-root", root, os.path.join(d, "d17-zlib.vmcore")], 3,
           "is not the kernel of", "build-id")


def case_usage(c, tmp):
    expect(c, "bad address", ["-k", VMLINUX, DUMP, "xyz"], 2, "xyz")
    expect(c, "no arguments", [], 2)
    expect(c, "unknown option", ["--frobnicate"], 2)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        CASES[sys.argv[1]](c, tmp)
    c.finish()


if __name__ == "__main__":
    main()
