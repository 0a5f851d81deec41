#!/usr/bin/python3
"""What an address is (issue 30): `vmcore-inode --what` against drgn's
slab_object_info() on the same dump.

usage: test_what.py SET

(old510's kernel names no kallsyms in VMCOREINFO: from the dump alone its
tables are found in the kernel image, kallsyms_find.c.)

Truth: SET/slab-truth.txt where the set's recipe wrote one, else
tests/vmcores/drgn_slab_truth.py run now by drgn 0.3.0 in the sid chroot
over the set's unfiltered dump (d0-zlib, else d17-zlib: -d 17 keeps every
slab page) and its truth.txt. Every line is an address drgn classified:
each truth inode, free objects of every inode cache, a superblock, a
dentry, an address inside an inode and one outside the direct map.

On the unfiltered dump, with vmlinux (DWARF) and from the dump alone
(BTF, kallsyms): cache, object size, stride, object start and allocated
or free equal drgn's; a truth inode's address is the inode the cache's
object holds; the mid-inode address is not. On each -d 31 dump of the
same moment: every definite answer equals drgn's; where the writer
dropped what it takes, the state is "unknown" and "unread" says why —
never a different answer.

arm64-510 and arm64-61 (Debian's arm64 5.10 and 6.1: kallsyms of text
symbols only) from the dump alone: no __per_cpu_offset, so the CPUs'
slabs cannot be read: each state is drgn's or "unknown" with that
reason (exit 4), never another; with vmlinux, drgn's.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, run, set_dir, what  # noqa: E402
import sid_drgn  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Sets whose kallsyms keeps text symbols only: from the dump alone the
# CPUs' slabs (__per_cpu_offset) are not known.
PERCPU_UNKNOWN = {"arm64-510", "arm64-61"}


def check_state(c, tag, s, want, percpu_unknown):
    """s's state is drgn's; where the CPUs' slabs cannot be read it may
    be "unknown", saying so."""
    if percpu_unknown and s["state"] == "unknown":
        c.ok(f"{tag}: unknown, for the CPUs' slabs", "__per_cpu_offset" in
             (s.get("unread") or ""), str(s))
    else:
        c.eq(f"{tag}: state", s["state"], want)


def any_chroot(d):
    """The sid chroot of this set, else of any set built here (every
    recipe that makes one makes the same chroot)."""
    c = sid_drgn.chroot_of(d)
    if c and os.path.isfile(os.path.join(c, ".complete")):
        return c
    out = os.path.join(HERE, "vmcores", "out")
    for s in sorted(os.listdir(out)):
        c = sid_drgn.chroot_of(os.path.join(out, s))
        if c and os.path.isfile(os.path.join(c, ".complete")):
            return c
    raise SystemExit("FAIL no sid chroot with drgn 0.3.0: run "
                     "tests/vmcores/make-fixtures.sh stock73")


def truth_lines(d, base):
    path = os.path.join(d, "slab-truth.txt")
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    else:
        chroot = any_chroot(d)
        # sid_drgn.run finds the chroot through the set's info.txt; ask
        # with a set-like view that names the one found.
        info = sid_drgn.info(d)
        if not info.get("sid_chroot") and "sid_chroot=" not in info.get("drgn", ""):
            sid_drgn.chroot_of = lambda _d, c=chroot: c
        text = sid_drgn.run(d, "vmcores/drgn_slab_truth.py",
                            ["/fx/vmlinux", sid_drgn.fx(base), "/fx/truth.txt"]).decode()
    rows = []
    for line in text.splitlines():
        kind, *toks = line.split()
        if kind != "what":
            continue
        row = dict(t.split("=", 1) for t in toks)
        rows.append({k: (None if v == "-" else v) for k, v in row.items()})
    if not rows:
        raise SystemExit(f"FAIL no 'what' lines in the slab truth of {d}")
    return rows


def main():
    name = sys.argv[1]
    d = set_dir(name)
    base = "d0-zlib.vmcore" if os.path.exists(os.path.join(d, "d0-zlib.vmcore")) \
        else "d17-zlib.vmcore"
    rows = truth_lines(d, base)
    addrs = [r["addr"] for r in rows]
    c = Checker()
    empty = tempfile.mkdtemp(prefix="what-noroot-")
    sessions = {"dwarf": ["-k", os.path.join(d, "vmlinux")],
                "btf": ["--debug-root", empty]}
    filtered = [f for f in sorted(os.listdir(d))
                if "d31" in f and f.endswith(".vmcore")]
    c.ok(f"{name}: a -d 31 dump to read", filtered, "none in the set")
    kinds = {r["kind"] for r in rows}
    for k in ("inode", "freed", "super", "dentry", "mid", "nonslab"):
        c.ok(f"{name}: truth has kind {k}", k in kinds, f"kinds {sorted(kinds)}")

    for sname, args in sessions.items():
        percpu_unknown = sname == "btf" and name in PERCPU_UNKNOWN
        p, got = what(args, os.path.join(d, base), addrs)
        c.eq(f"{name} {sname} {base}: exit", p.returncode, 4 if percpu_unknown else 0)
        c.eq(f"{name} {sname}: one answer per address", len(got), len(rows))
        for r, w in zip(rows, got):
            tag = f"{name} {sname} {base} {r['kind']} {r['addr']}"
            s = w.get("slab")
            if r["cache"] is None:
                c.ok(f"{tag}: in no slab", s is None and w.get("memory"), str(w))
                continue
            c.ok(f"{tag}: in a slab", s is not None, str(w))
            if s is None:
                continue
            c.eq(f"{tag}: cache", s["cache"], r["cache"])
            c.eq(f"{tag}: object_size", s["object_size"], int(r["object_size"]))
            c.eq(f"{tag}: stride", s["stride"], int(r["size"]))
            c.eq(f"{tag}: object", s["object"], "0x" + r["start"])
            check_state(c, tag, s, r["state"], percpu_unknown)
            if r["kind"] == "inode":
                inode = s.get("inode") or {}
                c.eq(f"{tag}: the object's inode is this address",
                     inode.get("address"), "0x" + r["addr"])
            if r["kind"] == "mid":
                inode = s.get("inode") or {}
                c.ok(f"{tag}: the object's inode is not this address",
                     inode.get("address") not in (None, "0x" + r["addr"]), str(inode))
            if r["kind"] in ("super", "dentry"):
                c.eq(f"{tag}: no inode in a {r['cache']} object", s.get("inode"), None)

        # A freed inode: said to be freed first; --force decodes it, marked.
        freed = [r for r in rows if r["kind"] == "freed" and r["state"] == "free"]
        for r in freed[:6]:
            tag = f"{name} {sname} {base} freed {r['addr']}"
            p = run([*args, os.path.join(d, base), r["addr"]])
            if p.returncode == 3:
                # where the CPUs' slabs are unknown, a free object on one
                # is refused for its bytes instead (it is not an inode)
                c.ok(f"{tag}: refused, saying it is a freed object",
                     "freed object" in p.stderr or
                     (percpu_unknown and "does not look like a struct inode"
                      in p.stderr), p.stderr[-400:])
            else:
                c.ok(f"{tag}: decoded only marked FREED", "FREED" in p.stdout,
                     p.stdout[:400])
            p = run([*args, "--force", "--json", os.path.join(d, base), r["addr"]])
            try:
                g = json.loads(p.stdout)["inodes"][0]
            except (json.JSONDecodeError, KeyError, IndexError):
                g = {}
            if percpu_unknown and (g.get("slab") or {}).get("state") == "unknown":
                c.ok(f"{tag}: --force: the slab says unknown, for the CPUs' slabs",
                     "__per_cpu_offset" in str(g.get("slab")), str(g.get("slab")))
            else:
                c.eq(f"{tag}: --force: the slab says free",
                     (g.get("slab") or {}).get("state"), "free")
        for f in filtered:
            p, got = what(args, os.path.join(d, f), addrs)
            c.ok(f"{name} {sname} {f}: exit 0 or 4", p.returncode in (0, 4),
                 f"exit {p.returncode}: {p.stderr[:500]}")
            unknown = 0
            for r, w in zip(rows, got):
                tag = f"{name} {sname} {f} {r['kind']} {r['addr']}"
                s = w.get("slab")
                if r["cache"] is None:
                    c.ok(f"{tag}: in no slab", s is None, str(w))
                    continue
                if s is None:
                    c.ok(f"{tag}: not in a slab only with a reason",
                         w.get("memory"), str(w))
                    unknown += 1
                    continue
                if s["state"] == "unknown":
                    c.ok(f"{tag}: unknown says why", s.get("unread"), str(s))
                else:
                    c.eq(f"{tag}: state", s["state"], r["state"])
                if s["cache"] is None:
                    c.ok(f"{tag}: an unread name says why", s.get("unread"), str(s))
                else:
                    c.eq(f"{tag}: cache", s["cache"], r["cache"])
                if s["state"] == "unknown" or s["cache"] is None:
                    unknown += 1
                c.eq(f"{tag}: object", s["object"], "0x" + r["start"])
            # No inode whose own bytes are in the dump is refused: a lost
            # superblock, dentry or freelist is a note (exit 4), the
            # filesystem then inferred.
            inode_rows = [r for r in rows if r["kind"] == "inode"]
            pd = run([*args, "--json", os.path.join(d, f),
                      *sorted({r["addr"] for r in inode_rows})])
            try:
                decoded = json.loads(pd.stdout).get("inodes", [])
            except json.JSONDecodeError:
                decoded = []
                c.ok(f"{name} {sname} {f}: decode JSON", False, pd.stderr[-500:])
            for g in decoded:
                if "error" not in g:
                    inferred = g.get("fs_inferred")
                    if g.get("fs_type") is None:
                        c.ok(f"{name} {sname} {f} {g['address']}: a lost "
                             "superblock's filesystem inferred", inferred, str(g)[:400])
                    continue
                at = int(g["error"].get("address") or "0", 16)
                c.ok(f"{name} {sname} {f} {g['address']}: refused only for its "
                     "own bytes", g["error"]["kind"] == "filtered" and
                     0 <= at - int(g["address"], 16) < 1024, str(g["error"])[:400])
            c.ok(f"{name} {sname} {f}: exit 4 when something was unknown",
                 p.returncode == (4 if unknown else p.returncode), f"exit {p.returncode}")
            print(f"{name} {sname} {f}: {len(rows) - unknown} of {len(rows)} "
                  f"answered in full, {unknown} unknown with a reason")
    os.rmdir(empty)
    c.finish()


if __name__ == "__main__":
    main()
