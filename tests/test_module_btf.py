#!/usr/bin/python3
"""Runs test_module_btf (C) on the stock set: ext4.ko is the one of the
stock set's own kernel, from the stock-kernel-* directory of the fixture
cache whose release is the set's (make-fixtures.sh unpacks it there)."""
import glob
import os
import subprocess
import sys
import tempfile

from fixture import set_dir


def main():
    binary = sys.argv[1]
    d = set_dir("stock")
    info = dict(l.split("=", 1) for l in open(os.path.join(d, "info.txt")).read().split("\n")
                if "=" in l)
    release = info["release"].strip()
    cache = os.environ.get("INODEDUMP_CACHE", os.path.expanduser("~/.cache/inodedump"))
    kos = [os.path.join(k, "modules", "ext4.ko")
           for k in sorted(glob.glob(os.path.join(cache, "stock-kernel-*")))
           if os.path.isfile(os.path.join(k, "release")) and
           open(os.path.join(k, "release")).read().strip() == release and
           os.path.isfile(os.path.join(k, "modules", "ext4.ko"))]
    if not kos:
        raise SystemExit(f"FAIL no ext4.ko of {release} under {cache}/stock-kernel-*")
    with tempfile.TemporaryDirectory() as empty:
        r = subprocess.run([binary, os.path.join(d, "d17-zlib.vmcore"), kos[0],
                            os.path.join(d, "vmlinux"), empty])
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
