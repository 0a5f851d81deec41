#!/usr/bin/env bash
# A Debian 12 (bookworm) root filesystem with systemd, for booting under
# systemd-nspawn in tests/test_systemd.py: built once with debootstrap from
# the host's own mirror (read from /etc/apt/sources.list.d at run time, no
# mirror written here) and cached in ~/.cache/inodedump/nspawn-bookworm-HASH,
# HASH over this script (its package list). Prints the directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# What vmcore-inode links against, and systemd to boot.
PACKAGES="systemd,systemd-sysv,dbus,libdw1,libelf1,zlib1g,liblzo2-2,libzstd1,libbpf1,libkdumpfile10"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/inodedump
hash=$(sha256sum "$here/rootfs.sh" | cut -c1-16)
dir=$cache/nspawn-bookworm-$hash
if [ -e "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
. "$here/../vmcores/fx/apt.sh" 2>/dev/null || true
mirror=$(host_mirror) || { echo "rootfs.sh: no Debian mirror in /etc/apt/sources.list.d" >&2; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$cache"
nice debootstrap --variant=minbase --include="$PACKAGES" bookworm "$dir.tmp" "$mirror" >&2
# The container boots to a console nobody logs in on; root without password
# so that a person can `machinectl shell` while debugging.
chroot "$dir.tmp" passwd -d root >/dev/null
echo inodedump-test > "$dir.tmp/etc/hostname"
rm -rf "$dir.tmp/var/cache/apt/archives/"*.deb
rm -rf "$dir"
mv "$dir.tmp" "$dir"
touch "$dir/.complete"
echo "$dir"
