"""drgn from the sid chroot, for fixture sets the host's drgn cannot read.

Debian 12's drgn 0.0.22 cannot read a 7.3 kernel (`i_state` became a
struct, module and mount helpers predate it); the stock73 set's recipe
(tests/vmcores/recipes/stock73.sh) debootstraps sid with python3-drgn 0.3.0 and
names that chroot in the set's info.txt (`sid_chroot=`). A test calls
run(set_dir, script, args): the script (a path under tests/) runs with the
chroot's python3, the set directory bind-mounted read-only at /fx and tests/
at /src, in a private mount namespace (so the mounts vanish with the
command). Needs root, as the recipe does.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def info(set_dir):
    """The set's info.txt as a dict ({} where there is none: committed/)."""
    out = {}
    path = os.path.join(set_dir, "info.txt")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            out[k] = v
    return out


def chroot_of(set_dir):
    """The sid chroot that made the set's truth, or None (the host's drgn).
    committed/ made from a 7.x set names that set (info.txt `from=`): its
    chroot; where that set is not made here, the chroot any made set names
    (every set's recipe makes the same sid chroot, prepare_sid_chroot).
    Neither: a FAIL, not the host's drgn (it cannot read a 7.x kernel)."""
    i = info(set_dir)
    if i.get("from"):
        out = os.path.join(HERE, "vmcores", "out")
        sets = [i["from"]] + sorted(os.listdir(out) if os.path.isdir(out) else [])
        for s in sets:
            c = chroot_of(os.path.join(out, s))
            if c and os.path.isfile(os.path.join(c, ".complete")):
                return c
        raise SystemExit(f"FAIL {set_dir} was made from the {i['from']} set: "
                         "drgn 0.3.0 needs a sid chroot, run "
                         f"tests/vmcores/make-fixtures.sh {i['from']} (or stock73)")
    for tok in i.get("drgn", "").split():
        if tok.startswith("sid_chroot="):
            return tok.split("=", 1)[1]
    return i.get("sid_chroot") or None


def fx(path):
    """A file of the set dir as the chroot sees it."""
    return "/fx/" + os.path.basename(path)


SCRIPT = r'''
c=$1 fx=$2 src=$3; shift 3
mount --bind "$fx" "$c/fx" && mount -o remount,bind,ro "$c/fx" &&
mount --bind "$src" "$c/src" && mount -o remount,bind,ro "$c/src" &&
exec chroot "$c" "$@"
'''


def run(set_dir, script, args, timeout=600):
    """stdout (bytes) of /usr/bin/python3 /src/SCRIPT ARGS in the chroot;
    raises SystemExit with its stderr if it fails."""
    chroot = chroot_of(set_dir)
    if not chroot or not os.path.isfile(os.path.join(chroot, ".complete")):
        raise SystemExit(f"FAIL no sid chroot for {set_dir} (info.txt: sid_chroot=); "
                         "run tests/vmcores/make-fixtures.sh stock73")
    set_dir = os.path.realpath(set_dir)
    cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", SCRIPT,
           "sid_drgn", chroot, set_dir, HERE,
           "/usr/bin/python3", "/src/" + script, *args]
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1"}
    p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
    if p.returncode != 0:
        raise SystemExit(f"FAIL drgn in the sid chroot: {' '.join(cmd[-len(args) - 2:])}: "
                         f"exit {p.returncode}\n{p.stderr.decode(errors='replace')}")
    return p.stdout
