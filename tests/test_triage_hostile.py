#!/usr/bin/python3
"""vmcore-inode --triage over a crash directory someone hostile may write
(issue 41): it runs as root, so nothing it finds there may make it read or
write outside the directory, block, grow without bound or put raw control
bytes on a terminal or in its results.

usage: test_triage_hostile.py [CASE...]   (default: every case)

Each case builds its own temporary tree from the committed fixture alone
(tests/vmcores/committed: its d17-zlib.vmcore, hard-linked, and its
vmlinux, found by build-id below a debug root):

  TMP/outer/            outside DIR: a dump, a directory of dumps, a file
  TMP/outer/crash/      DIR, with the hostile entries of the case
  TMP/root/             the debug root

and checks, besides what the case is about: no byte, mode or entry of
TMP/outer outside DIR changed (compared before and after), the run ended
within its timeout, its address space limited to 1 GiB (RLIMIT_AS; the
sanitizer build reserves more: there its peak RSS is checked instead),
no sanitizer report (in the -Db_sanitize build), the --json summary and
every inodedump.json parse as JSON from their bytes, and no ESC or BEL in
the summary, stderr or any inodedump.txt.

Truth: the entries the test itself made (paths, types, bytes), never
inodedump's output.
"""
import hashlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import (Checker, build_id, link_fixture, set_dir,  # noqa: E402
                     vmcore_inode)
import schema_check  # noqa: E402

LIMIT_AS = 1 << 30
TIMEOUT = 120
HOUR_AGO = time.time() - 3600
CONTROL = (b"\x1b", b"\x07")


def sanitized(exe):
    """An AddressSanitizer build reserves terabytes of address space."""
    with open(exe, "rb") as f:
        return b"__asan_init" in f.read()


class Tree:
    """TMP/outer with DIR inside it and a debug root beside it."""

    def __init__(self):
        self.committed = set_dir("committed")
        self.tmp = tempfile.mkdtemp(prefix="triage-hostile-")
        self.outer = os.path.join(self.tmp, "outer")
        self.crash = os.path.join(self.outer, "crash")
        os.makedirs(self.crash)
        vmlinux = os.path.join(self.committed, "vmlinux")
        bid = build_id(vmlinux)
        self.debug = os.path.join(self.tmp, "root")
        d = os.path.join(self.debug, "usr/lib/debug/.build-id", bid[:2])
        os.makedirs(d)
        link_fixture(vmlinux, os.path.join(d, bid[2:] + ".debug"))
        # Outside DIR: what a symlink in DIR may point at.
        self.dump(os.path.join(self.outer, "escape.vmcore"))
        os.makedirs(os.path.join(self.outer, "elsewhere"))
        self.dump(os.path.join(self.outer, "elsewhere", "vmcore"))
        with open(os.path.join(self.outer, "precious"), "wb") as f:
            f.write(b"not to be touched\n")

    def dump(self, dst):
        """The committed dump at dst (a hard link: never written)."""
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        link_fixture(os.path.join(self.committed, "d17-zlib.vmcore"), dst)

    def path(self, *parts):
        return os.path.join(self.crash.encode(), *[
            p if isinstance(p, bytes) else p.encode() for p in parts])

    def settle(self):
        """Everything in DIR modified an hour ago (the fixture's own files,
        hard links here, were written long ago and are left alone)."""
        for d, dirs, files in os.walk(self.crash.encode()):
            for n in dirs + files:
                p = os.path.join(d, n)
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    continue
                os.utime(p, (HOUR_AGO, HOUR_AGO), follow_symlinks=False)
        os.utime(self.crash, (HOUR_AGO, HOUR_AGO))

    def outside(self):
        """Every entry of TMP but DIR: type, mode, owner, bytes or target."""
        out = {}
        for d, dirs, files in os.walk(self.tmp.encode()):
            if d == self.crash.encode():
                dirs[:] = []
                continue
            for n in dirs + files:
                p = os.path.join(d, n)
                if p == self.crash.encode():
                    continue
                st = os.lstat(p)
                what = (stat.S_IFMT(st.st_mode), st.st_mode, st.st_uid,
                        st.st_mtime_ns)
                if stat.S_ISLNK(st.st_mode):
                    what += (os.readlink(p),)
                elif stat.S_ISREG(st.st_mode):
                    with open(p, "rb") as f:
                        what += (hashlib.sha256(f.read()).hexdigest(),)
                out[p] = what
        return out

    def remove(self):
        shutil.rmtree(self.tmp, True)


def limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(c, tree, name, args):
    """vmcore-inode --triage ARGS DIR: (exit status, stdout, stderr) as
    bytes; checked to end in time, within its memory, leaving everything
    outside DIR as it was."""
    exe = vmcore_inode()
    asan = sanitized(exe)
    before = tree.outside()
    p = subprocess.Popen([exe, "--triage", "--debug-root", tree.debug] + args
                         + [tree.crash], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         preexec_fn=None if asan else limit_address_space,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        hung = True
    c.ok(f"{name}: ends within {TIMEOUT} s (never blocks)", not hung,
         err[-300:].decode(errors="replace"))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    c.ok(f"{name}: peak RSS under 1 GiB", usage.ru_maxrss < LIMIT_AS >> 10,
         f"{usage.ru_maxrss} KiB")
    c.ok(f"{name}: no signal ({p.returncode})", p.returncode >= 0)
    c.ok(f"{name}: no sanitizer report", b"Sanitizer" not in err
         and b"runtime error" not in err, err[-1500:].decode(errors="replace"))
    c.eq(f"{name}: nothing outside DIR changed", tree.outside(), before)
    for stream, data in (("stdout", out), ("stderr", err)):
        c.ok(f"{name}: no ESC or BEL on {stream}",
             not any(b in data for b in CONTROL), repr(data[:300]))
    for d, _, files in os.walk(tree.crash.encode()):
        for n in files:
            p_ = os.path.join(d, n)
            if not os.path.isfile(p_) or os.path.islink(p_):
                continue
            if not n.endswith((b"inodedump.txt", b"inodedump.json")):
                continue
            with open(p_, "rb") as f:
                data = f.read()
            # The dump is read as /proc/self/fd/N: its path said instead.
            c.ok(f"{name}: {p_!r} names the dump, not /proc/self/fd",
                 b"/proc/self/fd" not in data)
            if n.endswith(b"inodedump.txt"):
                c.ok(f"{name}: no ESC or BEL in {p_!r}",
                     not any(b in data for b in CONTROL), repr(data[:300]))
            else:
                try:
                    schema_check.check_text(
                        data.decode("utf-8", "surrogateescape"),
                        "triage_result", repr(p_))
                    valid = True
                except schema_check.SchemaFailure as e:
                    valid = str(e)
                c.eq(f"{name}: {p_!r} is valid JSON, as the schema says",
                     valid, True)
    return p.returncode, out, err


def summary(c, name, out):
    """The --json summary's rows by path (the path's bytes)."""
    try:
        doc = schema_check.check_text(out.decode("utf-8", "surrogateescape"),
                                      "triage_batch_document", "--json summary")
    except schema_check.SchemaFailure as e:
        c.ok(f"{name}: the --json summary is valid JSON, as the schema says",
             False, str(e))
        return {}
    c.ok(f"{name}: the --json summary is valid JSON, as the schema says", True)
    # The JSON writer's rule: each byte outside ASCII as \u00XX.
    return {r["path"].encode("latin-1"): r for r in doc["dumps"]}


def results(path):
    """An inodedump.json as a dict; {} when it is missing (the checks on
    its keys then fail, and the next case still runs)."""
    try:
        with open(path, "rb") as f:
            return schema_check.check_text(
                f.read().decode("utf-8", "surrogateescape"), "triage_result",
                repr(path))
    except (OSError, schema_check.SchemaFailure) as e:
        print(f"FAIL no results at {path!r} as the schema says: {e}")
        return {}


def symlinks_below_dir_are_never_followed(c):
    """DIR/up -> .., a dump directory that is a symlink elsewhere and a
    dump that is a symlink to one outside: each an error row, said once on
    stderr, nothing read or written through them; the real dump beside
    them is triaged (its results mean a second round ran too)."""
    t = Tree()
    os.symlink("..", t.path("up"))
    os.symlink(os.path.join(t.outer, "elsewhere"), t.path("elsewhere"))
    os.makedirs(t.path("202612050202"))
    os.symlink(os.path.join(t.outer, "escape.vmcore"),
               t.path("202612050202", "dump.202612050202"))
    t.dump(t.path("202612050101", "dump.202612050101").decode())
    t.settle()
    code, out, err = run(c, t, "symlinks", ["--json"])
    by = summary(c, "symlinks", out)
    c.eq("symlinks: the real dump triaged",
         by.get(t.path("202612050101", "dump.202612050101"), {}).get("state"),
         "triaged")
    for p in (t.path("up"), t.path("elsewhere"),
              t.path("202612050202", "dump.202612050202")):
        r = by.get(p, {})
        c.eq(f"symlinks: {p!r}: an error row", r.get("state"), "error")
        c.ok(f"symlinks: {p!r}: says it is a symlink, not followed",
             "symbolic link: not followed" in r.get("note", ""), str(r))
        c.eq(f"symlinks: {p!r}: said once on stderr",
             err.count(p + b": a symbolic link"), 1)
    c.ok("symlinks: no row for what the links point at",
         not [p for p in by if not p.startswith(t.crash.encode())],
         str(list(by)))
    j = results(t.path("202612050202", "inodedump.json"))
    c.ok("symlinks: the dump symlink's error file says why",
         "symbolic link" in j.get("error", ""), str(j)[:300])
    c.eq("symlinks: batch status 3 (a dump not read)", code, 3)
    t.remove()


def lock_symlink_creates_nothing(c):
    """The lock a symlink to a file that does not exist (O_CREAT would
    create it) or to one that does: neither created nor opened; said, and
    the batch runs without the lock."""
    for case, target in (("absent", "created-by-the-lock"),
                         ("present", "precious")):
        t = Tree()
        os.symlink(os.path.join(t.outer, target),
                   t.path(".inodedump-triage.lock"))
        t.dump(t.path("202612050101", "dump.202612050101").decode())
        t.settle()
        name = f"lock symlink to {case}"
        code, out, err = run(c, t, name, ["--json"])
        c.ok(f"{name}: its target not created",
             case == "present" or not os.path.lexists(
                 os.path.join(t.outer, target)))
        c.ok(f"{name}: said", b"not taken as the lock" in err, repr(err[-300:]))
        c.ok(f"{name}: still a symlink",
             os.path.islink(t.path(".inodedump-triage.lock")))
        c.eq(f"{name}: the dump triaged all the same",
             summary(c, name, out).get(
                 t.path("202612050101", "dump.202612050101"), {}).get("state"),
             "triaged")
        t.remove()


def lock_not_ours_is_not_the_lock(c):
    """A lock that is a FIFO (opening it must not wait), or a regular file
    someone else owns: said, the batch runs without it."""
    t = Tree()
    os.mkfifo(t.path(".inodedump-triage.lock"))
    t.settle()
    code, out, err = run(c, t, "lock FIFO", [])
    c.ok("lock FIFO: said", b"a FIFO, not a regular file: not taken as the lock"
         in err, repr(err[-300:]))
    if os.geteuid() == 0:
        t2 = Tree()
        lock = t2.path(".inodedump-triage.lock")
        open(lock, "w").close()
        os.chown(lock, 65534, 65534)
        code, out, err = run(c, t2, "lock of another owner", [])
        c.ok("lock of another owner: said",
             b"someone else owns: not taken as the lock" in err,
             repr(err[-300:]))
        t2.remove()
    t.remove()


def results_that_are_no_regular_file_are_left(c):
    """A FIFO as inodedump.txt, as inodedump.json, a symlink as
    inodedump.json, a FIFO as the dump: nothing blocks, nothing is written
    through them or replaces them; each dump's row says which file."""
    t = Tree()
    cases = {
        "fifo-txt": ("inodedump.txt", os.mkfifo),
        "fifo-json": ("inodedump.json", os.mkfifo),
        "link-json": ("inodedump.json", lambda p: os.symlink(
            os.path.join(t.outer, "precious"), p)),
    }
    for d, (result, make) in cases.items():
        t.dump(t.path(d, "vmcore").decode())
        make(t.path(d, result))
    os.makedirs(t.path("fifo-dump"))
    os.mkfifo(t.path("fifo-dump", "vmcore"))
    t.settle()
    code, out, err = run(c, t, "results", ["--json"])
    by = summary(c, "results", out)
    for d, (result, _) in cases.items():
        r = by.get(t.path(d, "vmcore"), {})
        c.eq(f"results {d}: an error row", r.get("state"), "error")
        c.ok(f"results {d}: names the file and why",
             f"results not written: {t.crash}/{d}/{result}: a "
             in r.get("note", ""), str(r))
        st = os.lstat(t.path(d, result))
        c.ok(f"results {d}: left as it was",
             stat.S_ISFIFO(st.st_mode) if d.startswith("fifo")
             else stat.S_ISLNK(st.st_mode))
        c.eq(f"results {d}: no temporary file left",
             [n for n in os.listdir(t.path(d)) if b"tmp" in n], [])
    r = by.get(t.path("fifo-dump", "vmcore"), {})
    c.ok("results fifo-dump: refused as a FIFO",
         "a FIFO, not a regular file" in r.get("note", ""), str(r))
    c.eq("results: batch status 3", code, 3)
    t.remove()


def devices_are_never_opened(c):
    """As root: a character device (1:5, /dev/zero's numbers) as
    inodedump.txt, as dmesg.STAMP, as the lock and as a dump: none opened
    (a read from it would never end), each refused as a device, left."""
    if os.geteuid() != 0:
        print("devices: not root, no device nodes: skipped")
        return
    t = Tree()
    zero = os.makedev(1, 5)

    def node(p):
        os.mknod(p, stat.S_IFCHR | 0o666, zero)

    t.dump(t.path("txt", "vmcore").decode())
    node(t.path("txt", "inodedump.txt"))
    ring_unreadable_copy(t, t.path("dmesg", "dump.202612050101").decode())
    node(t.path("dmesg", "dmesg.202612050101"))
    os.makedirs(t.path("dump"))
    node(t.path("dump", "vmcore"))
    node(t.path(".inodedump-triage.lock"))
    t.settle()
    code, out, err = run(c, t, "devices", ["--json"])
    by = summary(c, "devices", out)
    device = "a character device, not a regular file"
    c.ok("devices: the lock refused", (device + ": not taken as the lock")
         .encode() in err, repr(err[-300:]))
    r = by.get(t.path("txt", "vmcore"), {})
    c.ok("devices: inodedump.txt refused, named",
         f"{t.crash}/txt/inodedump.txt: {device}" in r.get("note", ""), str(r))
    j = results(t.path("dmesg", "inodedump.json"))
    c.ok("devices: dmesg.STAMP refused", device in j.get("log", ""),
         j.get("log", "")[:300])
    r = by.get(t.path("dump", "vmcore"), {})
    c.ok("devices: a dump refused", device in r.get("note", ""), str(r))
    for p in (t.path("txt", "inodedump.txt"), t.path(".inodedump-triage.lock"),
              t.path("dmesg", "dmesg.202612050101"), t.path("dump", "vmcore")):
        c.ok(f"devices: {p!r} still the device",
             stat.S_ISCHR(os.lstat(p).st_mode) and os.lstat(p).st_rdev == zero)
    t.remove()


def ring_unreadable_copy(t, dst):
    """The committed dump with VMCOREINFO's SYMBOL(prb) pointed at an
    unmapped address: its ring cannot be read, so the saved log is."""
    with open(os.path.join(t.committed, "d17-zlib.vmcore"), "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"SYMBOL(prb)=") + len("SYMBOL(prb)=")
    data[at:at + 16] = b"ffffffff00000000"
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(data)


def saved_log_is_bounded_and_never_waited_on(c):
    """dmesg.STAMP a FIFO, a symlink to /dev/zero, a 64 GiB sparse file
    after the guest's own log: nothing blocks, nothing grows, the first
    two refused with why, the third read to 16 MiB and said."""
    t = Tree()
    serial = os.path.join(t.committed, "serial.log")
    with open(serial, "rb") as f:
        log = b"".join(line.rstrip(b"\r\n") + b"\n" for line in f
                       if line.startswith(b"["))
    dirs = {"fifo": lambda p: os.mkfifo(p),
            "zero": lambda p: os.symlink("/dev/zero", p),
            "huge": None}
    for i, d in enumerate(dirs, 1):
        stamp = f"20261205010{i}"
        ring_unreadable_copy(t, t.path(d, f"dump.{stamp}").decode())
        dm = t.path(d, f"dmesg.{stamp}")
        if dirs[d]:
            dirs[d](dm)
        else:
            with open(dm, "wb") as f:
                f.write(log)
                f.truncate(64 << 30)
    t.settle()
    code, out, err = run(c, t, "saved log", ["--json"])
    by = summary(c, "saved log", out)
    for i, (d, why) in enumerate((("fifo", "a FIFO, not a regular file"),
                                  ("zero", "a symbolic link: not followed"),
                                  ("huge", "only its first 16 MiB read")), 1):
        stamp = f"20261205010{i}"
        r = by.get(t.path(d, f"dump.{stamp}"), {})
        c.eq(f"saved log {d}: triaged from what could be read",
             r.get("state"), "triaged")
        j = results(t.path(d, "inodedump.json"))
        said = j.get("log", "") + " ".join(j.get("messages", []))
        c.ok(f"saved log {d}: says why", why in said, said[:500])
    c.ok("saved log zero: /dev/zero still a link",
         os.path.islink(t.path("zero", "dmesg.202612050102")))
    j = results(t.path("huge", "inodedump.json"))
    c.eq("saved log huge: the reports in its first 16 MiB",
         j.get("reports"), sum(1 for _ in open(
             os.path.join(t.committed, "reports.txt"))))
    t.remove()


def names_reach_no_terminal_raw(c):
    """A dump directory named ESC ]0;...BEL (a terminal title), one named
    with the bytes ff fe (no UTF-8), a dump file named with ESC [31m, a
    symlink named ESC [2J ff: the table, stderr and inodedump.txt have them
    escaped as --log escapes
    (\\e, \\xNN); the JSON has each byte as \\u00XX, valid and exact."""
    t = Tree()
    title = b"\x1b]0;pwned\x07"
    names = [(title, b"vmcore"), (b"\xff\xfe", b"vmcore")]
    for d, n in names:
        t.dump(t.path(d, n).decode(errors="surrogateescape"))
    red = b"\x1b[31mred.vmcore"
    t.dump(t.path(red).decode(errors="surrogateescape"))
    up = b"\x1b[2J\xff-up"  # a symlink: said on stderr, its error file
    os.symlink("..", t.path(up))
    # Cut short: the library's messages, text and JSON name it.
    cut = b'\x1b]0;cut"\\\xff\x07'
    os.makedirs(t.path(cut))
    with open(os.path.join(t.committed, "d17-zlib.vmcore"), "rb") as f, \
            open(t.path(cut, "vmcore"), "wb") as o:
        o.write(f.read(3_000_000))
    t.settle()
    code, out, err = run(c, t, "names table", [])
    c.ok("names: the table shows the title escaped",
         b"/\\e]0;pwned\\x07/vmcore" in out, repr(out[:600]))
    c.ok("names: the table shows ff fe escaped", b"/\\xff\\xfe/vmcore" in out,
         repr(out[:600]))
    c.ok("names: the table shows the red name escaped",
         b"/\\e[31mred.vmcore" in out, repr(out[:600]))
    with open(t.path(title, "inodedump.txt"), "rb") as f:
        txt = f.read()
    c.ok("names: the symlink said on stderr, escaped",
         b"/\\e[2J\\xff-up: a symbolic link" in err, repr(err[:600]))
    c.eq("names: the symlink's error file names it exactly",
         results(t.path(up + b".inodedump.json")).get("path", "")
         .encode("latin-1"), t.path(up))
    j = results(t.path(cut, "inodedump.json"))
    c.ok("names: a cut dump's messages name it exactly",
         any(t.path(cut, "vmcore").decode("latin-1") + ": page frame" in m
             for m in j.get("messages", [])), str(j.get("messages"))[:500])
    with open(t.path(cut, "inodedump.txt"), "rb") as f:
        c.ok("names: and its text, escaped",
             b'/\\e]0;cut"\\\\\\xff\\x07/vmcore: page frame' in f.read())
    c.ok("names: inodedump.txt names its dump escaped",
         b"\\e]0;pwned\\x07/vmcore" in txt.split(b"\n")[0], repr(txt[:200]))
    code, out, err = run(c, t, "names json", ["--json", "--again"])
    by = summary(c, "names json", out)
    for d, n in names:
        p = t.path(d, n)
        c.eq(f"names: {p!r}: triaged, its path exact in the summary",
             by.get(p, {}).get("state"), "triaged")
        j = results(t.path(d, "inodedump.json"))
        c.eq(f"names: {p!r}: exact in its inodedump.json",
             j.get("dump", "").encode("latin-1"), p)
    c.eq("names: the red dump's path exact", by.get(t.path(red), {}).get(
        "state"), "triaged")
    t.remove()


CASES = {f.__name__: f for f in (
    symlinks_below_dir_are_never_followed,
    lock_symlink_creates_nothing,
    lock_not_ours_is_not_the_lock,
    results_that_are_no_regular_file_are_left,
    devices_are_never_opened,
    saved_log_is_bounded_and_never_waited_on,
    names_reach_no_terminal_raw,
)}


def main():
    c = Checker()
    for name in sys.argv[1:] or CASES:
        print(f"-- {name}")
        CASES[name](c)
    c.finish()


if __name__ == "__main__":
    main()
