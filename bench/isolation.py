#!/usr/bin/python3
"""The cost of running libkdumpfile in a child process (issue 15).

usage: bench/isolation.py BEFORE AFTER [RUNS]
BEFORE and AFTER are vmcore-inode binaries (the build before the change,
libkdumpfile in-process, and this one). Both decode the patched set's
victim inode, and run the reports mode, on two dumps: d17-zlib as it is
(our reader serves it: the child must never be made) and the same dump
with the header's incomplete flag set (our reader does not take it:
libkdumpfile serves every read, through the child in AFTER). Runs
alternate BEFORE/AFTER; the median wall time of RUNS each, and how many
processes AFTER made (strace -f), are printed as a Markdown table.
"""
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.join(HERE, "..", "tests", "vmcores", "out", "patched")


def timed(binary, args):
    t = time.monotonic()
    subprocess.run([binary] + args, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def forks(binary, args):
    p = subprocess.run(["strace", "-f", "-c", "-e", "trace=fork,vfork,clone,"
                        "clone3", binary] + args, capture_output=True,
                       text=True)
    n = 0
    for line in p.stderr.splitlines():
        f = line.split()
        if f and f[-1] in ("fork", "vfork", "clone", "clone3"):
            n += int(f[3])
    return n


def main():
    before, after = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    vmlinux = os.path.join(SET, "vmlinux")
    victim = next(line.split()[0][5:] for line in
                  open(os.path.join(SET, "truth.txt"))
                  if "role=victim_symlink" in line)
    with tempfile.TemporaryDirectory() as tmp:
        ours = os.path.join(SET, "d17-zlib.vmcore")
        theirs = os.path.join(tmp, "d17-zlib-incomplete.vmcore")
        shutil.copyfile(ours, theirs)
        with open(theirs, "r+b") as f:
            f.seek(424)
            status, = struct.unpack("<I", f.read(4))
            f.seek(424)
            f.write(struct.pack("<I", status | 8))
        print("| dump (who reads it) | work | before (in-process) | "
              "after (child) | after/before | processes made (after) |")
        print("|---|---|---|---|---|---|")
        for dump, who in ((ours, "d17-zlib (our reader)"),
                          (theirs, "d17-zlib, incomplete flag "
                                   "(libkdumpfile)")):
            for work, args in (("one inode", [dump, victim]),
                               ("reports", [dump])):
                args = ["-k", vmlinux] + args
                timed(before, args), timed(after, args)  # warm-up
                b, a = [], []
                for _ in range(runs):
                    b.append(timed(before, args))
                    a.append(timed(after, args))
                mb, ma = statistics.median(b), statistics.median(a)
                print(f"| {who} | {work} | {mb * 1000:.0f} ms | "
                      f"{ma * 1000:.0f} ms | {ma / mb:.2f} | "
                      f"{forks(after, args)} |")


if __name__ == "__main__":
    main()
