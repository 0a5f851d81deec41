#!/usr/bin/python3
"""The bridges print what vmcore-inode prints: the Python module, drgn's
function and command, crash's extension, each on the same dump and
addresses as the command (the set's truth inodes), compared as JSON
(decode, -j, reports, sweep) or text (documents, commands) — and a bad
address, a filtered page or a failing host read gets the library's error,
never a crash of the host session.

usage: test_bridges.py python SET FMT    the module over the dump file
       test_bridges.py drgn SET FMT      from_drgn on the host's drgn 0.0.22
       test_bridges.py drgn030 SET FMT   from_drgn and %inode on drgn 0.3.0
                                         (sid chroot), module as installed
       test_bridges.py crash SET FMT     crash 9.0.2's "inode" (sid chroot)
       test_bridges.py kcore             from_drgn (drgn 0.0.22, then 0.3.0
                                         with %inode) on /proc/kcore in a
                                         guest of the stock kernel, against
                                         vmcore-inode --live there
       test_bridges.py reader            open_reader: hosts whose reads fail
       test_bridges.py leak              10,000 decodes, RSS flat
       test_bridges.py install           meson install puts everything where
                                         Python, drgn and crash look

INODEDUMP_BUILD names the build directory (meson sets it); in a sanitized
build INODEDUMP_SANITIZE is set and the hosts get the sanitizer runtimes
preloaded.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fixture import Checker, FORMATS, read_truth, run, set_dir  # noqa: E402

BUILD = os.environ.get("INODEDUMP_BUILD", "")
SANITIZE = os.environ.get("INODEDUMP_SANITIZE", "none") not in ("", "none")
ROOT = os.path.dirname(HERE)
# Kernel space no page table maps (tests/test_sweep.py's broken pointer).
# Not 0x1000: the stock set's elf-nopaging dump reads it.
UNMAPPED = 0xffffc8ffff000000
# drgn cannot open these formats (tests/test_drgn.py): its side reads the
# same memory from another dump of the same moment.
DRGN_SUBSTITUTE = {"elf-nopaging": "elf-paging", "qemu-kdump-zlib": "elf-paging"}
DRGN_SUBSTITUTE_SID = {"qemu-kdump-zlib": "elf-paging"}

if not BUILD:
    raise SystemExit("FAIL INODEDUMP_BUILD is not set (run through meson test)")
sys.path.insert(0, os.path.join(BUILD, "bridges", "python"))
import inodedump  # noqa: E402


def sanitizer_runtimes():
    """The host's ASan and UBSan runtimes (a sanitized libinodedump needs
    them loaded first in any host process)."""
    out = []
    for lib in ("libasan.so", "libubsan.so"):
        p = subprocess.run(["gcc", f"-print-file-name={lib}"],
                           capture_output=True, text=True).stdout.strip()
        out.append(os.path.realpath(p))
    return out


class CLI:
    """vmcore-inode on one dump: the outputs the bridges must equal."""

    def __init__(self, vmlinux, dump):
        self.vmlinux, self.dump = vmlinux, dump

    def out(self, *args):
        p = run(["-k", self.vmlinux, *args[:-1], self.dump, *args[-1]],
                timeout=600)
        if p.returncode not in (0, 1, 3) or "Sanitizer" in p.stderr:
            raise SystemExit(f"FAIL vmcore-inode {args}: {p.returncode} {p.stderr}")
        return p.stdout

    def json(self, *args):
        return json.loads(self.out("--json", *args))

    def jsonl(self, *args):
        return [json.loads(x) for x in self.out(*args).splitlines() if x]


def fixture(set_name, fmt):
    d = set_dir(set_name)
    truth = read_truth(os.path.join(d, "truth.txt"))
    return (d, os.path.join(d, "vmlinux"), os.path.join(d, FORMATS[fmt]),
            ["0x" + t["addr"] for t in truth])


def filtered_address(set_name, fmt):
    """A free page (left out at -d 17/31) when the dump is filtered, else
    None: drgn's pick on the ELF dump (tests/test_errors.py; the stock
    kernel's node_data: the patched tinyconfig kernel has no NUMA)."""
    if not fmt.startswith("d") or set_name != "stock":
        return None
    from test_errors import free_page_address
    return free_page_address(set_dir(set_name))


def compare_documents(c, who, cli, got, addrs):
    """got: {"decode": {addr: dict}, "document", "document_json", "reports",
    "sweep"} from a bridge; each equal to the command's."""
    doc = cli.json(addrs)
    for a, want in zip(addrs, doc["inodes"]):
        c.eq(f"{who} decode({a}) equals --json", got["decode"].get(a), want)
    c.eq(f"{who} document text equals vmcore-inode's", got["document"],
         cli.out(addrs))
    c.eq(f"{who} document JSON equals --json", json.loads(got["document_json"]),
         doc)
    c.eq(f"{who} reports() equals --json's reports", got["reports"],
         cli.json([])["reports"])
    c.ok(f"{who} reports() found some", len(got["reports"]) > 0 or
         not cli.json([])["reports"])
    c.eq(f"{who} sweep() equals --sweep --jsonl", got["sweep"],
         cli.jsonl("--sweep", "--jsonl", []))


# ------------------------------------------------------------ python mode

def mode_python(c, set_name, fmt):
    d, vmlinux, dump, addrs = fixture(set_name, fmt)
    cli = CLI(vmlinux, dump)
    with inodedump.open(dump, vmlinux) as s:
        got = {"decode": {a: s.decode(int(a, 16)) for a in addrs},
               "document": s.document([int(a, 16) for a in addrs])[0],
               "document_json": s.document([int(a, 16) for a in addrs],
                                           json=True)[0],
               "reports": s.reports(), "sweep": list(s.sweep())}
        compare_documents(c, "python", cli, got, addrs)
        c.eq("sweep_text(violations_only) equals --sweep --violations-only",
             s.sweep_text(violations_only=True)[0],
             cli.out("--sweep", "--violations-only", []))
        c.eq("log_text() equals --log", s.log_text(), cli.out("--log", []))
        records = s.log()
        c.ok("log() has records with text", records and all(
            isinstance(r["text"], str) for r in records))
        c.eq("info_text() equals --info", s.info_text(), cli.out("--info", []))
        c.eq("info() osrelease", s.info().get("osrelease"),
             cli.json(addrs)["osrelease"])
        c.eq("decode_text() equals the one-address document",
             s.decode_text(int(addrs[0], 16)), cli.out([addrs[0]]))
        what_args = [x for a in addrs for x in ("--what", a)]
        c.eq("what_text() equals --what",
             s.what_text([int(a, 16) for a in addrs])[0],
             cli.out(*what_args, []))
        c.eq("what() equals --json --what",
             [s.what(int(a, 16)) for a in addrs],
             cli.json(*what_args, [])["what"])
        python_errors(c, s, set_name, fmt)
    c.ok("closed session refuses", raises(ValueError, lambda: s.decode(1)))


def raises(cls, fn):
    try:
        fn()
    except cls:
        return True
    return False


def python_errors(c, s, set_name, fmt):
    try:
        s.decode(UNMAPPED)
        c.ok("unmapped address raises", False)
    except inodedump.FaultError as e:
        c.eq("unmapped: FaultError code", e.code, inodedump.ERR_FAULT)
        c.eq("unmapped: address", e.address, UNMAPPED)
        c.ok("unmapped: message names it", hex(UNMAPPED) in str(e), str(e))
    sb = int(read_truth(os.path.join(set_dir(set_name), "truth.txt"))[0]["sb"], 16)
    try:
        s.decode(sb)
        c.ok("a superblock is no inode", False)
    except inodedump.NotInodeError as e:
        c.eq("not an inode: address", e.address, sb)
    c.eq("force decodes it anyway", s.decode(sb, force=True)["forced"], True)
    free = filtered_address(set_name, fmt)
    if free:
        try:
            s.decode(int(free, 16))
            c.ok("filtered page raises", False)
        except inodedump.FilteredError as e:
            c.eq("filtered: code", e.code, inodedump.ERR_FILTERED)
            c.eq("filtered: address", e.address, int(free, 16))
            c.ok("FilteredError is a FaultError",
                 isinstance(e, inodedump.FaultError))
    try:
        inodedump.open("/nonexistent.vmcore")
        c.ok("missing dump raises", False)
    except inodedump.DumpError as e:
        c.ok("missing dump: message", "/nonexistent.vmcore" in str(e), str(e))


# -------------------------------------------------------------- drgn modes

def drgn_side_host(dump, vmlinux, filtered, addrs):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "bridges", "python"))
    env.pop("DRGN_PLUGINS", None)
    p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "bridges",
                                                         "drgn_side.py"),
                        dump, vmlinux, filtered or "-", *addrs],
                       capture_output=True, text=True, env=env, timeout=900)
    if p.returncode:
        raise SystemExit(f"FAIL drgn side: exit {p.returncode}\n{p.stderr}")
    return json.loads(p.stdout)


def check_drgn_side(c, who, cli, got, addrs, filtered):
    compare_documents(c, who, cli, got, addrs)
    c.eq(f"{who} reads through drgn", got["info"].get("reader"), "caller")
    e = got["errors"]["unmapped"]
    c.eq(f"{who} unmapped address: FaultError with the address",
         (e or {}).get("class"), "FaultError")
    c.eq(f"{who} unmapped address: address", (e or {}).get("address"), UNMAPPED)
    if filtered:
        e = got["errors"]["filtered"]
        c.eq(f"{who} filtered page: FilteredError", (e or {}).get("class"),
             "FilteredError")
        c.eq(f"{who} filtered page: address", (e or {}).get("address"),
             int(filtered, 16))


def mode_drgn(c, set_name, fmt):
    d, vmlinux, dump, addrs = fixture(set_name, fmt)
    ddump = os.path.join(d, FORMATS[DRGN_SUBSTITUTE.get(fmt, fmt)])
    filtered = filtered_address(set_name, fmt)
    got = drgn_side_host(ddump, vmlinux, filtered, addrs)
    c.ok("host drgn is 0.0.22 (no command framework)",
         got["drgn"].startswith("0.0.") and got["commands"] is None,
         got["drgn"])
    check_drgn_side(c, f"drgn {got['drgn']}", CLI(vmlinux, dump), got, addrs,
                    filtered)


CHROOT_SCRIPT = r'''
c=$1; shift
mount -t proc proc "$c/proc" || exit 1
while [ "$1" != -- ]; do
  src=${1%%=*} dst=${1#*=}; shift
  mkdir -p "$c$dst" && mount --bind "$src" "$c$dst" || exit 1
done
shift
exec chroot "$c" "$@"
'''


def in_chroot(chroot, binds, argv, env, timeout=1200):
    """argv in the chroot with binds {host path: chroot path} in a private
    mount namespace (gone with the command)."""
    spec = [f"{src}={dst}" for src, dst in binds.items()]
    # the host's preloads are not the chroot's (env below sets its own)
    host_env = {k: v for k, v in os.environ.items()
                if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "LD_LIBRARY_PATH")}
    p = subprocess.run(["unshare", "--mount", "--propagation", "private",
                        "sh", "-c", CHROOT_SCRIPT, "in_chroot", chroot, *spec,
                        "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                        *argv], capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, env=host_env)
    return p


def preload_env(binds, tmp):
    """LD_PRELOAD of the host's sanitizer runtimes inside a chroot."""
    if not SANITIZE:
        return {}
    rt = os.path.join(tmp, "sanitizers")
    os.makedirs(rt, exist_ok=True)
    names = []
    for lib in sanitizer_runtimes():
        shutil.copy(lib, rt)
        names.append("/san/" + os.path.basename(lib))
    binds[rt] = "/san"
    return {"LD_PRELOAD": ":".join(names),
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def install_tree(tmp):
    """meson install into tmp/inst: the installed module, plugin entry
    point and libraries. Returns (destdir, site-packages, libdir) under it."""
    dest = os.path.join(tmp, "inst")
    p = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest,
                        "--no-rebuild", "--quiet"], capture_output=True,
                       text=True)
    if p.returncode:
        raise SystemExit(f"FAIL meson install: {p.stdout}{p.stderr}")
    intro = json.loads(subprocess.run(
        ["meson", "introspect", "--installed", BUILD], capture_output=True,
        text=True, check=True).stdout)
    site = lib = None
    for installed in intro.values():
        if installed.endswith("inodedump/__init__.py"):
            site = os.path.dirname(os.path.dirname(installed))
        if os.path.basename(installed).startswith("libinodedump.so"):
            lib = os.path.dirname(installed)
    return dest, site, lib


def mode_drgn030(c, set_name, fmt):
    d, vmlinux, dump, addrs = fixture(set_name, fmt)
    # the stock73 recipe's chroot (the same package list, the same key)
    chroot = sid_chroot()
    sub = DRGN_SUBSTITUTE_SID.get(fmt, fmt)
    filtered = filtered_address(set_name, fmt)
    with tempfile.TemporaryDirectory() as tmp:
        dest, site, lib = install_tree(tmp)
        binds = {os.path.realpath(d): "/fx", HERE: "/src", dest: "/inst"}
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1",
               # the installed tree: the plugin comes from its entry point
               "PYTHONPATH": "/inst" + site, "LD_LIBRARY_PATH": "/inst" + lib}
        env.update(preload_env(binds, tmp))
        p = in_chroot(chroot, binds, ["/usr/bin/python3", "/src/bridges/drgn_side.py",
                                      "/fx/" + FORMATS[sub], "/fx/vmlinux",
                                      filtered or "-", *addrs], env)
    if p.returncode:
        raise SystemExit(f"FAIL drgn 0.3.0 side: exit {p.returncode}\n{p.stderr}")
    got = json.loads(p.stdout)
    c.ok("chroot drgn has the command framework", got["commands"] is not None,
         got["drgn"])
    cli = CLI(vmlinux, dump)
    who = f"drgn {got['drgn']}"
    check_drgn_side(c, who, cli, got, addrs, filtered)
    cmds = got["commands"] or {}
    check_commands(c, f"{who} %inode", cli, cmds, addrs, filtered,
                   prefix="inode: ")


def check_commands(c, who, cli, cmds, addrs, filtered, prefix):
    """Text equality of a host's inode command with vmcore-inode; errors
    print the message and the command goes on with the next address.
    cmds values: (stdout, stderr) or a string (crash: both in one file)."""
    def out(k):
        v = cmds.get(k)
        return v[0] if isinstance(v, list) else v

    def err(k):
        v = cmds.get(k)
        return v[1] if isinstance(v, list) else v

    c.eq(f"{who} ADDRESS... equals vmcore-inode's text", out("addresses"),
         cli.out(addrs))
    c.eq(f"{who} -j equals --json", json.loads(out("json") or "null"),
         cli.json(addrs))
    c.eq(f"{who} --reports equals vmcore-inode's text", out("reports"),
         cli.out([]))
    c.eq(f"{who} --sweep --violations-only equals vmcore-inode's",
         out("sweep"), cli.out("--sweep", "--violations-only", []))
    c.eq(f"{who} -w equals vmcore-inode --what", out("what"),
         cli.out(*[x for a in addrs for x in ("--what", a)], []))
    one = cli.out([addrs[0]])
    c.ok(f"{who} a bad address prints the error", (err("bad") or "").startswith(
        prefix + f"struct inode at {UNMAPPED:#x}"), err("bad"))
    c.ok(f"{who} and goes on with the next address",
         (out("bad") or "").endswith(one), out("bad"))
    if filtered:
        c.ok(f"{who} a filtered page prints the library's error",
             "filtered out" in (err("filtered") or ""), err("filtered"))
        c.ok(f"{who} and goes on after a filtered page",
             (out("filtered") or "").endswith(one), out("filtered"))


# ------------------------------------------------------------- crash mode

def sid_chroot():
    p = subprocess.run([os.path.join(HERE, "bridges", "sid_chroot.sh")],
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"FAIL sid chroot with crash: {p.stderr}")
    return p.stdout.strip().splitlines()[-1]


def build_crash_extension(chroot, out):
    """The extension against the chroot's defs.h (crash 9.0.2's: struct
    layouts differ between crash versions), with the host's compiler and
    this build's libinodedump: the chroot needs no compiler."""
    cmd = ["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
           "-fPIC", "-shared", "-DX86_64",
           "-I", os.path.join(ROOT, "include"),
           "-I", os.path.join(ROOT, "tools"),
           "-I", os.path.join(chroot, "usr", "include", "crash"),
           os.path.join(ROOT, "bridges", "crash", "inodedump.c"),
           os.path.join(ROOT, "tools", "run.c"),
           "-L", BUILD, "-linodedump", "-o", out]
    if SANITIZE:
        cmd[1:1] = ["-fsanitize=address,undefined"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"FAIL building the crash extension: {p.stderr}")


def mode_crash(c, set_name, fmt):
    d, vmlinux, dump, addrs = fixture(set_name, fmt)
    filtered = filtered_address(set_name, fmt)
    chroot = sid_chroot()
    c.ok("crash 9.0.2's defs.h in the chroot",
         os.path.isfile(os.path.join(chroot, "usr/include/crash/defs.h")))
    cmds = {"addresses": "inode " + " ".join(addrs),
            "json": "inode -j " + " ".join(addrs),
            "reports": "inode -r", "reports_json": "inode -r -j",
            "sweep": "inode -s -v", "sweep_jsonl": "inode -s -J",
            "log": "inode -l", "bad": f"inode {UNMAPPED:x} " + addrs[0],
            "what": "inode -w " + " ".join(addrs)}
    if filtered:
        cmds["filtered"] = f"inode {filtered} {addrs[0]}"
    with tempfile.TemporaryDirectory() as tmp:
        x = os.path.join(tmp, "x")
        os.makedirs(os.path.join(x, "out"))
        build_crash_extension(chroot, os.path.join(x, "inodedump.so"))
        with open(os.path.join(x, "script"), "w") as f:
            f.write("extend /x/inodedump.so\n")
            for k, cmd in cmds.items():
                f.write(f"{cmd} > /x/out/{k}\n")
            f.write("sys > /x/out/alive\nquit\n")
        # this build's libinodedump, which the extension links
        binds = {os.path.realpath(d): "/fx", x: "/x", BUILD: "/bld"}
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb",
               "HOME": "/root",
               "LD_LIBRARY_PATH": "/bld"}
        env.update(preload_env(binds, tmp))
        if SANITIZE:
            # crash 9.0.2 itself strstr()s the dump's VMCOREINFO note, which
            # is not NUL-terminated, before any extension loads; ASan's
            # interceptor would stop it there. Our code is instrumented.
            env["ASAN_OPTIONS"] += ":intercept_strstr=0"
        # crash 9.0.2 stops at 7.x's struct module ("invalid structure
        # member offset: module_num_gpl_syms"): there it runs without
        # modules, and the library names module symbols from the dump's
        # kallsyms itself.
        no_modules = ["--no_modules"] if set_name == "stock73" else []
        p = in_chroot(chroot, binds, ["crash", *no_modules, "-s", "-i", "/x/script",
                                      "/fx/vmlinux", "/fx/" + FORMATS[fmt]], env)
        got = {}
        for k in list(cmds) + ["alive"]:
            path = os.path.join(x, "out", k)
            got[k] = open(path, errors="surrogateescape").read() \
                if os.path.exists(path) else None
    c.ok("crash ran the script", p.returncode == 0 and got["alive"],
         f"exit {p.returncode}: {p.stdout[-2000:]}{p.stderr[-2000:]}")
    c.ok("the session lives after every inode command",
         "RELEASE" in (got["alive"] or ""), got["alive"])
    cli = CLI(vmlinux, dump)
    check_commands(c, "crash 9.0.2 inode", cli, got, addrs, filtered,
                   prefix="inode: ")
    c.eq("crash inode -r -j equals --json", json.loads(got["reports_json"] or "null"),
         cli.json([]))
    c.eq("crash inode -s -J equals --sweep --jsonl",
         [json.loads(x) for x in (got["sweep_jsonl"] or "").splitlines() if x],
         cli.jsonl("--sweep", "--jsonl", []))
    c.eq("crash inode -l equals --log", got["log"], cli.out("--log", []))


# ------------------------------------------------------------- kcore mode

def eq_diff(c, name, got, want):
    """c.eq for big texts and JSON: a mismatch prints a short diff."""
    if got == want:
        c.eq(name, got, want)
        return
    import difflib

    def lines(v):
        if not isinstance(v, str):
            v = json.dumps(v, indent=1, sort_keys=True)
        return v.splitlines()
    diff = list(difflib.unified_diff(lines(want), lines(got), "want", "got",
                                     lineterm="", n=2))
    c.ok(name, False, "\n" + "\n".join(diff[:60]))


def kcore_truth_path(role, path):
    """Where the guest's inode is, seen from init_task's root: the runs
    are chrooted at /host (the 9p mount of the host's root)."""
    if role == "rootfs_root":
        return "/"
    return "/host" + path.rstrip("/") if path != "/" else "/host"


def check_kcore_inodes(c, who, side, cli_doc):
    """from_drgn's decode of each inode: against drgn's own field reads
    (test_live.check_inode, the live set's comparison), the guest's lstat(),
    and vmcore-inode --live --json of the same address."""
    from test_live import check_inode
    from_cli = {i.get("address"): i for i in cli_doc["inodes"]}
    for i in side["inodes"]:
        n = f"{who} {i['role']}"
        got = side["decode"][i["addr"]]
        t = dict(i["truth"], role=i["role"],
                 path=kcore_truth_path(i["role"], i["path"]))
        check_inode(c, n, got, {k: (None if v == "-" else v)
                                for k, v in t.items()})
        if i["stat"]:
            st = i["stat"]
            for key in ("ino", "mode", "nlink", "size", "uid", "gid", "rdev"):
                c.eq(f"{n} {key} equals the guest's lstat()", got[key], st[key])
        eq_diff(c, f"{n} decode equals vmcore-inode --live --json",
             got, from_cli.get("0x" + i["addr"]))


def mode_kcore(c):
    """drgn on the guest's own /proc/kcore (drgn -k): tests/bridges/
    kcore_guest.py boots the stock set's kernel with the host's root over
    9p and runs kcore_side.py under Debian 12's drgn 0.0.22 (from_drgn),
    vmcore-inode --live, then drgn 0.3.0 in the sid chroot (from_drgn and
    %inode), all in one guest, one after the other."""
    sys.path.insert(0, os.path.join(HERE, "bridges"))
    from kcore_guest import boot
    from test_live import parse_live
    set_d = set_dir("stock")
    chroot = sid_chroot()
    # the guest sees it over 9p (below the build directory, as the build)
    with tempfile.TemporaryDirectory(dir=BUILD, prefix="kcore-") as tmp:
        dest, site, lib = install_tree(tmp)
        conf = {"KC_SID": chroot, "KC_INST": dest, "KC_SITE": site,
                "KC_LIB": lib}
        if SANITIZE:
            conf["KC_ENV"] = " ".join(
                f"{k}={os.environ[k]}" for k in
                ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")
                if os.environ.get(k))
            binds = {}
            env = preload_env(binds, dest)  # runtimes into dest/sanitizers
            env["LD_PRELOAD"] = ":".join(
                "/opt/sanitizers/" + os.path.basename(x)
                for x in env["LD_PRELOAD"].split(":"))
            conf["KC_SID_ENV"] = " ".join(f"{k}={v}" for k, v in env.items())
        out = os.path.join(tmp, "out")
        timing = boot(set_d, BUILD, out, conf)
        print(f"guest: {timing['total_s']} s from boot to poweroff (host "
              f"clock, TCG); runs at {timing['marks']}")
        serial = open(os.path.join(out, "serial.log"), errors="replace").read()
        runs = parse_live(os.path.join(out, "runs.txt")) \
            if os.path.exists(os.path.join(out, "runs.txt")) else {}
    c.ok("guest init had no failure", "inodedump-kcore: FAILED" not in serial,
         "\n".join(x for x in serial.splitlines() if "FAILED" in x))
    c.ok("guest: no WARNING, BUG or Oops on the console", not any(
        w in serial for w in ("WARNING:", "BUG:", "Oops")))
    want = ["drgn022", "cli-json", "cli-btf-json", "cli-btf-info",
            "cli-text", "cli-one", "cli-reports",
            "cli-sweep",
            "cli-sweep-text", "cli-log", "drgn030", "cli-json-after",
            "cli-text-after", "cli-sweep-text-after"]
    for name in want:
        r = runs.get(name)
        c.ok(f"guest run {name} ended with status 0", r and r["rc"] == 0,
             f"{r and r['rc']}: {r and r['err'][-3000:]}")
        c.ok(f"guest run {name}: no sanitizer report",
             r and b"Sanitizer" not in r["err"], r and r["err"][-3000:])
    # Not root: a real uid switch in the guest, refused with a reason.
    r = runs.get("nonroot-id")
    c.ok("setpriv gives uid 65534", r and r["rc"] == 0 and
         r["out"].startswith(b"uid=65534(nobody) gid=65534(nogroup)"),
         r and (r["out"] + r["err"]).decode(errors="replace"))
    for name in ("nonroot", "nonroot-reports"):
        r = runs.get(name)
        err = r["err"].decode(errors="replace") if r else ""
        c.eq(f"{name}: exit code", r and r["rc"], 3)
        c.ok(f"{name} says /proc/kcore needs root",
             "cannot open /proc/kcore" in err and "needs root" in err, err)
        c.ok(f"{name} prints no result", r and r["out"].strip() == b"",
             r and r["out"][:300].decode(errors="replace"))
    if not all(runs.get(n) and runs[n]["rc"] == 0 for n in want):
        return

    def text(name):
        return runs[name]["out"].decode("utf-8", "surrogateescape")

    cli_doc = json.loads(text("cli-json"))
    # --live with no vmlinux at all (issue 16): the running kernel's own BTF
    # and kallsyms through /proc/kcore decode what -k vmlinux decodes.
    eq_diff(c, "--live without vmlinux (BTF, kallsyms) equals --live -k --json",
            json.loads(text("cli-btf-json")), cli_doc)
    err = runs["cli-btf-json"]["err"].decode(errors="replace")
    c.ok("--live without vmlinux says types came from the kernel's BTF and "
         "symbols from its kallsyms", "no vmlinux: types from the dump's BTF" in err
         and "symbols from the dump's kallsyms" in err, err[-600:])
    info = text("cli-btf-info")
    c.ok("--live --info without vmlinux: types and symbols lines name BTF and "
         "kallsyms", any(l.startswith("types ") and "BTF" in l for l in info.splitlines())
         and any(l.startswith("symbols ") and "kallsyms" in l for l in info.splitlines()),
         info[-1500:])
    rel = next((l.strip().split("=", 1)[1] for l in open(os.path.join(set_d, "info.txt"))
                if l.startswith("release=")), None)
    c.ok(f"--live --info without vmlinux: the running kernel's release ({rel}) "
         "from VMCOREINFO", rel and any(l.startswith("release ") and l.split()[1] == rel
                                       for l in info.splitlines()), info[:900])
    side = json.loads(text("drgn022"))
    c.ok("host drgn is 0.0.22 (no command framework)",
         side["drgn"].startswith("0.0.") and side["commands"] is None,
         side["drgn"])
    print(f"drgn {side['drgn']} in the guest (guest clock): "
          f"{side['seconds']}")
    who = f"drgn {side['drgn']} kcore"
    c.eq(f"{who} reads through drgn", side["info"].get("reader"), "caller")
    c.eq(f"{who} vmlinux found from drgn's open files",
         side["info"].get("vmlinux"),
         os.path.realpath(os.path.join(set_d, "vmlinux")))
    c.eq(f"{who}: 14 inodes found", len(side["inodes"]), 14)
    check_kcore_inodes(c, who, side, cli_doc)
    eq_diff(c, f"{who} document text equals vmcore-inode --live's",
         side["document"], text("cli-text"))
    eq_diff(c, f"{who} document JSON equals --live --json",
         json.loads(side["document_json"]), cli_doc)
    c.eq(f"{who} reports() equal --live --json's (none: a stock kernel)",
         side["reports"], json.loads(text("cli-reports"))["reports"])
    sweep = [json.loads(x) for x in text("cli-sweep").splitlines() if x]
    eq_diff(c, f"{who} sweep(sb) equals --live --sweep --jsonl --sb", side["sweep"],
         sweep)
    c.eq(f"{who} sweep(sb): the guest's 8 files and their directory",
         sweep[-2].get("inodes") if len(sweep) > 1 else None, 9)
    eq_diff(c, f"{who} sweep_text(sb) equals --live --sweep --sb",
         side["sweep_text"], text("cli-sweep-text"))
    c.ok(f"{who} log_text() is the start of the later --live --log",
         side["log"] and text("cli-log").startswith(side["log"]),
         f"{len(side['log'])} vs {len(text('cli-log'))} characters")
    e = side["errors"]["unmapped"] or {}
    c.eq(f"{who} unmapped address: FaultError", e.get("class"), "FaultError")
    c.eq(f"{who} unmapped address: address", e.get("address"), UNMAPPED)
    s3 = json.loads(text("drgn030"))
    print(f"drgn {s3['drgn']} in the guest (guest clock): {s3['seconds']}")
    who = f"drgn {s3['drgn']} kcore"
    c.ok("chroot drgn has the command framework", s3["commands"] is not None,
         s3["drgn"])
    c.eq(f"{who} reads through drgn", s3["info"].get("reader"), "caller")
    # against the command run right after it
    after = json.loads(text("cli-json-after"))
    for a in side["addrs"]:
        eq_diff(c, f"{who} decode({a}) equals --live --json",
             s3["decode"].get(a), next((i for i in after["inodes"]
                                        if i["address"] == "0x" + a), None))
    eq_diff(c, f"{who} document text equals vmcore-inode --live's",
         s3["document"], text("cli-text-after"))
    eq_diff(c, f"{who} sweep_text(sb) equals --live --sweep --sb",
         s3["sweep_text"], text("cli-sweep-text-after"))
    c.ok(f"{who} log_text() is the start of --live --log's",
         s3["log"] and text("cli-log")[:len(side["log"])] ==
         s3["log"][:len(side["log"])], "")
    cmds = s3["commands"] or {}

    def cmd(k, i):
        v = cmds.get(k)
        return v[i] if v else None

    eq_diff(c, f"{who} %inode ADDRESS... equals vmcore-inode --live's text",
         cmd("addresses", 0), text("cli-text-after"))
    eq_diff(c, f"{who} %inode -j equals --live --json",
         json.loads(cmd("json", 0) or "null"), after)
    eq_diff(c, f"{who} %inode --sweep --sb equals --live --sweep --sb",
         cmd("sweep", 0), text("cli-sweep-text-after"))
    one = text("cli-one")
    c.ok(f"{who} %inode: an unmapped address prints the error",
         (cmd("bad", 1) or "").startswith(
             f"inode: struct inode at {UNMAPPED:#x}"), cmd("bad", 1))
    c.ok(f"{who} %inode: and goes on with the next address",
         (cmd("bad", 0) or "").endswith(one), cmd("bad", 0))


# ------------------------------------------------- reader, leak, install

def mode_reader(c):
    """open_reader() with hosts whose reads fail: the library's error with
    the address, or the host's own exception, never a crash. On the
    patched set's report dump: drgn 0.0.22 (the host's) reads the reader
    side, and it cannot read the 7.3 committed fixture."""
    d = set_dir("patched")
    DUMP = os.path.join(d, "d17-zlib.vmcore")
    VMLINUX = os.path.join(d, "vmlinux")

    def victim():
        return next(t for t in read_truth(os.path.join(d, "truth.txt"))
                    if t["role"] == "victim_symlink")
    with inodedump.open(DUMP, VMLINUX) as real:
        info = real.info()
        vmcoreinfo = None
    import drgn
    prog = drgn.Program()
    prog.set_core_dump(DUMP)
    prog.load_debug_info([VMLINUX])
    from inodedump._drgn import vmcoreinfo as drgn_vmcoreinfo
    vmcoreinfo = drgn_vmcoreinfo(prog)
    addr = int(victim()["addr"], 16)

    def fault(address, count):
        raise inodedump.FaultError("nothing here")

    s = inodedump.open_reader(fault, VMLINUX, vmcoreinfo=vmcoreinfo)
    try:
        s.decode(addr)
        c.ok("every read failing: decode raises", False)
    except inodedump.FaultError as e:
        c.eq("every read failing: the inode's address", e.address, addr)
    c.ok("every read failing: reports() raises the library's error",
         raises(inodedump.Error, s.reports))

    def filtered(address, count):
        raise inodedump.FilteredError("left out")

    s = inodedump.open_reader(filtered, VMLINUX, vmcoreinfo=vmcoreinfo)
    c.ok("a host's filtered page: FilteredError",
         raises(inodedump.FilteredError, lambda: s.decode(addr)))

    def buggy(address, count):
        raise RuntimeError("the host's own bug")

    # The session reads memory when it opens (VMCOREINFO's OSRELEASE
    # against init_uts_ns): the host's exception may come back from the
    # open already, else from the decode; either way as itself.
    try:
        s = inodedump.open_reader(buggy, VMLINUX, vmcoreinfo=vmcoreinfo)
        s.decode(addr)
        c.ok("a host's exception comes back", False)
    except RuntimeError as e:
        c.eq("a host's exception comes back as itself", str(e),
             "the host's own bug")

    def short(address, count):
        return b"\0"

    try:
        s = inodedump.open_reader(short, VMLINUX, vmcoreinfo=vmcoreinfo)
        s.decode(addr)
        c.ok("a short read is the host's error (ValueError)", False)
    except ValueError as e:
        c.ok("a short read is the host's error (ValueError), said",
             re.fullmatch(r"read\(0x[0-9a-f]+, \d+\) returned 1 bytes",
                          str(e)), str(e))
    s = inodedump.open_reader(lambda a, n: prog.read(a, n), VMLINUX,
                              vmcoreinfo=vmcoreinfo)
    c.eq("a working reader decodes the victim",
         s.decode(addr)["violations"][0]["check"], "cached_link_length")
    c.ok("the session still works after the failures",
         s.decode(addr)["ino"] > 0)
    c.ok("a wrong vmlinux is refused (MismatchError)", raises(
        inodedump.MismatchError, lambda: inodedump.open_reader(
            lambda a, n: prog.read(a, n),
            os.path.join(set_dir("stock"), "vmlinux"), vmcoreinfo=vmcoreinfo)))
    c.ok("read must be callable", raises(TypeError, lambda: inodedump.open_reader(
        None, VMLINUX)))
    c.eq("info() of the real dump says the release", info.get("osrelease"),
         read_osrelease(vmcoreinfo))


def read_osrelease(vmcoreinfo):
    for line in vmcoreinfo.splitlines():
        if line.startswith("OSRELEASE="):
            return line.split("=", 1)[1]
    return None


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def mode_leak(c):
    asan = os.environ.get("ASAN_OPTIONS", "")
    if SANITIZE and "quarantine_size_mb=0" not in asan:
        # ASan keeps freed memory in quarantine (256 MB): RSS would grow
        # with every free. Without it, what is freed is reused.
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  dict(os.environ, ASAN_OPTIONS=asan + ":quarantine_size_mb=0"))
    from test_errors import DUMP, VMLINUX, victim
    addr = int(victim()["addr"], 16)
    def once(s):
        s.decode(addr)
        s.decode_text(addr)
        try:
            s.decode(UNMAPPED)
        except inodedump.FaultError:
            pass

    with inodedump.open(DUMP, VMLINUX) as s:
        for _ in range(1000):  # warm: layouts, symbols, allocator pools
            once(s)
        before = rss_kb()
        for _ in range(10000):
            once(s)
        after = rss_kb()
    print(f"RSS after 1,000 warm-up decodes {before} kB, after 10,000 more "
          f"{after} kB")
    # One leaked copy of an inode (>= 552 bytes) per decode would be 5 MB.
    c.ok("RSS flat over 10,000 decodes (< 1 MB growth)",
         after - before < 1024, f"{before} -> {after} kB")


def mode_install(c):
    with tempfile.TemporaryDirectory() as tmp:
        dest, site, lib = install_tree(tmp)
        c.ok("module installed", site is not None)
        pkg = os.path.join(dest + site, "inodedump")
        for f in ("__init__.py", "__init__.pyi", "py.typed", "_drgn.py",
                  "drgn_plugin.py", "_version.py", "_inodedump.abi3.so"):
            c.ok(f"installed inodedump/{f}", os.path.exists(os.path.join(pkg, f)))
        intro = json.loads(subprocess.run(
            ["meson", "introspect", "--installed", BUILD], capture_output=True,
            text=True, check=True).stdout).values()
        for want in ("man1/vmcore-inode.1", "man3/libinodedump.3",
                     "crash/extensions/inodedump.so"):
            c.ok(f"installs {want}", any(i.endswith(want) for i in intro))
        env = dict(os.environ, PYTHONPATH=dest + site,
                   LD_LIBRARY_PATH=dest + lib)
        probe = ("import importlib.metadata as m, inodedump, json;"
                 "eps = [(e.name, e.value) for e in "
                 "m.entry_points(group='drgn.plugins')];"
                 "print(json.dumps([inodedump.__file__, inodedump.__version__, eps]))")
        p = subprocess.run(["/usr/bin/python3", "-c", probe], env=env,
                           capture_output=True, text=True, cwd=tmp)
        c.eq("installed module imports", p.returncode, 0)
        if p.returncode == 0:
            where, version, eps = json.loads(p.stdout)
            c.ok("imported from the installed tree", where.startswith(dest), where)
            c.eq("version is the project's", version,
                 run(["--version"]).stdout.split()[-1])
            c.ok("drgn plugin entry point", ["inodedump", "inodedump.drgn_plugin"]
                 in eps, str(eps))
        else:
            print(p.stderr)


def main():
    c = Checker()
    mode = sys.argv[1]
    if mode in ("reader", "leak", "install", "kcore"):
        globals()["mode_" + mode](c)
    else:
        globals()["mode_" + mode](c, sys.argv[2], sys.argv[3])
    c.finish()


if __name__ == "__main__":
    main()
