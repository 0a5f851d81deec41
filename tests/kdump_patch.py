"""QEMU's flattened kdump assembled and one page of its memory replaced,
for the bad-input cases of tests/test_s390x.py: the page's new bytes
compressed with zlib and appended, its descriptor pointed at them. The
format's offsets are makedumpfile's (diskdump_mod.h), the header's order
the file's own (s390x: big-endian).

    assemble(flat) -> bytearray         the diskdump file the records make
    page(dump, pfn) -> bytes            a page's memory
    replace(dump, pfn, data)            that page's memory becomes data
"""
import struct
import zlib

FLAT_HEADER = 4096


def assemble(path):
    out = bytearray()
    with open(path, "rb") as f:
        f.seek(FLAT_HEADER)
        while True:
            off, size = struct.unpack(">qq", f.read(16))
            if off == -1:
                return out
            data = f.read(size)
            if len(out) < off + size:
                out.extend(bytes(off + size - len(out)))
            out[off:off + size] = data


def _layout(d):
    # the header's version (6 and up) read in either order
    order = ">" if struct.unpack(">i", d[8:12])[0] < 0x10000 else "<"
    block, sub_blocks, bitmap_blocks = struct.unpack(
        order + "iii", d[12 + 390 + 6 + 16 + 4:12 + 390 + 6 + 16 + 16])
    bitmap2 = block * (1 + sub_blocks) + bitmap_blocks // 2 * block
    descs = block * (1 + sub_blocks) + bitmap_blocks * block
    return order, block, bitmap2, descs


def _desc_at(d, pfn):
    order, block, bitmap2, descs = _layout(d)
    bits = d[bitmap2:bitmap2 + pfn // 8 + 1]
    if not bits[pfn // 8] >> (pfn % 8) & 1:
        raise ValueError(f"pfn {pfn:#x} is not in the dump")
    index = sum(bin(b).count("1") for b in bits[:pfn // 8]) + \
        bin(bits[pfn // 8] & ((1 << (pfn % 8)) - 1)).count("1")
    return order, block, descs + 24 * index


def page(d, pfn):
    order, block, at = _desc_at(d, pfn)
    off, size, flags = struct.unpack(order + "qII", d[at:at + 16])
    data = bytes(d[off:off + size])
    return zlib.decompress(data) if flags & 1 else data


def replace(d, pfn, data):
    order, block, at = _desc_at(d, pfn)
    assert len(data) == block
    packed = zlib.compress(bytes(data))
    off = len(d)
    d.extend(packed)
    d[at:at + 16] = struct.pack(order + "qII", off, len(packed), 1)
