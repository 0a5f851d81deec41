#!/usr/bin/python3
"""Seeded hostile crash directories for vmcore-inode --triage (issue 41,
item 5): where test_triage_hostile.py has one tree per kind of attack,
this draws trees that mix them, from a seed, so that each seed is a new
set of CI cases and any failure is reproduced by its seed and tree.

usage: test_triage_generated.py SEED TREES [TREE...]
  (TREE...: only those trees of the seed, to reproduce one)

Each tree (tests/test_triage_hostile.py's Tree: TMP/outer/crash is DIR,
dumps, a directory and a file outside it that a symlink may point at)
gets 3 to 7 entries drawn from:

  dump        the committed dump as DIR/NAME/dump.STAMP, DIR/NAME/vmcore
              or DIR/NAME.vmcore; NAME any bytes but '/' and NUL (ESC
              sequences, BEL, CR, LF, ff fe, invalid and bidi UTF-8,
              quotes, backslash, printf conversions)
  bad_result  a dump whose inodedump.txt or inodedump.json is a FIFO, a
              symlink out of DIR, a directory, or (as root) /dev/zero's
              numbers
  link        a dump's name, a directory's or a top-level name as a
              symlink: to .., out of DIR, to /, /dev/zero, dangling, to
              itself (a loop)
  special     a dump's name as a FIFO, a directory, a 1 TiB sparse file
              of zeros, or (as root) a character device
  lock        DIR/.inodedump-triage.lock as a symlink (to a file outside
              that does not exist), a FIFO, a directory or (as root) a
              device
  saved_log   a dump whose ring cannot be read, its dmesg.STAMP a FIFO, a
              symlink to /dev/zero, a 64 GiB sparse file after the guest's
              log, or (as root) a device
  replaced    a dump swapped, during the run, between itself, a symlink
              out of DIR and a FIFO (rename(2) over it, every few ms)

and two runs: --json (the summary checked row by row), then the table
(every dump now triaged before). Each run is checked as
test_triage_hostile.py checks its own: nothing outside DIR changed, ended
within its timeout, memory bounded, no sanitizer report, valid JSON (the
summary and every inodedump.json, as the schema says), no raw ESC or BEL
on stdout, stderr or in any inodedump.txt. Row by row: each dump drawn
is triaged, each entry that is no dump we may read is an error row whose
note says why (a symbolic link not followed, a FIFO, a device, results not
written) — never silently left, never followed.

Truth: the entries the test made (their bytes, types and places), never
inodedump's output.
"""
import os
import random
import stat
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker  # noqa: E402
from test_triage_hostile import (Tree, ring_unreadable_copy,  # noqa: E402
                                 run, summary)

ROOT = os.geteuid() == 0
ZERO = os.makedev(1, 5)  # /dev/zero's numbers
PIECES = [b"\x1b]0;pwned\x07", b"\x1b[2J", b"\x1b[31m", b"\x07", b"\r",
          b"\n", b"\t", b"\xff\xfe", b"\xc3\x28", b"\xe2\x80\xae",
          b"\xed\xa0\x80", b"\x7f", b'"', b"\\", b"%s%n", b" ", b"ok",
          b"202612070101", b"-", b".", b"\xc2\x9b"]
SAID = {"link": "symbolic link: not followed",
        "fifo": "a FIFO, not a regular file",
        "device": "a character device, not a regular file",
        "result": "results not written"}


def hostile_name(rng):
    """1-4 pieces: never empty, '.' or '..', no '/' or NUL."""
    while True:
        name = b"".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))
        if name not in (b".", b".."):
            return name


class Gen:
    """One tree: the entries drawn and what each must get."""

    def __init__(self, tree, rng):
        self.t, self.rng = tree, rng
        self.expect = {}   # path bytes: (state, words of its note or None)
        self.lock = None   # what the lock was made
        self.racers = []
        self.used = set()

    def fresh(self, make):
        """A name no other entry of the tree took."""
        while True:
            n = make()
            if n not in self.used:
                self.used.add(n)
                return n

    def dump_path(self, layouts=("stamp", "rhel", "top")):
        """Where a dump goes: (its directory, its file name)."""
        r = self.rng
        layout = r.choice(layouts)
        if layout == "top":
            return b"", self.fresh(lambda: hostile_name(r) + b".vmcore")
        d = self.fresh(lambda: hostile_name(r))
        os.makedirs(self.t.path(d))
        return d, (b"dump." + hostile_name(r) if layout == "stamp"
                   else b"vmcore")

    def dump(self, layouts=("stamp", "rhel", "top")):
        d, n = self.dump_path(layouts)
        p = self.t.path(d, n)
        self.t.dump(p.decode(errors="surrogateescape"))
        self.expect[p] = ("triaged", None)
        return d, p

    def bad_result(self):
        """(in a directory of its own: a top-level dump's results are
        NAME.inodedump.* or, the only one, DIR's inodedump.*)"""
        d, p = self.dump(("stamp", "rhel"))
        target = self.t.path(d, self.rng.choice((b"inodedump.txt",
                                                 b"inodedump.json")))
        kinds = ["fifo", "link", "dir"] + (["device"] if ROOT else [])
        kind = self.rng.choice(kinds)
        {"fifo": os.mkfifo,
         "link": lambda q: os.symlink(os.path.join(self.t.outer, "precious"),
                                      q),
         "dir": os.mkdir,
         "device": lambda q: os.mknod(q, stat.S_IFCHR | 0o666, ZERO)}[kind](
            target)
        self.expect[p] = ("error", SAID["result"])

    def link(self):
        r = self.rng
        where = r.choice(("dump", "top"))
        outer = self.t.outer
        targets = ["..", "../..", outer, os.path.join(outer, "escape.vmcore"),
                   os.path.join(outer, "elsewhere"), "/", "/dev/zero",
                   os.path.join(outer, "absent"), None]
        target = r.choice(targets)
        if where == "dump":
            d, n = self.dump_path()
            p = self.t.path(d, n)
        else:  # a name that is no dump's: a directory's, anything's
            p = self.t.path(self.fresh(lambda: hostile_name(r)))
        os.symlink(p if target is None else target.encode(), p)  # None: loop
        self.expect[p] = ("error", SAID["link"])

    def special(self):
        kinds = ["fifo", "dir", "sparse"] + (["device"] if ROOT else [])
        kind = self.rng.choice(kinds)
        d, n = self.dump_path()
        p = self.t.path(d, n)
        if kind == "fifo":
            os.mkfifo(p)
        elif kind == "dir":
            os.mkdir(p)
        elif kind == "sparse":
            with open(p, "wb") as f:
                f.truncate(1 << 40)
        else:
            os.mknod(p, stat.S_IFCHR | 0o666, ZERO)
        self.expect[p] = ("error", SAID.get(kind))

    def lock_entry(self):
        if self.lock:
            return
        kinds = ["link", "fifo", "dir"] + (["device"] if ROOT else [])
        self.lock = self.rng.choice(kinds)
        p = self.t.path(".inodedump-triage.lock")
        {"link": lambda: os.symlink(os.path.join(self.t.outer,
                                                 "made-by-the-lock"), p),
         "fifo": lambda: os.mkfifo(p),
         "dir": lambda: os.mkdir(p),
         "device": lambda: os.mknod(p, stat.S_IFCHR | 0o666, ZERO)}[
            self.lock]()

    def saved_log(self):
        r = self.rng
        d = self.fresh(lambda: hostile_name(r))
        stamp = b"2026120701%02d" % r.randrange(100)
        p = self.t.path(d, b"dump." + stamp)
        ring_unreadable_copy(self.t, p.decode(errors="surrogateescape"))
        log = self.t.path(d, b"dmesg." + stamp)
        kind = r.choice(["fifo", "zero", "huge"] + (["device"] if ROOT
                                                     else []))
        if kind == "fifo":
            os.mkfifo(log)
        elif kind == "zero":
            os.symlink("/dev/zero", log)
        elif kind == "device":
            os.mknod(log, stat.S_IFCHR | 0o666, ZERO)
        else:
            with open(os.path.join(self.t.committed, "serial.log"),
                      "rb") as f, open(log, "wb") as o:
                o.write(f.read())
                o.truncate(64 << 30)
        self.expect[p] = ("triaged", None)

    def replaced(self):
        d, n = self.dump_path()
        p = self.t.path(d, n)
        self.t.dump(p.decode(errors="surrogateescape"))
        self.racers.append(p)  # any state: it changes under the run

    def race(self, stop):
        """Each racing dump, in turn: a symlink out of DIR, a FIFO, the
        dump again, each put in place by rename(2) over it."""
        dump = os.path.join(self.t.committed, "d17-zlib.vmcore")
        i = 0
        while not stop.is_set():
            for p in self.racers:
                tmp = p + b".swap"
                what = i % 3
                try:
                    if what == 0:
                        os.symlink(os.path.join(self.t.outer,
                                                "escape.vmcore"), tmp)
                    elif what == 1:
                        os.mkfifo(tmp)
                    else:
                        os.link(dump, tmp)
                    os.rename(tmp, p)
                except OSError:
                    pass
            i += 1
            time.sleep(0.003)
        for p in self.racers:  # as it began
            tmp = p + b".swap"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.link(dump, tmp)
            os.rename(tmp, p)


DRAWS = ("dump", "bad_result", "link", "special", "lock_entry", "saved_log",
         "replaced")


def one_tree(c, seed, i):
    rng = random.Random(f"{seed}/{i}")
    t = Tree()
    g = Gen(t, rng)
    g.dump()  # every tree has a dump to triage
    kinds = [rng.choice(DRAWS) for _ in range(rng.randint(2, 6))]
    for kind in kinds:
        getattr(g, kind)()
    t.settle()
    name = f"tree {seed}/{i}"
    print(f"-- {name}: dump, {', '.join(kinds)}")
    stop = threading.Event()
    racer = threading.Thread(target=g.race, args=(stop,))
    if g.racers:
        racer.start()
    try:
        code, out, err = run(c, t, name, ["--json"])
    finally:
        stop.set()
        if g.racers:
            racer.join()
    by = summary(c, name, out)
    for p, (state, words) in g.expect.items():
        r = by.get(p, {})
        c.eq(f"{name}: {p!r}: {state}", r.get("state"), state)
        if words:
            c.ok(f"{name}: {p!r}: says why ({words})",
                 words in r.get("note", ""), str(r)[:400])
    c.ok(f"{name}: no row for a path outside DIR",
         all(p.startswith(t.crash.encode() + b"/") for p in by), str(list(by)))
    if g.lock:
        c.ok(f"{name}: the lock ({g.lock}) said, not taken",
             b"not taken as the lock" in err, repr(err[-400:]))
    # the table: every name escaped, the dumps triaged before
    code2, out2, err2 = run(c, t, name + " table", [])
    if not g.racers:  # a raced dump may be another thing each run
        c.ok(f"{name} table: exit as the summary's, or better (triaged "
             "before)", code2 <= code, f"{code2} after {code}")
    t.remove()


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    seed, trees = int(sys.argv[1]), int(sys.argv[2])
    only = [int(a) for a in sys.argv[3:]] or range(trees)
    c = Checker()
    for i in only:
        one_tree(c, seed, i)
    c.finish()


if __name__ == "__main__":
    main()
