#!/usr/bin/env bash
# Installs every Debian 12 package inodedump's build, tests and fixture
# recipe need. Run as root (or through sudo).
set -euo pipefail
packages=(
  # build
  build-essential meson ninja-build pkg-config libkdumpfile-dev libdw-dev
  libelf-dev binutils
  # BTF (libbpf) and debuginfod: headers to build, the libraries loaded
  # with dlopen when a run needs them; debuginfod, the server, for its test
  libbpf-dev libdebuginfod-dev debuginfod
  # our own dump reader's decompressors; static archives of these and of
  # libdw's dependencies for the command (meson.build)
  zlib1g-dev libdeflate-dev liblzo2-dev libzstd-dev liblzma-dev libbz2-dev
  # tests and truth; the speed gate's instruction counts (bench/gate.py)
  python3 python3-drgn valgrind
  # every JSON output of the tests checked against schema/ (Draft 2020-12)
  python3-jsonschema
  # fixture recipe: kernel build, guest, dumps
  linux-source-6.12 flex bison bc libssl-dev dwarves cpio xz-utils
  qemu-system-x86 busybox-static makedumpfile e2fsprogs kmod zstd
  crash git
  # the fs sets' disks (XFS, btrfs: made on the host)
  xfsprogs btrfs-progs
  # the rhel612 set: Red Hat's debuginfo shape made with Debian's tools
  # (dwz -m, eu-strip --reloc-debug-sections)
  dwz elfutils
  # the arm64 sets: their guest (qemu-system-aarch64), arm64
  # makedumpfile runs (qemu-aarch64-static); vmcore-inode and the
  # arm64-64k sets' kernel cross-built (64 KiB pages: no Debian flavour)
  qemu-system-arm qemu-user-static gcc-aarch64-linux-gnu
  # the ppc64le set: its guest (qemu-system-ppc64; makedumpfile under
  # qemu-ppc64le-static, qemu-user-static above)
  qemu-system-ppc
  # the s390x sets: their guest (qemu-system-s390x; makedumpfile under
  # qemu-s390x-static, qemu-user-static above); vmcore-inode cross-built
  # for the s390x-live guest
  qemu-system-misc gcc-s390x-linux-gnu
  # bridges: the Python module's headers; man -l for the manual pages'
  # test; debootstrap for the sid chroots (crash 9.0.2, drgn 0.3.0)
  python3-dev man-db debootstrap
  # the triage units under a real systemd (tests/test_systemd.py): nspawn;
  # systemd's pkg-config file (the unit directory) is in systemd itself
  systemd-container systemd
)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: ${#packages[@]} packages present" >&2
