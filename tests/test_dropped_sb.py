#!/usr/bin/python3
"""An inode whose superblock the dump's writer dropped is decoded, never
refused (issue 30): copies of a real diskdump with the page holding one
superblock left out (its bit in the dumped-pages bitmap cleared, as
makedumpfile -d 31 leaves out kmalloc-2k pages it takes for user pages).

usage: test_dropped_sb.py SET

For the tmpfs and the ext4 superblock of the set's truth inodes: every
truth inode on that superblock decodes (exit 4, never 3), its i_sb note
explains the page, the filesystem is inferred (the slab cache, or the
module of its i_op) and equals the truth's fstype, and every field that
does not come from the superblock equals the decode of the whole dump.
Where the page is comes from drgn (0.0.22: 5.10 and 6.12) reading the
unmodified dump; the fstype from the set's truth.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drgn  # noqa: E402
from drgn.helpers.linux.mm import virt_to_phys  # noqa: E402
from fixture import Checker, read_truth, run, set_dir  # noqa: E402
from test_slab510 import without_page  # noqa: E402

SB_KEYS = ("sb", "fs_type", "s_id", "s_dev", "s_magic", "s_op")


def decode(vmlinux, dump, addrs):
    p = run(["-k", vmlinux, "--json", dump, *addrs])
    try:
        return p, {g["address"]: g for g in json.loads(p.stdout)["inodes"]}
    except (json.JSONDecodeError, KeyError) as e:
        raise SystemExit(f"FAIL not JSON ({e}): exit {p.returncode} {p.stderr[-500:]}")


def main():
    name = sys.argv[1]
    d = set_dir(name)
    vmlinux, dump = os.path.join(d, "vmlinux"), os.path.join(d, "d17-zlib.vmcore")
    truth = read_truth(os.path.join(d, "truth.txt"))
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    c = Checker()
    with open(dump, "rb") as f:
        data = bytearray(f.read())
    for fstype in ("tmpfs", "ext4"):
        rows = [t for t in truth if t.get("fstype") == fstype]
        c.ok(f"{name}: truth inodes on {fstype}", rows, "none")
        if not rows:
            continue
        sb = int(rows[0]["sb"], 16)
        rows = [t for t in rows if int(t["sb"], 16) == sb]
        addrs = sorted({t["addr"] for t in rows})
        pfn = virt_to_phys(prog, sb).value_() // 4096
        _, whole = decode(vmlinux, dump, addrs)
        with tempfile.TemporaryDirectory() as tmp:
            cut = os.path.join(tmp, "no-sb.vmcore")
            with open(cut, "wb") as f:
                f.write(without_page(bytearray(data), pfn))
            p, got = decode(vmlinux, cut, addrs)
        tag = f"{name} {fstype} superblock 0x{sb:x} (pfn 0x{pfn:x}) left out"
        c.eq(f"{tag}: exit 4 (partial), never 3", p.returncode, 4)
        for a in addrs:
            g, w = got.get("0x" + a, {}), whole.get("0x" + a, {})
            c.ok(f"{tag}: 0x{a} decoded", "error" not in g and g, str(g)[:300])
            if "error" in g or not g:
                continue
            notes = [e for e in g.get("errors", []) if e["field"] == "i_sb"]
            c.ok(f"{tag}: 0x{a} i_sb noted, the page explained",
                 notes and "filtered out of the dump" in notes[0]["reason"],
                 str(g.get("errors"))[:400])
            c.eq(f"{tag}: 0x{a} filesystem inferred",
                 (g.get("fs_inferred") or {}).get("fs"), fstype)
            skip = SB_KEYS + ("errors", "fs_inferred", "violations",
                              "skipped_checks", "paths", "ns_paths", "fs")
            c.eq(f"{tag}: 0x{a} every other field as in the whole dump",
                 {k: v for k, v in g.items() if k not in skip},
                 {k: v for k, v in w.items() if k not in skip})
            # the fs rows read through the superblock (ext4's bdev
            # mapping) unread, saying so; every other row as whole
            gf, wf = g.get("fs") or {}, w.get("fs") or {}
            unread = (gf.get("unread") or {})
            c.ok(f"{tag}: 0x{a} fs rows unread only through the superblock",
                 set(unread) <= {"bdev_mapping"}, f"{sorted(unread)}")
            c.eq(f"{tag}: 0x{a} fs rows as in the whole dump",
                 {k: v for k, v in (gf.get("rows") or {}).items()
                  if k not in unread},
                 {k: v for k, v in (wf.get("rows") or {}).items()
                  if k not in unread})
            gs, ws = gf.get("stat") or {}, wf.get("stat") or {}
            if "target" in ws:
                c.ok(f"{tag}: 0x{a} its target as whole or said "
                     f"unreachable", gs.get("target") == ws["target"] or
                     ("target_unavailable" in gs and "bdev_mapping" in unread),
                     json.dumps(gs))
        print(f"{tag}: {len(addrs)} inodes decoded, exit {p.returncode}")
    c.finish()


if __name__ == "__main__":
    main()
