#!/usr/bin/python3
"""Memory that lies: a copy of a real ELF fixture dump with chosen bytes
overwritten, and the tool still answers with a clear message, the
documented exit code, no crash and no hang.

usage: test_hostile.py CASE
Addresses of the members to corrupt come from drgn reading the original
dump; the bytes are written at the physical offset in a copy of the
paging:false ELF dump (FIXTURES: every p_vaddr is 0 there).
"""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402
from fixture import Checker, read_truth, run, set_dir  # noqa: E402

import drgn  # noqa: E402
from drgn import Object  # noqa: E402
from drgn.helpers.linux.mm import virt_to_phys  # noqa: E402

D = set_dir("patched")
VMLINUX = os.path.join(D, "vmlinux")
TIMEOUT = 60


def program():
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(D, "elf-paging.vmcore"))
    prog.load_debug_info([VMLINUX])
    return prog


def victim(prog, role="victim_symlink"):
    t = next(t for t in read_truth(os.path.join(D, "truth.txt"))
             if t["role"] == role)
    return t, Object(prog, "struct inode *", int(t["addr"], 16))


class ElfCopy(fixture.ElfCopy):
    """A writable copy of elf-nopaging.vmcore, written by virtual address."""

    def __init__(self, tmp):
        super().__init__(D, tmp, "lying.vmcore")

    def write(self, prog, vaddr, data):
        if vaddr >= 0xffffffff80000000:
            # The kernel image mapping (x86-64 __START_KERNEL_map).
            phys = (vaddr - 0xffffffff80000000 +
                    prog.read_u64(prog.symbol("phys_base").address)) % (1 << 64)
        else:
            phys = virt_to_phys(prog, vaddr).value_()
        self.write_phys(phys, data)


def decode(c, name, dump, args, code, *words):
    p = run(["-k", VMLINUX, "--json", dump, *args], timeout=TIMEOUT)
    c.eq(f"{name}: exit code", p.returncode, code)
    c.ok(f"{name}: no crash", "Sanitizer" not in p.stderr and p.returncode >= 0,
         p.stderr[-400:])
    for w in words:
        c.ok(f"{name}: says {w!r}", w in p.stdout or w in p.stderr,
             (p.stderr + p.stdout)[-600:])
    return p


def case_link_unterminated(c, tmp, prog):
    t, ino = victim(prog)
    e = ElfCopy(tmp)
    e.write(prog, ino.i_link.value_(), b"A" * 5000)
    decode(c, "i_link without NUL", e.path, [t["addr"]], 1,
           "no NUL within PATH_MAX (4096)")


def case_linklen_negative(c, tmp, prog):
    t, ino = victim(prog)
    e = ElfCopy(tmp)
    e.write(prog, ino.i_linklen.address_, struct.pack("<i", -7))
    decode(c, "i_linklen negative", e.path, [t["addr"]], 1,
           "i_linklen = -7")


def case_linklen_huge(c, tmp, prog):
    t, ino = victim(prog)
    e = ElfCopy(tmp)
    e.write(prog, ino.i_linklen.address_, struct.pack("<i", 0x7fffffff))
    decode(c, "i_linklen huge", e.path, [t["addr"]], 1,
           "i_linklen = 2147483647")


def case_sb_points_at_inode(c, tmp, prog):
    t, ino = victim(prog)
    e = ElfCopy(tmp)
    e.write(prog, ino.i_sb.address_, struct.pack("<Q", ino.value_()))
    decode(c, "i_sb pointing at the inode", e.path, [t["addr"]], 3,
           "does not look like a struct inode", "s_type")


def case_dentry_alias_cycle(c, tmp, prog):
    t, ino = victim(prog)
    first = ino.i_dentry.first
    e = ElfCopy(tmp)
    e.write(prog, first.next.address_, struct.pack("<Q", first.value_()))
    # The walk stops at the cycle: the paths are incomplete, a partial
    # run (4, over the victim's violation).
    decode(c, "cyclic i_dentry", e.path, [t["addr"]], 4,
           "dentry aliases: list corrupt or cyclic", t["path"],
           f"inode 0x{t['addr']}: paths could not be read in full")


def case_mount_cycle(c, tmp, prog):
    t, ino = victim(prog)
    sb = ino.i_sb
    mnt = drgn.container_of(sb.s_mounts.next, "struct mount", "mnt_instance")
    parent = mnt.mnt_parent
    e = ElfCopy(tmp)
    # The parent mount now claims the child as its parent: a cycle.
    e.write(prog, parent.mnt_parent.address_, struct.pack("<Q", mnt.value_()))
    p = decode(c, "cyclic mount tree", e.path, [t["addr"]], 4,
               f"inode 0x{t['addr']}: paths could not be read in full")
    import json
    got = json.loads(p.stdout)["inodes"][0]
    why = [x["reason"] for x in got["errors"] if x["field"] == "paths"]
    c.ok("cyclic mount tree: the path walk says why it failed",
         any("mount" in w for w in why), str(got["errors"]))


def case_printk_count_bits(c, tmp, prog):
    e = ElfCopy(tmp)
    e.write(prog, prog["prb"].desc_ring.count_bits.address_,
            struct.pack("<I", 60))
    p = run(["-k", VMLINUX, e.path], timeout=TIMEOUT)
    c.eq("corrupt ring size: exit code", p.returncode, 3)
    c.ok("corrupt ring size: says so", "kernel log ring" in p.stderr and
         "corrupt" in p.stderr, p.stderr)


def case_printk_ids(c, tmp, prog):
    e = ElfCopy(tmp)
    ring = prog["prb"].desc_ring
    e.write(prog, ring.tail_id.address_, struct.pack("<Q", 0x3fffffffffff1234))
    e.write(prog, ring.head_id.address_, struct.pack("<Q", 0x0123456789abcdef))
    p = run(["-k", VMLINUX, "--log", e.path], timeout=TIMEOUT)
    # A log read in part is a partial run (4), never 0.
    c.eq("garbage ring ids: --log exit code", p.returncode, 4)
    c.ok("garbage ring ids: says the ring is corrupt",
         "kernel log ring" in p.stderr and "corrupt" in p.stderr, p.stderr)
    p = run(["-k", VMLINUX, e.path], timeout=TIMEOUT)
    c.eq("garbage ring ids: reports exit code (no report is not clean)",
         p.returncode, 4)
    c.ok("garbage ring ids: reports mode says the ring is corrupt",
         "kernel log ring" in p.stderr and "0 records read" in p.stderr,
         p.stderr)


def case_addresses(c, tmp, prog):
    t, ino = victim(prog)
    dump = os.path.join(D, "d17-zlib.vmcore")
    decode(c, "NULL", dump, ["0"], 3, "not mapped")
    decode(c, "user space", dump, ["0x7fff00001000"], 3, "not mapped")
    decode(c, "unaligned", dump, [hex(ino.value_() + 3)], 3,
           "does not look like a struct inode")
    dentry = drgn.container_of(ino.i_dentry.first, "struct dentry", "d_u.d_alias")
    decode(c, "a dentry", dump, [hex(dentry.value_())], 3,
           "does not look like a struct inode")


# Bytes a terminal would act on: ESC sequences (clear screen, OSC title),
# BEL, CR, a C1 CSI raw and as UTF-8, DEL; then printable UTF-8.
CONTROL = b"\x1b[2J\x1b]0;pwned\x07\r\x9b31m\xc2\x9b\x7f-caf\xc3\xa9"


def no_raw_controls(c, name, out):
    bad = [b for b in (b"\x1b", b"\x07", b"\r", b"\x9b", b"\x7f") if b in out]
    c.ok(f"{name}: no raw control byte reaches the terminal", not bad,
         repr(bad))


def case_link_escapes(c, tmp, prog):
    t, ino = victim(prog)
    e = ElfCopy(tmp)
    e.write(prog, ino.i_link.value_(), b"/tmp/" + CONTROL + b"\0")
    p = run(["-k", VMLINUX, e.path, t["addr"]], text=False, timeout=TIMEOUT)
    no_raw_controls(c, "i_link with escape sequences", p.stdout)
    c.ok("i_link with escape sequences: shown escaped, UTF-8 kept",
         b'"/tmp/\\e[2J\\e]0;pwned\\x07\\r\\x9b31m\\xc2\\x9b\\x7f-caf\xc3\xa9"'
         in p.stdout, p.stdout.decode(errors="replace"))
    import json
    p = run(["-k", VMLINUX, "--json", e.path, t["addr"]], timeout=TIMEOUT,
            errors="surrogateescape")
    got = json.loads(p.stdout)["inodes"][0]["link"]
    c.ok("i_link with escape sequences: JSON keeps the bytes (escaped)",
         "\x1b]0;pwned\x07" in str(got), str(got))


def ring_text(prog):
    rb = prog["prb"].text_data_ring
    size = 1 << rb.size_bits.value_()
    return rb.data.value_(), prog.read(rb.data.value_(), size)


def case_log_escapes(c, tmp, prog):
    data, text = ring_text(prog)
    at = text.find(b"inodedump-trigger: done")
    c.ok("the trigger's last line is in the ring", at >= 0)
    e = ElfCopy(tmp)
    e.write(prog, data + at, b"inodedump-trigger: \x1b]0;x\x07\r\x1b[2J\0")
    p = run(["-k", VMLINUX, "--log", e.path], text=False, timeout=TIMEOUT)
    c.eq("log with escape sequences: exit code", p.returncode, 0)
    no_raw_controls(c, "log with escape sequences", p.stdout)
    c.ok("log with escape sequences: shown escaped",
         b"inodedump-trigger: \\e]0;x\\x07\\r\\e[2J\\x00" in p.stdout,
         p.stdout[-2000:].decode(errors="replace"))


def case_text_ring_moved(c, tmp, prog):
    rb = prog["prb"].text_data_ring
    e = ElfCopy(tmp)
    e.write(prog, rb.data.address_, struct.pack("<Q", rb.data.value_() + 4096))
    for mode, args in (("reports", []), ("--log", ["--log"])):
        p = run(["-k", VMLINUX, *args, e.path], timeout=TIMEOUT)
        c.eq(f"moved text ring, {mode}: exit code (partial)", p.returncode, 4)
        c.ok(f"moved text ring, {mode}: says so",
             "kernel log ring" in p.stderr and "is not where" in p.stderr,
             p.stderr)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        CASES[sys.argv[1]](c, tmp, program())
    c.finish()


if __name__ == "__main__":
    main()
