#!/bin/busybox sh
# Guest /init of the /proc/kcore bridge test (kcore_guest.py builds the
# initramfs: busybox, this, the 9p modules, /etc/kcore.conf). The stock
# Debian 6.12 kernel mounts the host's root read-only over 9p at /host,
# chroots there and runs Debian 12's drgn 0.0.22 and vmcore-inode --live on
# its own /proc/kcore; then, with KC_SID set, drgn 0.3.0 in the sid chroot.
# /etc/kcore.conf sets
#   KC_SRC KC_BUILD KC_VMLINUX KC_CLI     the worktree, the build, the
#                                         stock vmlinux, vmcore-inode (host paths)
#   KC_ENV                                extra environment (sanitizers)
#   KC_SID KC_INST KC_SITE KC_LIB         the sid chroot; the meson install
#                                         tree and its site-packages and
#                                         libdir below it (empty: no 0.3.0)
#   KC_SID_ENV                            extra environment in the sid chroot
# Each run's stdout, stderr, exit code and guest time go to ttyS1 (raw, a
# file on the host) framed as tests/test_live.py's parse_live() reads them;
# "inodedump-kcore: done" last, then the guest powers off.
/bin/busybox mkdir -p /bin /proc /sys /dev /host /kc
/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
. /etc/kcore.conf
fail() { echo "inodedump-kcore: FAILED: $*"; }

for m in netfs 9pnet 9pnet_virtio 9p; do
	insmod "/modules/$m.ko" || fail "insmod $m"
done
# cache=loose: the export is read-only and nothing on it changes while the
# guest runs; drgn and libdw read the 350 MB vmlinux through the page cache.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288 \
	hostroot /host || fail "mount 9p"

# chroot_mounts DIR: what a chroot needs, and /media = /kc (written here)
chroot_mounts() {
	mount -t proc proc "$1/proc" || fail "proc in $1"
	mount -t sysfs sysfs "$1/sys" || fail "sysfs in $1"
	mount -t devtmpfs devtmpfs "$1/dev" || fail "devtmpfs in $1"
	mount -o bind /kc "$1/media" || fail "/kc in $1"
}
chroot_mounts /host
# The files whose inodes are compared, on a tmpfs of their own at /mnt
# (not /tmp: a build directory below the host's /tmp stays visible),
# made by the kernel from this shell as tests/vmcores/init.sh makes the
# stock set's.
mount -t tmpfs tmpfs /host/mnt || fail "tmpfs /host/mnt"
d=/host/mnt/kc
mkdir -p "$d/dir"
printf 'hello\n' > "$d/regular"
: > "$d/empty"
ln -s short-target "$d/symlink_short"
ln -s "/mnt/kc/long-symlink-target-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz-end" "$d/symlink_long"
ln "$d/regular" "$d/hardlink"
mkfifo "$d/fifo"
mknod "$d/chardev" c 1 3
# Every mount before the first run: the inodes' paths stay as they are.
if [ -n "$KC_SID" ]; then
	sid=/host$KC_SID
	chroot_mounts "$sid"
	mount -o bind "/host$(dirname "$KC_VMLINUX")" "$sid/mnt" || fail "vmlinux in sid"
	mount -o bind "/host$KC_SRC/tests" "$sid/srv" || fail "tests in sid"
	mount -o bind "/host$KC_INST" "$sid/opt" || fail "install tree in sid"
fi
# Pin the 9p and proc inodes between the runs (the runs close theirs).
(cd /host && exec sleep 2147483647 3</host/proc/kcore 4<"/host$KC_VMLINUX") &

stty -F /dev/ttyS1 raw -echo 2>/dev/null || fail "stty ttyS1"
# run NAME CMD...: CMD's stdout and stderr, exit code and time on ttyS1.
run() {
	name=$1; shift
	echo "inodedump-kcore: run $name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > /kc/run.out 2> /kc/run.err
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	{
		echo "inodedump-live-begin name=$name"
		cat /kc/run.out; echo
		echo "inodedump-live-stderr name=$name"
		cat /kc/run.err; echo
		echo "inodedump-live-end name=$name rc=$rc seconds=$secs"
	} > /dev/ttyS1
	echo "inodedump-kcore: $name rc=$rc seconds=$secs"
}

in_host() {
	chroot /host /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
		PYTHONDONTWRITEBYTECODE=1 MALLOC_PERTURB_=0 $KC_ENV "$@"
}

VMCORE_INODE="$KC_CLI -k $KC_VMLINUX --live"
run drgn022 in_host PYTHONPATH="$KC_BUILD/bridges/python" /usr/bin/python3 \
	"$KC_SRC/tests/bridges/kcore_side.py" "$KC_VMLINUX" /media/addrs.json \
	tmpfs_regular=/mnt/kc/regular tmpfs_empty=/mnt/kc/empty \
	tmpfs_dir=/mnt/kc/dir \
	tmpfs_symlink_short=/mnt/kc/symlink_short \
	tmpfs_symlink_long=/mnt/kc/symlink_long tmpfs_hardlink=/mnt/kc/hardlink \
	tmpfs_fifo=/mnt/kc/fifo tmpfs_chardev=/mnt/kc/chardev \
	9p_root=/ 9p_symlink=/usr/bin/python3 \
	"9p_file=$KC_SRC/tests/bridges/kcore_side.py" \
	proc_kcore=/proc/kcore devtmpfs_null=/dev/null
if [ -f /kc/addrs.txt ]; then
	read -r ADDRS < /kc/addrs.txt
	SB=$(sed -n 2p /kc/addrs.txt)
	run cli-json in_host $VMCORE_INODE --json $ADDRS
	# No vmlinux (issue 16): types from the running kernel's BTF and symbols
	# from its kallsyms, both read through /proc/kcore; an empty debug root
	# so that no vmlinux is found by build-id or release; no cache (env -i
	# leaves no HOME). Right after cli-json, which it must equal.
	mkdir -p /kc/nodebug
	run cli-btf-json in_host $KC_CLI --live --debug-root /media/nodebug --json $ADDRS
	run cli-btf-info in_host $KC_CLI --live --debug-root /media/nodebug --info
	run cli-text in_host $VMCORE_INODE $ADDRS
	run cli-one in_host $VMCORE_INODE "${ADDRS%% *}"
	run cli-reports in_host $VMCORE_INODE --json
	run cli-sweep in_host $VMCORE_INODE --sweep --jsonl --sb "$SB"
	run cli-sweep-text in_host $VMCORE_INODE --sweep --sb "$SB"
	run cli-log in_host $VMCORE_INODE --log
	# Not root (the stock kernel has users, unlike the patched tinyconfig
	# one): /proc/kcore is refused with a reason, before any vmlinux read.
	NOBODY="/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
	run nonroot-id in_host $NOBODY /usr/bin/id
	run nonroot in_host $NOBODY $VMCORE_INODE --json "${ADDRS%% *}"
	run nonroot-reports in_host $NOBODY $VMCORE_INODE
else
	fail "the drgn 0.0.22 run wrote no addresses"
fi

if [ -n "$KC_SID" ] && [ -f /kc/addrs.txt ]; then
	run drgn030 chroot "$sid" /usr/bin/env -i PATH=/usr/bin:/bin \
		LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="/opt$KC_SITE" \
		LD_LIBRARY_PATH="/opt$KC_LIB" $KC_SID_ENV /usr/bin/python3 \
		/srv/bridges/kcore_side.py "/mnt/$(basename "$KC_VMLINUX")" \
		/media/addrs.json
	# the command again, for what changed meanwhile (a live kernel: the
	# rootfs root's i_dir_seq moves with lookups there)
	run cli-json-after in_host $VMCORE_INODE --json $ADDRS
	run cli-text-after in_host $VMCORE_INODE $ADDRS
	run cli-sweep-text-after in_host $VMCORE_INODE --sweep --sb "$SB"
fi
echo "inodedump-live: done" > /dev/ttyS1
echo "inodedump-kcore: done"
poweroff -f
