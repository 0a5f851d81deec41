#!/usr/bin/python3
"""Each 7.3 check fires on a copy of a real stock73 dump with one field of one
truth inode changed, and nothing else fires.

drgn 0.3.0 in the set's sid chroot reads the original dump: the physical
address of each member to change and the kernel's own I_* values (enum
inode_state_flags_enum). IOP_* and S_* are #defines in include/linux/fs.h,
written here. The bytes go into a copy of elf-nopaging.vmcore (every
p_vaddr is 0 there: PT_LOADs by physical address), each change on its own
inode; one decode of every truth inode then names the row each change
breaks, and the unchanged inodes stay silent.

usage: test_checks73.py            (the chroot side: --members DUMP SPEC...)
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, ElfCopy, read_truth, run_json, set_dir  # noqa: E402
import sid_drgn  # noqa: E402

# include/linux/fs.h, 7.3.4
IOP_CACHED_LINK = 0x40
IOP_FLCTX = 0x100
S_ANON_INODE = 1 << 19

# role -> (member, how to change it, the checks that must fire)
CHANGES = {
    "ext4_empty": ("i_count.counter", ("i32", 0), ["i_count_zero_referenced"]),
    "ext4_big": ("i_count.counter", ("i32", -1), ["i_count_negative"]),
    "empty": ("i_state.__state", ("enum", "I_CLEAR"), ["inode_freeing"]),
    "big": ("i_state.__state", ("enum", "I_WILL_FREE"), ["igrab_freeing"]),
    "fifo": ("i_opflags", ("or16", IOP_FLCTX), ["flctx_opflag"]),
    "ext4_fifo": ("i_flctx", ("self", 0), ["flctx_opflag"]),
    "chardev": ("i_mode", ("u16", 0o644), ["may_open_mode"]),
    # the same typeless mode on an anonymous inode: may_open() allows it
    "ext4_chardev": ("i_mode", ("anon", 0o644), []),
    "dir": ("i_mode", ("u16", 0o100755), ["lookup_directory"]),
    "symlink_short": ("i_linklen", ("i32", 5), ["cached_link_length"]),
    "ext4_regular": ("i_opflags", ("or16", IOP_CACHED_LINK),
                     ["cached_link_not_symlink"]),
}


def members(dump, specs):
    """In the chroot: {spec: [phys, value]} for "ADDR:member" specs, and
    the I_* values; read by drgn."""
    import drgn
    from drgn import Object
    from drgn.helpers.linux.mm import virt_to_phys
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info(["/fx/vmlinux"])
    out = {name: int(prog[name]) for name in ("I_CLEAR", "I_WILL_FREE")}
    for spec in specs:
        addr, member = spec.split(":")
        m = Object(prog, "struct inode *", int(addr, 16))
        for part in member.split("."):
            m = getattr(m, part)
        out[spec] = [int(virt_to_phys(prog, m.address_)), int(m.value_())]
        if member == "i_mode":
            f = Object(prog, "struct inode *", int(addr, 16)).i_flags
            out[addr + ":i_flags"] = [int(virt_to_phys(prog, f.address_)),
                                      int(f)]
    return out


def new_bytes(how, old, addr, found):
    kind, arg = how
    if kind == "i32":
        return struct.pack("<i", arg)
    if kind == "u16":
        return struct.pack("<H", arg)
    if kind == "or16":
        return struct.pack("<H", old | arg)
    if kind == "enum":
        return struct.pack("<I", found[arg])
    if kind == "self":  # any non-NULL pointer: the inode's own address
        return struct.pack("<Q", int(addr, 16))
    if kind == "anon":  # the mode; main() adds S_ANON_INODE to i_flags
        return struct.pack("<H", arg)
    raise ValueError(kind)


def main():
    if sys.argv[1:2] == ["--members"]:
        json.dump(members(sys.argv[2], sys.argv[3:]), sys.stdout)
        return
    d = set_dir("stock73")
    truth = {t["role"]: t for t in read_truth(os.path.join(d, "truth.txt"))}
    specs = [f"{truth[r]['addr']}:{m}" for r, (m, _, _) in CHANGES.items()]
    found = json.loads(sid_drgn.run(d, "test_checks73.py", [
        "--members", "/fx/elf-paging.vmcore", *specs]))
    c = Checker()
    keep = os.environ.get("KEEP_CHANGED_DUMP")
    with tempfile.TemporaryDirectory() as tmp:
        e = ElfCopy(d, tmp)
        for role, (member, how, _) in CHANGES.items():
            addr = truth[role]["addr"]
            phys, old = found[f"{addr}:{member}"]
            e.write_phys(phys, new_bytes(how, old, addr, found))
            if how[0] == "anon":
                fphys, flags = found[f"{addr}:i_flags"]
                e.write_phys(fphys, struct.pack("<I", flags | S_ANON_INODE))
        addrs = sorted({t["addr"] for t in truth.values()})
        p, doc = run_json(os.path.join(d, "vmlinux"), e.path, addrs)
        if keep:
            shutil.copyfile(e.path, keep)
    by_addr = {i["address"]: i for i in doc["inodes"]}
    c.eq("exit code (violations found)", p.returncode, 1)
    changed = {truth[r]["addr"]: w for r, (_, _, w) in CHANGES.items()}
    for role, t in sorted(truth.items()):
        got = by_addr["0x" + t["addr"]]
        want = changed.get(t["addr"], [])  # a hard link: its inode's
        c.eq(f"{role}: violations", sorted(v["check"] for v in
                                           got["violations"]), sorted(want))
        how = CHANGES.get(role, (None, (None, None)))[1]
        if how[0] == "enum":  # 128 is DW_FORM_data1 0x80: read unsigned
            c.eq(f"{role}: state names", got["state_names"], [how[1]])
    c.finish()


if __name__ == "__main__":
    main()
