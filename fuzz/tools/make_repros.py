#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Hand-minimized reproducers for the fuzz findings, written as memory images
for the fuzz targets (format: extract_seeds.py). Each is the smallest input
that shows its bug; see fuzz/README.md.

Every address and offset is read with drgn from the committed fixture
(tests/vmcores/committed/{d17-zlib.vmcore,vmlinux}), with its KASLR offset
applied as the fuzz session relocates them. The 7.3 fixture needs drgn 0.3.0
(the sid chroot of tests/vmcores/recipes/stock73.sh; Debian 12's 0.0.22 cannot read
it), e.g. with the worktree bound at /src:

    /usr/bin/python3 /src/fuzz/tools/make_repros.py
"""
import os
import struct

import drgn

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
COMMITTED = os.path.join(ROOT, "tests/vmcores/committed")
MAGIC = b"IDDIMG1\n"


def program():
    p = drgn.Program()
    p.set_core_dump(os.path.join(COMMITTED, "d17-zlib.vmcore"))
    p.load_debug_info([os.path.join(COMMITTED, "vmlinux")])
    return p


P = program()
START = P.symbol("__start_BTF").address
STOP = P.symbol("__stop_BTF").address
SIZE = STOP - START


def off(t, m):
    return drgn.offsetof(P.type(t), m)


def has(t, m):
    try:
        off(t, m)
        return True
    except LookupError:
        return False


def truth_addr(role):
    with open(os.path.join(COMMITTED, "truth.txt")) as f:
        for line in f:
            kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
            if kv.get("role") == role:
                return int(kv["addr"], 16)
    raise SystemExit(f"no {role} in truth.txt")


VICTIM = truth_addr("victim_symlink")

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
    from drgn.helpers.linux.pid import find_task
    p = P
    init = find_task(p, 1)
    f_inode = (init.files.fdt.fd[3].value_() +
               drgn.offsetof(p.type("struct file"), "f_inode"))
    recs = []
    for start, size, body in read_image(
            os.path.join(HERE, "corpus/decode/victim_symlink.img")):
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
    write_image(os.path.join(out, "decode-holders-leak.img"), recs)
    print("f_inode at", hex(f_inode))


def holders_cycle(out, nfds=2048):
    """
    5. lib/holders.c walk(): the task list is bounded by count (MAX_TASKS
    65536) but not checked for a cycle, and each task by MAX_FDS (65536)
    alone: a task whose tasks.next points to itself is walked 65536 times
    and its open files added each time. Here: init_task -> T -> T -> ...,
    T has nfds open files, all of the decoded inode: 65536 * nfds holders,
    each added by a realloc() of one more element (hang, then OOM).
    """
    KTEXT = P.symbol("init_task").address
    ts = "struct task_struct"
    TASKS, PID, COMM = off(ts, "tasks"), off(ts, "pid"), off(ts, "comm")
    FILES, FS = off(ts, "files"), off(ts, "fs")
    FDT = off("struct files_struct", "fdt")
    MAX_FDS, FD = off("struct fdtable", "max_fds"), off("struct fdtable", "fd")
    F_INODE = off("struct file", "f_inode")
    victim = VICTIM
    src = os.path.join(HERE, "corpus/decode/victim_symlink.img")
    data = open(src, "rb").read()
    T, F, D, A, FILE = (0xFFFF888000100000 + i * 0x10000 for i in range(5))
    task = bytearray(drgn.sizeof(P.type(ts)))
    struct.pack_into("<Q", task, TASKS, T + TASKS)       # tasks.next: itself
    struct.pack_into("<i", task, PID, 4242)
    task[COMM:COMM + 6] = b"cycle\0"
    struct.pack_into("<Q", task, FS, 0)                   # no fs
    struct.pack_into("<Q", task, FILES, F)                # files
    files = struct.pack("<Q", D).rjust(FDT + 8, b"\0")
    fdt = bytearray(max(MAX_FDS + 4, FD + 8))
    struct.pack_into("<I", fdt, MAX_FDS, nfds)
    struct.pack_into("<Q", fdt, FD, A)
    fdt = bytes(fdt)
    fds = struct.pack("<Q", FILE) * nfds
    filp = bytes(F_INODE) + struct.pack("<Q", victim)
    recs = [(T, bytes(task)), (F, files), (D, fdt), (A, fds), (FILE, filp),
            (KTEXT + TASKS, struct.pack("<Q", T + TASKS))]
    # The victim's records first (the first one is the inode decoded),
    # then these, without the seed's init_task.tasks.next.
    write_over(os.path.join(out, "decode-holders-task-cycle.img"), data,
               KTEXT + TASKS, recs)


def paths_cycles(out):
    """
    6. lib/paths.c: three walks each bounded by count alone, nested:
    MAX_ALIASES (64) aliases x MAX_MOUNTS (256) mounts x MAX_DEPTH (512)
    dentries. An alias list, an s_mounts list and a d_parent chain that
    each loop back (A -> A, M -> M, A -> B -> A) make one decode read
    64 * 256 * 512 = 8.4 M dentries before giving up.
    """
    p = P
    victim = VICTIM
    sb = drgn.Object(P, "struct inode", address=victim).i_sb.value_()
    # d_alias in d_u up to 7.0, in an anonymous union since 7.1; s_mounts
    # a list through mnt_instance up to 7.0, a struct mount * chain through
    # mnt_next_for_sb since 7.1.
    alias = "d_alias" if has("struct dentry", "d_alias") else "d_u.d_alias"
    chained = has("struct mount", "mnt_next_for_sb")
    A, B, M = 0xFFFF888000200000, 0xFFFF888000210000, 0xFFFF888000220000
    dsz = drgn.sizeof(p.type("struct dentry"))
    msz = drgn.sizeof(p.type("struct mount"))

    # The inline name: d_iname, d_shortname (6.14+).
    iname = "d_iname" if has("struct dentry", "d_iname") else "d_shortname"

    def dentry(addr, parent, name):
        d = bytearray(dsz)
        struct.pack_into("<Q", d, off("struct dentry", "d_parent"), parent)
        struct.pack_into("<I", d, off("struct dentry", "d_name.len"), 1)
        struct.pack_into("<Q", d, off("struct dentry", "d_name.name"),
                         addr + off("struct dentry", iname))
        d[off("struct dentry", iname)] = ord(name)
        struct.pack_into("<Q", d, off("struct dentry", "d_hash.pprev"), 1)
        struct.pack_into("<Q", d, off("struct dentry", alias + ".next"),
                         addr + off("struct dentry", alias))
        return bytes(d)

    mnt = bytearray(msz)
    if chained:                       # M.mnt_next_for_sb = M
        inst = M
        struct.pack_into("<Q", mnt, off("struct mount", "mnt_next_for_sb"),
                         M)
    else:                             # M.mnt_instance.next = itself
        inst = M + off("struct mount", "mnt_instance")
        struct.pack_into("<Q", mnt, off("struct mount", "mnt_instance.next"),
                         inst)
    struct.pack_into("<Q", mnt, off("struct mount", "mnt_parent"), M)
    struct.pack_into("<Q", mnt, off("struct mount", "mnt.mnt_root"), 1)
    src = os.path.join(HERE, "corpus/decode/victim_symlink.img")
    data = open(src, "rb").read()
    start, size, flags = struct.unpack_from("<QII", data, 8)
    inode = bytearray(data[24:24 + size])
    struct.pack_into("<Q", inode, off("struct inode", "i_dentry.first"),
                     A + off("struct dentry", alias))
    s_mounts = "s_mounts" if chained else "s_mounts.next"
    over = [(start, bytes(inode)),
            (sb + off("struct super_block", s_mounts),
             struct.pack("<Q", inst)),
            (A, dentry(A, B, "a")), (B, dentry(B, A, "b")), (M, bytes(mnt))]
    path = os.path.join(out, "decode-paths-cycles-slow.img")
    with open(path, "wb") as f:
        f.write(MAGIC)
        for a, body in over:
            f.write(struct.pack("<QII", a, len(body), 0) + body)
        f.write(data[24 + size:])
    print(path, os.path.getsize(path))


def json_holders_cycle(out):
    """
    The json fuzzer's own cycle (finding 5, its found/ artifact was a
    mutated image of the 6.12 fixture): init_task -> T -> T -> ..., T with
    a cwd and a root (dentry D, whose d_inode is the decoded inode) and no
    open files: 65536 walks of T, 131072 holders, each added by a realloc()
    of one more element before the fix (31 s with ASan).
    """
    KTEXT = P.symbol("init_task").address
    ts = "struct task_struct"
    TASKS, PID, COMM = off(ts, "tasks"), off(ts, "pid"), off(ts, "comm")
    FILES, FS = off(ts, "files"), off(ts, "fs")
    PWD = off("struct fs_struct", "pwd.dentry")
    ROOT_D = off("struct fs_struct", "root.dentry")
    D_INODE = off("struct dentry", "d_inode")
    src = os.path.join(HERE, "corpus/json/victim_symlink.img")
    data = open(src, "rb").read()
    T, FSA, D = (0xFFFF888000300000 + i * 0x10000 for i in range(3))
    task = bytearray(drgn.sizeof(P.type(ts)))
    struct.pack_into("<Q", task, TASKS, T + TASKS)       # tasks.next: itself
    struct.pack_into("<i", task, PID, 4243)
    task[COMM:COMM + 6] = b"cycle\0"
    struct.pack_into("<Q", task, FS, FSA)
    struct.pack_into("<Q", task, FILES, 0)
    fs = bytearray(max(PWD, ROOT_D) + 8)
    struct.pack_into("<Q", fs, PWD, D)
    struct.pack_into("<Q", fs, ROOT_D, D)
    dentry = struct.pack("<Q", VICTIM).rjust(D_INODE + 8, b"\0")
    recs = [(T, bytes(task)), (FSA, bytes(fs)), (D, dentry),
            (KTEXT + TASKS, struct.pack("<Q", T + TASKS))]
    path = os.path.join(out, "json-holders-task-cycle.img")
    write_over(path, data, KTEXT + TASKS, recs)


def write_over(path, data, drop, recs):
    """The seed image data, without the record (other than the first)
    holding address drop, then recs: read_memory() takes the first region
    holding an address."""
    with open(path, "wb") as f:
        pos, first = 8, True
        f.write(MAGIC)
        while pos + 16 <= len(data):
            start, size, flags = struct.unpack_from("<QII", data, pos)
            rec = data[pos:pos + 16 + (0 if flags & 1 else size)]
            pos += len(rec)
            if start <= drop < start + size and not first:
                continue
            first = False
            f.write(rec)
        for start, body in recs:
            f.write(struct.pack("<QII", start, len(body), 0) + body)
    print(path, os.path.getsize(path))


# Where the fuzzers' own artifacts (crashes/found/) were found: the 6.12
# committed fixture (KASLR 0x2b800000). relocate_found() moves them once
# to this fixture's addresses; a file already moved is left alone.
OLD_START, OLD_STOP = 0xFFFFFFFFACF274EC, 0xFFFFFFFFAD0A08E7
OLD_RB = 0xFFFFFFFFAD223A60   # printk_rb_static


def read_image(path):
    data = open(path, "rb").read()
    pos, recs = 8, []
    while pos + 16 <= len(data):
        start, size, flags = struct.unpack_from("<QII", data, pos)
        pos += 16
        body = None if flags & 1 else data[pos:pos + size]
        pos += 0 if flags & 1 else size
        recs.append([start, size, body])
    return recs


def write_image(path, recs):
    with open(path, "wb") as f:
        f.write(MAGIC)
        for start, size, body in recs:
            f.write(struct.pack("<QII", start, size, 1 if body is None else 0))
            if body is not None:
                f.write(body)
    print(path, os.path.getsize(path))


def relocate_found(out):
    """
    The BTF artifacts: a header at __start_BTF, zeros, the types and
    strings ending the section (their offsets in the header move with the
    section's size). The printk artifact: prb, printk_rb_static and the
    arrays it laid out in the kernel image, moved with printk_rb_static
    (every record and pointer inside the old image's range).
    """
    delta = SIZE - (OLD_STOP - OLD_START)
    for name in ("btf-member-walk.img", "btf-strlen-past-section.img"):
        path = os.path.join(out, name)
        recs = read_image(path)
        if recs[0][0] != OLD_START:
            continue
        hdr = bytearray(recs[0][2])
        for o in (8, 16):  # type_off, str_off
            struct.pack_into("<I", hdr, o,
                             struct.unpack_from("<I", hdr, o)[0] + delta)
        recs[0][0], recs[0][2] = START, bytes(hdr)
        recs[1][0], recs[1][1] = START + 24, recs[1][1] + delta
        recs[2][0] = STOP - recs[2][1]
        write_image(path, recs)
    path = os.path.join(out, "printk-size-bits-31-2g-malloc.img")
    recs = read_image(path)
    if recs[0][0] == P.symbol("prb").address:
        return
    rb = P.symbol("printk_rb_static").address
    lo, hi = OLD_RB - (1 << 20), OLD_RB + (1 << 20)

    def move(v):
        return v - OLD_RB + rb if lo <= v < hi else v
    recs[0][0] = P.symbol("prb").address
    for r in recs:
        r[0] = move(r[0])
        if r[2] is not None:
            b = bytearray(r[2])
            for i in range(0, len(b) - 7, 8):
                v = struct.unpack_from("<Q", b, i)[0]
                struct.pack_into("<Q", b, i, move(v))
            r[2] = bytes(b)
    write_image(path, recs)


if __name__ == "__main__":
    main()
    json_holders_cycle(os.path.join(HERE, "crashes"))
    relocate_found(os.path.join(HERE, "crashes/found"))
    holders_leak(os.path.join(HERE, "crashes"))
    holders_cycle(os.path.join(HERE, "crashes"))
    paths_cycles(os.path.join(HERE, "crashes"))
