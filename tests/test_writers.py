#!/usr/bin/env python3
"""A dump from today's writers reads as it is, and every truth inode
decodes from it exactly as from QEMU's full ELF dump of the same moment.

usage: test_writers.py SET DUMP [--damaged]

SET is writers/stock or writers/stock73 (tests/vmcores/recipes/writers.sh): one
guest per kernel, every dump of a SET taken from it at the same moment
(QEMU's formats while it was stopped, makedumpfile's from its ELF dump).
The reference is elf-paging.vmcore. A lossless DUMP (QEMU's, -d 17) must
give the same JSON object for every truth inode; a -d 31 DUMP may lose
pages, and then every read it could not do must say what the page was
(from its struct page) and the rest must still be the same. --info must
name the format and compression, and what the header shows of its writer.
--damaged: a truncated and a header-corrupted copy of DUMP each get a
clear error (exit 3, naming the file), never a crash.
"""
import os
import re
import shutil
import struct
import sys
import tempfile

from fixture import Checker, read_truth, run, run_json, set_dir

EXPLAINED = re.compile(r"filtered out of the dump by its writer \(dump level "
                       r"\d+[^)]*\): pfn 0x[0-9a-f]+ \(struct page 0x[0-9a-f]+\) "
                       r"was ")


def facts(vmlinux, dump):
    p = run(["-k", vmlinux, "--info", dump])
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"(\S.*?)\s{2,}(.+?)(?:\s{2,}\[(.*)\])?$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return p, out


def expected_info(name):
    """format, compression and writer traits by the file name's writer."""
    if name.startswith("qemu-kdump-raw-"):
        return "diskdump", name.split("-")[-1].split(".")[0], "QEMU"
    if name.startswith("qemu-kdump-"):
        return "flattened diskdump", name.split("-")[-1].split(".")[0], "QEMU"
    if name.startswith("elf-"):
        return "elf", "none", None
    comp = name.split("-")[-1].split(".")[0]
    if comp == "elf":
        return "elf", "none", None
    return "diskdump", comp, "makedumpfile"


def corrupt_header(path):
    """Make the header say what cannot be: a block size of 3 (diskdump,
    flattened: its first record's data is the diskdump header) or program
    headers past the end of the file (ELF)."""
    with open(path, "r+b") as f:
        head = f.read(64)
        if head.startswith(b"KDUMP   "):
            f.seek(428)
            f.write(struct.pack("<i", 3))
        elif head.startswith(b"makedumpfile"):
            f.seek(4096 + 16 + 428)   # flattened header, record header
            f.write(struct.pack("<i", 3))
        elif head.startswith(b"\x7fELF"):
            f.seek(32)
            f.write(struct.pack("<Q", 1 << 40))
        else:
            raise SystemExit(f"FAIL {path}: a format this test does not know")


def damaged(set_name, dump_name):
    d = set_dir(set_name)
    vmlinux, dump = os.path.join(d, "vmlinux"), os.path.join(d, dump_name)
    addr = read_truth(os.path.join(d, "truth.txt"))[0]["addr"]
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        for what in ("truncated", "corrupt"):
            copy = os.path.join(tmp, f"{what}-{dump_name}")
            size = os.path.getsize(dump)
            with open(dump, "rb") as src, open(copy, "wb") as dst:
                shutil.copyfileobj(src, dst)
            if what == "truncated":
                os.truncate(copy, size // 2)
            else:
                corrupt_header(copy)
            # A truncated file's header is whole: --info may read it; a
            # decode must fail (the standard of test_errors.py's
            # truncated_at_offsets). A corrupt header fails both.
            runs = [[copy, addr]] + ([["--info", copy]] if what == "corrupt" else [])
            for args in runs:
                p = run(["-k", vmlinux, *args])
                n = f"{what} {dump_name} {args[0]}"
                c.eq(n + " exit code", p.returncode, 3)
                c.ok(n + " names the file or the address",
                     copy in p.stderr or "0x" + addr in p.stderr, p.stderr.strip())
                c.ok(n + " no crash", "Sanitizer" not in p.stderr and
                     "runtime error" not in p.stderr, p.stderr[-800:])
            os.unlink(copy)
    c.finish()


def main():
    set_name, dump_name = sys.argv[1], sys.argv[2]
    if "--damaged" in sys.argv:
        return damaged(set_name, dump_name)
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, dump_name)
    lossy = "-d31-" in dump_name
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = [t["addr"] for t in truth]
    c = Checker()

    # No conversion step: the file as its writer wrote it.
    p, doc = run_json(vmlinux, dump, addrs)
    c.ok("no crash", p.returncode in (0, 1, 3, 4) and "Sanitizer" not in p.stderr,
         p.stderr[-800:])
    # An inode lost is 3; else paths lost (-d 31) make the run partial, 4.
    inodes = doc.get("inodes", [])
    want = (3 if any("error" in g for g in inodes) else
            4 if any(g.get("errors") for g in inodes) else
            1 if any(g.get("violations") for g in inodes) else 0)
    c.eq("exit code", p.returncode, want)
    _, ref = run_json(vmlinux, os.path.join(d, "elf-paging.vmcore"), addrs)
    got, want = doc.get("inodes", []), ref.get("inodes", [])
    c.eq("one result per address", len(got), len(truth))
    lost = 0
    for t, g, w in zip(truth, got, want):
        n = f"{set_name}/{dump_name}/{t['role']}"
        c.ok(n + " reference decodes", "error" not in w, str(w.get("error")))
        if not lossy:
            c.eq(n + " same as the ELF dump", g, w)
            continue
        if "error" in g:
            lost += 1
            # its own page, or one its check needs (i_sb: "not-inode")
            # only to its own bytes: a page its superblock or a check
            # needs is a note, never a refusal (issue 30)
            at = int(g["error"].get("address") or "0", 16)
            c.ok(n + " lost only to a filtered page of its own",
                 g["error"]["kind"] == "filtered" and
                 0 <= at - int(t["addr"], 16) < 1024, str(g["error"]))
            c.ok(n + " the lost page is explained",
                 EXPLAINED.search(g["error"]["message"]) is not None,
                 g["error"]["message"])
            continue
        for note in g.get("errors", []):
            c.ok(f"{n} note on {note['field']} explained",
                 EXPLAINED.search(note["reason"]) is not None, note["reason"])
        # What was read is what the ELF dump holds; paths may be cut short,
        # a superblock's page lost leaves its fields null (each said in
        # errors, the filesystem then inferred), and whether the slab
        # object is free may be unknown (said in its "unread").
        skip = ("paths", "ns_paths", "errors", "slab", "fs_inferred", "fs")
        unread = {k for k, v in g.items() if v is None and w.get(k) is not None}
        c.ok(n + " a value lost only with a note", not unread or g.get("errors"),
             f"null here: {sorted(unread)}")
        same = {k: v for k, v in g.items() if k not in skip and k not in unread}
        c.eq(n + " same as the ELF dump (but what was lost)",
             same, {k: v for k, v in w.items() if k not in skip and k not in unread})
        if unread & {"fs_type", "sb", "s_id"}:
            c.eq(n + " the filesystem inferred", (g.get("fs_inferred") or {}).get("fs"),
                 w.get("fs_type"))
        # The filesystem's own rows: the same, or none with the dump's
        # reason (a module's BTF on a page the writer dropped), or some
        # rows lost, each with its reason.
        gf, wf = g.get("fs") or {}, w.get("fs") or {}
        if gf.get("unavailable") and not wf.get("unavailable"):
            c.ok(n + " fs rows lost only to a dropped page, said",
                 EXPLAINED.search(gf["unavailable"]) is not None, gf["unavailable"])
        else:
            fs_lost = set((gf.get("unread") or {}))
            c.ok(n + " fs rows lost only with a reason",
                 all(EXPLAINED.search(r) or "not in the dump" in r
                     for r in (gf.get("unread") or {}).values()), str(gf.get("unread")))
            c.eq(n + " same fs rows as the ELF dump (but what was lost)",
                 {k: v for k, v in (gf.get("rows") or {}).items() if k not in fs_lost},
                 {k: v for k, v in (wf.get("rows") or {}).items() if k not in fs_lost})
        gs, ws = g.get("slab") or {}, w.get("slab") or {}
        c.eq(n + " same slab object",
             {k: gs.get(k) for k in ("object", "offset")},
             {k: ws.get(k) for k in ("object", "offset")})
        if gs.get("state") == "unknown" or gs.get("cache") is None:
            c.ok(n + " a slab answer lost only with a reason", gs.get("unread"), str(gs))
        else:
            c.eq(n + " same slab answer", gs, ws)
        if not g.get("errors"):
            c.eq(n + " paths", g.get("paths"), w.get("paths"))
            c.eq(n + " ns_paths", g.get("ns_paths"), w.get("ns_paths"))
    if lossy:
        print(f"NOTE {set_name}/{dump_name}: {lost} of {len(truth)} truth "
              "inodes lost to filtered pages")

    p, f = facts(vmlinux, dump)
    c.eq("--info exit code", p.returncode, 0)
    fmt, comp, writer = expected_info(dump_name)
    c.eq("--info format", f.get("format"), fmt)
    c.eq("--info compression", f.get("compression"), comp)
    if writer == "QEMU":
        c.ok("--info: the header shows QEMU's traits",
             "as QEMU's dump-guest-memory writes it" in f.get("writer", ""),
             str(f.get("writer")))
    elif writer == "makedumpfile":
        c.ok("--info: the header shows makedumpfile's traits",
             "as makedumpfile copies it" in f.get("writer", ""),
             str(f.get("writer")))
        level = re.search(r"-d(\d+)-", dump_name).group(1)
        c.eq("--info dump level", f.get("dump level"), level)
        m = re.match(r"(\d+) of (\d+) pages", f.get("excluded", ""))
        c.ok("--info counts the excluded pages", m is not None,
             str(f.get("excluded")))
        kinds = f.get("excluded, by kind", "")
        counts = [int(x) for x in re.findall(r"\d+", re.sub(r"\([^)]*\)", "", kinds))]
        if m:
            c.eq("--info: the kinds add up to the excluded pages",
                 sum(counts), int(m.group(1)))
    c.ok("--info names no writer version", not re.search(
        r"(makedumpfile|QEMU|qemu)[ -]\d", p.stdout), p.stdout)
    c.finish()


if __name__ == "__main__":
    main()
