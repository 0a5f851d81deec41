#!/usr/bin/python3
"""libbpf and libdebuginfod are loaded with dlopen(3) when a run needs
them (issue 16): no binary of ours names them as NEEDED, so the library,
the command and the bridges load where they are not installed (the
bridges' sid chroots have no libbpf1).

    test_needed.py BINARY...
"""
import subprocess
import sys

from fixture import Checker


def main():
    c = Checker()
    for path in sys.argv[1:]:
        out = subprocess.run(["readelf", "-dW", path], capture_output=True,
                             text=True, check=True).stdout
        needed = [l.split("[")[1].rstrip("]") for l in out.splitlines()
                  if "(NEEDED)" in l]
        c.ok(f"{path} needs no libbpf nor libdebuginfod",
             not any("bpf" in n or "debuginfod" in n for n in needed),
             str(needed))
    c.finish()


if __name__ == "__main__":
    main()
