#!/usr/bin/python3
"""vmcore-inode --triage keys a dump on what survives a copy (issue 43):
its size, its mtime in whole seconds and a hash of its header and last
page. A copy that lost the mtime's nanoseconds (debugfs rdump, a
filesystem of whole seconds) is the same dump: its results are not
rewritten. A dump of the same size and mtime second whose header differs
is another dump: it is triaged again.

usage: test_triage_copy.py   (the committed fixture alone)

Truth: the bytes, inode numbers and mtimes of the results files the first
run wrote, and the header byte the test itself changed.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, build_id, json_checked, link_fixture,  # noqa: E402
                     schema_checked, set_dir, vmcore_inode)

STAMP = "202612070101"
# An hour ago, with a fraction of a second the copy below will lose.
WRITTEN_NS = (int(time.time()) - 3600) * 10**9 + 123456789
# struct disk_dump_header: signature[8], header_version, utsname (6 x 65),
# then the 8-aligned struct timeval timestamp: its seconds' low byte.
TIMESTAMP_OFFSET = 408


def triage(tree, debug):
    """vmcore-inode --triage --json over tree: its one row."""
    args = ["--triage", "--json", "--debug-root", debug, tree]
    p = schema_checked(args, subprocess.run([vmcore_inode()] + args,
                                            capture_output=True, timeout=300,
                                            stdin=subprocess.DEVNULL))
    rows = json.loads(p.stdout)["dumps"]
    return rows[0] if len(rows) == 1 else {"rows": rows}


def results(d):
    """inodedump.json and .txt beside the dump: (inode, mtime ns, sha256
    of the bytes), and the JSON's key."""
    out = {}
    for n in ("inodedump.json", "inodedump.txt"):
        p = os.path.join(d, n)
        st = os.stat(p)
        with open(p, "rb") as f:
            data = f.read()
        out[n] = (st.st_ino, st.st_mtime_ns, hashlib.sha256(data).hexdigest())
        if n == "inodedump.json":
            out["key"] = json_checked(data.decode("utf-8", "surrogateescape"),
                                      "triage_result", p)["triage_key"]
    return out



def main():
    c = Checker()
    committed = set_dir("committed")
    tmp = tempfile.mkdtemp(prefix="triage-copy-")
    try:
        vmlinux = os.path.join(committed, "vmlinux")
        bid = build_id(vmlinux)
        debug = os.path.join(tmp, "root")
        d = os.path.join(debug, "usr/lib/debug/.build-id", bid[:2])
        os.makedirs(d)
        link_fixture(vmlinux, os.path.join(d, bid[2:] + ".debug"))
        crash = os.path.join(tmp, "crash")
        dump_dir = os.path.join(crash, STAMP)
        os.makedirs(dump_dir)
        dump = os.path.join(dump_dir, "dump." + STAMP)
        # A copy of its own: its mtime and bytes are the test's to change.
        shutil.copyfile(os.path.join(committed, "d17-zlib.vmcore"), dump)
        os.utime(dump, ns=(WRITTEN_NS, WRITTEN_NS))

        row = triage(crash, debug)
        c.eq("first run: the dump is triaged", row.get("state"), "triaged")
        first = results(dump_dir)
        k = first["key"]
        c.ok("the key holds no nanoseconds", ".123456789" not in k, k)
        c.ok("the key holds a hash of the dump's first bytes",
             " head=" in k, k)

        # What debugfs rdump leaves: the same bytes, whole seconds.
        whole = WRITTEN_NS // 10**9 * 10**9
        os.utime(dump, ns=(whole, whole))
        row = triage(crash, debug)
        c.eq("whole-second copy: already triaged", row.get("state"),
             "already triaged")
        c.eq("whole-second copy: its results not rewritten (inode, mtime, "
             "bytes)", results(dump_dir), first)

        # Another dump of the same size and mtime second: a different
        # crash time in its header.
        with open(dump, "r+b") as f:
            f.seek(TIMESTAMP_OFFSET)
            b = f.read(1)
            f.seek(TIMESTAMP_OFFSET)
            f.write(bytes([b[0] ^ 1]))
        os.utime(dump, ns=(whole, whole))
        row = triage(crash, debug)
        c.eq("same size and mtime, another header: triaged again",
             row.get("state"), "triaged")
        again = results(dump_dir)
        c.ok("another header: its results rewritten with another key",
             again["key"] != k, again["key"])
    finally:
        shutil.rmtree(tmp)
    c.finish()


if __name__ == "__main__":
    main()
