#!/usr/bin/python3
"""The per-kernel memo of the dump's BTF and kallsyms bytes
(lib/types/memo.c): a run without vmlinux keeps the 4 KiB chunks of the
kernel's BTF and kallsyms tables it read (vmlinux.btf.pages,
kallsyms.pages in the per-kernel cache; where the BTF is sorted, 7.0+,
the kernel's index of it too, as offsets into the types:
vmlinux.btf.index.pages), and the next run of that kernel copies them
from there instead of inflating the dump's pages.

usage: test_memo.py

On the committed 7.3 dump and the small arm64 6.12 QEMU kdump, each in a
cache of its own:
- the first run writes both files (0600, the directory 0700) and decodes
  every truth inode as the kernel's own DWARF (-k vmlinux; the committed
  fixture) or its truth (test_small.py checks those) says;
- the second run prints the same, and reads nothing new: a run that
  needed a chunk not kept rewrites the file (a new inode), so an unchanged
  inode shows every chunk came from the memo (bench/gate.py holds what it
  saves: committed-btf-inode-warm, 31 M -> 8 M instructions);
- a damaged memo is not trusted, the answers stay the same, and the file
  is made again from the dump (on the committed dump, whose runs read the
  same chunks each time, byte for byte; on arm64, whose BTF has a cache
  of its own too, each chunk a later run keeps is the dump's): its header
  garbled, the file cut short, a
  chunk whose bytes no longer have their hash, a well-formed memo of other
  bytes (its first chunk changed, hash and checksum made to fit: the
  comparison with the dump refuses it), a memo of a region of another
  length (another kernel); a symlink in its place is not followed, neither
  read nor written through.
"""
import os
import shutil
import stat
import struct
import sys
import tempfile

from fixture import COMMITTED, Checker, read_truth, run

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "vmcores", "small")
HEADER = struct.Struct("<8sIIQIIQ")  # memo.c struct memo_header
CHUNK = 4096
MASK = (1 << 64) - 1
FNV_OFFSET, FNV_PRIME = 14695981039346656037, 1099511628211


def fnv64(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def chunk_hash(chunk):
    h = FNV_OFFSET
    for (w,) in struct.iter_unpack("<Q", chunk):
        h = ((h ^ w) * FNV_PRIME) & MASK
        h ^= h >> 29
    return h


def parse(blob):
    magic, version, chunk, length, phase, n, checksum = HEADER.unpack_from(blob)
    nums_size = (n * 4 + 7) & ~7
    at = HEADER.size
    nums = list(struct.unpack_from(f"<{n}I", blob, at))
    hashes = list(struct.unpack_from(f"<{n}Q", blob, at + nums_size))
    data = at + nums_size + 8 * n
    chunks = [blob[data + i * CHUNK:data + (i + 1) * CHUNK] for i in range(n)]
    return dict(magic=magic, version=version, chunk=chunk, len=length,
                phase=phase, nums=nums, hashes=hashes, chunks=chunks,
                checksum=checksum)


def build(m):
    """A memo file from parse()'s fields, its checksum made to fit."""
    n = len(m["nums"])
    nums = struct.pack(f"<{n}I", *m["nums"])
    nums += b"\0" * (((n * 4 + 7) & ~7) - len(nums))
    meta = nums + struct.pack(f"<{n}Q", *m["hashes"])
    head = HEADER.pack(m["magic"], m["version"], m["chunk"], m["len"],
                       m["phase"], n, fnv64(meta))
    return head + meta + b"".join(m["chunks"])


def kernel_dir(cache):
    base = os.path.join(cache, "inodedump", "kernel")
    ids = os.listdir(base) if os.path.isdir(base) else []
    return os.path.join(base, ids[0]) if len(ids) == 1 else None


def case(c, name, dump, addrs, want, tmp, strict, index):
    cache = os.path.join(tmp, "cache-" + name)
    empty = os.path.join(tmp, "no-debug")
    os.makedirs(empty, exist_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    env.pop("DEBUGINFOD_URLS", None)
    args = ["--debug-root", empty, "-j", dump, *addrs]

    def decode():
        p = run(args, env=env)
        return p.returncode, p.stdout

    first = decode()
    if want is not None:
        c.eq(f"{name}: first run (cache empty) as with the kernel's DWARF",
             first, want)
    c.ok(f"{name}: first run decodes", first[0] in (0, 1) and first[1],
         repr(first)[:400])
    kdir = kernel_dir(cache)
    c.ok(f"{name}: one per-kernel cache directory", kdir is not None, cache)
    if kdir is None:
        return
    c.eq(f"{name}: the per-kernel directory is private",
         stat.S_IMODE(os.stat(kdir).st_mode), 0o700)
    files = {}
    for f in ("vmlinux.btf.pages", "kallsyms.pages") + index:
        path = os.path.join(kdir, f)
        c.ok(f"{name}: {f} written", os.path.isfile(path), str(os.listdir(kdir)))
        if not os.path.isfile(path):
            continue
        c.eq(f"{name}: {f} private", stat.S_IMODE(os.stat(path).st_mode), 0o600)
        with open(path, "rb") as fh:
            files[f] = fh.read()
        m = parse(files[f])
        c.ok(f"{name}: {f} well formed", m["magic"] == b"IDDMEMO1" and
             m["chunk"] == CHUNK and m["nums"] == sorted(set(m["nums"])) and
             all(chunk_hash(ch) == h for ch, h in zip(m["chunks"], m["hashes"])),
             f)
    if len(files) != 2 + len(index):
        return
    inodes = {f: os.stat(os.path.join(kdir, f)).st_ino for f in files}
    c.eq(f"{name}: second run prints the same", decode(), first)
    for f in files:
        c.eq(f"{name}: second run read nothing the memo lacks ({f} not rewritten)",
             os.stat(os.path.join(kdir, f)).st_ino, inodes[f])

    def damaged(f, how, blob=None, link=False):
        path = os.path.join(kdir, f)
        os.unlink(path)
        if link:
            victim = os.path.join(tmp, "victim-" + name)
            with open(victim, "wb") as fh:
                fh.write(files[f])
            os.symlink(victim, path)
        else:
            with open(path, "wb") as fh:
                fh.write(blob)
        got = decode()
        c.eq(f"{name}: {f} {how}: the same answers", got, first)
        if link:
            with open(victim, "rb") as fh:
                c.ok(f"{name}: {f} {how}: the link's target untouched",
                     fh.read() == files[f], victim)
        if strict:
            # This kernel's runs read the same chunks each time (no other
            # cache of its BTF or kallsyms): refused means read again.
            c.ok(f"{name}: {f} {how}: a regular file again",
                 os.path.isfile(path) and not os.path.islink(path), path)
            with open(path, "rb") as fh:
                c.ok(f"{name}: {f} {how}: made again from the dump",
                     fh.read() == files[f], path)
        elif os.path.isfile(path) and not os.path.islink(path):
            # Other caches of this kernel (vmlinux.btf.start) answer much
            # of what the first run read here: a later run rewrites the
            # memo with what it needed, each chunk the dump's bytes.
            with open(path, "rb") as fh:
                now = fh.read()
            if now != (blob if blob is not None else b""):
                m, old = parse(now), parse(files[f])
                kept = dict(zip(old["nums"], old["chunks"]))
                c.ok(f"{name}: {f} {how}: made again, the dump's bytes",
                     m["magic"] == b"IDDMEMO1" and
                     all(kept.get(k) == ch for k, ch in zip(m["nums"], m["chunks"])),
                     path)

    for f, blob in files.items():
        m = parse(blob)
        damaged(f, "header garbled", b"\xa5" * 64 + blob[64:])
        damaged(f, "cut short", blob[:len(blob) // 2])
        if len(m["chunks"]) >= 4:
            # chunk 1 is neither the first, the middle nor the last: only
            # its hash can tell (the checksum covers numbers and hashes)
            bad = dict(m, chunks=list(m["chunks"]))
            bad["chunks"][1] = bytes(b ^ 0x5a for b in bad["chunks"][1])
            damaged(f, "a chunk's bytes changed", build(bad))
        other = dict(m, chunks=list(m["chunks"]), hashes=list(m["hashes"]))
        other["chunks"][0] = bytes(b ^ 0xff for b in other["chunks"][0])
        other["hashes"][0] = chunk_hash(other["chunks"][0])
        damaged(f, "other bytes, well formed", build(other))
        damaged(f, "another region's length", build(dict(m, len=m["len"] + 4096)))
        damaged(f, "a symlink in its place", link=True)


def main():
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(COMMITTED, "d17-zlib.vmcore")
        addrs = sorted({t["addr"] for t in read_truth(os.path.join(COMMITTED, "truth.txt"))})
        p = run(["-k", os.path.join(COMMITTED, "vmlinux"), "-j", dump, *addrs])
        # 7.3's BTF is sorted: the kernel's index of it is kept too
        case(c, "committed 7.3", dump, addrs, (p.returncode, p.stdout), tmp,
             True, ("vmlinux.btf.index.pages",))
        d = os.path.join(SMALL, "arm64-612-qemu-kdump")
        addrs = sorted({t["addr"] for t in read_truth(os.path.join(d, "truth.txt"))})
        case(c, "small arm64 6.12", os.path.join(d, "qemu-kdump-zlib.flat"),
             addrs, None, tmp, False, ())
    c.finish()


if __name__ == "__main__":
    main()
