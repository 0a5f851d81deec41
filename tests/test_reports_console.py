#!/usr/bin/env python3
"""With no address, every dump_inode() report the kernel printed on its
console is found in the dump's log, with the reason, address, format, the
fields the line printed, the WARNING/BUG site that followed it, and the
differences between those fields and the inode in the dump.

The truth is the kernel's own output, read here with regular expressions
of this file (not inodedump's parser): the report lines and splats in
serial.log, and the trigger module's truth lines (printed after the
reports, before the panic; the dumps were taken after it) in truth.txt.
Sets: debugvfs73 (the 7.3 DEBUG_VFS kernel, 7.0 format: VFS_WARN_ON_INODE
at three call sites, two direct dump_inode() calls, and may_open()'s
VFS_BUG_ON_INODE that panicked the guest), kdump73 (a real kdump capture
of the same guest: FORMAT is a dump's path in the set, var-crash/...,
tests/test_kdump.py), arm64-64k and arm64-64k-a57 (the same kernel source
and trigger on arm64 with 64 KiB pages: the same reports, arm64's splats)
and committed/ when it was made from debugvfs73 (its serial.log is the
set's).

usage: test_reports_console.py SET FORMAT [lossy]
  lossy: the dump is filtered (-d 31): a reported inode whose page the
  writer left out must be said lost (filtered out, with the dump level)
"""
import json
import os
import re
import sys
import tempfile

from fixture import FORMATS, Checker, read_truth, run, set_dir
import sid_drgn

TS = re.compile(r"^\[ *\d+\.\d+\] ")
# include/linux/vfsdebug.h + fs/inode.c dump_inode(), 7.0 and later
READABLE = re.compile(
    r"^(?P<reason>.+): inode:(?P<addr>[0-9a-f]{16}) fs:(?P<fs>.+) "
    r"mode:(?P<mode>[0-7]+) opflags:(?P<opflags>0x[0-9a-f]+|0) "
    r"flags:(?P<flags>0x[0-9a-f]+|0) state:(?P<state>0x[0-9a-f]+|0) "
    r"count:(?P<count>-?\d+)$")
UNREADABLE = re.compile(r"^(?P<reason>.+): unreadable inode:(?P<addr>[0-9a-f]{16})$")
# kernel/panic.c __warn() since 7.0; lib/bug.c report_bug()
WARNING = re.compile(r"^WARNING: (?P<file>[^ :]+):(?P<line>\d+) at "
                     r"(?P<function>[A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+.*, "
                     r"CPU#\d+: (?P<task>[^/]+)/\d+$")
BUG = re.compile(r"^kernel BUG at (?P<file>[^ :]+):(?P<line>\d+)!$")
# the oops's program counter: x86's "RIP: 0010:f+0x..", arm64's "pc : f+0x.."
RIP = re.compile(r"^(?:RIP: [0-9a-f]{4}:|pc : )(?P<function>[A-Za-z0-9_.]+)\+0x")
COMM = re.compile(r"^CPU: \d+ .*Comm: (?P<task>\S+)")

# What each report of the debugvfs73 set is, by the trigger's design
# (tests/vmcores/debugvfs73/trigger/vfsdbg73_trigger.c): (role or None,
# reason, site kind). The kernel's lines must say the same, in this order.
FIRST = "VFS_WARN_ON_INODE(strlen(link) != linklen)"
SECOND = "VFS_WARN_ON_INODE(inode->i_opflags & IOP_CACHED_LINK)"
DEBUGVFS73 = [
    ("victim_symlink", FIRST, "warn"),
    ("cached_twice", SECOND, "warn"),
    ("victim_ext4", FIRST, "warn"),
    ("victim_ext4", SECOND, "warn"),
    ("victim_new", FIRST, "warn"),
    (None, "vfsdbg73_trigger(copy of regular, i_sb = NULL)", None),
    (None, "vfsdbg73_trigger(ERR_PTR(-ENOENT))", None),
    ("bug_badmode", "VFS_BUG_ON_INODE(!IS_ANON_FILE(inode))", "bug"),
]


def num(v, base):
    return int(v, base)


def console_reports(lines):
    """The report lines in lines (timestamps removed), each with the site
    of the WARNING/BUG splat that followed it before the next report."""
    out = []
    for line in lines:
        m = READABLE.match(line) or UNREADABLE.match(line)
        if m:
            r = dict(m.groupdict(), line=line, site=None, task=None)
            out.append(r)
            continue
        if not out:
            continue
        r = out[-1]
        m = WARNING.match(line)
        if m and r["site"] is None:
            r["site"] = dict(m.groupdict(), kind="warn", text=line)
            r["task"] = m["task"]
            continue
        m = BUG.match(line)
        if m and r["site"] is None:
            r["site"] = dict(m.groupdict(), kind="bug", text=line, function=None)
            continue
        m = RIP.match(line)
        if m and r["site"] and r["site"]["function"] is None:
            r["site"]["function"] = m["function"]
            continue
        m = COMM.match(line)
        if m and r["site"] and r["task"] is None:
            r["task"] = m["task"]
    return out


def expected_differences(r, truth_line):
    """Fields the report line printed that the truth line (later) prints
    otherwise."""
    if truth_line is None or "mode" not in r or r["mode"] is None:
        return []
    diffs = []
    for key, base in (("mode", 8), ("opflags", 16), ("flags", 16),
                      ("state", 16), ("count", 10)):
        at = num(r[key], base)
        now = num(truth_line[key], base)
        if at != now:
            diffs.append({"field": key, "at_report": at, "in_dump": now})
    return diffs


def check_json(c, pre, k, dump, env, console, by_addr, designed, lossy=False):
    """The JSON document of `vmcore-inode [K] --json DUMP` (no address):
    every console report, its fields, site, task, differences and inode;
    pre names the run in the checks."""
    p = run([*k, "--json", dump], env=env)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise SystemExit(f"FAIL {pre}output is not JSON ({e}); exit {p.returncode}; "
                         f"stderr: {p.stderr}")
    reports = doc["reports"]
    c.eq(pre + "every console report found, in order",
         [(r["reason"], r["address"]) for r in reports],
         [(r["reason"], "0x" + r["addr"]) for r in console])
    for r, got in zip(console, reports):
        n = f"{r['reason']} {r['addr']}"
        c.eq(pre + n + " format", got["format"], "7.0")
        unreadable = "mode" not in r or r.get("mode") is None
        c.eq(pre + n + " unreadable_at_report", got["unreadable_at_report"], unreadable)
        if unreadable:
            c.eq(pre + n + " fields_at_report", got["fields_at_report"], None)
        else:
            c.eq(pre + n + " fields_at_report", got["fields_at_report"], {
                "fs_type": r["fs"], "mode": num(r["mode"], 8),
                "opflags": num(r["opflags"], 16), "flags": num(r["flags"], 16),
                "state": num(r["state"], 16), "count": num(r["count"], 10)})
        site = r["site"]
        c.eq(pre + n + " location", got["location"], site and site["text"])
        c.eq(pre + n + " site", got.get("site"), site and {
            "file": site["file"], "line": int(site["line"]),
            "function": site["function"]})
        c.eq(pre + n + " task", got["task"], r["task"])
        t = by_addr.get(r["addr"])
        err = got["inode"].get("error") or {}
        if t is not None and lossy and err.get("kind") == "filtered":
            # a -d 31 dump without the inode's page: said, nothing claimed
            # (tests/test_kdump.py checks the page against the dump's bitmap)
            c.ok(pre + n + " inode lost, with why", "was filtered out of the dump by its "
                 "writer (dump level" in (err.get("message") or ""), str(err))
            c.eq(pre + n + " no differences claimed of a lost inode", got["differences"], [])
            print(f"NOTE {pre}{n}: its inode is not in this dump")
        elif t is not None:
            c.eq(pre + n + " differences", got["differences"],
                 expected_differences(r, t))
            ino = got["inode"]
            c.ok(pre + n + " inode decoded", "error" not in ino, str(ino.get("error")))
            c.eq(pre + n + " inode ino", ino.get("ino"), int(t["ino"]))
        elif unreadable:
            err = got["inode"].get("error")
            c.ok(pre + n + " inode not decoded, with why", err is not None and
                 bool(err.get("message")), str(got["inode"]))
    if designed:
        # The trigger's dump_inode(ERR_PTR(-ENOENT)): the kernel printed
        # "unreadable inode:"; ours names the error code. An inode that
        # cannot be decoded fails the run (exit 3), said on stderr.
        errp = next((g for g in reports if "ERR_PTR(-ENOENT)" in g["reason"]),
                    None)
        c.ok(pre + "ERR_PTR report found", errp is not None)
        if errp:
            c.ok(pre + "ERR_PTR report: the error names ERR_PTR(-ENOENT)",
                 "ERR_PTR(-ENOENT)" in
                 ((errp["inode"].get("error") or {}).get("message") or ""),
                 str(errp["inode"]))
        c.eq(pre + "exit status: 3, one reported inode cannot be decoded",
             p.returncode, 3)
        c.ok(pre + "stderr names the ERR_PTR", "is ERR_PTR(-ENOENT), an error "
             "code, not a pointer to an inode" in p.stderr, p.stderr)
        # The copy with i_sb NULL: decoded as far as memory allows, its
        # superblock named as what failed.
        copy = next((g for g in reports if "i_sb = NULL" in g["reason"]), None)
        c.ok(pre + "sb-less copy reported", copy is not None)
        if copy:
            c.eq(pre + "sb-less copy fs at report", copy["fields_at_report"]["fs_type"],
                 "<unknown, sb unreadable>")
            ino = copy["inode"]
            c.ok(pre + "sb-less copy: the decode says the superblock is missing",
                 "error" in ino or ino.get("sb") in (None, "0x0"), str(ino)[:400])
        # The sites are the real assertions: inode_set_cached_link() in
        # include/linux/fs.h, may_open() in fs/namei.c.
        for r in console:
            s = r["site"]
            if s and s["kind"] == "warn":
                # __FILE__ of a header in an out-of-tree module: absolute
                c.ok(pre + f"{r['reason']} site file", s["file"].endswith(
                    "/include/linux/fs.h"), s["file"])
            elif s:
                c.eq(pre + f"{r['reason']} site", (s["file"], s["function"]),
                     ("fs/namei.c", "may_open"))


def main():
    set_name, fmt = sys.argv[1], sys.argv[2]
    lossy = sys.argv[3:] == ["lossy"]
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    # a format's file (d31-zlib: d31-zlib.vmcore), or a dump's own path in
    # the set (kdump73: var-crash/STAMP/dump.STAMP, as kdump named it)
    dump = os.path.join(d, FORMATS.get(fmt, fmt if "/" in fmt else fmt + ".vmcore"))
    truth = read_truth(os.path.join(d, "truth.txt"))
    by_addr = {t["addr"]: t for t in truth}
    text = open(os.path.join(d, "serial.log"), errors="replace").read()
    console = console_reports(TS.sub("", line)
                              for line in text.replace("\r", "").split("\n"))
    # committed/ made from debugvfs73 is that set's d17-zlib dump;
    # arm64-64k runs debugvfs73's guest and trigger
    designed = bool({"debugvfs73", "kdump73", "arm64-64k", "arm64-64k-a57"} &
                    {set_name, sid_drgn.info(d).get("from")})
    c = Checker()
    if designed:
        c.eq("console reports in the trigger's order",
             [r["reason"] for r in console], [e[1] for e in DEBUGVFS73])
        for r, (role, _, kind) in zip(console, DEBUGVFS73):
            t = by_addr.get(r["addr"])
            c.eq(f"{r['reason']}: console names the {role} inode",
                 t and t["role"], role)
            c.eq(f"{r['reason']}: console site kind",
                 r["site"] and r["site"]["kind"], kind)
    c.ok("the console holds reports", len(console) > 0)

    check_json(c, "", ["-k", vmlinux], dump, None, console, by_addr, designed,
               lossy)
    if set_name.startswith("arm64"):
        # the arm64 sets, as test_arm64.py runs them: no vmlinux at all
        # (types from the dump's BTF, symbols from its kallsyms)
        with tempfile.TemporaryDirectory() as tmp:
            empty = os.path.join(tmp, "no-debug")
            os.mkdir(empty)
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
            env.pop("DEBUGINFOD_URLS", None)
            check_json(c, "btf: ", ["--debug-root", empty], dump, env,
                       console, by_addr, designed)
    # The text view says the same for a person.
    p = run(["-k", vmlinux, dump])
    for r in console:
        # an inode that cannot be read is named in the error (stderr)
        c.ok(f"text names {r['reason']} {r['addr']}",
             f"report  {r['reason']}" in p.stdout and
             f"0x{r['addr']}" in p.stdout + p.stderr)
    c.ok("text names the format 7.0", "dump_inode format 7.0" in p.stdout)
    c.ok("text does not call it 2026", "format 2026" not in p.stdout)
    c.finish()


if __name__ == "__main__":
    main()
