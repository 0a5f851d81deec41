#!/usr/bin/python3
"""The NFS client's own state of the fs sets' nfs4 inodes, read with drgn
0.3.0 (the sid chroot) at offsets pahole gave.

    python3 drgn_nfs_truth.py VMLINUX VMCORE PAHOLE.txt TRUTH.txt

drgn cannot load the nfs module's types here (the stock kernels' module
debuginfo is not in the set; drgn does not read BTF), so the offsets of
struct nfs_inode, nfs_fh, nfs_server, nfs_client and nfs_rpc_ops come from
PAHOLE.txt: `pahole -C ... --btf_base vmlinux nfs.ko` on the host (the
module's own BTF, read by pahole, not by inodedump). Where each inode is in
its nfs_inode_cache object is drgn's (slab_object_info()); vmlinux's types
(struct inode, super_block) and the dump's memory are drgn's. One line per
truth line whose fstype is nfs4:

  nfs role=R addr=HEX object=HEX object_phys=HEX fileid=N fh_size=N
      fh=HEX server=HOST
      nfs_version=N minorversion=N acregmin=N acregmax=N acdirmin=N
      acdirmax=N flags=HEX cache_validity=HEX read_cache_jiffies=N
      attrtimeo=N attrtimeo_timestamp=N attr_gencount=N jiffies=N

fileid: nfs_inode.fileid where the struct has it (6.12), else i_ino (7.x
keeps the fileid there, u64). jiffies: the dump's, to judge the attribute
cache's age by (revalidate when jiffies - read_cache_jiffies >= attrtimeo).
object_phys: the object's physical address (object - page_offset_base: the
direct map), where a test writes into a copy of the ELF dump (drgn reads
no QEMU ELF of these guests).
"""
import re
import sys

import drgn
from drgn import Object
from drgn.helpers.linux.slab import slab_object_info

import drgn_truth as dt

MEMBER = re.compile(r"^\t+(?:[^/;]*?)[\s*]+(\w+)(?:\[\d*\])?;\s+/\*\s+(\d+)\s+(\d+)\s+\*/")


def pahole_offsets(path):
    """{struct: {member: (offset, size)}}, each member's first occurrence
    (anonymous unions' members have the outer struct's offsets)."""
    out, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^struct (\w+) \{", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if line.startswith("};"):
            cur = None
            continue
        m = MEMBER.match(line)
        if cur is not None and m:
            cur.setdefault(m.group(1), (int(m.group(2)), int(m.group(3))))
    return out


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    prog = dt.open_program(argv[1], argv[2])
    off = pahole_offsets(argv[3])
    for s in ("nfs_inode", "nfs_fh", "nfs_server", "nfs_client", "nfs_rpc_ops"):
        if s not in off:
            sys.exit(f"drgn_nfs_truth.py: no struct {s} in {argv[3]}")
    ni, fh, srv, cl, ops = (off[s] for s in ("nfs_inode", "nfs_fh", "nfs_server",
                                              "nfs_client", "nfs_rpc_ops"))

    def u(addr, size):
        return int.from_bytes(prog.read(addr, size), "little")

    jiffies = int(prog["jiffies"].value_())
    page_offset_base = int(prog["page_offset_base"].value_())
    bad = 0
    for line in open(argv[4]):
        t = dict(x.split("=", 1) for x in line.split() if "=" in x)
        if t.get("fstype") != "nfs4":
            continue
        addr = int(t["addr"], 16)
        try:
            info = slab_object_info(prog, addr)
            if info is None or info.slab_cache.name.string_() != b"nfs_inode_cache":
                raise LookupError(f"{addr:#x} is in no nfs_inode_cache object")
            obj = int(info.address)
            if obj + ni["vfs_inode"][0] != addr:
                raise LookupError(f"object {obj:#x} + vfs_inode {ni['vfs_inode'][0]} "
                                  f"is not the inode {addr:#x}")
            inode = Object(prog, "struct inode *", addr)
            fileid = (u(obj + ni["fileid"][0], 8) if "fileid" in ni
                      else int(inode.i_ino))
            fh_at = obj + ni["fh"][0]
            fh_size = u(fh_at + fh["size"][0], fh["size"][1])
            if fh_size > fh["data"][1]:
                raise ValueError(f"fh.size {fh_size} > {fh['data'][1]}")
            fh_hex = prog.read(fh_at + fh["data"][0], fh_size).hex()
            server = int(inode.i_sb.s_fs_info)
            client = u(server + srv["nfs_client"][0], 8)
            host = Object(prog, "char *", u(client + cl["cl_hostname"][0], 8)).string_()
            rpc_ops = u(client + cl["rpc_ops"][0], 8)
            vals = {
                "fileid": fileid, "fh_size": fh_size, "fh": fh_hex,
                "server": host.decode(errors="replace"),
                "nfs_version": u(rpc_ops + ops["version"][0], ops["version"][1]),
                "minorversion": u(client + cl["cl_minorversion"][0],
                                  cl["cl_minorversion"][1]),
            }
            for k in ("acregmin", "acregmax", "acdirmin", "acdirmax"):
                vals[k] = u(server + srv[k][0], srv[k][1])
            for k in ("flags", "cache_validity"):
                vals[k] = hex(u(obj + ni[k][0], ni[k][1]))
            for k in ("read_cache_jiffies", "attrtimeo", "attrtimeo_timestamp",
                      "attr_gencount"):
                vals[k] = u(obj + ni[k][0], ni[k][1])
            vals["jiffies"] = jiffies
            print(f"nfs role={t['role']} addr={t['addr']} object={obj:x} "
                  f"object_phys={obj - page_offset_base:x} " +
                  " ".join(f"{k}={v}" for k, v in vals.items()))
        except (LookupError, ValueError, KeyError, drgn.FaultError) as e:
            print(f"drgn_nfs_truth.py: {t['role']}: {e!r}", file=sys.stderr)
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
