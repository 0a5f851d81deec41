#!/usr/bin/python3
"""Runs test_module_btf (C) on a stock set (stock, stock73: argv[2],
default stock): ext4.ko is the one of the set's own kernel, from the
SET-kernel-* directory of the fixture cache whose release is the set's
(make-fixtures.sh unpacks it there). On stock73 the BTF is read on
demand, so the module's struct also takes the way to the whole BTF."""
import glob
import os
import subprocess
import sys
import tempfile

from fixture import set_dir
from test_btf import reading_of, vmlinux_btf


def main():
    binary = sys.argv[1]
    set_name = sys.argv[2] if len(sys.argv) > 2 else "stock"
    d = set_dir(set_name)
    info = dict(l.split("=", 1) for l in open(os.path.join(d, "info.txt")).read().split("\n")
                if "=" in l)
    release = info["release"].strip()
    cache = os.environ.get("INODEDUMP_CACHE", os.path.expanduser("~/.cache/inodedump"))
    kos = [os.path.join(k, "modules", "ext4.ko")
           for k in sorted(glob.glob(os.path.join(cache, set_name + "-kernel-*")))
           if os.path.isfile(os.path.join(k, "release")) and
           open(os.path.join(k, "release")).read().strip() == release and
           os.path.isfile(os.path.join(k, "modules", "ext4.ko"))]
    if not kos:
        raise SystemExit(f"FAIL no ext4.ko of {release} under {cache}/{set_name}-kernel-*")
    # How the types are read on demand: vmlinux's BTF sorted or not, as
    # the test reads it (test_btf.py's parser), not as inodedump does.
    env = dict(os.environ, EXPECT_READING=reading_of(
        vmlinux_btf(os.path.join(d, "vmlinux"))) + ")")
    with tempfile.TemporaryDirectory() as empty:
        r = subprocess.run([binary, os.path.join(d, "d17-zlib.vmcore"), kos[0],
                            os.path.join(d, "vmlinux"), empty], env=env)
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
