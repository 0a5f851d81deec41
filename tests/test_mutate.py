#!/usr/bin/python3
"""Seeded mutants of real dumps, each run through vmcore-inode: no signal,
no sanitizer report, no hang, valid JSON, no exit 3 without a message and
no exit 0 after a read failure (issue 15); and honest (issue 29): a
mutant whose answer differs from the unmutated dump's (its exit code or
its stdout) must say so, with exit 3 or 4 and a line on stderr.

usage: test_mutate.py PER_CLASS [SEED] [--server MUTATE_SERVER]
                      [--kinds KIND,...] [--with-info]
Five input classes: the committed fixture (diskdump, zlib), the patched
set's d17-lzo (diskdump, lzo) and elf-nopaging (ELF), each with PER_CLASS
mutants; the stock set's d17-zlib (Debian 6.12, ext4 a module: its
operations named from the module's symbols) with PER_CLASS / 2, half of
them run without -k (types from the dump's BTF, symbols from its
kallsyms; no cache, so each run reads the damaged dump); and the arm64
set's elf-nopaging (Debian's arm64 6.12, QEMU virt) with PER_CLASS, half
without -k; and the arm64-writers set's QEMU 11 kdump-raw-zlib (64 KiB
blocks for a 4 KiB kernel: pages inside blocks) with PER_CLASS / 2, half
without -k; and the s390x set's d17-zlib (Debian's s390x 6.1: a
big-endian kernel, makedumpfile's header and page descriptors
big-endian) with PER_CLASS / 2, with -k (no BTF). Each mutant is
one damage and runs in one of its class's modes (decode the victim inode
as JSON, --log, the reports, --sweep --jsonl; "-btf": without -k), in
turn.
Damage: byte flips in the headers, bitmap blocks set or cleared,
descriptor fields (diskdump) or program header fields (ELF), truncation,
and, in the ELF dump, bytes of the victim inode's slab page and of the
printk ring's pointers (located with drgn); issue 41's "kdump" (a field
of the diskdump header --info shows: status, a utsname field emptied or
a byte of it changed, the sub-header's dump_level, erase information's
offset and size, set to 0, 65, 1 << 31, all ones or random) and
"vmcoreinfo" (a character of a VMCOREINFO value changed, the text's
length kept, in every class whose file holds the text: diskdumps'
sub-header, ELF notes); and "tables" (named only with --kinds: the page
descriptor of a page table that maps the victim inode or its struct page
in the x86-64 diskdumps, walked from init_top_pgt with drgn, and in the
arm64 QEMU kdump, whose 64 KiB blocks hold 16 pages each, walked from
swapper_pg_dir; its offset, size or compression changed). --kinds runs only the damages named (their
turns, PER_CLASS each class); --with-info adds the mode --info (the
facts, with and without vmlinux). Each class prints its exit statuses. A mutant is written into a
working copy and undone after its run. Prints the count per class and
damage, and every failure with its seed to reproduce it.

Cost: a run of the ASan/UBSan build is mostly its start (the dynamic
linker, the sanitizer runtime: ~80 ms) and, for the committed fixture,
inflating its vmlinux's compressed DWARF (~400 ms). So the runs are
forks of tests/mutate_server.c (--server: vmcore-inode's main() in a
process started once), and the committed class reads a copy of its
vmlinux with the debug sections decompressed (objcopy; the same DWARF).
Without --server each run execs $VMCORE_INODE, as a user would.
"""
import os
import re
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import COMMITTED, Checker, read_truth, set_dir, vmcore_inode  # noqa: E402
import schema_check  # noqa: E402

TIMEOUT = 120
# A changed answer without exit 3/4 and a line on stderr fails the test
# (issue 29); INODEDUMP_MUTATE_HONEST=0 only counts and prints it, for a
# look at a new seed's findings without stopping at them.
HONEST_STRICT = os.environ.get("INODEDUMP_MUTATE_HONEST", "1") != "0"
MODES = ("decode", "log", "reports", "sweep")
# The stock class: module symbols with and without vmlinux.
BTF_MODES = ("decode", "reports", "sweep", "decode-btf", "reports-btf",
             "sweep-btf")
# The arm64 class: every mode, with and without vmlinux.
ARM64_MODES = ("decode", "log", "reports", "sweep", "decode-btf", "log-btf",
               "reports-btf", "sweep-btf")
# --with-info adds --info (with and without vmlinux where the class has
# both): the facts a header's fields make (issue 41). Not yet for every
# damage: a truncated copy, a bitmap block or ELF header bytes still
# change its "excluded" and header lines unsaid.
INFO_MODES = {MODES: ("info",), BTF_MODES: ("info", "info-btf"),
              ARM64_MODES: ("info", "info-btf")}


def diskdump_regions(path):
    """Header, bitmap and descriptor table of a diskdump: (start, end)."""
    with open(path, "rb") as f:
        h = f.read(1 << 16)
    # s390x's makedumpfile writes it big-endian: a version read the
    # other way is no small number
    o = ">" if struct.unpack_from("<I", h, 8)[0] > 0xffff else "<"
    bs, sub, blocks = struct.unpack_from(o + "iii", h, 428)
    bitmap = bs * (1 + sub)
    desc = bitmap + blocks * bs
    with open(path, "rb") as f:
        f.seek(desc)
        first = struct.unpack(o + "Q", f.read(8))[0]
        n = (first - desc) // 24
    vi_off, vi_size = struct.unpack_from(o + "QQ", h, bs + 32) \
        if bs + 48 <= len(h) else (0, 0)
    return {"header": (0, bitmap), "bitmap": (bitmap, desc),
            "descriptor": (desc, desc + 24 * n),
            # disk_dump_header's status and utsname, kdump_sub_header's
            # dump_level and erase information (makedumpfile's
            # diskdump_mod.h): what --info shows of the header
            "kdump": [(424, 4), (bs + 8, 4), (bs + 64, 8), (bs + 72, 8)] +
            [(12 + 65 * f, 65) for f in range(6)],
            "vmcoreinfo": (vi_off, vi_off + vi_size)}


def vmcoreinfo_in_elf(path):
    """The VMCOREINFO note's text in an ELF dump: from its first line
    (OSRELEASE=, as the kernel writes it first) to the note's NUL."""
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    at = head.find(b"OSRELEASE=")
    if at < 0:
        return (0, 0)
    end = head.find(b"\0", at)
    return (at, end if end > 0 else at)


EM_AARCH64 = 183


def elf_regions(path, d, role="victim_symlink"):
    """Header and program headers of the ELF dump, the victim inode's page
    and the printk ring's struct (file offsets found with drgn)."""
    import drgn
    from drgn.helpers.linux.mm import virt_to_phys
    with open(path, "rb") as f:
        h = f.read(1 << 16)
    machine, = struct.unpack_from("<H", h, 18)
    if machine == EM_AARCH64:
        return elf_regions_arm64(path, d, h, role)
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    loads = []
    for i in range(phnum):
        t, _, off, _, paddr, filesz = struct.unpack_from("<IIQQQQ", h,
                                                         phoff + 56 * i)
        if t == 1:
            loads.append((off, paddr, filesz))
    prog = drgn.Program()
    # The same memory with virtual addresses (FIXTURES: nopaging has none).
    prog.set_core_dump(os.path.join(d, "elf-paging.vmcore"))
    prog.load_debug_info([os.path.join(d, "vmlinux")])

    def file_off(vaddr):
        if vaddr >= 0xffffffff80000000:
            phys = (vaddr - 0xffffffff80000000 +
                    prog.read_u64(prog.symbol("phys_base").address)) % (1 << 64)
        else:
            phys = virt_to_phys(prog, vaddr).value_()
        for off, paddr, size in loads:
            if paddr <= phys < paddr + size:
                return off + phys - paddr
        raise SystemExit(f"FAIL 0x{vaddr:x} not in the ELF dump")

    victim = next(t for t in read_truth(os.path.join(d, "truth.txt"))
                  if t["role"] == "victim_symlink")
    page = file_off(int(victim["addr"], 16) & ~0xfff)
    prb = prog["prb"]
    ring = file_off(prb.value_())
    size = prog.type("struct printk_ringbuffer").size
    return {"header": (0, phoff + 56 * phnum), "phdr": (phoff, phoff + 56 * phnum),
            "memory": (page, page + 4096), "ring": (ring, ring + size),
            "vmcoreinfo": vmcoreinfo_in_elf(path)}


def elf_regions_arm64(path, d, h, role):
    """elf_regions for an arm64 set's ELF dump (QEMU's: one PT_LOAD, every
    byte of RAM in it): drgn 0.0.22 reads it through libkdumpfile only,
    and has no arm64 virt_to_phys, so the victim inode's page and the
    printk ring's struct are found by their bytes, which must occur
    exactly once in the file."""
    os.environ["DRGN_USE_LIBKDUMPFILE_FOR_ELF"] = "1"
    import drgn
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    prog = drgn.Program()
    prog.set_core_dump(path)
    prog.load_debug_info([os.path.join(d, "vmlinux")])
    with open(path, "rb") as f:
        data = f.read()

    def file_off(vaddr, size):
        want = prog.read(vaddr, size)
        at = data.find(want)
        if at < 0 or data.find(want, at + 1) >= 0:
            raise SystemExit(f"FAIL the {size} bytes at 0x{vaddr:x} are not "
                             f"exactly once in {path}")
        return at

    victim = next(t for t in read_truth(os.path.join(d, "truth.txt"))
                  if t["role"] == role)
    page = file_off(int(victim["addr"], 16) & ~0xfff, 4096)
    size = prog.type("struct printk_ringbuffer").size
    ring = file_off(prog["prb"].value_(), size)
    return {"header": (0, phoff + 56 * phnum), "phdr": (phoff, phoff + 56 * phnum),
            "memory": (page, page + 4096), "ring": (ring, ring + size),
            "vmcoreinfo": vmcoreinfo_in_elf(path)}


def mutate(rng, kind, regions, size):
    """{offset: bytes} to write, or ("truncate", length)."""
    if kind == "truncate":
        return ("truncate", rng.randrange(0, size))
    if kind == "kdump":  # a header field: a value no writer leaves
        at, n = rng.choice(regions[kind])
        if n == 65:  # a utsname field: emptied, or a byte changed
            if rng.random() < 0.5:
                return {at: bytes(n)}
            return {at + rng.randrange(n): bytes([rng.randrange(256)])}
        value = rng.choice((0, 65, 1 << 31, (1 << 8 * n) - 1,
                            rng.getrandbits(8 * n)))
        # dump_level: one makedumpfile could have written (0..31) is no
        # damage the file shows unless its bitmaps contradict it (level 0
        # with pages left out: test_honest_headers.py dump_level_0)
        if at == regions["kdump"][1][0] and 0 <= value <= 31:
            value = 65
        return {at: value.to_bytes(n, "little")}
    if kind == "tables":  # a page table page's descriptor (issue 41)
        at = rng.choice(regions[kind])
        field = rng.choice(((0, 8), (8, 4), (12, 4)))
        value = rng.choice((0, 1, 4097, 0xffffffff, 1 << 31,
                            rng.getrandbits(8 * field[1])))
        if field == (12, 4):  # none, LZO, snappy, zstd, two methods
            value = rng.choice((0, 2, 4, 0x20, 3, value))
        value &= (1 << (8 * field[1])) - 1
        return {at + field[0]: value.to_bytes(field[1], "little")}
    start, end = regions[kind]
    if kind == "vmcoreinfo":  # a character of a value, its length kept
        text = regions["vmcoreinfo_text"]
        lines = [i for i in range(len(text)) if text[i:i + 1] == b"="]
        if not lines:  # none in the file (QEMU's kdump: in memory)
            return {}
        eq = rng.choice(lines)
        stop = text.find(b"\n", eq)
        if stop <= eq + 1:
            return {}
        at = rng.randrange(eq + 1, stop)
        was = text[at:at + 1]
        new = rng.choice([c for c in b"0123456789abcdefx-" if bytes([c]) != was])
        return {start + at: bytes([new])}
    if kind == "bitmap":
        at = rng.randrange(start, end)
        n = rng.choice((1, 8, 64, 512))
        return {at: (b"\xff" if rng.random() < 0.5 else b"\0") * n}
    if kind == "descriptor":
        i = rng.randrange((end - start) // 24)
        field = rng.choice(((0, 8), (8, 4), (12, 4), (16, 8)))
        value = rng.choice((0, 1, 0xffff, 4095, 4097, 65535, 1 << 31,
                            rng.getrandbits(8 * field[1])))
        value &= (1 << (8 * field[1])) - 1
        return {start + 24 * i + field[0]: value.to_bytes(field[1], "little")}
    if kind == "phdr":
        i = rng.randrange((end - start) // 56)
        field = rng.choice(((0, 4), (8, 8), (16, 8), (24, 8), (32, 8), (40, 8)))
        value = rng.choice((0, 1, 4, 0xffffffff, 1 << 40,
                            rng.getrandbits(8 * field[1])))
        value &= (1 << (8 * field[1])) - 1
        return {start + 56 * i + field[0]: value.to_bytes(field[1], "little")}
    # header, memory, ring: flip 1-8 bytes
    return {rng.randrange(start, end): bytes([rng.randrange(256)])
            for _ in range(rng.randrange(1, 9))}


KERNEL_MAP = 0xffffffff80000000  # x86-64's __START_KERNEL_map


def readelf_symbols(vmlinux, names):
    out = subprocess.run(["readelf", "-Ws", vmlinux], capture_output=True,
                         text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] in names:
            got[f[7]] = int(f[1], 16)
    return got


def x86_table_descriptors(path, vmlinux, addr, text):
    """The file offsets of the page descriptors of the page tables that
    map an x86-64 diskdump's victim inode (the direct map) and its struct
    page (vmemmap), walked from init_top_pgt with drgn's physical reads;
    the descriptor by its page's rank in the second bitmap (makedumpfile's
    diskdump_mod.h)."""
    import drgn
    vi = dict(ln.split("=", 1) for ln in text.decode(errors="replace")
              .splitlines() if "=" in ln)
    if "NUMBER(phys_base)" not in vi or "SIZE(page)" not in vi:
        return []
    kaslr = int(vi.get("KERNELOFFSET", "0"), 16)
    sym = readelf_symbols(vmlinux, ("page_offset_base", "vmemmap_base",
                                    "init_top_pgt"))
    prog = drgn.Program()
    prog.set_core_dump(path)
    pob = prog.read_u64(sym["page_offset_base"] + kaslr)
    vmemmap = prog.read_u64(sym["vmemmap_base"] + kaslr)
    pfn = (int(addr, 16) - pob) >> 12
    tables = set()
    for va in (int(addr, 16), vmemmap + pfn * int(vi["SIZE(page)"])):
        table = (sym["init_top_pgt"] + kaslr - KERNEL_MAP +
                 int(vi["NUMBER(phys_base)"])) % (1 << 64)
        levels = [39, 30, 21, 12]
        if vi.get("NUMBER(pgtable_l5_enabled)") == "1":
            levels.insert(0, 48)
        for shift in levels:
            tables.add(table >> 12)
            e = prog.read_u64(table + ((va >> shift) & 511) * 8, True)
            if not e & 1 or shift == 12 or (shift in (30, 21) and e & 0x80):
                break
            table = e & 0x000ffffffffff000
    return sorted(filter(None, (Blocks(path).descriptor(t << 12)
                                for t in tables)))


class Blocks:
    """A diskdump's blocks by physical address, from its own headers
    (makedumpfile's diskdump_mod.h): a block's page descriptor is its rank
    among the blocks the second bitmap keeps; zlib or raw blocks read."""

    def __init__(self, path):
        self.f = open(path, "rb")
        h = self.f.read(1 << 16)
        self.bs, sub, blocks = struct.unpack_from("<iii", h, 428)
        self.f.seek(0)
        self.head = self.f.read(self.bs * (1 + sub) + blocks * self.bs)
        self.bitmap2 = self.bs * (1 + sub) + blocks // 2 * self.bs
        self.descs = self.bs * (1 + sub) + blocks * self.bs

    def descriptor(self, pa):
        """The file offset of pa's block's descriptor (None: left out)."""
        b = pa // self.bs
        byte = self.head[self.bitmap2 + b // 8]
        if not byte >> (b % 8) & 1:
            return None
        rank = sum(bin(x).count("1")
                   for x in self.head[self.bitmap2:self.bitmap2 + b // 8])
        return self.descs + 24 * (rank + bin(byte & ((1 << (b % 8)) - 1))
                                  .count("1"))

    def read_u64(self, pa):
        self.f.seek(self.descriptor(pa))
        off, size, flags = struct.unpack("<QII", self.f.read(16))
        self.f.seek(off)
        raw = self.f.read(size)
        block = zlib.decompress(raw) if flags & 1 else raw
        return struct.unpack_from("<Q", block, pa % self.bs)[0]


def arm64_table_descriptors(path, addr, text):
    """As x86_table_descriptors, for an arm64 diskdump of a 4 KiB-page
    kernel running 48-bit VAs (QEMU's: 64 KiB blocks, zlib): the tables
    walked from swapper_pg_dir (VMCOREINFO's, less kimage_voffset), the
    struct page at VMEMMAP_START + (pfn - PHYS_OFFSET's) * SIZE(page)
    (arch/arm64's vmemmap), each table's block's descriptor."""
    if not text:  # QEMU's: the kernel's own note, in memory, not a header
        with open(path, "rb") as f:
            head = f.read(4 << 20)
        at = head.find(b"OSRELEASE=")
        text = head[at:head.find(b"\0", at)] if at >= 0 else b""
    vi = dict(ln.split("=", 1) for ln in text.decode(errors="replace")
              .splitlines() if "=" in ln)
    keys = ("SYMBOL(swapper_pg_dir)", "NUMBER(kimage_voffset)",
            "NUMBER(PHYS_OFFSET)", "NUMBER(VMEMMAP_START)", "SIZE(page)")
    if not all(k in vi for k in keys) or vi.get("PAGESIZE") != "4096" or \
            int(vi.get("NUMBER(TCR_EL1_T1SZ)", "0"), 16) != 16:
        return []
    b = Blocks(path)
    root = (int(vi["SYMBOL(swapper_pg_dir)"], 16) -
            int(vi["NUMBER(kimage_voffset)"], 16)) % (1 << 64)
    tables = set()

    def walk(va):
        table = root
        for shift in (39, 30, 21, 12):
            tables.add(table)
            e = b.read_u64(table + ((va >> shift) & 511) * 8)
            if not e & 1:
                return None
            pa = e & 0x0000fffffffff000
            if shift == 12 or not e & 2:  # a page, or a block
                return pa & ~((1 << shift) - 1) | va & ((1 << shift) - 1)
            table = pa
    pa = walk(int(addr, 16))
    phys_offset = int(vi["NUMBER(PHYS_OFFSET)"], 16)
    if phys_offset >> 63:  # memstart_addr is signed (52-bit VA kernels)
        phys_offset -= 1 << 64
    if pa is not None:
        walk((int(vi["NUMBER(VMEMMAP_START)"], 16) +
              ((pa >> 12) - (phys_offset >> 12)) * int(vi["SIZE(page)"]))
             % (1 << 64))
    return sorted(filter(None, (b.descriptor(t) for t in tables)))


def args_for(mode, vmlinux, dump, addr):
    """A mode's arguments; "-btf" on its name: without -k."""
    k = [] if mode.endswith("-btf") else ["-k", vmlinux]
    return k + {"decode": ["--json", dump, addr],
                "log": ["--log", dump],
                "reports": ["--json", dump],
                "sweep": ["--sweep", "--jsonl", dump],
                # the dump's facts (issue 41: header fields echoed)
                "info": ["--info", dump]}[mode.split("-")[0]]


class Server:
    """One tests/mutate_server process: each run a fork of it."""

    def __init__(self, path, tmp, name):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.out = os.path.join(tmp, name + ".out")
        self.err = os.path.join(tmp, name + ".err")

    def run(self, args):
        if any("\t" in a or "\n" in a for a in args):
            raise SystemExit(f"FAIL an argument the server cannot pass: {args}")
        self.proc.stdin.write("\t".join([str(TIMEOUT), self.out, self.err,
                                         *args]) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().split()
        if len(answer) < 2:
            raise SystemExit(f"FAIL mutate_server died: {answer}")
        if answer[1] == "timeout":
            return None
        if answer[1] not in ("exit", "signal"):
            raise SystemExit(f"FAIL mutate_server: {answer}")
        code = int(answer[2]) if answer[1] == "exit" else -int(answer[2])
        with open(self.out, "rb") as o, open(self.err, "rb") as e:
            p = subprocess.CompletedProcess(args, code, o.read(), e.read())
        p.pid = int(answer[0])
        return p

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def plain_vmlinux(src, tmp):
    """src, or a copy with its compressed debug sections decompressed."""
    out = subprocess.run(["readelf", "-S", "-W", src], capture_output=True,
                         text=True, check=True).stdout
    # [Nr] Name Type Address Off Size ES Flg Lk Inf Al: Flg may be empty.
    flags = [f[6] for f in (line.split("]", 1)[1].split()
                            for line in out.splitlines()
                            if "] .debug_info " in line) if len(f) == 10]
    if not any("C" in f for f in flags):
        return src
    dst = os.path.join(tmp, "vmlinux-" + os.path.basename(os.path.dirname(src)))
    subprocess.run(["objcopy", "--decompress-debug-sections", src, dst],
                   check=True)
    return dst


# Damage to the memory itself (bytes of the victim's slab page, of the
# printk ring's struct): the dump then says a different memory, and a
# different answer is the true answer to it, not a failed read.
MEMORY_KINDS = ("memory", "ring")


def silent_change(p, ref, path, src_path):
    """Why a run that exits 0 or 1 is dishonest: its answer is not the
    unmutated dump's (ref, run on src_path), yet it said nothing. None when
    it is the same answer, or the run declared the damage (exit 3 or 4)."""
    if p is None or ref is None or p.returncode not in (0, 1):
        return None
    out = p.stdout.replace(path.encode(), src_path.encode())
    if p.returncode != ref.returncode:
        return f"exit {p.returncode} where the unmutated dump exits " \
               f"{ref.returncode}, with nothing on stderr"
    if out != ref.stdout:
        return "a different answer (stdout), exit " \
               f"{p.returncode} and nothing on stderr"
    return None


INFORMS = re.compile(r"vmcore-inode: module [^ :]+: (names from its debug "
                     r"file |no debug file names its data: )")


def judge(mode, p):
    """Why the run is wrong, or None."""
    mode = mode.split("-")[0]
    if p is None:
        return "hang"
    if p.returncode < 0:
        return f"signal {-p.returncode}"
    err = p.stderr.decode(errors="replace")
    # Without -k, the line that says where types and symbols come from.
    # And which debug file named a module's data, or why none did: said,
    # never a problem (inodedump_note_informs()).
    err = "".join(ln for ln in err.splitlines(True)
                  if not ln.startswith("vmcore-inode: no vmlinux: ")
                  and not INFORMS.match(ln))
    # ASan's reports name their process: libkdumpfile's child may die of
    # one (a contained crash, said as such), vmcore-inode may not.
    if f"=={p.pid}==" in err or "runtime error:" in err:
        return "sanitizer report"
    if "Sanitizer" in err and "libkdumpfile failed" not in err:
        return "sanitizer report, not contained"
    if p.returncode not in (0, 1, 3, 4):
        return f"exit {p.returncode}"
    if p.returncode == 3 and not err.strip():
        return "exit 3 without a message"
    if p.returncode in (0, 1) and err.strip():
        return "exit {} with a complaint: {}".format(p.returncode,
                                                   err.strip()[:200])
    # Every output of a mutant, as the published schema says it
    # (tests/schema_check.py): JSON, and the keys and types it promises.
    if mode in ("decode", "reports") and p.returncode != 3:
        try:
            schema_check.check_text(p.stdout.decode("utf-8", "surrogateescape"),
                                    "decode_document")
        except schema_check.SchemaFailure as e:
            return f"invalid JSON: {e}"
    if mode == "sweep" and p.returncode != 3:
        try:
            schema_check.check_lines(p.stdout.decode("utf-8", "surrogateescape"),
                                     "sweep_line")
        except schema_check.SchemaFailure as e:
            return f"invalid JSON line: {e}"
    return None


_shm = []


def tmp_shm():
    """A directory in /dev/shm for this run, removed at exit."""
    if not _shm:
        import atexit
        d = tempfile.mkdtemp(prefix="idd-mutate-", dir="/dev/shm")
        atexit.register(shutil.rmtree, d, True)
        _shm.append(d)
    return _shm[0]


class Worker:
    """A working copy of one input, mutated and restored per run."""

    def __init__(self, tmp, name, src, server=None):
        self.path = os.path.join(tmp, name)
        shutil.copyfile(src, self.path)
        self.src = src
        self.size = os.path.getsize(src)
        self.server = server
        # Truncated copies of the 550 MB ELF dump: in /dev/shm where it
        # has room for two, not on the disk (a memory copy, ~0.1 s).
        self.shm = None
        try:
            st = os.statvfs("/dev/shm")
            if st.f_bavail * st.f_frsize > 4 * self.size:
                self.shm = tmp_shm()
        except OSError:
            pass

    def run(self, m, args):
        path = self.path
        saved = {}
        if isinstance(m, tuple):  # a truncated copy, in memory if it can
            path = os.path.join(self.shm or os.path.dirname(self.path),
                                os.path.basename(self.path) + ".trunc")
            with open(self.src, "rb") as f, open(path, "wb") as out:
                done = 0
                while done < m[1]:
                    n = os.sendfile(out.fileno(), f.fileno(), done,
                                    m[1] - done)
                    if n <= 0:
                        raise SystemExit(f"FAIL copying {self.src}")
                    done += n
        else:
            with open(path, "r+b") as f:
                for off, b in m.items():
                    f.seek(off)
                    saved[off] = f.read(len(b))
                    f.seek(off)
                    f.write(b)
        self.last_path = path
        args = [path if a == "DUMP" else a for a in args]
        try:
            p = self.server.run(args) if self.server else self.exec(args)
        finally:
            if saved:
                with open(path, "r+b") as f:
                    for off, b in reversed(list(saved.items())):
                        f.seek(off)
                        f.write(b)
            elif path != self.path:
                os.unlink(path)
        return p

    @staticmethod
    def exec(args):
        proc = subprocess.Popen([vmcore_inode()] + args,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None
        p = subprocess.CompletedProcess(args, proc.returncode, out, err)
        p.pid = proc.pid
        return p


def main():
    argv = sys.argv[1:]
    server = None
    if "--server" in argv:
        i = argv.index("--server")
        server = argv[i + 1]
        del argv[i:i + 2]
    only = None
    with_info = "--with-info" in argv
    if with_info:
        argv.remove("--with-info")
    if "--kinds" in argv:  # a sample of some damages only
        i = argv.index("--kinds")
        only = set(argv[i + 1].split(","))
        del argv[i:i + 2]
    per_class = int(argv[0])
    seed = int(argv[1]) if len(argv) > 1 else 15
    patched = set_dir("patched")
    victim = next(t for t in read_truth(os.path.join(patched, "truth.txt"))
                  if t["role"] == "victim_symlink")["addr"]
    cvictim = next(t for t in read_truth(os.path.join(COMMITTED, "truth.txt"))
                   if t["role"] == "victim_symlink")["addr"]
    stock = set_dir("stock")
    svictim = next(t for t in read_truth(os.path.join(stock, "truth.txt"))
                   if t["role"] == "ext4_regular")["addr"]
    arm64 = set_dir("arm64")
    avictim = next(t for t in read_truth(os.path.join(arm64, "truth.txt"))
                   if t["role"] == "ext4_regular")["addr"]
    s390x = set_dir("s390x")
    zvictim = next(t for t in read_truth(os.path.join(s390x, "truth.txt"))
                   if t["role"] == "ext4_regular")["addr"]
    writers64 = set_dir("arm64-writers")
    wvictim = next(t for t in read_truth(os.path.join(writers64, "truth.txt"))
                   if t["role"] == "ext4_regular")["addr"]
    # issue 41's kinds ("kdump", "vmcoreinfo") only when --kinds names
    # them: the 1,000-per-class run's draws stay as they were
    extra = ("kdump", "vmcoreinfo") if only else ()
    # and the page tables' descriptors (x86-64's diskdumps) when named
    tables = ("tables",) if only and "tables" in only else ()
    disk = ("header", "bitmap", "descriptor", "truncate") + extra + tables
    elf = ("header", "phdr", "memory", "ring", "truncate") + extra[1:]
    # name, dump, vmlinux, address, damages, modes, mutants
    classes = [
        ("committed d17-zlib", os.path.join(COMMITTED, "d17-zlib.vmcore"),
         os.path.join(COMMITTED, "vmlinux"), cvictim, disk, MODES,
         per_class),
        ("patched d17-lzo", os.path.join(patched, "d17-lzo.vmcore"),
         os.path.join(patched, "vmlinux"), victim, disk, MODES, per_class),
        ("patched elf-nopaging", os.path.join(patched, "elf-nopaging.vmcore"),
         os.path.join(patched, "vmlinux"), victim, elf, MODES, per_class),
        ("stock d17-zlib", os.path.join(stock, "d17-zlib.vmcore"),
         os.path.join(stock, "vmlinux"), svictim, disk, BTF_MODES,
         per_class // 2),
        # Debian's arm64 6.12 on QEMU virt (tests/test_arm64.py): with and
        # without its vmlinux, the log too.
        ("arm64 elf-nopaging", os.path.join(arm64, "elf-nopaging.vmcore"),
         os.path.join(arm64, "vmlinux"), avictim, elf, ARM64_MODES,
         per_class),
        # QEMU 11's arm64 kdump, raw: 64 KiB blocks holding 16 of the
        # kernel's 4 KiB pages each (diskdump.c's block unit).
        ("arm64-writers kdump-raw-zlib",
         os.path.join(writers64, "qemu-kdump-raw-zlib.vmcore"),
         os.path.join(writers64, "vmlinux"), wvictim, disk, ARM64_MODES,
         per_class // 2),
        # Debian's s390x 6.1 (tests/test_s390x.py): a big-endian kernel,
        # makedumpfile's header and descriptors big-endian too.
        ("s390x d17-zlib", os.path.join(s390x, "d17-zlib.vmcore"),
         os.path.join(s390x, "vmlinux"), zvictim, disk, MODES,
         per_class // 2),
    ]
    # Runs without -k read the dump's BTF and kallsyms each time, never a
    # cache another mutant's damage wrote (the cache is keyed by build ID).
    os.environ["INODEDUMP_NO_CACHE"] = "1"
    c = Checker()
    started = time.monotonic()
    cpu = os.times()
    with tempfile.TemporaryDirectory() as tmp:
        servers = [Server(server, tmp, f"s{k}") if server else None
                   for k in range(2)]
        for ci, (name, src, vmlinux, addr, kinds, modes,
                 count) in enumerate(classes):
            class_start = time.monotonic()
            vmlinux = plain_vmlinux(vmlinux, tmp)
            regions = (elf_regions(src, arm64, "ext4_regular")
                       if name.startswith("arm64 elf")
                       else elf_regions(src, patched) if "elf" in name
                       else diskdump_regions(src))
            with open(src, "rb") as f:
                f.seek(regions["vmcoreinfo"][0])
                regions["vmcoreinfo_text"] = f.read(
                    regions["vmcoreinfo"][1] - regions["vmcoreinfo"][0])
            if "tables" in kinds:
                regions["tables"] = (
                    arm64_table_descriptors(src, addr,
                                            regions["vmcoreinfo_text"])
                    if name.startswith("arm64") else x86_table_descriptors(
                        src, vmlinux, addr, regions["vmcoreinfo_text"]))
                if not regions["tables"]:
                    kinds = tuple(k for k in kinds if k != "tables")
            if only:
                kinds = tuple(k for k in kinds if k in only)
            if not kinds:
                print(f"{name}: none of the damages named applies")
                continue
            if with_info:
                modes = modes + INFO_MODES[modes]
            jobs = []
            for i in range(count):
                rng = random.Random(f"{seed}/{ci}/{i}")
                kind = kinds[i % len(kinds)]
                # truncation copies the file: one in four of its turns
                if kind == "truncate" and i % (4 * len(kinds)) >= len(kinds):
                    kind = kinds[0]
                m = mutate(rng, kind, regions, os.path.getsize(src))
                mode = modes[(i // len(kinds)) % len(modes)]
                if kind == "truncate":  # its turns fall on one mode: rotate
                    mode = modes[(i // (4 * len(kinds))) % len(modes)]
                jobs.append((i, kind, mode, m))
            workers = [Worker(tmp, f"w{ci}-{k}", src, servers[k])
                       for k in range(2)]
            counts, bad, changed = {}, [], []
            # The unmutated answer per mode, from each worker's own copy.
            refs = {(k, mode): workers[k].run({}, args_for(mode, vmlinux,
                                                            "DUMP", addr))
                    for k in range(2) for mode in modes}

            def one(k, job):
                i, kind, mode, m = job
                p = workers[k].run(m, args_for(mode, vmlinux, "DUMP", addr))
                return job, judge(mode, p), p, None if kind in \
                    MEMORY_KINDS else silent_change(
                        p, refs[(k, mode)], workers[k].last_path,
                        workers[k].path)

            # Two threads, each with its own copy, each its half in turn.
            with ThreadPoolExecutor(2) as pool:
                halves = [pool.submit(lambda k: [one(k, j) for j in jobs[k::2]],
                                      k) for k in range(2)]
                results = [r for h in halves for r in h.result()]
            exits = {}
            for (i, kind, mode, m), why, p, change in results:
                key = f"{kind}/{mode}"
                counts[key] = counts.get(key, 0) + 1
                code = "hang" if p is None else p.returncode
                exits[code] = exits.get(code, 0) + 1
                if change:
                    changed.append((i, kind, mode, change))
                    print(f"  mutant {seed}/{ci}/{i} ({kind}, {mode}): "
                          f"changed its answer silently: {change}\n"
                          f"    {m if isinstance(m, tuple) else {k: v.hex() for k, v in m.items()}}")
                if why:
                    bad.append((i, kind, mode, why))
                    err = p.stderr.decode(errors="replace")[-600:] if p else ""
                    print(f"  mutant {seed}/{ci}/{i} ({kind}, {mode}): {why}\n"
                          f"    {m if isinstance(m, tuple) else {k: v.hex() for k, v in m.items()}}\n"
                          f"    {err}")
            print(f"{name}: {len(jobs)} mutants in "
                  f"{time.monotonic() - class_start:.0f} s: " +
                  ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
            print(f"{name}: exit statuses " + ", ".join(
                f"{k}: {v}" for k, v in sorted(exits.items(), key=str)))
            c.eq(f"{name}: {len(jobs)} mutants, none failed", len(bad), 0)
            print(f"{name}: {len(changed)} of {len(jobs)} mutants changed "
                  "the answer without saying so" +
                  (": " + ", ".join(f"{k} {v}" for k, v in sorted(
                      {f"{x[1]}/{x[2]}": sum(1 for y in changed
                                              if y[1:3] == x[1:3])
                       for x in changed}.items())) if changed else ""))
            if HONEST_STRICT:
                c.eq(f"{name}: no mutant changed the answer silently",
                     len(changed), 0)
        for sv in servers:
            if sv:
                sv.close()
    done = os.times()
    print(f"{sum(x[-1] for x in classes)} runs in "
          f"{time.monotonic() - started:.0f} s wall, "
          f"{done.children_user - cpu.children_user:.0f} s user + "
          f"{done.children_system - cpu.children_system:.0f} s system CPU "
          f"in the runs ({'forked from mutate_server' if server else 'exec'})")
    c.finish()


if __name__ == "__main__":
    main()
