"""Our dump reader and x86-64 page-table walk against libkdumpfile's reading
of the same dump (tests/test_reader.c): addresses are every truth inode of
the set, its superblock, and kernel symbols from VMCOREINFO; the expected
bytes and translations come from libkdumpfile/libaddrxlat, not from us.

    test_reader.py SET FORMAT READER_BINARY
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import FORMATS, read_truth, set_dir  # noqa: E402


def vmcoreinfo_symbols(path):
    """SYMBOL(...) values from the dump's VMCOREINFO text, found by bytes."""
    out = []
    with open(path, "rb") as f:
        head = f.read(64 << 20)
    for name in (b"init_top_pgt", b"swapper_pg_dir", b"_stext", b"init_uts_ns",
                 b"prb", b"node_data", b"mem_section"):
        key = b"SYMBOL(" + name + b")="
        i = head.find(key)
        if i >= 0:
            out.append(head[i + len(key):head.index(b"\n", i)].decode())
    return out


def main():
    set_name, fmt, binary = sys.argv[1:4]
    d = set_dir(set_name)
    dump = os.path.join(d, FORMATS.get(fmt, fmt + ".vmcore"))
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = []
    for t in truth:
        addrs.append(t["addr"])
        if t.get("sb"):
            addrs.append(t["sb"])
    syms = vmcoreinfo_symbols(dump)
    if len(syms) < 3:
        raise SystemExit(f"FAIL only {len(syms)} VMCOREINFO symbols found in {dump}")
    r = subprocess.run([binary, dump] + addrs + syms, capture_output=True,
                       text=True, timeout=280)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        raise SystemExit(f"FAIL test_reader exit {r.returncode}")
    last = r.stdout.strip().splitlines()[-1]
    if not last.startswith("ok "):
        raise SystemExit("FAIL no ok line")
    print(f"ok {set_name} {fmt}: {len(addrs)} truth addresses, {len(syms)} symbols")


if __name__ == "__main__":
    main()
