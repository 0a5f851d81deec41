#!/usr/bin/python3
"""Every mount namespace in paths (issue 31, part 2).

usage: test_mntns.py SET [--no-drgn] [--no-kallsyms]

SET with a container (fs612, fs73) is checked as below. A set without one
(stock, stock73, old510: init's namespace, and kdevtmpfs's) is checked
against drgn alone on its -d 17 dump: each truth.txt path is ours in
pid 1's namespace with drgn's pid and comm, every row of ours is drgn's.
drgn is 0.3.0 in the sid chroot (any set's, for stock: 0.0.22 cannot walk
6.8+'s mounts), or 0.0.22 on the host for old510 (5.10).
--no-kallsyms: the kernel names no kallsyms in VMCOREINFO (5.10): DWARF
only.

Truth, independent of inodedump:
- the guest's own lines in SET/serial.log: `inodedump-stat: ns=... pid=...
  comm=... role=... path=...`, stat(1) run inside each namespace (init's
  and the container's, whose init is cinit: `inodedump-init: container
  pid=... comm=cinit mntns=mnt:[N] init-mntns=mnt:[M]`); truth.txt gives
  each role's inode address;
- drgn 0.3.0 (sid chroot) reading the unfiltered dump (tests/drgn_mntns.py):
  every namespace a task is in, its inode number and lowest pid, and every
  (namespace, path) of each address through the mounts of each namespace.

For each dump format (d0-zlib, d17-zlib, d31-zlib, elf-nopaging), with the
set's vmlinux (DWARF) and from the dump alone (BTF), --json --holders on
every address of truth.txt:
- every (namespace, path) the guest printed for the address is one of our
  "ns_paths" rows (where our paths are complete: a -d 31 dump may lose a
  dentry, said in "errors"), with the pid and comm the guest printed;
- every row of ours in a namespace is one drgn finds (so none is through
  a mount in no namespace: overlayfs's private layer mounts), and each
  namespace's pid and comm are drgn's lowest pid in it;
- "paths" holds no path only a mount in no namespace gives;
- /merged in the container (the overlay root) and /merged outside (a
  rootfs directory) are two inodes, each with its own namespace: the
  rootfs directory is under the overlay in the container ("covered": a
  path through a mount another mount is on, which no lookup reaches);
- a holder in the container says the container's namespace.
Prints how many of the guest's (namespace, path) rows agree per format.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, read_truth, run, set_dir  # noqa: E402
import sid_drgn  # noqa: E402

FORMATS = ("d0-zlib", "d17-zlib", "d31-zlib", "elf-nopaging")
STAT = re.compile(r"inodedump-stat: (.*)")
CONTAINER = re.compile(r"inodedump-init: container pid=(\d+) comm=(\S+) "
                       r"mntns=mnt:\[(\d+)\] init-mntns=mnt:\[(\d+)\]")


def guest_lines(d):
    """The guest's stat rows and its container line, from serial.log."""
    rows, container = [], None
    with open(os.path.join(d, "serial.log"), errors="replace") as f:
        for line in f:
            m = STAT.search(line)
            if m:
                rows.append(dict(t.split("=", 1) for t in m.group(1).split()
                                 if "=" in t))
            m = CONTAINER.search(line)
            if m:
                container = (int(m.group(1)), m.group(2), int(m.group(3)),
                             int(m.group(4)))
    return rows, container


def run_drgn(d, dump, addrs):
    """drgn_mntns.py's answer: 0.3.0 in a sid chroot, else 0.0.22 here."""
    chroot = sid_drgn.chroot_of(d)
    if not chroot:
        out = os.path.join(os.path.dirname(d.rstrip("/")))
        for other in sorted(os.listdir(out)):
            chroot = sid_drgn.chroot_of(os.path.join(out, other))
            if chroot and os.path.isfile(os.path.join(chroot, ".complete")):
                break
            chroot = None
    if chroot and sid_drgn.info(d).get("release", "").startswith("5.10"):
        chroot = None  # drgn 0.0.22 reads 5.10; it is what the set names
    if chroot:
        saved = sid_drgn.chroot_of
        sid_drgn.chroot_of = lambda _: chroot
        try:
            return json.loads(sid_drgn.run(d, "drgn_mntns.py",
                                           ["/fx/" + dump, "/fx/vmlinux",
                                            *[a[2:] for a in addrs]]))
        finally:
            sid_drgn.chroot_of = saved
    p = subprocess.run(["/usr/bin/python3",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     "drgn_mntns.py"),
                        os.path.join(d, dump), os.path.join(d, "vmlinux"),
                        *[a[2:] for a in addrs]],
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise SystemExit(f"FAIL drgn_mntns.py on {d}: {p.stderr[-1000:]}")
    return json.loads(p.stdout)


def decode(args, dump, addrs):
    p = run([*args, "--json", "--holders", dump, *addrs])
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL {dump}: not JSON ({e}); exit {p.returncode}; "
                         f"{p.stderr[-1000:]}")
    return p, {i.get("address"): i for i in doc.get("inodes", [])}


def paths_incomplete(ino):
    return any(e.get("field") in ("paths", "i_dentry")
               for e in ino.get("errors") or [])


def main():
    name = sys.argv[1]
    use_drgn = "--no-drgn" not in sys.argv[2:]
    d = set_dir(name)
    truth = read_truth(os.path.join(d, "truth.txt"))
    addr_of = {t["role"]: "0x" + t["addr"] for t in truth}
    stat_rows, container = guest_lines(d)
    addrs = sorted(set(addr_of.values()))
    c = Checker()
    if container:
        cpid, ccomm, cns, ins = container
        c.ok(f"{name}: the container is in its own namespace", cns != ins)
        c.ok(f"{name}: the guest's stat lines", stat_rows)
        whole = "d0-zlib.vmcore"
    else:
        cpid = ccomm = cns = ins = None
        whole = "d17-zlib.vmcore"
        use_drgn = True  # the only truth of namespaces on these sets

    # drgn on the unfiltered dump: namespaces and their rows.
    drgn = None
    if use_drgn:
        drgn = run_drgn(d, whole, addrs)
        dns = {inum: (pid, comm) for inum, pid, comm in drgn["namespaces"]}
        if container:
            c.eq(f"{name} drgn: the container's namespace and init",
                 dns.get(cns), (cpid, ccomm))
            c.ok(f"{name} drgn: init's namespace", ins in dns, str(dns))
        else:
            ins = next((n for n, (pid, _) in dns.items() if pid == 1), None)
            c.ok(f"{name} drgn: pid 1's namespace", ins is not None, str(dns))
            # truth.txt's paths, as stat rows in pid 1's namespace
            stat_rows = [{"role": t["role"], "path": t["path"], "ns": str(ins),
                          "pid": "1", "comm": dns[ins][1]}
                         for t in truth if t.get("path")]
            c.ok(f"{name}: truth.txt has paths", stat_rows)
        drows = {"0x" + a: {(n, p) for n, p in r}
                 for a, r in drgn["rows"].items()}
        # The guest's rows are drgn's too: the truths agree.
        for s in stat_rows:
            if s.get("path", "-") != "-" and s["role"] in addr_of:
                a = addr_of[s["role"]]
                c.ok(f"{name} drgn has the guest's {s['role']}",
                     (int(s["ns"]), s["path"]) in drows[a],
                     f"{(s['ns'], s['path'])} not in {sorted(drows[a])}")

    # The guest's (namespace, path) rows, per address.
    want = {}
    for s in stat_rows:
        if s.get("path", "-") == "-" or s["role"] not in addr_of:
            continue
        want.setdefault(addr_of[s["role"]], []).append(s)
    total = sum(len(v) for v in want.values())

    empty = tempfile.mkdtemp(prefix="mntns-noroot-")
    sessions = {"dwarf": ["-k", os.path.join(d, "vmlinux")],
                "btf": ["--debug-root", empty]}
    if "--no-kallsyms" in sys.argv[2:]:
        del sessions["btf"]
    summary = []
    for fmt in FORMATS:
        dump = os.path.join(d, fmt + ".vmcore")
        if not container and fmt == "d0-zlib":
            continue  # those sets have -d 17 as their whole dump
        if not os.path.exists(dump):
            c.ok(f"{name}: {fmt} in the set", False, dump)
            continue
        for sname, args in sessions.items():
            tag = f"{name} {fmt} {sname}"
            p, got = decode(args, dump, addrs)
            full = fmt != "d31-zlib"
            # -d 31 of 7.x drops slab tail pages: an inode itself may be
            # gone (exit 3 then), said as filtered
            lost = [a for a in addrs if not full and
                    ((got.get(a) or {}).get("error") or {}).get("kind") == "filtered"]
            c.ok(f"{tag}: exit 0 or 4", p.returncode in (0, 4) or
                 (p.returncode == 3 and lost),
                 f"exit {p.returncode}: {p.stderr[-500:]}")
            agree = 0
            for a in addrs:
                ino = got.get(a)
                if a in lost:
                    continue
                if ino is None or "error" in ino:
                    c.ok(f"{tag} {a}: decoded", False, str(ino)[:300])
                    continue
                rows = ino.get("ns_paths")
                c.ok(f"{tag} {a}: ns_paths", isinstance(rows, list), str(rows))
                rows = rows or []
                ours = {(r["mnt_ns"], r["path"]): r for r in rows
                        if r["mount"] == "namespace" and not r["covered"]}
                covered = {(r["mnt_ns"], r["path"]) for r in rows
                           if r["mount"] == "namespace" and r["covered"]}
                outside = {r["path"] for r in rows
                           if r["mount"] in ("internal", "detached", "anonymous")}
                incomplete = paths_incomplete(ino)
                for s in want.get(a, []):
                    key = (int(s["ns"]), s["path"])
                    r = ours.get(key)
                    if r is None:
                        c.ok(f"{tag} {s['role']}: guest row {key} is ours",
                             not full and incomplete,
                             f"ours: {sorted(ours, key=str)}")
                        continue
                    ok = (r["ns_pid"], r["ns_comm"]) == (int(s["pid"]), s["comm"])
                    c.ok(f"{tag} {s['role']}: pid/comm of {key}",
                         ok or (not full and r["ns_pid"] is None),
                         f"ours {r['ns_pid']} {r['ns_comm']}, guest "
                         f"{s['pid']} {s['comm']}")
                    agree += ok
                for (ns, path), r in ours.items():
                    # a -d 31 writer may drop the page of the mount that
                    # names the namespace: then the row's namespace is
                    # unknown, and the paths' note says which page
                    if ns is None and not full and incomplete:
                        continue
                    c.ok(f"{tag} {a}: {path} has a namespace", ns is not None,
                         str(r))
                    if drgn is not None:
                        c.ok(f"{tag} {a}: ({ns}, {path}) is drgn's",
                             (ns, path) in drows[a],
                             f"drgn: {sorted(drows[a])}")
                        if ns in dns and r["ns_pid"] is not None:
                            c.eq(f"{tag} {a}: pid/comm of ns {ns}",
                                 (r["ns_pid"], r["ns_comm"]), dns[ns])
                for key in covered:
                    # a covered row is a mount of the namespace (drgn's),
                    # never one the guest could stat there
                    if drgn is not None:
                        c.ok(f"{tag} {a}: covered {key} is drgn's",
                             key in drows[a], f"drgn: {sorted(drows[a])}")
                    c.ok(f"{tag} {a}: covered {key} not stat'ed there",
                         not any((int(s["ns"]), s["path"]) == key
                                 for s in want.get(a, [])))
                # the guest's holders (pid:fd) say the holder's namespace
                for s in stat_rows:
                    if addr_of.get(s["role"]) != a or s.get("holder", "-") == "-":
                        continue
                    hpid, hfd = (int(x) for x in s["holder"].split(":"))
                    hs = [h for h in ino.get("holders") or []
                          if h["pid"] == hpid and h["fd"] == hfd]
                    c.ok(f"{tag} {s['role']}: holder {s['holder']} in "
                         f"namespace {s['ns']}",
                         (hs and hs[0].get("mnt_ns") == int(s["ns"])) or
                         (not full and not hs), str(ino.get("holders")))
                # "paths" (strings): none only a private mount gives
                user = {p for _, p in ours}
                for p in ino.get("paths") or []:
                    c.ok(f"{tag} {a}: {p} in paths is in a namespace",
                         p in user or not p.startswith("/"),
                         f"paths {ino['paths']}, namespace rows {sorted(user)}")
                for p in outside - user:
                    c.ok(f"{tag} {a}: {p} (no namespace) not in paths",
                         p not in (ino.get("paths") or []))
            summary.append(f"{tag}: {agree} of {total} guest (namespace, path) "
                           "rows agree" + (f" ({len(lost)} of {len(addrs)} inodes "
                                           "filtered out of the dump)" if lost else ""))
            # /merged: two inodes, each in its own namespace
            ovl, out = addr_of.get("ovl_root"), addr_of.get("merged_outside")
            if container:
                c.ok(f"{name}: truth has ovl_root and merged_outside",
                     ovl and out)
            if container and ovl and out:
                c.ok(f"{tag}: /merged inside and outside are two inodes",
                     ovl != out)
                for a, ns in ((ovl, cns), (out, ins)):
                    if a in lost:
                        continue
                    ino = got.get(a) or {}
                    rows = ino.get("ns_paths") or []
                    c.ok(f"{tag}: {a} is /merged in namespace {ns}",
                         any(r["path"] == "/merged" and r.get("mnt_ns") == ns
                             for r in rows) or
                         (not full and paths_incomplete(ino)), str(rows))
                rows = (got.get(ovl) or {}).get("ns_paths") or []
                c.ok(f"{tag}: the overlay root is /merged only in the "
                     "container", all(r["mnt_ns"] == cns for r in rows
                                      if r["mount"] == "namespace"), str(rows))
                # the rootfs /merged is under the overlay in the container
                ino = got.get(out) or {}
                rows = ino.get("ns_paths") or []
                c.ok(f"{tag}: rootfs /merged is no path in the container",
                     out in lost or not any(
                         r["mnt_ns"] == cns and not r.get("covered")
                         for r in rows), str(rows))
                if full:
                    c.ok(f"{tag}: rootfs /merged covered in the container",
                         any(r["mnt_ns"] == cns and r.get("covered")
                             for r in rows), str(rows))
                # the container's init holds /merged as its cwd
                hs = [] if ovl in lost else (got.get(ovl) or {}).get("holders") or []
                cwd = [h for h in hs if h["kind"] == "cwd" and h["pid"] == cpid]
                # a -d 31 dump may have lost the task's nsproxy or its
                # namespace: null then, never another namespace
                c.ok(f"{tag}: {ccomm} holds /merged as cwd in namespace {cns}",
                     (cwd and cwd[0].get("mnt_ns") == cns) or
                     (not full and (not cwd or cwd[0].get("mnt_ns") is None)),
                     str(hs))
    for line in summary:
        print("NOTE", line)
    c.finish()


if __name__ == "__main__":
    main()
