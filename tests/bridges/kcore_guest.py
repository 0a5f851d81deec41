"""Boot the stock set's Debian 6.12 kernel under QEMU (TCG) with the host's
root shared read-only over 9p, and run drgn and vmcore-inode --live on the
guest's own /proc/kcore (kcore_init.sh, kcore_side.py): the host
side of tests/test_bridges.py's kcore mode.

    /usr/bin/python3 kcore_guest.py STOCK_SET_DIR BUILD_DIR OUT_DIR [SID_CHROOT INSTALL_DIR SITE LIBDIR]

The kernel is the stock set's own: vmlinux (with DWARF) from the set, and
vmlinuz and the 9p modules (netfs 9pnet 9pnet_virtio 9p: virtio_pci is
built in) from the linux-image .deb the stock recipe downloaded into
<cache>/debs, extracted once into <cache>/kcore-kernel-<hash> (hash of the
.deb's name and the module list; 8-14 s). Nothing else is cached: every call
boots (the guest reads the build directory as it is now). OUT_DIR gets
serial.log (console), runs.txt (ttyS1: the framed runs), timing.json.
"""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("INODEDUMP_CACHE",
                       os.path.expanduser("~/.cache/inodedump"))
MODULES = ["netfs", "9pnet", "9pnet_virtio", "9p"]
# drgn's index of the 350 MB vmlinux (~300 MB RSS on the host) and the
# library's own reads of it; the page cache holds the vmlinux too
MEMORY_MB = 2048
TIMEOUT = int(os.environ.get("KC_BOOT_TIMEOUT", "900"))


def info_of(set_dir):
    info = {}
    with open(os.path.join(set_dir, "info.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            info[k] = v
    return info


def stock_kernel(set_dir):
    """(vmlinuz, modules dir) of the stock set's kernel, from its .deb."""
    info = info_of(set_dir)
    rel = info["release"]
    # kernel=linux-image-R-unsigned=VERSION linux-image-R-dbg=VERSION
    ver = info["kernel"].split()[0].split("=", 1)[1]
    deb = os.path.join(CACHE, "debs",
                       f"linux-image-{rel}-unsigned_{ver}_amd64.deb")
    if not os.path.isfile(deb):
        raise SystemExit(f"FAIL {deb} missing (the stock recipe keeps it: "
                         "run tests/vmcores/make-fixtures.sh stock)")
    key = hashlib.sha256(f"{os.path.basename(deb)} {' '.join(MODULES)} v1\n"
                         .encode()).hexdigest()[:16]
    kdir = os.path.join(CACHE, f"kcore-kernel-{key}")
    # one extraction at a time: parallel test runs share the cache
    with open(os.path.join(CACHE, ".kcore-kernel.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isfile(os.path.join(kdir, ".complete")):
            extract(deb, rel, kdir)
    return os.path.join(kdir, "vmlinuz"), os.path.join(kdir, "modules")


def extract(deb, rel, kdir):
    """vmlinuz and the 9p modules (decompressed) from deb into kdir."""
    tmp = f"{kdir}.tmp.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "x"))
    os.makedirs(os.path.join(tmp, "modules"))
    mdir = f"./lib/modules/{rel}/kernel"
    members = [f"./boot/vmlinuz-{rel}", f"{mdir}/fs/netfs/netfs.ko.xz",
               f"{mdir}/net/9p/9pnet.ko.xz", f"{mdir}/net/9p/9pnet_virtio.ko.xz",
               f"{mdir}/fs/9p/9p.ko.xz"]
    subprocess.run(f"dpkg-deb --fsys-tarfile {shell_quote(deb)} | "
                   f"tar -x -C {shell_quote(tmp + '/x')} "
                   + " ".join(shell_quote(m) for m in members),
                   shell=True, check=True)
    shutil.move(f"{tmp}/x/boot/vmlinuz-{rel}", f"{tmp}/vmlinuz")
    for m, path in zip(MODULES, members[1:]):
        with open(f"{tmp}/modules/{m}.ko", "wb") as out:
            subprocess.run(["xz", "-dc", f"{tmp}/x/{path}"], stdout=out,
                           check=True)
        deps = subprocess.run(["modinfo", "-F", "depends", f"{tmp}/modules/{m}.ko"],
                              capture_output=True, text=True, check=True)
        for d in filter(None, deps.stdout.strip().split(",")):
            if d not in MODULES[:MODULES.index(m)]:
                raise SystemExit(f"FAIL {m} needs {d}, which is not loaded before it")
    shutil.rmtree(f"{tmp}/x")
    open(f"{tmp}/.complete", "w").close()
    shutil.rmtree(kdir, ignore_errors=True)
    os.rename(tmp, kdir)


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def initramfs(work, modules, conf):
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "etc", "modules"):
        os.makedirs(os.path.join(root, d))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    shutil.copy(os.path.join(HERE, "kcore_init.sh"), os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    for m in MODULES:
        shutil.copy(os.path.join(modules, m + ".ko"), os.path.join(root, "modules"))
    with open(os.path.join(root, "etc", "kcore.conf"), "w") as f:
        for k, v in conf.items():
            f.write(f"{k}={shell_quote(v)}\n")
    out = os.path.join(work, "initramfs.cpio.gz")
    subprocess.run(f"cd {shell_quote(root)} && find . | LC_ALL=C sort | "
                   f"cpio -o -H newc --quiet | gzip -1 > {shell_quote(out)}",
                   shell=True, check=True)
    return out


def boot(set_dir, build, out_dir, conf_extra):
    """Boot, wait for the end of the runs; returns the timings (host clock)."""
    vmlinuz, modules = stock_kernel(set_dir)
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.join(out_dir, "work")
    conf = {"KC_SRC": SRC, "KC_BUILD": os.path.realpath(build),
            "KC_VMLINUX": os.path.realpath(os.path.join(set_dir, "vmlinux")),
            "KC_CLI": os.path.realpath(os.path.join(build, "vmcore-inode")),
            "KC_ENV": "", "KC_SID": "", "KC_INST": "", "KC_SITE": "",
            "KC_LIB": "", "KC_SID_ENV": ""}
    conf.update(conf_extra)
    rd = initramfs(work, modules, conf)
    serial = os.path.join(out_dir, "serial.log")
    runs = os.path.join(out_dir, "runs.txt")
    for p in (serial, runs):
        if os.path.exists(p):
            os.unlink(p)
    t0 = time.monotonic()
    qemu = subprocess.Popen(
        ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max",
         "-smp", "2,sockets=2,cores=1,threads=1", "-m", str(MEMORY_MB),
         "-nographic", "-no-reboot", "-kernel", vmlinuz, "-initrd", rd,
         # no_timer_check: see make-fixtures.sh run_guest
         "-append", "console=ttyS0 no_timer_check panic=-1",
         "-monitor", "none",
         "-chardev", f"file,id=con,path={serial}", "-serial", "chardev:con",
         "-chardev", f"file,id=runs,path={runs}", "-serial", "chardev:runs",
         # the host's root, read-only; remap: inode numbers of the host's
         # other filesystems below / do not collide in the guest
         "-virtfs", "local,path=/,mount_tag=hostroot,readonly=on,"
                    "security_model=none,multidevs=remap"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    marks, seen = {}, set()
    try:
        while qemu.poll() is None:
            if time.monotonic() - t0 > TIMEOUT:
                raise SystemExit(f"FAIL the guest took over {TIMEOUT} s "
                                 f"(KC_BOOT_TIMEOUT); {serial}")
            try:
                with open(serial, errors="replace") as f:
                    text = f.read()
            except FileNotFoundError:
                text = ""
            for line in text.splitlines():
                i = line.find("inodedump-kcore: ")
                if i >= 0 and line not in seen:
                    seen.add(line)
                    marks[line[i + len("inodedump-kcore: "):]] = round(
                        time.monotonic() - t0, 1)
            time.sleep(0.2)
    finally:
        if qemu.poll() is None:
            qemu.kill()
        qemu_out = qemu.communicate()[0].decode(errors="replace")
    timing = {"total_s": round(time.monotonic() - t0, 1), "marks": marks,
              "qemu_rc": qemu.returncode, "qemu_output": qemu_out[-2000:]}
    with open(os.path.join(out_dir, "timing.json"), "w") as f:
        json.dump(timing, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    return timing


def main():
    if len(sys.argv) not in (4, 8):
        raise SystemExit(__doc__)
    extra = {}
    if len(sys.argv) == 8:
        extra = dict(zip(("KC_SID", "KC_INST", "KC_SITE", "KC_LIB"),
                         sys.argv[4:]))
    print(json.dumps(boot(sys.argv[1], sys.argv[2], sys.argv[3], extra),
                     indent=1))


if __name__ == "__main__":
    main()
