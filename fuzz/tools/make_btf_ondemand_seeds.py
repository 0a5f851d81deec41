#!/usr/bin/python3
"""Seeds for fuzz_btf_ondemand: a small BTF sorted as recent kernels sort
theirs (anonymous types first, then the named ones by name), the
struct btf object that indexes it (types[id] = address of record id,
nr_types, named_start_id at the offsets the BTF's own struct btf gives)
and the btf_vmlinux pointer to that object, laid out in one image.

Input format (fuzz_btf_ondemand.c): a 16-byte header, the offsets in the
image of btf_vmlinux, __start_BTF and __stop_BTF (u32 each, one spare),
then the image, read at 0xffffffff82000000.

    fuzz/tools/make_btf_ondemand_seeds.py fuzz/corpus/btf_ondemand
"""
import os
import struct
import sys

IMAGE = 0xffffffff82000000
OBJ, INDEX, VAR = 0x2000, 0x3000, 0x4000  # struct btf, its index, btf_vmlinux

INT, PTR, ARRAY, STRUCT, UNION, ENUM, TYPEDEF, CONST = 1, 2, 3, 4, 5, 6, 8, 10


class Strings:
    def __init__(self):
        self.data = b"\0"
        self.at = {"": 0}

    def __call__(self, s):
        if s not in self.at:
            self.at[s] = len(self.data)
            self.data += s.encode() + b"\0"
        return self.at[s]


def build(sort_named=True, enum_values=(0x380000, 0x100000)):
    """Records by id (1..), and the strings; named ids in name order."""
    st = Strings()
    anon = ["ptr_void", "ptr_sb", "union_nlink", "char_array", "const_u32"]
    named = ["btf", "char", "dentry_flags", "inode", "super_block", "u32",
             "umode_t", "unsigned int", "unsigned short"]
    if not sort_named:
        named = named[::-1]
    ids = {n: i + 1 for i, n in enumerate(anon + named)}

    def head(name, kind, vlen, size_or_type, kflag=0):
        return struct.pack("<III", st(name), (kflag << 31) | (kind << 24) | vlen,
                           size_or_type)

    def members(*ms):
        return b"".join(struct.pack("<III", st(n), t, off * 8) for n, t, off in ms)

    rec = {
        "ptr_void": head("", PTR, 0, 0),
        "ptr_sb": head("", PTR, 0, ids["super_block"]),
        "union_nlink": head("", UNION, 2, 4) + members(
            ("i_nlink", ids["const_u32"], 0), ("__i_nlink", ids["unsigned int"], 0)),
        "char_array": head("", ARRAY, 0, 0) + struct.pack(
            "<III", ids["char"], ids["unsigned int"], 32),
        "const_u32": head("", CONST, 0, ids["u32"]),
        "btf": head("btf", STRUCT, 4, 24) + members(
            ("data", ids["ptr_void"], 0), ("types", ids["ptr_void"], 8),
            ("nr_types", ids["u32"], 16), ("named_start_id", ids["u32"], 20)),
        "char": head("char", INT, 0, 1) + struct.pack("<I", 8),
        "dentry_flags": head("dentry_flags", ENUM, 2, 4) + b"".join(
            struct.pack("<Ii", st(n), v) for n, v in
            zip(("DCACHE_ENTRY_TYPE", "DCACHE_DIRECTORY_TYPE"), enum_values)),
        "inode": head("inode", STRUCT, 5, 64) + members(
            ("i_mode", ids["umode_t"], 0), ("i_sb", ids["ptr_sb"], 8),
            ("", ids["union_nlink"], 16), ("i_generation", ids["u32"], 24),
            ("i_name", ids["char_array"], 28)),
        "super_block": head("super_block", STRUCT, 1, 32) + members(
            ("s_id", ids["char_array"], 0)),
        "u32": head("u32", TYPEDEF, 0, ids["unsigned int"]),
        "umode_t": head("umode_t", TYPEDEF, 0, ids["unsigned short"]),
        "unsigned int": head("unsigned int", INT, 0, 4) + struct.pack("<I", 32),
        "unsigned short": head("unsigned short", INT, 0, 2) + struct.pack("<I", 16),
    }
    order = anon + named
    return [rec[n] for n in order], st.data, len(anon) + 1


def image(records, strings, named_start, hdr_len=24, extra=b""):
    types = b"".join(records)
    hdr = struct.pack("<HBBIIIII", 0xeb9f, 1, 0, hdr_len, 0, len(types),
                      len(types), len(strings)) + b"\0" * (hdr_len - 24)
    blob = hdr + types + strings
    img = bytearray(VAR + 8)
    img[:len(blob)] = blob
    # The index: entry 0 void (the kernel's btf_void, elsewhere), then
    # the address of each record.
    off = IMAGE + hdr_len
    entries = [IMAGE + 0x1ff0]
    for r in records:
        entries.append(off)
        off += len(r)
    nr = len(records) + 1
    struct.pack_into("<%dQ" % nr, img, INDEX, *entries)
    # struct btf: data, types, resolved_ids, ... as the BTF's own struct
    # btf has them (data 0, types 8, nr_types 16, named_start_id 20).
    struct.pack_into("<QQII", img, OBJ, IMAGE, IMAGE + INDEX, nr, named_start)
    struct.pack_into("<Q", img, VAR, IMAGE + OBJ)
    head = struct.pack("<IIII", VAR, 0, len(blob), 0)
    return head + bytes(img) + extra


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    recs, strs, named = build()
    seeds = {
        "sorted.img": image(recs, strs, named),
        # 7.3's header is 32 bytes (it has a layout section).
        "hdr32.img": image(recs, strs, named, hdr_len=32),
        # Named types out of order: the kernel's named_start_id says
        # sorted, the lookups must still not go wrong.
        "unsorted.img": image(*build(sort_named=False)),
        # An enum whose enumerators contradict each other.
        "enum-bad.img": image(*build(enum_values=(0x100000, 0x380000))),
    }
    # No usable index (entry 2 wrong, as where a dump left it out): the
    # reader takes the records' offsets itself.
    noindex = bytearray(seeds["sorted.img"])
    at = 16 + INDEX + 16
    struct.pack_into("<Q", noindex, at, struct.unpack_from("<Q", noindex, at)[0] + 4)
    seeds["noindex.img"] = bytes(noindex)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
