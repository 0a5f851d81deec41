#!/usr/bin/env bash
# A Debian 12 (bookworm) root filesystem with systemd, for booting under
# systemd-nspawn in tests/test_systemd.py: built once with debootstrap from
# the host's own mirror (read from /etc/apt/sources.list.d at run time, no
# mirror written here) and cached in
# ${INODEDUMP_CACHE:-~/.cache/inodedump}/nspawn-bookworm-HASH, HASH over its
# inputs (INPUTS below: bump its version when the steps change). Prints the
# directory. About 2 minutes and 211 MB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# What vmcore-inode may load (it links the rest in), and systemd to boot.
PACKAGES="systemd,systemd-sysv,dbus,libdw1,libelf1,zlib1g,liblzo2-2,libzstd1,libbpf1,libkdumpfile10,libdebuginfod1"
INPUTS="v1 bookworm minbase $PACKAGES root-no-password hostname"
cache=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
hash=$(printf '%s' "$INPUTS" | sha256sum | cut -c1-16)
dir=$cache/nspawn-bookworm-$hash
if [ -e "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
# shellcheck source=../vmcores/fx/apt.sh
. "$here/../vmcores/fx/apt.sh"
mirror=$(host_mirror) || { echo "rootfs.sh: no Debian mirror in /etc/apt/sources.list.d" >&2; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$cache"
nice debootstrap --variant=minbase --include="$PACKAGES" bookworm "$dir.tmp" "$mirror" >&2
# Nobody logs in on the container's console; root without a password so a
# person debugging can.
chroot "$dir.tmp" passwd -d root >/dev/null
echo inodedump-test > "$dir.tmp/etc/hostname"
rm -rf "$dir.tmp/var/cache/apt/archives/"*.deb
rm -rf "$dir"
mv "$dir.tmp" "$dir"
touch "$dir/.complete"
echo "$dir"
