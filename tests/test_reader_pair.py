"""QEMU's arm64 kdump-zlib (64 KiB blocks for a 4 KiB-page kernel) read by
our diskdump reader (tests/test_reader_pair.c), against an independent
reading of the same file here (the flattened records put in place, the
header, bitmaps and page descriptors read and each block inflated with
Python's zlib): every kernel page's CRC-32. Its translations against QEMU's
ELF dump of the same guest, which libkdumpfile reads (test_reader.py
checks that one against it); the guest ran on between the two dumps, so
their bytes are not compared. libkdumpfile 0.5.1 cannot read the kdump-zlib
at all ("Out-of-bounds PFN").

    test_reader_pair.py SET READER_PAIR_BINARY [KDUMP_FILE]

KDUMP_FILE: qemu-kdump-zlib.flat (flattened, the default) or a diskdump
as it is (QEMU 11's kdump-raw-zlib).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import read_truth, set_dir  # noqa: E402


def unflatten(path):
    """makedumpfile's flattened format: (offset, size) records, big-endian."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == b"KDUMP   ":
        return data  # a diskdump as it is
    if data[:12] != b"makedumpfile":
        raise SystemExit(f"FAIL {path}: not flattened")
    out = bytearray()
    pos = 4096
    while pos + 16 <= len(data):
        off, size = struct.unpack(">qq", data[pos:pos + 16])
        pos += 16
        if off == -1:
            break
        if len(out) < off + size:
            out.extend(bytes(off + size - len(out)))
        out[off:off + size] = data[pos:pos + size]
        pos += size
    return bytes(out)


def kernel_pages(dump, kpage):
    """(kernel pfn, CRC-32) of every page the diskdump holds."""
    if dump[:8] != b"KDUMP   ":
        raise SystemExit("FAIL not a diskdump")
    block, sub_blocks, bitmap_blocks = struct.unpack_from("<iii", dump, 428)
    max_pfn = struct.unpack_from("<Q", dump, block + 96)[0]
    bitmap = block * (1 + sub_blocks)
    bitmap2 = bitmap + bitmap_blocks // 2 * block
    desc = bitmap + bitmap_blocks * block
    per = block // kpage
    n = 0
    for pfn in range(max_pfn):
        if not dump[bitmap2 + pfn // 8] >> (pfn % 8) & 1:
            continue
        off, size, flags = struct.unpack_from("<QII", dump, desc + 24 * n)
        n += 1
        raw = dump[off:off + size]
        page = zlib.decompress(raw) if flags & 1 else raw
        if len(page) != block:
            raise SystemExit(f"FAIL block {pfn}: {len(page)} bytes")
        for i in range(per):
            yield pfn * per + i, zlib.crc32(page[i * kpage:(i + 1) * kpage])


def main():
    set_name, binary = sys.argv[1:3]
    name = sys.argv[3] if len(sys.argv) > 3 else "qemu-kdump-zlib.flat"
    d = set_dir(set_name)
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = sorted({t["addr"] for t in truth} |
                   {t["sb"] for t in truth if t.get("sb")})
    kdump = os.path.join(d, name)
    dump = unflatten(kdump)
    block = struct.unpack_from("<i", dump, 428)[0]
    i = dump.index(b"PAGESIZE=") + len(b"PAGESIZE=")  # VMCOREINFO's
    kpage = int(dump[i:dump.index(b"\n", i)])
    with tempfile.NamedTemporaryFile("w", suffix=".crc") as crcs:
        npages = 0
        crcs.write(f"pagesize {kpage}\n")
        for pfn, crc in kernel_pages(dump, kpage):
            crcs.write(f"{pfn:x} {crc:08x}\n")
            npages += 1
        crcs.flush()
        r = subprocess.run([binary, kdump,
                            os.path.join(d, "elf-nopaging.vmcore"),
                            crcs.name] + addrs,
                           capture_output=True, text=True, timeout=280)
    sys.stdout.write(r.stdout[-20000:])
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        raise SystemExit(f"FAIL test_reader_pair exit {r.returncode}")
    if not r.stdout.strip().splitlines()[-1].startswith("ok "):
        raise SystemExit("FAIL no ok line")
    print(f"ok {set_name} {name}: block size {block}, {npages} kernel pages of "
          f"{kpage} bytes, "
          f"{len(addrs)} truth addresses")


if __name__ == "__main__":
    main()
