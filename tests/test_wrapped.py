#!/usr/bin/python3
"""A printk ring that has wrapped many times reads exactly as the kernel
itself saw it, and both reports written after the wrap are found.

usage: test_wrapped.py SET FORMAT        (SET: wrapped)

The wrapped set's guest wrote ~9 data rings' worth of records to /dev/kmsg
before the trigger module fired its two reports, then read its whole log
back through /dev/kmsg (guest-kmsg.txt: the kernel's own formatting, seq
numbers, microsecond timestamps, non-printable bytes escaped \\xNN). That is
the truth here. Checked:

 (a) `vmcore-inode --log DUMP` is, byte for byte, the kernel's records as
     "[%5u.%06u] text\\n" in seq order -- including every record whose text
     block wraps the data ring (found with printk_ring.py), the empty
     (data-less) records, and bytes /dev/kmsg escapes;
 (b) drgn's get_dmesg() on the same dump is compared with the same truth;
     where they differ the kernel wins and the test says where drgn is wrong
     (drgn 0.0.22 keeps a wrapping block's 8-byte id as text:
     `lpos_begin -= lpos_begin`). drgn's mistakes are reported, not failed;
 (c) with no address, both reports are found and decoded.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "vmcores"))
from fixture import escape_log, FORMATS, Checker, read_truth, run, set_dir  # noqa: E402

import drgn  # noqa: E402
from drgn.helpers.linux.printk import get_dmesg, get_printk_records  # noqa: E402
from printk_ring import dmesg_line, parse_kmsg_bytes, ring_records  # noqa: E402

# Formats drgn 0.0.22 cannot open (CONTRACT.md): read the elf-paging dump of
# the same guest moment instead (the guest printed nothing in between).
DRGN_SUBSTITUTE = {"elf-nopaging": "elf-paging",
                   "qemu-kdump-zlib": "elf-paging"}

def parse_kmsg(path):
    with open(path, "rb") as f:
        return parse_kmsg_bytes(f.read())


def main():
    set_name, fmt = sys.argv[1], sys.argv[2]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, FORMATS.get(fmt, fmt))
    drgn_fmt = DRGN_SUBSTITUTE.get(fmt, fmt)
    drgn_dump = os.path.join(d, FORMATS.get(drgn_fmt, drgn_fmt))
    truth = read_truth(os.path.join(d, "truth.txt"))
    victims = {t["role"]: t for t in truth if t["role"].startswith("victim")}
    serial = open(os.path.join(d, "serial.log"), "rb").read()
    kernel, end = parse_kmsg(os.path.join(d, "guest-kmsg.txt"))
    c = Checker()

    # --- the kernel's own view, and proof that the ring wrapped
    c.ok("guest's kmsg view complete", end is not None and end["lost"] == "0"
         and int(end["records"]) == len(kernel) and None not in kernel,
         f"end marker {end}, {len(kernel)} records")
    kernel = [k for k in kernel if k]
    c.ok("kernel view has records", len(kernel) > 100, str(len(kernel)))
    if not kernel:
        c.finish()
    by_seq = {k["seq"]: k for k in kernel}
    c.eq("kernel view's seqs are consecutive",
         [k["seq"] for k in kernel],
         list(range(kernel[0]["seq"], kernel[0]["seq"] + len(kernel))))
    c.ok("early boot records gone (first seq > 0)", kernel[0]["seq"] > 0,
         str(kernel[0]["seq"]))
    c.ok("'Linux version' on the console but not in the kernel's log",
         b"Linux version" in serial and
         not any(b"Linux version" in k["text"] for k in kernel))

    prog = drgn.Program()
    prog.set_core_dump(drgn_dump)
    prog.load_debug_info([vmlinux])
    geo, ring = ring_records(prog)
    size = 1 << geo["size_bits"]
    c.ok("data ring wrapped several times", geo["head_lpos"] // size >= 3,
         f"head_lpos {geo['head_lpos']:#x}, ring {size} bytes")
    c.ok("descriptor ring wrapped",
         kernel[-1]["seq"] + 1 > (1 << geo["count_bits"]),
         f"last seq {kernel[-1]['seq']}, {1 << geo['count_bits']} descriptors")
    c.eq("dump's ring holds the records the kernel showed",
         [r["seq"] for r in ring], [k["seq"] for k in kernel])
    straddling = [r for r in ring if r["wraps"]]
    empty = [k for k in kernel if not k["text"]]
    c.ok("a record's text block wraps the data ring", straddling,
         "none in this dump: rebuild the set (tail just past the wrap point)")
    c.ok("the log holds empty (data-less) records", empty)
    for r in straddling:
        k = by_seq.get(r["seq"])
        c.ok(f"straddling seq {r['seq']} in the kernel view", k is not None)
        if k:
            c.eq(f"raw ring text of straddling seq {r['seq']} (get_data())",
                 r["text"], k["text"])
    # The recipe puts the ring's head so that the first report's own record
    # wraps the data ring (fxtool kmsg-position).
    first = next((k for k in kernel if b" encountered for inode " in k["text"]), None)
    c.ok("the first report's record wraps the data ring",
         first is not None and first["seq"] in {r["seq"] for r in straddling},
         f"report seq {first and first['seq']}, wrapping seqs "
         f"{[r['seq'] for r in straddling]}")
    for role, t in sorted(victims.items()):
        c.ok(f"kernel view holds the {role} report", any(
            f"encountered for inode {t['addr']}".encode() in k["text"]
            for k in kernel))

    # --- (a) vmcore-inode --log against the kernel's view
    # The kernel's bytes; --log escapes what a terminal would act on.
    want = escape_log(b"".join(dmesg_line(k["ts_usec"], k["text"])
                               for k in kernel))
    p = run(["-k", vmlinux, "--log", dump], text=False)
    c.eq("--log exit code", p.returncode, 0)
    got = p.stdout
    if got != want:
        glines, wlines = got.split(b"\n"), want.split(b"\n")
        for i, (g, w) in enumerate(zip(glines, wlines)):
            if g != w:
                seq = kernel[i]["seq"] if i < len(kernel) else "-"
                print(f"--log differs from the kernel at record {i} "
                      f"(seq {seq}):\n ours   {g!r}\n kernel {w!r}")
                break
        print(f"ours {len(got)} bytes/{len(glines) - 1} lines, kernel "
              f"{len(want)} bytes/{len(wlines) - 1} lines; stderr: "
              f"{p.stderr[:500]!r}")
    c.ok("--log equals the kernel's own view, byte for byte", got == want)
    ours_lines = got.split(b"\n")
    pos = {k["seq"]: i for i, k in enumerate(kernel)}
    for r in straddling:
        i = pos.get(r["seq"])
        if i is None:
            continue
        line = ours_lines[i] + b"\n" if i < len(ours_lines) else b""
        c.eq(f"--log straddling record seq {r['seq']}", line,
             dmesg_line(kernel[i]["ts_usec"], kernel[i]["text"]))
    for k in empty[:3]:
        i = pos[k["seq"]]
        line = ours_lines[i] + b"\n" if i < len(ours_lines) else b""
        c.eq(f"--log empty record seq {k['seq']}", line,
             dmesg_line(k["ts_usec"], b""))

    # --- (b) drgn on the same dump, judged by the kernel's view
    note = (f" (drgn cannot open {os.path.basename(dump)}: read "
            f"{os.path.basename(drgn_dump)} of the same moment)"
            if drgn_dump != dump else "")
    drecs = {r.seq: r for r in get_printk_records(prog)}
    wrong, unexplained = [], []
    blocks = {r["seq"]: r for r in ring}
    for k in kernel:
        r = drecs.get(k["seq"])
        if r is not None and r.text == k["text"] and \
                r.timestamp // 1000 == k["ts_usec"]:
            continue
        raw = blocks.get(k["seq"])
        if r is not None and raw and raw["wraps"] and \
                r.text == raw["block_id"] + k["text"][:len(k["text"]) - 8]:
            wrong.append(k["seq"])
            print(f"NOTE drgn get_dmesg() is wrong at seq {k['seq']}{note}: "
                  f"the record's text block wraps the data ring (lpos "
                  f"{raw['begin']:#x}..{raw['next']:#x}); drgn 0.0.22 reads "
                  f"it from offset 0 (`lpos_begin -= lpos_begin`), so its "
                  f"text starts with the 8-byte block id "
                  f"{raw['block_id'].hex()} and loses the last 8 bytes:\n"
                  f"  drgn   {r.text[:48]!r}...{r.text[-24:]!r}\n"
                  f"  kernel {k['text'][:48]!r}...{k['text'][-24:]!r}")
        else:
            unexplained.append(k["seq"])
            print(f"NOTE drgn differs from the kernel at seq {k['seq']}"
                  f"{note}:\n  drgn   {r.text[:80] if r else None!r}\n"
                  f"  kernel {k['text'][:80]!r}")
    extra = sorted(set(drecs) - set(by_seq))
    if extra:
        print(f"NOTE drgn has records the kernel did not show: seqs {extra[:10]}")
    dmesg = get_dmesg(prog)
    print(f"drgn get_dmesg(){note}: {'identical to' if escape_log(dmesg) == want else 'differs from'}"
          f" the kernel's view; wrong at seqs {wrong} (known wrap bug), "
          f"unexplained at {unexplained}; inodedump --log "
          f"{'equals' if got == want else 'differs from'} the kernel")
    # inodedump and drgn agree wherever drgn is right.
    for k in kernel:
        r = drecs.get(k["seq"])
        if k["seq"] in wrong or k["seq"] in unexplained or r is None:
            continue
        i = pos[k["seq"]]
        if i >= len(ours_lines) or ours_lines[i] + b"\n" != \
                escape_log(dmesg_line(r.timestamp // 1000, r.text)):
            c.ok(f"--log agrees with drgn where drgn is right (seq {k['seq']})",
                 False)
            break
    else:
        c.ok("--log agrees with drgn wherever drgn agrees with the kernel", True)

    # --- (c) no address: both reports found and decoded
    p = run(["-k", vmlinux, "--json", dump])
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        c.ok("reports JSON", False, f"{e}; exit {p.returncode}; {p.stderr}")
        c.finish()
    c.eq("reports exit code", p.returncode, 1)
    reports = doc.get("reports") or []
    c.eq("one report per victim", len(reports), len(victims))
    by_addr = {r["address"]: r for r in reports}
    for role, t in sorted(victims.items()):
        r = by_addr.get("0x" + t["addr"])
        c.ok(f"{role} reported", r is not None, str(list(by_addr)))
        if not r:
            continue
        c.eq(f"{role} reason", r["reason"],
             "VFS_WARN_ON_INODE(strlen(link) != linklen)")
        if first and r["seq"] == first["seq"]:
            print(f"{role}'s report is the record that wraps the data ring "
                  f"(seq {r['seq']}): found and decoded")
        k = by_seq.get(r["seq"])
        c.ok(f"{role} report seq {r['seq']} is the kernel's record",
             k is not None and f"encountered for inode {t['addr']}".encode()
             in k["text"])
        if k:
            c.eq(f"{role} report timestamp", r["timestamp_ns"] // 1000,
                 k["ts_usec"])
        ino = r["inode"]
        c.eq(f"{role} inode address", ino.get("address"), "0x" + t["addr"])
        c.eq(f"{role} inode ino", ino.get("ino"), int(t["ino"]))
        c.eq(f"{role} inode linklen", ino.get("linklen"), int(t["linklen"]))
        c.eq(f"{role} inode link_strlen", ino.get("link_strlen"),
             int(t["link_strlen"]))
        c.eq(f"{role} violations",
             [v["check"] for v in ino.get("violations", [])],
             ["cached_link_length"])
    c.finish()


if __name__ == "__main__":
    main()
