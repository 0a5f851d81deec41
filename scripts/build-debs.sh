#!/usr/bin/env bash
# Builds the Debian packages (debian/) in a clean Debian 12 chroot, as
# issue 43 asks: `apt-get build-dep` from debian/control alone, then
# `dpkg-buildpackage -us -uc -b`, lintian on the .changes (fails on any
# error or warning), the .debs installed with `apt install ./...deb`, the
# committed fixture decoded by the installed vmcore-inode and
# debian/tests/* (the autopkgtest's tests) run against the installed
# packages. Then the packages are purged again: the chroot stays clean.
#
#   scripts/build-debs.sh [OUTDIR]    (default: ./build-debs; run as root)
#
# INODEDUMP_DEBS_BUILD_ONLY=1: the packages only (build-dep, dpkg-buildpackage
# -us -uc -b, the .debs copied to OUTDIR): no lintian, no install, no
# autopkgtest. The end-to-end kdump sets (tests/vmcores/recipes/e2e61.sh)
# build the packages they install this way; the chroot is the same.
#
# The chroot is made once (debootstrap --variant=buildd) and cached under
# ${INODEDUMP_CACHE:-$HOME/.cache/inodedump}/deb-chroot-SUITE-ARCH; the
# mirror is the host's own, read from its apt sources at run time. Not run
# by .ci/run or the test suite.
set -euo pipefail

suite=${INODEDUMP_DEB_SUITE:-bookworm}
arch=$(dpkg --print-architecture)
cache=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
chroot=$cache/deb-chroot-$suite-$arch
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-debs}")
version=$(cd "$src" && dpkg-parsechangelog -S Version)

say() { echo "build-debs: $*" >&2; }

mirror() {
	local m
	m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources \
		2>/dev/null || true)
	[ -n "$m" ] || m=$(awk '$1 == "deb" { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null || true)
	[ -n "$m" ] || { say "no apt mirror in /etc/apt/sources.list{,.d}"; exit 2; }
	echo "$m"
}

in_chroot() {
	chroot "$chroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

if [ ! -x "$chroot/usr/bin/dpkg-buildpackage" ]; then
	rm -rf "$chroot.tmp"
	mkdir -p "$cache"
	say "debootstrap $suite into $chroot"
	debootstrap --variant=buildd "$suite" "$chroot.tmp" "$(mirror)" >&2
	# No daemon of an installed package starts inside the chroot.
	printf '#!/bin/sh\nexit 101\n' > "$chroot.tmp/usr/sbin/policy-rc.d"
	chmod +x "$chroot.tmp/usr/sbin/policy-rc.d"
	rm -rf "$chroot"
	mv "$chroot.tmp" "$chroot"
fi

# No /dev/pts in the chroot: dpkg's log without a pty.
echo 'Dpkg::Use-Pty "0";' > "$chroot/etc/apt/apt.conf.d/99inodedump-nopty"
mount -t proc proc "$chroot/proc"
trap 'umount "$chroot/proc"' EXIT

build_only=${INODEDUMP_DEBS_BUILD_ONLY:-0}
in_chroot apt-get update -qq
[ "$build_only" = 1 ] ||
	in_chroot apt-get install -y -qq --no-install-recommends lintian >/dev/null

# The source as the work tree has it (tracked and new files, not ignored
# ones such as build directories), in a fresh directory.
rm -rf "$chroot/build"
mkdir -p "$chroot/build/inodedump-$version"
(cd "$src" && git ls-files -z -co --exclude-standard |
	tar --null -T - -cf -) | tar -xf - -C "$chroot/build/inodedump-$version"

say "apt-get build-dep, dpkg-buildpackage -us -uc -b"
in_chroot sh -c "cd /build/inodedump-$version &&
	apt-get build-dep -y -qq ./ >/dev/null &&
	dpkg-buildpackage -us -uc -b"

changes=$(cd "$chroot/build" && ls ./*.changes)
if [ "$build_only" = 1 ]; then
	rm -rf "$out"; mkdir -p "$out"
	cp "$chroot"/build/*.deb "$chroot"/build/*.changes "$chroot"/build/*.buildinfo "$out/"
	rm -rf "$chroot/build"
	say "packages in $out (build only: no lintian, install or autopkgtest)"
	exit 0
fi
say "lintian $changes"
in_chroot sh -c "cd /build && lintian --fail-on error,warning --info $changes"
say "lintian: no error, warning or info tag"

debs=$(cd "$chroot/build" && ls ./*.deb)
say "apt install $(echo $debs)"
in_chroot sh -c "cd /build && apt-get install -y -qq $(echo $debs)" >/dev/null
set +e
in_chroot sh -c "cd /build/inodedump-$version &&
	vmcore-inode -k tests/vmcores/committed/vmlinux \
		tests/vmcores/committed/d17-zlib.vmcore" > "$out.install-run.stdout" \
	2> "$out.install-run.stderr"
code=$?
set -e
say "vmcore-inode on the committed fixture: exit $code (3 by design: the README); $(wc -l < "$out.install-run.stdout") lines; stderr: $(cat "$out.install-run.stderr")"
[ "$code" = 3 ] || exit 1
# The autopkgtest's own Depends (python3-jsonschema for schema-valid), as
# autopkgtest would install them; our packages are in already.
test_deps=$(sed -n 's/^Depends: //p' "$src/debian/tests/control" | tr ',' '\n' |
	sed 's/^ *//; s/ *$//' | grep -v -x -e inodedump -e python3-inodedump \
	-e libinodedump0 -e libinodedump-dev -e crash-inodedump | sort -u)
added_deps=$(for p in $test_deps; do
	in_chroot dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || echo "$p"
done)
say "autopkgtest depends: $(echo $test_deps) (added: $(echo $added_deps))"
in_chroot apt-get install -y -qq --no-install-recommends $test_deps >/dev/null
for t in "$src"/debian/tests/*; do
	[ -x "$t" ] || continue
	say "debian/tests/$(basename "$t")"
	in_chroot sh -c "cd /build/inodedump-$version && debian/tests/$(basename "$t")"
done
in_chroot sh -c "dpkg-query -W -f='\${Package} \${Version} \${Status}\n' \
	libinodedump0 libinodedump-dev inodedump python3-inodedump crash-inodedump
	systemctl is-enabled inodedump-triage.path inodedump-triage.service || true"
in_chroot apt-get purge -y -qq libinodedump0 libinodedump-dev inodedump \
	python3-inodedump crash-inodedump >/dev/null
# and what the autopkgtest's Depends added: the cached chroot stays a
# buildd one, where a build-dep missing from debian/control shows
[ -z "$added_deps" ] ||
	in_chroot apt-get purge -y -qq --autoremove $added_deps >/dev/null

mkdir -p "$out"
cp "$chroot"/build/*.deb "$chroot"/build/*.changes "$chroot"/build/*.buildinfo "$out/"
mv "$out.install-run.stdout" "$out/install-run.stdout"
mv "$out.install-run.stderr" "$out/install-run.stderr"
say "packages in $out"
