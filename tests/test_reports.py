#!/usr/bin/env python3
"""With no address, every dump_inode() report in the dump's log is found and
its inode decoded: the patched fixture's two victims, nothing on stock.

usage: test_reports.py SET FORMAT
"""
import json
import os
import sys

from fixture import FORMATS, Checker, read_truth, run, set_dir


def main():
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, FORMATS.get(fmt, fmt))
    truth = read_truth(os.path.join(d, "truth.txt"))
    victims = {t["role"]: t for t in truth if t["role"].startswith("victim")}
    serial = open(os.path.join(d, "serial.log"), errors="replace").read()
    c = Checker()
    p = run(["-k", vmlinux, "--json", dump])
    doc = json.loads(p.stdout)
    reports = doc["reports"]
    c.eq("exit code", p.returncode, 1 if victims else 0)
    c.eq("one report per victim", len(reports), len(victims))
    # The kernel's own console saw the same lines.
    c.eq("serial log reports", serial.count(" encountered for inode "),
         len(victims))
    by_addr = {r["address"]: r for r in reports}
    for role, t in sorted(victims.items()):
        r = by_addr.get("0x" + t["addr"])
        c.ok(f"{role} reported", r is not None, str(list(by_addr)))
        if not r:
            continue
        c.eq(f"{role} reason", r["reason"],
             "VFS_WARN_ON_INODE(strlen(link) != linklen)")
        c.ok(f"{role} line on the console",
             f"{r['reason']} encountered for inode {t['addr']}" in serial)
        c.eq(f"{role} format", r["format"], "6.15")
        c.eq(f"{role} fields_at_report", r["fields_at_report"], None)
        c.eq(f"{role} differences", r["differences"], [])
        c.ok(f"{role} location", (r["location"] or "").startswith(
            "WARNING: CPU: ") and "vfsdbg_trigger" in r["location"],
            str(r["location"]))
        c.ok(f"{role} location on the console", r["location"] in serial)
        c.eq(f"{role} task", r["task"], "insmod")
        c.ok(f"{role} caller", r["caller"].startswith("T"), r["caller"])
        ino = r["inode"]
        c.eq(f"{role} inode ino", ino.get("ino"), int(t["ino"]))
        c.eq(f"{role} inode linklen", ino.get("linklen"), int(t["linklen"]))
        c.eq(f"{role} inode link_strlen", ino.get("link_strlen"),
             int(t["link_strlen"]))
        c.eq(f"{role} violation", [v["check"] for v in ino.get("violations", [])],
             ["cached_link_length"])
    # The text view says the same for a person.
    p = run(["-k", vmlinux, dump])
    c.eq("text exit code", p.returncode, 1 if victims else 0)
    for role, t in victims.items():
        c.ok(f"text names {role}", f"inode 0x{t['addr']}" in p.stdout)
        c.ok(f"text gives both lengths for {role}",
             f"strlen(i_link) = {t['link_strlen']} but i_linklen = {t['linklen']}"
             in p.stdout)
    if not victims:
        c.ok("text says no report", "no dump_inode() report" in p.stdout, p.stdout)
    c.finish()


if __name__ == "__main__":
    main()
