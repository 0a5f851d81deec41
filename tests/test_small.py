#!/usr/bin/python3
"""A small real dump committed in tests/vmcores/small/NAME, read with no
vmlinux and no fixture cache (the quick tier, issue 39).

usage: test_small.py NAME

Each directory holds one dump cut from a fixture set by
tests/vmcores/make-small.sh, with the truth that set's recipe wrote while
its guest ran (small.txt says which set, which dump, which recipe):

- truth.txt: drgn's reading of the set's unfiltered dump with the kernel's
  -dbg vmlinux (the stock sets' truth), never inodedump's output. Every
  truth inode decodes to those values from the dump alone: types from the
  dump's BTF, symbols from its kallsyms. Where the kernel has no BTF
  (small.txt: types=none), a decode (addresses, the reports, the sweep)
  exits 3 saying so, while --log and --info read what needs no types
  (the log with the ring's layout VMCOREINFO gives) and say so.
- lost.txt (dumps filtered at -d 31): the truth inodes whose own bytes
  drgn could not read from this very dump (makedumpfile dropped their
  page); each must end in an error naming the address, not a value.
- serial.log: the guest's console. --log holds every kernel line the
  console printed before the dump was taken (multi-line records printed
  line by line there, as one record here).
- --info names the architecture the guest ran on (small.txt: arch=).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from fixture import Checker, read_truth, schema_checked, vmcore_inode
from test_truth import check_inode

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "vmcores", "small")
STAMP = re.compile(r"\[ *(\d+\.\d+)\] ")
# A value a filtered dump lost is said with the page its writer dropped
# (as tests/test_writers.py judges it).
EXPLAINED = re.compile(r"filtered out of the dump by its writer \(dump level "
                       r"\d+[^)]*\): pfn 0x[0-9a-f]+ \(struct page 0x[0-9a-f]+\) "
                       r"was ")
# truth key -> vmcore-inode's JSON key, for the values a filtered dump may
# lose (test_truth.check_inode compares a truth value of None as absent).
FIELDS = {"link": "link", "link_strlen": "link_strlen", "s_id": "s_id",
          "fstype": "fs_type", "sb": "sb", "gen": "generation",
          "blocks": "blocks", "rdev": "rdev", "i_op": "i_op",
          "i_fop": "i_fop", "a_ops": "a_ops", "s_op": "s_op"}


def descriptor(d):
    out = {}
    with open(os.path.join(d, "small.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if k and not k.startswith("#"):
                out[k] = v
    return out


def run(args, env):
    return schema_checked(args, subprocess.run([vmcore_inode(), *args],
                                               capture_output=True, env=env,
                                               timeout=300))


def log_records(text):
    """--log's lines, a record's continuation lines given its stamp, as
    the console prints them."""
    out, stamp = [], None
    for line in text.splitlines():
        m = STAMP.match(line)
        if m:
            stamp = line[:m.end()]
            out.append(line)
        elif stamp is not None:
            out.append(stamp + line)
    return out


def check_log(c, name, d, dump, env, typeless):
    p = run(["--log", dump], env)
    c.eq(name + " --log exit", p.returncode, 0)
    if typeless:
        err = p.stderr.decode("utf-8", "replace")
        c.ok(name + " no types: --log says it read VMCOREINFO's layout",
             "VMCOREINFO" in err, err[:400])
    log = log_records(p.stdout.decode("utf-8", "replace"))
    c.ok(name + " --log has records", len(log) >= 100, f"{len(log)} lines")
    if not log:
        return
    last = float(STAMP.match(log[-1]).group(1))
    have = set(log)
    console = []
    with open(os.path.join(d, "serial.log"), "rb") as f:
        for raw in f.read().decode("utf-8", "replace").splitlines():
            line = raw.rstrip("\r")
            i = line.find("[")   # a console line may follow a shell prompt
            m = STAMP.match(line[i:]) if i >= 0 else None
            if m and float(m.group(1)) <= last:
                console.append(line[i:])
    c.ok(name + " console lines to compare", len(console) >= 100,
         f"{len(console)} lines")
    missing = [line for line in console if line not in have]
    c.ok(name + " every console line of the kernel is in --log",
         not missing, f"{len(missing)} missing, first: {missing[:3]}")


def main():
    name = sys.argv[1]
    d = os.path.join(SMALL, name)
    desc = descriptor(d)
    dump = os.path.join(d, desc["dump"])
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        # Nothing found but the dump: an empty --debug-root, no debuginfod,
        # a cache of this run's own.
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("DEBUGINFOD_URLS", None)
        empty = os.path.join(tmp, "debug")
        os.mkdir(empty)
        nodebug = ["--debug-root", empty]

        typeless = desc.get("types") == "none"
        p = run(["--info", dump], env)
        c.eq(name + " --info exit", p.returncode, 0)
        info = p.stdout.decode("utf-8", "replace")
        c.ok(name + " --info names the architecture",
             re.search(r"\b" + re.escape(desc["arch"]) + r"\b", info) is not None,
             info[:400])
        if typeless:
            c.ok(name + " no types: --info says what it did not read",
                 re.search(r"^excluded, by kind +\(not read: no kernel types",
                           info, re.M) is not None and
                 re.search(r"^types +none: .*no BTF", info, re.M) is not None,
                 info[-800:])

        check_log(c, name, d, dump, env, typeless)

        truth = read_truth(os.path.join(d, "truth.txt"))
        lost = set()
        lost_txt = os.path.join(d, "lost.txt")
        if os.path.exists(lost_txt) and any(
                line.strip() and not line.startswith("#") for line in open(lost_txt)):
            lost = {t["role"] for t in read_truth(lost_txt)}
        addrs = [t["addr"] for t in truth]
        p = run([*nodebug, "--json", dump, *addrs], env)
        if typeless:
            err = p.stderr.decode("utf-8", "replace")
            c.eq(name + " no types: exit 3", p.returncode, 3)
            c.ok(name + " no types: says there is no BTF", "BTF" in err, err[:400])
            for mode in ([], ["--sweep"]):
                p = run([*nodebug, *mode, dump], env)
                err = p.stderr.decode("utf-8", "replace")
                what = " ".join(mode) or "the reports"
                c.eq(f"{name} no types: {what} exit 3", p.returncode, 3)
                c.ok(f"{name} no types: {what} says there is no BTF",
                     "BTF" in err, err[:400])
            c.finish()
        try:
            doc = json.loads(p.stdout)
        except json.JSONDecodeError as e:
            raise SystemExit(f"FAIL {name}: output is not JSON ({e}); exit "
                             f"{p.returncode}; stderr: {p.stderr[:2000]!r}")
        inodes = doc.get("inodes", [])
        c.eq(name + " one result per address", len(inodes), len(truth))
        lossy = desc.get("filtered") == "yes"
        decoded = 0
        for t, got in zip(truth, inodes):
            n = f"{name}/{t['role']}"
            if "error" in got:
                # Only an inode drgn cannot read from this dump either,
                # lost to a page its writer dropped, and said so.
                c.ok(n + " lost only where drgn cannot read it either",
                     t["role"] in lost, str(got["error"])[:300])
                c.ok(n + " the lost page is explained",
                     EXPLAINED.search(str(got["error"].get("message"))) is not None,
                     str(got["error"])[:300])
                continue
            c.ok(n + " decoded where drgn reads it", t["role"] not in lost)
            decoded += 1
            t2, paths = dict(t), True
            if lossy and got.get("errors"):
                # A filtered dump: a value read as null (a link's page, a
                # dentry's, a superblock's dropped) only with a note that
                # names the dropped page; everything read is the truth.
                for note in got["errors"]:
                    c.ok(f"{n} note on {note.get('field')} explained",
                         EXPLAINED.search(note.get("reason", "")) is not None,
                         str(note)[:300])
                for k, jk in FIELDS.items():
                    if k in t2 and got.get(jk) is None:
                        t2[k] = None
                paths = bool(got.get("paths"))
            check_inode(c, n, t2, got, paths=paths)
        c.ok(name + " inodes decoded", decoded >= len(truth) - len(lost) > 0,
             f"{decoded} of {len(truth)}")
        want_rc = (3 if any("error" in g for g in inodes) else
                   4 if any(g.get("errors") for g in inodes) else 0)
        c.eq(name + " exit code", p.returncode, want_rc)
    c.finish()


if __name__ == "__main__":
    main()
