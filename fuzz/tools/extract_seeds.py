#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""
Extract the fuzzers' seed inputs from the committed fixture with drgn.

    /usr/bin/python3 fuzz/tools/extract_seeds.py [FIXTURE_DIR] [QEMU_FLAT]

FIXTURE_DIR defaults to tests/vmcores/committed (d17-zlib.vmcore, vmlinux,
truth.txt, reports.txt). QEMU_FLAT, if given, is a QEMU kdump-zlib
(flattened) dump of the same fixture set (make-fixtures.sh caches one as
~/.cache/inodedump/fixtures-patched-*/qemu-kdump-zlib.flat); the flattened
seeds are cut from its first records. Without it they are built from the
committed dump's header.

It writes (paths relative to fuzz/):

  data/vmcoreinfo.txt         the dump's VMCOREINFO (the sessions' own)
  corpus/printk/*.img         the printk ring: prb, struct printk_ringbuffer,
                              descriptors, infos, text data ring
  corpus/decode/*.img         one image per truth inode: the inode, its
                              superblock, s_type->name, i_link, dentry and
                              mount chains, the task list's fd tables and the
                              module list's kallsyms (every byte the decode
                              with INODEDUMP_DECODE_HOLDERS reads)
  corpus/json/*.img           the same images (the JSON target decodes too)
  corpus/report_parse/*.txt   every record text of the log, and the report
                              lines in the three formats
  corpus/btf/*.img            a small BTF with the fixture's real struct
                              mount layout at __start_BTF, zero-filled to
                              __stop_BTF (and the same with its sections at
                              the end)
  corpus/flattened/*.flat     small flattened dumps

Image format (.img), read by fuzz/harness.c, all little-endian:

  8 bytes   "IDDIMG1\\n" (not checked by the harness)
  records until the end of the file:
    u64     start: kernel virtual address
    u32     size
    u32     flags: bit 0 set = zero-filled, no data follows;
                   otherwise size bytes of data follow
  (a record cut short by the end of the file keeps the bytes present)

The decode target decodes the inode at the start of the first record.
"""
import os
import re
import struct
import sys

import drgn
from drgn import Object, Program
from drgn.helpers.linux.list import hlist_for_each_entry, list_for_each_entry

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
PAGE = 4096
MAGIC = b"IDDIMG1\n"


class Image:
    """A set of kernel ranges, written with their bytes from the dump."""

    def __init__(self, prog):
        self.p = prog
        self.ranges = []  # (start, end, first): first ranges lead the file
        self.first = None
        self.patches = {}  # address -> bytes to write over the dump's

    def add(self, addr, size, first=False):
        if size <= 0 or addr == 0:
            return
        if first:
            self.first = (addr, addr + size)
        else:
            self.ranges.append((addr, addr + size))

    def add_string(self, addr, maxlen):
        """The chunks idd_target_read_string() reads: to each page end."""
        got = 0
        while got < maxlen:
            chunk = min(PAGE - ((addr + got) & (PAGE - 1)), maxlen - got)
            self.add(addr + got, chunk)
            try:
                data = self.p.read(addr + got, chunk)
            except drgn.FaultError:
                return
            if b"\0" in data:
                return
            got += chunk

    def _read(self, start, end):
        out = bytearray()
        a = start
        while a < end:
            n = min(PAGE - (a & (PAGE - 1)), end - a)
            try:
                out += self.p.read(a, n)
            except drgn.FaultError:
                return None
            a += n
        for addr, data in self.patches.items():
            for i, b in enumerate(data):
                if start <= addr + i < end:
                    out[addr + i - start] = b
        return bytes(out)

    def records(self):
        rs = sorted(self.ranges)
        merged = []
        for s, e in rs:
            # Join neighbours less than 64 bytes apart: fewer regions.
            if merged and s <= merged[-1][1] + 64:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        out = []
        if self.first:
            out.append(self.first)
        for s, e in merged:
            if self.first and s < self.first[1] and e > self.first[0]:
                # Overlap with the first region: keep the rest only.
                if s < self.first[0]:
                    out.append((s, self.first[0]))
                if e > self.first[1]:
                    out.append((self.first[1], e))
            else:
                out.append((s, e))
        recs = []
        for s, e in out:
            data = self._read(s, e)
            if data is None:
                # Some page filtered: keep the readable pages.
                a = s
                while a < e:
                    n = min(PAGE - (a & (PAGE - 1)), e - a)
                    d = self._read(a, a + n)
                    if d is not None:
                        recs.extend(split_zero(a, d))
                    a += n
                continue
            recs.extend(split_zero(s, data))
        return recs

    def write(self, path):
        with open(path, "wb") as f:
            f.write(MAGIC)
            for start, data, zero in self.records():
                f.write(struct.pack("<QII", start, len(data), 1 if zero else 0))
                if not zero:
                    f.write(data)
        return os.path.getsize(path)


def split_zero(start, data, run=256):
    """Data records, with zero runs of at least run bytes zero-filled."""
    recs = []
    i = 0
    n = len(data)
    seg = 0
    while i < n:
        if data[i] == 0:
            j = i
            while j < n and data[j] == 0:
                j += 1
            if j - i >= run:
                if seg < i:
                    recs.append((start + seg, data[seg:i], False))
                recs.append((start + i, data[i:j], True))
                seg = j
            i = j
        else:
            i += 1
    if seg < n:
        recs.append((start + seg, data[seg:], False))
    return recs


def sizeof(p, t):
    return drgn.sizeof(p.type(t))


def offsetof(p, t, member):
    return drgn.offsetof(p.type(t), member)


def has(p, t, member):
    try:
        drgn.offsetof(p.type(t), member)
        return True
    except LookupError:
        return False


def alias_member(p):
    """d_alias: in d_u up to 7.0, in an anonymous union since 7.1."""
    return "d_alias" if has(p, "struct dentry", "d_alias") else "d_u.d_alias"


def sb_mounts(p, sb):
    """The superblock's mounts: a list through mnt_instance (up to 7.0) or
    a struct mount * chain through mnt_next_for_sb (7.1+)."""
    if not has(p, "struct mount", "mnt_next_for_sb"):
        return list(list_for_each_entry("struct mount",
                                        sb.s_mounts.address_of_(),
                                        "mnt_instance"))
    out = []
    m = sb.s_mounts
    while m.value_() and len(out) < 256:
        out.append(m)
        m = m.mnt_next_for_sb
    return out


# ---------------------------------------------------------------- printk --

def printk_image(p):
    img = Image(p)
    prb_sym = p.symbol("prb").address
    img.add(prb_sym, 8)
    rb = p["prb"][0]
    img.add(rb.address_of_().value_(), sizeof(p, "struct printk_ringbuffer"))
    dr, tr = rb.desc_ring, rb.text_data_ring
    count = 1 << dr.count_bits.value_()
    img.add(dr.descs.value_(), count * sizeof(p, "struct prb_desc"))
    img.add(dr.infos.value_(), count * sizeof(p, "struct printk_info"))
    img.add(tr.data.value_(), 1 << tr.size_bits.value_())
    return img


def mini_printk_image(p, first_id, last_id, count_bits):
    """
    The records first_id..last_id of the real ring in a smaller ring of
    2**count_bits descriptors and a text ring just big enough: real texts,
    infos and states, re-laid the way the kernel lays blocks out.
    """
    rb = p["prb"][0]
    dr, tr = rb.desc_ring, rb.text_data_ring
    rcount = 1 << dr.count_bits.value_()
    dsize = sizeof(p, "struct prb_desc")
    isize = sizeof(p, "struct printk_info")
    rsize_bits = tr.size_bits.value_()
    texts = []
    for rid in range(first_id, last_id + 1):
        idx = rid & (rcount - 1)
        desc = dr.descs[idx]
        info = dr.infos[idx]
        begin = desc.text_blk_lpos.begin.value_()
        nxt = desc.text_blk_lpos.next.value_()
        text = b""
        if not (begin & 1):
            off = begin & ((1 << rsize_bits) - 1)
            tl = info.text_len.value_()
            text = p.read(tr.data.value_() + off + 8, tl)
        texts.append((rid, desc.state_var.counter.value_() & (2**64 - 1),
                      p.read(info.address_of_().value_(), isize), text))
    need = sum(8 + ((len(t) + 7) & ~7) for _, _, _, t in texts)
    size_bits = 4
    while (1 << size_bits) < need + 64:
        size_bits += 1
    count = 1 << count_bits
    assert len(texts) <= count
    descs = bytearray(count * dsize)
    infos = bytearray(count * isize)
    data = bytearray(1 << size_bits)
    lpos = 0
    for rid, sv, info, text in texts:
        idx = rid & (count - 1)
        blk = 8 + ((len(text) + 7) & ~7)
        data[lpos:lpos + 8] = struct.pack("<Q", rid)
        data[lpos + 8:lpos + 8 + len(text)] = text
        struct.pack_into("<QQQ", descs, idx * dsize, sv, lpos, lpos + blk)
        infos[idx * isize:(idx + 1) * isize] = info
        lpos += blk
    # New arrays live at the real arrays' addresses (real memory there).
    rbbytes = bytearray(p.read(rb.address_of_().value_(),
                               sizeof(p, "struct printk_ringbuffer")))
    o_cb = offsetof(p, "struct printk_ringbuffer", "desc_ring.count_bits")
    o_head = offsetof(p, "struct printk_ringbuffer", "desc_ring.head_id")
    o_tail = offsetof(p, "struct printk_ringbuffer", "desc_ring.tail_id")
    o_sb = offsetof(p, "struct printk_ringbuffer", "text_data_ring.size_bits")
    o_hl = offsetof(p, "struct printk_ringbuffer", "text_data_ring.head_lpos")
    o_tl = offsetof(p, "struct printk_ringbuffer", "text_data_ring.tail_lpos")
    struct.pack_into("<I", rbbytes, o_cb, count_bits)
    struct.pack_into("<Q", rbbytes, o_head, last_id)
    struct.pack_into("<Q", rbbytes, o_tail, first_id)
    struct.pack_into("<I", rbbytes, o_sb, size_bits)
    struct.pack_into("<q", rbbytes, o_hl, lpos)
    struct.pack_into("<q", rbbytes, o_tl, 0)
    recs = [(p.symbol("prb").address, p.read(p.symbol("prb").address, 8),
             False),
            (rb.address_of_().value_(), bytes(rbbytes), False)]
    recs += split_zero(dr.descs.value_(), bytes(descs))
    recs += split_zero(dr.infos.value_(), bytes(infos))
    recs += split_zero(tr.data.value_(), bytes(data))
    return recs


def write_records(path, recs):
    with open(path, "wb") as f:
        f.write(MAGIC)
        for start, data, zero in recs:
            f.write(struct.pack("<QII", start, len(data), 1 if zero else 0))
            if not zero:
                f.write(data)
    return os.path.getsize(path)


# ---------------------------------------------------------------- decode --

def add_dentry(img, p, d):
    img.add(d.value_(), sizeof(p, "struct dentry"))
    n = d.d_name.len.value_()
    img.add(d.d_name.name.value_(), min(n, 255))


def decode_image(p, addr, shared):
    img = Image(p)
    ino = Object(p, "struct inode *", addr)
    img.add(addr, sizeof(p, "struct inode"), first=True)
    sb = ino.i_sb
    img.add(sb.value_(), sizeof(p, "struct super_block"))
    fst = sb.s_type
    img.add(fst.value_() + offsetof(p, "struct file_system_type", "name"), 8)
    img.add_string(fst.name.value_(), 64)
    i_data = addr + offsetof(p, "struct inode", "i_data")
    mapping = ino.i_mapping.value_()
    if mapping and mapping != i_data:
        img.add(mapping + offsetof(p, "struct address_space", "a_ops"), 8)
        img.add(mapping + offsetof(p, "struct address_space", "nrpages"), 8)
    mode = ino.i_mode.value_()
    if (mode & 0o170000) == 0o120000 and ino.i_link.value_():
        img.add_string(ino.i_link.value_(), 4096)
    # Paths: every alias up to its root, through every mount of the sb.
    mounts = sb_mounts(p, sb)
    for d in hlist_for_each_entry("struct dentry", ino.i_dentry.address_of_(),
                                  alias_member(p)):
        for m in mounts:
            x = d
            mnt = m
            for _ in range(600):
                img.add(mnt.value_(), sizeof(p, "struct mount"))
                if x.value_() == mnt.mnt.mnt_root.value_():
                    parent = mnt.mnt_parent
                    if parent.value_() in (0, mnt.value_()):
                        break
                    x = mnt.mnt_mountpoint
                    mnt = parent
                    continue
                add_dentry(img, p, x)
                if x.d_parent.value_() == x.value_():
                    break
                x = x.d_parent
        add_dentry(img, p, d)
    for m in mounts:
        img.add(m.value_(), sizeof(p, "struct mount"))
    for r in shared:
        img.add(*r)
    return img


def holder_ranges(p):
    """What the holders walk reads: a few members of every task."""
    out = []
    tsz = {m: (offsetof(p, "struct task_struct", m),
               drgn.sizeof(p.type("struct task_struct").member(m).type))
           for m in ("tasks", "pid", "comm", "files", "fs")}
    init = p["init_task"].address_of_()
    tasks = [init] + list(list_for_each_entry("struct task_struct",
                                              init.tasks.address_of_(),
                                              "tasks"))
    d_inode = offsetof(p, "struct dentry", "d_inode")
    for t in tasks:
        base = t.value_()
        for off, size in tsz.values():
            out.append((base + off, size))
        fs = t.fs.value_()
        if fs:
            for which in ("pwd", "root"):
                out.append((fs + offsetof(p, "struct fs_struct",
                                          which + ".dentry"), 8))
                dent = getattr(t.fs, which).dentry.value_()
                if dent:
                    out.append((dent + d_inode, 8))
        files = t.files
        if not files.value_():
            continue
        out.append((files.value_() + offsetof(p, "struct files_struct",
                                               "fdt"), 8))
        fdt = files.fdt
        out.append((fdt.value_() + offsetof(p, "struct fdtable", "max_fds"),
                    4))
        out.append((fdt.value_() + offsetof(p, "struct fdtable", "fd"), 8))
        n = min(fdt.max_fds.value_(), 1 << 16)
        out.append((fdt.fd.value_(), n * 8))
        f_inode = offsetof(p, "struct file", "f_inode")
        # The file's reference count: f_ref (6.13+) or f_count.
        refs = ("f_ref.refcnt.counter" if has(p, "struct file", "f_ref")
                else "f_count.counter")
        f_refs = offsetof(p, "struct file", refs)
        for i in range(n):
            f = fdt.fd[i].value_()
            if f:
                out.append((f + f_inode, 8))
                out.append((f + f_refs, 8))
    return out


def module_ranges(p):
    out = []
    head = p["modules"].address_of_()
    out.append((head.value_(), 16))
    msz = sizeof(p, "struct module")
    for m in list_for_each_entry("struct module", head, "list"):
        out.append((m.value_(), msz))
        ks = m.kallsyms
        out.append((ks.value_(), sizeof(p, "struct mod_kallsyms")))
        n = ks.num_symtab.value_()
        out.append((ks.symtab.value_(), n * sizeof(p, "Elf64_Sym")))
        strtab = ks.strtab.value_()
        for i in range(n):
            name = ks.symtab[i].st_name.value_()
            if name:
                out.append(("string", strtab + name, 128))
    return out


# ------------------------------------------------------------------ btf --

def btf_blob(p):
    """
    A small, valid BTF with the fixture's real struct mount layout (what
    lib/paths.c asks BTF for): long, dentry (fwd), list_head, vfsmount,
    an anonymous union, a typedef and a const, as pahole writes them.
    """
    strings = bytearray(b"\0")

    def name(s):
        off = len(strings)
        strings.extend(s.encode() + b"\0")
        return off

    def off(t, m):
        return offsetof(p, t, m) * 8

    types = []  # (name_off, kind, vlen, size_or_type, extra bytes)

    def add(nm, kind, vlen, st, extra=b"", kflag=0):
        types.append(struct.pack("<III", nm, (kflag << 31) | (kind << 24) |
                                 vlen, st) + extra)
        return len(types)

    def members(ms):
        return b"".join(struct.pack("<III", n, t, o) for n, t, o in ms)

    t_long = add(name("long"), 1, 0, 8, struct.pack("<I", (1 << 24) | 64))
    t_dentry = add(name("dentry"), 7, 0, 0)            # FWD
    t_pdentry = add(0, 2, 0, t_dentry)                  # PTR
    t_list = len(types) + 1
    t_plist = t_list + 1
    add(name("list_head"), 4, 2, 16, members([
        (name("next"), t_plist, 0), (name("prev"), t_plist, 64)]))
    add(0, 2, 0, t_list)
    t_cdentry = add(0, 10, 0, t_pdentry)               # CONST
    vsz = sizeof(p, "struct vfsmount")
    t_vfs = add(name("vfsmount"), 4, 2, vsz, members([
        (name("mnt_root"), t_pdentry, off("struct vfsmount", "mnt_root")),
        (name("mnt_flags"), t_long, off("struct vfsmount", "mnt_flags"))]))
    t_mount = len(types) + 1
    t_pmount = t_mount + 1
    t_tmount = t_mount + 2
    t_anon = t_mount + 3
    msz = sizeof(p, "struct mount")
    mc = off("struct mount", "mnt_count") if hasattr(
        p.type("struct mount"), "members") and any(
        m.name == "mnt_count" for m in p.type("struct mount").members) else 0
    add(name("mount"), 4, 6, msz, members([
        (name("mnt_parent"), t_pmount, off("struct mount", "mnt_parent")),
        (name("mnt_mountpoint"), t_cdentry,
         off("struct mount", "mnt_mountpoint")),
        (name("mnt"), t_vfs, off("struct mount", "mnt")),
        (name("mnt_instance"), t_list, off("struct mount", "mnt_instance"))
        if has(p, "struct mount", "mnt_instance") else
        (name("mnt_next_for_sb"), t_pmount,
         off("struct mount", "mnt_next_for_sb")),
        (0, t_anon, mc),                               # anonymous union
        (name("mnt_id"), t_long, off("struct mount", "mnt_id"))]))
    add(0, 2, 0, t_tmount)                              # PTR -> typedef
    add(name("mount_t"), 8, 0, t_mount)                 # TYPEDEF
    add(0, 5, 1, 8, members([(name("mnt_count"), t_long, 0)]))  # UNION
    tb = b"".join(types)
    hdr = struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(tb), len(tb),
                      len(strings))
    return hdr + tb + bytes(strings)


def btf_image(p, blob):
    start = p.symbol("__start_BTF").address
    stop = p.symbol("__stop_BTF").address
    recs = [(start, blob, False)]
    # The rest of the section, zeros, as zero-filled records.
    a = start + len(blob)
    while a < stop:
        n = min(stop - a, 1 << 20)
        recs.append((a, b"\0" * n, True))
        a += n
    return recs


# ---------------------------------------------------------------- main --

REPORT = re.compile(rb"(?: encountered for inode |: (?:unreadable )?inode:)"
                    rb"[0-9a-f]+")


def is_report(text):
    """A report record: 6.15/6.18 ("encountered for inode") or 7.0."""
    return REPORT.search(text) is not None


def truth(fixture):
    with open(os.path.join(fixture, "truth.txt")) as f:
        return [dict(x.split("=", 1) for x in line.split() if "=" in x)
                for line in f if line.strip()]


def main():
    fixture = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "tests/vmcores/committed")
    flat = sys.argv[2] if len(sys.argv) > 2 else None
    vmcore = os.path.join(fixture, "d17-zlib.vmcore")
    p = Program()
    p.set_core_dump(vmcore)
    p.load_debug_info([os.path.join(fixture, "vmlinux")])

    def out(*parts):
        path = os.path.join(HERE, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    vi = p["vmcoreinfo_data"]
    raw = p.read(vi.value_(), p["vmcoreinfo_size"].value_())
    with open(out("data", "vmcoreinfo.txt"), "wb") as f:
        f.write(raw.rstrip(b"\0"))

    # printk
    n = printk_image(p).write(out("corpus", "printk", "ring-full.img"))
    print("printk ring-full.img", n)
    rb = p["prb"][0]
    head = rb.desc_ring.head_id.counter.value_()
    # The window around the reports; ids are those of the real ring.
    log = []
    cb = rb.desc_ring.count_bits.value_()
    tail = rb.desc_ring.tail_id.counter.value_()
    for rid in range(tail, head + 1):
        idx = rid & ((1 << cb) - 1)
        info = rb.desc_ring.infos[idx]
        desc = rb.desc_ring.descs[idx]
        begin = desc.text_blk_lpos.begin.value_()
        text = b""
        if not begin & 1:
            off = begin & ((1 << rb.text_data_ring.size_bits.value_()) - 1)
            text = p.read(rb.text_data_ring.data.value_() + off + 8,
                          info.text_len.value_())
        log.append((rid, text))
    reports = [rid for rid, t in log if is_report(t)]
    first = reports[0] - 2
    last = min(reports[-1] + 12, head)
    if last - first + 1 > 64:
        first = last - 63
    n = write_records(out("corpus", "printk", "ring-reports.img"),
                      mini_printk_image(p, first, last, 6))
    print("printk ring-reports.img", n, "records", last - first + 1)
    n = write_records(out("corpus", "printk", "ring-one-report.img"),
                      mini_printk_image(p, reports[0], reports[0] + 4, 3))
    print("printk ring-one-report.img", n)

    # report_parse: every record's text, and the three formats.
    rp = out("corpus", "report_parse", "x")
    for rid, t in log:
        if is_report(t) or b"WARNING" in t or \
           b"Comm:" in t or rid in (tail + 1, tail + 50, head):
            with open(os.path.join(os.path.dirname(rp),
                                   "record-%d.txt" % (rid - tail)), "wb") as f:
                f.write(t)
    # The format samples name the fixture's victim inode.
    addr = next(kv["addr"] for kv in truth(fixture)
                if kv["role"] == "victim_symlink").encode()
    samples = {
        "6.15.txt": b"VFS_WARN_ON_INODE(strlen(link) != linklen) "
                    b"encountered for inode " + addr,
        "6.18.txt": b"VFS_BUG_ON_INODE(!S_ISLNK(inode->i_mode)) encountered "
                    b"for inode " + addr + b"\nfs tmpfs mode 120777 opflags "
                    b"0x48 flags 0x0 state 0x0 count 2",
        "2026.txt": b"VFS_WARN_ON_INODE(strlen(link) != linklen): inode:" +
                    addr + b" fs:tmpfs mode:120777 opflags:48 flags:0 "
                    b"state:0 count:2",
        "2026-unreadable.txt": b"VFS_WARN_ON_INODE(1): unreadable inode:" +
                               addr,
    }
    for name, text in samples.items():
        with open(os.path.join(os.path.dirname(rp), name), "wb") as f:
            f.write(text)

    # decode / json: one image per truth inode.
    shared = holder_ranges(p)
    mods = module_ranges(p)
    seen = set()
    for kv in truth(fixture):
        a = int(kv["addr"], 16)
        if a in seen:
            continue
        seen.add(a)
        img = decode_image(p, a, shared)
        for r in mods:
            if r[0] == "string":
                img.add_string(r[1], r[2])
            else:
                img.add(*r)
        for target in ("decode", "json"):
            n = img.write(out("corpus", target, kv["role"] + ".img"))
        print("decode", kv["role"], n)

    # btf: the BTF blob in the dump's memory.
    blob = btf_blob(p)
    n = write_records(out("corpus", "btf", "mount.img"), btf_image(p, blob))
    print("btf mount.img", n)
    # The same types, with the strings section ending the section's bytes.
    start = p.symbol("__start_BTF").address
    stop = p.symbol("__stop_BTF").address
    body = blob[24:]
    gap = stop - start - 24 - len(body)
    tlen, slen = struct.unpack_from("<I", blob, 12)[0], \
        struct.unpack_from("<I", blob, 20)[0]
    head = struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, gap, tlen, gap + tlen,
                       slen)
    n = write_records(out("corpus", "btf", "mount-at-end.img"), [
        (start, head, False), (start + 24, b"\0" * gap, True),
        (stop - len(body), body, False)])
    print("btf mount-at-end.img", n)

    # flattened: a real flattened dump's first records, or the committed
    # dump's header cut into records.
    make_flat(flat, vmcore, out)


def flat_file(records):
    head = bytearray(4096)
    head[0:12] = b"makedumpfile"
    struct.pack_into(">qq", head, 16, 1, 1)  # type, version
    body = bytearray(head)
    for off, data in records:
        body += struct.pack(">qq", off, len(data)) + data
    body += struct.pack(">qq", -1, -1)
    return bytes(body)


def make_flat(flat, vmcore, out):
    if flat:
        with open(flat, "rb") as f:
            src = f.read(1 << 20)
        recs = []
        pos = 4096
        while pos + 16 <= len(src):
            off, size = struct.unpack_from(">qq", src, pos)
            if off == -1 or pos + 16 + size > len(src):
                break
            recs.append((off, src[pos + 16:pos + 16 + size]))
            pos += 16 + size
        # Headers only; headers and bitmaps; and with the first pages.
        for name, k in (("qemu-headers.flat", 3), ("qemu-bitmaps.flat", 8),
                        ("qemu-pages.flat", 24)):
            data = flat_file(recs[:k])
            with open(out("corpus", "flattened", name), "wb") as f:
                f.write(data)
            print("flattened", name, len(data))
    with open(vmcore, "rb") as f:
        head = f.read(64 << 10)
    # The committed diskdump's first 64 KiB as three records, out of order.
    recs = [(8192, head[8192:24576]), (0, head[:8192]),
            (24576, head[24576:])]
    data = flat_file(recs)
    with open(out("corpus", "flattened", "diskdump-head.flat"), "wb") as f:
        f.write(data)
    print("flattened diskdump-head.flat", len(data))
    # Not flattened: the same bytes straight to libkdumpfile.
    with open(out("corpus", "flattened", "diskdump-head.raw"), "wb") as f:
        f.write(head[:16384])


if __name__ == "__main__":
    main()
