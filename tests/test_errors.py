#!/usr/bin/env python3
"""Bad input gets a clear error, the documented exit code, and no crash.

usage: test_errors.py CASE   (CASE as listed in CASES below)
Runs on the committed fixture (always present) and, for the wrong-vmlinux
case, the stock set's vmlinux; wrong_architecture on the arm64 and stock
sets.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from fixture import (COMMITTED, Checker, read_truth, run, schema_checked,
                     set_dir, vmcore_inode)

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


def is_arch(text, *names):
    return any(n in text for n in names)


def case_wrong_architecture(c, tmp):
    """An arm64 dump with an x86-64 vmlinux, and an x86-64 dump with an
    arm64 vmlinux: exit 3, and a message naming both architectures (the
    dump's and the vmlinux's), not only a build-id mismatch."""
    arm = set_dir("arm64")
    stock = set_dir("stock")
    addr = read_truth(os.path.join(arm, "truth.txt"))[0]["addr"]
    said = []   # (check, holds, the message): judged below
    for name, vmlinux, dump in (
            ("arm64 dump, x86-64 vmlinux", os.path.join(stock, "vmlinux"),
             os.path.join(arm, "elf-nopaging.vmcore")),
            ("x86-64 dump, arm64 vmlinux", os.path.join(arm, "vmlinux"),
             os.path.join(stock, "d17-zlib.vmcore"))):
        p = run(["-k", vmlinux, dump, addr])
        c.eq(f"{name}: exit code", p.returncode, 3)
        c.ok(f"{name}: no crash", "Sanitizer" not in p.stderr, p.stderr[-500:])
        # the paths name the sets ("out/arm64/"): not a word of the message
        err = p.stderr.replace(vmlinux, "VMLINUX").replace(dump, "DUMP")
        said.append((f"{name}: names arm64",
                     is_arch(err, "arm64", "aarch64", "AArch64"), err.strip()))
        said.append((f"{name}: names x86-64", is_arch(err, "x86-64", "x86_64"),
                     err.strip()))
    for n, ok, err in said:
        c.ok(n, ok, err)


def case_unmapped_address(c, tmp):
    # A user-space address: never mapped by the kernel's page tables.
    expect(c, "unmapped address", ["-k", VMLINUX, DUMP, "0x1000"], 3,
           "0x1000", "not mapped")
    # QEMU's paging:false ELF dump: every p_vaddr is 0, which libkdumpfile
    # takes for a map of user space onto physical memory (it read 0x1000
    # as zeros: "does not look like a struct inode").
    s = set_dir("stock")
    expect(c, "unmapped address, ELF with p_vaddr 0",
           ["-k", os.path.join(s, "vmlinux"),
            os.path.join(s, "elf-nopaging.vmcore"), "0x1000"], 3,
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
    expect(c, "not an inode", ["-k", VMLINUX, DUMP, sb], 3,
               "does not look like a struct inode", "--force")
    r = run(["-k", VMLINUX, "--json", "--force", DUMP, sb])
    # A superblock read as an inode leads to fields that cannot be read
    # (its "i_sb" is no superblock): exit 4 then, and stderr says which.
    c.ok("--force decodes it anyway", r.returncode in (0, 1, 4), r.stderr)
    c.ok("--force: what it could not read is said",
         r.returncode != 4 or "could not be read" in r.stderr, r.stderr)
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
    # No vmlinux anywhere: the dump's own BTF and kallsyms (issue 16;
    # tests/test_btf.py holds them to the DWARF decode). Where those are
    # missing too (here VMCOREINFO no longer names kallsyms_names, nor
    # _stext and init_uts_ns, which place the kernel image the tables are
    # otherwise searched in: kallsyms_find.c), the message says what was
    # looked for, and where.
    d = set_dir("stock")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    env.pop("DEBUGINFOD_URLS", None)
    dump = os.path.join(d, "d17-zlib.vmcore")
    r = run(["--debug-root", tmp, dump], env=env)
    c.eq("no vmlinux found: exit code", r.returncode, 0)
    c.ok("no vmlinux found: types from the dump's BTF",
         "no vmlinux: types from the dump's BTF" in r.stderr, r.stderr)
    data = bytearray(open(dump, "rb").read())
    at = data.find(b"SYMBOL(kallsyms_names)=")
    data[at:at + 22] = b"SYMBOL(kallsyms_nameX)"
    for key in (b"SYMBOL(_stext)=", b"SYMBOL(init_uts_ns)="):
        at = data.find(key)
        c.ok(f"VMCOREINFO has {key.decode()}", at > 0)
        data[at + len(key) - 3:at + len(key) - 1] = b"XX"
    p = os.path.join(tmp, "no-kallsyms.vmcore")
    open(p, "wb").write(data)
    # A cache of its own: the first run's holds this kernel's kallsyms.
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache2")
    r = run(["--debug-root", tmp, p], env=env)
    c.eq("no vmlinux, no kallsyms: exit code", r.returncode, 3)
    for w in ("no vmlinux for release " + release_of(d),
              tmp + "/boot/vmlinux-", "names no kallsyms tables",
              "no symbol that places the kernel image"):
        c.ok(f"no vmlinux, no kallsyms: message names {w!r}", w in r.stderr,
             r.stderr)


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


# ---- hostile dumps (issue 15): damage ours reports, libkdumpfile isolated ----

def diskdump_layout(data):
    """(block_size, bitmap 2 offset, descriptor table offset) of a diskdump,
    from the header fields makedumpfile's diskdump_mod.h defines."""
    bs, sub, blocks = struct.unpack_from("<iii", data, 428)
    bitmap = bs * (1 + sub)
    return bs, bitmap + blocks // 2 * bs, bitmap + blocks * bs


def dumped_pages(data):
    """(descriptor offset, data offset, data size, page) of each page a
    zlib or uncompressed diskdump holds, in descriptor order; page is the
    page's bytes, None when another compressor wrote it."""
    _, _, desc = diskdump_layout(data)
    for i in range(1 << 20):
        off, size, flags = struct.unpack_from("<QII", data, desc + 24 * i)
        if not off or off + size > len(data):
            break
        page = data[off:off + size]
        if flags & 1:
            page = zlib.decompress(page)
        elif flags:
            page = None
        yield desc + 24 * i, off, size, page


def inode_page_desc(data, t):
    """Offset of the descriptor of the page holding truth inode t: the page
    whose bytes after the inode's offset hold its i_sb and i_generation."""
    at = int(t["addr"], 16) & 0xfff
    sb = struct.pack("<Q", int(t["sb"], 16))
    gen = struct.pack("<I", int(t["gen"]))
    for d, off, size, page in dumped_pages(data):
        if page and sb in page[at:at + 0x300] and gen in page[at:at + 0x300]:
            return d, off, size
    raise SystemExit("FAIL the victim inode's page is not in the committed dump")


def patched_copy(tmp, name, patches, src=DUMP):
    """A copy of src with {offset: bytes} written over it."""
    p = os.path.join(tmp, name)
    data = bytearray(open(src, "rb").read())
    for off, b in patches.items():
        data[off:off + len(b)] = b
    with open(p, "wb") as f:
        f.write(data)
    return p


def no_crash(c, name, r):
    c.ok(f"{name}: no signal, no sanitizer report",
         r.returncode >= 0 and "Sanitizer" not in r.stderr, r.stderr[-500:])


def run_parent(args, env=None, timeout=300):
    """run(), and the process id: a sanitizer report of libkdumpfile's
    child process (a crash contained there) is not the parent's."""
    p = subprocess.Popen([vmcore_inode()] + args, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=timeout)
    return schema_checked(args, subprocess.CompletedProcess(
        p.args, p.returncode, out, err)), p.pid


def parent_no_crash(c, name, r, pid):
    c.ok(f"{name}: no signal, no sanitizer report in vmcore-inode itself",
         r.returncode >= 0 and f"=={pid}==" not in r.stderr, r.stderr[-500:])


def fifo_case(c, tmp, what):
    fifo = os.path.join(tmp, what + ".fifo")
    os.mkfifo(fifo)
    args = [fifo, DUMP] if what == "vmlinux" else [VMLINUX, fifo]
    r = run(["-k", *args, victim()["addr"]], timeout=60)
    c.eq(f"FIFO as {what}: exit code", r.returncode, 3)
    c.ok(f"FIFO as {what}: says what it is", fifo in r.stderr and
         "FIFO, not a regular file" in r.stderr, r.stderr)


def case_fifo_dump(c, tmp):
    fifo_case(c, tmp, "dump")


def case_fifo_vmlinux(c, tmp):
    fifo_case(c, tmp, "vmlinux")


def case_chardev_dump(c, tmp):
    expect(c, "character device as dump", ["-k", VMLINUX, "/dev/zero",
                                           victim()["addr"]],
           3, "/dev/zero", "character device")


def case_descriptor_size_reproducer(c, tmp):
    # The issue's reproducer: descriptor 4394's size set to 65535 (a page
    # of the kernel's BTF, which the decode reads and can do without):
    # libkdumpfile 0.5.1 overflowed its buffer reading it.
    p = patched_copy(tmp, "m", {134136: b"\377\377\0\0"})
    whole = run(["-k", VMLINUX, DUMP, victim()["addr"]])
    r = run(["-k", VMLINUX, p, victim()["addr"]])
    no_crash(c, "descriptor 4394 size 65535", r)
    c.eq("descriptor 4394 size 65535: the inode decoded as from the whole "
         "dump", (r.returncode, r.stdout), (whole.returncode, whole.stdout))


def case_descriptor_size_inode_page(c, tmp):
    data = open(DUMP, "rb").read()
    desc, _, _ = inode_page_desc(data, victim())
    p = patched_copy(tmp, "desc.vmcore", {desc + 8: struct.pack("<I", 65535)})
    r = expect(c, "inode page descriptor size 65535",
               ["-k", VMLINUX, p, victim()["addr"]], 3,
               "corrupt diskdump", "page frame 0x",
               f"descriptor {(desc - diskdump_layout(data)[2]) // 24} ",
               "65535 bytes of page data")
    c.ok("inode page descriptor: ours said it, not libkdumpfile",
         "libkdumpfile" not in r.stderr, r.stderr)


def case_page_data_corrupt(c, tmp):
    data = open(DUMP, "rb").read()
    _, off, size = inode_page_desc(data, victim())
    p = patched_copy(tmp, "data.vmcore", {off: b"\xff" * min(size, 64)})
    expect(c, "inode page data corrupt", ["-k", VMLINUX, p, victim()["addr"]],
           3, "corrupt diskdump", "do not decompress", "zlib")


def case_bitmap_ff_block(c, tmp):
    data = open(DUMP, "rb").read()
    _, bitmap2, _ = diskdump_layout(data)
    p = patched_copy(tmp, "bitmap.vmcore", {bitmap2 + 1024: b"\xff" * 512})
    r = expect(c, "0xff block in the page bitmap",
               ["-k", VMLINUX, p, victim()["addr"]], 3, p,
               "corrupt diskdump", "bitmap")
    c.ok("0xff bitmap block: ours said it, not libkdumpfile",
         "libkdumpfile" not in r.stderr, r.stderr)


def case_vmcoreinfo_size_huge(c, tmp):
    data = open(DUMP, "rb").read()
    bs = struct.unpack_from("<i", data, 428)[0]
    # kdump_sub_header.size_vmcoreinfo: 2 MiB, inside the file.
    p = patched_copy(tmp, "vi.vmcore", {bs + 40: struct.pack("<Q", 2 << 20)})
    expect(c, "VMCOREINFO of 2 MiB", ["-k", VMLINUX, p, victim()["addr"]], 3,
           "VMCOREINFO at", "2097152 bytes, more than any kernel writes")


def case_libkdumpfile_crash(c, tmp):
    # A dump ours does not take (the incomplete flag of the header's
    # status) with the inode page's descriptor damaged: libkdumpfile reads
    # it, in its child process.
    data = open(DUMP, "rb").read()
    desc, _, _ = inode_page_desc(data, victim())
    status = struct.unpack_from("<I", data, 424)[0]
    p = patched_copy(tmp, "inc.vmcore", {424: struct.pack("<I", status | 8),
                                         desc + 8: struct.pack("<I", 65535)})
    r = run(["-k", VMLINUX, "--info", p])
    c.ok("incomplete dump: read by libkdumpfile",
         "libkdumpfile" in r.stdout, r.stdout)
    r, pid = run_parent(["-k", VMLINUX, p, victim()["addr"]])
    parent_no_crash(c, "libkdumpfile on a damaged descriptor", r, pid)
    c.eq("libkdumpfile on a damaged descriptor: exit code", r.returncode, 3)
    c.ok("libkdumpfile on a damaged descriptor: says so",
         "libkdumpfile failed reading" in r.stderr or
         "0x" in r.stderr, r.stderr)


def fake_libkdumpfile(c, tmp, what, **more_env):
    """vmcore-inode with tests/fakekdump's libkdumpfile.so.10 doing what on
    its first read, over a file our readers do not take."""
    p = os.path.join(tmp, "other.vmcore")
    with open(p, "w") as f:
        f.write("not a format our readers take\n" * 100)
    env = dict(os.environ, LD_LIBRARY_PATH=os.environ["FAKE_KDUMPFILE_DIR"],
               FAKE_KDUMPFILE=what,
               FAKE_KDUMPFILE_VMCOREINFO=os.environ["FAKE_KDUMPFILE_VMCOREINFO"],
               **more_env)
    r, pid = run_parent(["-k", VMLINUX, p, victim()["addr"]], env=env)
    parent_no_crash(c, f"libkdumpfile that {what}s", r, pid)
    c.eq(f"libkdumpfile that {what}s: exit code", r.returncode, 3)
    return r


def case_sandbox_segv(c, tmp):
    r = fake_libkdumpfile(c, tmp, "segv")
    c.ok("a crash in libkdumpfile is an error naming the signal",
         "libkdumpfile failed reading 0x" in r.stderr and
         "(signal 11" in r.stderr, r.stderr)


def case_sandbox_alloc(c, tmp):
    r = fake_libkdumpfile(c, tmp, "alloc")
    # RLIMIT_AS: malloc refuses (or, under ASan, the allocator dies).
    c.ok("64 GiB asked of libkdumpfile's process is refused",
         "allocation of 64 GiB refused" in r.stderr or
         "libkdumpfile failed reading" in r.stderr, r.stderr)


def processes_with(marker):
    """Pids of the processes whose environment holds marker."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


def case_sandbox_timeout(c, tmp):
    # libkdumpfile caught in a loop (the fake spins in kdump_read() inside
    # the real child, under its seccomp filter): the parent's wait for the
    # answer ends after INODEDUMP_KDUMPFILE_TIMEOUT seconds, the child is
    # killed, and the read is an error, exit 3.
    marker = f"IDD_TIMEOUT_TEST_{os.getpid()}_{time.monotonic_ns()}"
    start = time.monotonic()
    r = fake_libkdumpfile(c, tmp, "loop", INODEDUMP_KDUMPFILE_TIMEOUT="2",
                          IDD_TIMEOUT_TEST_MARK=marker)
    took = time.monotonic() - start
    c.ok("a libkdumpfile that loops: given up after the 2 s asked",
         "libkdumpfile did not answer reading 0x" in r.stderr and
         "within 2 s" in r.stderr, r.stderr)
    # 2 s to wait, the rest is the ASan build's start and the decode.
    c.ok(f"a libkdumpfile that loops: the run ends soon ({took:.1f} s)",
         2 <= took < 60, f"{took:.1f} s")
    c.eq("a libkdumpfile that loops: its process was killed, none is left",
         processes_with(marker), [])


def case_sandbox_open(c, tmp):
    r = fake_libkdumpfile(c, tmp, "open")
    c.ok("libkdumpfile's process cannot open files (seccomp)",
         "open /etc/hostname: Operation not permitted" in r.stderr, r.stderr)


def case_elf_phnum_xnum_huge(c, tmp):
    # e_phnum PN_XNUM: the count is section 0's sh_info, here 2^32-1; a
    # section header at offset 64 KiB - 64 (elf_copy keeps 64 KiB).
    sh = bytearray(64)
    sh[44:48] = struct.pack("<I", 0xffffffff)
    p = elf_copy(tmp, "xnum.vmcore", {
        40: struct.pack("<Q", (1 << 16) - 64),  # e_shoff
        56: struct.pack("<H", 0xffff),           # e_phnum = PN_XNUM
        58: struct.pack("<H", 64),               # e_shentsize
        60: struct.pack("<H", 1),                # e_shnum
        (1 << 16) - 64: bytes(sh)})
    expect(c, "ELF with 2^32-1 program headers", ["-k", VMLINUX, p], 3, p,
           "corrupt or truncated ELF dump")


def case_elf_load_as_note(c, tmp):
    # The largest PT_LOAD retyped PT_NOTE: libkdumpfile read it whole.
    src = os.path.join(set_dir("patched"), "elf-nopaging.vmcore")
    data = open(src, "rb").read(1 << 16)
    phoff, = struct.unpack_from("<Q", data, 32)
    phnum, = struct.unpack_from("<H", data, 56)
    big = max(range(phnum), key=lambda i: struct.unpack_from(
        "<Q", data, phoff + 56 * i + 32)[0])
    p = elf_copy(tmp, "note.vmcore", {phoff + 56 * big: struct.pack("<I", 4)})
    expect(c, "PT_LOAD retyped PT_NOTE", ["-k", VMLINUX, p], 3, p,
           f"program header {big} is a note segment", "more than any kernel "
           "writes")


def case_strict_arguments(c, tmp):
    for bad in ["-1", " ff", "+ff", "0x", "10000000000000000", "ff\n"]:
        expect(c, f"address {bad!r}", ["-k", VMLINUX, DUMP, "--", bad], 2,
               "is not a hex address")
    expect(c, "--type bogus", ["-k", VMLINUX, "--sweep", "--type", "bogus",
                               DUMP], 2, "bogus")
    r = run(["-k", VMLINUX, DUMP, "0x0000000000000000" + victim()["addr"]])
    c.eq("leading zeros are still an address", r.returncode, 1)
    r = run(["--help"])
    c.ok("--help documents exit status 4", "4 partial" in r.stdout, r.stdout)


def case_no_error_messages(c, tmp):
    p = os.path.join(tmp, "vmlinux-text")
    with open(p, "w") as f:
        f.write("not an ELF file\n" * 100)
    r = expect(c, "text as vmlinux", ["-k", p, DUMP, victim()["addr"]], 3, p,
               "is not an ELF file")
    c.ok("no message says 'no error'", "no error" not in r.stderr.lower(),
         r.stderr)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        CASES[sys.argv[1]](c, tmp)
    c.finish()


if __name__ == "__main__":
    main()
