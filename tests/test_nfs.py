#!/usr/bin/env python3
"""NFS inodes of the fs sets: the guest's truth holds together, and every
VFS field vmcore-inode decodes of them equals drgn's.

usage: test_nfs.py SET

SET is fs612 or fs73 (tests/vmcores/recipes/fs.sh): the kernel's nfsd
exports /mnt/ext4/export, mounted over loopback with NFSv4.2 at /mnt/nfs;
the guest made its files through the mount. Truth, never from our output:
  - truth.txt (drgn 0.3.0 reading d0-zlib.vmcore): the nfs_* roles (the
    client's nfs4 inodes) and nfsd_* roles (the same files as the export's
    ext4 has them);
  - serial.log: the guest's own lstat(2) (`inodedump-stat:`), its
    name_to_handle_at(2) and /proc/self/mountinfo (`inodedump-nfs:`,
    `inodedump-nfs-mount:`: the NFS file handle, fileid, server, export
    and mount options).

First the truth is checked against itself (each NFS role in truth.txt, in a
stat line and in an nfs line; the NFS fileid is the inode number drgn and
stat see and the server's ext4 inode number; the server's file handle ends
with the ext4 handle nfsd embeds; the mount is NFSv4.2 to 127.0.0.1), so a
fixture that lost its NFS roles fails here. Then, on the unfiltered and
-d 17 dumps and QEMU's ELF, with the vmlinux (DWARF) and from the dump
alone (BTF, kallsyms): every NFS role decodes, and ino, mode, i_opflags,
i_flags, i_state, i_count, nlink, size, uid, gid, s_id, the superblock,
generation, i_blocks, rdev, fs type, the path and the operations equal the
truth line's, and the nfs4 inodes' own rows (struct nfs_inode: fileid, file
handle, server, protocol version, the attribute cache and its bounds,
flags) equal nfs-truth.txt's (drgn 0.3.0 at the offsets pahole reads from
nfs.ko's BTF), whose fileid, handle, server and version equal the guest's
name_to_handle_at(2) and mountinfo; and `--sweep --fs nfs4` finds the nfs4
superblock alone, with as many inodes as drgn counts on its s_inodes
(slab-truth.txt), the truth's NFS inodes among them. Last, a garbage file
handle length (fh.size 0xffff in a copy of QEMU's ELF) is said (the fh row
unread, an 'fs' error, exit 4), and the rest of the inode is kept.
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, ElfCopy, read_truth, run, set_dir  # noqa: E402

S_IFMT = 0o170000
NFS_ROLES = ["root", "regular", "empty", "big", "dir", "hardlink", "symlink_short",
             "symlink_long", "owned", "held"]
NFSD_ROLES = ["root", "regular", "big", "dir", "symlink_long", "held"]
EXPORT = "/mnt/ext4/export"
FORMATS = ["d0-zlib.vmcore", "d17-zlib.vmcore", "elf-nopaging.vmcore"]


def kv(text):
    return dict(t.split("=", 1) for t in text.split() if "=" in t)


def guest_lines(serial, tag):
    out = []
    with open(serial, errors="replace") as f:
        for line in f:
            i = line.find(tag + " ")
            if i >= 0:
                out.append(kv(line[i + len(tag) + 1:].strip()))
    return out


def check_truth(c, set_name, truth, stats, nfs, mounts):
    """The guest's lines and drgn's truth agree on what NFS is here."""
    want = [f"nfs_{r}" for r in NFS_ROLES] + [f"nfsd_{r}" for r in NFSD_ROLES]
    for role in want:
        for what, d in (("truth.txt", truth), ("stat", stats), ("inodedump-nfs", nfs)):
            c.ok(f"{set_name} {role} in {what}", role in d, f"no {role} in {what}")
    nfs_mounts = [m for m in mounts if m.get("fstype") == "nfs4"]
    c.eq(f"{set_name} one nfs4 mount among the inodedump-nfs-mount lines", len(nfs_mounts), 1)
    if not nfs_mounts:
        return
    m = nfs_mounts[0]
    c.eq(f"{set_name} mount point", m.get("mountpoint"), "/mnt/nfs")
    c.eq(f"{set_name} mount source", m.get("source"), f"127.0.0.1:{EXPORT}")
    opts = m.get("superopts", "").split(",")
    for o in ("vers=4.2", "addr=127.0.0.1", "clientaddr=127.0.0.1", "sec=sys", "proto=tcp"):
        c.ok(f"{set_name} mount option {o}", o in opts, m.get("superopts"))
    sbs = set()
    for r in NFS_ROLES:
        role = f"nfs_{r}"
        t, s, n = truth.get(role), stats.get(role), nfs.get(role)
        if not (t and s and n):
            continue
        sbs.add(t["sb"])
        c.eq(f"{set_name} {role} fstype", t["fstype"], "nfs4")
        c.eq(f"{set_name} {role} s_id is the superblock's dev", t["s_id"], t["dev"])
        c.eq(f"{set_name} {role} stat dev", s["dev"], t["dev"])
        c.eq(f"{set_name} {role} nfs line's mount", n["mnt_id"], m["mnt_id"])
        c.eq(f"{set_name} {role} fileid is the inode number", n.get("fileid"), t["ino"])
        c.eq(f"{set_name} {role} fileid is stat's ino", n.get("fileid"), s["ino"])
        c.eq(f"{set_name} {role} handle's type is the mode's",
             int(n.get("itype", "-1"), 8), int(t["mode"], 8) & S_IFMT)
        c.eq(f"{set_name} {role} server", n.get("server"), "127.0.0.1")
        c.eq(f"{set_name} {role} export", n.get("export"), EXPORT)
        c.eq(f"{set_name} {role} fh length", len(n.get("fh", "")), 2 * int(n.get("fhlen", "0")))
        # knfsd's handle (fs/nfsd/nfsfh.h): version 1, then auth, fsid and
        # fileid types
        c.ok(f"{set_name} {role} fh is a version-1 knfsd handle",
             re.fullmatch(r"01[0-9a-f]{6}([0-9a-f]{2})*", n.get("fh", "")) is not None, n.get("fh"))
        if r in NFSD_ROLES:
            sv = truth.get(f"nfsd_{r}")
            sn = nfs.get(f"nfsd_{r}")
            if sv:
                c.eq(f"{set_name} {role}: the client's fileid is the server's ext4 ino",
                     t["ino"], sv["ino"])
                c.eq(f"{set_name} nfsd_{r} is on ext4", sv["fstype"], "ext4")
                c.eq(f"{set_name} {role}: client and server agree on nlink", t["nlink"], sv["nlink"])
                c.eq(f"{set_name} {role}: client and server agree on size", t["size"], sv["size"])
            if sn and r != "root":
                # the export's root is FILEID_ROOT (no fileid part); every
                # other handle ends with the filesystem's own handle
                c.ok(f"{set_name} {role} fh ends with the ext4 handle nfsd embeds",
                     n.get("fh", "").endswith(sn["handle"]), f"{n.get('fh')} / {sn['handle']}")
    c.eq(f"{set_name} one nfs4 superblock", len(sbs), 1)
    if "nfs_owned" in truth:
        c.eq(f"{set_name} nfs_owned uid through the mount", truth["nfs_owned"]["uid"], "1000")
        c.eq(f"{set_name} nfs_owned gid through the mount", truth["nfs_owned"]["gid"], "1000")
    if "nfs_regular" in truth and "nfs_hardlink" in truth:
        c.eq(f"{set_name} the hard link is the same nfs inode",
             truth["nfs_hardlink"]["addr"], truth["nfs_regular"]["addr"])


def check_decode(c, d, set_name, fmt, session, args, rows, nt):
    p, doc = run_json_args(args, os.path.join(d, fmt), [t["addr"] for t in rows])
    inodes = doc.get("inodes", [])
    c.eq(f"{set_name}/{fmt}/{session} one result per NFS address", len(inodes), len(rows))
    for t, got in zip(rows, inodes):
        n = f"{set_name}/{fmt}/{session}/{t['role']}"
        if "error" in got:
            c.ok(n, False, f"decode failed: {got['error']}")
            continue
        c.eq(n + " address", got["address"], "0x" + t["addr"])
        for key, base in (("ino", 10), ("mode", 8), ("opflags", 16), ("flags", 16),
                          ("state", 16), ("count", 10), ("nlink", 10), ("size", 10),
                          ("uid", 10), ("gid", 10)):
            c.eq(f"{n} {key}", got[key], int(t[key].removeprefix("0x"), base))
        c.eq(n + " s_id", got["s_id"], t["s_id"])
        c.eq(n + " fs_type", got["fs_type"], t["fstype"])
        c.eq(n + " sb", got["sb"], "0x" + t["sb"])
        c.eq(n + " generation", got["generation"], int(t["gen"]))
        c.eq(n + " blocks", got["blocks"], int(t["blocks"]))
        c.eq(n + " rdev", got["rdev"], t["rdev"])
        c.ok(n + " path", t["path"] in (got["paths"] or []), f"{t['path']} not in {got['paths']}")
        for key in ("i_op", "i_fop", "a_ops", "s_op"):
            c.eq(f"{n} {key}", got[key], t[key])
        c.eq(n + " violations", [v["check"] for v in got["violations"]], [])
        if t["role"] in nt:
            check_rows(c, n, got, nt[t["role"]])
    c.eq(f"{set_name}/{fmt}/{session} exit code", p.returncode, 0)


# nfs-truth.txt's keys vmcore-inode's "fs" rows must equal (the names are
# the rows'; flags and cache_validity are hex there)
ROW_KEYS = ["fileid", "fh_size", "fh", "server", "nfs_version", "minorversion", "acregmin",
            "acregmax", "acdirmin", "acdirmax", "flags", "cache_validity",
            "read_cache_jiffies", "attrtimeo", "attrtimeo_timestamp", "attr_gencount"]


def read_nfs_truth(d):
    path = os.path.join(d, "nfs-truth.txt")
    if not os.path.exists(path):
        raise SystemExit(f"FAIL no {path} (the fs recipe's drgn_nfs_truth.py writes it)")
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("nfs "):
                t = kv(line[4:])
                out[t["role"]] = t
    return out


def check_nfs_truth(c, set_name, truth, nfs, mounts, nt):
    """drgn's nfs_inode/nfs_server/nfs_client values against the guest's
    own handle, fileid and mount, and the attribute cache's invariants."""
    m = next((m for m in mounts if m.get("fstype") == "nfs4"), {})
    vers = next((o.split("=", 1)[1] for o in m.get("superopts", "").split(",")
                 if o.startswith("vers=")), "-")
    for r in NFS_ROLES:
        role = f"nfs_{r}"
        t, n, d = truth.get(role), nfs.get(role), nt.get(role)
        c.ok(f"{set_name} {role} in nfs-truth.txt", d is not None, "missing")
        if not (t and n and d):
            continue
        name = f"{set_name} nfs-truth {role}"
        c.eq(name + " address", d["addr"], t["addr"])
        c.eq(name + " fileid (guest's handle)", d["fileid"], n.get("fileid"))
        c.eq(name + " fh (guest's handle)", d["fh"], n.get("fh"))
        c.eq(name + " fh_size (guest's handle)", d["fh_size"], n.get("fhlen"))
        c.eq(name + " server (guest's mount)", d["server"], n.get("server"))
        c.eq(name + " version (guest's mount vers=)", f"{d['nfs_version']}.{d['minorversion']}",
             vers)
        jiffies = int(d["jiffies"])
        c.ok(name + " read_cache_jiffies <= jiffies",
             0 <= (jiffies - int(d["read_cache_jiffies"])) % (1 << 64) < 1 << 62, d)
        lo, hi = (("acdirmin", "acdirmax") if (int(t["mode"], 8) & S_IFMT) == 0o040000
                  else ("acregmin", "acregmax"))
        c.ok(f"{name} attrtimeo within [{lo}, {hi}]",
             int(d[lo]) <= int(d["attrtimeo"]) <= int(d[hi]), d)


def check_rows(c, name, got, d):
    """vmcore-inode's nfs_inode rows equal drgn's (nfs-truth.txt)."""
    fs = got.get("fs") or {}
    c.eq(name + " fs struct", fs.get("struct"), "nfs_inode")
    c.eq(name + " fs object", fs.get("object"), "0x" + d["object"])
    c.eq(name + " fs unavailable", fs.get("unavailable"), None)
    rows = fs.get("rows") or {}
    for k in ROW_KEYS:
        want = d[k]
        if k in ("flags", "cache_validity"):
            want = int(want, 16)
        elif k not in ("fh", "server"):
            want = int(want)
        c.eq(f"{name} row {k}", rows.get(k), want)


def pahole_offset(path, struct, member):
    """A member's offset in pahole's printing of struct (nfs-pahole.txt)."""
    cur = None
    for line in open(path, errors="replace"):
        if line.startswith("struct "):
            cur = line.split()[1]
        m = re.match(r"^\t+[^/;]*?[\s*]+(\w+)(?:\[\d*\])?;\s+/\*\s+(\d+)\s+\d+\s+\*/", line)
        if cur == struct and m and m.group(1) == member:
            return int(m.group(2))
    raise SystemExit(f"FAIL no {struct}.{member} in {path}")


def check_absurd_fh(c, d, set_name, truth, nt, tmp):
    """An NFS file handle whose length is garbage (fh.size 0xffff in a copy
    of the ELF dump, nfs_regular's): its row says why, and nothing else of
    the inode is lost (issue 31, bad input)."""
    t, n = truth.get("nfs_regular"), nt.get("nfs_regular")
    if not (t and n):
        c.ok(f"{set_name} absurd fh: nfs_regular in truth and nfs-truth", False)
        return
    pa = os.path.join(d, "nfs-pahole.txt")
    off = pahole_offset(pa, "nfs_inode", "fh") + pahole_offset(pa, "nfs_fh", "size")
    copy = ElfCopy(d, tmp, "absurd-fh.vmcore")
    copy.write_phys(int(n["object_phys"], 16) + off, (0xffff).to_bytes(2, "little"))
    name = f"{set_name} absurd fh.size"
    p, doc = run_json_args(["-k", os.path.join(d, "vmlinux")], copy.path, [t["addr"]])
    got = (doc.get("inodes") or [{}])[0]
    # a row the dump could not give is an incomplete part: exit 4, said
    c.eq(name + ": exit code (incomplete)", p.returncode, 4)
    c.ok(name + ": an 'fs' error says why",
         any(e.get("field") == "fs" and "absurd" in (e.get("reason") or "")
             for e in got.get("errors") or []), str(got.get("errors")))
    c.ok(name + ": no crash", "Sanitizer" not in p.stderr and p.returncode >= 0, p.stderr[-400:])
    c.eq(name + ": the inode decodes", got.get("error"), None)
    c.eq(name + ": its ino", got.get("ino"), int(t["ino"]))
    fs = got.get("fs") or {}
    rows = fs.get("rows") or {}
    c.eq(name + ": fh row", rows.get("fh"), None)
    c.eq(name + ": fh_size row shows the garbage", rows.get("fh_size"), 0xffff)
    c.eq(name + ": the other rows stand (fileid)", rows.get("fileid"), int(n["fileid"]))
    c.ok(name + ": says why", "absurd" in ((fs.get("unread") or {}).get("fh") or ""),
         str(fs.get("unread")))
    p = run(["-k", os.path.join(d, "vmlinux"), copy.path, t["addr"]])
    c.ok(name + ": text says why", "absurd" in p.stdout, p.stdout[-1500:])
    os.unlink(copy.path)


def check_sweep(c, d, set_name, fmt, session, args, truth_rows):
    """--sweep --fs nfs4: the one nfs4 superblock, drgn's count of it."""
    want_sbs = {}
    with open(os.path.join(d, "slab-truth.txt")) as f:
        for line in f:
            if line.startswith("sb "):
                t = kv(line[3:])
                if t["type"] == "nfs4":
                    want_sbs["0x" + t["addr"]] = int(t["s_inodes"])
    n = f"{set_name}/{fmt}/{session} sweep --fs nfs4"
    c.eq(n + ": slab-truth.txt has one nfs4 superblock", len(want_sbs), 1)
    p = run([*args, "--sweep", "--jsonl", "--fs", "nfs4", os.path.join(d, fmt)])
    addrs, sbs = set(), {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "superblock" in o:
            sbs[o["superblock"]] = o
        elif "summary" not in o:
            addrs.add(o["address"])
            c.eq(f"{n} {o['address']} fs_type", o["fs_type"], "nfs4")
    c.eq(n + " superblocks", sorted(sbs), sorted(want_sbs))
    for sb, count in want_sbs.items():
        c.eq(f"{n} {sb} inodes (drgn: s_inodes)", sbs.get(sb, {}).get("inodes"), count)
        c.eq(f"{n} {sb} violations", sbs.get(sb, {}).get("violations"), 0)
    for t in truth_rows:
        if t["fstype"] == "nfs4":
            c.ok(f"{n} has {t['role']}", "0x" + t["addr"] in addrs, t["addr"])
    c.eq(n + " exit code", p.returncode, 0)


def run_json_args(args, dump, addrs):
    """fixture.run_json with the session's own arguments (-k VMLINUX, or
    an empty --debug-root: types from the dump's BTF)."""
    p = run([*args, "--json", dump, *addrs])
    try:
        return p, json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL output is not JSON ({e}); exit {p.returncode}; "
                         f"stderr: {p.stderr}\nstdout: {p.stdout[:2000]}")


def main():
    set_name = sys.argv[1]
    d = set_dir(set_name)
    serial = os.path.join(d, "serial.log")
    truth = {t["role"]: t for t in read_truth(os.path.join(d, "truth.txt"))}
    stats = {s["role"]: s for s in guest_lines(serial, "inodedump-stat:")}
    nfs = {s["role"]: s for s in guest_lines(serial, "inodedump-nfs:")}
    mounts = guest_lines(serial, "inodedump-nfs-mount:")
    c = Checker()
    check_truth(c, set_name, truth, stats, nfs, mounts)
    nt = read_nfs_truth(d)
    check_nfs_truth(c, set_name, truth, nfs, mounts, nt)
    rows = [t for r, t in truth.items() if r.startswith(("nfs_", "nfsd_"))]
    with tempfile.TemporaryDirectory() as tmp:
        check_absurd_fh(c, d, set_name, truth, nt, tmp)
    with tempfile.TemporaryDirectory() as empty:
        sessions = {"dwarf": ["-k", os.path.join(d, "vmlinux")],
                    "btf": ["--debug-root", empty]}
        for fmt in FORMATS:
            for session, args in sessions.items():
                check_decode(c, d, set_name, fmt, session, args, rows, nt)
                if fmt != "elf-nopaging.vmcore":
                    check_sweep(c, d, set_name, fmt, session, args, rows)
    c.finish()


if __name__ == "__main__":
    main()
