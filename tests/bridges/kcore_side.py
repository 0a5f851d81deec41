"""The guest side of the /proc/kcore bridge test (tests/test_bridges.py
kcore): runs inside a QEMU guest of the stock Debian 6.12 kernel, chrooted
into the host's root (9p, read-only) or into the sid chroot, with drgn on
the guest's own /proc/kcore. Prints one JSON object on stdout.

usage: kcore_side.py VMLINUX ADDRS_JSON ROLE=PATH...   find the inodes
       kcore_side.py VMLINUX ADDRS_JSON                 those found before

  With ROLE=PATH, writes ADDRS_JSON ({"addrs": {role: address}, "sb": the
  tmpfs superblock of the first PATH}) and next to it addrs.txt (the
  addresses on line 1, the superblock on line 2) for the guest's /init.

  drgn       drgn's version
  inodes     [{role, path, addr, stat, truth}]: each PATH opened O_PATH |
             O_NOFOLLOW, its inode found by drgn through this task's fd
             table (fget), truth = drgn_truth.inode_fields() (drgn's own
             field reads), stat = lstat() from userspace; role "rootfs_root"
             is init_task's root (no stat: outside the chroot)
  decode     {addr: inodedump.from_drgn(prog).decode(addr)}
  document   from_drgn's document() of every address, text and JSON
  reports    from_drgn's reports()
  sweep      from_drgn's sweep(sb=SB) of the tmpfs the guest's files are
             on, and sweep_text(sb=SB)
  log        from_drgn's log_text()
  errors     what an unmapped address raises through from_drgn
  commands   drgn >= 0.3.0: run_command's (stdout, stderr) of "inode
             ADDR...", "inode -j ADDR...", "inode --sweep --sb SB", and an
             unmapped address before a good one; null without the framework
  seconds    time to load drgn's debug info, to make the session, in all
"""
import json
import os
import sys
import time

T0 = time.monotonic()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vmcores"))

import drgn  # noqa: E402
from drgn.helpers.linux.fs import fget  # noqa: E402
from drgn.helpers.linux.pid import find_task  # noqa: E402

import inodedump  # noqa: E402
from drgn_side import UNMAPPED, capture, error_of  # noqa: E402
from drgn_truth import inode_fields  # noqa: E402


def lstat_of(path):
    st = os.lstat(path)
    return {"ino": st.st_ino, "mode": st.st_mode, "nlink": st.st_nlink,
            "size": st.st_size, "uid": st.st_uid, "gid": st.st_gid,
            "rdev": f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"}


def find_inodes(prog, roles):
    """Each ROLE=PATH's inode through this task's own open file."""
    task = find_task(prog, os.getpid())
    found = []
    for role, path in roles:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW)
        inode = fget(task, fd).f_inode
        found.append({"role": role, "path": path, "addr": f"{int(inode):x}",
                      "stat": lstat_of(path),
                      "truth": inode_fields(prog, inode)})
    root = prog["init_task"].fs.root.dentry.d_inode
    found.append({"role": "rootfs_root", "path": None,
                  "addr": f"{int(root):x}", "stat": None,
                  "truth": inode_fields(prog, root)})
    return found


def main():
    vmlinux, addrs_file, *specs = sys.argv[1:]
    prog = drgn.Program()
    prog.set_kernel()
    prog.load_debug_info([vmlinux])
    res = {"drgn": drgn.__version__,
           "seconds": {"debug_info": time.monotonic() - T0}}
    if specs:
        res["inodes"] = find_inodes(prog, [s.split("=", 1) for s in specs])
        addrs = [i["addr"] for i in res["inodes"]]
        tmpfs_sb = res["inodes"][0]["truth"]["sb"]
        with open(addrs_file, "w") as f:
            json.dump({"addrs": {i["role"]: i["addr"] for i in res["inodes"]},
                       "sb": tmpfs_sb}, f)
        with open(os.path.join(os.path.dirname(addrs_file), "addrs.txt"),
                  "w") as f:
            f.write(" ".join(addrs) + "\n" + tmpfs_sb + "\n")
    else:
        with open(addrs_file) as f:
            found = json.load(f)
        addrs, tmpfs_sb = list(found["addrs"].values()), found["sb"]
    t = time.monotonic()
    s = inodedump.from_drgn(prog)
    res["seconds"]["from_drgn"] = time.monotonic() - t
    ints = [int(a, 16) for a in addrs]
    res["addrs"] = addrs
    res["info"] = s.info()
    res["decode"] = {a: s.decode(i) for a, i in zip(addrs, ints)}
    res["document"] = s.document(ints)[0]
    res["document_json"] = s.document(ints, json=True)[0]
    res["reports"] = s.reports()
    res["sweep_sb"] = tmpfs_sb
    res["sweep"] = list(s.sweep(sb=int(tmpfs_sb, 16)))
    res["sweep_text"] = s.sweep_text(sb=int(tmpfs_sb, 16))[0]
    res["log"] = s.log_text()
    res["errors"] = {"unmapped": error_of(lambda: s.decode(UNMAPPED))}
    try:
        from drgn.commands import run_command
    except ImportError:
        res["commands"] = None
    else:
        cmds = {"addresses": "inode " + " ".join(addrs),
                "json": "inode -j " + " ".join(addrs),
                "sweep": f"inode --sweep --sb {tmpfs_sb}",
                "bad": f"inode {UNMAPPED:x} " + addrs[0]}
        res["commands"] = {
            k: capture(lambda c=c: run_command(prog, c, globals={}))
            for k, c in cmds.items()}
    res["seconds"]["all"] = time.monotonic() - T0
    print(json.dumps(res))


if __name__ == "__main__":
    main()
