#!/usr/bin/python3
"""vmcore-inode(1) and libinodedump(3) render with man -l (man-db) without
a single warning, name the project's version, and document what they
must: every option vmcore-inode --help lists, its exit statuses and the
vmlinux search paths; every function inodedump.h exports.

usage: test_man.py VMCORE-INODE.1 LIBINODEDUMP.3 VMCORE-INODE-BINARY
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fixture import Checker  # noqa: E402


def render(c, page):
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
    p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", page],
                       capture_output=True, text=True, env=env)
    name = os.path.basename(page)
    c.eq(f"{name} renders (exit status)", p.returncode, 0)
    c.eq(f"{name} renders without warnings", p.stderr, "")
    return re.sub(".\b", "", p.stdout)


def main():
    c = Checker()
    cmd_page, lib_page, exe = sys.argv[1:4]
    version = subprocess.run([exe, "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    text = render(c, cmd_page)
    c.ok("vmcore-inode(1) names the version", f"inodedump {version}" in text)
    help_text = subprocess.run([exe, "--help"], capture_output=True,
                               text=True).stdout
    for opt in sorted(set(re.findall(r"(--[a-z][a-z-]+)", help_text))):
        c.ok(f"vmcore-inode(1) documents {opt}", opt in text.replace("‐", "-"))
    for status in ("0", "1", "2", "3"):
        c.ok(f"vmcore-inode(1) exit status {status}",
             re.search(rf"^\s+{status}\s+\S", text.split("EXIT STATUS")[1],
                       re.M) is not None)
    for path in ("/usr/lib/debug/.build-id/xx/yyyy.debug",
                 "/usr/lib/debug/boot/vmlinux-R",
                 "/usr/lib/debug/lib/modules/R/vmlinux", "/boot/vmlinux-R",
                 "/lib/modules/R/build/vmlinux"):
        c.ok(f"vmcore-inode(1) FILES names {path}",
             path in text.replace("‐", "-"))
    for var in ("DEBUGINFOD_URLS", "XDG_CACHE_HOME", "INODEDUMP_NO_CACHE",
                "INODEDUMP_DEBUGINFOD_STALL", "INODEDUMP_READ_THREADS",
                "INODEDUMP_BTF_WHOLE"):
        c.ok(f"vmcore-inode(1) ENVIRONMENT names {var}",
             var in text.split("\nENVIRONMENT\n")[-1].replace("‐", "-"))
    for section in ("ENVIRONMENT", "EXAMPLES", "FILES", "EXIT STATUS"):
        c.ok(f"vmcore-inode(1) has {section}", f"\n{section}\n" in text)
    text = render(c, lib_page)
    c.ok("libinodedump(3) names the version", f"inodedump {version}" in text)
    header = open(os.path.join(os.path.dirname(HERE), "include",
                               "inodedump.h")).read()
    flat = text.replace("‐", "-").replace("\n", " ")
    for fn in sorted(set(re.findall(r"\b(inodedump_[a-z_]+)\s*\(", header))):
        c.ok(f"libinodedump(3) documents {fn}()", fn in flat)
    c.ok("libinodedump(3) says who frees what", "\nOWNERSHIP\n" in text)
    c.finish()


if __name__ == "__main__":
    main()
