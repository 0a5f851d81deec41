#!/usr/bin/python3
"""debian/libinodedump0.symbols names exactly what libinodedump.so exports.

usage: test_symbols_file.py LIBRARY MAPFILE SYMBOLS

dh_makeshlibs compares the package's symbols file with the library it
builds (debian/rules: DPKG_GENSYMBOLS_CHECK_LEVEL=4) and fails the package
build on any difference; nothing else in the tests builds the packages, so
a function added to lib/libinodedump.map without its line in the symbols
file broke `dpkg-buildpackage` unseen (found 2026-12-08: the
inodedump_note_informs line). Three lists, read independently, must be
one: the library's defined dynamic symbols with their version node
(readelf --dyn-syms of the built file), the global names of the version
script, and the symbols file's entries. Also every entry carries the one
version node the map defines, and no symbols-file line is a duplicate.
"""
import re
import subprocess
import sys


def exported(library):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", library],
                         capture_output=True, text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) < 8 or f[6] == "UND" or f[4] not in ("GLOBAL", "WEAK"):
            continue
        name, _, node = f[7].partition("@")
        # the version node's own symbol (ABS, no @): dpkg lists it as
        # NODE@NODE
        syms.add((name, node.lstrip("@") or name))
    return syms


def mapped(mapfile):
    text = re.sub(r"/\*.*?\*/", "", open(mapfile).read(), flags=re.S)
    nodes = re.findall(r"([\w.]+)\s*\{", text)
    m = re.search(r"global:(.*?)local:", text, re.S)
    names = set(re.findall(r"(\w+)\s*;", m[1])) if m else set()
    return nodes, names


def listed(symbols):
    entries, dups = [], []
    for line in open(symbols):
        if not line.startswith(" "):
            continue  # the library's line, '*' meta fields
        sym = line.split()[0]
        name, _, node = sym.partition("@")
        if (name, node) in entries:
            dups.append(sym)
        entries.append((name, node))
    return set(entries), dups


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("usage: ")[1].split("\n")[0], file=sys.stderr)
        return 2
    library, mapfile, symbols = argv[1:]
    fails = []
    lib = exported(library)
    nodes, names = mapped(mapfile)
    pkg, dups = listed(symbols)
    if len(nodes) != 1:
        fails.append(f"the map defines {len(nodes)} version nodes: {nodes}")
    node = nodes[0] if nodes else None
    # the version node itself is a symbol both of the library and the file
    lib_names = {n for n, v in lib if n != v}
    if lib_names != names:
        fails.append("exported but not in the map: %s; in the map but not "
                     "exported: %s" % (sorted(lib_names - names),
                                       sorted(names - lib_names)))
    if lib != pkg:
        fails.append("exported but not in %s: %s; listed but not exported: %s"
                     % (symbols, sorted(f"{n}@{v}" for n, v in lib - pkg),
                        sorted(f"{n}@{v}" for n, v in pkg - lib)))
    other = sorted(f"{n}@{v}" for n, v in lib | pkg if v != node)
    if other:
        fails.append(f"symbols outside the map's node {node}: {other}")
    if dups:
        fails.append(f"listed twice: {dups}")
    if not names or len(lib) < 10:
        fails.append(f"too few symbols read ({len(lib)} exported, "
                     f"{len(names)} in the map): the reading is broken")
    for f in fails:
        print("FAIL " + f)
    print("%d checks passed, %d failed (%d symbols exported)"
          % (5 - len(fails), len(fails), len(lib)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
