#!/usr/bin/python3
"""No silent answers from a damaged dump header (issue 41, item 3):
mutants of the committed fixture (a real 7.3 diskdump written by
makedumpfile -d 17 -c) whose header says what the rest of the file
contradicts. On main each was echoed by --info as a fact, exit 0. Each
must now end partial (exit 4) with one stderr line naming the damage, in
--info and in a decode, and change nothing else of the decode's answer.

usage: test_honest_headers.py CASE
  dump_level     the sub-header's dump_level 17 -> 65 (makedumpfile's
                 levels are 0..31)
  compression    the header's status loses its zlib bit, its pages are
                 still zlib (each page descriptor's flags say so)
  utsname        the header's utsname zeroed (makedumpfile copies the
                 kernel's, QEMU fills the machine)
  eraseinfo      the sub-header's size_eraseinfo -1: past the end of the
                 file

Where each field is: makedumpfile's diskdump_mod.h (struct
disk_dump_header, then struct kdump_sub_header at block_size) — the
file format's layout, not a kernel's; what the unmutated values are is
checked from the file itself before the change.
"""
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir  # noqa: E402

D = set_dir("committed")
DUMP = os.path.join(D, "d17-zlib.vmcore")
VMLINUX = os.path.join(D, "vmlinux")
TRUTH = read_truth(os.path.join(D, "truth.txt"))
# disk_dump_header (makedumpfile diskdump_mod.h)
UTSNAME, UTS_LEN, STATUS, BLOCK_SIZE = 12, 65 * 6, 424, 428
DUMP_DH_COMPRESSED_ZLIB = 0x1
# kdump_sub_header, at block_size
SUB_DUMP_LEVEL, SUB_SIZE_ERASEINFO = 8, 72


def dump_level(data, c):
    bs = struct.unpack_from("<i", data, BLOCK_SIZE)[0]
    c.eq("the unmutated dump level (makedumpfile -d 17)",
         struct.unpack_from("<i", data, bs + SUB_DUMP_LEVEL)[0], 17)
    struct.pack_into("<i", data, bs + SUB_DUMP_LEVEL, 65)
    return "dump level 65"


def compression(data, c):
    status = struct.unpack_from("<I", data, STATUS)[0]
    c.ok("the unmutated status says zlib", status & DUMP_DH_COMPRESSED_ZLIB)
    struct.pack_into("<I", data, STATUS, status & ~DUMP_DH_COMPRESSED_ZLIB)
    return "compression"


def utsname(data, c):
    uts = bytes(data[UTSNAME:UTSNAME + UTS_LEN])
    c.ok("the unmutated utsname names Linux", uts.startswith(b"Linux\0"))
    data[UTSNAME:UTSNAME + UTS_LEN] = bytes(UTS_LEN)
    return "utsname empty"


def eraseinfo(data, c):
    bs = struct.unpack_from("<i", data, BLOCK_SIZE)[0]
    c.eq("the unmutated dump has no erase information",
         struct.unpack_from("<q", data, bs + SUB_SIZE_ERASEINFO)[0], 0)
    struct.pack_into("<q", data, bs + SUB_SIZE_ERASEINFO, -1)
    return "erase information"


CASES = {"dump_level": dump_level, "compression": compression,
         "utsname": utsname, "eraseinfo": eraseinfo}


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in CASES:
        raise SystemExit(__doc__)
    c = Checker()
    addrs = [t["addr"] for t in TRUTH if t["role"] in
             ("victim_symlink", "victim_ext4", "bug_badmode")]
    with tempfile.TemporaryDirectory(prefix="honest-hdr-") as tmp:
        data = bytearray(open(DUMP, "rb").read())
        word = CASES[case](data, c)
        path = os.path.join(tmp, case + ".vmcore")
        with open(path, "wb") as f:
            f.write(data)
        good = run(["-k", VMLINUX, "--info", DUMP])
        c.ok("the unmutated --info: exit 0, nothing said",
             good.returncode == 0 and not good.stderr.strip(), good.stderr)
        bad = run(["-k", VMLINUX, "--info", path])
        c.eq(f"{case}: --info exits 4", bad.returncode, 4)
        said = [ln for ln in bad.stderr.splitlines() if word in ln]
        c.eq(f"{case}: --info says it on one stderr line ({word!r})",
             len(said), 1)
        c.ok(f"{case}: and only that", len(bad.stderr.splitlines()) == 1,
             bad.stderr)
        good = run(["-k", VMLINUX, "--json", DUMP, *addrs])
        bad = run(["-k", VMLINUX, "--json", path, *addrs])
        c.eq(f"{case}: the unmutated decode finds its violations (exit 1)",
             good.returncode, 1)
        c.eq(f"{case}: the decode exits 4", bad.returncode, 4)
        c.ok(f"{case}: the decode says it on stderr",
             any(word in ln for ln in bad.stderr.splitlines()), bad.stderr)
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
