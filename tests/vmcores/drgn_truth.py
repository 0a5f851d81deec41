#!/usr/bin/python3
"""Truth lines for the inodedump fixtures, read with drgn (Debian's python3-drgn 0.0.22).

    /usr/bin/python3 drgn_truth.py VMLINUX VMCORE ROLE=PATH...
    /usr/bin/python3 drgn_truth.py VMLINUX VMCORE --stock

Prints one CONTRACT.md truth line per ROLE=PATH: the inode is found by
walking dentries by name from the init task's root (drgn 0.0.22's
path_lookup() uses d_subdirs, gone since 6.8; so this walks d_children/d_sib
itself, or d_subdirs/d_child on older kernels) and crosses mount points
through the mount namespace's mounts (rbtree since 6.8, list before).

Also a library: check_fixture.py imports open_program(), inode_fields(),
lookup_path() and truth_line() from here, so the truth and the check read
an inode the same way.
"""
import sys

import drgn
from drgn import Object, cast
from drgn.helpers.linux.list import (container_of, hlist_for_each_entry,
                                     list_for_each_entry)

S_IFMT = 0o170000
S_IFLNK = 0o120000
S_IFCHR = 0o020000
S_IFBLK = 0o060000
MINORBITS = 20

# The stock set's files (init.sh creates the same names on tmpfs and ext4).
FILES = ["regular", "empty", "big", "dir", "symlink_short", "symlink_long",
         "hardlink", "fifo", "chardev"]
STOCK_ROLES = ([(f, "/tmp/fx/" + f) for f in FILES] +
               [("ext4_" + f, "/mnt/ext4/fx/" + f) for f in FILES])

KEYS = ["addr", "path", "ino", "mode", "opflags", "flags", "state", "count",
        "nlink", "size", "uid", "gid", "s_id", "fstype", "link",
        "link_strlen", "linklen", "role"]
OPTIONAL_KEYS = ["sb", "gen", "blocks", "rdev", "i_op", "i_fop", "a_ops", "s_op"]


def open_program(vmlinux, vmcore):
    prog = drgn.Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux])
    return prog


def has_member(type_, name):
    try:
        type_.member(name)
        return True
    except LookupError:
        return False


# --- symbols, including modules' (drgn 0.0.22 cannot load module symbols on 6.12)

_module_syms = None


def _load_module_syms(prog):
    """[(start, end, name)] from every loaded module's kallsyms."""
    syms = []
    try:
        mods = list_for_each_entry("struct module", prog["modules"].address_of_(), "list")
        for mod in mods:
            ks = mod.kallsyms
            n = int(ks.num_symtab)
            if n <= 0 or n > 200000:
                continue
            symtab = ks.symtab
            strtab = ks.strtab
            for i in range(n):
                s = symtab[i]
                val = int(s.st_value)
                if val == 0:
                    continue
                name = prog.read(int(strtab) + int(s.st_name), 128).split(b"\0", 1)[0].decode()
                syms.append((val, val + max(int(s.st_size), 1), name))
    except (drgn.FaultError, LookupError, ValueError):
        pass
    return syms


def sym_name(prog, addr):
    """The kernel's %ps for addr: bare symbol name, '-' for NULL, hex if unknown."""
    global _module_syms
    addr = int(addr)
    if addr == 0:
        return "-"
    try:
        return prog.symbol(addr).name
    except LookupError:
        pass
    if _module_syms is None:
        _module_syms = _load_module_syms(prog)
    exact = [n for (a, e, n) in _module_syms if a == addr]
    if exact:
        return exact[0]
    inside = [n for (a, e, n) in _module_syms if a <= addr < e]
    if inside:
        return inside[0]
    return "0x%x" % addr


# --- path walk

def d_name(dentry):
    return dentry.d_name.name.string_().decode(errors="replace")


def d_children(prog, dentry):
    dtype = prog.type("struct dentry")
    if has_member(dtype, "d_children"):
        return hlist_for_each_entry("struct dentry", dentry.d_children.address_of_(), "d_sib")
    return list_for_each_entry("struct dentry", dentry.d_subdirs.address_of_(), "d_child")


def ns_mounts(prog, ns):
    nstype = ns.type_.type
    # 6.8+: an rbtree; before, "mounts" is the namespace's count (5.10)
    if (has_member(nstype, "mounts") and
            drgn.sizeof(nstype.member("mounts").type) != drgn.sizeof(prog.type("unsigned int"))):
        from drgn.helpers.linux.rbtree import rbtree_inorder_for_each_entry
        return rbtree_inorder_for_each_entry("struct mount", ns.mounts.address_of_(), "mnt_node")
    return list_for_each_entry("struct mount", ns.list.address_of_(), "mnt_list")


def init_fs_root(prog):
    """(struct mount *, struct dentry *) of the init task's root."""
    task = prog["init_task"]
    root = task.fs.root
    mnt = container_of(root.mnt, "struct mount", "mnt")
    return mnt, root.dentry, task.nsproxy.mnt_ns


_mount_index = None


def mounted_on(prog, ns, mnt, dentry):
    """The mount whose mountpoint is (mnt, dentry), or None."""
    global _mount_index
    if _mount_index is None:
        _mount_index = {}
        for m in ns_mounts(prog, ns):
            key = (int(m.mnt_parent), int(m.mnt_mountpoint))
            if int(m.mnt_parent) == int(m):
                continue
            _mount_index.setdefault(key, []).append(m)
    ms = _mount_index.get((int(mnt), int(dentry)))
    if not ms:
        return None
    return ms[-1]


def lookup_path(prog, path):
    """struct dentry * for an absolute path, or raise LookupError."""
    mnt, d, ns = init_fs_root(prog)
    for comp in [c for c in path.split("/") if c]:
        while True:
            m = mounted_on(prog, ns, mnt, d)
            if m is None:
                break
            mnt, d = m, m.mnt.mnt_root
        for child in d_children(prog, d):
            if d_name(child) == comp and child.d_inode:
                d = child
                break
        else:
            raise LookupError(f"{path}: no dentry {comp!r} under {d_name(d)!r}")
    while True:
        m = mounted_on(prog, ns, mnt, d)
        if m is None:
            break
        mnt, d = m, m.mnt.mnt_root
    return d


# --- inode fields

def inode_fields(prog, inode):
    """dict of the CONTRACT.md keys (without path/role) for struct inode *inode."""
    inode = cast("struct inode *", inode)
    mode = int(inode.i_mode)
    sb = inode.i_sb
    f = {}
    f["addr"] = "%x" % int(inode)
    f["ino"] = str(int(inode.i_ino))
    f["mode"] = "0%o" % mode
    f["opflags"] = "0x%x" % int(inode.i_opflags)
    f["flags"] = "0x%x" % int(inode.i_flags)
    state = inode.i_state
    f["state"] = "0x%x" % int(state if state.type_.kind != drgn.TypeKind.STRUCT else state.member_(state.type_.members[0].name))
    f["count"] = str(int(inode.i_count.counter))
    f["nlink"] = str(int(inode.i_nlink))
    f["size"] = str(int(inode.i_size))
    f["uid"] = str(int(inode.i_uid.val))
    f["gid"] = str(int(inode.i_gid.val))
    f["s_id"] = sb.s_id.string_().decode(errors="replace")
    f["fstype"] = sb.s_type.name.string_().decode(errors="replace")
    link = None
    if (mode & S_IFMT) == S_IFLNK and int(inode.i_link):
        link = inode.i_link.string_().decode(errors="replace")
    # like the trigger module: a link with non-graphic characters prints as "-"
    printable = link is not None and link != "" and all(0x21 <= ord(c) <= 0x7e for c in link)
    f["link"] = link if printable else "-"
    f["link_strlen"] = str(len(link.encode())) if link is not None else "-"
    if has_member(inode.type_.type, "i_linklen") and (mode & S_IFMT) == S_IFLNK:
        f["linklen"] = str(int(inode.i_linklen))
    else:
        f["linklen"] = "-"
    f["sb"] = "%x" % int(sb)
    f["gen"] = str(int(inode.i_generation))
    f["blocks"] = str(int(inode.i_blocks))
    rdev = int(inode.i_rdev)
    f["rdev"] = "%d:%d" % (rdev >> MINORBITS, rdev & ((1 << MINORBITS) - 1))
    f["i_op"] = sym_name(prog, inode.i_op)
    f["i_fop"] = sym_name(prog, inode.i_fop)
    f["a_ops"] = sym_name(prog, inode.i_mapping.a_ops) if int(inode.i_mapping) else "-"
    f["s_op"] = sym_name(prog, sb.s_op)
    return f


def truth_line(fields, path, role):
    f = dict(fields, path=path, role=role)
    return " ".join(f"{k}={f[k]}" for k in KEYS + OPTIONAL_KEYS)


def parse_truth_line(line):
    return dict(kv.split("=", 1) for kv in line.split())


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    vmlinux, vmcore = argv[1], argv[2]
    if argv[3] == "--stock":
        roles = STOCK_ROLES
    else:
        roles = [tuple(a.split("=", 1)) for a in argv[3:]]
    prog = open_program(vmlinux, vmcore)
    bad = 0
    for role, path in roles:
        try:
            d = lookup_path(prog, path)
            print(truth_line(inode_fields(prog, d.d_inode), path, role))
        except (LookupError, drgn.FaultError) as e:
            print(f"drgn_truth.py: {role} {path}: {e}", file=sys.stderr)
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
