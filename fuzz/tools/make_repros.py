#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Hand-minimized reproducers for the fuzz findings in lib/btf.c, written as
memory images for build-fuzz/fuzz/fuzz_btf (format: extract_seeds.py).
Each is the smallest BTF that shows its bug; see fuzz/README.md.

    /usr/bin/python3 fuzz/tools/make_repros.py

Addresses are the committed fixture's __start_BTF/__stop_BTF with its
KASLR offset (0x2b800000), as the fuzz session relocates them.
"""
import os
import struct

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KASLR = 0x2B800000
START = 0xFFFFFFFF817274EC + KASLR  # __start_BTF
STOP = 0xFFFFFFFF818A08E7 + KASLR   # __stop_BTF
SIZE = STOP - START
MAGIC = b"IDDIMG1\n"

KIND = dict(INT=1, PTR=2, STRUCT=4, UNION=5, FWD=7, TYPEDEF=8)


def typ(name_off, kind, vlen, size_or_type, extra=b""):
    return struct.pack("<III", name_off, (KIND[kind] << 24) | vlen,
                       size_or_type) + extra


def member(name_off, type_id, bit_off):
    return struct.pack("<III", name_off, type_id, bit_off)


def header(type_off, type_len, str_off, str_len):
    return struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, type_off, type_len,
                       str_off, str_len)


def image(path, pieces):
    """pieces: (offset in the BTF section, bytes); zeros elsewhere."""
    recs = []
    at = 0
    for off, data in sorted(pieces):
        if off > at:
            recs.append((START + at, off - at, None))
        recs.append((START + off, len(data), data))
        at = off + len(data)
    if at < SIZE:
        recs.append((START + at, SIZE - at, None))
    with open(path, "wb") as f:
        f.write(MAGIC)
        for start, size, data in recs:
            f.write(struct.pack("<QII", start, size, 0 if data else 1))
            if data:
                f.write(data)
    print(path, os.path.getsize(path))


def main():
    out = os.path.join(HERE, "crashes")
    os.makedirs(out, exist_ok=True)

    # 1. A string not NUL-terminated at the end of the section: str() only
    #    checks that the offset is inside the string table, then
    #    strcmp()/strlen() run past the malloc'd copy of the section.
    strings = b"\0mount"  # "mount" is the section's last 5 bytes
    types = typ(1, "STRUCT", 0, 8)
    image(os.path.join(out, "btf-unterminated-string.img"), [
        (0, header(0, len(types), SIZE - 24 - len(strings), len(strings))),
        (24, types),
        (SIZE - len(strings), strings)])

    # 2. find_member() walks the "members" of whatever type an anonymous
    #    member has: an anonymous member of PTR type whose info carries
    #    vlen 0xffff (extra() gives PTR no trailing data, so btf_parse()
    #    accepts it in 12 bytes) makes it read 0xffff * 12 bytes from there,
    #    past the end of the section. The PTR is the section's last type.
    strings = b"\0mount\0"
    mount = typ(1, "STRUCT", 1, 8, member(0, 2, 0))   # [1] anonymous -> [2]
    ptr = typ(0, "PTR", 0xFFFF, 1)                    # [2] PTR, vlen 0xffff
    types = mount + ptr
    image(os.path.join(out, "btf-member-walk-non-struct.img"), [
        (0, header(SIZE - 24 - len(types), len(types), 0, len(strings))),
        (24, strings),
        (SIZE - len(types), types)])

    # 3. Exponential search: find_member() recurses into every anonymous
    #    member (twice when it matches) up to depth 8, with no bound on the
    #    work. struct mount with 40 anonymous members of its own type and
    #    no named one costs 40^9 calls: the path walk never ends.
    strings = b"\0mount\0"
    n = 40
    mount = typ(1, "STRUCT", n, 8, b"".join(member(0, 1, 0)
                                           for _ in range(n)))
    image(os.path.join(out, "btf-anonymous-recursion-hang.img"), [
        (0, header(0, len(mount), len(mount), len(strings))),
        (24, mount), (24 + len(mount), strings)])


def holders_leak(out):
    """
    4. lib/holders.c task_holds(): `!rd(...) && ...` drops rd()'s error
    without freeing it (pwd/root dentry, their d_inode, every fd's
    f_inode). The real victim_symlink image with the 8 bytes of one open
    file's f_inode left out: that read fails, and its error leaks.
    """
    import drgn
    from drgn.helpers.linux.pid import find_task
    root = os.path.dirname(HERE)
    p = drgn.Program()
    p.set_core_dump(os.path.join(root, "tests/vmcores/committed/d17-zlib.vmcore"))
    p.load_debug_info([os.path.join(root, "tests/vmcores/committed/vmlinux")])
    init = find_task(p, 1)
    f_inode = (init.files.fdt.fd[3].value_() +
               drgn.offsetof(p.type("struct file"), "f_inode"))
    src = os.path.join(HERE, "corpus/decode/victim_symlink.img")
    data = open(src, "rb").read()
    pos, recs = 8, []
    while pos + 16 <= len(data):
        start, size, flags = struct.unpack_from("<QII", data, pos)
        pos += 16
        body = None if flags & 1 else data[pos:pos + size]
        pos += 0 if flags & 1 else size
        if start <= f_inode < start + size:
            # Keep the rest of the record, without those 8 bytes.
            cut = f_inode - start
            if cut:
                recs.append((start, cut, body[:cut] if body else None))
            if cut + 8 < size:
                recs.append((f_inode + 8, size - cut - 8,
                             body[cut + 8:] if body else None))
            continue
        recs.append((start, size, body))
    path = os.path.join(out, "decode-holders-leak.img")
    with open(path, "wb") as f:
        f.write(MAGIC)
        for start, size, body in recs:
            f.write(struct.pack("<QII", start, size, 0 if body else 1))
            if body:
                f.write(body)
    print(path, os.path.getsize(path), "f_inode at", hex(f_inode))


def holders_cycle(out, nfds=2048):
    """
    5. lib/holders.c walk(): the task list is bounded by count (MAX_TASKS
    65536) but not checked for a cycle, and each task by MAX_FDS (65536)
    alone: a task whose tasks.next points to itself is walked 65536 times
    and its open files added each time. Here: init_task -> T -> T -> ...,
    T has nfds open files, all of the decoded inode: 65536 * nfds holders,
    each added by a realloc() of one more element (hang, then OOM).
    """
    KTEXT = 0xFFFFFFFFAD20A540  # init_task (KASLR applied)
    TASKS, PID, COMM, FILES, FS = 816, 1024, 1360, 1392, 1384
    FDT, MAX_FDS, FD, F_INODE = 32, 0, 8, 40
    victim = 0xFF1D10F6C0308070
    src = os.path.join(HERE, "corpus/decode/victim_symlink.img")
    data = open(src, "rb").read()
    T, F, D, A, FILE = (0xFFFF888000100000 + i * 0x10000 for i in range(5))
    task = bytearray(2048)
    struct.pack_into("<Q", task, TASKS, T + TASKS)       # tasks.next: itself
    struct.pack_into("<i", task, PID, 4242)
    task[COMM:COMM + 6] = b"cycle\0"
    struct.pack_into("<QQ", task, FS, 0, F)               # fs, files
    files = struct.pack("<Q", D).rjust(FDT + 8, b"\0")
    fdt = struct.pack("<IIQ", nfds, 0, A)
    fds = struct.pack("<Q", FILE) * nfds
    filp = bytes(F_INODE) + struct.pack("<Q", victim)
    recs = [(T, bytes(task)), (F, files), (D, fdt), (A, fds), (FILE, filp),
            (KTEXT + TASKS, struct.pack("<Q", T + TASKS))]
    path = os.path.join(out, "decode-holders-task-cycle.img")
    with open(path, "wb") as f:
        # The victim's records first (the first one is the inode decoded),
        # then these: read_memory() takes the first region holding an
        # address, so init_task.tasks.next must not be in the seed.
        pos, first = 8, True
        f.write(MAGIC)
        while pos + 16 <= len(data):
            start, size, flags = struct.unpack_from("<QII", data, pos)
            rec = data[pos:pos + 16 + (0 if flags & 1 else size)]
            pos += len(rec)
            if start <= KTEXT + TASKS < start + size and not first:
                continue  # init_task's tasks: replaced below
            first = False
            f.write(rec)
        for start, body in recs:
            f.write(struct.pack("<QII", start, len(body), 0) + body)
    print(path, os.path.getsize(path))


def paths_cycles(out):
    """
    6. lib/paths.c: three walks each bounded by count alone, nested:
    MAX_ALIASES (64) aliases x MAX_MOUNTS (256) mounts x MAX_DEPTH (512)
    dentries. An alias list, an s_mounts list and a d_parent chain that
    each loop back (A -> A, M -> M, A -> B -> A) make one decode read
    64 * 256 * 512 = 8.4 M dentries before giving up.
    """
    import drgn
    root = os.path.dirname(HERE)
    p = drgn.Program()
    p.set_core_dump(os.path.join(root, "tests/vmcores/committed/d17-zlib.vmcore"))
    p.load_debug_info([os.path.join(root, "tests/vmcores/committed/vmlinux")])

    def off(t, m):
        return drgn.offsetof(p.type(t), m)

    victim = 0xFF1D10F6C0308070
    sb = 0xFF1D10F6C08CD800
    A, B, M = 0xFFFF888000200000, 0xFFFF888000210000, 0xFFFF888000220000
    dsz = drgn.sizeof(p.type("struct dentry"))
    msz = drgn.sizeof(p.type("struct mount"))

    def dentry(addr, parent, name):
        d = bytearray(dsz)
        struct.pack_into("<Q", d, off("struct dentry", "d_parent"), parent)
        struct.pack_into("<I", d, off("struct dentry", "d_name.len"), 1)
        struct.pack_into("<Q", d, off("struct dentry", "d_name.name"),
                         addr + off("struct dentry", "d_iname"))
        d[off("struct dentry", "d_iname")] = ord(name)
        struct.pack_into("<Q", d, off("struct dentry", "d_hash.pprev"), 1)
        alias = addr + off("struct dentry", "d_u.d_alias")
        struct.pack_into("<Q", d, off("struct dentry", "d_u.d_alias.next"),
                         alias)
        return bytes(d)

    mnt = bytearray(msz)
    inst = M + off("struct mount", "mnt_instance")
    struct.pack_into("<Q", mnt, off("struct mount", "mnt_instance.next"), inst)
    struct.pack_into("<Q", mnt, off("struct mount", "mnt_parent"), M)
    struct.pack_into("<Q", mnt, off("struct mount", "mnt.mnt_root"), 1)
    src = os.path.join(HERE, "corpus/decode/victim_symlink.img")
    data = open(src, "rb").read()
    start, size, flags = struct.unpack_from("<QII", data, 8)
    inode = bytearray(data[24:24 + size])
    struct.pack_into("<Q", inode, off("struct inode", "i_dentry.first"),
                     A + off("struct dentry", "d_u.d_alias"))
    over = [(start, bytes(inode)),
            (sb + off("struct super_block", "s_mounts.next"),
             struct.pack("<Q", inst)),
            (A, dentry(A, B, "a")), (B, dentry(B, A, "b")), (M, bytes(mnt))]
    path = os.path.join(out, "decode-paths-cycles-slow.img")
    with open(path, "wb") as f:
        f.write(MAGIC)
        for a, body in over:
            f.write(struct.pack("<QII", a, len(body), 0) + body)
        f.write(data[24 + size:])
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
    holders_leak(os.path.join(HERE, "crashes"))
    holders_cycle(os.path.join(HERE, "crashes"))
    paths_cycles(os.path.join(HERE, "crashes"))
