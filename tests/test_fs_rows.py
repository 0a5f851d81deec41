#!/usr/bin/python3
"""What stat(2) and readlink(2) show, from a filesystem's own rows (issue 31).

    test_fs_rows.py SET     every role of an XFS, btrfs, ext4 or tmpfs
                            inode in the set's truth: in every dump of the
                            set, with its vmlinux and with BTF only, what we
                            say stat shows (a derived st_dev, st_blocks,
                            st_size, symlink target where the filesystem's
                            getattr/get_link does not take it from the VFS
                            inode, else the VFS value) equals the guest's
                            own stat/readlink line; wherever the guest's
                            stat differs from the VFS inode a derived value
                            is there; the BTF-only "fs" object equals the
                            DWARF one; the subvolume of btrfs inodes is
                            their root's objectid, distinct where inode
                            numbers repeat.

Truth: the guest's `inodedump-stat:` lines on its serial console (stat and
readlink run inside the guest), and truth.txt for each role's inode
address. A dump whose writer left out what a value needs (the host's
makedumpfile 1.7.2 drops slab pages at -d 31; any -d 31 drops the page
cache) may not give that value: then the output must say why
(fs.unavailable, or a target_unavailable note) — never a different value.
Prints the count of (role, field) rows that agree.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from fixture import Checker, read_truth, set_dir, stat_lines
from fixture import run as fixture_run
import sid_drgn

COVERED = {"xfs", "btrfs", "ext4", "tmpfs"}
DUMPS = ["d0-zlib", "d17-zlib", "d31-zlib", "sid-d31-zlib", "elf-nopaging"]
# Formats that keep every page a value here needs (no -d 31).
WHOLE = {"d0-zlib", "d17-zlib", "elf-nopaging"}


def decode(args, env=None):
    p = fixture_run(["--json", *args], env=env)
    try:
        return p, json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL not JSON ({e}); exit {p.returncode}; "
                         f"stderr: {p.stderr[:2000]}")


def shown(ino):
    """What we say stat shows: (dev, blocks, size, link, notes)."""
    fs = ino.get("fs") or {}
    st = fs.get("stat") or {}

    def pick(key, vfs):
        return st[key]["value"] if key in st else vfs
    link = st["target"]["value"] if "target" in st else ino.get("link")
    notes = []
    if fs.get("unavailable"):
        notes.append("fs unavailable: " + fs["unavailable"])
    if "target_unavailable" in st:
        notes.append("target unavailable: " + st["target_unavailable"]["value"])
    return ({"dev": pick("st_dev", ino.get("s_dev")),
             "blocks": pick("st_blocks", ino.get("blocks")),
             "size": pick("st_size", ino.get("size")),
             "link": link}, st, notes)


def check_set(c, name, tmp):
    d = set_dir(name)
    truth = [r for r in read_truth(os.path.join(d, "truth.txt"))
             if r.get("fstype") in COVERED and r.get("addr")]
    stats = stat_lines(d)
    roles = [r for r in truth if r["role"] in stats]
    c.ok(f"{name}: roles of covered filesystems with stat lines",
         len(roles) >= 20, f"{len(roles)}")
    addrs = sorted({r["addr"] for r in roles})
    vmlinux = os.path.join(d, "vmlinux")
    no_debug = os.path.join(tmp, "no-debug-root")
    os.makedirs(no_debug, exist_ok=True)
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    env.pop("DEBUGINFOD_URLS", None)
    totals = {}
    for fmt in DUMPS:
        dump = os.path.join(d, fmt + ".vmcore")
        if not os.path.exists(dump):
            continue
        p, doc = decode(["-k", vmlinux, dump, *addrs])
        dwarf = {i["address"].lower().removeprefix("0x"): i
                 for i in doc["inodes"]}
        pb, docb = decode(["--debug-root", no_debug, dump, *addrs], env=env)
        btf = {i["address"].lower().removeprefix("0x"): i
               for i in docb["inodes"]}
        agree = total = explained = lost = unavailable = 0
        for r in roles:
            role, s = r["role"], stats[r["role"]]
            ino = dwarf.get(r["addr"])
            c.ok(f"{name} {fmt} {role}: decoded", ino is not None)
            if ino is None:
                continue
            got, st, notes = shown(ino)
            # rows without types (a module whose BTF pages the dump
            # lacks): said why, the VFS fields still decoded
            un = (ino.get("fs") or {}).get("unavailable")
            if un:
                unavailable += 1
                c.ok(f"{name} {fmt} {role}: fs unavailable, VFS fields "
                     f"stand", ino.get("mode") is not None and
                     ino.get("size") is not None and
                     not (ino["fs"].get("rows")), un)
            raw = {"dev": ino.get("s_dev"), "blocks": ino.get("blocks"),
                   "size": ino.get("size"), "link": ino.get("link")}
            want = {"dev": s["dev"], "blocks": int(s["blocks"]),
                    "size": int(s["size"]),
                    "link": None if s["link"] == "-" else s["link"]}
            for k in ("dev", "blocks", "size", "link"):
                total += 1
                if got[k] == want[k]:
                    agree += 1
                    c.ok("", True)
                    continue
                # the inode's own page left out (a -d 31 writer dropping
                # slab pages): nothing shown, the errors say why
                if fmt not in WHOLE and raw[k] is None and got[k] is None \
                        and (ino.get("errors") or ino.get("error")):
                    c.ok("", True)
                    lost += 1
                    continue
                # a value this dump cannot give: said, never another value
                said = bool(notes) and (fmt not in WHOLE or
                                        not any("fs unavailable" in n
                                                for n in notes))
                if k == "link" and got[k] is None and said:
                    # only an XFS remote symlink is out of reach whole
                    c.ok(f"{name} {fmt} {role}: target said unavailable "
                         f"only where the dump lacks it or XFS keeps it "
                         f"on disk", fmt not in WHOLE or
                         r["fstype"] == "xfs", f"{notes}")
                    explained += 1
                    continue
                if fmt not in WHOLE and notes and raw[k] == got[k]:
                    c.ok("", True)  # rows unavailable: the VFS value stands
                    continue
                c.ok(f"{name} {fmt} {role} {k}", False,
                     f"we show {got[k]!r}, the guest's stat {want[k]!r} "
                     f"(VFS {raw[k]!r}; notes {notes})")
            # stat differs from the VFS inode: a derived value says why
            for k, key in (("dev", "st_dev"), ("blocks", "st_blocks"),
                           ("size", "st_size"), ("link", "target")):
                if raw[k] != want[k] and fmt in WHOLE:
                    if key == "target" and "target_unavailable" in st:
                        key = "target_unavailable"
                    c.ok(f"{name} {fmt} {role}: stat's {k} differs from "
                         f"the VFS inode and a derived {key} says why",
                         key in st and st[key].get("derived"))
            # BTF only: the filesystem's object as DWARF has it
            b = btf.get(r["addr"])
            c.ok(f"{name} {fmt} {role}: BTF-only fs equals DWARF's",
                 b is not None and b.get("fs") == ino.get("fs"),
                 "" if b is None else
                 f"\n  dwarf {json.dumps(ino.get('fs'))[:600]}"
                 f"\n  btf   {json.dumps(b.get('fs'))[:600]}")
            # btrfs: the subvolume apart from the inode number
            if r["fstype"] == "btrfs" and fmt in WHOLE:
                rows = (ino.get("fs") or {}).get("rows") or {}
                sub = rows.get("subvolume")
                want_sub = 5 if not ("sub" in role.split("_")[1]) else None
                if want_sub:
                    c.eq(f"{name} {fmt} {role}: top-level subvolume 5",
                         sub, 5)
                else:
                    c.ok(f"{name} {fmt} {role}: a subvolume of its own "
                         f"(>= 256)", isinstance(sub, int) and sub >= 256,
                         f"{sub!r}")
        if fmt == "d31-zlib" and name == "fs612":
            # makedumpfile 1.7.2 left out the modules' BTF pages here
            c.ok(f"{name} {fmt}: filesystems whose types are not in the "
                 f"dump say so", unavailable > 0, f"{unavailable}")
            pn, _ = decode(["-k", vmlinux, "--no-fs-rows", dump, *addrs])
            c.eq(f"{name} {fmt}: exit status as without fs rows",
                 p.returncode, pn.returncode)
        totals[fmt] = (agree + (explained if fmt in WHOLE else 0), total)
        print(f"{name} {fmt}: {agree} of {total} (role, field) rows agree "
              f"with the guest's stat/readlink, {explained} said "
              f"unavailable, {lost} in inodes the dump lacks, "
              f"{unavailable} without fs rows "
              f"({len(roles)} roles; "
              f"exit {p.returncode}, BTF-only exit {pb.returncode})")
    c.ok(f"{name}: a whole dump read", any(f in totals for f in WHOLE))
    for fmt in WHOLE & set(totals):
        a, t = totals[fmt]
        c.eq(f"{name} {fmt}: every row agrees or is an XFS remote "
             f"target said not in memory", a, t)


# Each row checked against pahole's offsets in the module's own BTF and
# drgn's raw read of the dump there (drgn has no module types here): row
# key -> (hops, signed); a hop is the (struct, member) pairs whose offsets
# add up, the last one's size read; a second hop follows the pointer the
# first read.
def _one(struct, *members):
    return [[(struct, m) for m in members]]


XFS_CHECKS = {k: (_one("xfs_inode", m), sg) for k, m, sg in (
    ("nblocks", "i_nblocks", False), ("forkoff", "i_forkoff", False),
    ("cowfp", "i_cowfp", False), ("sick", "i_sick", False),
    ("prev_unlinked", "i_prev_unlinked", False),
    ("delayed_blks", "i_delayed_blks", False),
    ("disk_size", "i_disk_size", True), ("diflags", "i_diflags", False),
    ("diflags2", "i_diflags2", False), ("projid", "i_projid", False),
    ("extsize", "i_extsize", False), ("iflags", "i_flags", False),
    ("next_unlinked", "i_next_unlinked", False))}
for _k, _m, _sg in (("df_format", "if_format", False),
                    ("df_bytes", "if_bytes", True),
                    ("df_nextents", "if_nextents", False)):
    XFS_CHECKS[_k] = ([[("xfs_inode", "i_df"), ("xfs_ifork", _m)]], _sg)
XFS_CHECKS["af_format"] = ([[("xfs_inode", "i_af"),
                             ("xfs_ifork", "if_format")]], False)
# 7.x has no xfs_inode.i_ino: the VFS inode's
XFS_CHECKS["ino"] = [(_one("xfs_inode", "i_ino"), False),
                     ([[("xfs_inode", "i_vnode"), ("inode", "i_ino")]], False)]
BTRFS_CHECKS = {k: (_one("btrfs_inode", k), False) for k in (
    "generation", "last_trans", "logged_trans", "last_unlink_trans",
    "flags", "ro_flags", "runtime_flags", "delalloc_bytes",
    "new_delalloc_bytes", "defrag_bytes", "csum_bytes", "dir_index",
    "outstanding_extents")}
BTRFS_CHECKS["disk_i_size"] = (_one("btrfs_inode", "disk_i_size"), True)
BTRFS_CHECKS["subvolume"] = ([[("btrfs_inode", "root")],
                              [("btrfs_root", "root_key"),
                               ("btrfs_key", "objectid")]], False)
BTRFS_CHECKS["anon_dev"] = ([[("btrfs_inode", "root")],
                             [("btrfs_root", "anon_dev")]], False)
MODULES = {"xfs": ("xfs.ko", "xfs_inode", "i_vnode", XFS_CHECKS),
           "btrfs": ("btrfs.ko", "btrfs_inode", "vfs_inode", BTRFS_CHECKS)}
MEMBER = re.compile(r"^\s*[^/{}]+?[\s*](\w+)(\[\d+\])?;\s*/\*\s*(\d+)\s+(\d+)\s*\*/")


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: (\w+)", out)
    return m.group(1) if m else None


def kernel_dir(d):
    """The fixture cache's kernel directory of the set's own vmlinux."""
    want = build_id(os.path.join(d, "vmlinux"))
    cache = os.environ.get("INODEDUMP_CACHE",
                           os.path.expanduser("~/.cache/inodedump"))
    for k in sorted(glob.glob(os.path.join(cache, "*-kernel-*"))):
        v = os.path.join(k, "vmlinux")
        if os.path.isfile(v) and os.path.isdir(os.path.join(k, "modules")) \
                and build_id(v) == want:
            return k
    raise SystemExit(f"FAIL no kernel directory with {d}'s vmlinux "
                     f"(build-id {want}) under {cache}")


def pahole(kdir, ko, struct):
    """member -> (offset, size) of struct in ko's BTF, anonymous unions
    flattened (pahole prints their members' offsets from the struct's
    start)."""
    out = subprocess.run(
        ["pahole", "--btf_base", os.path.join(kdir, "vmlinux"), "-C",
         struct, os.path.join(kdir, "modules", ko)],
        capture_output=True, text=True).stdout
    m = {}
    for line in out.splitlines():
        g = MEMBER.match(line)
        if g:
            m.setdefault(g.group(1), (int(g.group(3)), int(g.group(4))))
    if not m:
        raise SystemExit(f"FAIL pahole found no struct {struct} in {ko}")
    return m


def raw_read(d, dump, reqs):
    """drgn 0.3.0's bytes at each (addr, size)."""
    out = sid_drgn.run(d, "drgn_raw_read.py",
                       [sid_drgn.fx(dump)] +
                       [f"{a:x}:{n}" for a, n in reqs]).decode()
    got = {}
    for line in out.splitlines():
        k, _, v = line.partition(" ")
        a, _, n = k.partition(":")
        got[(int(a, 16), int(n))] = None if v == "-" else bytes.fromhex(v)
    return got


def check_pahole_drgn(c, name, d):
    """Every checked row of every XFS and btrfs role of d0-zlib: pahole's
    offset, drgn's bytes, the row's value."""
    kdir = kernel_dir(d)
    dump = os.path.join(d, "d0-zlib.vmcore")
    truth = [r for r in read_truth(os.path.join(d, "truth.txt"))
             if r.get("fstype") in MODULES and r.get("addr")]
    addrs = sorted({r["addr"] for r in truth})
    _, doc = decode(["-k", os.path.join(d, "vmlinux"), dump, *addrs])
    ours = {i["address"][2:]: i for i in doc["inodes"]}
    checked = 0
    for fs, (ko, struct, vfs, checks) in MODULES.items():
        types = {struct: pahole(kdir, ko, struct)}

        def member(sname, mname):
            if sname not in types:
                types[sname] = pahole(kdir, ko, sname)
            return types[sname][mname]
        inode_off = types[struct][vfs][0]
        objs = sorted({int(r["addr"], 16) - inode_off for r in truth
                       if r["fstype"] == fs})
        plans = {}
        for key, alts in checks.items():
            for spec, signed in alts if isinstance(alts, list) else [alts]:
                hops = []
                try:
                    for hop in spec:
                        off = size = 0
                        for sname, mname in hop:
                            o, size = member(sname, mname)
                            off += o
                        hops.append((off, size))
                except KeyError:
                    continue  # not this kernel's: the next alternative
                plans[key] = (hops, signed)
                break
            c.ok(f"{name} {fs} {key}: pahole finds the member",
                 key in plans)
        first = raw_read(d, dump, sorted({(o + h[0][0], h[0][1])
                                          for o in objs
                                          for h, _ in plans.values()}))
        second_reqs, ptrs = set(), {}
        for o in objs:
            for key, (hops, _) in plans.items():
                if len(hops) == 2:
                    b = first.get((o + hops[0][0], hops[0][1]))
                    if b:
                        ptrs[(o, key)] = int.from_bytes(b, "little")
                        second_reqs.add((ptrs[(o, key)] + hops[1][0],
                                         hops[1][1]))
        second = raw_read(d, dump, sorted(second_reqs)) if second_reqs else {}
        for r in truth:
            if r["fstype"] != fs:
                continue
            o = int(r["addr"], 16) - inode_off
            rows = ((ours.get(r["addr"]) or {}).get("fs") or {}).get("rows")
            c.ok(f"{name} {r['role']}: fs rows decoded", rows is not None)
            if rows is None:
                continue
            for key, (hops, signed) in plans.items():
                if len(hops) == 1:
                    b = first.get((o + hops[0][0], hops[0][1]))
                else:
                    p = ptrs.get((o, key))
                    b = second.get((p + hops[1][0], hops[1][1])) if p else None
                if b is None:
                    c.ok(f"{name} {r['role']} {key}: drgn read", False)
                    continue
                v = int.from_bytes(b, "little", signed=signed)
                if key == "cowfp":
                    v = f"0x{v:x}" if v else rows.get(key)  # NULL: null
                if key == "anon_dev":
                    v = f"{v >> 20}:{v & 0xfffff}"
                c.eq(f"{name} {r['role']} {key} (pahole offset, drgn bytes)",
                     rows.get(key), v)
                checked += 1
    print(f"{name}: {checked} XFS/btrfs row values equal drgn's bytes at "
          f"pahole's offsets (d0-zlib)")
    c.ok(f"{name}: rows checked against pahole and drgn", checked >= 100,
         f"{checked}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {sys.argv[0]} SET")
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="inodedump-fsrows-") as tmp:
        check_set(c, sys.argv[1], tmp)
        check_pahole_drgn(c, sys.argv[1], set_dir(sys.argv[1]))
    c.finish()


if __name__ == "__main__":
    main()
