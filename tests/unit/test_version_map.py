#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The exported symbols are exactly the version map's, and the map names
every INODEDUMP_API function of inodedump.h.

Usage: test_version_map.py INODEDUMP_H LIBINODEDUMP_MAP LIBINODEDUMP_SO [SYMBOLS]

The map (lib/libinodedump.map) must be one node INODEDUMP_0.1 with
"global:" names and "local: *;". The shared library's dynamic symbol table
(nm -D --defined-only) must define those names, each at version
INODEDUMP_0.1, and nothing else. The header's INODEDUMP_API declarations
must be the same set, so a function added to the header and not to the
map (it would stay local) fails here, and so does a map name that no
header declares.

SYMBOLS, debian/libinodedump0.symbols: its entries must be the exported
names at INODEDUMP_0.1 and the node itself, each once. dh_makeshlibs
(check level 4) fails the package build on any difference, and nothing
else in the tests builds the packages: a function added to the map
without its line there broke dpkg-buildpackage unseen (2026-12-08,
inodedump_note_informs).
"""
import re
import subprocess
import sys

VERSION = "INODEDUMP_0.1"


def map_names(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    m = re.fullmatch(
        r"\s*" + re.escape(VERSION) + r"\s*\{\s*global:(.*?)local:\s*\*\s*;\s*\}\s*;\s*",
        text, flags=re.S)
    if not m:
        raise SystemExit("FAIL map: not one node %s { global: ...; local: *; };"
                         % VERSION)
    names = [n.strip() for n in m.group(1).split(";") if n.strip()]
    for n in names:
        if not re.fullmatch(r"[A-Za-z_]\w*", n):
            raise SystemExit("FAIL map: %r is not a plain name (no globs)" % n)
    if len(names) != len(set(names)):
        raise SystemExit("FAIL map: a name is listed twice")
    return set(names)


def header_names(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"#define INODEDUMP_API[^\n]*", "", text)
    return set(re.findall(r"\bINODEDUMP_API\b[^;{(]*?\b(\w+)\s*\(", text))


def exported(so):
    out = subprocess.run(["nm", "-D", "--defined-only", so], check=True,
                         capture_output=True, text=True).stdout
    names, unversioned = set(), []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, sym = parts[1], parts[2]
        if kind == "A" and sym == VERSION:
            continue  # the version node itself
        name, _, version = sym.partition("@@")
        if version != VERSION:
            unversioned.append(sym)
        names.add(name)
    return names, unversioned


def symbols_file(path):
    """The entries of a dpkg symbols file: (NAME@VERSION set, duplicates)."""
    seen, dups = set(), []
    for line in open(path):
        if line.startswith(" "):  # not the library's line nor '*' fields
            sym = line.split()[0]
            if sym in seen:
                dups.append(sym)
            seen.add(sym)
    return seen, dups


def main():
    header, mapfile, so = sys.argv[1:4]
    listed = map_names(open(mapfile).read())
    declared = header_names(open(header).read())
    names, unversioned = exported(so)
    failed = 0
    checks = [
        ("declared INODEDUMP_API in inodedump.h but not in the map",
         declared - listed),
        ("in the map but declared nowhere in inodedump.h", listed - declared),
        ("in the map but not exported by the library", listed - names),
        ("exported by the library but not in the map", names - listed),
        ("exported without version " + VERSION, set(unversioned)),
    ]
    if len(sys.argv) > 4:
        entries, dups = symbols_file(sys.argv[4])
        want = {f"{n}@{VERSION}" for n in names} | {f"{VERSION}@{VERSION}"}
        checks += [
            ("exported but not in the symbols file", want - entries),
            ("in the symbols file but not exported", entries - want),
            ("listed twice in the symbols file", set(dups)),
        ]
    for what, bad in checks:
        if bad:
            failed += 1
            print("FAIL %s: %s" % (what, ", ".join(sorted(bad))))
    if len(listed) < 20:
        failed += 1
        print("FAIL only %d names in the map" % len(listed))
    print("%d exported functions, %d checks failed" % (len(names), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
