#!/usr/bin/python3
"""Damage under a filesystem's rows (issue 31): copies of fs612's
elf-nopaging dump (memory as it was) with one thing broken, each answered
with a clear note in the symlink target's place, the inode's VFS fields
and its filesystem's rows as in the undamaged dump, the exit status
unchanged where the page is only absent (damage, xa_cycle: exit 4 and an
i_mapping error naming it, issue 41), no crash and no hang (each run
bounded by a timeout):

  xa_cycle         every slot of the root node of the block device's page
                   cache (where ext4_get_link's block is) points back to
                   that node: "cyclic or damaged"
  xa_outside       a tmpfs long symlink's page-cache entry points outside
                   memory: its struct page "not in the dump"
  xa_value         that entry is a value (shadow/swap) entry: "not in
                   memory"
  if_bytes_absurd  an XFS inline symlink's if_bytes is 100000: "absurd"

Where each structure is comes from drgn 0.0.22 reading the undamaged dump
with vmlinux's types, and for XFS from pahole on xfs.ko's BTF (drgn has no
module types here), never from vmcore-inode.
"""
import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drgn  # noqa: E402
from drgn import Object  # noqa: E402
from fixture import Checker, ElfCopy, read_truth, run, set_dir  # noqa: E402
from test_fs_rows import kernel_dir, pahole  # noqa: E402

UNMAPPED = 0xffffc8ffff000000
CASES = {"xa_cycle": ("ext4_symlink_long", "cyclic or damaged"),
         "xa_outside": ("tmpfs_symlink_long", "not in the dump"),
         "xa_value": ("tmpfs_symlink_long", "not in memory"),
         "if_bytes_absurd": ("xfs_symlink_short", "absurd")}


def decode(vmlinux, dump, addr):
    p = run(["-k", vmlinux, "--json", dump, addr], timeout=120)
    try:
        return p.returncode, json.loads(p.stdout)["inodes"][0]
    except (json.JSONDecodeError, KeyError, IndexError) as e:
        raise SystemExit(f"FAIL not JSON ({e}); exit {p.returncode}; "
                         f"stderr {p.stderr[:2000]}")


def main():
    case = sys.argv[1]
    role, want = CASES[case]
    d = set_dir("fs612")
    vmlinux = os.path.join(d, "vmlinux")
    truth = next(t for t in read_truth(os.path.join(d, "truth.txt"))
                 if t["role"] == role)
    addr = int(truth["addr"], 16)
    prog = drgn.Program()
    prog.set_core_dump(os.path.join(d, "d0-zlib.vmcore"))
    prog.load_debug_info([vmlinux])
    pob = prog["page_offset_base"].value_()

    def phys(va):
        if va < pob:
            raise SystemExit(f"FAIL 0x{va:x} is not in the direct map")
        return va - pob
    ino = Object(prog, "struct inode *", value=addr)
    writes = []
    if case == "xa_cycle":
        m = ino.i_sb.s_bdev.bd_mapping
        head = m.i_pages.xa_head.value_()
        if head & 3 != 2 or head < 4096:
            raise SystemExit(f"FAIL the bdev's page cache has no node "
                             f"(xa_head 0x{head:x})")
        node = Object(prog, "struct xa_node *", value=head - 2)
        slots = node.slots.address_of_().value_()
        n = len(node.slots)
        writes.append((phys(slots), struct.pack(f"<{n}Q", *[head] * n)))
    elif case in ("xa_outside", "xa_value"):
        at = ino.i_mapping.i_pages.xa_head.address_of_().value_()
        v = UNMAPPED if case == "xa_outside" else (0x1234 << 1) | 1
        writes.append((phys(at), struct.pack("<Q", v)))
    else:
        members = pahole(kernel_dir(d), "xfs.ko", "xfs_inode")
        fork = pahole(kernel_dir(d), "xfs.ko", "xfs_ifork")
        obj = addr - members["i_vnode"][0]
        off, size = fork["if_bytes"]
        at = obj + members["i_df"][0] + off
        writes.append((phys(at), (100000).to_bytes(size, "little")))
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        before_rc, before = decode(vmlinux, os.path.join(d, "elf-nopaging.vmcore"),
                                   truth["addr"])
        copy = ElfCopy(d, tmp)
        for pa, data in writes:
            copy.write_phys(pa, data)
        rc, after = decode(vmlinux, copy.path, truth["addr"])
        st = (after.get("fs") or {}).get("stat") or {}
        note = (st.get("target_unavailable") or {}).get("value") or ""
        print(f"{case}: target_unavailable: {note!r}")
        c.ok(f"{case}: the target's note says {want!r}", want in note,
             f"stat: {json.dumps(st)}")
        c.ok(f"{case}: no target shown", "target" not in st)
        damage = case == "xa_cycle"
        if damage:
            # A page cache that cannot be so is damage, said (issue 41):
            # exit 4 and the inode's i_mapping error naming it.
            c.eq(f"{case}: damage makes the run partial", rc, 4)
            errs = after.get("errors") or []
            c.ok(f"{case}: an i_mapping error names the damage",
                 len(errs) == 1 and errs[0].get("field") == "i_mapping" and
                 want in (errs[0].get("reason") or ""), json.dumps(errs))
        else:
            c.eq(f"{case}: exit status unchanged", rc, before_rc)
        for k, v in before.items():
            if k == "fs" or (damage and k == "errors"):
                continue
            c.eq(f"{case}: VFS {k} as undamaged", after.get(k), v)
        rows_b = (before.get("fs") or {}).get("rows") or {}
        rows_a = (after.get("fs") or {}).get("rows") or {}
        for k, v in rows_b.items():
            if case == "if_bytes_absurd" and k == "df_bytes":
                c.eq(f"{case}: row {k} shows the damage", rows_a.get(k), 100000)
                continue
            c.eq(f"{case}: row {k} as undamaged", rows_a.get(k), v)
        c.ok(f"{case}: rows there", len(rows_b) > 5)
    c.finish()


if __name__ == "__main__":
    main()
