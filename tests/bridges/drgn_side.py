"""The drgn side of the bridge tests: run inside drgn's Python (the host's
/usr/bin/python3 with drgn 0.0.22, or the sid chroot's with 0.3.0), print
one JSON object on stdout for tests/test_bridges.py to compare with
vmcore-inode's output on the same dump.

usage: drgn_side.py DUMP VMLINUX FILTERED|- ADDRESS...

  decode     {address: inodedump.from_drgn(prog).decode(address)}
  document   from_drgn's document() text of ADDRESS..., and as JSON
  reports    from_drgn's reports() (REPORT dicts)
  commands   (drgn with the command framework) stdout of run_command for
             "inode ADDRESS...", "inode -j ADDRESS...", "inode --reports",
             "inode --sweep --violations-only"; null without the framework
  errors     what an unmapped address and a filtered page (FILTERED, or -) raise
             through from_drgn, and what the command prints for them
  drgn       drgn's version; plugin: whether the command came from the
             plugin entry point
"""
import contextlib
import io
import json
import sys

import drgn
import inodedump

UNMAPPED = 0xffffc8ffff000000  # as in tests/test_bridges.py


def capture(fn):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        fn()
    return out.getvalue(), err.getvalue()


def error_of(fn):
    try:
        fn()
    except inodedump.Error as e:
        return {"class": type(e).__name__, "code": e.code,
                "address": e.address, "message": str(e)}
    return None


def main():
    dump, vmlinux, filtered, *addrs = sys.argv[1:]
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    s = inodedump.from_drgn(prog)
    ints = [int(a, 16) for a in addrs]
    res = {"drgn": drgn.__version__, "info": s.info()}
    res["decode"] = {a: s.decode(i) for a, i in zip(addrs, ints)}
    res["document"] = s.document(ints)[0]
    res["document_json"] = s.document(ints, json=True)[0]
    res["reports"] = s.reports()
    res["sweep"] = list(s.sweep())
    res["errors"] = {"unmapped": error_of(lambda: s.decode(UNMAPPED))}
    if filtered != "-":
        res["errors"]["filtered"] = error_of(lambda: s.decode(int(filtered, 16)))
    try:
        from drgn.commands import run_command
    except ImportError:
        res["commands"] = None
        print(json.dumps(res))
        return
    cmds = {
        "addresses": "inode " + " ".join(addrs),
        "json": "inode -j " + " ".join(addrs),
        "reports": "inode --reports",
        "sweep": "inode --sweep --violations-only",
        "bad": f"inode {UNMAPPED:x} " + addrs[0],
        "what": "inode -w " + " ".join(addrs),
    }
    if filtered != "-":
        cmds["filtered"] = f"inode {filtered} {addrs[0]}"
    res["commands"] = {
        k: capture(lambda c=c: run_command(prog, c, globals={}))
        for k, c in cmds.items()}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
