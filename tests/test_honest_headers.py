#!/usr/bin/python3
"""No silent answers from a damaged dump header (issue 41, item 3): a
copy of a real dump with one header field, VMCOREINFO key or program
header changed so that it says what the rest of the dump contradicts. On
main each was echoed by --info as a fact or handed to libkdumpfile
without a word (exit 0, or 3 naming the wrong cause). Each must now end
partial (exit 4; 3 where nothing can be read) with one stderr line
naming the damage, in --info and in a decode, and change nothing else of
the decode's answer.

usage: test_honest_headers.py CASE
  dump_level     (committed, a makedumpfile -d 17 -c diskdump) the
                 sub-header's dump_level 17 -> 65 (levels are 0..31)
  dump_level_0   dump_level 17 -> 0 (nothing excluded), the bitmaps
                 leaving the free pages out (-d 17): said
  compression    the header's status loses its zlib bit, its pages are
                 still zlib (each page descriptor's flags say so)
  utsname        the header's utsname zeroed (makedumpfile copies the
                 kernel's, QEMU fills the machine)
  eraseinfo      the sub-header's size_eraseinfo -1: past the end of the
                 file
  sysname        utsname's sysname "Linu\xbb": not the kernel's, said
  eraseinfo_inside  65 bytes of erase information at offset 0, over the
                 header: said
  machine_escape the header's utsname.machine "\e]0;pwn\a" (a terminal's
                 title): vmlinux is not for it, exit 3, the machine named
                 escaped (main wrote the bytes to stderr as they were);
                 no case writes a control byte to stderr
  walk_phys_base VMCOREINFO's NUMBER(phys_base) renamed: x86-64's page
                 walk cannot start, libkdumpfile translates: said
  walk_swapper_pg_dir  (the small arm64 QEMU kdump, no vmlinux)
                 SYMBOL(swapper_pg_dir) renamed: nothing translates, exit
                 3 naming our walk, not "not mapped" alone
  phys_base_zero VMCOREINFO's NUMBER(phys_base) 0: the page tables'
                 root is not where it puts it (they do not map it there):
                 said, libkdumpfile tries (and fails: exit 3 naming both)
  symbol_not_hex VMCOREINFO's SYMBOL(init_uts_ns) with an 'x' in its hex
                 digits: a value no kernel writes, said
  kerneloffset   VMCOREINFO's KERNELOFFSET one more: vmlinux's symbols
                 a byte off ("8192 CPUs"); its SYMBOL()s contradict it:
                 said, theirs taken, --info as the undamaged dump's
  t1sz           (the small arm64 QEMU kdump, no vmlinux) VMCOREINFO's
                 TCR_EL1_T1SZ 0x10 -> 0x20: a 32-bit VA walk does not map
                 swapper_pg_dir: exit 3 naming the disagreement
  phys_offset    (the small arm64 QEMU kdump, no vmlinux) VMCOREINFO's
                 NUMBER(PHYS_OFFSET) blanked: the linear map unknown, every
                 slab answer null: the line said
  last_descriptor_offset  (the arm64-writers set's QEMU kdump, 64 KiB
                 blocks) the last page descriptor's data offset 0xffffffff,
                 far past any cut file's end: main gave the whole file to
                 libkdumpfile unsaid ("1 CPU" of 2 in --info); now ours,
                 the page's damage said where it is read (the inodes' page
                 tables are in that block: the decode exits 3 naming it)
  cut_short      (the same dump) cut inside its pages' data: read by
                 libkdumpfile, which reads what is left, unsaid on main
                 (--info: "1 CPU" of 2, exit 0); now said
  elf_machine_0, elf_machine_43  (the patched set's ELF) e_machine 62 ->
                 0 / 43: our reader declines, libkdumpfile reads: said
  elf_osrelease  the ELF's VMCOREINFO OSRELEASE 6.12... -> 5.12...: the
                 release init_uts_ns holds in memory contradicts it: said,
                 the kernel's own taken
  elf_memsz      the largest PT_LOAD's p_memsz 0xffffffffffff: likewise
  elf_ptype      the largest PT_LOAD's p_type PT_NULL: the page tables'
                 root is in no memory of the dump: said in --info too

Where each field is: makedumpfile's diskdump_mod.h (struct
disk_dump_header, then struct kdump_sub_header at block_size), <elf.h>
and readelf for the ELF's, the VMCOREINFO text found as the dump's own
bytes — file formats, not a kernel's layout; the unmutated value of each
is checked in the file before the change.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, set_dir, vmcore_inode  # noqa: E402

D = set_dir("committed")
DUMP = os.path.join(D, "d17-zlib.vmcore")
VMLINUX = os.path.join(D, "vmlinux")
TRUTH = read_truth(os.path.join(D, "truth.txt"))
# disk_dump_header (makedumpfile diskdump_mod.h)
UTSNAME, UTS_LEN, STATUS, BLOCK_SIZE = 12, 65 * 6, 424, 428
DUMP_DH_COMPRESSED_ZLIB = 0x1
# kdump_sub_header, at block_size
SUB_DUMP_LEVEL, SUB_SIZE_ERASEINFO = 8, 72
# Elf64_Ehdr.e_machine, Elf64_Phdr's size and p_memsz (<elf.h>)
E_MACHINE, PHDR_SIZE, P_MEMSZ = 18, 56, 40


def patch(path, off, fmt, value):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack(fmt, value))


def read_at(path, off, fmt):
    with open(path, "rb") as f:
        f.seek(off)
        return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]


def dump_level(path, c):
    bs = read_at(path, BLOCK_SIZE, "<i")
    c.eq("the unmutated dump level (makedumpfile -d 17)",
         read_at(path, bs + SUB_DUMP_LEVEL, "<i"), 17)
    patch(path, bs + SUB_DUMP_LEVEL, "<i", 65)


def dump_level_0(path, c):
    bs = read_at(path, BLOCK_SIZE, "<i")
    c.eq("the unmutated dump level (makedumpfile -d 17)",
         read_at(path, bs + SUB_DUMP_LEVEL, "<i"), 17)
    patch(path, bs + SUB_DUMP_LEVEL, "<i", 0)


def compression(path, c):
    status = read_at(path, STATUS, "<I")
    c.ok("the unmutated status says zlib", status & DUMP_DH_COMPRESSED_ZLIB)
    patch(path, STATUS, "<I", status & ~DUMP_DH_COMPRESSED_ZLIB)


def utsname(path, c):
    with open(path, "r+b") as f:
        f.seek(UTSNAME)
        c.ok("the unmutated utsname names Linux",
             f.read(UTS_LEN).startswith(b"Linux\0"))
        f.seek(UTSNAME)
        f.write(bytes(UTS_LEN))


def sysname(path, c):
    """utsname.sysname "Linux" -> "Linu\xbb" (mutant 4141/1/38)."""
    with open(path, "r+b") as f:
        f.seek(UTSNAME)
        c.eq("the unmutated system name", f.read(6), b"Linux\0")
        f.seek(UTSNAME + 4)
        f.write(b"\xbb")


def eraseinfo_inside(path, c):
    """size_eraseinfo 65 at offset 0, over the header (4141/0/98)."""
    bs = read_at(path, BLOCK_SIZE, "<i")
    c.eq("the unmutated erase information's offset",
         read_at(path, bs + SUB_SIZE_ERASEINFO - 8, "<q"), 0)
    patch(path, bs + SUB_SIZE_ERASEINFO, "<q", 65)


def machine_escape(path, c):
    """utsname.machine made a terminal's title sequence."""
    with open(path, "r+b") as f:
        f.seek(UTSNAME + 4 * 65)
        c.eq("the unmutated machine", f.read(7), b"x86_64\0")
        f.seek(UTSNAME + 4 * 65)
        f.write(b"\x1b]0;pwn\x07\0")


def eraseinfo(path, c):
    bs = read_at(path, BLOCK_SIZE, "<i")
    c.eq("the unmutated dump has no erase information",
         read_at(path, bs + SUB_SIZE_ERASEINFO, "<q"), 0)
    patch(path, bs + SUB_SIZE_ERASEINFO, "<q", -1)


def vmcoreinfo_value(path, key, c):
    """Where KEY's value is in the dump's VMCOREINFO text (found as the
    dump's own bytes, exactly once in the file, or in an ELF's before its
    memory, which holds the kernel's own copies): (start, end, value)."""
    data = open(path, "rb").read()
    if data[:4] == b"\x7fELF":  # the note's text, not memory's copies
        phoff, = struct.unpack_from("<Q", data, 32)
        phnum, = struct.unpack_from("<H", data, 56)
        data = data[:min(struct.unpack_from("<Q", data, phoff + PHDR_SIZE * i
                                            + 8)[0]
                         for i in range(phnum)
                         if struct.unpack_from("<I", data,
                                               phoff + PHDR_SIZE * i)[0] == 1)]
    k = key.encode() + b"="
    c.eq(f"{key} once in the dump's VMCOREINFO", data.count(k), 1)
    at = data.find(k) + len(k)
    end = data.index(b"\n", at)
    return at, end, data[at:end].decode()


def vmcoreinfo_key(key):
    """A key of the dump's VMCOREINFO text renamed (its last character)."""
    def change(path, c):
        at, _, _ = vmcoreinfo_value(path, key, c)
        patch(path, at - 3, "<B", ord("X"))
    return change


def vmcoreinfo_hex_plus_one(key):
    """A hex value of VMCOREINFO one more, its length kept (its last
    digit)."""
    def change(path, c):
        _, end, value = vmcoreinfo_value(path, key, c)
        c.ok(f"{key}'s last hex digit is below f", int(value, 16) % 16 < 15)
        patch(path, end - 1, "<B", ord("%x" % (int(value, 16) % 16 + 1)))
    return change


def write_at(path, at, text):
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(text.encode())


def vmcoreinfo_set(key, new, old=None):
    """VMCOREINFO's KEY made new (as long as its value; old: what it must
    be first, else anything but new)."""
    def change(path, c):
        at, end, value = vmcoreinfo_value(path, key, c)
        c.ok(f"{key} is {old or 'not ' + new} first ({value})",
             value == old if old else value != new)
        c.eq(f"{key}'s new value as long", len(new), end - at)
        write_at(path, at, new)
    return change


def vmcoreinfo_first_digit(key, digit):
    """VMCOREINFO's KEY with its first character made digit."""
    def change(path, c):
        at, _, value = vmcoreinfo_value(path, key, c)
        c.ok(f"{key} starts otherwise ({value})", value[:1] != digit)
        write_at(path, at, digit)
    return change


def vmcoreinfo_char(key, char):
    """VMCOREINFO's KEY with the middle character of its value made char."""
    def change(path, c):
        at, end, value = vmcoreinfo_value(path, key, c)
        patch(path, at + (end - at) // 2, "<B", ord(char))
    return change


def elf_machine(value):
    def change(path, c):
        c.eq("the unmutated ELF machine (EM_X86_64)",
             read_at(path, E_MACHINE, "<H"), 62)
        patch(path, E_MACHINE, "<H", value)
    return change


def largest_load(path, c):
    """The file offset of the largest PT_LOAD's program header (readelf)."""
    out = subprocess.run(["readelf", "-hlW", path], capture_output=True,
                         text=True, check=True).stdout
    phoff = int(re.search(r"Start of program headers:\s+(\d+)", out).group(1))
    loads = [int(f[4], 16) for f in (ln.split() for ln in out.splitlines())
             if f and f[0] in ("LOAD", "NOTE")]
    i = max(range(len(loads)), key=lambda k: loads[k])
    c.eq("readelf's largest segment is a PT_LOAD",
         read_at(path, phoff + PHDR_SIZE * i, "<I"), 1)
    return phoff + PHDR_SIZE * i


def elf_memsz(path, c):
    """The largest PT_LOAD's p_memsz made absurd."""
    patch(path, largest_load(path, c) + P_MEMSZ, "<Q", 0xffffffffffff)


def elf_ptype(path, c):
    """The largest PT_LOAD made PT_NULL: the kernel's memory gone."""
    patch(path, largest_load(path, c), "<I", 0)


def last_descriptor_offset(path, c):
    """The last page descriptor's data offset 0xffffffff: past where the
    file's pages can reach, so no cut file's (mutant 777/5/58 of the
    'tables' kind: libkdumpfile took the whole file, unsaid, and --info
    said 1 CPU of 2)."""
    bs, sub, blocks = (read_at(path, BLOCK_SIZE + 4 * i, "<i")
                       for i in range(3))
    with open(path, "rb") as f:
        f.seek(bs * (1 + sub) + blocks // 2 * bs)
        kept = sum(bin(b).count("1") for b in f.read(blocks // 2 * bs))
    last = bs * (1 + sub) + blocks * bs + 24 * (kept - 1)
    c.ok("the last descriptor's data is inside the file",
         read_at(path, last, "<Q") < os.path.getsize(path))
    patch(path, last, "<Q", 0xffffffff)


def cut_short(path, c):
    """The file cut at 12,545,192 bytes (mutant 15/5/65: inside its pages'
    data, after its header, bitmaps and descriptors)."""
    c.ok("the cut is inside the file", os.path.getsize(path) > 12545192)
    os.truncate(path, 12545192)


# name: (set, dump, mutation, stderr words, --info exit, decode exit,
#        the inodes as the undamaged dump's)
CASES = {
    "dump_level": ("committed", DUMP, dump_level, "dump level 65", 4, 4, True),
    "dump_level_0": ("committed", DUMP, dump_level_0, "dump level 0", 4, 4,
                     True),
    "compression": ("committed", DUMP, compression, "compression", 4, 4, True),
    "utsname": ("committed", DUMP, utsname, "utsname empty", 4, 4, True),
    "eraseinfo": ("committed", DUMP, eraseinfo, "erase information", 4, 4,
                  True),
    "sysname": ("committed", DUMP, sysname, "system name", 4, 4, True),
    "eraseinfo_inside": ("committed", DUMP, eraseinfo_inside,
                         "inside the headers", 4, 4, True),
    # a machine vmlinux is not for: exit 3 naming it, escaped (was raw)
    "machine_escape": ("committed", DUMP, machine_escape, "\\e]0;pwn\\x07",
                       3, 3, False),
    # x86-64's walk starts from phys_base: libkdumpfile translated, unsaid
    "walk_phys_base": ("committed", DUMP, vmcoreinfo_key("NUMBER(phys_base)"),
                       "page walk cannot start", 4, 4, True),
    # arm64's from swapper_pg_dir: libkdumpfile cannot, "not mapped" said
    "walk_swapper_pg_dir": ("small", "arm64-612-qemu-kdump",
                            vmcoreinfo_key("SYMBOL(swapper_pg_dir)"),
                            "page walk cannot start", 3, 3, False),
    # the page tables' root where they are not: "not mapped" everywhere
    "phys_base_zero": ("committed", DUMP,
                       vmcoreinfo_set("NUMBER(phys_base)", "0" * 10),
                       "root table", 4, 3, False),
    # a SYMBOL() no number (mutant 4141/4/176: arm64's relative base,
    # then "the kernel has no BTF"): the line said
    "symbol_not_hex": ("committed", DUMP,
                       vmcoreinfo_char("SYMBOL(init_uts_ns)", "x"),
                       "no number as the kernel writes it", 4, 4, True),
    # vmlinux's symbols moved a byte too far: "8192 CPUs" in --info
    "kerneloffset": ("committed", DUMP, vmcoreinfo_hex_plus_one("KERNELOFFSET"),
                     "KERNELOFFSET", 4, 4, True),
    # arm64's MMU said to run 32-bit VAs: "32-bit VA, 3-level" was taken
    "t1sz": ("small", "arm64-612-qemu-kdump",
             vmcoreinfo_set("NUMBER(TCR_EL1_T1SZ)", "0x20", "0x10"),
             "root table", 3, 3, False),
    # arm64's linear map from PHYS_OFFSET: a value no number ("slab":
    # null for every inode, exit 0, on main): the line said
    "phys_offset": ("small", "arm64-612-qemu-kdump",
                    vmcoreinfo_set("NUMBER(PHYS_OFFSET)", " " * 18),
                    "no number as the kernel writes it", 4, 4, False),
    # (QEMU's arm64 kdump: its last block is the tables' and mem_section's)
    "last_descriptor_offset": ("arm64-writers", "qemu-kdump-raw-zlib.vmcore",
                               last_descriptor_offset,
                               "past the end of the file", 4, 3, False),
    # a cut file is libkdumpfile's, which reads what is left: said
    "cut_short": ("arm64-writers", "qemu-kdump-raw-zlib.vmcore", cut_short,
                  "cut short", 4, 3, False),
    "elf_machine_0": ("patched", "elf-nopaging.vmcore", elf_machine(0),
                      "ELF machine 0", 4, 4, True),
    "elf_machine_43": ("patched", "elf-nopaging.vmcore", elf_machine(43),
                       "ELF machine 43", 4, 4, True),
    "elf_memsz": ("patched", "elf-nopaging.vmcore", elf_memsz,
                  "in memory", 4, 4, True),
    # an ELF has no header utsname: a release nothing witnessed, exit 0
    "elf_osrelease": ("patched", "elf-nopaging.vmcore",
                      vmcoreinfo_first_digit("OSRELEASE", "5"),
                      "init_uts_ns's release", 4, 4, False),
    # was: --info exit 0, a decode exit 3 saying libkdumpfile's "not mapped"
    "elf_ptype": ("patched", "elf-nopaging.vmcore", elf_ptype,
                  "root table", 4, 3, False),
}


# The cases whose --info, once the damage is said, is the undamaged one.
INFO_SAME = {"kerneloffset"}


def inputs(kind, name):
    """(the dump, the arguments that give it types, its truth's addresses)"""
    if kind == "committed":
        return DUMP, ["-k", VMLINUX], [t["addr"] for t in TRUTH if t["role"] in
                                       ("victim_symlink", "victim_ext4",
                                        "bug_badmode")]
    if kind == "small":
        d = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "vmcores", "small", name)
        dump = next(os.path.join(d, f) for f in os.listdir(d)
                    if f.endswith((".flat", ".vmcore")))
        truth = read_truth(os.path.join(d, "truth.txt"))
        return dump, [], [t["addr"] for t in truth[:3]]
    d = set_dir(kind)
    truth = read_truth(os.path.join(d, "truth.txt"))
    return os.path.join(d, name), ["-k", os.path.join(d, "vmlinux")], \
        [t["addr"] for t in truth[:3]]


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in CASES:
        raise SystemExit(__doc__)
    kind, name, change, word, info_rc, decode_rc, same = CASES[case]
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="honest-hdr-") as tmp:
        dump, types, addrs = inputs(kind, name)
        # a run with no vmlinux has only the dump: nothing found elsewhere
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        if not types:
            os.mkdir(os.path.join(tmp, "debug"))
            types = ["--debug-root", os.path.join(tmp, "debug")]
            env.pop("DEBUGINFOD_URLS", None)
        path = os.path.join(tmp, case + os.path.splitext(dump)[1])
        shutil.copyfile(dump, path)
        change(path, c)

        def vi(*args):
            return subprocess.run([vmcore_inode(), *types, *args], env=env,
                                  capture_output=True, text=True,
                                  timeout=600)
        good = vi("--info", dump)
        c.ok("the unmutated --info: exit 0", good.returncode == 0,
             good.stderr)
        bad = vi("--info", path)
        c.eq(f"{case}: --info exit", bad.returncode, info_rc)
        said = [ln for ln in bad.stderr.splitlines() if word in ln]
        c.eq(f"{case}: --info says it on one stderr line ({word!r})",
             len(said), 1)
        # (the no-vmlinux line names the BTF cache the first run filled)
        if case in INFO_SAME:
            c.eq(f"{case}: --info shows what the undamaged dump's does",
                 bad.stdout, good.stdout)
        c.ok(f"{case}: and adds no other line",
             {ln for ln in bad.stderr.splitlines() if ln not in said and
              not ln.startswith("vmcore-inode: no vmlinux: ")} <=
             set(good.stderr.splitlines()), bad.stderr)
        c.ok(f"{case}: --info's stderr has no control byte",
             not any(ch < " " and ch != "\n" for ch in bad.stderr),
             repr(bad.stderr[:300]))
        good = vi("--json", dump, *addrs)
        bad = vi("--json", path, *addrs)
        c.ok(f"{case}: the unmutated decode: exit 0 or 1 (its violations)",
             good.returncode in (0, 1), good.stderr)
        c.eq(f"{case}: the decode exit", bad.returncode, decode_rc)
        c.ok(f"{case}: the decode says it on stderr",
             any(word in ln for ln in bad.stderr.splitlines()), bad.stderr)
        if same:
            try:
                c.eq(f"{case}: the inodes decoded as from the undamaged dump",
                     json.loads(bad.stdout)["inodes"],
                     json.loads(good.stdout)["inodes"])
            except (json.JSONDecodeError, KeyError) as e:
                c.ok(f"{case}: JSON out ({e})", False, bad.stdout[:300])
    print(f"{case}:", end=" ")
    c.finish()


if __name__ == "__main__":
    main()
