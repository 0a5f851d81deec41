#!/bin/busybox sh
# Guest /init of the big set (tests/vmcores/big.sh; busybox ash). Loads
# /etc/fixture.conf's FX_MODULES, loop-mounts /ext4.img at /mnt/ext4, and
# builds the inode tree in two stages with /bin/mktree:
#   stage 1 (~20 k inodes in all)   -> "inodedump-big: ready 1"
#   host writes "more" on ttyS1     -> stage 2 (>= 200 k inodes in all)
#                                   -> "inodedump-big: ready 2"
# The host dumps the guest at each ready line. Failures print
# "inodedump-big: FAILED: ...".
/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /tmp /mnt/ext4
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# nr_inodes=0: no limit (the default, half the RAM's pages, is ~131 k here)
mount -t tmpfs -o nr_inodes=0 tmpfs /tmp

FX_MODULES= FX_STAGE1_TMPFS=0 FX_STAGE1_EXT4=0 FX_STAGE2_TMPFS=0 FX_STAGE2_EXT4=0
. /etc/fixture.conf
fail() { echo "inodedump-big: FAILED: $*"; }
echo "inodedump-big: kernel=$(uname -r)"
for m in $FX_MODULES; do
	insmod "/modules/$m.ko" || fail "insmod $m"
done
mount -t ext4 -o loop /ext4.img /mnt/ext4 || fail "mount ext4"

# stage N TMPFS_FROM TMPFS_TO EXT4_FROM EXT4_TO
stage() {
	mktree /tmp/tree "$2" "$3" || fail "mktree /tmp/tree $2 $3"
	mktree /mnt/ext4/tree "$4" "$5" || fail "mktree /mnt/ext4/tree $4 $5"
	sync
	echo "inodedump-big: inodes-in-use $(awk '{ print $1 - $2 }' /proc/sys/fs/inode-nr)"
	echo "inodedump-big: ready $1"
}

stage 1 0 "$FX_STAGE1_TMPFS" 0 "$FX_STAGE1_EXT4"
stty -F /dev/ttyS1 raw -echo 2>/dev/null
while read -r cmd < /dev/ttyS1; do
	case "$cmd" in
	*more*)
		stage 2 "$FX_STAGE1_TMPFS" "$FX_STAGE2_TMPFS" "$FX_STAGE1_EXT4" "$FX_STAGE2_EXT4"
		break ;;
	esac
done
exec sleep 2147483647
