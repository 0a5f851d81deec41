"""A vmlinux of another architecture than the dump's is refused, naming
both (the vmlinux's ELF machine and the dump's), exit 3, before anything
is read through it: an x86-64 vmlinux on each arm64 dump (ELF, QEMU's
kdump-zlib, whose header names no machine), an arm64 vmlinux on x86-64
dumps, x86-64's and arm64's on ppc64le dumps and ppc64le's on an x86-64
one, ppc64le's and x86-64's on s390x dumps and s390x's on an x86-64 one;
--ignore-build-id does not let it through.

    test_arch_mismatch.py
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import set_dir  # noqa: E402

BIN = os.environ["VMCORE_INODE"]


def main():
    x86, arm, ppc = set_dir("stock"), set_dir("arm64"), set_dir("ppc64le")
    s390 = set_dir("s390x")
    cases = [
        (x86, arm, "elf-paging.vmcore", "x86_64 (ELF machine 62)",
         "aarch64 machine (ELF machine 183)"),
        (x86, arm, "qemu-kdump-zlib.flat", "x86_64 (ELF machine 62)",
         "aarch64 machine (ELF machine 183)"),
        (x86, arm, "panic.vmcore", "x86_64 (ELF machine 62)",
         "aarch64 machine (ELF machine 183)"),
        (arm, x86, "elf-paging.vmcore", "aarch64 (ELF machine 183)",
         "x86_64 machine (ELF machine 62)"),
        (arm, x86, "d17-zlib.vmcore", "aarch64 (ELF machine 183)",
         "x86_64 machine (ELF machine 62)"),
        # ppc64le: the kdump ELF and makedumpfile's diskdump (its header
        # names the machine "ppc64le"), with x86-64's and arm64's vmlinux
        (x86, ppc, "elf-vmcoreinfo.vmcore", "x86_64 (ELF machine 62)",
         "ppc64 machine (ELF machine 21)"),
        (x86, ppc, "d17-zlib.vmcore", "x86_64 (ELF machine 62)",
         "ppc64le machine (ELF machine 21)"),
        (arm, ppc, "d17-zlib.vmcore", "aarch64 (ELF machine 183)",
         "ppc64le machine (ELF machine 21)"),
        (ppc, x86, "d17-zlib.vmcore", "ppc64 (ELF machine 21)",
         "x86_64 machine (ELF machine 62)"),
        # s390x (big-endian): QEMU's ELF, makedumpfile's diskdump (its
        # header names "s390x"); ppc64le's and x86-64's vmlinux on them,
        # s390x's on an x86-64 dump
        (ppc, s390, "elf-paging.vmcore", "ppc64 (ELF machine 21)",
         "s390x machine (ELF machine 22)"),
        (x86, s390, "d17-zlib.vmcore", "x86_64 (ELF machine 62)",
         "s390x machine (ELF machine 22)"),
        (s390, x86, "d17-zlib.vmcore", "s390x (ELF machine 22)",
         "x86_64 machine (ELF machine 62)"),
    ]
    bad = 0
    for vm_set, dump_set, dump, vm_says, dump_says in cases:
        for extra in ([], ["--ignore-build-id"]):
            args = [BIN] + extra + ["-k", os.path.join(vm_set, "vmlinux"),
                                    os.path.join(dump_set, dump),
                                    "ffff000000000000"]
            r = subprocess.run(args, capture_output=True, text=True,
                               timeout=120)
            ok = (r.returncode == 3 and vm_says in r.stderr
                  and dump_says in r.stderr and not r.stdout)
            print(("ok" if ok else "FAIL"), os.path.basename(dump_set), dump,
                  " ".join(extra), "rc", r.returncode, r.stderr.strip()[:300])
            bad += not ok
    if bad:
        raise SystemExit(f"FAIL {bad} cases")
    print(f"ok {2 * len(cases)} cases")


if __name__ == "__main__":
    main()
